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
        ]).union(["width", "exr"])
        let a = try Arguments(args, valued: valued, flagNames: ["help", "quiet"])
        if a.has("help") { print(Help.expmap); return }
        guard a.positionals.isEmpty else { throw CLIError.usage("unexpected argument '\(a.positionals[0])'") }
        try RenderCommand.refuseConflicts(a)
        let npy = a["npy"], exr = a["exr"]
        guard npy != nil || exr != nil else {
            throw CLIError.usage("give --exr PATH or --npy PATH (or both): where the map goes")
        }
        var file = try RenderCommand.baseLocation(a)
        try RenderCommand.applyOverrides(a, to: &file)
        let width = try a.int("width") ?? 1024
        file.width = width
        file.height = 1
        let (settings, engine) = try RenderCommand.renderSettings(a, file)
        file.engine = engine
        let render = try ExponentialMapRender(file, width: width)
        let map = render.map
        // The outputs are resolved (what must not be written refused) before any work.
        let paths = [exr, npy].compactMap { $0 }
        let outputs = try OutputSet(paths)
        let quiet = a.has("quiet")
        func report(_ line: String) {
            if paths.contains("-") { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
        }
        if !quiet {
            report(
                "expmap: \(map.width) x \(map.height) (\(map.bands().count) bands), radius 2 in to \(RenderCommand.abbreviated(render.location.radius))"
            )
        }
        let showProgress = !quiet && isatty(2) != 0
        let meter = ProgressMeter()
        let control = Cancellation.control(progress: nil)
        // The location the EXR stores: the map's, at its size.
        var stored = file
        stored.height = map.height
        let exrStream = try exr.map { _ in
            try EXRStream(
                outputs, at: 0, width: map.width, height: map.height, maxIterations: render.location.maxIterations,
                location: stored.jsonString())
        }
        let npyStream = try npy.map { _ in
            try NPYStream(outputs, at: exr == nil ? 0 : 1, width: map.width, height: map.height)
        }
        defer {
            if showProgress {
                FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 48) + "\r").utf8))
            }
        }
        let result = try render.render(settings: settings, control: control) { rows, band in
            try exrStream?.append(band.field)
            try npyStream?.append(band.field)
            if showProgress, let line = meter.update(Double(rows.upperBound) / Double(map.height)) {
                FileHandle.standardError.write(Data(("\r" + line + "   ").utf8))
            }
        }
        try exrStream?.finish()
        try npyStream?.finish()
        try outputs.commit()
        if result.unsettledPixels > 0 {
            let shown = result.unsettledList.prefix(16).map { "\($0.x),\($0.y)" }.joined(separator: " ")
            FileHandle.standardError.write(
                Data(
                    ("warning: \(result.unsettledPixels) pixels not verified: their smooth values may miss 1e-7 "
                        + "(direct MPFR would take more than the --mpfr-budget): \(shown)\n").utf8))
        }
        if !quiet {
            let routes = result.paths.map { "rows \($0.rows.lowerBound)-\($0.rows.upperBound - 1) \($0.path)" }
            report(
                "wrote \(paths.joined(separator: " and ")): \(map.width)x\(map.height) exponential map, "
                    + String(format: "%.2f s, %.0f M iterations", result.seconds, Double(result.iterations) / 1e6)
                    + "; \(routes.joined(separator: ", ")); reference orbits computed \(result.orbitsComputed), reused \(result.orbitsReused)"
            )
        }
    }
}
