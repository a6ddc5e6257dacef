import ArbitraryPrecision
internal import CMPFR
import Foundation
import FractalNumerics
import Synchronization

/// Reference orbits and BLA tables kept across renders of the same center: a zoom-out
/// sequence computes its deepest frame's orbit once, and every shallower frame reuses it
/// (an orbit at more precision is a valid reference for a view that needs less: the deltas
/// are taken from the point it was computed for). Pass one cache to every render of a
/// sequence (`PerturbationSettings.cache`); it is safe to share between threads.
public final class ReferenceCache: Sendable {
    /// Everything the cache holds, behind one lock.
    private struct State {
        var orbits: [ReferenceOrbit] = []
        var tables = CachedTables()
        /// The stored tables' keys, oldest first: at most `tableLimit` are kept.
        var tableOrder: [TableIdentity] = []
        /// LA tables by what they depend on (not the dc bound, which only BLA levels read), so
        /// the frames of a zoom and the bands of an exponential map build theirs once.
        var linearTables: [LinearTableIdentity: any Sendable] = [:]
        var orbitHits = 0
        var tableHits = 0
        /// Orbits added from files (`add`).
        var loaded = 0
        var keepsOrbits = true
        var waits = 0
        /// Orbits being computed now, by what they are computed for: a render that needs the
        /// same one waits for it instead of computing it again (`computeOnce`).
        var inFlight: Set<OrbitRequest> = []
        /// Newton's method's results for nucleus placements (`minibrot(period:near:radius:search:)`),
        /// at most `minibrotLimit`.
        var minibrots: [MinibrotRequest: MinibrotFinder.Search] = [:]
        var minibrotSearches = 0
    }

    /// What a nucleus placement's Newton's method starts from: the point (bit for bit), the
    /// period and the disc's radius. Equal requests find the same nucleus (MPFR is exact).
    struct MinibrotRequest: Hashable, Sendable {
        let values: [UInt64]
        let period: Int
        let radius: [UInt64]

        init(period: Int, point: BigComplex, radius: FloatExp) {
            values = OrbitRequest.bits(of: point.re) + OrbitRequest.bits(of: point.im)
            self.period = period
            let (significand, exponent) = radius.parts
            self.radius = [significand.bitPattern, UInt64(bitPattern: Int64(exponent))]
        }
    }

    /// How many Newton results the cache keeps (all are dropped past it).
    static let minibrotLimit = 16

    /// The result of `search` (`MinibrotFinder.minibrot(period:near:radius:)` for these values),
    /// computed once: a later render of the same view (the explorer's preview, middle and full
    /// image; a sequence's frames of one center) takes the nucleus the first one found, the same
    /// result to the bit, instead of seconds to minutes of Newton's method at depth.
    func minibrot(
        period: Int, near point: BigComplex, radius: FloatExp, search: () -> MinibrotFinder.Search
    ) -> MinibrotFinder.Search {
        let request = MinibrotRequest(period: period, point: point, radius: radius)
        if let found = state.withLock({ $0.minibrots[request] }) { return found }
        let result = search()
        state.withLock { state in
            if state.minibrots.count >= Self.minibrotLimit { state.minibrots.removeAll() }
            state.minibrots[request] = result
            state.minibrotSearches += 1
        }
        return result
    }

    /// How many of those searches ran (the others were taken from the cache).
    package var minibrotSearches: Int { state.withLock { $0.minibrotSearches } }
    private let state = Mutex(State())

    /// What an orbit is computed for: equal requests compute equal orbits.
    struct OrbitRequest: Hashable, Sendable {
        /// The point's (and the Julia parameter's) values, bit for bit (`bits(of:)`).
        let values: [UInt64]
        let power: Int
        let precisionBits: Int
        let steps: Int
        let lowWords: Bool
        let watched: Bool

        init(
            point: BigComplex, juliaC: BigComplex?, power: Int, precision: Precision, steps: Int, lowWords: Bool,
            watched: Bool
        ) {
            var values = Self.bits(of: point.re) + Self.bits(of: point.im)
            if let juliaC { values += Self.bits(of: juliaC.re) + Self.bits(of: juliaC.im) }
            self.values = values
            self.power = power
            self.precisionBits = precision.bits
            self.steps = steps
            self.lowWords = lowWords
            self.watched = watched
        }

        /// `x` bit for bit: its precision, sign, exponent and limbs (a zero, NaN or infinity:
        /// its kind and sign alone, as MPFR leaves its limbs unset).
        static func bits(of x: BigFloat) -> [UInt64] {
            x.withPointer { p in
                let m = p.pointee
                var out = [UInt64(bitPattern: Int64(m._mpfr_prec)), UInt64(bitPattern: Int64(m._mpfr_sign))]
                guard x.isFinite, !x.isZero else { return out + [x.isZero ? 0 : 1] }
                out.append(UInt64(bitPattern: Int64(m._mpfr_exp)))
                let limbs = (Int(m._mpfr_prec) + 63) / 64
                for i in 0..<limbs { out.append(UInt64(m._mpfr_d[i])) }
                return out
            }
        }
    }

    /// The result of `compute` for the request `makeRequest` gives (made only on a miss of
    /// `lookup`, the cache), computed by one render at a time: while another
    /// render computes the same request, this one waits (polling `cancelled`, every 20 ms),
    /// then asks `lookup` (the cache) first. If the other render failed, this one computes.
    func computeOnce<T>(
        _ makeRequest: () -> OrbitRequest, cancelled: () -> Bool, lookup: () throws -> T?, compute: () throws -> T
    ) throws -> T {
        if let found = try lookup() { return found }
        let request = makeRequest()
        while true {
            let mine = state.withLock { $0.inFlight.insert(request).inserted }
            if mine {
                defer { _ = state.withLock { $0.inFlight.remove(request) } }
                // Another render may have finished between the lookup and the claim.
                if let found = try lookup() { return found }
                return try compute()
            }
            state.withLock { $0.waits += 1 }
            while state.withLock({ $0.inFlight.contains(request) }) {
                if cancelled() { throw RenderError.cancelled }
                Thread.sleep(forTimeInterval: 0.02)
            }
            if let found = try lookup() { return found }
        }
    }

    /// How many renders waited for an orbit another was computing (for tests).
    public var orbitWaits: Int { state.withLock { $0.waits } }

    /// How many orbits were reused (for tests and benchmarks).
    public var orbitHits: Int { state.withLock { $0.orbitHits } }
    /// How many BLA and LA tables were reused.
    public var tableHits: Int { state.withLock { $0.tableHits } }
    /// Orbits stored: each computed once (those added from files not counted).
    public var computedOrbits: Int { state.withLock { $0.orbits.count - $0.loaded } }

    /// The orbits it holds, in the order they were stored: what a cluster's reference job saves
    /// for the frame jobs (Documentation/Sequences.md, "On a cluster").
    package var storedOrbits: [ReferenceOrbit] { state.withLock { $0.orbits } }

    /// Adds orbits another process computed (read from its files), as if computed here.
    package func add(_ more: [ReferenceOrbit]) {
        state.withLock {
            $0.orbits += more
            $0.loaded += more.count
        }
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
        state.withLock { state in
            for o in state.orbits
            where o.serves(power: power, juliaC: juliaC, maxIterations: maxIterations, precision: precision)
                && (!lowWords || o.hasLowWords) && ReferenceCache.within(o.point, point, precision)
            {
                state.orbitHits += 1
                return o.limited(to: maxIterations)
            }
            return nil
        }
    }

    /// A cached orbit that `watch` ends within (`PeriodWatch.Found.ends`), cut there: what
    /// computing the orbit of `point` with `watch` would return, also where the cached one
    /// was itself ended (then it does not serve the render's limit, and `orbit(for:)` passes it).
    func orbit(
        for point: BigComplex, power: Int, juliaC: BigComplex?, precision: Precision, lowWords: Bool,
        endedBy watch: PeriodWatch
    ) -> ReferenceOrbit? {
        state.withLock { state in
            for o in state.orbits
            where o.matches(power: power, juliaC: juliaC, precision: precision)
                && (!lowWords || o.hasLowWords) && ReferenceCache.within(o.point, point, precision)
            {
                if let found = watch.scan(o), found.ends, found.period < o.count {
                    state.orbitHits += 1
                    return o.limited(to: found.period)
                }
            }
            return nil
        }
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
        state.withLock { if $0.keepsOrbits { $0.orbits.append(orbit) } }
    }

    /// Whether computed orbits are kept (default true). A sequence turns it off once its
    /// groups are primed (`FrameSequence.render`): an orbit a frame computes for itself (one
    /// the primed orbit does not serve) then serves no later frame, so each frame's bytes are
    /// the same in a slice as in the full run. Tables are kept either way (a table depends
    /// only on its orbit and its parameters).
    public var storesOrbits: Bool {
        get { state.withLock { $0.keepsOrbits } }
        set { state.withLock { $0.keepsOrbits = newValue } }
    }

    /// The table of delta type D stored under `key`.
    func table<D: PerturbationDelta>(_ key: TableIdentity, _: D.Type) -> ApproximationTable<D>? {
        state.withLock {
            guard let t = $0.tables[keyPath: D.cachedTables][key] else { return nil }
            $0.tableHits += 1
            return t
        }
    }

    /// How many tables of a dc bound it keeps (the oldest go first). Each frame of a zoom and
    /// each band of an exponential map has a bound of its own and never reuses another's, so
    /// without a limit a 3,321-band map of e1000 held 12.8 GB of them; the LA tables they
    /// share are kept apart (`linearTable`), once.
    static let tableLimit = 8

    func store<D: PerturbationDelta>(_ table: ApproximationTable<D>, key: TableIdentity) {
        state.withLock { state in
            if state.tables[keyPath: D.cachedTables].updateValue(table, forKey: key) == nil {
                state.tableOrder.append(key)
            }
            while state.tableOrder.count > ReferenceCache.tableLimit {
                let old = state.tableOrder.removeFirst()
                state.tables.double[old] = nil
                state.tables.floatExp[old] = nil
                state.tables.doubleDouble[old] = nil
                state.tables.doubleDoubleExp[old] = nil
            }
        }
    }

    /// The LA table of delta type D stored under `key`.
    func linearTable<D: DeltaScalar>(_ key: LinearTableIdentity, _: D.Type) -> LATable<D>? {
        state.withLock {
            guard let t = $0.linearTables[key] as? LATable<D> else { return nil }
            $0.tableHits += 1
            return t
        }
    }

    func store<D: DeltaScalar>(_ table: LATable<D>, key: LinearTableIdentity) {
        state.withLock { $0.linearTables[key] = table }
    }

    /// Drops every orbit and table (the reuse counts and `storesOrbits` stay).
    public func removeAll() {
        state.withLock {
            $0 = State(
                orbitHits: $0.orbitHits, tableHits: $0.tableHits, keepsOrbits: $0.keepsOrbits,
                minibrotSearches: $0.minibrotSearches)
        }
    }
}

/// The cache's BLA tables, one dictionary per delta type (`PerturbationDelta.cachedTables`
/// picks it).
@usableFromInline package struct CachedTables: Sendable {
    var double: [TableIdentity: ApproximationTable<Double>] = [:]
    var floatExp: [TableIdentity: ApproximationTable<FloatExp>] = [:]
    var doubleDouble: [TableIdentity: ApproximationTable<DoubleDouble>] = [:]
    var doubleDoubleExp: [TableIdentity: ApproximationTable<DoubleDoubleExp>] = [:]
}

/// What identifies a reference orbit: its family (power, Julia's c), its point exactly, its
/// precision and its length. Names device copies (`DeviceContent`) and cached tables.
@usableFromInline package struct OrbitIdentity: Hashable, Sendable {
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
@usableFromInline package struct TableIdentity: Hashable, Sendable {
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
    @usableFromInline package func serves(power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision)
        -> Bool
    {
        matches(power: power, juliaC: juliaC, precision: precision) && (escaped || count - 1 >= maxIterations)
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
    @usableFromInline package func limited(to maxIterations: Int) -> ReferenceOrbit {
        // At least the orbit's first value; a limit past its end leaves it whole.
        guard maxIterations < count - 1 else { return self }
        let n = Swift.max(1, maxIterations + 1)
        return ReferenceOrbit(
            point: point, power: power, juliaC: juliaC, precision: precision, compressed: compressed.prefix(n),
            tiny: tiny.filter { $0.key < n }, escapeGaps: escapeGaps.filter { $0.key < n }, escaped: false)
    }
}

extension ReferenceCache: Equatable {
    /// Caches are equal when they are the same cache.
    public static func == (a: ReferenceCache, b: ReferenceCache) -> Bool { a === b }
}
