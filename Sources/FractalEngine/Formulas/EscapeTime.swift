import FractalNumerics

// Direct escape-time iteration, generic over formula and number type.
// In the kernels: n = iteration index, z = z(n), c = the additive constant (the pixel for
// Mandelbrot and Multibrot, Julia's parameter for Julia).

/// A map z -> f(z, c) iterated from z0 until |z| > 65536.
@usableFromInline package protocol EscapeTimeFormula: Sendable {
    /// The power p of the leading term (for the smooth count's ln p).
    var power: Int { get }
    /// One iteration: z(n+1) from `z` = z(n) and the additive constant `c`.
    func step<T: RealScalar>(_ z: Complex<T>, _ c: Complex<T>) -> Complex<T>
}

/// z^2 + c, with z^2 as ((x + y)(x - y), 2xy): Mandelbrot and Julia.
@usableFromInline package struct QuadraticFormula: EscapeTimeFormula {
    /// The quadratic formula (it has no parameters).
    @usableFromInline package init() {}
    /// The power: 2.
    @inlinable package var power: Int { 2 }
    /// z^2 + c.
    @inlinable @inline(__always)
    package func step<T: RealScalar>(_ z: Complex<T>, _ c: Complex<T>) -> Complex<T> { z.squared + c }
}

/// z^p + c for integer p >= 2 (z^2 then p - 2 schoolbook products, the oracle's order).
@usableFromInline package struct MultibrotFormula: EscapeTimeFormula {
    /// The exponent p; Fathom renders 2 through 16 (`Family.powerRange`).
    @usableFromInline package let power: Int
    /// z^`power` + c, for `power` >= 2.
    @usableFromInline package init(power: Int) { self.power = power }
    /// z^p + c.
    @inlinable @inline(__always)
    package func step<T: RealScalar>(_ z: Complex<T>, _ c: Complex<T>) -> Complex<T> {
        z.power(power) + c
    }
}

/// The escape thresholds of the contract: |z|^2 > 4 for n2, |z|^2 > 2^32 for nBig.
@usableFromInline package enum Escape {
    /// 4: n2 is the first n with |z(n)|^2 above it (|z| > 2).
    @usableFromInline package static let radiusSquared2 = 4.0
    /// 2^32: nBig is the first n with |z(n)|^2 above it (|z| > 65536), where iteration stops.
    @usableFromInline package static let radiusSquaredBig = 4294967296.0
    // The thresholds widened by a relative 2^-40, for deciding escape from a leading Double.
    /// `radiusSquared2` less a relative 2^-40: a leading-Double |z|^2 below it is below `radiusSquared2`.
    @usableFromInline package static let inner2 = radiusSquared2 * (1 - 0x1p-40)
    /// `radiusSquared2` plus a relative 2^-40: a leading-Double |z|^2 above it is above `radiusSquared2`.
    @usableFromInline package static let outer2 = radiusSquared2 * (1 + 0x1p-40)
    /// `radiusSquaredBig` less a relative 2^-40: a leading-Double |z|^2 below it is below `radiusSquaredBig`.
    @usableFromInline package static let innerBig = radiusSquaredBig * (1 - 0x1p-40)
    /// `radiusSquaredBig` plus a relative 2^-40: a leading-Double |z|^2 above it is above `radiusSquaredBig`.
    @usableFromInline package static let outerBig = radiusSquaredBig * (1 + 0x1p-40)
    /// ln 65536.
    @usableFromInline package static let logBig = 11.090354888959125

    /// smooth = nBig + 1 - ln(ln|z| / ln 65536) / ln p, from |z|^2 in Double.
    @inlinable
    package static func smooth(nBig: Int, lengthSquared r2: Double, power: Int) -> Double {
        let lnAbsZ = 0.5 * Math.log(r2)
        let lnRatio = Math.log(lnAbsZ / logBig)
        return Double(nBig) + 1 - (power == 2 ? lnRatio * inverseLn2 : lnRatio / Math.log(Double(power)))
    }

    /// 1 / ln 2.
    @usableFromInline package static let inverseLn2 = 1.4426950408889634
}

/// The state of one escape-time iteration in progress.
@usableFromInline package struct EscapeState<T: RealScalar>: Sendable {
    @usableFromInline package var z: Complex<T>
    /// Iterations done so far: z = z(n).
    @usableFromInline package var n: Int
    /// The first n with |z(n)| > 2 so far, or 0.
    @usableFromInline package var n2: Int

    @inlinable package init(z: Complex<T>, n: Int = 0, n2: Int = 0) {
        self.z = z
        self.n = n
        self.n2 = n2
    }
}

/// Iterates `state` until |z| > 65536 or `maxIterations`, and returns the pixel result.
@inlinable
package func iterateEscape<F: EscapeTimeFormula, T: RealScalar>(
    _ formula: F, from state: EscapeState<T>, c: Complex<T>, maxIterations: Int
) -> PixelResult {
    var z = state.z
    var n2 = state.n2
    let four = T(Escape.radiusSquared2)
    let big = T(Escape.radiusSquaredBig)
    var n = state.n
    while n < maxIterations {
        z = formula.step(z, c)
        n += 1
        // |z|^2 from the leading Doubles decides every test but the close calls (within a
        // relative 2^-40 of a threshold), which are decided in T. NaN fails every comparison
        // below, so it reaches the test in T too.
        let x = z.re.leadingDouble, y = z.im.leadingDouble
        let approx = x * x + y * y
        if approx < Escape.inner2 { continue }
        let closeCall =
            approx <= Escape.outer2 || (approx >= Escape.innerBig && approx <= Escape.outerBig) || approx.isNaN
        if !closeCall {
            if n2 == 0 { n2 = n }
            guard approx > Escape.outerBig else { continue }
            let smooth = Escape.smooth(nBig: n, lengthSquared: z.lengthSquared.doubleValue, power: formula.power)
            return PixelResult(n2: UInt32(n2), nBig: UInt32(n), smooth: smooth)
        }
        let r2 = z.lengthSquared
        if n2 == 0 && four < r2 { n2 = n }
        if big < r2 {
            let smooth = Escape.smooth(nBig: n, lengthSquared: r2.doubleValue, power: formula.power)
            return PixelResult(n2: UInt32(n2), nBig: UInt32(n), smooth: smooth)
        }
    }
    return PixelResult(n2: UInt32(n2), nBig: 0, smooth: .nan)
}
