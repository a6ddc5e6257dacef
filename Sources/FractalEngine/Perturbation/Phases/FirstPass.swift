import ArbitraryPrecision
import FractalNumerics

/// One pass of the field (or a subset of it) against a reference, in the render's delta type:
/// what the first pass and each glitch-correction pass run. Holds what they share: the
/// critical orbit and its table (Julia), the extras the passes write.
final class ReferencePass<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let buffers: PassBuffers
    /// Julia's critical orbit and its table, which pixels continue on after rebasing.
    let critical: PassOrbit<D>?
    /// Extras (distance estimate, slope, trap) come from these passes, not from the passes for
    /// pixels at risk after them (Documentation/Coloring.md).
    var extras: ExtrasField

    init(job: PerturbationJob<F, D>, references: References, buffers: PassBuffers) {
        self.job = job
        self.buffers = buffers
        critical = references.critical.map { reference in
            let values = reference.orbit.values(as: D.self)
            let grid = DeltaGrid<D>(viewport: job.viewport, reference: job.center)
            return PassOrbit(
                reference: reference, values: values,
                table: job.tables.table(
                    values, of: reference, grid: grid, subset: []))
        }
        extras = ExtrasField(
            count: job.renderSettings.extras.isEmpty ? 0 : buffers.count, request: job.renderSettings.extras)
    }

    /// The pixels of `subset` (nil: all) against `reference`, whose deltas are taken from `point`.
    func run(_ reference: Reference, at point: BigComplex, subset: [Int]?, into field: inout IterationField) throws {
        let values = reference.orbit.values(as: D.self)
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: point)
        let orbit = PassOrbit(
            reference: reference, values: values,
            table: job.tables.table(values, of: reference, grid: grid, subset: subset))
        func pass<T: PixelTracker>(_: T.Type, extras: ExtrasWriter?) throws {
            try job.perturb(
                T.self, orbit: orbit, rebase: critical, grid: grid, mode: job.settings.glitchMode, subset: subset,
                flags: buffers.allFlags(extras: extras), tilePixels: subset == nil ? 1024 : 16,
                control: subset == nil ? job.control : nil, progressBase: 0.1, into: &field)
        }
        if job.renderSettings.extras.isEmpty {
            try pass(NoTracking.self, extras: nil)
        } else {
            try extras.withWriter { try pass(ExtrasTracking.self, extras: $0) }
        }
    }
}

/// Phase 3: every pixel of the render (or `RenderSettings.onlyPixels`) against the primary
/// reference.
struct FirstPass<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let references: References
    let buffers: PassBuffers

    func run(into field: inout IterationField) throws -> ReferencePass<F, D> {
        let pass = ReferencePass(job: job, references: references, buffers: buffers)
        try pass.run(references.primary, at: references.point, subset: job.only, into: &field)
        return pass
    }
}
