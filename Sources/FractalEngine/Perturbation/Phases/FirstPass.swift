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

    /// `built`: the orbits the probe built at `epsilon` (`ReferencePass.orbits`).
    init(
        job: PerturbationJob<F, D>, references: References, buffers: PassBuffers, epsilon: Double?,
        built: Orbits? = nil
    ) {
        self.job = job
        self.buffers = buffers
        self.epsilon = epsilon
        primary = built?.primary
        critical = built.map(\.critical) ?? Self.critical(job, references, epsilon: epsilon)
        extras = ExtrasField(
            count: job.renderSettings.extras.isEmpty ? 0 : buffers.count, request: job.renderSettings.extras)
    }

    /// The primary orbit with its table for the whole field, and Julia's critical orbit.
    typealias Orbits = (primary: PassOrbit<D>, critical: PassOrbit<D>?)

    /// Those orbits with their tables at `epsilon` (nil: the setting's).
    static func orbits(_ job: PerturbationJob<F, D>, _ references: References, epsilon: Double?) -> Orbits {
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: references.point)
        return (
            job.passOrbit(references.primary, grid: grid, subset: nil, epsilon: epsilon),
            critical(job, references, epsilon: epsilon)
        )
    }

    private static func critical(
        _ job: PerturbationJob<F, D>, _ references: References, epsilon: Double?
    ) -> PassOrbit<D>? {
        references.critical.map { reference in
            job.passOrbit(
                reference, grid: DeltaGrid<D>(viewport: job.viewport, reference: job.center), subset: [],
                epsilon: epsilon)
        }
    }

    /// The pixels of `subset` (nil: all) against `reference`, whose deltas are taken from `point`.
    /// `label` names the pass in the report's timings.
    func run(
        _ label: String, _ reference: Reference, at point: BigComplex, subset: [Int]?, into field: inout IterationField
    ) throws {
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: point)
        let orbit =
            primary.flatMap { $0.reference === reference && subset == nil ? $0 : nil }
            ?? job.passOrbit(reference, grid: grid, subset: subset, epsilon: epsilon)
        func pass<T: PixelTracker>(_: T.Type, extras: ExtrasWriter?) throws {
            try job.perturb(
                T.self, label: label, orbit: orbit, rebase: critical, grid: grid, mode: job.settings.glitchMode,
                subset: subset,
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
        let probe = try job.coarseEpsilon.flatMap { try self.probe($0, into: &field) }
        let pass = ReferencePass(
            job: job, references: references, buffers: buffers, epsilon: probe?.epsilon, built: probe?.orbits)
        try pass.run("first", references.primary, at: references.point, subset: job.only, into: &field)
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
    /// The sample's results in the field are overwritten by the first pass, and its flags are
    /// cleared. Nil where the image is too small for a sample; else the epsilon chosen (nil: the
    /// setting's) and the orbits with their tables at it, for the first pass.
    private func probe(_ epsilon: Double, into field: inout IterationField) throws -> (
        epsilon: Double?, orbits: ReferencePass<F, D>.Orbits
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
        let grid = DeltaGrid<D>(viewport: job.viewport, reference: references.point)
        let flags = PixelFlags(
            glitched: nil, ratio: nil, atRisk: buffers.atRisk.baseAddress, steps: buffers.steps.baseAddress,
            approximationSteps: buffers.approximationSteps.baseAddress)
        // The sample's cost and whether each is put at risk, its flags cleared after (the
        // buffers start cleared).
        func probe(_ orbits: ReferencePass<F, D>.Orbits) throws -> (cost: [Int], atRisk: [Bool]) {
            try job.perturb(
                NoTracking.self, label: "probe", orbit: orbits.primary, rebase: orbits.critical, grid: grid,
                mode: .rebase,
                subset: sample, flags: flags, tilePixels: 16, control: nil, into: &field)
            let cost = sample.map { Int(buffers.steps[$0]) + Int(buffers.approximationSteps[$0]) }
            let atRisk = sample.map { buffers.isAtRisk($0) }
            for i in sample {
                buffers.steps[i] = 0
                buffers.approximationSteps[i] = 0
                buffers.atRisk[i] = 0
            }
            return (cost, atRisk)
        }
        let fineOrbits = ReferencePass.orbits(job, references, epsilon: nil)
        let coarseOrbits = ReferencePass.orbits(job, references, epsilon: epsilon)
        let fine = try probe(fineOrbits), coarse = try probe(coarseOrbits)
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
        return Double(coarseCost) < 0.9 * Double(fineCost) ? (epsilon, coarseOrbits) : (nil, fineOrbits)
    }
}
