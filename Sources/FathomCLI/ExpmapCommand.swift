import Fathom
import Foundation

/// `fathom expmap`: an exponential map of a location (from radius 2 in to its radius), band by
/// band, streamed to a NumPy file (Documentation/Sequences.md, "Exponential maps").
enum ExpmapCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.expmap.arguments(args) else { return }
        try a.refusePositionals()
        try RenderCommand.refuseConflicts(a)
        let npy = a[.mapNPY], exr = a[.exr], keyframes = a[.kfFrames]
        guard npy != nil || exr != nil || keyframes != nil else {
            throw CLIError.usage("give --exr PATH, --npy PATH (or both) or --kf-frames DIR: where the map goes")
        }
        guard keyframes == nil || (npy == nil && exr == nil) else {
            throw CLIError.usage(
                "--kf-frames writes KF's layout of the map, not the strip: give it without --exr, --npy")
        }
        var file = try RenderCommand.baseLocation(a)
        try RenderCommand.applyOverrides(a, to: &file)
        let width = a.int(.mapWidth) ?? 1024
        file.width = width
        file.height = 1
        var (settings, engine) = try RenderCommand.renderSettings(a, file)
        let distance = a.has(.distance)
        if distance {
            guard exr != nil || keyframes != nil else {
                throw CLIError.usage("--distance goes into the EXR's DEX and DEY: give --exr PATH or --kf-frames DIR")
            }
            if try file.location().family.rootCount > 0 {
                throw CLIError.usage(
                    "--distance: a Newton view has no distance estimate (it is not an escape-time family)")
            }
            settings.extras = ExtrasRequest(derivative: true)
        }
        file.engine = engine
        let render = try ExponentialMapRender(file, width: width, layout: keyframes == nil ? .strip : .keyframes)
        let map = render.map
        if let keyframes {
            try writeKeyframes(render, into: keyframes, file: file, settings: settings, quiet: a.has(.quiet))
            return
        }
        // The outputs are resolved (what must not be written refused) before any work.
        let paths = [exr, npy].compactMap { $0 }
        let outputs = try OutputSet(paths)
        let quiet = a.has(.quiet)
        // On standard error when an output is standard output (`print`, StandardOutput.swift).
        func report(_ line: String) { print(line) }
        if !quiet {
            report(
                "expmap: \(map.width) x \(map.height) (\(map.bands().count) bands), radius 2 in to \(RenderCommand.abbreviated(render.location.radius))"
            )
        }
        let bar = TerminalProgress(quiet: quiet)
        let control = Cancellation.control(progress: nil)
        // The location the EXR stores: the map's, at its size.
        var stored = file
        stored.height = map.height
        let exrStream = try exr.map { _ in
            try EXRStream(
                outputs, at: 0, width: map.width, height: map.height, maxIterations: render.location.maxIterations,
                location: stored.jsonString(), distance: distance)
        }
        let npyStream = try npy.map { _ in
            try NPYStream(
                outputs, at: exr == nil ? 0 : 1, width: map.width, height: map.height,
                hasRoots: render.location.family.rootCount > 0)
        }
        defer { bar.clear() }
        let result = try render.render(settings: settings, control: control) { rows, band in
            try exrStream?.append(band.field)
            try npyStream?.append(band.field)
            bar.update(Double(rows.upperBound) / Double(map.height))
        }
        try exrStream?.finish()
        try npyStream?.finish()
        try outputs.commit()
        warnUnsettled(result)
        if !quiet {
            let routes = result.paths.map { "rows \($0.rows.lowerBound)-\($0.rows.upperBound - 1) \($0.path)" }
            report(
                "wrote \(paths.joined(separator: " and ")): \(map.width)x\(map.height) exponential map, "
                    + String(format: "%.2f s, %.0f M iterations", result.seconds, Double(result.iterations) / 1e6)
                    + "; \(routes.joined(separator: ", ")); reference orbits computed \(result.orbitsComputed), reused \(result.orbitsReused)"
            )
        }
    }

    /// The map in Kalles Fraktaler's layout (`ExponentialMap.init(keyframeWidth:log2Radius:)`):
    /// one EXR a file, 00001.exr the deepest, in `folder` (made if its parent exists), all or none.
    /// Distances are in pixels of the file's flat frame, as KF writes them: the row's map pixel
    /// (2 pi / W of its radius) is pi hypot(W, H) / W of those.
    static func writeKeyframes(
        _ render: ExponentialMapRender, into folder: String, file: LocationFile, settings: RenderSettings, quiet: Bool
    ) throws {
        let map = render.map
        let h = map.rowsPerFile!
        let digits = max(5, String(map.files).count)
        func name(_ k: Int) -> String {
            let number = String(k)
            return folder + "/" + String(repeating: "0", count: digits - number.count) + number + ".exr"
        }
        let created = try SequenceCommand.prepareFolder(folder)
        // Files K (the outermost, rendered first) down to 1.
        let order = Array((1...map.files).reversed())
        let outputs: OutputSet
        do { outputs = try OutputSet(order.map(name)) } catch {
            if created { rmdir(folder) }
            throw error
        }
        if !quiet {
            print(
                "expmap: \(map.files) files of \(map.width) x \(h) (KF's layout), radius 2 in to \(RenderCommand.abbreviated(render.location.radius))"
            )
        }
        let w = Double(map.width), hh = Double(h)
        let scale = Float(Double.pi * (w * w + hh * hh).squareRoot() / w)
        let distance = !settings.extras.isEmpty
        var stored = file
        stored.height = h
        let location = stored.jsonString()
        let bar = TerminalProgress(quiet: quiet)
        defer { bar.clear() }
        let control = Cancellation.control(progress: nil)
        var index = 0
        var stream: EXRStream?
        var filled = 0
        let result: ExponentialMapRender.Report
        do {
            result = try render.render(settings: settings, control: control) { rows, band in
                var y = 0
                while y < rows.count {
                    if stream == nil {
                        stream = try EXRStream(
                            outputs, at: index, width: map.width, height: h,
                            maxIterations: render.location.maxIterations,
                            location: location, distance: distance, distanceScale: scale)
                    }
                    let take = min(h - filled, rows.count - y)
                    try stream!.append(band.field, rows: y..<y + take)
                    y += take
                    filled += take
                    if filled == h {
                        try stream!.finish()
                        stream = nil
                        filled = 0
                        index += 1
                    }
                }
                bar.update(Double(rows.upperBound) / Double(map.height))
            }
            try outputs.commit()
        } catch {
            outputs.abort()
            if created { rmdir(folder) }
            throw error
        }
        warnUnsettled(result)
        if !quiet {
            print(
                "wrote \(name(1)) ... \(name(map.files)): "
                    + String(format: "%.2f s, %.0f M iterations", result.seconds, Double(result.iterations) / 1e6)
                    + "; reference orbits computed \(result.orbitsComputed), reused \(result.orbitsReused)")
        }
    }

    /// The warning for pixels no pass could settle, as column,row of the map (the first 16).
    static func warnUnsettled(_ result: ExponentialMapRender.Report) {
        guard result.unsettledPixels > 0 else { return }
        let shown = result.unsettledList.prefix(16).map(\.description).joined(separator: " ")
        FileHandle.standardError.write(
            Data(
                ("warning: \(result.unsettledPixels) pixels not verified: their smooth values may miss 1e-7 "
                    + "(direct MPFR would take more than the --mpfr-budget): \(shown)\n").utf8))
    }
}
