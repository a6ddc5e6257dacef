import Fathom
import Foundation

/// `fathom video`: an MP4 from a frame sequence's PNGs, made by ffmpeg (Documentation/Sequences.md,
/// "Videos").
enum VideoCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.video.arguments(args) else { return }
        try a.refusePositionals()
        let output = a[.videoOutput] ?? "fathom.mp4"
        let fps = a.number(.fps) ?? 30
        if let map = a[.expmap] {
            guard a[.frameFolder] == nil else { throw CLIError.usage("give --frames DIR or --expmap MAP, not both") }
            try fromMap(a, map: map, output: output, fps: fps)
            return
        }
        guard let folder = a[.frameFolder] else {
            throw CLIError.usage("give --frames DIR (a folder of frame-NNNNN.png) or --expmap MAP.npy")
        }
        if let other = a.options.keys.sorted().first(where: {
            ![CLIOption.frameFolder, .fps, .videoOutput].map(\.name).contains($0)
        }) {
            throw CLIError.usage("--\(other) applies to --expmap, not to --frames (the frames are encoded as they are)")
        }
        // Everything is checked before ffmpeg starts: the frames, the output, ffmpeg itself.
        let frames = try framePaths(folder)
        CommandInputs.declare(frames)
        let order = a.has(.reverse) ? Array(frames.reversed()) : frames
        let quiet = a.has(.quiet)
        let start = Date()
        try encode(to: output, fps: fps, size: nil, count: order.count, quiet: quiet) { encoder, control, done in
            for (k, path) in order.enumerated() {
                if control.isCancelled { throw RenderError.cancelled }
                let png: Data
                do throws(InputFile.Failure) { png = try InputFile.read(path, maximumSize: Int.max) } catch {
                    throw CLIError.noInput("cannot read '\(path)': \(error.reason)")
                }
                try encoder.append(png: png)
                done(k)
            }
        }
        if !quiet {
            print(
                String(
                    format: "wrote %@: %d frames at %g fps (%.1f s of video) in %.1f s", output, order.count, fps,
                    Double(order.count) / fps, Date().timeIntervalSince(start)))
        }
    }

    /// The video of an exponential map (`fathom expmap --npy`) of the location the options give.
    static func fromMap(_ a: Arguments, map: String, output: String, fps: Double) throws {
        var file = try RenderCommand.baseLocation(a)
        try RenderCommand.applyOverrides(a, to: &file)
        let video = try ExponentialMapVideo(mapPath: map, location: file)
        let (width, height) = a.size(.videoSize) ?? (640, 360)
        file.width = width
        file.height = height
        let (settings, _) = try RenderCommand.renderSettings(a, file)
        let octaves = max(0, video.map.log2Radius(row: 0) - video.log2Radius)
        let speed: Double
        if let duration = a.number(.duration) {
            guard duration > 0 && duration <= 1e6 else {
                throw CLIError.data("--duration: \(duration) is outside 0...1e6 s")
            }
            speed = max(octaves, 1e-9) / duration
        } else {
            speed = a.number(.zoomSpeed) ?? 1
        }
        guard speed > 0 && speed <= 1e6 else {
            throw CLIError.data("--zoom-speed: \(speed) is outside 0...1e6 octaves a second")
        }
        let radii = try video.frameRadii(width: width, height: height, fps: fps, octavesPerSecond: speed)
        let quiet = a.has(.quiet)
        let start = Date()
        try encode(to: output, fps: fps, size: (width, height), count: radii.count, quiet: quiet) {
            encoder, control, done in
            try video.frames(width: width, height: height, log2Radii: radii, settings: settings, control: control) {
                k, image in
                try encoder.append(image: image)
                done(k)
            }
        }
        if !quiet {
            print(
                String(
                    format: "wrote %@: %d frames of %dx%d at %g fps (%.1f octaves at %g a second) from %@ in %.1f s",
                    output, radii.count, width, height, fps, octaves, speed, map, Date().timeIntervalSince(start)))
        }
    }

    /// One video into `output`: the output resolved and ffmpeg started before any frame, then
    /// `feed` hands the encoder `count` frames (calling its third argument after frame k, for the
    /// progress bar on a terminal); the MP4 is committed only once ffmpeg finished, else removed.
    static func encode(
        to output: String, fps: Double, size: (width: Int, height: Int)?, count: Int, quiet: Bool,
        feed: (VideoEncoder, RenderControl, (Int) -> Void) throws -> Void
    ) throws {
        let outputs = try OutputSet([output])
        let control = Cancellation.control()
        let encoder: VideoEncoder
        do { encoder = try VideoEncoder(outputs, at: 0, fps: fps, size: size) } catch let failure
            as VideoEncoder.Failure
        {
            throw failure == .noFFmpeg ? CLIError(exitCode: 69, message: "\(failure)") : CLIError.data("\(failure)")
        }
        let bar = TerminalProgress(quiet: quiet)
        defer { bar.clear() }
        do {
            try feed(encoder, control) { k in bar.update(Double(k + 1) / Double(count)) }
            try encoder.finish()
            if control.isCancelled { throw RenderError.cancelled }
            try outputs.commit()
        } catch {
            encoder.cancel()
            outputs.abort()
            if let failure = error as? VideoEncoder.Failure { throw CLIError.other("\(failure)") }
            throw error
        }
    }

    /// frame-00000.png ... in `folder`: at least one, numbered from 0 without a gap, each a PNG of
    /// one size.
    static func framePaths(_ folder: String) throws -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw CLIError.noInput("cannot read the frames folder '\(folder)'")
        }
        let numbers = names.compactMap { name -> Int? in
            guard name.hasPrefix("frame-"), name.hasSuffix(".png"), name.count == 15 else { return nil }
            return Int(name.dropFirst(6).dropLast(4))
        }.sorted()
        guard !numbers.isEmpty else { throw CLIError.data("no frames (frame-NNNNN.png) in '\(folder)'") }
        if let gap = numbers.enumerated().first(where: { $0.offset != $0.element }) {
            throw CLIError.data("frames in '\(folder)' are missing \(FrameSequence.fileName(frame: gap.offset))")
        }
        let paths = numbers.map { folder + "/" + FrameSequence.fileName(frame: $0) }
        var size: (Int, Int)?
        for path in paths {
            let s = try pngSize(path)
            if let size, size != s {
                throw CLIError.data("'\(path)' is \(s.0)x\(s.1), the frames before it \(size.0)x\(size.1)")
            }
            size = s
        }
        return paths
    }

    /// A PNG's width and height from its header.
    static func pngSize(_ path: String) throws -> (Int, Int) {
        let handle: FileHandle
        do { handle = try InputFile.open(path) } catch {
            throw CLIError.noInput("cannot read '\(path)': \(error.reason)")
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 24)) ?? Data())
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard head.count == 24, Array(head[0..<8]) == signature, Array(head[12..<16]) == Array("IHDR".utf8) else {
            throw CLIError.data("'\(path)' is not a PNG")
        }
        func word(_ i: Int) -> Int { head[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }
}
