import Fathom
import Foundation

/// `fathom info FILE`: the location in a Fathom JSON, a .kfr or a Fathom PNG.
enum InfoCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.info.arguments(args) else { return }
        guard a.positionals.count == 1 else { throw CLIError.usage("info takes one file") }
        let file = try LocationFile.read(path: a.positionals[0])
        let location = try file.location()
        if a.has(.json) {
            print(file.prettyJSONString(), terminator: "")
            return
        }
        var lines =
            (file.name.map { ["name: \(FathomError.quotedForMessage($0))"] } ?? []) + [
                "family: \(location.family.name)" + familyDetail(location.family),
                "center: \(location.centerRe), \(location.centerIm)",
                "radius: \(location.radius) (zoom \(try LocationFile.zoom(fromRadius: location.radius).prefix(24)))",
                "iterations: \(location.maxIterations)",
            ]
        if location.rotation != 0 { lines.append("rotation: \(location.rotation) degrees") }
        if let w = file.width, let h = file.height { lines.append("size: \(w)x\(h)") }
        if let c = file.color {
            let smooth = "smooth \(c.smooth ? "on" : "off")"
            lines.append(
                "colour: "
                    + (c.gradient.map { "gradient of \($0.stops.count) stops, " } ?? "palette \(c.palette.rawValue), ")
                    + (c.scale == .automatic
                        ? "\(smooth), scale auto (adapts to the view)"
                        : "density \(c.density), offset \(c.offset), \(smooth), scale \(c.scale.rawValue)"
                            + (c.quantiles.map { " (counts \($0.first!)...\($0.last!), \($0.count - 1) segments)" }
                                ?? ""))
            )
        }
        if let e = file.engine, e != LocationFile.EngineSettings() {
            let parts: [String?] = [
                e.path.map { "path \($0.rawValue)" }, e.glitches.map { "glitches \($0.rawValue)" },
                e.reference.map { "reference \($0.rawValue)" }, e.delta.map { "delta \($0.rawValue)" },
                e.bla.map { "bla \($0 ? "on" : "off")" }, e.blaEpsilon.map { "bla-epsilon \($0)" },
                e.precisionPasses.map { "precision-passes \($0 ? "on" : "off")" },
                e.coarseFirstPass.map { "coarse-first-pass \($0 ? "on" : "off")" },
            ]
            lines.append("engine: " + parts.compactMap { $0 }.joined(separator: ", "))
        }
        if let r = file.render {
            lines.append(
                "rendered by Fathom \(r.fathomVersion): path \(r.path), \(r.requiredBits) bits"
                    + (r.deltaType.map { ", deltas \($0)" } ?? "") + (r.glitchMode.map { ", glitches \($0)" } ?? ""))
        }
        if let extra = file.kfrExtra, !extra.isEmpty {
            lines.append(
                "Kalles Fraktaler keys kept (not used by Fathom): "
                    + extra.map { $0.first ?? "" }.joined(separator: ", "))
        }
        print(lines.joined(separator: "\n"))
    }

    static func familyDetail(_ family: Family) -> String {
        switch family {
        case .mandelbrot: ""
        case .multibrot(let p): " (power \(p))"
        case .julia(let re, let im): " (c = \(re), \(im))"
        case .newton(let poly): " (\(poly.text))"
        }
    }
}

/// `fathom convert IN OUT`: a location between Fathom JSON and .kfr (by OUT's extension);
/// IN may also be a Fathom PNG.
enum ConvertCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.convert.arguments(args) else { return }
        guard a.positionals.count == 2 else { throw CLIError.usage("convert takes an input and an output file") }
        let file = try LocationFile.read(path: a.positionals[0])
        _ = try file.location()
        let output = a.positionals[1]
        let text: String
        if output.lowercased().hasSuffix(".kfr") {
            text = try KFR.text(of: file)
        } else if output.lowercased().hasSuffix(".json") {
            var stripped = file
            stripped.render = nil
            text = stripped.prettyJSONString()
        } else {
            throw CLIError.usage("convert: '\(output)' must end in .json or .kfr")
        }
        try AtomicFile.write(Data(text.utf8), to: output)
    }
}
