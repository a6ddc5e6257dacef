/// A number type for perturbation deltas: a `RealScalar` that converts to and from
/// `FloatExp` (the type that holds any magnitude).
///
/// `Double` holds deltas down to about 1e-290 (with headroom for squaring); `FloatExp`
/// holds any depth at several times the cost.
public protocol DeltaScalar: RealScalar {
    /// The nearest value of this type (Double underflows to zero below 1e-308).
    init(_ value: FloatExp)
    var floatExpValue: FloatExp { get }
    /// Bits of significand: the relative precision of one rounding.
    static var significandBits: Int { get }
}

extension Double: DeltaScalar {
    @inlinable public static var significandBits: Int { 53 }
    @inlinable public init(_ value: FloatExp) { self = value.doubleValue }
    @inlinable public var floatExpValue: FloatExp { FloatExp(self) }
}

extension FloatExp: DeltaScalar {
    @inlinable public static var significandBits: Int { 53 }
    @inlinable public init(_ value: FloatExp) { self = value }
    @inlinable public var floatExpValue: FloatExp { self }
}

extension DoubleDouble: DeltaScalar {
    @inlinable public static var significandBits: Int { 106 }
    /// The nearest Double as the high word (a FloatExp has only 53 bits; lo = 0).
    @inlinable public init(_ value: FloatExp) { self.init(value.doubleValue) }
    @inlinable public var floatExpValue: FloatExp { FloatExp(hi) + FloatExp(lo) }
}
