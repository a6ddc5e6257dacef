import Fathom
import Foundation

/// `fathom expmap`: an exponential map of a location (from radius 2 in to its radius), band by
/// band, streamed to a NumPy file (Documentation/Sequences.md, "Exponential maps").
enum ExpmapCommand {
    static func run(_ args: [String]) throws {
        let valued = RenderCommand.valued.subtracting([
            "output", "size", "supersample", "load-reference", "save-reference", "reference", "bit-depth",
            "palette", "density", "offset", "smooth", "color-scale", "interior", "gradient", "boundary", "slope",
            "trap",
        ]).union(["width"])
        let a = try Arguments(args, valued: valued, flagNames: ["help", "quiet"])
        if a.has("help") { print(Help.expmap); return }
        guard a.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(a.positionals[0])'") }
        try RenderCommand.refuseConflicts(a)
        guard let npy = a["npy"] else { throw CLIError.usage("give --npy PATH: where the map's iteration data go") }
        var file = try RenderCommand.baseLocation(a)
        try RenderCommand.applyOverrides(a, to: &file)
        let width = try a.int("width") ?? 1024
        file.width = width
        file.height = 1
        let (settings, engine) = try RenderCommand.renderSettings(a, file)
        file.engine = engine
        let render = try ExponentialMapRender(file, width: width)
        let map = render.map
        // The output is resolved (what must not be written refused) before any work.
        let outputs = try OutputSet([npy])
        let quiet = a.has("quiet")
        func report(_ line: String) {
            if npy == "-" { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
        }
        if !quiet {
            report(
                "expmap: \(map.width) x \(map.height) (\(map.bands().count) bands), radius 2 in to \(RenderCommand.abbreviated(render.location.radius))"
            )
        }
        let showProgress = !quiet && isatty(2) != 0
        let meter = ProgressMeter()
        let control = Cancellation.control(progress: nil)
        let stream = try NPYStream(outputs, at: 0, width: map.width, height: map.height)
        defer {
            if showProgress {
                FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 48) + "\r").utf8))
            }
        }
        let result = try render.render(settings: settings, control: control) { rows, band in
            try stream.append(band.field)
            if showProgress, let line = meter.update(Double(rows.upperBound) / Double(map.height)) {
                FileHandle.standardError.write(Data(("\r" + line + "   ").utf8))
            }
        }
        try stream.finish()
        try outputs.commit()
        if result.unsettledPixels > 0 {
            let shown = result.unsettledList.prefix(16).map { "\($0.x),\($0.y)" }.joined(separator: " ")
            FileHandle.standardError.write(
                Data(
                    ("warning: \(result.unsettledPixels) pixels not verified: their smooth values may miss 1e-7 "
                        + "(direct MPFR would take more than the --mpfr-budget): \(shown)\n").utf8))
        }
        if !quiet {
            let paths = result.paths.map { "rows \($0.rows.lowerBound)-\($0.rows.upperBound - 1) \($0.path)" }
            report(
                "wrote \(npy): \(map.width)x\(map.height) exponential map, "
                    + String(format: "%.2f s, %.0f M iterations", result.seconds, Double(result.iterations) / 1e6)
                    + "; \(paths.joined(separator: ", ")); reference orbits computed \(result.orbitsComputed), reused \(result.orbitsReused)"
            )
        }
    }
}
