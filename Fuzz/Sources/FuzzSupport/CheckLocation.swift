import Fathom
import Foundation

/// What the commands do with a location file after reading it, up to the render itself:
/// `info` (the location, the zoom), `convert` (JSON and, for the Mandelbrot family, KFR text
/// that reads back to the same location), `render`'s checks before its long work (the size,
/// supersampling, the engine settings, the plan with its viewport) and the colouring of a small made-up field with the file's
/// colour settings. A thrown error is the expected outcome for bad input; a trap is a finding.
public enum CheckLocation {
    public static func check(_ file: LocationFile) {
        guard let location = try? file.location() else { return }
        _ = try? LocationFile.zoom(fromRadius: location.radius)

        // convert: JSON reads back to the same file.
        let json = file.prettyJSONString()
        guard let back = try? LocationFile.decode(Data(json.utf8), path: "fuzz-back.json") else {
            preconditionFailure("the JSON Fathom writes does not read back: \(json.prefix(400))")
        }
        precondition(back == file, "the JSON Fathom writes reads back differently: \(json.prefix(400))")
        // convert to .kfr: what it writes reads back to the same view.
        if let kfr = try? KFR.text(of: file) {
            guard let again = try? KFR.parse(kfr, path: "fuzz-back.kfr"), let view = try? again.location() else {
                preconditionFailure("the KFR text Fathom writes does not read back: \(kfr.prefix(400))")
            }
            precondition(
                view.centerRe == location.centerRe && view.centerIm == location.centerIm
                    && view.family == location.family && view.maxIterations == location.maxIterations,
                "the KFR text Fathom writes reads back to another view: \(kfr.prefix(400))")
        }

        // render: the checks RenderCommand.renderSettings and ImageRender.render make, in order.
        let width = file.width ?? 1280, height = file.height ?? 720
        guard (try? ImageSize.validate(width: width, height: height)) != nil else { return }
        var settings = RenderSettings(width: width, height: height)
        if let g = file.guardBits {
            guard g >= 0 && g <= 64 else { return }
            settings.guardBits = g
        }
        let k = file.supersample ?? 1
        guard (1...4).contains(k), (try? ImageSize.validate(width: width * k, height: height * k)) != nil else {
            return
        }
        settings.width *= k
        settings.height *= k
        if let engine = file.engine { guard (try? engine.apply(to: &settings)) != nil else { return } }
        _ = try? Renderer.plan(location: location, settings: settings)

        // Colouring, as ImageRender does after the render, on a 4 x 4 field of assorted counts.
        let color = file.color ?? ColorSettings()
        var rootCount = 0
        if case .newton(let poly) = location.family { rootCount = poly.degree }
        var field = IterationField(width: 4, height: 4, maxIterations: location.maxIterations, rootCount: rootCount)
        let counts: [UInt32] = [0, 1, 2, 3, 7, 100, 1000, UInt32(min(location.maxIterations, Int(UInt32.max)))]
        for i in 0..<16 {
            let n = counts[i % counts.count]
            field.n2[i] = n
            field.nBig[i] = i < 8 ? n : 0
            field.smooth[i] = i < 8 ? Double(n) + 0.25 : .nan
            if rootCount > 0 { field.root[i] = UInt8(i % (rootCount + 1)) }
        }
        // A setting the field cannot serve (a boundary without distance data) is an error, not
        // a trap: both outcomes are fine here.
        _ = try? Colorizer.image(field, settings: color)
        _ = try? Colorizer.image(field, settings: color, bitDepth: .sixteen)
    }
}
