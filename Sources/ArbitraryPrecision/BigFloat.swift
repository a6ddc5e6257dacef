import CMPFR
import FractalNumerics

// BigFloat: an MPFR number as a Swift value type.
// Goals, in order: (1) correctness: every operation is one correctly rounded MPFR call
// (round to nearest); (2) value semantics through copy-on-write; (3) convenience. Operators
// allocate their result: hot loops use `MPFRWorkspace` instead (3.4x faster, measured).

/// An arbitrary-precision binary floating-point number (MPFR), with value semantics.
///
/// The result of a binary operation has the larger of the operands' precisions.
///
/// Sendable: copies share their `MPFRValue` storage, but no mutation touches a shared one
/// (every mutating member calls `makeUnique` first: copy-on-write), and MPFR only reads its
/// operands, so threads holding copies of one value never write the same `mpfr_t`.
public struct BigFloat: @unchecked Sendable {
    @usableFromInline var storage: MPFRValue

    /// Zero at `precision`.
    public init(precision: Precision) {
        storage = MPFRValue(precision: precision)
        mpfr_set_zero(storage.pointer, 1)
    }

    /// `value`, exactly when `precision` has at least 53 bits.
    public init(_ value: Double, precision: Precision) {
        storage = MPFRValue(precision: precision)
        mpfr_set_d(storage.pointer, value, MPFR_RNDN)
    }

    /// `value`, exactly when `precision` has at least 64 bits.
    public init(_ value: Int, precision: Precision) {
        storage = MPFRValue(precision: precision)
        mpfr_set_si(storage.pointer, value, MPFR_RNDN)
    }

    /// `hi + lo`, rounded once to `precision` (exact from 2098 bits up; 107 suffice for any
    /// normalised pair whose exponents are within 53 of each other).
    public init(_ value: DoubleDouble, precision: Precision) {
        self.init(value.hi, precision: precision)
        let lo = MPFRValue(precision: Precision(bits: 53))
        mpfr_set_d(lo.pointer, value.lo, MPFR_RNDN)
        mpfr_add(storage.pointer, storage.pointer, lo.pointer, MPFR_RNDN)
    }

    /// `significand * 2^exponent`, exactly when `precision` has at least 53 bits.
    public init(_ value: FloatExp, precision: Precision) {
        storage = MPFRValue(precision: precision)
        if value.isZero {
            mpfr_set_zero(storage.pointer, 1)
        } else {
            mpfr_set_d(storage.pointer, value.significand, MPFR_RNDN)
            mpfr_mul_2si(storage.pointer, storage.pointer, value.exponent, MPFR_RNDN)
        }
    }

    /// Parses a finite decimal number `[+-]digits[.digits][(e|E)[+-]digits]` of any length,
    /// rounded to nearest at `precision`.
    ///
    /// Edge cases: text whose value overflows MPFR's exponent range, or underflows to zero
    /// although it has a nonzero digit, is rejected like malformed text.
    public init(parsing text: String, precision: Precision) throws(ArbitraryPrecisionError) {
        guard BigFloat.isDecimalNumber(text) else { throw .notADecimalNumber(text) }
        storage = MPFRValue(precision: precision)
        let status = mpfr_set_str(storage.pointer, text, 10, MPFR_RNDN)
        let hasNonzeroDigit = text.prefix { $0 != "e" && $0 != "E" }.contains { $0 >= "1" && $0 <= "9" }
        guard status == 0, fathom_mpfr_inf_p(storage.pointer) == 0,
            fathom_mpfr_zero_p(storage.pointer) == 0 || !hasNonzeroDigit
        else { throw .notADecimalNumber(text) }
    }

    /// Whether `text` has the shape `[+-]digits[.digits][(e|E)[+-]digits]` (at least one
    /// mantissa digit; no spaces, no hexadecimal, no "inf" or "nan").
    public static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let n = bytes.prefix { $0 >= 48 && $0 <= 57 }.count
            bytes = bytes.dropFirst(n)
            return n
        }
        if let f = bytes.first, f == 43 || f == 45 { bytes = bytes.dropFirst() }
        var mantissaDigits = digits()
        if bytes.first == 46 {
            bytes = bytes.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if let f = bytes.first, f == 101 || f == 69 {
            bytes = bytes.dropFirst()
            if let s = bytes.first, s == 43 || s == 45 { bytes = bytes.dropFirst() }
            guard digits() > 0, digits() == 0 else { return false }
        }
        return bytes.isEmpty
    }

    // MARK: Properties

    /// The precision this value is stored at.
    public var precision: Precision { Precision(uncheckedBits: Int(fathom_mpfr_get_prec(storage.pointer))) }
    /// Whether the value is zero (of either sign).
    public var isZero: Bool { fathom_mpfr_zero_p(storage.pointer) != 0 }
    /// Whether the value is a number: false for NaN and the infinities.
    public var isFinite: Bool { mpfr_number_p(storage.pointer) != 0 }
    /// -1, 0 or 1.
    public var signum: Int { Int(fathom_mpfr_sgn(storage.pointer)) }
    /// The binary exponent e with value = m 2^e, 1/2 <= |m| < 1 (undefined for zero).
    public var exponent: Int { Int(fathom_mpfr_get_exp(storage.pointer)) }

    /// The nearest Double (correctly rounded; overflows to infinity, underflows to zero).
    public var doubleValue: Double { mpfr_get_d(storage.pointer, MPFR_RNDN) }

    /// The nearest double-double: `hi` = nearest Double, `lo` = nearest Double to the rest.
    public var doubleDoubleValue: DoubleDouble {
        let hi = mpfr_get_d(storage.pointer, MPFR_RNDN)
        guard hi.isFinite else { return DoubleDouble(hi) }
        let rest = MPFRValue(precision: precision)
        mpfr_sub_d(rest.pointer, storage.pointer, hi, MPFR_RNDN)
        return DoubleDouble(hi: hi, lo: mpfr_get_d(rest.pointer, MPFR_RNDN))
    }

    /// The nearest FloatExp: 53 bits correctly rounded, any exponent (`mpfr_get_d_2exp`).
    public var floatExpValue: FloatExp {
        var e: Int = 0
        let d = mpfr_get_d_2exp(&e, storage.pointer, MPFR_RNDN)
        return FloatExp(significand: d, exponent: e)
    }

    /// Decimal digits that read back (at this precision) to the same value: `digits == 0`
    /// picks the fewest that always round-trip (`mpfr_get_str_ndigits`). A count below 0 is
    /// taken as 0, and one past 1,000 digits beyond what the precision holds as that many
    /// (MPFR would allocate whatever it is asked for).
    public func decimalString(significantDigits digits: Int = 0) -> String {
        let digits = Swift.min(Swift.max(0, digits), Int(Double(precision.bits) * 0.30103) + 1000)
        if isZero { return signum < 0 || mpfr_signbit(storage.pointer) != 0 ? "-0" : "0" }
        guard isFinite else { return fathom_mpfr_nan_p(storage.pointer) != 0 ? "nan" : (signum < 0 ? "-inf" : "inf") }
        var exp: mpfr_exp_t = 0
        guard let raw = mpfr_get_str(nil, &exp, 10, digits, storage.pointer, MPFR_RNDN) else { return "nan" }
        defer { mpfr_free_str(raw) }
        // On the bytes: trimming a String's trailing zeros one `count` at a time is
        // quadratic, minutes for the million digits of a 1e-100000 reference point.
        var digitBytes = Array(String(cString: raw).utf8)[...]
        let sign = digitBytes.first == UInt8(ascii: "-") ? "-" : ""
        if !sign.isEmpty { digitBytes = digitBytes.dropFirst() }
        while digitBytes.count > 1 && digitBytes.last == UInt8(ascii: "0") { digitBytes = digitBytes.dropLast() }
        let first = String(decoding: digitBytes.prefix(1), as: UTF8.self)
        let rest = digitBytes.dropFirst()
        let fraction = rest.isEmpty ? "" : "." + String(decoding: rest, as: UTF8.self)
        let e = Int(exp) - 1
        return e == 0 ? "\(sign)\(first)\(fraction)" : "\(sign)\(first)\(fraction)e\(e)"
    }

    // MARK: Copy-on-write

    @usableFromInline mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Read access to the underlying `mpfr_t` for one MPFR call.
    public func withPointer<R>(_ body: (UnsafePointer<__mpfr_struct>) throws -> R) rethrows -> R {
        try body(UnsafePointer(storage.pointer))
    }

    /// Write access to the underlying `mpfr_t` (copied first if shared).
    public mutating func withMutablePointer<R>(_ body: (UnsafeMutablePointer<__mpfr_struct>) throws -> R) rethrows -> R
    {
        makeUnique()
        return try body(storage.pointer)
    }

    /// This value rounded to `precision`.
    public func rounded(to precision: Precision) -> BigFloat {
        let r = BigFloat(precision: precision)
        mpfr_set(r.storage.pointer, storage.pointer, MPFR_RNDN)
        return r
    }
}

// MARK: - Arithmetic

extension BigFloat {
    private static func binary(
        _ a: BigFloat, _ b: BigFloat,
        _ op: (
            UnsafeMutablePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, UnsafePointer<__mpfr_struct>, mpfr_rnd_t
        ) -> Int32
    ) -> BigFloat {
        let r = BigFloat(precision: max(a.precision, b.precision))
        _ = op(r.storage.pointer, a.storage.pointer, b.storage.pointer, MPFR_RNDN)
        return r
    }

    /// The sum, correctly rounded at the larger of the operands' precisions.
    public static func + (a: BigFloat, b: BigFloat) -> BigFloat { binary(a, b, mpfr_add) }
    /// The difference, correctly rounded at the larger of the operands' precisions.
    public static func - (a: BigFloat, b: BigFloat) -> BigFloat { binary(a, b, mpfr_sub) }
    /// The product, correctly rounded at the larger of the operands' precisions.
    public static func * (a: BigFloat, b: BigFloat) -> BigFloat { binary(a, b, mpfr_mul) }
    /// The quotient, correctly rounded at the larger of the operands' precisions (an infinity, or
    /// NaN for 0 / 0, when `b` is zero).
    public static func / (a: BigFloat, b: BigFloat) -> BigFloat { binary(a, b, mpfr_div) }

    /// The negation, exact, at `a`'s precision.
    public static prefix func - (a: BigFloat) -> BigFloat {
        let r = BigFloat(precision: a.precision)
        mpfr_neg(r.storage.pointer, a.storage.pointer, MPFR_RNDN)
        return r
    }

    /// Replaces `a` with `a + b` (at the larger of the two precisions).
    public static func += (a: inout BigFloat, b: BigFloat) { a = a + b }
    /// Replaces `a` with `a - b` (at the larger of the two precisions).
    public static func -= (a: inout BigFloat, b: BigFloat) { a = a - b }
    /// Replaces `a` with `a * b` (at the larger of the two precisions).
    public static func *= (a: inout BigFloat, b: BigFloat) { a = a * b }

    /// `self * 2^k`, exact.
    public func timesPowerOfTwo(_ k: Int) -> BigFloat {
        let r = BigFloat(precision: precision)
        mpfr_mul_2si(r.storage.pointer, storage.pointer, k, MPFR_RNDN)
        return r
    }

    /// The square root, correctly rounded at this value's precision (NaN for a negative value).
    public func squareRoot() -> BigFloat {
        let r = BigFloat(precision: precision)
        mpfr_sqrt(r.storage.pointer, storage.pointer, MPFR_RNDN)
        return r
    }

    /// `|self|`.
    public var magnitude: BigFloat {
        let r = BigFloat(precision: precision)
        mpfr_abs(r.storage.pointer, storage.pointer, MPFR_RNDN)
        return r
    }
}

extension BigFloat: Comparable {
    /// Whether the two values are equal, whatever their precisions (+0 equals -0; NaN equals nothing).
    public static func == (a: BigFloat, b: BigFloat) -> Bool { mpfr_equal_p(a.storage.pointer, b.storage.pointer) != 0 }
    /// Whether `a` is less than `b`, whatever their precisions (false when either is NaN).
    public static func < (a: BigFloat, b: BigFloat) -> Bool { mpfr_less_p(a.storage.pointer, b.storage.pointer) != 0 }
}

extension BigFloat: CustomStringConvertible {
    /// `decimalString()`: the fewest decimal digits that read back to this value at its precision,
    /// e.g. `1.25e-300` (`0`, `-0`, `inf`, `-inf` or `nan` for the special values).
    public var description: String { decimalString() }
}

/// The version of the MPFR library in use, e.g. "4.2.0".
public var mpfrVersion: String { String(cString: fathom_mpfr_version()) }
