// A double-double significand with its own integer exponent: 106 bits at any magnitude.
//
// value = (m.hi + m.lo) * 2^exponent, with |m.hi| in [1, 2) (or m = 0). FloatExp's range with
// DoubleDouble's precision: for the few pixels of a render past Double's range (below 2^-960)
// whose smooth value 53 bits cannot hold (Documentation/Perturbation.md, Precision), at a
// fraction of the cost of iterating them in MPFR. Each operation is the DoubleDouble one on
// the significands (exact power-of-two alignment for sums), then renormalised.

/// Extended-range double-double.
public struct DoubleDoubleExp: Sendable, Hashable {
    /// The double-double significand: `hi` in [1, 2) in magnitude, or zero.
    public let significand: DoubleDouble
    /// The power of two that scales `significand`; `FloatExp.zeroExponent` for zero.
    public let exponent: Int

    /// Creates `m * 2^e`, normalising `m.hi` into [1, 2) by an exact power-of-two scaling.
    /// For exponents within `FloatExp.maximumExponent`, unchecked (the kernels' path); a value
    /// is made from a Double, a DoubleDouble or a FloatExp.
    @inlinable @inline(__always)
    package init(normalizing m: DoubleDouble, _ e: Int) {
        let bits = m.hi.bitPattern
        let biased = Int((bits >> 52) & 0x7ff)
        if biased != 0 && biased != 0x7ff {
            let k = biased - 1023
            let scale = FloatExp.powerOfTwo(-k)
            self.init(raw: DoubleDouble(hi: m.hi * scale, lo: m.lo * scale), exponent: e &+ k)
        } else if m.hi == 0 {
            self.init(raw: .zero, exponent: FloatExp.zeroExponent)
        } else if !m.hi.isFinite {
            self.init(raw: m, exponent: 0)
        } else {
            // Subnormal hi (lo is then 0): scale into the normal range first.
            self.init(normalizing: DoubleDouble(hi: m.hi * 0x1p64, lo: 0), e - 64)
        }
    }

    /// Creates `m * 2^exponent` from an already normalised pair, without checking it.
    @inlinable @inline(__always)
    package init(raw m: DoubleDouble, exponent: Int) {
        significand = m
        self.exponent = exponent
    }

    /// Whether the value is zero.
    @inlinable public var isZero: Bool { significand.hi == 0 }

    /// `m * 2^-d` for 0 <= d: exact while the low word stays normal.
    @inlinable @inline(__always)
    static func shifted(_ m: DoubleDouble, by d: Int) -> DoubleDouble {
        let s = FloatExp.powerOfTwo(-d)
        return DoubleDouble(hi: m.hi * s, lo: m.lo * s)
    }
}

extension DoubleDoubleExp: RealScalar {
    /// Zero: significand 0, exponent `FloatExp.zeroExponent`.
    @inlinable public static var zero: DoubleDoubleExp { DoubleDoubleExp(raw: .zero, exponent: FloatExp.zeroExponent) }
    /// One.
    @inlinable public static var one: DoubleDoubleExp { DoubleDoubleExp(raw: .one, exponent: 0) }

    /// The Double `value` exactly.
    @inlinable public init(_ value: Double) { self.init(normalizing: DoubleDouble(value), 0) }

    /// The nearest Double (overflows and underflows like FloatExp's).
    @inlinable public var doubleValue: Double {
        FloatExp(normalizing: significand.doubleValue, exponent).doubleValue
    }
    /// `significand.hi * 2^exponent` as a Double, without the low word: overflows and underflows
    /// like `doubleValue`.
    @inlinable public var leadingDouble: Double {
        FloatExp(rawSignificand: significand.hi, exponent: exponent).doubleValue
    }

    /// The sum: the smaller operand's significand aligned by an exact power of two, added in
    /// double-double and renormalised; past 110 bits of difference the smaller operand is dropped.
    @inlinable @inline(__always)
    public static func + (a: DoubleDoubleExp, b: DoubleDoubleExp) -> DoubleDoubleExp {
        let d = a.exponent &- b.exponent
        if d >= 0 {
            if d > 110 { return a }
            return DoubleDoubleExp(normalizing: a.significand + shifted(b.significand, by: d), a.exponent)
        } else {
            if d < -110 { return b }
            return DoubleDoubleExp(normalizing: b.significand + shifted(a.significand, by: -d), b.exponent)
        }
    }

    /// The negation, exact.
    @inlinable @inline(__always)
    public static prefix func - (a: DoubleDoubleExp) -> DoubleDoubleExp {
        DoubleDoubleExp(raw: -a.significand, exponent: a.exponent)
    }

    /// The difference, computed as `a + (-b)`.
    @inlinable @inline(__always)
    public static func - (a: DoubleDoubleExp, b: DoubleDoubleExp) -> DoubleDoubleExp { a + (-b) }

    /// The product: the significands' double-double product, the exponents added, renormalised.
    @inlinable @inline(__always)
    public static func * (a: DoubleDoubleExp, b: DoubleDoubleExp) -> DoubleDoubleExp {
        DoubleDoubleExp(normalizing: a.significand * b.significand, a.exponent &+ b.exponent)
    }

    /// The quotient: the significands' double-double quotient, the exponents subtracted,
    /// renormalised.
    ///
    /// Edge cases: division by zero gives a non-finite result.
    @inlinable @inline(__always)
    public static func / (a: DoubleDoubleExp, b: DoubleDoubleExp) -> DoubleDoubleExp {
        DoubleDoubleExp(normalizing: a.significand / b.significand, a.exponent &- b.exponent)
    }

    /// `self * 2`, exact (the exponent plus one).
    @inlinable public var doubled: DoubleDoubleExp {
        isZero ? self : DoubleDoubleExp(raw: significand, exponent: exponent + 1)
    }

    /// `self * d` for a Double `d`.
    @inlinable public func scaled(by d: Double) -> DoubleDoubleExp { self * DoubleDoubleExp(d) }

    /// Orders by value: sign first, then exponent, then significand.
    @inlinable
    public static func < (a: DoubleDoubleExp, b: DoubleDoubleExp) -> Bool {
        let aNeg = a.significand.hi < 0, bNeg = b.significand.hi < 0
        if aNeg != bNeg { return aNeg }
        if a.isZero || b.isZero { return a.significand.hi < b.significand.hi }
        if a.exponent != b.exponent { return aNeg ? a.exponent > b.exponent : a.exponent < b.exponent }
        return a.significand < b.significand
    }
}

extension DoubleDoubleExp: DeltaScalar {
    /// 106, a double-double significand.
    @inlinable public static var significandBits: Int { 106 }
    /// The same value, exact (53 bits fit in the significand).
    @inlinable public init(_ value: FloatExp) {
        self.init(normalizing: DoubleDouble(value.significand), value.isZero ? FloatExp.zeroExponent : value.exponent)
    }
    /// The same value, normalised.
    @inlinable public init(_ value: DoubleDouble) { self.init(normalizing: value, 0) }
    /// The nearest `FloatExp`: the significand rounded to 53 bits.
    @inlinable public var floatExpValue: FloatExp { FloatExp(normalizing: significand.doubleValue, exponent) }
    /// `|re + i im|` computed in `FloatExp` (53 bits): BLA's validity test needs no more.
    @inlinable public static func complexMagnitude(_ re: DoubleDoubleExp, _ im: DoubleDoubleExp) -> DoubleDoubleExp {
        DoubleDoubleExp(FloatExp.complexMagnitude(re.floatExpValue, im.floatExpValue))
    }
    /// Whether `|re + i im| < r`, decided in `FloatExp` on the parts rounded to 53 bits.
    @inlinable public static func magnitude(_ re: DoubleDoubleExp, _ im: DoubleDoubleExp, isBelow r: DoubleDoubleExp)
        -> Bool
    {
        FloatExp.magnitude(re.floatExpValue, im.floatExpValue, isBelow: r.floatExpValue)
    }
}
