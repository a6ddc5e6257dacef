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
    static var zero: Self { get }
    static var one: Self { get }
    init(_ value: Double)
    /// The nearest `Double` (may overflow to infinity or underflow to zero for `FloatExp`).
    var doubleValue: Double { get }
    /// A Double within a relative 2^-52 of the value, as cheap as possible (`hi` of a
    /// double-double), for tests that then decide close calls exactly.
    var leadingDouble: Double { get }

    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    static func / (lhs: Self, rhs: Self) -> Self
    static prefix func - (operand: Self) -> Self
    /// `self * 2`, exact in every conforming type.
    var doubled: Self { get }
    /// `self * d` for a small `Double` factor.
    func scaled(by d: Double) -> Self
}

extension Double: RealScalar {
    @inlinable public static var one: Double { 1 }
    @inlinable public var doubleValue: Double { self }
    @inlinable public var leadingDouble: Double { self }
    @inlinable public var doubled: Double { self + self }
    @inlinable public func scaled(by d: Double) -> Double { self * d }
}
