import ArbitraryPrecision
import FractalNumerics

/// How perturbation handles pixels whose delta stops being small against the reference.
public enum GlitchMode: String, Sendable, CaseIterable {
    /// Zhuoran's rebasing (2021): when |Z(m) + dz| < |dz|, or at the end of the reference,
    /// continue from the start of the critical orbit (Z(0) = 0) with dz = z. One reference
    /// serves all (two for Julia: its reference pixel's orbit and the critical orbit).
    case rebase
    /// Pauldelbrot's test |Z(m) + dz|^2 < g |Z(m)|^2 flags a pixel as glitched; glitched
    /// pixels are rendered again from new references placed among them.
    case detect
}

/// Per-pixel side output of a perturbation pass: in detect mode the glitch flag and the ratio
/// |z|^2 / |Z|^2 at detection; with the precision check, whether the pixel's smooth value may
/// be off by more than 1e-7 (`PrecisionEstimate`).
///
/// Unchecked Sendable: raw pointers into arrays the pass owns and keeps alive until its
/// threads have returned; each thread writes only its own pixels' entries.
@usableFromInline
struct PixelFlags: @unchecked Sendable {
    @usableFromInline let glitched: UnsafeMutablePointer<UInt8>?
    @usableFromInline let ratio: UnsafeMutablePointer<Double>?
    @usableFromInline let atRisk: UnsafeMutablePointer<UInt8>?
    /// Per pixel: loop steps taken (BLA and plain), and of those, BLA steps.
    @usableFromInline let steps: UnsafeMutablePointer<UInt32>?
    @usableFromInline let approximationSteps: UnsafeMutablePointer<UInt32>?
    /// Per pixel: 1 where the pixel was proven interior (`InteriorTest`).
    @usableFromInline let interior: UnsafeMutablePointer<UInt8>?
    /// Where a tracking kernel writes the pixel's extras.
    @usableFromInline let extras: ExtrasWriter?

    @usableFromInline init(
        glitched: UnsafeMutablePointer<UInt8>?, ratio: UnsafeMutablePointer<Double>?,
        atRisk: UnsafeMutablePointer<UInt8>?,
        steps: UnsafeMutablePointer<UInt32>? = nil, approximationSteps: UnsafeMutablePointer<UInt32>? = nil,
        interior: UnsafeMutablePointer<UInt8>? = nil, extras: ExtrasWriter? = nil
    ) {
        self.interior = interior
        self.glitched = glitched
        self.ratio = ratio
        self.atRisk = atRisk
        self.steps = steps
        self.approximationSteps = approximationSteps
        self.extras = extras
    }

    /// Pixel i: glitched at `ratio` (NaN: it did not), and whether it is at risk.
    @inlinable @inline(__always)
    func record(_ i: Int, ratio r: Double, atRisk s: Bool, work: PixelWork) {
        glitched?[i] = r.isNaN ? 0 : 1
        ratio?[i] = r
        atRisk?[i] = s ? 1 : 0
        steps?[i] &+= UInt32(truncatingIfNeeded: work.steps)
        approximationSteps?[i] &+= UInt32(truncatingIfNeeded: work.approximationSteps)
        if work.provenInterior { interior?[i] = 1 }
    }
}

/// The work one pixel took: loop steps (each a BLA step or a plain perturbation step).
@usableFromInline
struct PixelWork {
    @usableFromInline var steps = 0
    @usableFromInline var approximationSteps = 0
    @usableFromInline var provenInterior = false
    @inlinable init() {}
}

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

/// Pixel deltas from the reference point C: dc = pixel point - C. Without rotation each
/// column's real part and each row's imaginary part are computed once, exactly in MPFR from
/// the contract's pixel point (the oracle's rounding order), then rounded to D: the pixel
/// grid is as exact as D can hold it, relative to |dc|.
@usableFromInline
struct DeltaGrid<D: PerturbationDelta>: Sendable {
    @usableFromInline let width: Int
    @usableFromInline let columns: [D]
    @usableFromInline let rows: [D]
    @usableFromInline let rotated: Bool
    @usableFromInline let viewport: Viewport
    @usableFromInline let spacing: D
    @usableFromInline let offset: Complex<D>

    init(viewport: Viewport, reference: BigComplex) {
        self.viewport = viewport
        width = viewport.width
        spacing = D(rounding: viewport.spacing)
        offset = Complex(D(rounding: viewport.center.re - reference.re), D(rounding: viewport.center.im - reference.im))
        rotated = !viewport.isSeparable
        if rotated {
            columns = []
            rows = []
        } else {
            columns = (0..<viewport.width).map { x in D(rounding: viewport.exactPoint(x: x, y: 0).re - reference.re) }
            rows = (0..<viewport.height).map { y in D(rounding: viewport.exactPoint(x: 0, y: y).im - reference.im) }
        }
    }

    /// An upper bound of |dc| over `subset` (nil: the whole image, whose extremes are its
    /// corners, or on an exponential map's rows the outermost row), with a margin for rounding.
    func maxMagnitude(over subset: [Int]?, height: Int) -> D {
        let whole =
            viewport.projection == .flat ? [0, width - 1, (height - 1) * width, height * width - 1] : Array(0..<width)
        let pixels = subset ?? whole
        var best = D.zero
        for i in pixels {
            let d = delta(i)
            let r = D.complexMagnitude(d.re, d.im)
            if best < r { best = r }
        }
        return best.scaled(by: 1 + 0x1p-20)
    }

    @inlinable @inline(__always)
    func delta(_ i: Int) -> Complex<D> {
        let y = i / width, x = i - y * width
        if !rotated { return Complex(columns[x], rows[y]) }
        let (u, v) = viewport.offsetUnits(x: x, y: y)
        let (ru, rv) = viewport.rotated(u, v)
        return Complex(spacing.scaled(by: ru) + offset.re, spacing.scaled(by: rv) + offset.im)
    }
}

/// A perturbation kernel: pixels iterated against an orbit and, after rebasing, the critical
/// orbit. The tile loop is shared; each kernel supplies the per-pixel iteration.
@usableFromInline
protocol PerturbationPixelKernel: TileKernel {
    associatedtype Scalar: PerturbationDelta
    associatedtype Orbit: KernelOrbit where Orbit.Scalar == Scalar
    var orbit: Orbit { get }
    var rebaseOrbit: Orbit { get }
    /// BLA tables for `orbit` and `rebaseOrbit` (nil: plain perturbation).
    var bla: ApproximationTable<Scalar>? { get }
    var rebaseBLA: ApproximationTable<Scalar>? { get }
    /// When set, tile ranges index this list of pixels (a re-render of some pixels).
    var subset: [Int]? { get }
    /// Whether pixel i is proven interior before its first step (`InteriorTest`).
    func provenInterior(_ i: Int) -> Bool
    var flags: PixelFlags { get }
    /// Pixel i's result, in detect mode the ratio |z|^2 / |Z|^2 where it glitched (NaN when
    /// it did not), and whether its smooth value may miss 1e-7.
    func iterate(
        pixel i: Int, orbit: Orbit.Cursor, rebaseOrbit: Orbit.Cursor,
        bla: BLAView<Scalar>, rebaseBLA: BLAView<Scalar>, work: inout PixelWork
    ) -> (PixelResult, Double, Bool)
}

extension PerturbationPixelKernel {
    @inlinable
    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        // Every buffer is taken once per tile.
        let none: [Int] = [0]
        orbit.withCursor { orbit in
            rebaseOrbit.withCursor { rebaseOrbit in
                none.withUnsafeBufferPointer { none in
                    let empty = BLAView<Scalar>.none(none.baseAddress!)
                    withTables(empty) { blaView, rebaseView in
                        for j in range {
                            let i = subset?[j] ?? j
                            var work = PixelWork()
                            if provenInterior(i) {
                                work.provenInterior = true
                                writer.write(i, .bounded)
                                flags.record(i, ratio: .nan, atRisk: false, work: work)
                                continue
                            }
                            let (result, ratio, atRisk) = iterate(
                                pixel: i, orbit: orbit, rebaseOrbit: rebaseOrbit,
                                bla: blaView, rebaseBLA: rebaseView, work: &work)
                            writer.write(i, result)
                            flags.record(i, ratio: ratio, atRisk: atRisk, work: work)
                        }
                    }
                }
            }
        }
    }

    /// Views of both BLA tables (or `empty`).
    @inlinable
    func withTables<R>(_ empty: BLAView<Scalar>, _ body: (BLAView<Scalar>, BLAView<Scalar>) -> R) -> R {
        func withOne(_ table: ApproximationTable<Scalar>?, _ inner: (BLAView<Scalar>) -> R) -> R {
            if let table { return table.withView(inner) }
            return inner(empty)
        }
        return withOne(bla) { a in withOne(rebaseBLA) { b in body(a, b) } }
    }
}

/// Perturbation of pixels against one reference orbit, generic over formula, delta type and
/// what it tracks besides z (`NoTracking`, or the derivative and trap of `ExtrasTracking`),
/// taking the longest valid BLA step where a table is given.
@usableFromInline
struct PerturbationKernel<
    F: PerturbationFormula, D: PerturbationDelta, T: PixelTracker, B: StretchBound, O: KernelOrbit<D>
>: PerturbationPixelKernel {
    @usableFromInline let formula: F
    @usableFromInline let orbit: O
    /// The orbit a pixel continues on after rebasing: the orbit of the critical point 0
    /// (Z(0) = 0). The same as `orbit` for Mandelbrot and Multibrot; for Julia, whose
    /// reference starts at a pixel, the orbit of 0 under z^2 + c.
    @usableFromInline let rebaseOrbit: O
    @usableFromInline let bla: ApproximationTable<D>?
    @usableFromInline let rebaseBLA: ApproximationTable<D>?
    @usableFromInline let grid: DeltaGrid<D>
    @usableFromInline let maxIterations: Int
    @usableFromInline let mode: GlitchMode
    /// Pauldelbrot's g.
    @usableFromInline let tolerance: Double
    @usableFromInline let subset: [Int]?
    @usableFromInline let flags: PixelFlags
    /// The reference orbit's MPFR precision: its rounding is part of the precision estimate.
    @usableFromInline let referenceBits: Int
    /// For the tracker: the trap, and log2 of the pixel spacing (distance estimates in pixels).
    @usableFromInline var trap: OrbitTrap? = nil
    @usableFromInline var log2Spacing: Double = 0
    /// Against a nucleus reference of one period: the proof that stops interior pixels before
    /// their first step (`InteriorTest`).
    @usableFromInline var interior: InteriorTest<D>? = nil

    /// Out of line, and in the tile loop rather than in `iterate`: inlined there, the check made
    /// the step loop of flake 1.7e-157 1.7 times slower (Documentation/Benchmarks.md).
    @usableFromInline @inline(never)
    func provenInterior(_ i: Int) -> Bool {
        guard !T.isActive, let interior else { return false }
        return interior.proves(dc: grid.delta(i))
    }

    @inlinable @inline(__always)
    func iterate(
        pixel i: Int, orbit first: O.Cursor, rebaseOrbit: O.Cursor, bla firstBLA: BLAView<D>, rebaseBLA: BLAView<D>,
        work: inout PixelWork
    ) -> (PixelResult, Double, Bool) {
        var run = start(i, orbit: first, table: firstBLA)
        while !step(&run, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseBLA) {}
        work = run.work
        if T.isActive {
            flags.extras?.write(i, run.tracker.finish(escaped: run.result.escaped, log2Spacing: log2Spacing))
        }
        return (run.result, run.ratio, run.atRisk)
    }

    /// An escaped pixel's result and whether its smooth value may miss 1e-7: shared with
    /// the GPU backends, which hand back these inputs (the logarithms stay on the CPU).
    @inlinable @inline(__always)
    func escaped(
        n2: Int, n: Int, r2: Double, dc: Complex<D>, errorScale: Double, errorScaleExponent: Int,
        blaLoad: Double, epsilon: Double, estimateSteps: Int? = nil
    ) -> (PixelResult, Bool) {
        let result = PixelResult(
            n2: UInt32(n2), nBig: UInt32(n), smooth: Escape.smooth(nBig: n, lengthSquared: r2, power: formula.power))
        let exact = PrecisionEstimate.smoothHolds(
            n: estimateSteps ?? n, lengthSquared: r2, power: formula.power, dc: dc, errorScale: errorScale,
            errorScaleExponent: errorScaleExponent, deltaBits: D.significandBits, referenceBits: referenceBits,
            blaLoad: blaLoad, blaEpsilon: epsilon)
        return (result, !exact)
    }

    /// Pixel i before its first step.
    @inlinable @inline(__always)
    func start(_ i: Int, orbit: O.Cursor, table: BLAView<D>) -> PixelRun<D, T, B, O.Cursor> {
        let dc = grid.delta(i)
        let dz = formula.addsDC ? Complex<D>.zero : dc
        var cursor = orbit
        let z0 = cursor.z(0) + dz
        let x = z0.re.leadingDouble, y = z0.im.leadingDouble
        var r = PixelRun<D, T, B, O.Cursor>(
            pixel: i, dc: dc, dcStep: formula.addsDC ? dc : .zero, orbit: cursor, table: table,
            dz: dz, epsilon: table.epsilon, tracker: T(julia: !formula.addsDC, trap: trap, x: x, y: y))
        if !formula.addsDC { r.nextStretch = formula.stretchSquared(x * x + y * y) }
        // The error variance starts at 0 (the product from the first step's 1). Set here, not
        // in PixelRun's init: an errorScale set there by a condition made every kernel 1.7 times
        // slower (flake 1.7e-157; Documentation/Benchmarks.md).
        if B.variance { r.errorScale = 0 }
        return r
    }

    /// One step of `r`: the longest valid BLA step, else one perturbation step, then the
    /// escape, rebasing and glitch tests. True when the pixel is finished (its result set).
    @inlinable @inline(__always)
    func step(_ r: inout PixelRun<D, T, B, O.Cursor>, rebaseOrbit: O.Cursor, rebaseBLA: BLAView<D>) -> Bool {
        guard r.n < maxIterations else {
            r.result = PixelResult(n2: UInt32(r.n2), nBig: 0, smooth: .nan)
            return true
        }
        let blaAllowed = !T.isActive || T.tracksBLA
        // LA (`LATable`): at an entry's start the pixel takes the exact step there and then
        // the longest entry that holds; elsewhere BLA may take it at most to the next start.
        var reach = Int.max
        if blaAllowed && !r.table.la.isEmpty {
            let chain = r.table.la.chain(at: r.m)
            if chain >= 0 {
                linearStep(&r, chain: chain)
                return finishStep(&r, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseBLA)
            }
            reach = -chain
        }
        if blaAllowed, let (index, length) = r.table.longestStep(at: r.m, dz: r.dz, maxLength: reach),
            r.n + length <= maxIterations
        {
            let step = r.table[index]
            if T.isActive {
                r.tracker.bla(
                    a: Complex(step.a.re.floatExpValue, step.a.im.floatExpValue),
                    b: Complex(step.b.re.floatExpValue, step.b.im.floatExpValue))
            }
            let load = (r.dz.lengthSquared * step.inverseRadiusSquared).leadingDouble
            if !B.variance { r.addLoad(load) }
            let before = r.dz
            r.dz = step.apply(r.dz, r.dcStep)
            r.m += length
            r.n += length
            r.work.approximationSteps += 1
            // dz/dc (and the error) is stretched by |A| over the step (within eps).
            r.errorScale *= step.stretchSignificand
            r.errorScaleExponent += step.stretchExponent
            if B.variance {
                (r.errorScale, r.errorScaleExponent) = PixelRun<D, T, B, O.Cursor>.blaError(
                    (r.errorScale, r.errorScaleExponent), step: step, length: length, before: before, load: load,
                    epsilon: r.epsilon, inverseDC: (r.inverseDCSignificand, r.inverseDCExponent))
            }
        } else {
            if T.isActive { r.tracker.plain(power: formula.power) }
            r.takePlainStep(to: formula.step(r.orbit.z(r.m), r.dz, r.dcStep), power: formula.power)
        }
        return finishStep(&r, rebaseOrbit: rebaseOrbit, rebaseBLA: rebaseBLA)
    }

    /// The step at an LA chain's start: the exact step u without dc, then the longest entry of
    /// the chain that holds for it, or (none holding) the plain step u + dc.
    @inlinable @inline(__always)
    func linearStep(_ r: inout PixelRun<D, T, B, O.Cursor>, chain: Int) {
        let u = formula.step(r.orbit.z(r.m), r.dz, Complex<D>.zero)
        if T.isActive { r.tracker.plain(power: formula.power) }
        guard let index = r.table.la.longest(chain: chain, u: u, dc: r.dcStep, maxLength: maxIterations - r.n)
        else {
            r.takePlainStep(to: u + r.dcStep, power: formula.power)
            return
        }
        let entry = r.table.la[index]
        if T.isActive {
            let b = formula.addsDC ? entry.cc - entry.zc : Complex<D>.zero
            r.tracker.bla(
                a: Complex(entry.zc.re.floatExpValue, entry.zc.im.floatExpValue),
                b: Complex(b.re.floatExpValue, b.im.floatExpValue))
        }
        let load = entry.load(u, r.dcStep) * r.table.laLoadScale
        if !B.variance { r.addLoad(load) }
        let before = r.dz
        r.dz = entry.apply(u, r.dcStep)
        r.m += entry.length
        r.n += entry.length
        r.work.approximationSteps += 1
        // The exact step stretches dz/dc (and the error) by |f'(z)|, the linear part by |zc|.
        r.errorScale *= r.nextStretch * entry.stretchSignificand
        r.errorScaleExponent += entry.stretchExponent
        if B.variance {
            r.errorScaleExponent &+= r.nextStretchExponent
            (r.errorScale, r.errorScaleExponent) = PixelRun<D, T, B, O.Cursor>.laError(
                (r.errorScale, r.errorScaleExponent), entry: entry, before: before, u: u, load: load,
                next: (r.nextStretch, r.nextStretchExponent), epsilon: r.epsilon,
                inverseDC: (r.inverseDCSignificand, r.inverseDCExponent), power: formula.power)
        }
    }

    /// With `B.variance`: near a deep minibrot |z|^2 underflows in Double and the product
    /// with it would drop dz/dc's growth, so there |f'(z)|^2 with its own exponent.
    /// Takes and returns values: a call with the pixel's state `inout` would keep that state in
    /// memory across the whole step loop.
    @usableFromInline @inline(never)
    func tinyStretch(_ z: Complex<D>) -> (Double, Int) {
        let m2 = z.floatExpLengthSquared
        var t = FloatExp(Double(formula.power * formula.power))
        for _ in 1..<formula.power { t = t * m2 }
        return t.parts
    }

    /// After a step: the escape, rebasing and glitch tests. True when the pixel is finished.
    @inlinable @inline(__always)
    func finishStep(_ r: inout PixelRun<D, T, B, O.Cursor>, rebaseOrbit: O.Cursor, rebaseBLA: BLAView<D>)
        -> Bool
    {
        r.work.steps += 1
        let Z = r.orbit.z(r.m)
        let z = Z + r.dz
        let x = z.re.leadingDouble, y = z.im.leadingDouble
        let r2 = x * x + y * y
        if T.isActive { r.tracker.observe(x: x, y: y) }
        if r2 > Escape.radiusSquared2 {
            if r.n2 == 0 { r.n2 = r.n }
            if r2 > Escape.radiusSquaredBig {
                // The variance holds every step's error already: one term, no BLA load.
                (r.result, r.atRisk) = escaped(
                    n2: r.n2, n: r.n, r2: r2, dc: r.dc, errorScale: r.errorScale,
                    errorScaleExponent: r.errorScaleExponent, blaLoad: B.variance ? 0 : r.blaLoad, epsilon: r.epsilon,
                    estimateSteps: B.variance ? 1 : r.n)
                return true
            }
        }
        r.nextStretch = formula.stretchSquared(r2)
        if B.variance {
            if r2 < 0x1p-900 {
                (r.nextStretch, r.nextStretchExponent) = tinyStretch(z)
            } else {
                r.nextStretchExponent = 0
            }
        }
        if r.errorScale > 0x1p600 {
            r.errorScale *= 0x1p-600
            r.errorScaleExponent += 600
        } else if r.errorScale < 0x1p-600 {
            r.errorScale *= 0x1p600
            r.errorScaleExponent -= 600
        }
        switch mode {
        case .rebase:
            if r.m == r.last || z.lengthSquared < r.dz.lengthSquared {
                // Continue on the critical orbit, whose Z(0) = 0: dz = z.
                r.rebase(to: z, orbit: rebaseOrbit, table: rebaseBLA)
            }
        case .detect:
            let zx = Z.re.leadingDouble, zy = Z.im.leadingDouble
            let big = zx * zx + zy * zy
            if r2 < tolerance * big {
                r.result = .bounded
                r.ratio = r2 / big
                return true
            }
            if r.m == r.last && r.n < maxIterations {
                // Past |z| = 2 the orbit only grows: finishing from the reference's start
                // (dz = z - Z(0)) is exact enough; inside, an ended reference is a glitch.
                guard r2 > Escape.radiusSquared2 else {
                    r.result = .bounded
                    r.ratio = 0
                    return true
                }
                r.rebase(to: z, orbit: rebaseOrbit, table: rebaseBLA)
            }
        }
        return false
    }
}

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
    @usableFromInline let epsilon: Double
    @usableFromInline var work = PixelWork()
    /// Set when the pixel is finished: its result, the glitch ratio (NaN: none), whether its
    /// smooth value may miss 1e-7.
    @usableFromInline var result = PixelResult.bounded
    @usableFromInline var ratio = Double.nan
    @usableFromInline var atRisk = false
    /// What the kernel tracks besides z.
    @usableFromInline var tracker: T

    @inlinable @inline(__always)
    init(
        pixel: Int, dc: Complex<D>, dcStep: Complex<D>, orbit: C, table: BLAView<D>,
        dz: Complex<D>, epsilon: Double, tracker: T
    ) {
        self.tracker = tracker
        self.pixel = pixel
        self.dc = dc
        self.dcStep = dcStep
        self.orbit = orbit
        self.table = table
        self.last = orbit.last
        self.dz = dz
        self.epsilon = epsilon
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

/// How the kernels judge a pixel's precision, chosen per pass at the top (a type, not a flag:
/// as a stored flag its branches made every kernel 1.7 times slower).
@usableFromInline
protocol StretchBound: SendableMetatype {
    /// True: track the error variance forward (`ErrorVariance`); false: the product of
    /// |f'(z)| (`ProductStretch`).
    static var variance: Bool { get }
}

/// errorScale 2^errorScaleExponent = |dz/dc|^2 as the product of |f'(z)|^2 (|A|^2 a BLA step, |zc|^2 an
/// LA entry), and the estimate sqrt(n) u |dc| |dz/dc| plus the BLA load (`PrecisionEstimate`).
@usableFromInline
enum ProductStretch: StretchBound {
    @inlinable static var variance: Bool { false }
}

/// errorScale 2^errorScaleExponent = V, the variance of z's error in units of (u |dc|)^2 (u the
/// delta type's unit roundoff), tracked forward: each step multiplies it by |f'(z)|^2 (|A|^2,
/// |zc|^2) and adds its own rounding and truncation, squared (`PixelRun.stepRounding`,
/// `linearRounding`), so the estimate is u |dc| sqrt(V) with no assumption on how dz depends
/// on dc. The CPU's default (`EstimateMethod.variance`), and every pass against a wrapped
/// nucleus reference: where a pixel's dz is reset to z (every rebase, every wrap) the product
/// of |f'(z)| misses errors (tlaloc 1e-213: pixels 0.064 off unflagged; a fs_deepmini_e433
/// pixel 7e-3 off under-rated by 2^1300), and a bound on |dz/dc| with its additive terms
/// flagged 30% of deepmini (Documentation/Perturbation.md). |f'(z)|^2 carries its own exponent
/// where |z|^2 underflows.
@usableFromInline
enum ErrorVariance: StretchBound {
    @inlinable static var variance: Bool { true }
}

/// How far a perturbation result's smooth value can be trusted.
///
/// With `ErrorVariance` (the default) the kernels pass the error's variance and `n` = 1;
/// with `ProductStretch` (`--estimate product`), the model below.
///
/// Each step rounds dz to the delta type's precision u, an error equivalent to moving the
/// pixel by about u |dc|; over n steps (adding up like a random walk, times 4 for safety) and
/// stretched by |dz(n)/dc|, it moves ln|z(n)| and so the smooth value by
/// 4 sqrt(n) u |dc| |dz/dc| / (|z| ln|z| ln p). Pixels where that may exceed 1e-7 are
/// iterated again directly in MPFR (Documentation/Perturbation.md).
@usableFromInline package enum PrecisionEstimate {
    /// log2(1e-7).
    @usableFromInline package static let log2Tolerance = -23.253496664211536
    /// log2 of the safety factor on the estimate.
    @usableFromInline package static let safetyLog2 = 1.0
    /// An extra factor on the BLA truncation term.
    @usableFromInline package static let blaSafety = 2.0

    @inlinable
    package static func smoothHolds<D: DeltaScalar>(
        n: Int, lengthSquared r2: Double, power: Int, dc: Complex<D>,
        errorScale: Double, errorScaleExponent: Int, deltaBits: Int, referenceBits: Int = .max,
        blaLoad: Double = 0, blaEpsilon: Double = 0
    ) -> Bool {
        let log2dc =
            (dc.re.floatExpValue * dc.re.floatExpValue + dc.im.floatExpValue * dc.im.floatExpValue).log2Magnitude / 2
        let lnAbsZ = 0.5 * Math.log(r2)
        // Rounding (sqrt(n) u) plus BLA truncation (2 eps |dz| / radius per BLA step, as a
        // share of dc (`PixelRun.blaLoad`), added like the rounding errors), the BLA term
        // doubled: measured against BLA at 2^-53, the flake views need it to flag every pixel
        // off by more than 1e-7 (Documentation/Perturbation.md). The reference orbit's own
        // rounding, 2^-bits of |Z| <= 2 a step, moves every pixel alike by about 2^(1 - bits):
        // as a share of dc it is 2^(1 - bits) / |dc|, which past 106-bit deltas can be the
        // larger (a pixel near a deep minibrot of find's, 1e-103: smooth off by 0.065 with the
        // orbit at 64 bits below the spacing; Documentation/Perturbation.md).
        let referenceShare = referenceBits == .max ? 0 : Math.pow(2, Double(1 - referenceBits) - log2dc)
        let unit =
            Double(n).squareRoot() * (Math.pow(2, -Double(deltaBits)) + referenceShare)
            + blaSafety * 2 * blaEpsilon * blaLoad.squareRoot()
        let log2Error =
            safetyLog2 + Math.log2(unit) + log2dc
            + 0.5 * (Math.log2(errorScale) + Double(errorScaleExponent))
            - (lnAbsZ / 0.6931471805599453 + Math.log2(lnAbsZ * Math.log(Double(power))))
        return log2Error <= log2Tolerance
    }

    /// The lanes' rounding check (`RoundingCheck`): whether a Double pixel's smooth value holds
    /// to 1e-7, from |z|^2 where it ended (escaped, or 4) and the error variance e2 * 2^exponent,
    /// u sqrt(e2) being the error of z. The GPU's direct pass finishes its pixels with it too.
    @inlinable
    static func roundingCheckHolds(lengthSquared r2: Double, e2: Double, exponent: Int) -> Bool {
        smoothHolds(
            n: 1, lengthSquared: r2, power: 2, dc: Complex(1.0, 0), errorScale: e2, errorScaleExponent: exponent,
            deltaBits: 53)
    }
}
