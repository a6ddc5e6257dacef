import Fathom
import Foundation
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
        try FileManager.default.moveItem(atPath: frames + "/frame-00001.png", toPath: frames + "/frame-00002.png")
        let gap = try FathomProcess.run(["video", "--frames", "frames", "--output", "b.mp4"], in: folder)
        #expect(gap.code == 65 && gap.stderr.contains("missing frame-00001.png"))
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: frames + "/frame-00001.png"))
        let notPNG = try FathomProcess.run(["video", "--frames", "frames", "--output", "c.mp4"], in: folder)
        #expect(notPNG.code == 65 && notPNG.stderr.contains("is not a PNG"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["frames"])
    }
}
