/// A number type for perturbation deltas: a `RealScalar` that converts to and from
/// `FloatExp` (the type that holds any magnitude).
///
/// `Double` holds deltas down to about 1e-290 (with headroom for squaring); `FloatExp`
/// holds any depth at several times the cost.
public protocol DeltaScalar: RealScalar {
    /// The nearest value of this type (Double underflows to zero below 1e-308).
    init(_ value: FloatExp)
    /// The nearest value of this type to a double-double (an orbit value with its low word).
    init(_ value: DoubleDouble)
    /// The value as a `FloatExp`: exact for `Double` and `FloatExp`, rounded to 53 bits for the
    /// double-double types.
    var floatExpValue: FloatExp { get }
    /// Bits of significand: the relative precision of one rounding.
    static var significandBits: Int { get }
    /// `|re + i im|` without spurious underflow or overflow (to a few ulps: BLA's validity
    /// test needs no more).
    static func complexMagnitude(_ re: Self, _ im: Self) -> Self
    /// Whether `|re + i im| < r` (r >= 0), without a square root where possible.
    static func magnitude(_ re: Self, _ im: Self, isBelow r: Self) -> Bool
    /// `|re + i im|^2` in FloatExp, exact in range at any depth: each part's FloatExp value
    /// squared, then summed.
    static func floatExpLengthSquared(_ re: Self, _ im: Self) -> FloatExp
}

extension DeltaScalar {
    /// Each part's `floatExpValue` squared, then summed, in `FloatExp`.
    @inlinable
    public static func floatExpLengthSquared(_ re: Self, _ im: Self) -> FloatExp {
        let x = re.floatExpValue, y = im.floatExpValue
        return x * x + y * y
    }
}

extension Double: DeltaScalar {
    /// 53, a `Double` significand.
    @inlinable public static var significandBits: Int { 53 }
    /// Squares while they are normal; below 2^-1000 (deltas near 2^-960) the scaled magnitude.
    /// When r^2 underflows, |dz| >= 2^-500 is above r anyway (radii are at most 4 eps).
    @inlinable @inline(__always)
    public static func magnitude(_ re: Double, _ im: Double, isBelow r: Double) -> Bool {
        let s = re * re + im * im
        if _fastPath(s >= 0x1p-1000) { return s < r * r }
        // Scaled by 2^600 (r <= 4 eps is far below overflow), still without a square root.
        let a = re * 0x1p600, b = im * 0x1p600, q = r * 0x1p600
        return a * a + b * b < q * q
    }
    /// The nearest Double (`value.doubleValue`): overflows to infinity and underflows, through
    /// subnormals, to zero.
    @inlinable public init(_ value: FloatExp) { self = value.doubleValue }
    /// The nearest Double, `hi + lo` rounded once.
    @inlinable public init(_ value: DoubleDouble) { self = value.doubleValue }
    /// The same value as a `FloatExp` (exact).
    @inlinable public var floatExpValue: FloatExp { FloatExp(self) }
    /// In Double where the sum lies within 2^+-450: the same bits as through FloatExp (each
    /// square rounded once, scaled by a power of two; a square FloatExp's sum keeps is then at
    /// least 2^-517, so normal; one it drops, more than 64 bits below, cannot change Double's
    /// sum either), without FloatExp's normalizations, which made this a tenth of flake
    /// 1.7e-157's samples in the error variance's LA and BLA updates (Documentation/Benchmarks.md).
    /// Outside that range the same holds with both parts first scaled by the power of two that
    /// brings the larger into [1, 2) (exact; a square then below 2^-66 of the other, all that
    /// may be subnormal, moves neither sum), and the exponent put back; FloatExp's own steps
    /// only where the larger part is subnormal, huge or not finite.
    @inlinable
    public static func floatExpLengthSquared(_ re: Double, _ im: Double) -> FloatExp {
        let s = re * re + im * im
        if s >= 0x1p-450 && s <= 0x1p450 { return FloatExp(s) }
        let larger = Swift.max(re.magnitude.bitPattern, im.magnitude.bitPattern)
        let biased = Int(truncatingIfNeeded: larger >> 52)
        if biased != 0 && biased < 2046 {
            let scale = Double(bitPattern: UInt64(truncatingIfNeeded: 2046 - biased) << 52)
            let x = re * scale, y = im * scale
            return FloatExp(normalizing: x * x + y * y, 2 * biased - 2046)
        }
        let x = FloatExp(re), y = FloatExp(im)
        return x * x + y * y
    }
}

extension FloatExp: DeltaScalar {
    /// 53, a `Double` significand.
    @inlinable public static var significandBits: Int { 53 }
    /// Compares `re^2 + im^2` with `r^2` in `FloatExp`, which neither overflows nor underflows.
    @inlinable @inline(__always)
    public static func magnitude(_ re: FloatExp, _ im: FloatExp, isBelow r: FloatExp) -> Bool {
        re * re + im * im < r * r
    }
    /// The same value.
    @inlinable public init(_ value: FloatExp) { self = value }
    /// `hi + lo`, correctly rounded to 53 bits.
    @inlinable public init(_ value: DoubleDouble) { self = FloatExp(value.hi) + FloatExp(value.lo) }
    /// The value itself.
    @inlinable public var floatExpValue: FloatExp { self }
}

extension DoubleDouble: DeltaScalar {
    /// 106, the two words of a double-double.
    @inlinable public static var significandBits: Int { 106 }
    /// The nearest Double as the high word (a FloatExp has only 53 bits; lo = 0).
    @inlinable public init(_ value: FloatExp) { self.init(value.doubleValue) }
    /// The same value.
    @inlinable public init(_ value: DoubleDouble) { self = value }
    /// `hi + lo` as a `FloatExp`, correctly rounded to 53 bits.
    @inlinable public var floatExpValue: FloatExp { FloatExp(hi) + FloatExp(lo) }
    /// `|re + i im|` from the high words alone (`Double.complexMagnitude(_:_:)`), with `lo = 0`:
    /// BLA's validity test needs no more.
    @inlinable public static func complexMagnitude(_ re: DoubleDouble, _ im: DoubleDouble) -> DoubleDouble {
        DoubleDouble(Double.complexMagnitude(re.hi, im.hi))
    }
    /// Whether `|re + i im| < r`, decided on the high words alone
    /// (`Double.magnitude(_:_:isBelow:)`).
    @inlinable public static func magnitude(_ re: DoubleDouble, _ im: DoubleDouble, isBelow r: DoubleDouble) -> Bool {
        Double.magnitude(re.hi, im.hi, isBelow: r.hi)
    }
}

// |re + i im| without underflow or overflow in the squares, for BLA's validity test.
extension Double {
    /// `sqrt(re^2 + im^2)`, scaled when the squares would underflow (deltas near 2^-960).
    @inlinable @inline(__always)
    public static func complexMagnitude(_ re: Double, _ im: Double) -> Double {
        let s = re * re + im * im
        if s >= 0x1p-1000 { return s.squareRoot() }
        let a = re * 0x1p600, b = im * 0x1p600
        return (a * a + b * b).squareRoot() * 0x1p-600
    }
}

extension FloatExp {
    /// `sqrt(re^2 + im^2)`: both significands aligned to the larger exponent.
    @inlinable @inline(__always)
    public static func complexMagnitude(_ re: FloatExp, _ im: FloatExp) -> FloatExp {
        let e = Swift.max(re.exponent, im.exponent)
        let x = re.exponent &- e < -1000 ? 0 : re.significand * powerOfTwo(re.exponent &- e)
        let y = im.exponent &- e < -1000 ? 0 : im.significand * powerOfTwo(im.exponent &- e)
        return FloatExp(normalizing: (x * x + y * y).squareRoot(), e)
    }
}
