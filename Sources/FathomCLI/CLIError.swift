import Fathom

/// A failure the CLI reports as one line on stderr with a BSD sysexits code.
struct CLIError: Error {
    /// 64 usage, 65 bad data, 66 cannot open input, 73 cannot create output, 1 other.
    let exitCode: Int32
    let message: String

    static func usage(_ m: String) -> CLIError {
        CLIError(exitCode: 64, message: m.contains("(see 'fathom ") ? m : m + " (see 'fathom help')")
    }
    static func data(_ m: String) -> CLIError { CLIError(exitCode: 65, message: m) }
    static func noInput(_ m: String) -> CLIError { CLIError(exitCode: 66, message: m) }
    static func cannotCreate(_ m: String) -> CLIError { CLIError(exitCode: 73, message: m) }
    static func other(_ m: String) -> CLIError { CLIError(exitCode: 1, message: m) }

    init(exitCode: Int32, message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// The message as the one line it is printed as: control characters a value brought in
    /// (a newline in a path, a carriage return in an option) are escaped (`\n`), so an error is
    /// always exactly one line.
    var line: String { FathomError.oneLine(message) }

    /// Maps library errors to exit codes.
    init(_ error: Error) {
        switch error {
        case let e as CLIError: self = e
        case let e as LocationError: self = .data("\(e)")
        case let e as FathomError: self = .data("\(e)")
        case let e as ArbitraryPrecisionError: self = .data("\(e)")
        case let e as ColorError: self = .data("\(e)")
        case let e as GradientError: self = .data("\(e)")
        case let e as ExponentialMapVideo.Failure: self = .data("\(e)")
        case let e as NPYError:
            switch e {
            case .unreadable: self = .noInput("\(e)")
            case .malformed: self = .data("\(e)")
            }
        case let e as ImageReadError: self = .noInput("\(e)")
        case let e as GPUError:
            switch e {
            // No CUDA driver: a program the command needs is missing, as ffmpeg for video.
            case .noDriver: self = CLIError(exitCode: 69, message: "--\(e)")  // the option: --backend cuda
            case .failed: self = .other("\(e)")
            }
        case let e as VideoEncoder.Failure:
            switch e {
            case .noFFmpeg: self = CLIError(exitCode: 69, message: "\(e)")
            case .badFrameRate: self = .data("\(e)")
            case .ffmpegFailed: self = .other("\(e)")
            }
        case let e as FileError:
            switch e {
            case .unreadable: self = .noInput("\(e)")
            case .malformed: self = .data("\(e)")
            }
        case let e as OutputError:
            switch e {
            case .samePath, .overwritesInput: self = .usage("\(e)")
            case .cannotCreate: self = .cannotCreate("\(e)")
            case .writeFailed: self = CLIError(exitCode: 74, message: "\(e)")
            }
        case let e as RenderError:
            switch e {
            case .noPerturbationFormula, .noReferenceOrbit, .referenceTooLarge, .referenceTooFar, .referenceNotUsed,
                .invalidSetting:
                self = .data("\(e)")
            case .cancelled, .needsPerturbation, .deviceOrbit: self = .other("\(e)")
            }
        case let e as ReferenceFileError:
            switch e {
            case .unreadable: self = .noInput("\(e)")
            case .malformed, .mismatch, .tooFar: self = .data("\(e)")
            case .cannotWrite: self = .cannotCreate("\(e)")
            }
        default: self = .other("\(error)")
        }
    }
}
