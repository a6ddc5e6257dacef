import Foundation

/// An H.264 MP4 made by the ffmpeg program (Debian's ffmpeg) from frames handed to it one at a
/// time as PNG files' bytes (Documentation/Sequences.md, "Videos"). The video goes into output
/// `index` of an `OutputSet`: ffmpeg writes the staged temporary file, which the set moves into
/// place only once ffmpeg has finished, so a video is complete or absent.
public final class VideoEncoder {
    /// Why a video cannot be made.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// No ffmpeg program on PATH.
        case noFFmpeg
        /// ffmpeg stopped with an error (its last line).
        case ffmpegFailed(String)
        /// A frame rate outside 1...240 frames a second.
        case badFrameRate(Double)

        /// The error in one line, saying how to install ffmpeg where it is missing.
        public var description: String {
            switch self {
            case .noFFmpeg: "ffmpeg is not installed (Debian and Ubuntu: apt-get install ffmpeg): it makes the MP4"
            case .ffmpegFailed(let line): "ffmpeg failed: \(line)"
            case .badFrameRate(let fps): "fps: \(fps) is outside 1...240"
            }
        }
    }

    private let process: Process
    private let input: FileHandle
    private let errors: Pipe
    private var finished = false
    /// Frames handed to ffmpeg so far.
    public private(set) var frames = 0

    /// The path of the program named `name` on PATH, or nil.
    public static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts ffmpeg, writing an MP4 at `fps` frames a second into output `index` of `set`:
    /// frames as PNG files' bytes (`append(png:)`), or with `size` as 8-bit RGB images of that
    /// size (`append(image:)`). Frames of odd sizes are padded by a pixel to the even size
    /// H.264's 4:2:0 needs.
    public init(_ set: OutputSet, at index: Int, fps: Double, size: (width: Int, height: Int)? = nil) throws {
        guard fps >= 1 && fps <= 240 else { throw Failure.badFrameRate(fps) }
        guard let ffmpeg = VideoEncoder.program("ffmpeg") else { throw Failure.noFFmpeg }
        let temporary = try set.temporaryPath(index)
        process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments =
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
            ]
            + (size.map { ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\($0.width)x\($0.height)"] }
                ?? ["-f", "image2pipe", "-c:v", "png"]) + [
                "-framerate", String(fps), "-i", "-",
                "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", temporary,
            ]
        let stdin = Pipe()
        errors = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // A forced exit stops ffmpeg before it removes the temporary file ffmpeg writes.
        TemporaryFiles.addChild(process.processIdentifier)
        input = stdin.fileHandleForWriting
    }

    deinit { if !finished { cancel() } }

    /// Hands ffmpeg one frame: an 8-bit RGB image of the size the encoder was started with
    /// (`ColorError.invalid` for another depth).
    public func append(image: RGBImage) throws {
        guard image.bitDepth == .eight else {
            throw ColorError.invalid(field: "bitDepth", reason: "a video frame is 8 bits a sample, not 16")
        }
        try append(png: Data(image.pixels))
    }

    /// Hands ffmpeg one frame: a PNG file's bytes.
    public func append(png: Data) throws(Failure) {
        do { try Self.withoutBrokenPipeSignal { try input.write(contentsOf: png) } } catch {
            // ffmpeg went away (a closed pipe): its own message says why.
            try? input.close()
            wait()
            finished = true
            throw Failure.ffmpegFailed(lastLine())
        }
        frames += 1
    }

    /// Runs `body` (a write to ffmpeg's pipe) with SIGPIPE blocked on this thread, so that a
    /// pipe ffmpeg closed is an error of the write (EPIPE), not the end of the host process,
    /// which may not ignore SIGPIPE as the command line does. A SIGPIPE the write raised is
    /// taken from the thread's pending signals before the old mask comes back.
    package static func withoutBrokenPipeSignal<T>(_ body: () throws -> T) rethrows -> T {
        var block = sigset_t()
        var old = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &block, &old)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 && sigismember(&old, SIGPIPE) == 0 {
                #if canImport(Darwin)
                var taken: Int32 = 0
                sigwait(&block, &taken)
                #else
                var zero = timespec()
                _ = sigtimedwait(&block, nil, &zero)
                #endif
            }
            pthread_sigmask(SIG_SETMASK, &old, nil)
        }
        return try body()
    }

    /// Ends the input and waits for ffmpeg; the set may then commit the video.
    public func finish() throws(Failure) {
        guard !finished else { return }
        finished = true
        try? input.close()
        wait()
        guard process.terminationStatus == 0 else { throw Failure.ffmpegFailed(lastLine()) }
    }

    /// Stops ffmpeg (a cancelled or failed run): the set's abort removes what it wrote.
    public func cancel() {
        finished = true
        try? input.close()
        if process.isRunning { process.terminate() }
        wait()
    }

    private func wait() {
        process.waitUntilExit()
        TemporaryFiles.removeChild(process.processIdentifier)
    }

    private func lastLine() -> String {
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.last.map { String($0.prefix(200)) } ?? "exit status \(process.terminationStatus)"
    }
}

extension VideoEncoder.Failure: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
