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
public struct LAEntry<D: DeltaScalar>: Sendable {
    public var zc: Complex<D>
    public var cc: Complex<D>
    /// Valid while |u| < threshold and |dc| < dcThreshold (zero: never).
    public var threshold: D
    public var dcThreshold: D
    /// 1 / the truncation bounds (the thresholds without the escape gaps' caps), for the
    /// step's truncation estimate.
    public var inverseThreshold: D
    public var inverseDCThreshold: D
    /// |zc|^2 = stretchSignificand * 2^stretchExponent: the linear part's stretch of |dz/dc|^2.
    public var stretchSignificand: Double
    public var stretchExponent: Int
    /// |cc| = ccSignificand * 2^ccExponent: the entry's additive term in dz/dc.
    public var ccSignificand: Double
    public var ccExponent: Int
    /// Iterations the entry covers.
    public var length: Int
    /// One past the last entry of this entry's chain (the same start, higher stages).
    public var chainEnd: Int

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
    public func apply(_ u: Complex<D>, _ dc: Complex<D>) -> Complex<D> { zc * u + cc * dc }

    /// ((|u| / T)^2 + (|dc| / TC)^2) / 8 with the truncation bounds T, TC: the step's truncation is below 2 eps sqrt(load) relative
    /// to dz, as a BLA step's is below 2 eps |dz| / radius (`PixelRun.blaLoad`).
    @inlinable @inline(__always)
    public func load(_ u: Complex<D>, _ dc: Complex<D>) -> Double {
        let ur = (u.re * inverseThreshold).leadingDouble, ui = (u.im * inverseThreshold).leadingDouble
        let cr = (dc.re * inverseDCThreshold).leadingDouble, ci = (dc.im * inverseDCThreshold).leadingDouble
        return (ur * ur + ui * ui + cr * cr + ci * ci) * 0.125
    }
}

/// LA stages for one reference orbit: the entries in chains by start index, and per orbit
/// index where its chain begins.
public struct LATable<D: DeltaScalar>: Sendable {
    /// The chains one after another: at each start, stage 0's entry, then stage 1's, ...
    public let entries: [LAEntry<D>]
    /// Per reference index m: the offset of the chain starting at m, or minus the distance to
    /// the next start (-1 at the orbit's last index).
    public let chainAt: [ChainOffset]
    /// A chain offset as `chainAt` holds it (a GPU backend checks its size).
    public typealias ChainOffset = Int32
    /// Entries per stage, stage 0 first.
    public let stageSizes: [Int]
    /// Per entry, a bound on |cc| without cancellation (`LABuilder.Entry.ccBound`), kept apart
    /// from the entries the kernels read.
    public let ccBounds: [D]
    public let epsilon: Double

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
    public init(
        orbit: [Complex<D>], epsilon: Double, addsDC: Bool = true, power: Int = 2, escapeGaps: [Int: FloatExp] = [:],
        spanning: Bool = false
    ) {
        self.init(
            orbit: orbit, epsilon: epsilon, addsDC: addsDC, power: power, escapeGaps: escapeGaps, spanning: spanning
        ) { $0 }
    }

    /// Built in W (`orbit` in W, each coefficient rounded to D once by `converting`). With
    /// `spanning` (an orbit of one period, wrapped) the chain at 0 ends in one entry over the
    /// whole orbit, the return map, even where the stages stop before it (at dips inside the
    /// period).
    public init<W: DeltaScalar>(
        orbit: [Complex<W>], epsilon: Double, addsDC: Bool = true, power: Int = 2, escapeGaps: [Int: FloatExp] = [:],
        spanning: Bool = false, converting: (W) -> D
    ) {
        self.epsilon = epsilon
        let n = orbit.count - 1
        guard n >= 1, n < Int(Int32.max) else {
            entries = []
            chainAt = orbit.isEmpty ? [] : [Int32](repeating: -1, count: orbit.count)
            stageSizes = []
            ccBounds = []
            return
        }
        let builder = LABuilder<W>(orbit: orbit, epsilon: epsilon, addsDC: addsDC, power: power, gaps: escapeGaps)
        var stages = [builder.stage(from: nil, dip: LATable.stage0Dip)]
        while stages.count < LATable.maxStages, stages.last!.entries.count > 1, !stages.last!.isLast {
            let next = builder.stage(from: stages.last!.entries, dip: LATable.stageDip)
            guard next.entries.count < stages.last!.entries.count else { break }
            stages.append(next)
        }
        if spanning, let last = stages.last?.entries, last.count > 1 {
            stages.append(
                LABuilder<W>.Stage(entries: [last.dropFirst().reduce(last[0], builder.composite)], isLast: true))
        }
        // Chain offsets are Int32: past them, no LA (the BLA levels or plain steps take over).
        guard stages.reduce(0, { $0 + $1.entries.count }) < Int(Int32.max) else {
            entries = []
            chainAt = [Int32](repeating: -1, count: orbit.count)
            stageSizes = []
            ccBounds = []
            return
        }
        stageSizes = stages.map(\.entries.count)
        // Chains: every stage-k start is a stage-(k-1) start, so walking stage 0 in order and
        // each higher stage alongside gives each chain in stage order.
        func c(_ z: Complex<W>) -> Complex<D> { Complex(converting(z.re), converting(z.im)) }
        var flat: [LAEntry<D>] = []
        var bounds: [D] = []
        flat.reserveCapacity(stageSizes.reduce(0, +))
        var at = [Int32](repeating: 0, count: orbit.count)
        var cursors = [Int](repeating: 0, count: stages.count)
        for first in stages[0].entries {
            let offset = flat.count
            var chain = [first]
            for k in 1..<stages.count {
                let c = cursors[k]
                guard c < stages[k].entries.count, stages[k].entries[c].start == first.start else { break }
                cursors[k] = c + 1
                // A stage that closed its entry at once holds the entry below again.
                if stages[k].entries[c].length > chain.last!.length { chain.append(stages[k].entries[c]) }
            }
            for e in chain {
                flat.append(
                    LAEntry(
                        zc: c(e.zc), cc: c(e.cc), threshold: converting(e.t), dcThreshold: converting(e.tc),
                        truncation: converting(e.truncation), dcTruncation: converting(e.dcTruncation),
                        length: e.length,
                        chainEnd: offset + chain.count))
                bounds.append(converting(e.ccBound))
            }
            at[first.start] = Int32(offset)
            for j in 1..<first.length { at[first.start + j] = Int32(-(first.length - j)) }
        }
        at[n] = -1
        entries = flat
        ccBounds = bounds
        chainAt = at
    }

    /// Calls `body` with a view of the table for a kernel's inner loop.
    @inlinable
    public func withView<R>(_ body: (LAView<D>) -> R) -> R {
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
public struct LAView<D: DeltaScalar> {
    @usableFromInline let entries: UnsafePointer<LAEntry<D>>?
    @usableFromInline let chainAt: UnsafePointer<Int32>?

    @inlinable
    init(entries: UnsafePointer<LAEntry<D>>?, chainAt: UnsafePointer<Int32>?) {
        self.entries = entries
        self.chainAt = chainAt
    }

    @inlinable public static var none: LAView { LAView(entries: nil, chainAt: nil) }

    @inlinable public var isEmpty: Bool { entries == nil }

    /// The chain offset at reference index m (>= 0), or minus the distance to the next start.
    @inlinable @inline(__always)
    public func chain(at m: Int) -> Int { Int(chainAt![m]) }

    @inlinable
    public subscript(index: Int) -> LAEntry<D> { entries![index] }

    /// The longest entry of the chain at `offset` that holds for u and dc and covers at most
    /// `maxLength` iterations.
    @inlinable @inline(__always)
    public func longest(chain offset: Int, u: Complex<D>, dc: Complex<D>, maxLength: Int) -> Int? {
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

/// The construction of LA stages (`LATable`).
struct LABuilder<D: DeltaScalar> {
    /// An entry while stages are built.
    struct Entry {
        var start: Int
        var length: Int
        var zc: Complex<D>
        var cc: Complex<D>
        /// Where the entry holds (truncation and, near |Z| = 2, the escape gaps).
        var t: D
        var tc: D
        /// The truncation bounds alone: the step's load is measured against these.
        var truncation: D
        var dcTruncation: D
        /// log2 of the smallest |Z| the entry linearizes at (2, for |Z| = 4, in a fresh entry).
        var minMag: Double
        /// A bound on |cc| without cancellation (|A| bound + 1 along the entry): the interior
        /// proof's truncation term needs the dc parts' sizes before they cancel.
        var ccBound: D
    }

    struct Stage {
        var entries: [Entry]
        /// The stage ended in one entry per period found no structure above it.
        var isLast: Bool
    }

    let orbit: [Complex<D>]
    let scale: D
    let addsDC: Bool
    let power: Int
    let gaps: [Int: FloatExp]
    /// log2(2 - 2^-20), lower where a large epsilon lets |z| stray further from |Z| (4 s of
    /// it, here 8 s: log2(2 / (1 + 8 s))).
    let riskyLog2: Double
    var n: Int { orbit.count - 1 }

    init(orbit: [Complex<D>], epsilon: Double, addsDC: Bool, power: Int, gaps: [Int: FloatExp]) {
        self.orbit = orbit
        self.gaps = gaps
        riskyLog2 = Swift.min(0.99999931, 1 - Math.log2(1 + 8 * epsilon / Double(power - 1)))
        scale = D(epsilon / Double(power - 1))
        self.addsDC = addsDC
        self.power = power
    }

    /// log2 |Z(m)|, for the dip tests (through FloatExp: tiny |Z| stay apart from 0).
    func magnitude(_ m: Int) -> Double {
        D.complexMagnitude(orbit[m].re, orbit[m].im).floatExpValue.log2Magnitude
    }

    /// log2 |Z(m)| at least log2(2 - 2^-20): there the bound |dz| < 2 s |Z| alone could let a
    /// pixel pass |z| = 2 inside an entry, so the gap bounds it too (`gapBound`).
    func risky(_ logMagnitude: Double) -> Bool { logMagnitude >= riskyLog2 }

    /// Where Z(m) is risky, a fifth of g = 4 - |Z(m)|^2 (exact from the orbit where Double
    /// cannot tell, else in Double less 2^-10 of it): while |dz(m)| < g / 5,
    /// |z|^2 - |Z|^2 <= 2 |Z| |dz| + |dz|^2 < g and the pixel stays inside |z| = 2.
    func gapBound(_ m: Int) -> D {
        if let g = gaps[m] { return D(g).scaled(by: 0.2) }
        let x = orbit[m].re.leadingDouble, y = orbit[m].im.leadingDouble
        return D(Swift.max(0, (4 - (x * x + y * y)) * (1 - 0x1p-10) * 0.2))
    }

    /// A fresh entry at m: just the exact step.
    func fresh(_ m: Int) -> Entry {
        Entry(
            start: m, length: 1, zc: Complex(.one, .zero), cc: Complex(addsDC ? .one : .zero, .zero), t: .one,
            tc: .one, truncation: .one, dcTruncation: .one, minMag: 2, ccBound: addsDC ? .one : .zero)
    }

    /// A finite positive value, else 0 (overflow or a zero |Z| makes an entry never valid).
    func valid(_ x: D) -> D { x.floatExpValue.isFinite && x > .zero ? x : .zero }

    func minimum(_ a: D, _ b: D) -> D { b < a ? b : a }

    /// x followed by y (y starts where x ends), linearizing y's exact step at the junction.
    func composite(_ x: Entry, _ y: Entry) -> Entry {
        let b = y.start
        let zb = orbit[b]
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
        /// y's threshold in each half.
        func joined(_ xt: D, _ xtc: D, _ yt: D, _ ytc: D) -> (D, D) {
            let half = yt.scaled(by: 0.5)
            let t = minimum(minimum(xt, valid(scale * zbMag / zcMag)), valid(half / zpMag))
            guard addsDC else { return (t, xtc) }
            let tc = minimum(minimum(minimum(xtc, valid(scale * zbMag / ccMag)), valid(half / cpMag)), ytc)
            return (t, tc)
        }
        var (t, tc) = joined(x.t, x.tc, y.t, y.tc)
        let (truncation, dcTruncation) = joined(x.truncation, x.dcTruncation, y.truncation, y.dcTruncation)
        let bLog2 = magnitude(b)
        if risky(bLog2) {
            // Validity only: dz(b) = zc u + cc dc, each half below the gap's bound.
            let half = gapBound(b).scaled(by: 0.5)
            t = minimum(t, valid(half / zcMag))
            if addsDC { tc = minimum(tc, valid(half / ccMag)) }
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
            ccBound: D.complexMagnitude(y.zc.re, y.zc.im) * D.complexMagnitude(a.re, a.im) * x.ccBound + y.ccBound)
    }

    /// round(R^(1/k)) with k = ceil(log_16(R)), at least 2: a synthetic period of at most 16
    /// entries, so that k stages span R.
    static func synthetic(_ r: Int) -> Int {
        let f = Double(LATable<D>.maxFanout)
        let k = Swift.max(1, (Math.log2(Double(r)) / Math.log2(f)).rounded(.up))
        return Swift.max(2, Int(Math.pow(Double(r), 1 / k).rounded()))
    }

    /// The next stage: from `previous` (nil: the orbit's single exact steps), closing an entry
    /// at a dip (|Z| below `dip` times the entry's smallest |Z|, as log2), where the period
    /// found by the first dip is reached.
    func stage(from previous: [Entry]?, dip: Double) -> Stage {
        let count = previous?.count ?? n
        func item(_ j: Int) -> Entry { previous?[j] ?? fresh(j) }
        let dipLog2 = Math.log2(dip)
        let unit = item(0).length
        // The period: where the first dip comes, the first absorption untested.
        var probe = item(0)
        var found: Int? = nil
        for j in 1..<Swift.max(1, count) {
            let next = item(j)
            let mag = magnitude(next.start)
            if j >= 2 && mag < probe.minMag + dipLog2 {
                found = next.start
                break
            }
            probe = composite(probe, next)
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
        var out: [Entry] = []
        var entry = item(0)
        // The first absorption of an entry is untested (a fresh entry's smallest |Z| is 4, not
        // yet the orbit's) unless the point is a dip against the entry just closed (for the
        // first entry: against |Z| = 4). Taking the first junction of a stage unconditionally
        // instead (Imagina) let top entries from 0 span deep dips: tlaloc 3.2e-213 then flagged
        // 43,146 pixels at risk, 0 this way (Documentation/Benchmarks.md).
        var untested = true
        var closedMin = 2.0
        for j in 1..<Swift.max(1, count) {
            let next = item(j)
            let b = next.start
            let mag = magnitude(b)
            // Stage 0 also starts an entry at each risky point (its exact step takes it there);
            // higher stages may span it, within the gap's bound (`composite`).
            let close =
                (previous == nil && risky(mag))
                || (untested && !(mag < closedMin + dipLog2)
                    ? false : mag < entry.minMag + dipLog2 || b - entry.start >= period)
            if close {
                out.append(entry)
                closedMin = Swift.min(entry.minMag, mag)
                entry = next
                untested = true
            } else {
                entry = composite(entry, next)
                untested = false
            }
        }
        out.append(entry)
        return Stage(entries: out, isLast: isLast)
    }
}
