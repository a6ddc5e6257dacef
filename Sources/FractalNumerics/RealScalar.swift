// The arithmetic a fractal kernel needs from a real number type.
//
// Goals, in order: (1) exact, documented rounding behaviour for every conforming type;
// (2) zero-cost use from generic kernels (every requirement is satisfied by @inlinable members,
// so a kernel specialised for a type compiles to straight-line code); (3) a small surface.

/// A real number type that escape-time kernels can be generic over.
///
/// `Double`, `DoubleDouble` and `FloatExp` conform. The protocol deliberately has no
/// `ExpressibleByFloatLiteral` or transcendental requirements: kernels only add, subtract,
/// multiply, divide and compare magnitudes, and convert to `Double` for colouring.
public protocol RealScalar: Sendable, Equatable, Comparable {
    /// Zero, the additive identity.
    static var zero: Self { get }
    /// One, the multiplicative identity.
    static var one: Self { get }
    /// The Double `value` in this type (exact in every conforming type).
    init(_ value: Double)
    /// The nearest `Double` (may overflow to infinity or underflow to zero for `FloatExp`).
    var doubleValue: Double { get }
    /// A Double within a relative 2^-52 of the value, as cheap as possible (`hi` of a
    /// double-double), for tests that then decide close calls exactly.
    var leadingDouble: Double { get }

    /// The sum.
    static func + (lhs: Self, rhs: Self) -> Self
    /// The difference.
    static func - (lhs: Self, rhs: Self) -> Self
    /// The product.
    static func * (lhs: Self, rhs: Self) -> Self
    /// The quotient.
    static func / (lhs: Self, rhs: Self) -> Self
    /// The negation (exact).
    static prefix func - (operand: Self) -> Self
    /// `self * 2`, exact in every conforming type.
    var doubled: Self { get }
    /// `self * d` for a small `Double` factor.
    func scaled(by d: Double) -> Self
}

extension Double: RealScalar {
    /// One.
    @inlinable public static var one: Double { 1 }
    /// The value itself.
    @inlinable public var doubleValue: Double { self }
    /// The value itself.
    @inlinable public var leadingDouble: Double { self }
    /// `self + self`, exact (short of overflow).
    @inlinable public var doubled: Double { self + self }
    /// `self * d`, rounded once.
    @inlinable public func scaled(by d: Double) -> Double { self * d }
}
