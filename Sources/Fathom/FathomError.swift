import Foundation

/// What the Fathom module's own formats and requests can get wrong (the engine's location
/// errors stay `LocationError`): a view a .kfr file cannot hold, sequences, supersampling,
/// engine settings.
public enum FathomError: Error, Equatable, CustomStringConvertible {
    /// A view Kalles Fraktaler's .kfr format cannot hold (Julia, Newton).
    case notInKFR(String)
    /// A sequence's frame count (or keyframe count) out of range.
    case badFrameCount(Int)
    /// A slice of frames outside the sequence.
    case badFrameRange(Int, Int, Int)
    /// Supersampling other than 1...4 samples a side.
    case badSupersample(Int)
    /// A zoom-out factor that is not a finite number greater than 1.
    case badFactor(Double)
    /// An engine setting (`field`, e.g. `engine.delta`) whose `value` is not one of the
    /// engine's (`accepted`, their raw values).
    case unknownEngineValue(field: String, value: String, accepted: [String])
    /// A BLA epsilon (`field`) outside (0, 1).
    case badBLAEpsilon(field: String, value: Double)
    /// An MPFR budget (`field`) that is not a number of seconds in [0, 1e9].
    case badMPFRBudget(field: String, value: Double)
    /// A video whose frame count (`frames`, as a real number: it may not fit an integer) is
    /// more than `maximum`.
    case tooManyVideoFrames(Double, maximum: Int)
    /// A video frame rate or zoom speed that is not a positive finite number.
    case badVideoRate(fps: Double, octavesPerSecond: Double)
    /// A frame's log2 radius (`ExponentialMapVideo.frames(log2Radii:)`, index `index`) that is
    /// not a finite number in the range the map can show.
    case badFrameRadius(index: Int, log2Radius: Double)

    /// The error in one line: what was refused and what is accepted.
    public var description: String {
        switch self {
        case .badFrameCount(let n):
            "frames: \(n) is out of range (a zoom-out takes 1...1000000 frames, keyframes at least two)"
        case .badFrameRange(let a, let b, let count):
            "frames: \(a)..\(b) is not within the sequence's frames 0..\(count - 1)"
        case .badFactor(let f):
            "factor: \(f) is not a zoom factor greater than 1 (each frame's radius is the previous one's times the factor)"
        case .badSupersample(let k):
            "supersample: \(k) is outside 1...4 (samples a pixel side: 2 is 2x2)"
        case .unknownEngineValue(let field, let value, let accepted):
            "\(field): " + Choice.refusal(value, accepted: accepted)
        case .badBLAEpsilon(let field, let value):
            "\(field): \(value) is not a number in (0, 1)"
        case .badMPFRBudget(let field, let value):
            "\(field): \(value) is not a number of seconds from 0 to 1e9"
        case .tooManyVideoFrames(let frames, let maximum):
            "the video would take \(frames.isFinite ? "\(frames.rounded())" : "infinitely many") frames, more than \(maximum): zoom faster or make the video shorter"
        case .badVideoRate(let fps, let speed):
            "a video needs a frame rate and a zoom speed greater than zero (\(fps) fps, \(speed) octaves a second)"
        case .badFrameRadius(let index, let value):
            "log2Radii[\(index)]: \(value) is outside the radii the map shows (64 octaves either side)"
        case .notInKFR(let what):
            "a .kfr file cannot hold \(what) (Kalles Fraktaler's format shares the Mandelbrot and Multibrot families only)"
        }
    }

    /// `text` as one short line for a message: control characters escaped, at most 60
    /// characters.
    package static func quotedForMessage(_ text: String) -> String { quoted(text) }

    /// A value read from a file as one short line: control characters escaped (`\n`), at
    /// most 60 characters (then `...`).
    static func quoted(_ text: String) -> String { Choice.quoted(text) }

    /// `text` with control characters and line separators escaped (`\n`), whole: one line.
    package static func oneLine(_ text: String) -> String { Choice.oneLine(text) }
}

extension FathomError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
