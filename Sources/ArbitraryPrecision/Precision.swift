import CMPFR

/// A binary precision, in bits, for MPFR values.
///
/// Postconditions: `bits` lies in MPFR's allowed range [`Precision.minimum`, `Precision.maximum`].
public struct Precision: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The number of bits of the significand.
    public let bits: Int

    /// The smallest precision MPFR accepts (1 bit; Fathom never goes below 53).
    public static let minimum = Precision(uncheckedBits: Int(MPFR_PREC_MIN))
    /// A bound far beyond any location: 2^28 bits (80 million decimal digits).
    public static let maximum = Precision(uncheckedBits: 1 << 28)
    /// The precision of a Double.
    public static let double = Precision(uncheckedBits: 53)

    /// `bits` bits, or `ArbitraryPrecisionError.precisionOutOfRange` unless `bits` lies in
    /// [`Precision.minimum`, `Precision.maximum`].
    public static func bits(_ bits: Int) throws(ArbitraryPrecisionError) -> Precision {
        guard bits >= minimum.bits && bits <= maximum.bits else { throw .precisionOutOfRange(bits) }
        return Precision(uncheckedBits: bits)
    }

    /// `bits` bits, for the package's own computed precisions; traps unless `bits` lies in
    /// [`Precision.minimum`, `Precision.maximum`] (`bits(_:)` throws instead).
    package init(bits: Int) {
        precondition(bits >= Int(MPFR_PREC_MIN) && bits <= 1 << 28, "precision \(bits) out of range")
        self.bits = bits
    }

    init(uncheckedBits bits: Int) { self.bits = bits }

    /// Enough bits to hold a decimal string of `digits` significant digits exactly enough to
    /// round-trip it: `ceil(digits * log2(10)) + 16`, at most `maximum` (80 million digits).
    public static func forDecimalDigits(_ digits: Int) -> Precision {
        let bits = Double(max(0, digits)) * 3.321928094887362 + 16
        return Precision(uncheckedBits: bits >= Double(maximum.bits) ? maximum.bits : max(53, Int(bits.rounded(.up))))
    }

    /// Whether `a` has fewer bits than `b`.
    public static func < (a: Precision, b: Precision) -> Bool { a.bits < b.bits }
    /// The bit count, e.g. `128 bits`.
    public var description: String { "\(bits) bits" }
}
