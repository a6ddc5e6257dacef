import ArbitraryPrecision
import FractalNumerics

/// One pixel's perturbation state between steps. Names: n = the pixel's iteration count,
/// m = the reference index, so the pixel's z(n) = Z(m) + dz; dc = c - C (zero for Julia,
/// whose pixel enters as dz(0)).
@usableFromInline
struct PixelRun<D: PerturbationDelta, T: PixelTracker, B: StretchBound, C: OrbitCursor> where C.Scalar == D {
    @usableFromInline let pixel: Int
    @usableFromInline let dc: Complex<D>
    @usableFromInline let dcStep: Complex<D>
    @usableFromInline var orbit: C
    @usableFromInline var table: BLAView<D>
    @usableFromInline var last: Int
    @usableFromInline var dz: Complex<D>
    @usableFromInline var m = 0
    @usableFromInline var n = 0
    @usableFromInline var n2 = 0
    // The precision estimate's running value, errorScale * 2^errorScaleExponent. The product
    // estimate: |dz(n)/dc|^2 (below); the variance estimate: the error's variance. Each step
    // multiplies it by |f'(z)|^2 at the z it starts from (`nextStretch`; 1 for the first
    // Mandelbrot step, where dz/dc = 1 after it), a BLA step by |A|^2.
    @usableFromInline var errorScale = 1.0
    @usableFromInline var errorScaleExponent = 0
    @usableFromInline var nextStretch = 1.0
    /// With `B.variance`: |f'(z)|^2 = nextStretch * 2^nextStretchExponent.
    @usableFromInline var nextStretchExponent = 0
    /// 1 / |dc|^2 = inverseDCSignificand * 2^inverseDCExponent (0 when dc = 0).
    @usableFromInline let inverseDCSignificand: Double
    @usableFromInline let inverseDCExponent: Int
    /// Sum over BLA steps of ((|dz| / radius) (|dz| / (|dc| |dz/dc|)))^2: a step's truncation
    /// error is about 2 eps |dz| / radius relative to dz, and the second factor turns an
    /// error relative to dz at that step into one relative to dc (the precision estimate).
    @usableFromInline var blaLoad = 0.0
    @usableFromInline var work = PixelWork()
    /// Set when the pixel is finished: how it ended, |z|^2 where it escaped, the glitch ratio
    /// (NaN: none).
    @usableFromInline var end = PixelOutcome.End.bounded
    @usableFromInline var r2 = 0.0
    @usableFromInline var ratio = Double.nan
    /// What the kernel tracks besides z.
    @usableFromInline var tracker: T

    @inlinable @inline(__always)
    init(
        pixel: Int, dc: Complex<D>, dcStep: Complex<D>, orbit: C, table: BLAView<D>,
        dz: Complex<D>, tracker: T
    ) {
        self.tracker = tracker
        self.pixel = pixel
        self.dc = dc
        self.dcStep = dcStep
        self.orbit = orbit
        self.table = table
        self.last = orbit.last
        self.dz = dz
        let dcx = dc.re.floatExpValue, dcy = dc.im.floatExpValue
        let dc2 = dcx * dcx + dcy * dcy
        if dc2.isZero {
            inverseDCSignificand = 0
            inverseDCExponent = 0
        } else {
            inverseDCSignificand = 1 / dc2.significand
            inverseDCExponent = -dc2.exponent
        }
    }

    /// How the pixel's steps ended, for `PerturbationPass.finish`.
    @inlinable
    var outcome: PixelOutcome {
        PixelOutcome(
            end: end, n2: n2, n: n, r2: r2, errorScale: errorScale, errorScaleExponent: errorScaleExponent,
            blaLoad: blaLoad, ratio: ratio, work: work)
    }

    /// The most `localScale` returns: |dz/dc| tracked as a product of |f'(z)| collapses where
    /// z passes near 0 (it drops the + 1 of dz'/dc = f'(z) dz/dc + 1), and there the ratio
    /// would flag pixels that are fine (2,307 of the tlaloc view, beyond MPFR's budget).
    @usableFromInline static var localScaleCap: Double { 0x1p8 }

    /// (|dz| / (|dc| |dz/dc|))^2 now: an error relative to dz here, as a share of dc. Where
    /// dz grows linearly with dc it is about 1; after a rebase or where the map bends across
    /// the image it is not, and taking it as 1 let BLA errors of up to 4.5e-7 in the smooth
    /// value pass unflagged (flake 1e-50 at 2^-40; Documentation/Perturbation.md).
    @inlinable @inline(__always)
    func localScale() -> Double {
        // A stretch of 0 (|z|^2 underflowed in Double near a deep minibrot) zeroes every
        // term at the end, as it zeroes the rounding term: nothing to add (and no 0 / 0).
        guard errorScale > 0 else { return 0 }
        let m = D.complexMagnitude(dz.re, dz.im).floatExpValue
        let k = 2 &* m.exponent &+ inverseDCExponent &- errorScaleExponent
        let scale = k > 1000 ? 0x1p1000 : k < -1000 ? 0 : FloatExp.powerOfTwo(k)
        return Swift.min(
            m.significand * m.significand * inverseDCSignificand / errorScale * scale, PixelRun.localScaleCap)
    }

    /// One plain perturbation step to `next`: dz/dc stretched by |f'(z)| (with `B.variance`,
    /// the error variance, plus the step's rounding).
    @inlinable @inline(__always)
    mutating func takePlainStep(to next: Complex<D>, power: Int) {
        let before = dz
        dz = next
        m += 1
        n += 1
        errorScale *= nextStretch
        if B.variance {
            (errorScale, errorScaleExponent) = Self.plainStepError(
                (errorScale, errorScaleExponent), next: (nextStretch, nextStretchExponent), before: before,
                inverseDC: (inverseDCSignificand, inverseDCExponent), power: power)
        }
    }

    /// With `B.variance`, after a plain step from `before` (the variance already times
    /// nextStretch): |f'(z)|^2's exponent, the step's rounding and its dc term's 1. Out of line:
    /// inlined, it kept the kernel's step functions from being inlined into the tile loop.
    /// It takes and returns values: called with the pixel's state `inout`, it kept that state in
    /// memory across the whole step loop.
    @usableFromInline @inline(never)
    static func plainStepError(
        _ v: (Double, Int), next: (Double, Int), before: Complex<D>, inverseDC: (Double, Int), power: Int
    ) -> (Double, Int) {
        var v = (v.0, v.1 &+ next.1)
        let (m, e) = stepRounding(before, next: next, inverseDC: inverseDC, power: power)
        addVariance(&v, m, e)
        addVariance(&v, 1, 0)
        return normalized(v)
    }

    /// Adds a BLA step's or an LA entry's truncation `load` (relative to dz, squared) as a share
    /// of dc; far inside the radius the scale's cap bounds the term without computing it.
    @inlinable @inline(__always)
    mutating func addLoad(_ load: Double) {
        blaLoad += load < 0x1p-24 ? load * PixelRun.localScaleCap : (load.isFinite ? load : 1) * localScale()
    }

    // The variance's terms are pairs m 2^e, m a Double of modest size, added to V without
    // normalizing (FloatExp normalizes after every operation, which cost the kernel about 40%
    // against a wrapped reference; Documentation/Benchmarks.md); V is normalized once a step.

    /// With `B.variance`: V = errorScale 2^errorScaleExponent += m 2^e (m >= 0 finite).
    @inlinable @inline(__always)
    static func addVariance(_ v: inout (Double, Int), _ m: Double, _ e: Int) {
        if v.0 == 0 {
            v = (m, e)
            return
        }
        let j = e &- v.1
        if j > 900 {
            v = (m, e)
        } else if j >= -900 {
            v.0 += m * FloatExp.powerOfTwo(j)
        }
    }

    /// errorScale into [1, 2) (the exponent into errorScaleExponent), after every step: the next
    /// step multiplies it by |f'(z)|^2, as small as 2^-898 near a deep minibrot, which from the
    /// product's range of 2^+-600 would underflow and lose the variance (four of 155 sampled
    /// deepmini pixels then went unflagged). (Renormalizing in `finishStep` instead, outside
    /// 2^+-64, made every kernel 2 times slower, the product's too.)
    @inlinable @inline(__always)
    static func normalized(_ v: (Double, Int)) -> (Double, Int) {
        FloatExp(normalizing: v.0, v.1).parts
    }

    /// a + b for normalized pairs: FloatExp's `+` (the smaller operand aligned, dropped past 60
    /// bits) without normalizing the sum. FloatExp's own made the variance's slow path 8-10%
    /// slower on the flake views, for the same output bytes.
    @inlinable @inline(__always)
    static func pairSum(_ a: (Double, Int), _ b: (Double, Int)) -> (Double, Int) {
        if a.0 == 0 { return b }
        if b.0 == 0 { return a }
        let k = a.1 &- b.1
        if k >= 0 { return k > 60 ? a : (a.0 + b.0 * FloatExp.powerOfTwo(-k), a.1) }
        return k < -60 ? b : (b.0 + a.0 * FloatExp.powerOfTwo(k), b.1)
    }

    /// A plain step's rounding from `before` (the dz it started from), in units of (u |dc|)^2,
    /// without the dc term's 1: the step computes f(Z + dz) - f(Z) + dc from terms up to
    /// |f'(z)| |dz| + |dz|^2 (z^2: (2Z + dz) dz, with |2Z + dz| <= |2z| + |dz|) and |dc|, each
    /// rounded to about u of itself; p^2 (|f'|^2 + |dz|^2) |dz|^2 + |dc|^2 bounds their squares'
    /// sum with a margin.
    /// `next` = |f'(z)|^2 and `inverseDC` = 1 / |dc|^2 as pairs.
    @inlinable @inline(__always)
    static func stepRounding(
        _ before: Complex<D>, next: (Double, Int), inverseDC: (Double, Int), power: Int
    ) -> (Double, Int) {
        let p2 = Double(power * power) * inverseDC.0
        // In Double where |dz|^2 and |f'|^2 lie well inside its range (no exponents to align).
        if let s = D.plainLengthSquared(before.re, before.im), next.1 == 0 {
            return ((next.0 + s) * s * p2, inverseDC.1)
        }
        let d = before.floatExpLengthSquared
        let f = FloatExp(normalizing: next.0, next.1)
        let sum = Self.pairSum((f.significand, f.exponent), (d.significand, d.exponent))
        return (sum.0 * d.significand * p2, sum.1 &+ d.exponent &+ inverseDC.1)
    }

    /// A linear step's rounding and truncation, in units of (u |dc|)^2: its result
    /// a + b (a = A dz or zc u, b = B dc or cc dc) rounded to about u of |a| + |b|, and its
    /// truncation 2 `PrecisionEstimate.blaSafety` eps sqrt(load) of that, eps the table's epsilon
    /// and `load` scaled to it, plus the coefficients' own rounding over `length` iterations
    /// (`coefficientRounding`). `a2` = |a|^2, `b2` = |B|^2 or |cc|^2.
    @inlinable @inline(__always)
    static func linearRounding(
        a2: (Double, Int), b2: (Double, Int), length: Int, load: Double, epsilon: Double, inverseDC: (Double, Int)
    ) -> (Double, Int) {
        let w = 2 * PrecisionEstimate.blaSafety * epsilon * FloatExp.powerOfTwo(D.significandBits)
        let k = 2 + coefficientRounding * Double(length) + w * w * (load.isFinite ? load : 1)
        let t = Self.pairSum((a2.0 * inverseDC.0, a2.1 &+ inverseDC.1), b2)
        return (t.0 * k, t.1)
    }

    /// The variance of a linear step's coefficients' own rounding, per iteration they span, in
    /// units of u^2 relative to the step's result, where they were built in the delta type
    /// itself: a BLA step's A is a product of one rounded factor an iteration, each merge rounds
    /// it again, and B likewise. Without it a BLA pass at 2^-53 left a pixel of e318 1.2e-6 off
    /// unflagged; at 1 and 2 one 1.03e-7 off (Documentation/Perturbation.md, "Precision").
    @inlinable static var coefficientRounding: Double { 4 }

    /// The iterations whose rounding an LA entry's coefficients carry in D's unit: none where
    /// they were built in the wide type and rounded to D once (`ApproximationTables`), all
    /// where D is its own wide type (the 106-bit passes).
    @inlinable static func laCoefficientSpan(_ length: Int) -> Int {
        D.Wide.significandBits == D.significandBits ? length : 0
    }

    /// With `B.variance`, after a BLA step from `before` (the variance already times |A|^2):
    /// the step's rounding and truncation.
    @usableFromInline @inline(never)
    static func blaError(
        _ v: (Double, Int), step: BLAStep<D>, length: Int, before: Complex<D>, load: Double, epsilon: Double,
        inverseDC: (Double, Int)
    ) -> (Double, Int) {
        let d = before.floatExpLengthSquared, b = step.b.floatExpLengthSquared
        let (m, e) = linearRounding(
            a2: (step.stretchSignificand * d.significand, step.stretchExponent &+ d.exponent),
            b2: (b.significand, b.exponent), length: length, load: load, epsilon: epsilon, inverseDC: inverseDC)
        var v = v
        addVariance(&v, m, e)
        return normalized(v)
    }

    /// With `B.variance`, after an LA entry from `before` through the exact step's `u` (the
    /// variance already times |f'(z)|^2 |zc|^2): the exact step's rounding stretched by |zc|^2,
    /// then the linear part's rounding and truncation.
    @usableFromInline @inline(never)
    static func laError(
        _ v: (Double, Int), entry: LAEntry<D>, before: Complex<D>, u: Complex<D>, load: Double,
        next: (Double, Int), epsilon: Double, inverseDC: (Double, Int), power: Int
    ) -> (Double, Int) {
        var v = v
        // With a plain step's 1, stretched by |zc|^2 too.
        let (sm, se) = stepRounding(before, next: next, inverseDC: inverseDC, power: power)
        addVariance(&v, sm * entry.stretchSignificand, se &+ entry.stretchExponent)
        addVariance(&v, entry.stretchSignificand, entry.stretchExponent)
        let u2 = u.floatExpLengthSquared
        let (m, e) = linearRounding(
            a2: (entry.stretchSignificand * u2.significand, entry.stretchExponent &+ u2.exponent),
            b2: (entry.ccSignificand * entry.ccSignificand, 2 &* entry.ccExponent),
            length: laCoefficientSpan(entry.length), load: load, epsilon: epsilon, inverseDC: inverseDC)
        addVariance(&v, m, e)
        return normalized(v)
    }

    /// Continues on `orbit` (the critical orbit, Z(0) = 0) from dz = z.
    @inlinable @inline(__always)
    mutating func rebase(to z: Complex<D>, orbit: C, table: BLAView<D>) {
        dz = z
        m = 0
        self.orbit = orbit
        self.table = table
        last = orbit.last
    }
}
