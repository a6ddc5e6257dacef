import Foundation

/// Errors of the arbitrary-precision layer: text that is not a number, a precision out of range.
public enum ArbitraryPrecisionError: Error, Equatable, CustomStringConvertible {
    /// The text is not a finite decimal number (`[+-]digits[.digits][e[+-]digits]`).
    case notADecimalNumber(String)
    /// A precision outside MPFR's range as Fathom takes it, 1...2^28 bits (`Precision.bits(_:)`).
    case precisionOutOfRange(Int)

    /// A one-line message quoting the text (cut to 40 characters) or the precision.
    public var description: String {
        switch self {
        case .notADecimalNumber(let text):
            let shown = text.count > 40 ? String(text.prefix(37)) + "..." : text
            return "'\(shown)' is not a decimal number"
        case .precisionOutOfRange(let bits):
            return "precision: \(bits) bits is outside \(Precision.minimum.bits)...\(Precision.maximum.bits)"
        }
    }
}

extension ArbitraryPrecisionError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
