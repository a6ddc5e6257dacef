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
    /// The tables' epsilon where coarser than the setting's (`FirstPass`'s choice).
    let epsilon: Double?

    /// The primary orbit with its table for the whole field, where the probe built it.
    private let primary: PassOrbit<D>?

    init(
        job: PerturbationJob<F, D>, references: References, buffers: PassBuffers, epsilon: Double?,
        built: (primary: PassOrbit<D>, critical: PassOrbit<D>?)? = nil
    ) {
        self.job = job
        self.buffers = buffers
        self.epsilon = epsilon
        primary = built?.primary
        critical =
            built.map(\.critical)
            ?? references.critical.map { reference in
                let values = reference.orbit.values(as: D.self)
                let grid = DeltaGrid<D>(viewport: job.viewport, reference: job.center)
                return PassOrbit(
                    reference: reference, values: values,
                    table: job.tables.table(
                        values, of: reference, grid: grid, subset: [], epsilon: epsilon))
            }
        extras = ExtrasField(
            count: job.renderSettings.extras.isEmpty ? 0 : buffers.count, request: job.renderSettings.extras)
    }

    /// The pixels of `subset` (nil: all) against `reference`, whose deltas are taken from `point`.
    func run(_ reference: Reference, at point: BigComplex, subset: [Int]?, into field: inout IterationField) throws {
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: point)
        let orbit: PassOrbit<D>
        if let primary, primary.reference === reference, subset == nil {
            orbit = primary
        } else {
            let values = reference.orbit.values(as: D.self)
            orbit = PassOrbit(
                reference: reference, values: values,
                table: job.tables.table(values, of: reference, grid: grid, subset: subset, epsilon: epsilon))
        }
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
        var epsilon: Double? = nil
        var built: (primary: PassOrbit<D>, critical: PassOrbit<D>?)? = nil
        if let coarse = job.coarseEpsilon, let probe = try probe(coarse, into: &field) {
            epsilon = probe.pays ? coarse : nil
            built = probe.pays ? probe.coarse : probe.fine
        }
        let pass = ReferencePass(job: job, references: references, buffers: buffers, epsilon: epsilon, built: built)
        try pass.run(references.primary, at: references.point, subset: job.only, into: &field)
        return pass
    }

    /// Pixels in the probe's sample, about: enough that the share put at risk (1% to 20% on the
    /// flake and tlaloc views) is measured to a few tenths of a percent.
    static var probePixels: Int { 2_500 }

    /// Whether the first pass at the coarser `epsilon` costs less than at the setting's once the
    /// pixels it puts at risk are rendered again: a grid sample of the image rendered both ways,
    /// the cost counted in loop steps, an LA step as two plain ones (so the choice does not
    /// depend on timing or threads). The coarser one is taken where it saves a tenth. Flake
    /// 1.7e-157 800x800 saves with it, tlaloc 3.2e-213 does not (Documentation/Benchmarks.md).
    /// The sample's results in the field and flags are overwritten by the first pass.
    /// Nil where the image is too small for a sample; else the choice, and the orbits with
    /// their tables both ways (for the first pass).
    private func probe(_ epsilon: Double, into field: inout IterationField) throws -> (
        pays: Bool, fine: (PassOrbit<D>, PassOrbit<D>?), coarse: (PassOrbit<D>, PassOrbit<D>?)
    )? {
        let count = buffers.count
        // At most a 32nd of the image each way.
        guard job.only == nil, count >= 32 * Self.probePixels else { return nil }
        let stride = Int((Double(count) / Double(Self.probePixels)).squareRoot().rounded(.up))
        let width = job.viewport.width, height = job.viewport.height
        var sample: [Int] = []
        for y in Swift.stride(from: stride / 2, to: height, by: stride) {
            for x in Swift.stride(from: stride / 2, to: width, by: stride) { sample.append(y * width + x) }
        }
        func probe(_ e: Double?) throws -> (cost: [Int], atRisk: [Bool], orbits: (PassOrbit<D>, PassOrbit<D>?)) {
            for i in sample {
                buffers.steps[i] = 0
                buffers.blaSteps[i] = 0
                buffers.sensitive[i] = 0
            }
            let values = references.primary.orbit.values(as: D.self)
            let grid = DeltaGrid<D>(viewport: job.viewport, reference: references.point)
            let orbit = PassOrbit(
                reference: references.primary, values: values,
                table: job.tables.table(values, of: references.primary, grid: grid, subset: nil, epsilon: e))
            let critical = references.critical.map { reference in
                let values = reference.orbit.values(as: D.self)
                let grid = DeltaGrid<D>(viewport: job.viewport, reference: job.center)
                return PassOrbit(
                    reference: reference, values: values,
                    table: job.tables.table(values, of: reference, grid: grid, subset: [], epsilon: e))
            }
            let flags = PixelFlags(
                glitched: nil, ratio: nil, sensitive: buffers.sensitive.baseAddress, steps: buffers.steps.baseAddress,
                blaSteps: buffers.blaSteps.baseAddress)
            try job.perturb(
                NoTracking.self, orbit: orbit, rebase: critical, grid: grid, mode: .rebase, subset: sample,
                flags: flags,
                tilePixels: 16, control: nil, into: &field)
            defer {
                for i in sample {
                    buffers.steps[i] = 0
                    buffers.blaSteps[i] = 0
                    buffers.sensitive[i] = 0
                }
            }
            return (
                sample.map { Int(buffers.steps[$0]) + Int(buffers.blaSteps[$0]) },
                sample.map { buffers.isSensitive($0) },
                (orbit, critical)
            )
        }
        let fine = try probe(nil), coarse = try probe(epsilon)
        var fineCost = 0, coarseCost = 0
        for k in sample.indices {
            fineCost += fine.cost[k]
            coarseCost += coarse.cost[k] + (coarse.atRisk[k] ? fine.cost[k] : 0)
        }
        if PhaseTrace.enabled {
            PhaseTrace.write(
                "first pass probe: \(sample.count) pixels, cost \(fineCost) at the setting's epsilon, \(coarseCost) at \(epsilon)"
                    + " with the \(coarse.atRisk.filter { $0 }.count) it puts at risk again\n")
        }
        return (Double(coarseCost) < 0.9 * Double(fineCost), fine.orbits, coarse.orbits)
    }
}
