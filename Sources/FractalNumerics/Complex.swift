// A complex number over any RealScalar. Goals: (1) generic kernels specialise to the
// same code as hand-written real arithmetic; (2) the textbook formulas, nothing clever:
// z^2 is computed as ((x + y)(x - y), 2xy), the order the oracle data uses.

/// A complex number `re + i im` over a `RealScalar`.
@frozen
public struct Complex<T: RealScalar>: Sendable, Equatable {
    /// The real part.
    public var re: T
    /// The imaginary part.
    public var im: T

    /// Creates `re + i im`.
    @inlinable @inline(__always)
    public init(_ re: T, _ im: T) {
        self.re = re
        self.im = im
    }

    /// `0 + 0i`.
    @inlinable public static var zero: Complex { Complex(.zero, .zero) }

    /// `re^2 + im^2`, the square of the magnitude, without a square root.
    @inlinable @inline(__always)
    public var lengthSquared: T { re * re + im * im }

    /// The complex conjugate `re - i im`.
    @inlinable public var conjugate: Complex { Complex(re, -im) }

    /// `z^2` as `((x + y)(x - y), 2xy)`.
    @inlinable @inline(__always)
    public var squared: Complex { Complex((re + im) * (re - im), (re * im).doubled) }

    /// The sum, part by part.
    @inlinable @inline(__always)
    public static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }

    /// The difference, part by part.
    @inlinable @inline(__always)
    public static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }

    /// The negation of both parts.
    @inlinable @inline(__always)
    public static prefix func - (a: Complex) -> Complex { Complex(-a.re, -a.im) }

    /// The schoolbook product `(ac - bd) + i(ad + bc)`.
    @inlinable @inline(__always)
    public static func * (a: Complex, b: Complex) -> Complex {
        Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
    }

    /// The product with a real `s`, part by part.
    @inlinable @inline(__always)
    public static func * (a: Complex, s: T) -> Complex { Complex(a.re * s, a.im * s) }

    /// Division by `b`, through `a * conj(b) / |b|^2`.
    ///
    /// Edge cases: division by zero gives non-finite parts (kernels check before dividing).
    @inlinable @inline(__always)
    public static func / (a: Complex, b: Complex) -> Complex {
        let d = b.lengthSquared
        let n = a * b.conjugate
        return Complex(n.re / d, n.im / d)
    }

    /// `self^p` for `p >= 1` by repeated schoolbook multiplication: `z^2` as `squared`, then
    /// `p - 2` further products, the order the oracle uses for Multibrot.
    @inlinable @inline(__always)
    public func power(_ p: Int) -> Complex {
        if p == 1 { return self }
        var r = squared
        var k = 2
        while k < p {
            r = r * self
            k += 1
        }
        return r
    }
}

extension Complex where T == Double {
    /// The magnitude `sqrt(re^2 + im^2)`.
    @inlinable public var magnitude: Double { (re * re + im * im).squareRoot() }
}
