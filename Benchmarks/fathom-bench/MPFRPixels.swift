// `fathom-bench mpfr-pixels`: chosen pixels of a view by direct MPFR iteration, to check a
// render's doubtful pixels against the truth.
import Fathom
import Foundation

enum MPFRPixels {
    static func run(name: String, size: String, indices: [Int], locations: String) {
        do {
            let loc =
                try Presets.named(name)?.location
                ?? LocationFile.read(path: locations + "/" + name + ".json").location()
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw CocoaError(.formatting) }
            let viewport = try Viewport(location: loc, width: parts[0], height: parts[1])
            let mpfr = MPFREscape(precision: viewport.precision)
            for i in indices {
                let want = mpfr.iterate(
                    pixelX: i % parts[0], pixelY: i / parts[0], viewport: viewport, family: loc.family,
                    maxIterations: loc.maxIterations)
                print("\(i) \(want.n2) \(want.nBig) \(String(format: "%.10f", want.smooth))")
            }
        } catch {
            FileHandle.standardError.write(Data("mpfr-pixels \(name): \(error)\n".utf8))
            exit(1)
        }
    }
}
