import FractalNumerics

/// A BLA table and what identifies it (for the cache and for device copies).
struct NamedTable<E: DeltaScalar> {
    let table: ApproximationTable<E>
    let identity: TableIdentity?
}

/// Phase 2: BLA tables (Documentation/Perturbation.md) for an orbit, a delta type and the
/// pixels a pass iterates: from the cache when one holds the same table, else built on all
/// threads. Nil when BLA is off (by the setting, or because a trap must see every iteration).
final class ApproximationTables<F: PerturbationFormula> {
    let formula: F
    let viewport: Viewport
    let cache: ReferenceCache?
    let threads: Int
    let enabled: Bool
    /// The setting's epsilon, for Double and FloatExp deltas; 2^-53 times it for 106-bit deltas.
    let epsilon: Double
    /// Whether tables need identities without a cache (device copies are kept by name).
    let names: Bool
    let method: ApproximationMethod
    /// LA's epsilon over BLA's: the LA entries' epsilon at any table epsilon.
    let laRatio: Double
    /// Seconds spent building tables.
    private(set) var seconds = 0.0
    /// LA chains kept for the render's other tables (`chains`), and their bytes.
    private var kept: [ChainsKey: AnyObject] = [:]
    private var keptBytes = 0

    /// What identifies LA chains (`LAChains`): all but the epsilon, of which only the layout's
    /// risky magnitude counts.
    struct ChainsKey: Hashable {
        let orbit: OrbitIdentity
        let wide: ObjectIdentifier
        let riskyLog2: Double
        let addsDC: Bool
        let spanning: Bool
        let lowestStage: Int
    }

    /// The LA chains of `reference` in W for a table at `epsilon`: one build serves the render's
    /// tables at every epsilon of one layout, in both delta types built in W (the first pass's,
    /// the probe's coarser one, 2^-53 and the 106-bit passes': c2 built five tables of 60-70 ms
    /// each). Kept where `keep` (a pass that holds its orbit; a streamed one builds in little
    /// memory and keeps nothing) while all the chains kept take at most 1/16 of memory.
    private func chains<W: DeltaScalar>(
        _ reference: Reference, as _: W.Type, epsilon: Double, lowestStage: Int, keep: Bool
    ) -> LAChains<W> {
        let key = ChainsKey(
            orbit: reference.identity, wide: ObjectIdentifier(W.self),
            riskyLog2: LABuilder<W>.riskyLog2(epsilon: epsilon, power: formula.power), addsDC: formula.addsDC,
            spanning: reference.wraps, lowestStage: lowestStage)
        if let chains = kept[key] as? LAChains<W> { return chains }
        let chains = LAChains<W>(
            orbit: .reference(reference.orbit), riskyLog2: key.riskyLog2, addsDC: formula.addsDC,
            power: formula.power, escapeGaps: reference.orbit.escapeGaps, spanning: reference.wraps,
            threads: threads, lowestStage: lowestStage)
        if keep, keptBytes + chains.bytes <= RenderPlan.physicalMemory / 16 {
            kept[key] = chains
            keptBytes += chains.bytes
        }
        return chains
    }

    init(
        formula: F, viewport: Viewport, cache: ReferenceCache?, threads: Int, enabled: Bool, epsilon: Double,
        names: Bool, method: ApproximationMethod, laRatio: Double
    ) {
        self.method = method
        self.laRatio = laRatio
        self.formula = formula
        self.viewport = viewport
        self.cache = cache
        self.threads = threads
        self.enabled = enabled
        self.epsilon = epsilon
        self.names = names
    }

    /// The table for `values` (the orbit `reference` as E; nil where a pass streams it, LA
    /// alone) whose steps hold for the pixels of `subset` (nil: the whole image; []: dc = 0,
    /// the critical orbit's), at `baseEpsilon`, its LA stages from `lowestStage` up.
    func table<E: PerturbationDelta>(
        _ values: [Complex<E>]?, of reference: Reference, grid: DeltaGrid<E>, subset: [Int]?,
        epsilon baseEpsilon: Double? = nil, lowestStage: Int = 0
    ) -> NamedTable<E>? {
        guard enabled else { return nil }
        return addingSeconds(to: &seconds) {
            let dcMax = formula.addsDC ? grid.maxMagnitude(over: subset, height: viewport.height) : E.zero
            let epsilon = (baseEpsilon ?? self.epsilon) * (E.significandBits > 53 ? 0x1p-53 : 1)
            let linearEpsilon = epsilon * laRatio
            // The same orbit, deltas, bound and epsilon: the same table.
            let identity =
                cache == nil && !names
                ? nil
                : TableIdentity(
                    orbit: reference.identity, delta: ObjectIdentifier(E.self), dcMax: "\(dcMax)", epsilon: epsilon,
                    addsDC: formula.addsDC, method: method, linearEpsilon: linearEpsilon, lowestStage: lowestStage)
            if let identity, let cached = cache?.table(identity, E.self) {
                return NamedTable(table: cached, identity: identity)
            }
            // LA's coefficients are products along the orbit: built in E's wide type from the
            // orbit's own values (read in order, never held decoded), each rounded to E once (built in E, their rounding added up
            // to a smooth error of 1e-6 on e318; Documentation/Perturbation.md).
            var trace = PhaseTrace(
                "table \(E.self) at epsilon \(epsilon), \(reference.orbit.count) points"
                    + (values == nil ? ", streamed from stage \(lowestStage)" : ""))
            defer { trace.print() }
            var linear: LATable<E>?
            if method != .bla {
                let linearIdentity = LinearTableIdentity(
                    orbit: reference.identity, delta: ObjectIdentifier(E.self), epsilon: linearEpsilon,
                    addsDC: formula.addsDC, spanning: reference.wraps, lowestStage: lowestStage)
                linear = cache?.linearTable(linearIdentity, E.self)
                if linear == nil {
                    let chains = chains(
                        reference, as: E.Wide.self, epsilon: linearEpsilon, lowestStage: lowestStage,
                        keep: values != nil)
                    linear = LATable(
                        chains: chains, epsilon: linearEpsilon, threads: threads, converting: E.init(wide:))
                    if let linear { cache?.store(linear, key: linearIdentity) }
                }
            }
            trace.mark(PhaseTrace.enabled ? "LA, entries a stage \(linear?.stageSizes ?? [])," : "LA")
            let built = ApproximationTable(
                orbit: values ?? [], dcMax: dcMax, epsilon: epsilon, addsDC: formula.addsDC, power: formula.power,
                escapeGaps: reference.orbit.escapeGaps, threads: threads, method: method, linear: linear)
            trace.mark("BLA")
            if let identity { cache?.store(built, key: identity) }
            return NamedTable(table: built, identity: identity)
        }
    }
}
