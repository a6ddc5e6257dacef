import ArbitraryPrecision
import FractalNumerics

/// A perturbation delta type that can be read from MPFR (correctly rounded).
@usableFromInline package protocol PerturbationDelta: DeltaScalar {
    /// The 106-bit type of the same range: what pixels at risk are rendered again in.
    associatedtype Wide: PerturbationDelta
    /// Where a `ReferenceCache` keeps this type's BLA tables.
    static var cachedTables: WritableKeyPath<CachedTables, [TableIdentity: ApproximationTable<Self>]> { get }
    /// `value` rounded to this type.
    init(rounding value: BigFloat)
    /// The nearest value to one of the wide type.
    init(wide value: Wide)
    /// |re + i im|^2 as a Double when it lies within 2^+-450 (so that its square and its
    /// product with any |f'(z)|^2 stay in Double's range), else nil: the error variance's
    /// fast path.
    static func plainLengthSquared(_ re: Self, _ im: Self) -> Double?
}

extension PerturbationDelta {
    /// nil: by default a type has no fast path.
    @inlinable @inline(__always)
    package static func plainLengthSquared(_ re: Self, _ im: Self) -> Double? { nil }
}

extension Double: PerturbationDelta {
    /// The cache's Double tables.
    @usableFromInline package static var cachedTables:
        WritableKeyPath<CachedTables, [TableIdentity: ApproximationTable<Double>]>
    { \.double }
    /// Double-double: 106 bits in Double's range.
    @usableFromInline package typealias Wide = DoubleDouble
    /// `value` rounded to Double.
    @usableFromInline package init(rounding value: BigFloat) { self = value.doubleValue }
    /// `value` rounded to Double.
    @usableFromInline package init(wide value: DoubleDouble) { self = value.doubleValue }
    /// re^2 + im^2, or nil where it lies outside 2^-450 ... 2^450.
    @inlinable @inline(__always)
    package static func plainLengthSquared(_ re: Double, _ im: Double) -> Double? {
        let s = re * re + im * im
        return s >= 0x1p-450 && s <= 0x1p450 ? s : nil
    }
}

extension FloatExp: PerturbationDelta {
    /// The cache's floatexp tables.
    @usableFromInline package static var cachedTables:
        WritableKeyPath<CachedTables, [TableIdentity: ApproximationTable<FloatExp>]>
    { \.floatExp }
    /// `DoubleDoubleExp`: 106 bits in floatexp's range.
    @usableFromInline package typealias Wide = DoubleDoubleExp
    /// `value` rounded to floatexp (53 bits).
    @usableFromInline package init(rounding value: BigFloat) { self = value.floatExpValue }
    /// `value` rounded to floatexp (53 bits).
    @usableFromInline package init(wide value: DoubleDoubleExp) { self = value.floatExpValue }
}

extension DoubleDouble: PerturbationDelta {
    /// The cache's double-double tables.
    @usableFromInline package static var cachedTables:
        WritableKeyPath<CachedTables, [TableIdentity: ApproximationTable<DoubleDouble>]>
    {
        \.doubleDouble
    }
    /// Double-double itself: it already has 106 bits.
    @usableFromInline package typealias Wide = DoubleDouble
    /// `value` rounded to double-double.
    @usableFromInline package init(rounding value: BigFloat) { self = value.doubleDoubleValue }
    /// `value` itself.
    @usableFromInline package init(wide value: DoubleDouble) { self = value }
    /// Double's, from the leading words (the variance needs no more than their 53 bits).
    @inlinable @inline(__always)
    package static func plainLengthSquared(_ re: DoubleDouble, _ im: DoubleDouble) -> Double? {
        Double.plainLengthSquared(re.hi, im.hi)
    }
}

extension DoubleDoubleExp: PerturbationDelta {
    /// The cache's extended-range double-double tables.
    @usableFromInline package static var cachedTables:
        WritableKeyPath<CachedTables, [TableIdentity: ApproximationTable<DoubleDoubleExp>]>
    {
        \.doubleDoubleExp
    }
    /// `DoubleDoubleExp` itself: it already has 106 bits.
    @usableFromInline package typealias Wide = DoubleDoubleExp
    /// `value` itself.
    @usableFromInline package init(wide value: DoubleDoubleExp) { self = value }
    /// `value` rounded to 106 bits, with its exponent kept apart (no underflow or overflow).
    @usableFromInline package init(rounding value: BigFloat) {
        let f = value.floatExpValue
        if f.isZero {
            self = .zero
        } else {
            self.init(normalizing: value.timesPowerOfTwo(-f.exponent).doubleDoubleValue, f.exponent)
        }
    }
}
