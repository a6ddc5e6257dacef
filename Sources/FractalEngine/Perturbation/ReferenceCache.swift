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
    private var tables: [String: Any] = [:]
    /// How many orbits and tables were reused (for tests and benchmarks).
    public private(set) var orbitHits = 0
    public private(set) var tableHits = 0
    /// Orbits stored: each computed once.
    public var computedOrbits: Int {
        lock.lock()
        defer { lock.unlock() }
        return orbits.count
    }

    public init() {}

    /// A cached orbit usable for `point` (already rounded to `precision`): same family, long
    /// enough (escaped, or as long as the limit), at least this precision, with low words if
    /// asked, and a point that rounds to `point`.
    func orbit(for point: BigComplex, power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision,
               lowWords: Bool) -> ReferenceOrbit? {
        lock.lock()
        defer { lock.unlock() }
        for o in orbits where o.power == power && o.precision >= precision && (o.escaped || o.count >= maxIterations + 1)
            && (!lowWords || !o.reLow.isEmpty)
            && (o.juliaC == nil) == (juliaC == nil) && o.juliaC.map({ $0 == juliaC! }) ?? true
            && ReferenceCache.within(o.point, point, precision) {
            orbitHits += 1
            return o
        }
        return nil
    }

    /// Whether `cached` (at more precision) lies within one unit in the last place of
    /// `point` at `precision`, relative to |point|'s larger part. Comparing `cached` rounded
    /// to `precision` with `point` is not enough: `point` was rounded from the decimal
    /// center once, `cached` rounded twice, and at a tie the two differ by an ulp (2 of a
    /// 100-frame e50 zoom-out computed their own orbit so).
    static func within(_ cached: BigComplex, _ point: BigComplex, _ precision: Precision) -> Bool {
        let scale = Swift.max(point.re.isZero ? Int.min / 2 : point.re.exponent, point.im.isZero ? Int.min / 2 : point.im.exponent)
        guard scale > Int.min / 2 else { return cached.re.isZero && cached.im.isZero }
        let ulp = BigFloat(1, precision: Precision(bits: 64)).timesPowerOfTwo(scale - precision.bits)
        return !(ulp < (cached.re - point.re).magnitude) && !(ulp < (cached.im - point.im).magnitude)
    }

    func store(_ orbit: ReferenceOrbit) {
        lock.lock()
        defer { lock.unlock() }
        orbits.append(orbit)
    }

    func table<D: DeltaScalar>(_ key: String, _: D.Type) -> BLATable<D>? {
        lock.lock()
        defer { lock.unlock() }
        guard let t = tables[key] as? BLATable<D> else { return nil }
        tableHits += 1
        return t
    }

    func store<D: DeltaScalar>(_ table: BLATable<D>, key: String) {
        lock.lock()
        defer { lock.unlock() }
        tables[key] = table
    }

    /// Drops everything.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        orbits = []
        tables = [:]
    }
}

extension ReferenceCache: Equatable {
    /// Caches are equal when they are the same cache.
    public static func == (a: ReferenceCache, b: ReferenceCache) -> Bool { a === b }
}
