import ArbitraryPrecision
import FractalNumerics

// Rescaled Double deltas for views below Double's range (after Zhuoran's rescaling, as in
// Fraktaler-3; Documentation/Design.md section 11 measured it near plain Double speed on a GPU).
//
// While the delta is tiny it is held as dz = w 2^S, w a Complex<Double> near 1 and S an Int,
// and dc = u 2^Sc with the spacing's exponent Sc. The step is
//     w <- w H(Z, w 2^S) + u 2^(Sc - S)
// (see PerturbationFormula), with the factors 2^S and 2^(Sc - S) as Doubles that may
// underflow to zero: then the term they scale is below 2^-1022 relative and cannot change w.
// w is renormalised when it leaves [2^-64, 2^64]. Once S > -900 the delta fits Double and the
// pixel continues with plain Double deltas (dc, now below 2^-100 relative to 2Z dz, drops
// out). While the delta is rescaled, z = Z + dz equals Z to far more than Double's
// precision unless |Z| < 2^-900, which is checked (in FloatExp) before trusting it.
// Names: n = iteration, m = reference index, S = the delta's binary exponent.

/// Pixel deltas as u 2^Sc, per column and row (no rotation) or per pixel.
@usableFromInline
struct ScaledDeltaGrid: Sendable {
    @usableFromInline let exact: DeltaGrid<FloatExp>
    /// Sc: the exponent every dc is scaled by.
    @usableFromInline let exponent: Int

    init(viewport: Viewport, reference: BigComplex) {
        exact = DeltaGrid<FloatExp>(viewport: viewport, reference: reference)
        exponent = viewport.spacing.floatExpValue.exponent
    }

    /// u = dc 2^-Sc, as Doubles (|u| is about the pixel distance from the reference).
    @inlinable @inline(__always)
    func scaled(_ dc: Complex<FloatExp>) -> Complex<Double> {
        Complex(FloatExp(rawSignificand: dc.re.significand, exponent: dc.re.exponent &- exponent).doubleValue,
                       FloatExp(rawSignificand: dc.im.significand, exponent: dc.im.exponent &- exponent).doubleValue)
    }

    @inlinable @inline(__always)
    func delta(_ i: Int) -> Complex<FloatExp> { exact.delta(i) }
}

@usableFromInline
struct RescaledPerturbationKernel<F: PerturbationFormula>: PerturbationPixelKernel {
    @usableFromInline let formula: F
    @usableFromInline let orbit: [Complex<Double>]
    @usableFromInline let rebaseOrbit: [Complex<Double>]
    /// Orbit entries below 2^-1000, exactly (`ReferenceOrbit.tiny`), for the steps near 0.
    @usableFromInline let orbitTiny: [Int: Complex<FloatExp>]
    @usableFromInline let rebaseTiny: [Int: Complex<FloatExp>]
    @usableFromInline let grid: ScaledDeltaGrid
    @usableFromInline let maxIterations: Int
    @usableFromInline let mode: GlitchMode
    @usableFromInline let tolerance: Double
    @usableFromInline let subset: [Int]?
    @usableFromInline let flags: PixelFlags
    /// No BLA here (experimental kernel).
    @usableFromInline var bla: BLATable<Double>? { nil }
    @usableFromInline var rebaseBLA: BLATable<Double>? { nil }

    /// 2^k as a Double, 0 below the subnormal range, for -2000 < k < 1024.
    @inlinable @inline(__always)
    static func power(_ k: Int) -> Double {
        k < -1074 ? 0 : (k < -1022 ? 0x1p-1022 * Double(sign: .plus, exponent: k + 1022, significand: 1) : Double(sign: .plus, exponent: k, significand: 1))
    }

    @inlinable @inline(__always)
    func iterate(pixel: Int, orbit first: UnsafeBufferPointer<Complex<Double>>, rebaseOrbit: UnsafeBufferPointer<Complex<Double>>,
                 bla _: BLAView<Double>, rebaseBLA _: BLAView<Double>, work: inout PixelWork) -> (PixelResult, Double, Bool) {
        var orbit = first
        var onRebaseOrbit = false
        var last = orbit.count - 1
        let dcExact = grid.delta(pixel)
        let u = grid.scaled(dcExact)
        let sc = grid.exponent
        // Rescaled state: dz = w 2^S; Julia starts from dz = dc, the others from 0.
        var w: Complex<Double> = formula.addsDC ? .zero : u
        var s = sc
        var f1 = Self.power(s), f2 = 1.0
        var rescaled = true
        var dz = Complex<Double>.zero  // plain state, once it fits Double
        let dcPlain = Complex(Double(dcExact.re), Double(dcExact.im))
        var m = 0, n = 0, n2 = 0

        // Puts a FloatExp delta into the rescaled state.
        func rescale(_ d: Complex<FloatExp>) {
            guard !d.re.isZero || !d.im.isZero else {
                w = .zero
                return
            }
            let e = max(d.re.exponent, d.im.exponent)
            w = Complex(FloatExp(rawSignificand: d.re.significand, exponent: d.re.exponent &- e).doubleValue,
                        FloatExp(rawSignificand: d.im.significand, exponent: d.im.exponent &- e).doubleValue)
            s = e
            f1 = Self.power(s)
            f2 = Self.power(sc - s)
        }

        while n < maxIterations {
            let Z = orbit[m]
            var z: Complex<Double>
            var deltaSquared: Double  // |dz|^2 where it fits, for the rebase test
            if rescaled {
                if Swift.max(Swift.abs(Z.re), Swift.abs(Z.im)) < 0x1p-400 {
                    // Near 0, dz^2 and dc can outweigh 2Z dz while their factors 2^S and
                    // 2^(Sc - S) underflow: take this step in FloatExp.
                    let zExact = (onRebaseOrbit ? rebaseTiny[m] : orbitTiny[m]) ?? Complex(FloatExp(Z.re), FloatExp(Z.im))
                    let d = Complex(FloatExp(w.re), FloatExp(w.im)) * FloatExp(significand: 1, exponent: s)
                    rescale(formula.step(zExact, d, formula.addsDC ? dcExact : .zero))
                } else {
                    w = formula.step(Z, w, w * f1, formula.addsDC ? u * f2 : .zero)
                }
                m += 1
                n += 1
                let big = Swift.max(Swift.abs(w.re), Swift.abs(w.im))
                if big > 0x1p64 || (big < 0x1p-64 && big > 0) {
                    rescale(Complex(FloatExp(w.re), FloatExp(w.im)) * FloatExp(significand: 1, exponent: s))
                }
                if s > -900 {
                    dz = Complex(w.re * Self.power(s), w.im * Self.power(s))
                    rescaled = false
                }
                z = orbit[m] + (rescaled ? .zero : dz)
                deltaSquared = rescaled ? 0 : dz.lengthSquared
                if rescaled {
                    let zm = orbit[m]
                    if Swift.max(Swift.abs(zm.re), Swift.abs(zm.im)) < 0x1p-900 {
                        // |Z| is as small as the delta: decide the rebase in FloatExp.
                        let d = Complex(FloatExp(w.re), FloatExp(w.im)) * FloatExp(significand: 1, exponent: s)
                            let zExact = ((onRebaseOrbit ? rebaseTiny[m] : orbitTiny[m]) ?? Complex(FloatExp(zm.re), FloatExp(zm.im))) + d
                        if mode == .rebase && zExact.lengthSquared < d.lengthSquared {
                            rescale(zExact)
                            m = 0
                            onRebaseOrbit = true
                            orbit = rebaseOrbit
                            last = orbit.count - 1
                            continue
                        }
                    }
                }
            } else {
                dz = formula.step(Z, dz, dcPlain)
                m += 1
                n += 1
                z = orbit[m] + dz
                deltaSquared = dz.lengthSquared
            }
            let r2 = z.lengthSquared
            if r2 > Escape.radiusSquared2 {
                if n2 == 0 { n2 = n }
                if r2 > Escape.radiusSquaredBig {
                    return (PixelResult(n2: UInt32(n2), nBig: UInt32(n), smooth: Escape.smooth(nBig: n, lengthSquared: r2, power: formula.power)), .nan, false)
                }
            }
            switch mode {
            case .rebase:
                if m == last || (!rescaled && r2 < deltaSquared) {
                    dz = z
                    m = 0
                    onRebaseOrbit = true
                    orbit = rebaseOrbit
                    last = orbit.count - 1
                    if rescaled || Swift.max(Swift.abs(z.re), Swift.abs(z.im)) < 0x1p-900 {
                        rescale(Complex(FloatExp(z.re), FloatExp(z.im)))
                        rescaled = s <= -900
                    }
                }
            case .detect:
                let big = orbit[m].lengthSquared
                if !rescaled && r2 < tolerance * big { return (.bounded, r2 / big, false) }
                if m == last && n < maxIterations {
                    guard r2 > Escape.radiusSquared2 else { return (.bounded, 0, false) }
                    dz = z
                    rescaled = false
                    m = 0
                    onRebaseOrbit = true
                    orbit = rebaseOrbit
                    last = orbit.count - 1
                }
            }
        }
        return (PixelResult(n2: UInt32(n2), nBig: 0, smooth: .nan), .nan, false)
    }
}
