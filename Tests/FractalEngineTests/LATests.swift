import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("LA table")
struct LATests {
    func orbit(re: String, im: String, steps: Int) throws -> [Complex<Double>] {
        let p = Precision(bits: 300)
        let c = try BigComplex(parsingRe: re, im: im, precision: p)
        let o = try ReferenceOrbit.compute(point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p)
        return o.values(as: Double.self)
    }

    /// Plain perturbation from dz at reference index m for `length` steps.
    func plain(_ z: [Complex<Double>], from m: Int, length: Int, dz start: Complex<Double>, dc: Complex<Double>)
        -> Complex<Double>
    {
        var dz = start
        for k in m..<(m + length) { dz = Complex(z[k].re * 2 + dz.re, z[k].im * 2 + dz.im) * dz + dc }
        return dz
    }

    @Test(
        "every entry agrees with plain perturbation inside its thresholds, and the chain search stops at the first that fails"
    )
    func entriesMatchPerturbation() throws {
        let z = try orbit(re: PerturbationTests.e55Re, im: PerturbationTests.e55Im, steps: 4096)
        let eps = 0x1p-30
        let table = LATable(orbit: z, epsilon: eps)
        var checked = 0, long = 0
        table.withView { view in
            for m in 0..<(z.count - 1) {
                let offset = view.chain(at: m)
                guard offset >= 0 else { continue }
                let end = table.entries[offset].chainEnd
                for i in offset..<end {
                    let e = table.entries[i]
                    guard e.threshold > 0, e.dcThreshold > 0 else { continue }
                    // dz with |u| about half the threshold, dc half its threshold.
                    let zm = z[m].magnitude
                    guard zm > 1e-6 else { continue }
                    let start = Complex(0.3 * e.threshold / zm, 0.1 * e.threshold / zm)
                    let dc = Complex(0.35 * e.dcThreshold, -0.35 * e.dcThreshold)
                    let u = Complex(z[m].re * 2 + start.re, z[m].im * 2 + start.im) * start
                    guard u.magnitude < e.threshold else {
                        Issue.record("u past the threshold at m \(m)")
                        continue
                    }
                    let want = plain(z, from: m, length: e.length, dz: start, dc: dc)
                    let got = e.apply(u, dc)
                    // Each linearized step drops at most eps of the kept terms (no cancellation
                    // assumed: relative to |zc u| + |cc dc|), plus Double's rounding.
                    let scale = (e.zc * u).magnitude + (e.cc * dc).magnitude
                    let error = (got - want).magnitude / scale
                    #expect(error <= Double(e.length) * (2 * eps + 0x1p-50), "m \(m), length \(e.length): \(error)")
                    checked += 1
                    if e.length >= 64 { long += 1 }
                    // The search takes this entry or a longer one, and no entry past a failing one.
                    guard let best = view.longest(chain: offset, u: u, dc: dc, maxLength: .max) else {
                        Issue.record("no entry at m \(m) for a u and dc inside entry \(i)'s thresholds")
                        continue
                    }
                    #expect(best >= i)
                    if best + 1 < end {
                        let next = table.entries[best + 1]
                        #expect(
                            !(u.magnitude < next.threshold && dc.magnitude < next.dcThreshold),
                            "the search stopped before a valid entry")
                    }
                }
            }
        }
        #expect(checked > 100)
        #expect(long > 0, "some entries span a long stretch")
    }

    // The CPU's lanes find a chain's longest entry that holds by bisection, which relies on
    // the lengths growing and the thresholds shrinking along every chain (Lanes.cpp, `longest`).
    @Test("stage-0 entries tile the orbit, chains grow in length and shrink in thresholds")
    func structure() throws {
        let z = try orbit(re: PerturbationTests.e55Re, im: PerturbationTests.e55Im, steps: 4096)
        let n = z.count - 1
        // Also with `spanning` (a wrapped reference's table): its chain at 0 ends in one entry
        // over the whole orbit.
        for spanning in [false, true] {
            let table = LATable(orbit: z, epsilon: 0x1p-36, spanning: spanning)
            #expect(table.stageSizes.count >= 2)
            #expect(zip(table.stageSizes, table.stageSizes.dropFirst()).allSatisfy { $0 > $1 })
            var m = 0
            while m < n {
                let offset = Int(table.chainAt[m])
                try #require(offset >= 0, "index \(m) is not a start")
                let first = table.entries[offset]
                for j in 1..<first.length { #expect(Int(table.chainAt[m + j]) == -(first.length - j)) }
                for i in offset..<(first.chainEnd - 1) {
                    let a = table.entries[i], b = table.entries[i + 1]
                    #expect(a.length < b.length && b.threshold <= a.threshold && b.dcThreshold <= a.dcThreshold)
                }
                // Every entry ends on the orbit (the lanes skip reading lengths on this).
                #expect(m + table.entries[first.chainEnd - 1].length <= n)
                m += first.length
            }
            #expect(m == n)
            if spanning {
                #expect(
                    table.entries[Int(table.chainAt[0])..<table.entries[Int(table.chainAt[0])].chainEnd].last?.length
                        == n)
            }
        }
    }

    @Test("period detection: just off the period-3 nucleus, stage-0 entries start every third iteration")
    func periodThree() throws {
        // The period-3 nucleus (the "rabbit"'s), moved by 1e-12: Z(3k) stays tiny.
        let z = try orbit(re: "-0.122561166876653", im: "0.744861766619744", steps: 3000)
        let table = LATable(orbit: z, epsilon: 0x1p-36)
        var starts: [Int] = []
        for m in 0..<(z.count - 1) where table.chainAt[m] >= 0 { starts.append(m) }
        #expect(starts.count > 100)
        #expect(starts.prefix(starts.count - 1).allSatisfy { $0 % 3 == 0 }, "\(starts.prefix(10))")
    }

    static func bits(_ e: LAEntry<Double>, chainEnd: Bool = true) -> [UInt64] {
        [
            e.zc.re, e.zc.im, e.cc.re, e.cc.im, e.threshold, e.dcThreshold, e.inverseThreshold,
            e.inverseDCThreshold, e.stretchSignificand, e.ccSignificand,
        ].map(\.bitPattern)
            + [e.stretchExponent, e.ccExponent, e.length].map { UInt64(bitPattern: Int64($0)) }
            + (chainEnd ? [UInt64(bitPattern: Int64(e.chainEnd))] : [])
    }

    /// A chain's entries from its offset, without their chain ends.
    static func chain(_ table: LATable<Double>, at m: Int) -> [[UInt64]] {
        let offset = Int(table.chainAt[m])
        return (offset..<table.entries[offset].chainEnd).map { bits(table.entries[$0], chainEnd: false) }
    }

    @Test("a table built from the compressed reference as it reads it is the table built from its decoded values")
    func streamedBuildMatchesValues() throws {
        let p = Precision(bits: 300)
        let c = try BigComplex(parsingRe: PerturbationTests.e55Re, im: PerturbationTests.e55Im, precision: p)
        let reference = try ReferenceOrbit.compute(point: c, power: 2, juliaC: nil, maxIterations: 40_000, precision: p)
        let values = reference.values(as: Double.self)
        for threads in [1, 3] {
            let plain = LATable(
                orbit: values, epsilon: 0x1p-40, escapeGaps: reference.escapeGaps, threads: threads,
                converting: { $0 })
            let streamed = LATable<Double>(
                reference: reference, as: Double.self, epsilon: 0x1p-40, threads: threads, converting: { $0 })
            #expect(plain.stageSizes.count >= 4)
            #expect(plain.stageSizes == streamed.stageSizes)
            #expect(plain.chainAt == streamed.chainAt)
            #expect(plain.entries.map { Self.bits($0) } == streamed.entries.map { Self.bits($0) })
            #expect(plain.ccBounds.map(\.bitPattern) == streamed.ccBounds.map(\.bitPattern))

            // A lean table keeps stages 2 and up: its chains start at stage 2's entries, and
            // each is the end of the full table's chain there.
            let lean = LATable<Double>(
                reference: reference, as: Double.self, epsilon: 0x1p-40, threads: threads, lowestStage: 2,
                converting: { $0 })
            #expect(lean.stageSizes == Array(plain.stageSizes.dropFirst(2)))
            let starts = (0..<(values.count - 1)).filter { lean.chainAt[$0] >= 0 }
            #expect(starts.count == lean.stageSizes[0])
            for m in starts {
                let full = Self.chain(plain, at: m), tail = Self.chain(lean, at: m)
                guard !tail.isEmpty, full.count >= tail.count, Array(full.suffix(tail.count)) == tail else {
                    Issue.record("the lean chain at \(m) is not the end of the full one")
                    break
                }
            }
        }
    }

    @Test("one build of the chains gives the table at every epsilon of its layout, bit for bit")
    func chainsServeEveryEpsilon() throws {
        let z = try orbit(re: PerturbationTests.e55Re, im: PerturbationTests.e55Im, steps: 40_000)
        let chains = LAChains(orbit: z, epsilon: 0x1p-40)
        // The epsilons of a render's tables (the first pass's, the probe's coarser one, 2^-53,
        // and the 106-bit passes'), each equal to the table built alone.
        for epsilon in [0x1p-40, 0x1p-32, 0x1p-53, 0x1p-64, 0x1p-93] {
            try #require(chains.serves(epsilon: epsilon))
            let shared = LATable<Double>(chains: chains, epsilon: epsilon, converting: { $0 })
            let alone = LATable(orbit: z, epsilon: epsilon)
            #expect(shared.entries.count > 4096)
            #expect(shared.stageSizes == alone.stageSizes && shared.chainAt == alone.chainAt)
            #expect(shared.entries.map { Self.bits($0) } == alone.entries.map { Self.bits($0) }, "epsilon \(epsilon)")
        }
        // The thresholds scale with the epsilon where the truncation bounds them, and are
        // capped where a term without it (the next entry's threshold, the escape gap) does.
        let fine = LATable<Double>(chains: chains, epsilon: 0x1p-53, converting: { $0 })
        let coarse = LATable<Double>(chains: chains, epsilon: 0x1p-40, converting: { $0 })
        var scaled = 0
        for (f, c) in zip(fine.entries, coarse.entries) {
            #expect(f.threshold <= c.threshold && f.dcThreshold <= c.dcThreshold)
            if f.threshold > 0 && c.threshold == f.threshold * 0x1p13 { scaled += 1 }
        }
        #expect(scaled > fine.entries.count / 2)
        // A large epsilon moves where points are risky: another layout.
        #expect(!chains.serves(epsilon: 0x1p-10))
    }

    @Test("a table built on several threads is the one built on one, bit for bit")
    func threadsDoNotChangeTheTable() throws {
        // Long enough that every parallel step splits (magnitudes, each stage's entries, the
        // chains' entries and offsets).
        let z = try orbit(re: PerturbationTests.e55Re, im: PerturbationTests.e55Im, steps: 40_000)
        let one = LATable(orbit: z, epsilon: 0x1p-40, threads: 1)
        let four = LATable(orbit: z, epsilon: 0x1p-40, threads: 4)
        #expect(one.entries.count > 4096)
        #expect(one.stageSizes == four.stageSizes)
        #expect(one.chainAt == four.chainAt)
        #expect(one.entries.count == four.entries.count)
        for (a, b) in zip(one.entries, four.entries) where Self.bits(a) != Self.bits(b) {
            Issue.record("entries differ: \(a) against \(b)")
            break
        }
        #expect(one.ccBounds.map(\.bitPattern) == four.ccBounds.map(\.bitPattern))
    }
}
