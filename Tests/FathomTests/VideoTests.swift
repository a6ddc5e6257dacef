import Fathom
import Foundation
import FractalNumerics
import Testing

@Suite("Videos")
struct VideoTests {
    /// ffprobe's count of decoded frames and the video's size.
    static func probe(_ path: String) throws -> (frames: Int, width: Int, height: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(VideoEncoder.program("ffprobe")))
        process.arguments = [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=nb_read_frames,width,height", "-of", "csv=p=0", path,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        try #require(fields.count == 3, "ffprobe said '\(text)'")
        return (fields[2], fields[0], fields[1])
    }

    @Test("a zoom-out sequence becomes an MP4 of all its frames (ffprobe counts them), padded to an even size")
    func fromSequence() throws {
        #expect(VideoEncoder.program("ffmpeg") != nil, "make deps installs ffmpeg")
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(
            #"{"family":"mandelbrot","center":["-0.743643887037158704752191506114774","0.131825904205311970493132056385139"],"radius":"1e-10","maxIterations":3000}"#
                .utf8
        ).write(to: URL(fileURLWithPath: folder + "/deep.json"))
        let sequence = try FathomProcess.run(
            [
                "sequence", "--zoom-out", "9", "--location", "deep.json", "--size", "65x37", "--output-dir", "frames",
                "--quiet",
            ], in: folder)
        #expect(sequence.code == 0, "\(sequence.stderr)")
        let video = try FathomProcess.run(
            ["video", "--frames", "frames", "--output", "zoom.mp4", "--fps", "24", "--reverse"], in: folder)
        #expect(video.code == 0, "\(video.stderr)")
        #expect(video.stdout.contains("9 frames at 24 fps"))
        let probed = try Self.probe(folder + "/zoom.mp4")
        #expect(probed.frames == 9 && probed.width == 66 && probed.height == 38)
        // No temporary file is left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["deep.json", "frames", "zoom.mp4"])
    }

    @Test("bad input: no ffmpeg, a gap in the frames, a frame that is not a PNG, a folder as output; nothing written")
    func badInput() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = folder + "/frames"
        try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
        // Two real frames (a PNG each), then cases made from them.
        for k in 0..<2 {
            var file = LocationFile(
                location: Location(centerRe: "-0.75", centerIm: "0.1", radius: "0.05", maxIterations: 200))
            file.width = 16
            file.height = 8
            try ImageRender.render(
                file, settings: RenderSettings(width: 16, height: 8),
                to: frames + "/" + FrameSequence.fileName(frame: k))
        }
        let noFFmpeg = try FathomProcess.run(
            ["video", "--frames", "frames", "--output", "a.mp4"], in: folder, environment: ["PATH": "/nonexistent"])
        #expect(noFFmpeg.code == 69 && noFFmpeg.stderr.contains("ffmpeg is not installed"))
        #expect(noFFmpeg.stderr.split(separator: "\n").count == 1)
        let intoFolder = try FathomProcess.run(["video", "--frames", "frames", "--output", "frames"], in: folder)
        #expect(intoFolder.code == 73)
        // The view, colour and engine options serve --expmap: with --frames they are refused, not ignored.
        let palette = try FathomProcess.run(
            ["video", "--frames", "frames", "--palette", "hot", "--output", "p.mp4"], in: folder)
        #expect(palette.code == 64 && palette.stderr.contains("--palette applies to --expmap"), "\(palette.stderr)")
        try FileManager.default.moveItem(atPath: frames + "/frame-00001.png", toPath: frames + "/frame-00002.png")
        let gap = try FathomProcess.run(["video", "--frames", "frames", "--output", "b.mp4"], in: folder)
        #expect(gap.code == 65 && gap.stderr.contains("missing frame-00001.png"))
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: frames + "/frame-00001.png"))
        let notPNG = try FathomProcess.run(["video", "--frames", "frames", "--output", "c.mp4"], in: folder)
        #expect(notPNG.code == 65 && notPNG.stderr.contains("is not a PNG"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["frames"])
    }
}

@Suite("Videos from an exponential map")
struct MapVideoTests {
    @Test("frames from radius 2 in to the location's; the last frame is the flat render, its ring interpolated")
    func reprojection() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var file = LocationFile(
            location: Location(
                centerRe: "-0.743643887037158704752191506114774", centerIm: "0.131825904205311970493132056385139",
                radius: "1e-6", maxIterations: 2000))
        file.color = ColorSettings(palette: .hot)
        let path = folder + "/map.npy"
        let render = try ExponentialMapRender(file, width: 512)
        let outputs = try OutputSet([path])
        let stream = try NPYStream(outputs, at: 0, width: 512, height: render.map.height)
        _ = try render.render(settings: RenderSettings(width: 512, height: 1)) { try stream.append($1.field) }
        try stream.finish()
        try outputs.commit()

        let video = try ExponentialMapVideo(mapPath: path, location: file)
        let radii = try video.frameRadii(width: 96, height: 54, fps: 10, octavesPerSecond: 8)
        // The first frame's corners lie inside the map's first row, the last frame is the location's.
        let corner = Math.log2((96.0 * 96 + 54 * 54).squareRoot() / 54)
        #expect(Swift.abs(radii[0] + corner - video.map.log2Radius(row: 0)) < 1e-12)
        #expect(radii.last == video.log2Radius && zip(radii, radii.dropFirst()).allSatisfy { $0 > $1 })
        #expect(radii.count == Int(((radii[0] - video.log2Radius) / 0.8).rounded(.up)) + 1)
        // Radii that are not finite or far outside the map, and absurd sizes: refused before any work.
        let settings = RenderSettings(width: 96, height: 54)
        for bad in [Double.nan, .infinity, -.infinity, 1e300, video.log2Radius - 65] {
            let error = #expect(throws: FathomError.self) {
                try video.frames(width: 96, height: 54, log2Radii: [radii[0], bad], settings: settings) { _, _ in
                    Issue.record("a frame before the check")
                }
            }
            guard case .badFrameRadius(1, let value)? = error, value.isNaN == bad.isNaN, value.isNaN || value == bad
            else {
                Issue.record("\(bad): \(String(describing: error))")
                continue
            }
        }
        for (w, h) in [(0, 54), (-96, 54), (Int.max, 2)] {
            #expect(throws: LocationError.badSize(width: w, height: h)) {
                try video.frames(width: w, height: h, log2Radii: radii, settings: settings) { _, _ in }
            }
        }
        var images: [RGBImage] = []
        try video.frames(width: 96, height: 54, log2Radii: radii, settings: RenderSettings(width: 96, height: 54)) {
            #expect($0 == images.count)
            images.append($1)
        }
        // The flat render at the location's radius, coloured as the video colours it.
        let flat = try Renderer.render(location: file.location(), settings: RenderSettings(width: 96, height: 54)).field
        let color = ColorSettings(palette: .hot).resolved(for: flat)
        let expected = try Colorizer.image(flat, settings: color)
        let last = try #require(images.last)
        var ring = 0, ringError = 0.0, close = 0, mirroredError = 0.0
        for y in 0..<54 {
            for x in 0..<96 {
                let u = Double(x) + 0.5 - 48, v = 27 - Double(y) - 0.5
                let o = 3 * (y * 96 + x)
                let difference = (0..<3).map { Swift.abs(Int(last.pixels[o + $0]) - Int(expected.pixels[o + $0])) }
                // Inside the map's last row: the flat render itself, exactly.
                if (u * u + v * v).squareRoot() < 27 * Math.exp2(-0.5 * video.map.log2RowStep) {
                    #expect(difference == [0, 0, 0], "pixel \(x),\(y)")
                } else {
                    ring += 1
                    ringError += Double(difference.reduce(0, +)) / 3
                    if difference.max()! <= 32 { close += 1 }
                    // The same against the flat render upside down: what a wrong turn of the
                    // angle would give.
                    let m = 3 * ((53 - y) * 96 + x)
                    mirroredError +=
                        Double(
                            (0..<3).map { Swift.abs(Int(last.pixels[o + $0]) - Int(expected.pixels[m + $0])) }.reduce(
                                0, +)) / 3
                }
            }
        }
        print(
            "map video: \(radii.count) frames; last frame's ring \(ring) pixels, mean error \(ringError / Double(ring)) levels (mirrored \(mirroredError / Double(ring))), \(close) within 32"
        )
        #expect(ring > 1000)
        #expect(ringError / Double(ring) < 24)
        #expect(Double(close) > 0.65 * Double(ring))
        #expect(mirroredError > 2 * ringError)
    }
}

@Suite("Writing to ffmpeg's pipe")
struct BrokenPipeTests {
    /// SIGPIPE's action in this process: the default (the end of the process) unless the host
    /// ignores it.
    static func sigpipeIsDefault() -> Bool {
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        #if canImport(Darwin)
        return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 0
        #else
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 0
        #endif
    }

    @Test("a write to a pipe whose reader is gone is an error of the write (EPIPE), not the end of the host")
    func brokenPipe() throws {
        // The check means something only where SIGPIPE would end this process.
        try #require(Self.sigpipeIsDefault(), "the test host ignores SIGPIPE: the test would prove nothing")
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let data = Data(repeating: 7, count: 1 << 20)
        #expect(throws: (any Error).self) {
            try VideoEncoder.withoutBrokenPipeSignal { try pipe.fileHandleForWriting.write(contentsOf: data) }
        }
        // The SIGPIPE the write raised was taken, not left pending for the thread.
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0)
        try? pipe.fileHandleForWriting.close()
    }
}
