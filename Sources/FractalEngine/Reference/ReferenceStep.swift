import ArbitraryPrecision
internal import CMPFR
import Foundation

/// One way of taking a reference orbit's MPFR steps: on one thread (`SerialStep`), on two in
/// lockstep (`PairStep`), or on a team that shares each product out in pieces (`TeamStep`).
/// All three do the same operations with the same roundings (z^2 = ((x + y)(x - y), 2xy), then
/// + c, each correctly rounded), so the orbit is bit for bit the same whichever runs it.
/// `ReferenceOrbit.compute` picks one (`ReferenceThreading`) and is generic over it.
protocol ReferenceStep {
    /// z's registers after the last step (valid until the next `step`).
    var x: UnsafeMutablePointer<__mpfr_struct> { get }
    var y: UnsafeMutablePointer<__mpfr_struct> { get }
    /// z <- z^p + c.
    mutating func step()
    /// y rounded to a Double and its low word (y - that, rounded; 0 without low words), where
    /// another thread formed them beside y; nil: the caller rounds y itself.
    var storedY: (hi: Double, lo: Double)? { get }
    /// x^2 and y^2 of the current z into `xx` and `yy`, rounded as `mpfr_sqr` rounds.
    mutating func squares(_ xx: UnsafeMutablePointer<__mpfr_struct>, _ yy: UnsafeMutablePointer<__mpfr_struct>)
    /// Ends any threads (once, after the last step).
    func stop()
    /// The next step where what the orbit stores of it comes formed already (a device's
    /// steps, `DeviceStep`); nil: the step is in `x` and `y`, for the caller to round.
    mutating func stored() throws -> DeviceOrbitStep?
}

extension ReferenceStep {
    mutating func stored() throws -> DeviceOrbitStep? {
        step()
        return nil
    }
}

/// Which `ReferenceStep` an orbit of a precision takes with a number of threads, from the
/// precisions where each measures faster than the one before it (Documentation/Perturbation.md,
/// "Reference orbit").
@usableFromInline package enum ReferenceThreading: Equatable, Sendable {
    /// One thread: MPFR's step on the orbit's own thread.
    case serial
    /// (x + y)(x - y) on the orbit's thread, x y on a second, in lockstep.
    case pair
    /// Both products split into `SplitProduct` leaves for `threads` threads.
    case team(threads: Int)

    /// From this precision two threads in lockstep beat one (z^2 + c).
    @usableFromInline package static let pairMinimumBits = 2048
    /// From this precision, with three threads or more, a team beats the pair.
    @usableFromInline package static let teamMinimumBits = 40_000
    /// From this precision a render's primary orbit takes its steps on the GPU backend's
    /// `ReferenceStepDevice` where it has one: on the H200 at 50,000 bits the kernel took
    /// 75.7 us a step against 71.3 for a team of the machine's 16 cores, at 175,000 bits 152
    /// against 300 (Benchmarks.md, "The reference orbit on the GPU").
    @usableFromInline package static let deviceMinimumBits = 60_000

    /// The least speedup over one thread of MPFR's step measured where the pair or a team is
    /// chosen (1.5x: a 4,000-bit orbit on the 16-core machine; Benchmarks.md): what a render's
    /// estimate divides by, so its "up to" stays an upper bound.
    @usableFromInline package static let leastSpeedup = 1.5

    /// The threading for an orbit of z^`power` + c at `bits` with at most `threads` threads.
    @usableFromInline package static func choose(bits: Int, power: Int, threads: Int) -> ReferenceThreading {
        guard power == 2, threads >= 2, bits >= pairMinimumBits else { return .serial }
        if threads >= 3 && bits >= teamMinimumBits { return .team(threads: threads) }
        return .pair
    }
}

/// Spins until `condition` holds: at full speed at first (a handoff is due within a product's
/// time), then with a pause hint, then yielding the core (so a
/// team with more threads than free cores still makes progress).
@inline(__always)
private func spin(until condition: () -> Bool) {
    var spins = 0
    while !condition() {
        spins += 1
        if spins >= 1 << 14 {
            sched_yield()
        } else if spins >= 1 << 8 {
            fathom_cpu_relax()
        }
    }
}

/// Counters shared between a step's threads, each on its own 128-byte line (no false sharing).
/// A plain pointer, not a class: the spinning threads touch no reference count (a shared
/// count would be one more line bouncing between the cores on every test). The owner frees it.
///
/// Unchecked Sendable: a raw pointer, to memory that outlives every thread using it (the owner
/// frees it after `stop` has joined its helpers). The threads touch the counters only through
/// atomic loads, stores and adds (`load`, `store`, `fetchAdd`), and the Double lines only
/// before a release store (the writer) or after the matching acquire load (the reader).
private struct SharedCounters: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    init(count: Int) {
        base = .allocate(byteCount: 128 * count, alignment: 128)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: 128 * count)
    }
    func deallocate() { base.deallocate() }
    @inline(__always) func pointer(_ i: Int) -> UnsafeMutablePointer<Int> {
        (base + 128 * i).assumingMemoryBound(to: Int.self)
    }
    /// Line i as plain Doubles (written before a release store, read after its acquire).
    @inline(__always) func doubles(_ i: Int) -> UnsafeMutablePointer<Double> {
        (base + 128 * i).assumingMemoryBound(to: Double.self)
    }
    @inline(__always) func load(_ i: Int) -> Int { fathom_atomic_load_acquire(pointer(i)) }
    @inline(__always) func store(_ i: Int, _ value: Int) { fathom_atomic_store_release(pointer(i), value) }
    @inline(__always) func fetchAdd(_ i: Int, _ value: Int) -> Int { fathom_atomic_fetch_add(pointer(i), value) }
}

/// A thread for a step's helper work, with a deep enough stack for GMP's temporaries.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 8 << 20
    thread.start()
}

// MARK: - One thread

/// z <- z^p + c on the orbit's own thread (`MPFRStep`'s registers).
struct SerialStep: ReferenceStep {
    let ws: MPFRWorkspace
    let power: Int

    init(z: BigComplex, c: BigComplex, power: Int, precision: Precision) {
        ws = MPFRStep.workspace(z: z, c: c, precision: precision)
        self.power = power
    }

    var x: UnsafeMutablePointer<__mpfr_struct> { ws[0] }
    var y: UnsafeMutablePointer<__mpfr_struct> { ws[1] }
    var storedY: (hi: Double, lo: Double)? { nil }
    @inline(__always) mutating func step() { MPFRStep.zPowerPlusC(ws, power: power) }
    mutating func squares(_ xx: UnsafeMutablePointer<__mpfr_struct>, _ yy: UnsafeMutablePointer<__mpfr_struct>) {
        mpfr_sqr(xx, ws[0], MPFR_RNDN)
        mpfr_sqr(yy, ws[1], MPFR_RNDN)
    }
    func stop() {}
}

// MARK: - Two threads in lockstep

/// z <- z^2 + c on two threads: the orbit's thread forms x' = (x + y)(x - y) + cx while a
/// partner forms y' = 2 x y + cy. Each publishes its half of step m + 1 as soon as it has it
/// (a step count on its own cache line), so the only wait is one handoff a step, and the
/// partner's next product overlaps the orbit thread's stores and tests.
///
/// Registers are double-buffered by step parity: x(m) in `xs[m & 1]` (the orbit thread's) and
/// y(m) in `ys[m & 1]` (the partner's, allocated on its own thread, so in another heap arena).
/// The orbit thread writes x(m + 1) only after it has y(m), so after the partner has read
/// x(m - 1); the partner writes y(m + 2) only after x(m + 1) is published, so after the orbit
/// thread has read y(m) and its caller has read z(m + 1). Near |z| = 2 the partner also squares
/// y (while the orbit thread squares x) for the exact gap 4 - |z|^2, until 64 steps pass
/// without one. The partner also rounds each y to a Double (and its low word), so the orbit
/// thread's stores take only x's share; these go by parity too.
///
/// Unchecked Sendable: the partner's thread holds `self`, whose MPFR registers are raw
/// pointers. Each register is written by one thread only, and the other reads it only after
/// the acquire load of the step count that the writer published with a release store (the
/// protocol above); `m` and `lastSquares` belong to the orbit thread alone.
final class PairStep: ReferenceStep, @unchecked Sendable {
    private let own: MPFRWorkspace
    private let xs: (UnsafeMutablePointer<__mpfr_struct>, UnsafeMutablePointer<__mpfr_struct>)
    private let cx, t1, t2, product: UnsafeMutablePointer<__mpfr_struct>
    /// The partner's registers: y(m) and y(m)^2, both by parity (the partner may square
    /// y(m + 1) while the orbit thread still copies y(m)^2).
    private var ys: (UnsafeMutablePointer<__mpfr_struct>, UnsafeMutablePointer<__mpfr_struct>)?
    private var yys: (UnsafeMutablePointer<__mpfr_struct>, UnsafeMutablePointer<__mpfr_struct>)?
    /// 0: x steps published; 1: y steps published; 2: stop; 3: squares wanted; 4: the step
    /// whose y^2 the partner formed (or minus it, when it did not); 5, 6: y(m) as a Double and
    /// its low word for even and odd m.
    private let counters = SharedCounters(count: 7)
    private let lowWords: Bool
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var m = 0
    private var lastSquares = Int.min / 2

    init(z: BigComplex, c: BigComplex, precision: Precision, lowWords: Bool) {
        self.lowWords = lowWords
        own = MPFRWorkspace(count: 6, precision: precision)
        xs = (own[0], own[1])
        cx = own[2]
        t1 = own[3]
        t2 = own[4]
        product = own[5]
        own.set(0, z.re)
        own.set(2, c.re)
        let y0 = z.im, cy = c.im
        startThread { [self] in partner(y0: y0, cy: cy, precision: precision) }
        ready.wait()
    }

    deinit { counters.deallocate() }

    private func partner(y0: BigFloat, cy: BigFloat, precision: Precision) {
        let ws = MPFRWorkspace(count: 7, precision: precision)
        ws.set(0, y0)
        ws.set(2, cy)
        let ys = (ws[0], ws[1]), cyr = ws[2], product = ws[3], yys = (ws[4], ws[6]), low = ws[5]
        self.ys = ys
        self.yys = yys
        let counters = self.counters, xs = self.xs, lowWords = self.lowWords
        /// y(k) rounded, and its low word, into line 5 + (k & 1) (before k is published).
        func round(_ y: UnsafeMutablePointer<__mpfr_struct>, _ k: Int) {
            let hi = mpfr_get_d(y, MPFR_RNDN)
            var lo = 0.0
            if lowWords {
                mpfr_sub_d(low, y, hi, MPFR_RNDN)
                lo = mpfr_get_d(low, MPFR_RNDN)
            }
            let slot = counters.doubles(5 + (k & 1))
            slot[0] = hi
            slot[1] = lo
        }
        round(ys.0, 0)
        ready.signal()
        var k = 0
        while true {
            spin { counters.load(0) >= k || counters.load(2) != 0 }
            if counters.load(0) < k { break }
            let y = k & 1 == 0 ? ys.0 : ys.1, next = k & 1 == 0 ? ys.1 : ys.0
            mpfr_mul(product, k & 1 == 0 ? xs.0 : xs.1, y, MPFR_RNDN)
            mpfr_mul_2ui(product, product, 1, MPFR_RNDN)
            mpfr_add(next, product, cyr, MPFR_RNDN)
            k += 1
            round(next, k)
            counters.store(1, k)
            if counters.load(3) != 0 {
                mpfr_sqr(k & 1 == 0 ? yys.0 : yys.1, next, MPFR_RNDN)
                counters.store(4, k)
            } else {
                counters.store(4, -k)
            }
        }
        withExtendedLifetime(ws) {}
        finished.signal()
    }

    var x: UnsafeMutablePointer<__mpfr_struct> { m & 1 == 0 ? xs.0 : xs.1 }
    var y: UnsafeMutablePointer<__mpfr_struct> { m & 1 == 0 ? ys!.0 : ys!.1 }
    /// Written by the partner before it published step m (read after the acquire that saw it).
    var storedY: (hi: Double, lo: Double)? {
        let slot = counters.doubles(5 + (m & 1))
        return (slot[0], slot[1])
    }

    @inline(__always)
    func step() {
        let x = self.x, y = self.y
        mpfr_add(t1, x, y, MPFR_RNDN)
        mpfr_sub(t2, x, y, MPFR_RNDN)
        mpfr_mul(product, t1, t2, MPFR_RNDN)
        mpfr_add(m & 1 == 0 ? xs.1 : xs.0, product, cx, MPFR_RNDN)
        m += 1
        counters.store(0, m)
        if m - lastSquares == 64 { counters.store(3, 0) }
        let target = m
        spin { counters.load(1) >= target }
    }

    func squares(_ xx: UnsafeMutablePointer<__mpfr_struct>, _ yy: UnsafeMutablePointer<__mpfr_struct>) {
        mpfr_sqr(xx, x, MPFR_RNDN)
        let target = m
        spin { Swift.abs(counters.load(4)) >= target }
        if counters.load(4) == target {
            mpfr_set(yy, m & 1 == 0 ? yys!.0 : yys!.1, MPFR_RNDN)
        } else {
            mpfr_sqr(yy, y, MPFR_RNDN)
        }
        lastSquares = m
        counters.store(3, 1)
    }

    func stop() {
        counters.store(2, 1)
        finished.wait()
    }
}

// MARK: - A team

/// z <- z^2 + c on `threads` threads: the step's two products, (x + y)(x - y) and x y, each
/// split into `SplitProduct` leaves (enough levels for 3^levels >= threads), which the orbit's
/// thread and its helpers claim one at a time; the orbit's thread then adds them up and rounds
/// each product once. For precisions where one product alone takes far longer than a handoff.
///
/// Unchecked Sendable: the helpers' threads hold `self`. A helper writes only the leaf it
/// claimed with an atomic add (counter 1), and the orbit thread reads the leaves only after
/// the acquire load that sees all of them done (counter 2); the inputs are written by the
/// orbit thread before the release store that starts a round (counter 0), and `round` is the
/// orbit thread's alone.
final class TeamStep: ReferenceStep, @unchecked Sendable {
    private let ws: MPFRWorkspace
    private let first: SplitProduct
    private let second: SplitProduct
    private let tasks: Int
    /// 0: round (a new one each step); 1: the next leaf to claim; 2: leaves done; 3: stop.
    private let counters = SharedCounters(count: 4)
    private let finished = DispatchSemaphore(value: 0)
    private let helpers: Int
    private var round = 0

    init(z: BigComplex, c: BigComplex, precision: Precision, threads: Int) {
        ws = MPFRStep.workspace(z: z, c: c, precision: precision)
        var levels = 0, leaves = 1
        while leaves < threads {
            levels += 1
            leaves *= 3
        }
        first = SplitProduct(precision: precision, levels: levels)
        second = SplitProduct(precision: precision, levels: levels)
        tasks = first.leafCount + second.leafCount
        helpers = threads - 1
        for _ in 0..<helpers {
            startThread { [self] in helper() }
        }
    }

    deinit { counters.deallocate() }

    /// Claims and runs leaves until none is left: the two products' leaves alternate, largest
    /// first. Static, on its arguments, so the threads touch no reference count.
    @inline(__always)
    private static func work(_ first: SplitProduct, _ second: SplitProduct, _ counters: SharedCounters, tasks: Int) {
        while true {
            let i = counters.fetchAdd(1, 1)
            if i >= tasks { return }
            if i & 1 == 0 { first.multiplyLeaf(i >> 1) } else { second.multiplyLeaf(i >> 1) }
            _ = counters.fetchAdd(2, 1)
        }
    }

    private func helper() {
        let first = self.first, second = self.second, counters = self.counters, tasks = self.tasks
        var seen = 0
        while true {
            spin { counters.load(0) != seen || counters.load(3) != 0 }
            if counters.load(3) != 0 { break }
            seen = counters.load(0)
            Self.work(first, second, counters, tasks: tasks)
        }
        finished.signal()
    }

    /// first = a b and second = c d, on the whole team.
    private func products(
        _ a: UnsafeMutablePointer<__mpfr_struct>, _ b: UnsafeMutablePointer<__mpfr_struct>,
        _ c: UnsafeMutablePointer<__mpfr_struct>, _ d: UnsafeMutablePointer<__mpfr_struct>,
        into r: UnsafeMutablePointer<__mpfr_struct>, _ s: UnsafeMutablePointer<__mpfr_struct>
    ) {
        first.prepare(a, b)
        second.prepare(c, d)
        // Done first, then the claim counter, then the round: a helper late from the last
        // round can only claim (and count) a leaf of this one.
        counters.store(2, 0)
        counters.store(1, 0)
        round += 1
        counters.store(0, round)
        Self.work(first, second, counters, tasks: tasks)
        let total = tasks
        spin { counters.load(2) >= total }
        first.finish(into: r)
        second.finish(into: s)
    }

    var x: UnsafeMutablePointer<__mpfr_struct> { ws[0] }
    var y: UnsafeMutablePointer<__mpfr_struct> { ws[1] }
    var storedY: (hi: Double, lo: Double)? { nil }

    func step() {
        let x = ws[0], y = ws[1], cx = ws[2], cy = ws[3], t1 = ws[4], t2 = ws[5], t3 = ws[6], p = ws[7]
        mpfr_add(t1, x, y, MPFR_RNDN)
        mpfr_sub(t2, x, y, MPFR_RNDN)
        products(t1, t2, x, y, into: p, t3)
        mpfr_add(x, p, cx, MPFR_RNDN)
        mpfr_mul_2ui(t3, t3, 1, MPFR_RNDN)
        mpfr_add(y, t3, cy, MPFR_RNDN)
    }

    func squares(_ xx: UnsafeMutablePointer<__mpfr_struct>, _ yy: UnsafeMutablePointer<__mpfr_struct>) {
        products(ws[0], ws[0], ws[1], ws[1], into: xx, yy)
    }

    func stop() {
        counters.store(3, 1)
        for _ in 0..<helpers { finished.wait() }
    }
}
