// FloatExp: a Double significand with its own Int exponent, for magnitudes far outside
// Double's range (deltas below 1e-308 at extreme zoom depths).
// Goals, in order: (1) every operation is correctly rounded to 53 bits, like MPFR at 53 bits
// with an unbounded exponent (the tests check equality, not closeness); (2) speed: normalising
// reads the exponent bits directly, no frexp or ldexp calls.
// Representation: value = significand * 2^exponent with 1 <= |significand| < 2, or zero
// with significand 0 and exponent `FloatExp.zeroExponent`.

/// A floating-point number with a `Double` significand and an `Int` exponent.
@frozen
public struct FloatExp: Sendable, Hashable {
    /// In [1, 2) in magnitude, or 0.
    public let significand: Double
    /// The power of two that scales `significand`; `zeroExponent` for zero.
    public let exponent: Int

    /// The exponent that zero carries: below every other, so additions pick the other operand.
    public static let zeroExponent = Int.min >> 2

    /// The significand and the exponent, the exponent 0 for zero: the value as a pair a kernel
    /// multiplies into a running product (stretches of |dz/dc|^2 and the like).
    @inlinable public var parts: (significand: Double, exponent: Int) { (significand, isZero ? 0 : exponent) }

    /// The largest exponent `init(significand:exponent:)` gives a finite value: past it the
    /// value is infinite, below its negative zero. 2^60: far past any depth (a view at
    /// 1e-1000000 needs 2^22), and two such exponents add without wrapping. The arithmetic
    /// does not check its results (the kernels' hot path): a chain of products past 2^62 in
    /// the exponent is outside FloatExp's range.
    public static let maximumExponent = 1 << 60

    /// Creates `significand * 2^exponent`, normalising the significand.
    ///
    /// Edge cases: a zero significand gives zero; a non-finite one is kept as it is; a value
    /// past `maximumExponent` is infinite (its sign kept), one below `-maximumExponent` zero.
    public init(significand m: Double, exponent e: Int) {
        let limit = FloatExp.maximumExponent
        // Zero or not finite: the exponent does not matter.
        guard m.isFinite && m != 0 else {
            self = FloatExp(normalizing: m, 0)
            return
        }
        // m's own binary exponent lies in -1074...1023: an e past the limit decides alone.
        guard e <= limit else {
            self = FloatExp(normalizing: m * .infinity, 0)
            return
        }
        guard e >= -limit else {
            self = .zero
            return
        }
        let value = FloatExp(normalizing: m, e)
        if value.exponent > limit {
            self = FloatExp(normalizing: m * .infinity, 0)
        } else if value.exponent < -limit {
            self = .zero
        } else {
            self = value
        }
    }

    /// `significand * 2^exponent`, normalised, unchecked: the kernels' path, for exponents
    /// within `maximumExponent` (`init(significand:exponent:)` checks).
    @inlinable @inline(__always)
    package init(normalizing m: Double, _ e: Int) {
        let bits = m.bitPattern
        let biased = Int((bits >> 52) & 0x7ff)
        if biased != 0 && biased != 0x7ff {
            self.init(
                rawSignificand: Double(bitPattern: (bits & 0x800f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000),
                exponent: e &+ biased &- 1023)
        } else {
            self = FloatExp.normalizeRare(m, e)
        }
    }

    /// The rare path: zero, subnormal or non-finite significands.
    @usableFromInline @inline(never)
    static func normalizeRare(_ m: Double, _ e: Int) -> FloatExp {
        if m == 0 { return FloatExp(rawSignificand: 0, exponent: zeroExponent) }
        if !m.isFinite { return FloatExp(rawSignificand: m, exponent: 0) }
        // Subnormal: scale into the normal range (exact), then normalise.
        return FloatExp(normalizing: m * 0x1p64, e - 64)
    }

    /// `2^k` as a Double, for `-1022 <= k <= 1023`.
    @inlinable @inline(__always)
    public static func powerOfTwo(_ k: Int) -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: k + 1023) << 52)
    }

    /// Whether the value is zero.
    @inlinable public var isZero: Bool { significand == 0 }
    /// Whether the significand is finite (false for infinities and NaN).
    @inlinable public var isFinite: Bool { significand.isFinite }

    /// `|self|`.
    @inlinable public var magnitude: FloatExp {
        FloatExp(rawSignificand: Swift.abs(significand), exponent: exponent)
    }

    /// Creates a value from an already normalised pair, without checking it.
    @inlinable @inline(__always)
    package init(rawSignificand: Double, exponent: Int) {
        self.significand = rawSignificand
        self.exponent = exponent
    }

    /// `log2|self|` as a Double (`-inf` for zero).
    @inlinable public var log2Magnitude: Double {
        isZero ? -.infinity : Double(exponent) + Math.log2(Swift.abs(significand))
    }

    /// Compares magnitudes: `|self| < |other|`.
    @inlinable @inline(__always)
    public func magnitudeIsLess(than other: FloatExp) -> Bool {
        if exponent != other.exponent { return exponent < other.exponent }
        return Swift.abs(significand) < Swift.abs(other.significand)
    }
}

extension FloatExp: RealScalar {
    /// Zero: significand 0, exponent `zeroExponent`.
    @inlinable public static var zero: FloatExp { FloatExp(rawSignificand: 0, exponent: zeroExponent) }
    /// One.
    @inlinable public static var one: FloatExp { FloatExp(rawSignificand: 1, exponent: 0) }

    /// The Double `value` exactly, subnormals included, normalised.
    @inlinable @inline(__always)
    public init(_ value: Double) { self.init(normalizing: value, 0) }

    /// The nearest Double: overflows to infinity and underflows (through subnormals) to zero.
    @inlinable public var doubleValue: Double {
        if isZero { return 0 }
        if exponent > 1100 { return significand * .infinity }
        if exponent < -1200 { return significand * 0 }
        return Double(sign: .plus, exponent: exponent, significand: significand)
    }

    /// The nearest Double, the same as `doubleValue`.
    @inlinable public var leadingDouble: Double { doubleValue }

    /// The product, correctly rounded to 53 bits.
    @inlinable @inline(__always)
    public static func * (a: FloatExp, b: FloatExp) -> FloatExp {
        FloatExp(normalizing: a.significand * b.significand, a.exponent &+ b.exponent)
    }

    /// The quotient, correctly rounded to 53 bits.
    ///
    /// Edge cases: division by zero gives a non-finite significand.
    @inlinable @inline(__always)
    public static func / (a: FloatExp, b: FloatExp) -> FloatExp {
        FloatExp(normalizing: a.significand / b.significand, a.exponent &- b.exponent)
    }

    /// Correctly rounded sum: the smaller operand is aligned by an exact power-of-two scaling;
    /// past 64 bits of difference it cannot change the rounded result and is dropped.
    @inlinable @inline(__always)
    public static func + (a: FloatExp, b: FloatExp) -> FloatExp {
        let d = a.exponent &- b.exponent
        if d >= 0 {
            if d > 64 { return a }
            return FloatExp(normalizing: a.significand + b.significand * powerOfTwo(-d), a.exponent)
        } else {
            if d < -64 { return b }
            return FloatExp(normalizing: b.significand + a.significand * powerOfTwo(d), b.exponent)
        }
    }

    /// The negation, exact.
    @inlinable @inline(__always)
    public static prefix func - (a: FloatExp) -> FloatExp {
        FloatExp(rawSignificand: -a.significand, exponent: a.exponent)
    }

    /// The difference, computed as `a + (-b)`: correctly rounded.
    @inlinable @inline(__always)
    public static func - (a: FloatExp, b: FloatExp) -> FloatExp { a + (-b) }

    /// `self * 2`, exact (the exponent plus one).
    @inlinable public var doubled: FloatExp {
        isZero ? self : FloatExp(rawSignificand: significand, exponent: exponent + 1)
    }

    /// `self * d`, correctly rounded to 53 bits.
    @inlinable @inline(__always)
    public func scaled(by d: Double) -> FloatExp { self * FloatExp(d) }

    /// Orders by value: sign first, then magnitude.
    @inlinable @inline(__always)
    public static func < (a: FloatExp, b: FloatExp) -> Bool {
        let aNeg = a.significand < 0, bNeg = b.significand < 0
        if aNeg != bNeg { return aNeg }
        if a.isZero || b.isZero { return a.significand < b.significand }
        // Same sign, both nonzero: compare magnitudes, reversed for negatives.
        return aNeg ? b.magnitudeIsLess(than: a) : a.magnitudeIsLess(than: b)
    }
}

extension FloatExp: CustomStringConvertible {
    /// `significand * 2^exponent`; for decimal digits convert through `BigFloat`.
    public var description: String { isZero ? "0" : "\(significand)p\(exponent)" }
}
