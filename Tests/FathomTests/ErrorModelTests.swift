import Fathom
import Foundation
import Testing

/// One error model: every public error type is a `LocalizedError` whose message is its one-line
/// `description`, naming the field or file, not a command-line option (Documentation/Library.md).
@Suite("Public errors")
struct ErrorModelTests {
    /// One value of every public error type of the library modules.
    static let samples: [any Error & CustomStringConvertible] = [
        LocationError.outOfRange(field: "radius", text: "0", limit: "> 0"),
        ReferenceFileError.mismatch(path: "a.orbit"),
        RenderError.invalidSetting(name: "threads", reason: "-1 is outside 0...1024"),
        RenderError.cancelled,
        OutputError.samePath("a.png", "b.png"),
        ColorError.invalid(field: "density", reason: "not finite"),
        ImageReadError.unreadable(path: "a.png", reason: "missing"),
        GradientError.empty,
        ArbitraryPrecisionError.notADecimalNumber("1.2.3"),
        GPUError.noDriver("no libcuda.so"),
        GPUError.failed("launch"),
        VideoEncoder.Failure.noFFmpeg,
        FileError.unreadable(path: "x.json", reason: "missing"),
        FathomError.badSupersample(7),
        NPYError.malformed(path: "m.npy", reason: "not NumPy"),
        ExponentialMapVideo.Failure.notAMap(path: "m.npy", reason: "shape"),
    ]

    @Test("localizedDescription is the one-line message, with no command-line option in it")
    func localized() {
        for error in Self.samples {
            let message = "\(error)"
            #expect(error is any LocalizedError, "\(type(of: error)) is not a LocalizedError")
            #expect(error.localizedDescription == message, "\(type(of: error)): \(error.localizedDescription)")
            #expect(!message.contains("\n") && !message.isEmpty)
            #expect(!message.contains("--"), "\(type(of: error)) names an option: \(message)")
        }
    }
}
