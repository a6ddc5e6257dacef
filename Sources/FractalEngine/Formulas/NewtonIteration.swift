import FractalNumerics

/// Newton's method z <- z - p(z)/p'(z) for a polynomial, with convergence to a known root.
@usableFromInline package struct NewtonIteration<T: RealScalar>: Sendable {
    /// The polynomial's coefficients in `T`: `coefficients[k]` multiplies z^k.
    @usableFromInline package let coefficients: [T]
    /// The polynomial's roots, in `NewtonPolynomial.roots` order; a result's `root` is index + 1.
    @usableFromInline package let roots: [Complex<Double>]
    /// Converged when |z - root|^2 < tolerance^2, tolerance = 1e-6.
    @usableFromInline package static var toleranceSquared: Double { 1e-12 }

    /// Newton's method for `polynomial`, with its coefficients converted to `T` and its roots found once.
    @usableFromInline package init(_ polynomial: NewtonPolynomial) {
        coefficients = polynomial.coefficients.map { T($0) }
        roots = polynomial.roots
    }

    /// Iterates from `z0`: the first n >= 1 with z(n) within the tolerance of a root gives
    /// n2 = nBig = n, root = index + 1, smooth = n + 1 - log2(ln d^2 / ln tol^2) in [n, n + 1).
    /// A zero derivative or the limit gives `PixelResult.bounded`.
    @inlinable
    package func iterate(from z0: Complex<T>, maxIterations: Int) -> PixelResult {
        var z = z0
        var n = 0
        while n < maxIterations {
            let (p, dp) = NewtonPolynomial.evaluate(coefficients, at: z)
            if dp.re == .zero && dp.im == .zero { break }
            z = z - p / dp
            n += 1
            for k in 0..<roots.count {
                let d = z - Complex(T(roots[k].re), T(roots[k].im))
                let d2 = d.re.doubleValue * d.re.doubleValue + d.im.doubleValue * d.im.doubleValue
                if d2 < NewtonIteration.toleranceSquared {
                    let ratio = Math.log(d2) / Math.log(NewtonIteration.toleranceSquared)
                    let fraction = d2 > 0 ? min(1, max(0, Math.log2(ratio))) : 1
                    return PixelResult(
                        n2: UInt32(n), nBig: UInt32(n), smooth: Double(n) + 1 - fraction, root: UInt8(k + 1))
                }
            }
        }
        return .bounded
    }
}
