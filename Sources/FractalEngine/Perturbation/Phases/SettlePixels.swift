import ArbitraryPrecision
import FractalNumerics

/// Phase 5: the pixels whose smooth value the deltas may not hold to 1e-7 (`PrecisionEstimate`),
/// rendered again until settled, each step only for those still at risk:
///   0. after a coarse first pass (`PerturbationSettings.coarseFirstPass`), the tables at the
///      setting's epsilon, same deltas;
///   1. BLA at epsilon 2^-53 (its truncation may be what puts them at risk), same deltas;
///   2. 106-bit deltas (double-double above 2^-960, extended-range double-double below) with
///      the tables at 2^-64, where LA still takes long steps, against an orbit whose own
///      rounding lies below the deltas' (`wideOrbit`); at 2^-64 only with the error variance,
///      which counts the tables' truncation (the product estimate goes straight to 3);
///   3. the same at the tables' epsilon times 2^-53 for those still at risk;
///   4. direct MPFR at the viewport's precision, within `PerturbationSettings.mpfrBudgetSeconds`
///      (the cheapest first); those beyond it are reported as unsettled, by index.
struct SettlePixels<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let references: References
    let buffers: PassBuffers
    /// The first pass's table epsilon where coarser than the setting's.
    let first: Double?
    /// The finer orbit for the 106-bit passes, started early (`startFinerOrbit`), or nil.
    let early: FinerOrbitTask?

    struct Outcome {
        var settingEpsilonPixels = 0
        var fineApproximationPixels = 0
        var doubleDoublePixels = 0
        var fineWidePixels = 0
        /// The finer orbit's precision, where one was computed (for all the 106-bit pixels).
        var finerOrbitBits: Int? = nil
        var reiteratedPixels = 0
        /// Pixels still at risk that the MPFR budget did not cover, in index order.
        var unsettled: [Int] = []
    }

    /// BLA's epsilon for the pass over pixels at risk: Double's rounding level.
    static var fineBLAEpsilon: Double { 0x1p-53 }
    /// The first 106-bit pass's table epsilon, as the tables take it (they scale a 106-bit
    /// type's by 2^-53): 2^-64. e50 640x360, 17,209 pixels, wall s of the 106-bit passes and
    /// pixels left for the next: 2^-60 9.2 + 5.5 (2,647), 2^-64 10.0 + 2.6 (1,302), 2^-69
    /// 13.0 + 1.4 (558), 2^-93 alone 35.6 (Documentation/Benchmarks.md).
    static var coarseWideEpsilon: Double { 0x1p-11 }

    func run(into field: inout IterationField) throws -> Outcome {
        var outcome = Outcome()
        guard job.settings.settlesPixelsAtRisk else { return outcome }
        var atRisk = (job.only ?? Array(0..<buffers.count)).filter {
            buffers.isAtRisk($0) && !buffers.isGlitched($0)
        }
        func again(_ body: () throws -> Void) throws {
            if job.control?.isCancelled == true { throw RenderError.cancelled }
            try body()
            atRisk = atRisk.filter { buffers.isAtRisk($0) }
        }
        let primary = references.primary, critical = references.critical
        var trace = PhaseTrace("passes for pixels at risk, \(atRisk.count) pixels")
        defer { trace.print() }
        if !atRisk.isEmpty && first != nil {
            outcome.settingEpsilonPixels = atRisk.count
            try again {
                try pass(
                    "at risk, setting's epsilon", D.self, atRisk, orbit: primary, critical: critical,
                    epsilon: job.settings.blaEpsilon, into: &field)
            }
            trace.mark("setting's epsilon")
        }
        if !atRisk.isEmpty && job.tables.enabled && job.settings.blaEpsilon > Self.fineBLAEpsilon {
            outcome.fineApproximationPixels = atRisk.count
            try again {
                try pass(
                    "at risk, epsilon 2^-53", D.self, atRisk, orbit: primary, critical: critical,
                    epsilon: Self.fineBLAEpsilon, into: &field)
            }
            trace.mark("2^-53")
        }
        let stepSeconds = PerturbationSettings.mpfrStepSeconds(
            bits: job.viewport.precision.bits, power: job.formula.power)
        func mpfrSeconds() -> Double { Double(atRisk.count) * Double(job.maxIterations) * stepSeconds }
        if !atRisk.isEmpty && D.significandBits <= 53 {
            outcome.doubleDoublePixels = atRisk.count
            let (orbit, critical, bits) = try wideOrbit(mpfrSeconds: mpfrSeconds())
            outcome.finerOrbitBits = bits
            trace.mark("106-bit orbit")
            // The coarse tables only where the variance counts their truncation: with the
            // product estimate, e50 640x360 (BLA) then had pixels 4.8e-7 off unflagged.
            let epsilon = job.settings.blaEpsilon
            let coarse = job.tracksVariance(against: orbit) ? Swift.max(epsilon, Self.coarseWideEpsilon) : epsilon
            try again {
                try pass(
                    "at risk, 106-bit", D.Wide.self, atRisk, orbit: orbit, critical: critical, epsilon: coarse,
                    into: &field)
            }
            trace.mark("106-bit")
            if !atRisk.isEmpty && epsilon < coarse && job.tables.enabled {
                outcome.fineWidePixels = atRisk.count
                try again {
                    try pass(
                        "at risk, 106-bit fine", D.Wide.self, atRisk, orbit: orbit, critical: critical,
                        epsilon: epsilon, into: &field)
                }
                trace.mark("106-bit fine")
            }
        }
        // The early finer orbit, if no 106-bit pass took it, stops here (the MPFR pass takes every
        // core); if one did, it is done.
        early?.cancel()
        // MPFR last, within a budget: at 1e-22522 one pixel is 10^6 steps of ~400 us each. The
        // cheapest first (a pixel that escaped costs about its count, one that did not the
        // limit), as many as the budget's CPU seconds cover; the others are reported, by index.
        if !atRisk.isEmpty && mpfrSeconds() > job.settings.mpfrBudgetSeconds {
            let cost = atRisk.map { i -> Double in
                let n = field.nBig[i]
                return Double(n > 0 ? min(Int(n) + 1, job.maxIterations) : job.maxIterations) * stepSeconds
            }
            let order = atRisk.indices.sorted { (cost[$0], atRisk[$0]) < (cost[$1], atRisk[$1]) }
            var spent = 0.0, kept: [Int] = []
            for k in order {
                if spent + cost[k] > job.settings.mpfrBudgetSeconds {
                    outcome.unsettled.append(atRisk[k])
                } else {
                    spent += cost[k]
                    kept.append(atRisk[k])
                }
            }
            outcome.unsettled.sort()
            atRisk = kept.sorted()
        }
        if !atRisk.isEmpty {
            if job.control?.isCancelled == true { throw RenderError.cancelled }
            let kernel = MPFRPixelKernel(
                viewport: job.viewport, family: job.location.family, maxIterations: job.maxIterations,
                subset: atRisk)
            // A pixel a tile: each takes seconds, and a handful of them should use every core.
            try job.executor.run(Pass(kernel, count: atRisk.count, tilePixels: 1), into: &field)
            trace.mark("MPFR, \(atRisk.count) pixels")
        }
        outcome.reiteratedPixels = atRisk.count
        return outcome
    }

    /// The orbit (and Julia's critical orbit) for the 106-bit passes, and the precision of a
    /// finer one where it was computed. The orbit's rounding, 2^(1 - bits) a step, enters every
    /// pixel like an error of dc; below 2^-110 of the pixel spacing it is below the deltas' own
    /// (e50 640x360: against the view's orbit at 239 bits the 106-bit pass left 3,683 of 17,209
    /// pixels at risk, against one at 303 bits 8). A finer orbit for z^2 + c and Multibrot, at
    /// 64 more bits at least, where iterating the pixels in MPFR (`mpfrSeconds`) would cost more
    /// than twice the orbit (e50 640x360: 210 pixels left for MPFR, 6 s; Perturbation.md). Both
    /// by the same per-step model (`PerturbationSettings.mpfrStepSeconds`), not by a clock, so
    /// the choice is the view's alone. Else the view's orbit with its low words.
    private func wideOrbit(mpfrSeconds: Double) throws -> (Reference, Reference?, Int?) {
        let primary = references.primary, critical = references.critical
        if let bits = Self.finerOrbitBits(job: job, references: references),
            mpfrSeconds
                > 2 * Double(references.period ?? primary.orbit.count)
                * PerturbationSettings.mpfrStepSeconds(bits: bits, power: job.formula.power)
        {
            let finer =
                try early.map { try job.orbits.finish($0) }
                ?? job.orbits.finerOrbit(
                    at: references.point, precision: Precision(bits: bits), steps: references.period)
            return (Reference(finer, wraps: primary.wraps, periodic: primary.periodic), nil, bits)
        }
        let fine =
            !primary.orbit.hasLowWords
            ? Reference(
                try job.orbits.orbit(at: references.point, lowWords: true, steps: references.period),
                wraps: primary.wraps, periodic: primary.periodic)
            : primary
        let fineCritical =
            job.juliaC == nil
            ? nil
            : critical?.orbit.hasLowWords == true
                ? critical
                : Reference(try job.orbits.orbit(at: BigComplex(precision: job.precision), lowWords: true))
        return (fine, fineCritical, nil)
    }

    /// The precision of a finer orbit for the 106-bit passes (z^2 + c and Multibrot, where the
    /// view's orbit has fewer than 116 bits below the spacing: `wideOrbit`), or nil. From
    /// `PerturbationRenderer.wideOrbitBits` on the view's orbit has them, unless it was loaded
    /// from a file at less precision.
    static func finerOrbitBits(job: PerturbationJob<F, D>, references: References) -> Int? {
        let needed = 116 + Int((-job.viewport.log2Spacing).rounded(.up))
        let bits = references.primary.orbit.precision.bits
        guard job.juliaC == nil, bits < needed else { return nil }
        return Swift.max(needed, bits + 64)
    }

    /// On a GPU, the finer orbit the 106-bit passes would take, started now on another thread
    /// (`OrbitSupply.startFinerOrbit`): the render's thread waits on the device during the first
    /// passes. Used only where `wideOrbit` takes a finer orbit; else cancelled. The same orbit
    /// either way, so the same bytes.
    static func startFinerOrbit(job: PerturbationJob<F, D>, references: References) -> FinerOrbitTask? {
        guard job.executor.traits.contains(.idleHost), job.settings.settlesPixelsAtRisk, D.significandBits <= 53,
            let bits = finerOrbitBits(job: job, references: references)
        else { return nil }
        return job.orbits.startFinerOrbit(
            at: references.point, precision: Precision(bits: bits), steps: references.period)
    }

    /// One pass over `pixels`, in rebase mode against `fine` (with `fineCritical` for Julia),
    /// with deltas E and BLA at `epsilon`.
    private func pass<E: PerturbationDelta>(
        _ label: String, _: E.Type, _ pixels: [Int], orbit fine: Reference, critical fineCritical: Reference?,
        epsilon: Double, into field: inout IterationField
    ) throws {
        let grid = DeltaGrid<E>(viewport: job.viewport, reference: references.point)
        func orbit(_ reference: Reference, subset: [Int]) -> PassOrbit<E> {
            job.passOrbit(reference, grid: grid, subset: subset, epsilon: epsilon)
        }
        try job.perturb(
            NoTracking.self, label: label, orbit: orbit(fine, subset: pixels),
            rebase: fineCritical.map { orbit($0, subset: []) },
            grid: grid, mode: .rebase, subset: pixels, flags: buffers.riskFlags, tilePixels: 16, control: nil,
            into: &field)
    }
}
