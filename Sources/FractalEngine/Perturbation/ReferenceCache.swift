import ArbitraryPrecision
import Foundation
import FractalNumerics

/// Reference orbits and BLA tables kept across renders of the same center: a zoom-out
/// sequence computes its deepest frame's orbit once, and every shallower frame reuses it
/// (an orbit at more precision is a valid reference for a view that needs less: the deltas
/// are taken from the point it was computed for). Pass one cache to every render of a
/// sequence (`PerturbationSettings.cache`); it is safe to share between threads.
public final class ReferenceCache: @unchecked Sendable {
    private let lock = NSLock()
    private var orbits: [ReferenceOrbit] = []
    private var tables = CachedTables()
    /// The stored tables' keys, oldest first: at most `tableLimit` are kept.
    private var tableOrder: [TableIdentity] = []
    /// LA tables by what they depend on (not the dc bound, which only BLA levels read), so
    /// the frames of a zoom and the bands of an exponential map build theirs once.
    private var linearTables: [LinearTableIdentity: any Sendable] = [:]
    /// How many orbits and tables were reused (for tests and benchmarks).
    public private(set) var orbitHits = 0
    /// How many BLA and LA tables were reused.
    public private(set) var tableHits = 0
    /// Orbits added from files (`add`).
    private var loaded = 0
    /// Orbits stored: each computed once (those added from files not counted).
    public var computedOrbits: Int {
        lock.lock()
        defer { lock.unlock() }
        return orbits.count - loaded
    }

    /// The orbits it holds, in the order they were stored: what a cluster's reference job saves
    /// for the frame jobs (Documentation/Sequences.md, "On a cluster").
    public var storedOrbits: [ReferenceOrbit] {
        lock.lock()
        defer { lock.unlock() }
        return orbits
    }

    /// Adds orbits another process computed (read from its files), as if computed here.
    public func add(_ more: [ReferenceOrbit]) {
        lock.lock()
        defer { lock.unlock() }
        orbits += more
        loaded += more.count
    }

    /// An empty cache.
    public init() {}

    /// A cached orbit usable for `point` (already rounded to `precision`): one that serves
    /// the render (`ReferenceOrbit.serves`), with low words if asked, and a point that rounds
    /// to `point`.
    func orbit(
        for point: BigComplex, power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision,
        lowWords: Bool
    ) -> ReferenceOrbit? {
        lock.lock()
        defer { lock.unlock() }
        for o in orbits
        where o.serves(power: power, juliaC: juliaC, maxIterations: maxIterations, precision: precision)
            && (!lowWords || o.hasLowWords) && ReferenceCache.within(o.point, point, precision)
        {
            orbitHits += 1
            return o.limited(to: maxIterations)
        }
        return nil
    }

    /// A cached orbit that `watch` ends within (`PeriodWatch.Found.ends`), cut there: what
    /// computing the orbit of `point` with `watch` would return, also where the cached one
    /// was itself ended (then it does not serve the render's limit, and `orbit(for:)` passes it).
    func orbit(
        for point: BigComplex, power: Int, juliaC: BigComplex?, precision: Precision, lowWords: Bool,
        endedBy watch: PeriodWatch
    ) -> ReferenceOrbit? {
        lock.lock()
        defer { lock.unlock() }
        for o in orbits
        where o.matches(power: power, juliaC: juliaC, precision: precision)
            && (!lowWords || o.hasLowWords) && ReferenceCache.within(o.point, point, precision)
        {
            if let found = watch.scan(o), found.ends, found.period < o.count {
                orbitHits += 1
                return o.limited(to: found.period)
            }
        }
        return nil
    }

    /// Whether `cached` (at more precision) lies within one unit in the last place of
    /// `point` at `precision`, relative to |point|'s larger part. Comparing `cached` rounded
    /// to `precision` with `point` is not enough: `point` was rounded from the decimal
    /// center once, `cached` rounded twice, and at a tie the two differ by an ulp (2 of a
    /// 100-frame e50 zoom-out computed their own orbit so).
    static func within(_ cached: BigComplex, _ point: BigComplex, _ precision: Precision) -> Bool {
        let scale = Swift.max(
            point.re.isZero ? Int.min / 2 : point.re.exponent, point.im.isZero ? Int.min / 2 : point.im.exponent)
        guard scale > Int.min / 2 else { return cached.re.isZero && cached.im.isZero }
        let ulp = BigFloat(1, precision: Precision(bits: 64)).timesPowerOfTwo(scale - precision.bits)
        return !(ulp < (cached.re - point.re).magnitude) && !(ulp < (cached.im - point.im).magnitude)
    }

    func store(_ orbit: ReferenceOrbit) {
        lock.lock()
        defer { lock.unlock() }
        if keepsOrbits { orbits.append(orbit) }
    }

    /// Whether computed orbits are kept (default true). A sequence turns it off once its
    /// groups are primed (`FrameSequence.render`): an orbit a frame computes for itself (one
    /// the primed orbit does not serve) then serves no later frame, so each frame's bytes are
    /// the same in a slice as in the full run. Tables are kept either way (a table depends
    /// only on its orbit and its parameters).
    public var storesOrbits: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return keepsOrbits
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            keepsOrbits = newValue
        }
    }
    private var keepsOrbits = true

    /// The table of delta type D stored under `key`.
    func table<D: PerturbationDelta>(_ key: TableIdentity, _: D.Type) -> BLATable<D>? {
        lock.lock()
        defer { lock.unlock() }
        guard let t = tables[keyPath: D.cachedTables][key] else { return nil }
        tableHits += 1
        return t
    }

    /// How many tables of a dc bound it keeps (the oldest go first). Each frame of a zoom and
    /// each band of an exponential map has a bound of its own and never reuses another's, so
    /// without a limit a 3,321-band map of e1000 held 12.8 GB of them; the LA tables they
    /// share are kept apart (`linearTable`), once.
    static let tableLimit = 8

    func store<D: PerturbationDelta>(_ table: BLATable<D>, key: TableIdentity) {
        lock.lock()
        defer { lock.unlock() }
        if tables[keyPath: D.cachedTables].updateValue(table, forKey: key) == nil { tableOrder.append(key) }
        while tableOrder.count > ReferenceCache.tableLimit {
            let old = tableOrder.removeFirst()
            tables.double[old] = nil
            tables.floatExp[old] = nil
            tables.doubleDouble[old] = nil
            tables.doubleDoubleExp[old] = nil
        }
    }

    /// The LA table of delta type D stored under `key`.
    func linearTable<D: DeltaScalar>(_ key: LinearTableIdentity, _: D.Type) -> LATable<D>? {
        lock.lock()
        defer { lock.unlock() }
        guard let t = linearTables[key] as? LATable<D> else { return nil }
        tableHits += 1
        return t
    }

    func store<D: DeltaScalar>(_ table: LATable<D>, key: LinearTableIdentity) {
        lock.lock()
        defer { lock.unlock() }
        linearTables[key] = table
    }

    /// Drops everything.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        orbits = []
        loaded = 0
        tables = CachedTables()
        tableOrder = []
        linearTables = [:]
    }
}

/// The cache's BLA tables, one dictionary per delta type (`PerturbationDelta.cachedTables`
/// picks it).
public struct CachedTables: Sendable {
    var double: [TableIdentity: BLATable<Double>] = [:]
    var floatExp: [TableIdentity: BLATable<FloatExp>] = [:]
    var doubleDouble: [TableIdentity: BLATable<DoubleDouble>] = [:]
    var doubleDoubleExp: [TableIdentity: BLATable<DoubleDoubleExp>] = [:]
}

/// What identifies a reference orbit: its family (power, Julia's c), its point exactly, its
/// precision and its length. Names device copies (`DeviceContent`) and cached tables.
public struct OrbitIdentity: Hashable, Sendable {
    let power: Int
    let juliaC: [String]?
    let re: String
    let im: String
    let bits: Int
    let count: Int
    /// Whether the orbit carries its low words (106-bit deltas read them).
    let lowWords: Bool
}

/// What identifies a BLA table: the orbit, the delta type, the dc bound (exactly, as D
/// prints it), the epsilon and whether dc enters the steps. The same identity, the same table.
public struct TableIdentity: Hashable, Sendable {
    let orbit: OrbitIdentity
    let delta: ObjectIdentifier
    let dcMax: String
    let epsilon: Double
    let addsDC: Bool
    let method: ApproximationMethod
    let linearEpsilon: Double
    var lowestStage = 0
}

/// What identifies an LA table (`LATable`): the orbit, the delta type, the epsilon, whether dc
/// enters the steps and whether the reference wraps (a nucleus's).
struct LinearTableIdentity: Hashable, Sendable {
    let orbit: OrbitIdentity
    let delta: ObjectIdentifier
    let epsilon: Double
    let addsDC: Bool
    let spanning: Bool
    var lowestStage = 0
}

extension ReferenceOrbit {
    var identity: OrbitIdentity {
        OrbitIdentity(
            power: power, juliaC: juliaC.map { [$0.re.decimalString(), $0.im.decimalString()] },
            re: point.re.decimalString(), im: point.im.decimalString(), bits: precision.bits, count: count,
            lowWords: hasLowWords)
    }

    /// Whether this orbit can serve as the reference of a render of `power` (and Julia's c)
    /// at `maxIterations` that needs `precision`: the same family, at least that precision,
    /// and long enough (it escaped, or it runs to the limit). The one rule for cached orbits
    /// and orbits read from a file.
    public func serves(power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision) -> Bool {
        matches(power: power, juliaC: juliaC, precision: precision) && (escaped || count >= maxIterations + 1)
    }

    /// The same family (power, Julia's c) and at least `precision`, whatever its length.
    func matches(power: Int, juliaC: BigComplex?, precision: Precision) -> Bool {
        self.power == power && (self.juliaC == nil) == (juliaC == nil) && (self.juliaC.map { $0 == juliaC! } ?? true)
            && self.precision >= precision
    }

    /// The orbit as a render at `maxIterations` computes it: the first `maxIterations + 1`
    /// values (and their low words, tiny values and escape gaps) of an orbit that runs longer,
    /// which then has not escaped; this orbit itself when it is no longer. A longer orbit that
    /// serves a render (`serves`) is cut to it, so the render's tables, steps and image are
    /// those of the orbit it would have computed.
    public func limited(to maxIterations: Int) -> ReferenceOrbit {
        let n = maxIterations + 1
        guard count > n else { return self }
        return ReferenceOrbit(
            point: point, power: power, juliaC: juliaC, precision: precision, compressed: compressed.prefix(n),
            tiny: tiny.filter { $0.key < n }, escapeGaps: escapeGaps.filter { $0.key < n }, escaped: false)
    }
}

extension ReferenceCache: Equatable {
    /// Caches are equal when they are the same cache.
    public static func == (a: ReferenceCache, b: ReferenceCache) -> Bool { a === b }
}
