import ArbitraryPrecision
import FractalNumerics

/// One pass of the field (or a subset of it) against a reference, in the render's delta type:
/// what the first pass and each glitch-correction pass run. Holds what they share: the
/// critical orbit and its table (Julia), the extras the passes write.
final class ReferencePass<F: PerturbationFormula, D: PerturbationDelta> {
    let job: PerturbationJob<F, D>
    let buffers: PassBuffers
    let critical: Reference?
    let criticalValues: [Complex<D>]?
    let criticalTable: NamedTable<D>?
    /// Extras (distance estimate, slope, trap) come from these passes, not from the passes for
    /// pixels at risk after them (Documentation/Coloring.md).
    var extras: ExtrasField

    init(job: PerturbationJob<F, D>, references: References, buffers: PassBuffers) {
        self.job = job
        self.buffers = buffers
        critical = references.critical
        criticalValues = critical?.orbit.values(as: D.self)
        criticalTable =
            criticalValues.map {
                job.tables.table(
                    $0, of: references.critical!, grid: DeltaGrid<D>(viewport: job.viewport, reference: job.center),
                    subset: [])
            } ?? nil
        extras = ExtrasField(
            count: job.renderSettings.extras.isEmpty ? 0 : buffers.count, request: job.renderSettings.extras)
    }

    /// The pixels of `subset` (nil: all) against `reference`, whose deltas are taken from `point`.
    func run(_ reference: Reference, at point: BigComplex, subset: [Int]?, into field: inout IterationField) throws {
        let values = reference.orbit.values(as: D.self)
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: point)
        let bla = job.tables.table(values, of: reference, grid: grid, subset: subset)
        func pass<T: PixelTracker>(_: T.Type, extras: ExtrasWriter?) throws {
            var kernel = PerturbationKernel<F, D, T>(
                formula: job.formula, orbit: values, rebaseOrbit: criticalValues ?? values, bla: bla?.table,
                rebaseBLA: critical == nil ? bla?.table : criticalTable?.table, grid: grid,
                maxIterations: job.maxIterations,
                mode: job.settings.glitchMode, tolerance: job.tolerance, subset: subset,
                flags: buffers.allFlags(extras: extras),
                referenceBits: reference.orbit.precision.bits)
            kernel.trap = job.renderSettings.extras.trap
            kernel.log2Spacing = job.viewport.log2Spacing
            let count = subset?.count ?? buffers.count
            try job.executor.run(
                Pass(
                    kernel, count: count, tilePixels: subset == nil ? 1024 : 16,
                    control: subset == nil ? job.control : nil,
                    progressBase: 0.1,
                    device: job.executor.usesDevice
                        ? kernel.deviceForm(count: count, names: names(reference, bla)) : nil),
                into: &field)
        }
        if job.renderSettings.extras.isEmpty {
            try pass(NoTracking.self, extras: nil)
        } else {
            try extras.withWriter { try pass(ExtrasTracking.self, extras: $0) }
        }
    }
}

extension ReferencePass {
    /// The device names of a pass against `reference` with table `bla`.
    func names(_ reference: Reference, _ bla: NamedTable<D>?) -> DeviceNames {
        DeviceNames(
            orbit: reference.identity, rebaseOrbit: (critical ?? reference).identity, table: bla?.identity,
            rebaseTable: critical == nil ? bla?.identity : criticalTable?.identity)
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
