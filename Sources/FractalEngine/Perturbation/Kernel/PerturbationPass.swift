import ArbitraryPrecision
import FractalNumerics

/// One perturbation pass, configured: the formula, the orbit a pixel starts on and the one it
/// continues on after rebasing, their approximation tables, the pixels' deltas, the iteration
/// limit, the glitch mode and tolerance, the pixels it covers and where its side outputs go.
///
/// Every form of the pass is built from this one value: the scalar kernel the CPU's tiles run
/// (`PerturbationKernel`) and the launch a GPU backend runs (`deviceForm`). Each form runs a
/// pixel's steps its own way and hands how they ended (`PixelOutcome`) to `finish`, the one
/// code that turns an outcome into the pixel's field entry and flags, so that the forms differ
/// only in how they step. (A tracking pass's extras, the derivative and the trap, come from the
/// scalar kernel's tracker, the one form that tracks: it writes them before `finish`.)
@usableFromInline
struct PerturbationPass<
    F: PerturbationFormula, D: PerturbationDelta, T: PixelTracker, B: StretchBound, O: KernelOrbit<D>
>: Sendable {
    @usableFromInline let formula: F
    @usableFromInline let orbit: O
    /// The orbit a pixel continues on after rebasing: the orbit of the critical point 0
    /// (Z(0) = 0). The same as `orbit` for Mandelbrot and Multibrot; for Julia, whose
    /// reference starts at a pixel, the orbit of 0 under z^2 + c.
    @usableFromInline let rebaseOrbit: O
    /// The approximation tables of `orbit` and `rebaseOrbit` (nil: plain perturbation).
    @usableFromInline let bla: ApproximationTable<D>?
    @usableFromInline let rebaseBLA: ApproximationTable<D>?
    @usableFromInline let grid: DeltaGrid<D>
    @usableFromInline let maxIterations: Int
    @usableFromInline let mode: GlitchMode
    /// Pauldelbrot's g.
    @usableFromInline let tolerance: Double
    /// When set, the pass's items index this list of pixels (a re-render of some pixels).
    @usableFromInline let subset: [Int]?
    @usableFromInline let flags: PixelFlags
    /// The reference orbit's MPFR precision: its rounding is part of the precision estimate.
    @usableFromInline let referenceBits: Int
    /// The first table's epsilon (0 without one): the precision estimate's truncation term, for
    /// every step of the pass (after a rebase too).
    @usableFromInline let epsilon: Double
    /// For the tracker: the trap, and log2 of the pixel spacing (distance estimates in pixels).
    @usableFromInline var trap: OrbitTrap? = nil
    @usableFromInline var log2Spacing: Double = 0
    /// Against a nucleus reference of one period: the proof that stops interior pixels before
    /// their first step (`InteriorTest`).
    @usableFromInline var interior: InteriorTest<D>? = nil

    init(
        formula: F, orbit: O, rebaseOrbit: O, bla: ApproximationTable<D>?, rebaseBLA: ApproximationTable<D>?,
        grid: DeltaGrid<D>, maxIterations: Int, mode: GlitchMode, tolerance: Double, subset: [Int]?,
        flags: PixelFlags, referenceBits: Int
    ) {
        self.formula = formula
        self.orbit = orbit
        self.rebaseOrbit = rebaseOrbit
        self.bla = bla
        self.rebaseBLA = rebaseBLA
        self.grid = grid
        self.maxIterations = maxIterations
        self.mode = mode
        self.tolerance = tolerance
        self.subset = subset
        self.flags = flags
        self.referenceBits = referenceBits
        epsilon = bla?.epsilon ?? 0
    }

    /// The pixel of item `j` of the pass.
    @inlinable @inline(__always)
    func pixel(_ j: Int) -> Int { subset?[j] ?? j }

    /// Writes pixel `i`, which the interior proof settled before its first step: bounded, no
    /// steps, counted as proven interior.
    @inlinable
    func finishInterior(_ i: Int, writer: FieldWriter) {
        var work = PixelWork()
        work.provenInterior = true
        finish(i, PixelOutcome(end: .bounded, work: work), dc: .zero, writer: writer)
    }

    /// Writes pixel `i`'s field entry and flags from how its steps ended; `dc` is its delta
    /// (`grid.delta(i)`). The one finisher of every form of the pass.
    @inlinable @inline(__always)
    func finish(_ i: Int, _ outcome: PixelOutcome, dc: Complex<D>, writer: FieldWriter) {
        var result = PixelResult.bounded, atRisk = false
        switch outcome.end {
        case .escaped:
            // The variance holds every step's error already: one term, no approximation load.
            (result, atRisk) = escaped(
                n2: outcome.n2, n: outcome.n, r2: outcome.r2, dc: dc, errorScale: outcome.errorScale,
                errorScaleExponent: outcome.errorScaleExponent, blaLoad: B.variance ? 0 : outcome.blaLoad,
                epsilon: epsilon, estimateSteps: B.variance ? 1 : outcome.n)
        case .bounded: break
        case .limit: result = PixelResult(n2: UInt32(outcome.n2), nBig: 0, smooth: .nan)
        }
        writer.write(i, result)
        flags.record(i, ratio: outcome.ratio, atRisk: atRisk, work: outcome.work)
    }

    /// An escaped pixel's result and whether its smooth value may miss 1e-7 (the logarithms
    /// stay on the CPU, whichever form ran the steps).
    @inlinable @inline(__always)
    func escaped(
        n2: Int, n: Int, r2: Double, dc: Complex<D>, errorScale: Double, errorScaleExponent: Int,
        blaLoad: Double, epsilon: Double, estimateSteps: Int
    ) -> (PixelResult, Bool) {
        let result = PixelResult(
            n2: UInt32(n2), nBig: UInt32(n), smooth: Escape.smooth(nBig: n, lengthSquared: r2, power: formula.power))
        let exact = PrecisionEstimate.smoothHolds(
            n: estimateSteps, lengthSquared: r2, power: formula.power, dc: dc, errorScale: errorScale,
            errorScaleExponent: errorScaleExponent, deltaBits: D.significandBits, referenceBits: referenceBits,
            blaLoad: blaLoad, blaEpsilon: epsilon)
        return (result, !exact)
    }
}

/// How a pixel's steps ended, as every form of a pass hands it to `PerturbationPass.finish`.
@usableFromInline
struct PixelOutcome {
    @usableFromInline
    enum End {
        /// |z|^2 passed the big escape radius at iteration `n` (the small one at `n2`), with
        /// |z|^2 = `r2` there.
        case escaped
        /// Stopped inside: proven interior, or (detect mode) glitched at `ratio`, or at the
        /// end of the reference (`ratio` 0).
        case bounded
        /// Reached the iteration limit (`n2`: where it passed the small radius, or 0).
        case limit
    }

    @usableFromInline var end: End
    @usableFromInline var n2: Int
    @usableFromInline var n: Int
    @usableFromInline var r2: Double
    /// The precision estimate's running value, errorScale 2^errorScaleExponent (`PixelRun`).
    @usableFromInline var errorScale: Double
    @usableFromInline var errorScaleExponent: Int
    @usableFromInline var blaLoad: Double
    /// In detect mode where the pixel glitched: |z|^2 / |Z|^2 (NaN: it did not).
    @usableFromInline var ratio: Double
    @usableFromInline var work: PixelWork

    @inlinable
    init(
        end: End, n2: Int = 0, n: Int = 0, r2: Double = 0, errorScale: Double = 0, errorScaleExponent: Int = 0,
        blaLoad: Double = 0, ratio: Double = .nan, work: PixelWork = PixelWork()
    ) {
        self.end = end
        self.n2 = n2
        self.n = n
        self.r2 = r2
        self.errorScale = errorScale
        self.errorScaleExponent = errorScaleExponent
        self.blaLoad = blaLoad
        self.ratio = ratio
        self.work = work
    }
}
