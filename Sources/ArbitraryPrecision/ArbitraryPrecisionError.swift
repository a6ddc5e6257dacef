import Foundation

/// Errors from parsing arbitrary-precision numbers.
public enum ArbitraryPrecisionError: Error, Equatable, CustomStringConvertible {
    /// The text is not a finite decimal number (`[+-]digits[.digits][e[+-]digits]`).
    case notADecimalNumber(String)

    /// A one-line message quoting the text (cut to 40 characters).
    public var description: String {
        switch self {
        case .notADecimalNumber(let text):
            let shown = text.count > 40 ? String(text.prefix(37)) + "..." : text
            return "'\(shown)' is not a decimal number"
        }
    }
}

extension ArbitraryPrecisionError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
