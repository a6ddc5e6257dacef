import FractalNumerics

// Linear approximation (LA) with period detection (Zhuoran's method as in Imagina's HInfLA,
// FractalShark's LA v2 and Fractal Zoomer; Documentation/Design.md section 12 for the method,
// Documentation/Perturbation.md for Fathom's form and its bounds). Fathom's own formulation:
//
// An entry starting at reference index a takes one exact step without dc,
//   u = f(Z(a) + dz) - f(Z(a))            (for z^2: u = (2 Z(a) + dz) dz),
// and then maps dz(a + length) = zc u + cc dc: the later length - 1 iterations are linear.
// Absorbing the orbit point Z(m) at the end of an entry (A = f'(Z(m)) = p Z(m)^(p-1)):
//   T  <- min(T,  s |Z(m)| / |zc|)      TC <- min(TC, s |Z(m)| / |cc|)
//   zc <- A zc                          cc <- A cc + 1   (Julia: cc = 0)
// so while |u| < T and |dc| < TC the pixel's dz(m) = zc u + cc dc stays below 2 s |Z(m)| at
// every linearized step, and the dropped terms below eps = (p - 1) s of the kept ones.
// Entries end where the reference comes close to 0 (a "dip": |Z(m)| far below every |Z| the
// entry has passed), so the near-zero passage is always the exact first step of the next
// entry; higher stages compose consecutive entries of the stage below (at each junction b the
// next entry's u is linearized, u2 ~ A(b) dz(b), which the same two bounds keep small, and
// each half of it is kept below half of the next entry's T). An entry's stages at one index
// form a chain whose thresholds only shrink, so a pixel takes the longest valid one bottom
// up, as with BLA.

/// One LA entry in the delta type D.
@usableFromInline package struct LAEntry<D: DeltaScalar>: Sendable {
    /// The coefficient of the exact step's u: dz after the entry is zc u + cc dc.
    @usableFromInline package var zc: Complex<D>
    /// The coefficient of dc (zero for Julia).
    @usableFromInline package var cc: Complex<D>
    /// Valid while |u| < threshold and |dc| < dcThreshold (zero: never).
    @usableFromInline package var threshold: D
    /// The bound on |dc| below which the entry is valid (see `threshold`).
    @usableFromInline package var dcThreshold: D
    /// 1 / the truncation bounds (the thresholds without the escape gaps' caps), for the
    /// step's truncation estimate.
    @usableFromInline package var inverseThreshold: D
    /// 1 / the dc truncation bound (see `inverseThreshold`; zero where that bound is zero).
    @usableFromInline package var inverseDCThreshold: D
    /// |zc|^2 = stretchSignificand * 2^stretchExponent: the linear part's stretch of |dz/dc|^2.
    @usableFromInline package var stretchSignificand: Double
    /// The binary exponent of |zc|^2 (see `stretchSignificand`).
    @usableFromInline package var stretchExponent: Int
    /// |cc| = ccSignificand * 2^ccExponent: the entry's additive term in dz/dc.
    @usableFromInline package var ccSignificand: Double
    /// The binary exponent of |cc| (see `ccSignificand`).
    @usableFromInline package var ccExponent: Int
    /// Iterations the entry covers.
    @usableFromInline package var length: Int
    /// One past the last entry of this entry's chain (the same start, higher stages).
    @usableFromInline package var chainEnd: Int

    @inlinable
    init(
        zc: Complex<D>, cc: Complex<D>, threshold: D, dcThreshold: D, truncation: D, dcTruncation: D, length: Int,
        chainEnd: Int
    ) {
        self.zc = zc
        self.cc = cc
        self.threshold = threshold
        self.dcThreshold = dcThreshold
        inverseThreshold = truncation > .zero ? D.one / truncation : .zero
        inverseDCThreshold = dcTruncation > .zero ? D.one / dcTruncation : .zero
        (stretchSignificand, stretchExponent) = zc.floatExpLengthSquared.parts
        (ccSignificand, ccExponent) = D.complexMagnitude(cc.re, cc.im).floatExpValue.parts
        self.length = length
        self.chainEnd = chainEnd
    }

    /// dz after the entry, from the exact step's u.
    @inlinable @inline(__always)
    package func apply(_ u: Complex<D>, _ dc: Complex<D>) -> Complex<D> { zc * u + cc * dc }

    /// ((|u| / T)^2 + (|dc| / TC)^2) / 8 with the truncation bounds T, TC: the step's truncation is below 2 eps sqrt(load) relative
    /// to dz, as a BLA step's is below 2 eps |dz| / radius (`PixelRun.blaLoad`).
    @inlinable @inline(__always)
    package func load(_ u: Complex<D>, _ dc: Complex<D>) -> Double {
        let ur = (u.re * inverseThreshold).leadingDouble, ui = (u.im * inverseThreshold).leadingDouble
        let cr = (dc.re * inverseDCThreshold).leadingDouble, ci = (dc.im * inverseDCThreshold).leadingDouble
        return (ur * ur + ui * ui + cr * cr + ci * ci) * 0.125
    }
}

/// LA stages for one reference orbit: the entries in chains by start index, and per orbit
/// index where its chain begins.
@usableFromInline package struct LATable<D: DeltaScalar>: Sendable {
    /// The chains one after another: at each start, stage 0's entry, then stage 1's, ...
    @usableFromInline package let entries: [LAEntry<D>]
    /// Per reference index m: the offset of the chain starting at m, or minus the distance to
    /// the next start (-1 at the orbit's last index).
    @usableFromInline package let chainAt: [ChainOffset]
    /// A chain offset as `chainAt` holds it (a GPU backend checks its size).
    @usableFromInline package typealias ChainOffset = Int32
    /// Entries per stage, stage 0 first.
    @usableFromInline package let stageSizes: [Int]
    /// Per entry, a bound on |cc| without cancellation (`LABuilder.Entry.ccBound`), kept apart
    /// from the entries the kernels read.
    @usableFromInline package let ccBounds: [D]
    /// The relative truncation tolerance the entries were built for.
    @usableFromInline package let epsilon: Double

    /// Stage-0 period detection: a dip is |Z(m)| < 2^-6 of the entry's smallest |Z| so far;
    /// higher stages 2^-3 (Imagina's, FractalShark's and Fractal Zoomer's defaults).
    static var stage0Dip: Double { 0x1p-6 }
    static var stageDip: Double { 0x1p-3 }
    /// A stage whose first period spans more than this many entries of the stage below gets a
    /// synthetic period of about this many instead (Imagina allows 64 and then aims at ~16;
    /// 16 here: flake 1e-50 took 65 loop steps a pixel at 2^-24 against 118 with 64, because
    /// its first period of 46 stage-0 entries left no stage between; Documentation/Benchmarks.md).
    static var maxFanout: Int { 16 }
    static var maxStages: Int { 64 }

    /// `orbit` = Z(0) ... Z(N); `addsDC` false for Julia; truncation below `epsilon` relative.
    /// `escapeGaps`: the orbit's exact 4 - |Z|^2 where Double cannot tell |Z| from 2.
    @usableFromInline package init(
        orbit: [Complex<D>], epsilon: Double, addsDC: Bool = true, power: Int = 2, escapeGaps: [Int: FloatExp] = [:],
        spanning: Bool = false, threads: Int = 1
    ) {
        self.init(
            orbit: orbit, epsilon: epsilon, addsDC: addsDC, power: power, escapeGaps: escapeGaps, spanning: spanning,
            threads: threads
        ) { $0 }
    }

    /// Built in W (`orbit` in W, each coefficient rounded to D once by `converting`). With
    /// `spanning` (an orbit of one period, wrapped) the chain at 0 ends in one entry over the
    /// whole orbit, the return map, even where the stages stop before it (at dips inside the
    /// period). Each stage's entries are composed on up to `threads` threads (the same table
    /// for any count: where entries end depends on the orbit's magnitudes alone).
    @usableFromInline package init<W: DeltaScalar>(
        orbit: [Complex<W>], epsilon: Double, addsDC: Bool = true, power: Int = 2, escapeGaps: [Int: FloatExp] = [:],
        spanning: Bool = false, threads: Int = 1, converting: @Sendable (W) -> D
    ) {
        self.init(
            orbit: LAOrbit.values(orbit), epsilon: epsilon, addsDC: addsDC, power: power, escapeGaps: escapeGaps,
            spanning: spanning, threads: threads, converting: converting)
    }

    /// Built in W from `reference`, read in order as the entries are composed (the orbit is
    /// never held decoded): the same table as from its values in W. `lowestStage` > 0 keeps
    /// only the stages from it up (a lean table: its chains start at that stage's entries).
    @usableFromInline package init<W: DeltaScalar>(
        reference: ReferenceOrbit, as _: W.Type, epsilon: Double, addsDC: Bool = true, power: Int = 2,
        spanning: Bool = false, threads: Int = 1, lowestStage: Int = 0, converting: @Sendable (W) -> D
    ) {
        self.init(
            orbit: LAOrbit<W>.reference(reference), epsilon: epsilon, addsDC: addsDC, power: power,
            escapeGaps: reference.escapeGaps, spanning: spanning, threads: threads, lowestStage: lowestStage,
            converting: converting)
    }

    /// `lowestStage`: the stages below it are not kept (their entries only composed into it);
    /// chains then start at its entries' starts.
    init<W: DeltaScalar>(
        orbit: LAOrbit<W>, epsilon: Double, addsDC: Bool, power: Int, escapeGaps: [Int: FloatExp],
        spanning: Bool, threads: Int, lowestStage: Int = 0, converting: @Sendable (W) -> D
    ) {
        let chains = LAChains(
            orbit: orbit, riskyLog2: LABuilder<W>.riskyLog2(epsilon: epsilon, power: power), addsDC: addsDC,
            power: power, escapeGaps: escapeGaps, spanning: spanning, threads: threads, lowestStage: lowestStage)
        self.init(chains: chains, epsilon: epsilon, threads: threads, converting: converting)
    }

    /// The table at `epsilon` from chains built for it (`LAChains.serves`): each entry's
    /// bounds at s = epsilon / (p - 1), its coefficients rounded to D once.
    package init<W: DeltaScalar>(
        chains: LAChains<W>, epsilon: Double, threads: Int = 1, converting: @Sendable (W) -> D
    ) {
        precondition(chains.serves(epsilon: epsilon), "LA chains built for another epsilon's layout")
        self.epsilon = epsilon
        chainAt = chains.chainAt
        stageSizes = chains.stageSizes
        let s = W(epsilon / Double(chains.power - 1))
        let built = chains.entries
        let total = built.count
        @Sendable func c(_ z: Complex<W>) -> Complex<D> { Complex(converting(z.re), converting(z.im)) }
        var bounds = [D](repeating: .zero, count: total)
        // (None: an empty array, not `unsafeUninitializedCapacity: 0`; ApproximationTable says why.)
        entries =
            total == 0
            ? []
            : bounds.withUnsafeMutableBufferPointer { boundsBuffer in
                let boundsOut = SendablePointer(boundsBuffer.baseAddress!)
                return [LAEntry<D>](unsafeUninitializedCapacity: total) { buffer, initialized in
                    let out = SendablePointer(buffer.baseAddress!)
                    Parallel.forEachChunk(total, threads: threads, minimumCount: 4096) { range in
                        for i in range {
                            let e = built[i]
                            (out.pointer + i).initialize(
                                to: LAEntry(
                                    zc: c(e.zc), cc: c(e.cc), threshold: converting(e.t.at(s)),
                                    dcThreshold: converting(e.tc.at(s)), truncation: converting(e.truncation.at(s)),
                                    dcTruncation: converting(e.dcTruncation.at(s)), length: e.length,
                                    chainEnd: e.chainEnd))
                            boundsOut.pointer[i] = converting(e.ccBound)
                        }
                    }
                    initialized = total
                }
            }
        ccBounds = bounds
    }

    /// Calls `body` with a view of the table for a kernel's inner loop.
    @inlinable
    package func withView<R>(_ body: (LAView<D>) -> R) -> R {
        // No entries (an orbit too short, or too many for Int32 offsets): no LA at all, as a GPU
        // pass sees it (an empty array's buffer may still have an address).
        if entries.isEmpty { return body(.none) }
        return entries.withUnsafeBufferPointer { e in
            chainAt.withUnsafeBufferPointer { c in
                body(LAView(entries: e.baseAddress, chainAt: c.baseAddress))
            }
        }
    }
}

/// An LA table as raw pointers, valid inside `LATable.withView`.
@usableFromInline package struct LAView<D: DeltaScalar> {
    @usableFromInline let entries: UnsafePointer<LAEntry<D>>?
    @usableFromInline let chainAt: UnsafePointer<Int32>?

    @inlinable
    init(entries: UnsafePointer<LAEntry<D>>?, chainAt: UnsafePointer<Int32>?) {
        self.entries = entries
        self.chainAt = chainAt
    }

    @inlinable package static var none: LAView { LAView(entries: nil, chainAt: nil) }

    @inlinable package var isEmpty: Bool { entries == nil }

    /// The chain offset at reference index m (>= 0), or minus the distance to the next start.
    @inlinable @inline(__always)
    package func chain(at m: Int) -> Int { Int(chainAt![m]) }

    @inlinable
    package subscript(index: Int) -> LAEntry<D> { entries![index] }

    /// The longest entry of the chain at `offset` that holds for u and dc and covers at most
    /// `maxLength` iterations.
    @inlinable @inline(__always)
    package func longest(chain offset: Int, u: Complex<D>, dc: Complex<D>, maxLength: Int) -> Int? {
        guard let entries else { return nil }
        let end = entries[offset].chainEnd
        var best: Int? = nil
        var i = offset
        while i < end {
            let e = entries[i]
            guard e.length <= maxLength, D.magnitude(u.re, u.im, isBelow: e.threshold),
                D.magnitude(dc.re, dc.im, isBelow: e.dcThreshold)
            else { break }
            best = i
            i &+= 1
        }
        return best
    }
}

/// The orbit an LA table is built from: its values in the build's type, or a reference orbit
/// decoded as the build reads it, so that none of it is held decoded.
enum LAOrbit<W: DeltaScalar>: Sendable {
    case values([Complex<W>])
    case reference(ReferenceOrbit)

    var count: Int {
        switch self {
        case .values(let v): v.count
        case .reference(let o): o.count
        }
    }

    /// Reads the orbit in order from step `n`.
    struct Reader {
        private var values: [Complex<W>]?
        private var reader: ReferenceOrbit.Reader<W>?
        private var step: Int

        init(_ orbit: LAOrbit<W>, at n: Int) {
            step = n
            switch orbit {
            case .values(let v): values = v
            case .reference(let o): reader = ReferenceOrbit.Reader<W>(o, at: n)
            }
        }

        /// Z(j), for j the step read last or the one after it.
        mutating func value(at j: Int) -> Complex<W> {
            if let values { return values[j] }
            if j != step {
                precondition(j == step + 1, "an LA build reads its orbit in order")
                reader!.advance()
                step = j
            }
            return reader!.value
        }
    }
}

/// A threshold of an LA entry as a function of the scale s = epsilon / (p - 1): min(s a, b), with
/// a and b independent of s (b alone where `scales` is false). The builder's thresholds are
/// minima of terms s x and y (`LABuilder.composite`), so one build serves every epsilon: each
/// table evaluates the bounds at its own s (`at`). Each part goes through `valid` on its own:
/// where x alone overflows but s x would not (a double-double build's |zc| with a subnormal
/// leading word) the entry is never taken, where the nested minima kept s x: conservative.
struct LABound<D: DeltaScalar>: Sendable {
    /// a: the smallest term proportional to s, over s (where `scales`).
    var perScale: D
    /// b: the smallest term independent of s.
    var fixed: D
    var scales: Bool

    static var one: LABound { LABound(perScale: .zero, fixed: .one, scales: false) }
    static var zero: LABound { LABound(perScale: .zero, fixed: .zero, scales: false) }

    private static func min(_ a: D, _ b: D) -> D { b < a ? b : a }

    /// The bound at s.
    func at(_ s: D) -> D { scales ? Self.min(s * perScale, fixed) : fixed }

    /// Also below s x.
    func minimum(perScale x: D) -> LABound {
        LABound(perScale: scales ? Self.min(perScale, x) : x, fixed: fixed, scales: true)
    }

    /// Also below y.
    func minimum(fixed y: D) -> LABound { LABound(perScale: perScale, fixed: Self.min(fixed, y), scales: scales) }

    /// Also below `other`.
    func minimum(_ other: LABound) -> LABound {
        let r = minimum(fixed: other.fixed)
        return other.scales ? r.minimum(perScale: other.perScale) : r
    }

    var halved: LABound { LABound(perScale: perScale.scaled(by: 0.5), fixed: fixed.scaled(by: 0.5), scales: scales) }

    /// The bound over x, each part through `valid` (a non-finite or non-positive part: 0).
    func divided(by x: D, _ valid: (D) -> D) -> LABound {
        LABound(perScale: scales ? valid(perScale / x) : .zero, fixed: valid(fixed / x), scales: scales)
    }
}

/// An LA table's chains before its epsilon is chosen: the entries in the build's type W, with
/// their bounds as functions of s (`LABound`). The tables at every epsilon of the same layout
/// (`serves`) in every delta type built in W (Double and DoubleDouble deltas in DoubleDouble,
/// FloatExp and DoubleDoubleExp in DoubleDoubleExp) come from one build
/// (`LATable.init(chains:epsilon:threads:converting:)`; `ApproximationTables` keeps them for the
/// render). `lowestStage` > 0 keeps only the stages from it up.
package final class LAChains<W: DeltaScalar>: Sendable {
    struct Entry: Sendable {
        let zc: Complex<W>
        let cc: Complex<W>
        let t: LABound<W>
        let tc: LABound<W>
        let truncation: LABound<W>
        let dcTruncation: LABound<W>
        let ccBound: W
        let length: Int
        let chainEnd: Int
    }

    /// The chains one after another, as `LATable.entries`.
    let entries: [Entry]
    /// As `LATable.chainAt`.
    let chainAt: [Int32]
    let stageSizes: [Int]
    let power: Int
    /// The layout's risky magnitude (`LABuilder.riskyLog2`).
    let riskyLog2: Double

    /// Whether a table at `epsilon` has this layout.
    package func serves(epsilon: Double) -> Bool { LABuilder<W>.riskyLog2(epsilon: epsilon, power: power) == riskyLog2 }

    /// The chains of the orbit `orbit` = Z(0) ... Z(N) for tables at `epsilon` (see
    /// `LATable.init(orbit:epsilon:addsDC:power:escapeGaps:spanning:threads:)`).
    package convenience init(
        orbit: [Complex<W>], epsilon: Double, addsDC: Bool = true, power: Int = 2, escapeGaps: [Int: FloatExp] = [:],
        spanning: Bool = false, threads: Int = 1
    ) {
        self.init(
            orbit: .values(orbit), riskyLog2: LABuilder<W>.riskyLog2(epsilon: epsilon, power: power), addsDC: addsDC,
            power: power, escapeGaps: escapeGaps, spanning: spanning, threads: threads)
    }

    /// Bytes held.
    var bytes: Int { entries.count * MemoryLayout<Entry>.stride + chainAt.count * MemoryLayout<Int32>.stride }

    init(
        orbit: LAOrbit<W>, riskyLog2: Double, addsDC: Bool, power: Int, escapeGaps: [Int: FloatExp], spanning: Bool,
        threads: Int, lowestStage: Int = 0
    ) {
        self.power = power
        self.riskyLog2 = riskyLog2
        let n = orbit.count - 1
        guard n >= 1, n < Int(Int32.max) else {
            entries = []
            chainAt = orbit.count == 0 ? [] : [Int32](repeating: -1, count: orbit.count)
            stageSizes = []
            return
        }
        var builder = LABuilder<W>(
            orbit: orbit, riskyLog2: riskyLog2, addsDC: addsDC, power: power, gaps: escapeGaps, threads: threads)
        // A whole table is built fast (stage 0's plan from magnitudes found on all threads); a
        // lean one in little memory (the plan reads the orbit in order).
        if lowestStage == 0 { builder.magnitudes = builder.findMagnitudes() }
        // The plans live only while the entries are composed.
        var stages = { () -> [[LABuilder<W>.Entry]] in
            let plans = builder.plans()
            return builder.stages(plans, from: Swift.min(lowestStage, plans.count - 1))
        }()
        if spanning, let last = stages.last, last.count > 1 {
            stages.append([last.dropFirst().reduce(last[0], builder.composite)])
        }
        // Chain offsets are Int32: past them, no LA (the BLA levels or plain steps take over).
        guard stages.reduce(0, { $0 + $1.count }) < Int(Int32.max) else {
            entries = []
            chainAt = [Int32](repeating: -1, count: orbit.count)
            stageSizes = []
            return
        }
        stageSizes = stages.map(\.count)
        // Which entries make each chain and where it lies, then the entries themselves and the
        // offsets, in parallel.
        let built = stages
        let (chains, offsets) = LABuilder<W>.chains(built)
        let total = chains.count
        // (None: an empty array, not `unsafeUninitializedCapacity: 0`; ApproximationTable says why.)
        entries =
            total == 0
            ? []
            : [Entry](unsafeUninitializedCapacity: total) { buffer, initialized in
                let out = SendablePointer(buffer.baseAddress!)
                Parallel.forEachChunk(total, threads: threads, minimumCount: 4096) { range in
                    for i in range {
                        let member = chains[i]
                        let e = built[member.stage][member.index]
                        (out.pointer + i).initialize(
                            to: Entry(
                                zc: e.zc, cc: e.cc, t: e.t, tc: e.tc, truncation: e.truncation,
                                dcTruncation: e.dcTruncation, ccBound: e.ccBound, length: e.length,
                                chainEnd: member.chainEnd))
                    }
                }
                initialized = total
            }
        var at = [Int32](repeating: 0, count: orbit.count)
        at.withUnsafeMutableBufferPointer { atBuffer in
            let atOut = SendablePointer(atBuffer.baseAddress!)
            Parallel.forEachChunk(built[0].count, threads: threads, minimumCount: 1024) { range in
                for k in range {
                    let first = built[0][k]
                    atOut.pointer[first.start] = Int32(offsets[k])
                    for j in 1..<first.length { atOut.pointer[first.start + j] = Int32(-(first.length - j)) }
                }
            }
        }
        at[n] = -1
        chainAt = at
    }
}

/// The construction of LA stages (`LATable`): first where every stage's entries lie, from
/// the orbit's magnitudes alone (`Plan`), then the entries of the stages kept, composed in
/// parallel, the lowest kept stage straight from the orbit read in order.
struct LABuilder<D: DeltaScalar>: Sendable {
    /// An entry while stages are built.
    struct Entry: Sendable {
        var start: Int
        var length: Int
        var zc: Complex<D>
        var cc: Complex<D>
        /// Where the entry holds (truncation and, near |Z| = 2, the escape gaps).
        var t: LABound<D>
        var tc: LABound<D>
        /// The truncation bounds alone: the step's load is measured against these.
        var truncation: LABound<D>
        var dcTruncation: LABound<D>
        /// log2 of the smallest |Z| the entry linearizes at (2, for |Z| = 4, in a fresh entry).
        var minMag: Double
        /// A bound on |cc| without cancellation (|A| bound + 1 along the entry): the interior
        /// proof's truncation term needs the dc parts' sizes before they cancel.
        var ccBound: D
        /// Z(start) and log2 |Z(start)|: the junction where an entry before this one joins it.
        var z: Complex<D>
        var startLog2: Double
    }

    /// A stage's entry before it is composed: its first step, its smallest log2 |Z| (as the
    /// composed entry's `minMag`) and log2 |Z(start)|.
    struct Shape: Sendable {
        var start: Int
        var minMag: Double
        var startLog2: Double
    }

    /// Where one stage's entries lie: their shapes and, per entry, the index of its first item
    /// in the stage below (stage 0: its first step), with the items' count last.
    struct Plan: Sendable {
        /// Dropped (empty) once the stage above is planned.
        var shapes: [Shape]
        var firsts: [Int]
        /// The stage ended in one entry per period found no structure above it.
        var isLast: Bool
        var count: Int { firsts.count - 1 }
    }

    let orbit: LAOrbit<D>
    let addsDC: Bool
    let power: Int
    let gaps: [Int: FloatExp]
    let threads: Int
    /// log2 |Z(m)| per step (`magnitude`), where found in advance (`findMagnitudes`).
    var magnitudes: [Double]? = nil
    /// log2 |Z| from which a point is risky (`riskyLog2(epsilon:power:)`).
    let riskyLog2: Double
    let n: Int

    /// log2(2 - 2^-20), lower where a large epsilon lets |z| stray further from |Z| (4 s of
    /// it, here 8 s: log2(2 / (1 + 8 s))). The one place the entries' layout depends on the
    /// epsilon: every epsilon below about 2^-24 gives the same.
    static func riskyLog2(epsilon: Double, power: Int) -> Double {
        Swift.min(0.99999931, 1 - Math.log2(1 + 8 * epsilon / Double(power - 1)))
    }

    init(orbit: LAOrbit<D>, riskyLog2: Double, addsDC: Bool, power: Int, gaps: [Int: FloatExp], threads: Int = 1) {
        self.orbit = orbit
        n = orbit.count - 1
        self.threads = threads
        self.gaps = gaps
        self.riskyLog2 = riskyLog2
        self.addsDC = addsDC
        self.power = power
    }

    /// The chains of `stages` in order: each member's stage, index and chain end, and each
    /// chain's offset (one per entry of the lowest stage). Every stage-k start is a stage-(k-1)
    /// start, so walking the lowest stage in order and each higher stage alongside gives each
    /// chain in stage order.
    static func chains(_ stages: [[Entry]]) -> (members: [(stage: Int, index: Int, chainEnd: Int)], offsets: [Int]) {
        var members: [(stage: Int, index: Int, chainEnd: Int)] = []
        members.reserveCapacity(stages.reduce(0) { $0 + $1.count })
        var offsets: [Int] = []
        offsets.reserveCapacity(stages[0].count)
        var cursors = [Int](repeating: 0, count: stages.count)
        for (index, first) in stages[0].enumerated() {
            offsets.append(members.count)
            var chain = [(stage: 0, index: index)]
            for k in 1..<stages.count {
                let c = cursors[k]
                guard c < stages[k].count, stages[k][c].start == first.start else { break }
                cursors[k] = c + 1
                // A stage that closed its entry at once holds the entry below again.
                let last = chain.last!
                if stages[k][c].length > stages[last.stage][last.index].length {
                    chain.append((stage: k, index: c))
                }
            }
            let end = members.count + chain.count
            members += chain.map { (stage: $0.stage, index: $0.index, chainEnd: end) }
        }
        return (members, offsets)
    }

    /// `magnitudes`, on all threads, each reading its part of the orbit from the key before it.
    func findMagnitudes() -> [Double] {
        let count = orbit.count
        return [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = SendablePointer(buffer.baseAddress!)
            Parallel.forEachChunk(count, threads: threads, minimumCount: 4096) { range in
                guard let first = range.first else { return }
                var reader = LAOrbit<D>.Reader(orbit, at: first)
                for m in range { (out.pointer + m).initialize(to: magnitude(reader.value(at: m))) }
            }
            initialized = count
        }
    }

    /// log2 |z| (through FloatExp: tiny |Z| stay apart from 0), for the dip tests.
    func magnitude(_ z: Complex<D>) -> Double { D.complexMagnitude(z.re, z.im).floatExpValue.log2Magnitude }

    /// log2 |Z(m)| at least log2(2 - 2^-20): there the bound |dz| < 2 s |Z| alone could let a
    /// pixel pass |z| = 2 inside an entry, so the gap bounds it too (`gapBound`).
    func risky(_ logMagnitude: Double) -> Bool { logMagnitude >= riskyLog2 }

    /// Where Z(m) = z is risky, a fifth of g = 4 - |Z(m)|^2 (exact from the orbit where Double
    /// cannot tell, else in Double less 2^-10 of it): while |dz(m)| < g / 5,
    /// |z|^2 - |Z|^2 <= 2 |Z| |dz| + |dz|^2 < g and the pixel stays inside |z| = 2.
    func gapBound(_ m: Int, _ z: Complex<D>) -> D {
        if let g = gaps[m] { return D(g).scaled(by: 0.2) }
        let x = z.re.leadingDouble, y = z.im.leadingDouble
        return D(Swift.max(0, (4 - (x * x + y * y)) * (1 - 0x1p-10) * 0.2))
    }

    /// A fresh entry at m (Z(m) = z): just the exact step.
    func fresh(_ m: Int, _ z: Complex<D>) -> Entry {
        Entry(
            start: m, length: 1, zc: Complex(.one, .zero), cc: Complex(addsDC ? .one : .zero, .zero), t: .one,
            tc: .one, truncation: .one, dcTruncation: .one, minMag: 2, ccBound: addsDC ? .one : .zero, z: z,
            startLog2: magnitude(z))
    }

    /// A finite positive value, else 0 (overflow or a zero |Z| makes an entry never valid).
    func valid(_ x: D) -> D { x.floatExpValue.isFinite && x > .zero ? x : .zero }

    /// x followed by y (y starts where x ends), linearizing y's exact step at the junction.
    func composite(_ x: Entry, _ y: Entry) -> Entry {
        let b = y.start
        let zb = y.z
        let zbMag = D.complexMagnitude(zb.re, zb.im)
        let zcMag = D.complexMagnitude(x.zc.re, x.zc.im), ccMag = D.complexMagnitude(x.cc.re, x.cc.im)
        // A = f'(Z(b)) = p Z(b)^(p-1).
        var a = Complex(zb.re.doubled, zb.im.doubled)
        if power > 2 {
            var zp = zb
            for _ in 2..<power { zp = zp * zb }
            a = zp * D(Double(power))
        }
        let zp = a * x.zc, cp = a * x.cc
        let zpMag = D.complexMagnitude(zp.re, zp.im), cpMag = D.complexMagnitude(cp.re, cp.im)
        /// The composite's thresholds from x's and y's: dz(b) = zc u + cc dc below s |Z(b)| in
        /// each part (x's absorbed points' bound at b), y's linearized u, zp u + cp dc, below
        /// y's threshold in each half. As functions of s (`LABound`).
        func joined(_ xt: LABound<D>, _ xtc: LABound<D>, _ yt: LABound<D>, _ ytc: LABound<D>) -> (
            LABound<D>, LABound<D>
        ) {
            let half = yt.halved
            let t = xt.minimum(perScale: valid(zbMag / zcMag)).minimum(half.divided(by: zpMag, valid))
            guard addsDC else { return (t, xtc) }
            let tc = xtc.minimum(perScale: valid(zbMag / ccMag)).minimum(half.divided(by: cpMag, valid)).minimum(ytc)
            return (t, tc)
        }
        var (t, tc) = joined(x.t, x.tc, y.t, y.tc)
        let (truncation, dcTruncation) = joined(x.truncation, x.dcTruncation, y.truncation, y.dcTruncation)
        let bLog2 = y.startLog2
        if risky(bLog2) {
            // Validity only: dz(b) = zc u + cc dc, each half below the gap's bound.
            let half = gapBound(b, zb).scaled(by: 0.5)
            t = t.minimum(fixed: valid(half / zcMag))
            if addsDC { tc = tc.minimum(fixed: valid(half / ccMag)) }
        }
        let zc = y.zc * zp, cc = y.zc * cp + y.cc
        // Through FloatExp: the extended types' leading Double overflows past 2^1024.
        let finite =
            zc.re.floatExpValue.isFinite && zc.im.floatExpValue.isFinite && cc.re.floatExpValue.isFinite
            && cc.im.floatExpValue.isFinite
        return Entry(
            start: x.start, length: x.length + y.length, zc: zc, cc: cc, t: finite ? t : .zero,
            tc: finite ? tc : .zero, truncation: truncation, dcTruncation: dcTruncation,
            minMag: Swift.min(bLog2, x.minMag, y.minMag),
            ccBound: D.complexMagnitude(y.zc.re, y.zc.im) * D.complexMagnitude(a.re, a.im) * x.ccBound + y.ccBound,
            z: x.z, startLog2: x.startLog2)
    }

    /// round(R^(1/k)) with k = ceil(log_16(R)), at least 2: a synthetic period of at most 16
    /// entries, so that k stages span R.
    static func synthetic(_ r: Int) -> Int {
        let f = Double(LATable<D>.maxFanout)
        let k = Swift.max(1, (Math.log2(Double(r)) / Math.log2(f)).rounded(.up))
        return Swift.max(2, Int(Math.pow(Double(r), 1 / k).rounded()))
    }

    /// The stages' plans, the lowest first, up to the stage that spans the orbit (or that no
    /// longer merges entries).
    func plans() -> [Plan] {
        var plans = [plan(below: nil, dip: LATable<D>.stage0Dip)]
        while plans.count < LATable<D>.maxStages, plans.last!.count > 1, !plans.last!.isLast {
            let next = plan(below: plans.last!.shapes, dip: LATable<D>.stageDip)
            guard next.count < plans.last!.count else { break }
            // Only the top stage's shapes plan the next (stage 0's: 24 bytes an entry).
            plans[plans.count - 1].shapes = []
            plans.append(next)
        }
        return plans
    }

    /// Calls `body` with each item of the stage above `below` (nil: the orbit's steps) in
    /// order from item `from`: its index, first step, smallest log2 |Z| and log2 |Z(start)|,
    /// until it returns false.
    func items(_ below: [Shape]?, from: Int, _ body: (Int, Int, Double, Double) -> Bool) {
        if let below {
            for j in from..<below.count where !body(j, below[j].start, below[j].minMag, below[j].startLog2) { return }
            return
        }
        // The orbit's steps, each a fresh entry (smallest |Z| 2), read in order.
        if let magnitudes {
            for j in from..<n where !body(j, j, 2, magnitudes[j]) { return }
            return
        }
        var reader = LAOrbit<D>.Reader(orbit, at: from)
        for j in from..<n where !body(j, j, 2, magnitude(reader.value(at: j))) { return }
    }

    /// The next stage's plan: over `below`'s entries (nil: the orbit's single exact steps),
    /// closing an entry at a dip (|Z| below `dip` times the entry's smallest |Z|, as log2),
    /// where the period found by the first dip is reached. It reads only the magnitudes.
    func plan(below: [Shape]?, dip: Double) -> Plan {
        let count = below?.count ?? n
        let dipLog2 = Math.log2(dip)
        let unit = below.map { $0.count > 1 ? $0[1].start - $0[0].start : n } ?? 1
        let firstMinMag = below?[0].minMag ?? 2
        // The period: where the first dip comes, the first absorption untested (the entries
        // so far composed only as far as their smallest |Z|, all the test reads).
        var probeMin = firstMinMag
        var found: Int? = nil
        if count > 1 {
            items(below, from: 1) { j, start, minMag, mag in
                if j >= 2 && mag < probeMin + dipLog2 {
                    found = start
                    return false
                }
                probeMin = Swift.min(mag, probeMin, minMag)
                return true
            }
        }
        var period: Int
        var isLast = false
        if let found {
            period = found
            if period > LATable<D>.maxFanout * unit { period = unit * Self.synthetic(period / unit) }
        } else if n / unit > LATable<D>.maxFanout {
            period = unit * Self.synthetic(n / unit)
        } else {
            period = n
            isLast = true
        }
        // Where entries end, from the magnitudes alone (an entry's smallest |Z| is that of the
        // points it absorbs and of its parts): the indices of the items that start one.
        var firsts = [0]
        var shapes: [Shape] = []
        var entryStart = 0
        var entryMin = firstMinMag
        var entryLog2 = 0.0
        // The first absorption of an entry is untested (a fresh entry's smallest |Z| is 4, not
        // yet the orbit's) unless the point is a dip against the entry just closed (for the
        // first entry: against |Z| = 4). Taking the first junction of a stage unconditionally
        // instead (Imagina) let top entries from 0 span deep dips: tlaloc 3.2e-213 then flagged
        // 43,146 pixels at risk, 0 this way (Documentation/Benchmarks.md).
        var untested = true
        var closedMin = 2.0
        items(below, from: 0) { j, b, minMag, mag in
            guard j > 0 else {
                entryStart = b
                entryLog2 = mag
                return true
            }
            // Stage 0 also starts an entry at each risky point (its exact step takes it there);
            // higher stages may span it, within the gap's bound (`composite`).
            let close =
                (below == nil && risky(mag))
                || (untested && !(mag < closedMin + dipLog2)
                    ? false : mag < entryMin + dipLog2 || b - entryStart >= period)
            if close {
                firsts.append(j)
                shapes.append(Shape(start: entryStart, minMag: entryMin, startLog2: entryLog2))
                closedMin = Swift.min(entryMin, mag)
                entryStart = b
                entryMin = minMag
                entryLog2 = mag
                untested = true
            } else {
                entryMin = Swift.min(mag, entryMin, minMag)
                untested = false
            }
            return true
        }
        shapes.append(Shape(start: entryStart, minMag: entryMin, startLog2: entryLog2))
        firsts.append(Swift.max(1, count))
        return Plan(shapes: shapes, firsts: firsts, isLast: isLast)
    }

    /// Stage k's entry i, composed from the orbit read in order by `reader` (at its start).
    func compose(_ plans: [Plan], stage k: Int, entry i: Int, reader: inout LAOrbit<D>.Reader) -> Entry {
        let first = plans[k].firsts[i], end = plans[k].firsts[i + 1]
        if k == 0 {
            var entry = fresh(first, reader.value(at: first))
            for j in (first + 1)..<end { entry = composite(entry, fresh(j, reader.value(at: j))) }
            return entry
        }
        var entry = compose(plans, stage: k - 1, entry: first, reader: &reader)
        for j in (first + 1)..<end { entry = composite(entry, compose(plans, stage: k - 1, entry: j, reader: &reader)) }
        return entry
    }

    /// The first step of entry `i` of stage `k`: its first item's, down to stage 0's.
    static func start(_ plans: [Plan], stage k: Int, entry i: Int) -> Int {
        var j = i
        for s in stride(from: k, through: 0, by: -1) { j = plans[s].firsts[j] }
        return j
    }

    /// The entries of stages `lowest`... of `plans`: the lowest composed from the orbit, each
    /// one above from the one below, each stage's entries in parallel.
    func stages(_ plans: [Plan], from lowest: Int) -> [[Entry]] {
        var stages: [[Entry]] = []
        for k in lowest..<plans.count {
            let count = plans[k].count
            let below = stages.last
            stages.append(
                [Entry](unsafeUninitializedCapacity: count) { buffer, initialized in
                    let target = SendablePointer(buffer.baseAddress!)
                    Parallel.forEachChunk(count, threads: threads, minimumCount: 256) { range in
                        guard let first = range.first else { return }
                        if let below {
                            for i in range {
                                let items = plans[k].firsts[i]..<plans[k].firsts[i + 1]
                                var entry = below[items.lowerBound]
                                for j in items.dropFirst() { entry = composite(entry, below[j]) }
                                (target.pointer + i).initialize(to: entry)
                            }
                        } else {
                            var reader = LAOrbit<D>.Reader(orbit, at: Self.start(plans, stage: k, entry: first))
                            for i in range {
                                (target.pointer + i).initialize(to: compose(plans, stage: k, entry: i, reader: &reader))
                            }
                        }
                    }
                    initialized = count
                })
        }
        return stages
    }
}
