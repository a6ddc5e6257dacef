import ArbitraryPrecision
import FractalNumerics

/// Phase 5: the pixels whose smooth value the deltas may not hold to 1e-7 (`PrecisionEstimate`),
/// rendered again until settled, each step only for those still at risk:
///   1. BLA at epsilon 2^-53 (its truncation may be what puts them at risk), same deltas;
///   2. 106-bit deltas from the same orbit's low words (double-double above 2^-960, extended-
///      range double-double below);
///   3. the same, against the point's orbit at 64 more bits, when that costs less than MPFR
///      would (the orbit's own rounding may be what keeps them at risk);
///   4. direct MPFR at the viewport's precision, within `PerturbationSettings.mpfrBudgetSeconds`
///      (the cheapest first); those beyond it are reported as unsettled, by index.
struct SettlePixels<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let references: References
    let buffers: PassBuffers

    struct Outcome {
        var fineBLAPixels = 0
        var doubleDoublePixels = 0
        var finerOrbitPixels = 0
        var reiteratedPixels = 0
        /// Pixels still at risk that the MPFR budget did not cover, in index order.
        var unsettled: [Int] = []
    }

    /// BLA's epsilon for the second look at pixels at risk: Double's rounding level.
    static var fineBLAEpsilon: Double { 0x1p-53 }

    func run(into field: inout IterationField) throws -> Outcome {
        var outcome = Outcome()
        guard job.settings.exactSensitivePixels else { return outcome }
        var atRisk = (job.only ?? Array(0..<buffers.count)).filter {
            buffers.isSensitive($0) && !buffers.isGlitched($0)
        }
        func again(_ body: () throws -> Void) throws {
            if job.control?.isCancelled == true { throw RenderError.cancelled }
            try body()
            atRisk = atRisk.filter { buffers.isSensitive($0) }
        }
        let primary = references.primary, critical = references.critical
        if !atRisk.isEmpty && job.tables.enabled && job.settings.blaEpsilon > Self.fineBLAEpsilon {
            outcome.fineBLAPixels = atRisk.count
            try again {
                try pass(D.self, atRisk, orbit: primary, critical: critical, epsilon: Self.fineBLAEpsilon, into: &field)
            }
        }
        if !atRisk.isEmpty && D.significandBits <= 53 {
            outcome.doubleDoublePixels = atRisk.count
            try again {
                let fine =
                    primary.orbit.reLow.isEmpty
                    ? Reference(
                        try job.orbits.orbit(at: references.point, lowWords: true, steps: references.period),
                        wraps: references.period != nil)
                    : primary
                let fineCritical =
                    job.juliaC == nil
                    ? nil
                    : critical?.orbit.reLow.isEmpty == false
                        ? critical
                        : Reference(try job.orbits.orbit(at: BigComplex(precision: job.precision), lowWords: true))
                try pass(
                    D.Wide.self, atRisk, orbit: fine, critical: fineCritical, epsilon: job.settings.blaEpsilon,
                    into: &field)
            }
        }
        // When iterating them in MPFR would cost more than the orbit did (e50 640x360: 210 pixels
        // left for MPFR, 6 s; Documentation/Perturbation.md).
        let stepSeconds = PerturbationSettings.mpfrStepSeconds(
            bits: job.viewport.precision.bits, power: job.formula.power)
        func mpfrSeconds() -> Double { Double(atRisk.count) * Double(job.maxIterations) * stepSeconds }
        if !atRisk.isEmpty && D.significandBits <= 53 && job.juliaC == nil && mpfrSeconds() > 2 * job.orbits.seconds {
            outcome.finerOrbitPixels = atRisk.count
            try again {
                let finer = try job.orbits.finerOrbit(
                    at: references.point, precision: Precision(bits: job.precision.bits + 64), steps: references.period)
                try pass(
                    D.Wide.self, atRisk, orbit: Reference(finer, wraps: references.period != nil), critical: nil,
                    epsilon: job.settings.blaEpsilon,
                    into: &field)
            }
        }
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
            try job.executor.run(Pass(kernel, count: atRisk.count, tilePixels: 4), into: &field)
        }
        outcome.reiteratedPixels = atRisk.count
        return outcome
    }

    /// One pass over `pixels`, in rebase mode against `fine` (with `fineCritical` for Julia),
    /// with deltas E and BLA at `epsilon`.
    private func pass<E: PerturbationDelta>(
        _: E.Type, _ pixels: [Int], orbit fine: Reference, critical fineCritical: Reference?,
        epsilon: Double, into field: inout IterationField
    ) throws {
        let grid = DeltaGrid<E>(viewport: job.viewport, reference: references.point)
        func orbit(_ reference: Reference, subset: [Int]) -> PassOrbit<E> {
            let values = reference.orbit.values(as: E.self)
            return PassOrbit(
                reference: reference, values: values,
                table: job.tables.table(values, of: reference, grid: grid, subset: subset, epsilon: epsilon))
        }
        try job.perturb(
            NoTracking.self, orbit: orbit(fine, subset: pixels), rebase: fineCritical.map { orbit($0, subset: []) },
            grid: grid, mode: .rebase, subset: pixels, flags: buffers.riskFlags, tilePixels: 16, control: nil,
            into: &field)
    }
}
