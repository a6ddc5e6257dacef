import Fathom
import Foundation

/// `fathom sequence`: a zoom-out from one location, or frames between keyframes, rendered to
/// numbered PNGs; `--frames A..B` renders a slice.
enum SequenceCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.sequence.arguments(args) else { return }

        let planned: FrameSequence
        var first: LocationFile
        if !a.positionals.isEmpty {
            // Keyframes: location files (JSON, .kfr or Fathom PNGs), in order.
            guard a[.zoomOut] == nil && a[.location] == nil && a[.preset] == nil else {
                throw CLIError.usage("give keyframe files, or --zoom-out with --location or --preset, not both")
            }
            let keys = try a.positionals.map { try LocationFile.read(path: $0) }
            guard keys.count >= 2 else { throw CLIError.usage("a keyframe sequence needs at least two location files") }
            let perSegment = a.int(.perSegment) ?? 30
            planned = try FrameSequence.between(keys, perSegment: perSegment)
            first = keys[0]
        } else {
            guard let count = a.int(.zoomOut) else {
                throw CLIError.usage("give --zoom-out N with --location or --preset, or two or more keyframe files")
            }
            first = try RenderCommand.baseLocation(a)
            let factor = a.number(.factor) ?? 2
            planned = try FrameSequence.zoomOut(from: first, count: count, factor: factor)
        }

        if let (w, h) = a.size(.frameSize) {
            first.width = w
            first.height = h
        }
        // The engine settings are each frame's own (its keyframe's), with the command line's
        // laid over them; the render settings carry the rest.
        first.engine = nil
        let (settings, _) = try RenderCommand.renderSettings(a, first)
        let sequence = FrameSequence(
            frames: planned.frames.map { frame in
                var frame = frame
                frame.engine = RenderCommand.engineSettings(a, frame.engine)
                // Stored in each frame's PNG, as render stores it.
                if a[.guardBits] != nil { frame.guardBits = settings.guardBits }
                return frame
            })
        let bitDepth = a.int(.bitDepth).flatMap(BitDepth.init(rawValue:)) ?? .eight

        let quiet = a.has(.quiet)
        if let jobs = a[.slurm] {
            // The zoom-out's deep location as the jobs read it, with the command line's engine
            // options and guard bits in it.
            guard a.positionals.isEmpty else {
                throw CLIError.usage("--slurm takes a zoom-out (--zoom-out N), not keyframes")
            }
            var deep = first
            deep.engine = sequence.frames[0].engine
            deep.guardBits = sequence.frames[0].guardBits
            try ClusterJobs.write(
                into: jobs, deep: deep, frames: sequence.frames.count, factor: a.number(.factor) ?? 2,
                size: (settings.width, settings.height), bitDepth: bitDepth, tasks: a.int(.tasks) ?? 4,
                fps: a.number(.jobFPS) ?? 30, submit: a.has(.submit), quiet: quiet)
            return
        }
        guard
            let range = try ClusterJobs.slice(
                a[.sliceOf], frames: try frameRange(a[.frameSlice], count: sequence.frames.count))
        else {
            if !quiet { print("sequence: this task's share of the frames is empty (more tasks than frames)") }
            return
        }
        // Every frame of the slice is checked before the folder is made.
        for k in range { _ = try sequence.frames[k].location() }
        let control = Cancellation.control()
        let cache = ReferenceCache()
        if let folder = a[.saveReferences] {
            try ClusterJobs.saveReferences(
                sequence, range, settings: settings, cache: cache, into: folder, control: control)
            if !quiet { print("saved \(cache.storedOrbits.count) reference orbits in \(folder)") }
            return
        }
        if let folder = a[.loadReferences] { cache.add(try ClusterJobs.loadReferences(folder)) }
        let folder = a[.outputFolder] ?? "frames"
        let created = try prepareFolder(folder)

        let report: FrameSequence.Report
        do {
            report = try sequence.render(
                range, into: folder, settings: settings, bitDepth: bitDepth, cache: cache, control: control,
                resume: a.has(.resume)
            ) { k, result in
                // Unsettled pixels are reported with or without --quiet, as by render.
                if let p = result.report.perturbation, p.unsettledPixels > 0 {
                    let warning = RenderCommand.unverifiedWarning(p)
                    FileHandle.standardError.write(Data("frame \(k): \(warning)\n".utf8))
                }
                guard !quiet else { return }
                let r = result.report
                print(
                    String(
                        format: "frame %d: radius %@, path %@, %.2f s", k,
                        RenderCommand.abbreviated(sequence.frames[k].radius),
                        r.path.rawValue, r.seconds))
            }
        } catch {
            // A folder this command made and filled with nothing goes again (rmdir: only if empty).
            if created { rmdir(folder) }
            throw error
        }
        if !quiet {
            print(
                String(
                    format:
                        "sequence: %d of %d frames (%d..%d) in %@, %.1f s; reference orbits: %d computed, %d reused",
                    report.framesRendered, sequence.frames.count, range.lowerBound, range.upperBound, folder,
                    report.seconds,
                    report.orbitsComputed, report.orbitsReused)
                    + (report.framesSkipped > 0 ? "; \(report.framesSkipped) frames already done, skipped" : "")
                    + (report.finerOrbits > 0
                        ? "; \(report.finerOrbits) frames also took the reference at more bits for pixels at risk"
                        : ""))
        }
    }

    /// `--frames A..B` (nil: every frame), each bound checked with its own message.
    static func frameRange(_ text: String?, count: Int) throws -> ClosedRange<Int> {
        guard let text else { return 0...(count - 1) }
        let parts = text.components(separatedBy: "..")
        guard parts.count == 2, let lo = Int(parts[0]), let hi = Int(parts[1]) else {
            throw CLIError.data("--frames: '\(text)' is not A..B (first and last frame, e.g. 40..49)")
        }
        guard lo <= hi else {
            throw CLIError.data("--frames: \(text) ends before it starts: give the first frame first (\(hi)..\(lo))")
        }
        guard lo >= 0 && hi < count else {
            throw CLIError.data("--frames: \(text) is outside the sequence's frames 0..\(count - 1)")
        }
        return lo...hi
    }

    /// The output folder, created if its parent exists; whether this call created it.
    static func prepareFolder(_ folder: String) throws -> Bool {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw CLIError.cannotCreate("cannot write frames into '\(folder)': it is a file")
            }
        } else {
            let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw CLIError.cannotCreate("cannot create '\(folder)': folder '\(parent)' does not exist")
            }
            guard mkdir(folder, 0o777) == 0 else {
                throw CLIError.cannotCreate("cannot create '\(folder)': \(String(cString: strerror(errno)))")
            }
            return true
        }
        guard access(folder, W_OK) == 0 else {
            throw CLIError.cannotCreate("cannot write frames into '\(folder)': not writable")
        }
        return false
    }
}
