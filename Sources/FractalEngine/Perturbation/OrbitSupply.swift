import ArbitraryPrecision
import Dispatch
import Foundation
import Synchronization

/// Reference orbits for one render's phases: from the cache, else computed in MPFR (and
/// cached), with the time spent. Every orbit keeps its low words, so pixels at risk can be
/// rendered again with 106-bit deltas from the same orbit without a second MPFR run.
///
/// Unchecked Sendable: the concurrent fetches of `orbits(at:)` read only its constants and the
/// cache (behind its mutex); `seconds` and `usedDevice` are written on the render's thread alone.
final class OrbitSupply: @unchecked Sendable {
    let power: Int
    let juliaC: BigComplex?
    let maxIterations: Int
    let precision: Precision
    let cache: ReferenceCache?
    let threads: Int
    let control: RenderControl?
    /// Where the primary orbits' steps run from `ReferenceThreading.deviceMinimumBits` on (z^2 + c).
    let device: (any ReferenceStepDevice)?
    /// Seconds spent fetching and computing orbits (the report's reference time).
    private(set) var seconds = 0.0
    /// The device's name once an orbit's steps ran on it.
    private(set) var usedDevice: String?

    /// What a step costs the render (`RenderPlan.bytesPerStep`), for the orbits' memory check.
    let bytesPerStep: Int

    init(
        power: Int, juliaC: BigComplex?, maxIterations: Int, precision: Precision, cache: ReferenceCache?, threads: Int,
        control: RenderControl?, device: (any ReferenceStepDevice)? = nil,
        bytesPerStep: Int = RenderPlan.bytesPerReferenceStep
    ) {
        self.bytesPerStep = bytesPerStep
        self.device = device
        self.power = power
        self.juliaC = juliaC
        self.maxIterations = maxIterations
        self.precision = precision
        self.cache = cache
        self.threads = threads
        self.control = control
    }

    /// The orbit of `point` (which the caller rounded to `precision`), with low words unless asked otherwise;
    /// its steps shared among the render's threads when nothing else runs (`ReferenceThreading`).
    /// `steps`: how far to compute it (nil: the render's limit; a periodic reference's period).
    /// `watch`: throws `PeriodWatch.Found` where the watch stops at its period, or ends the
    /// orbit there (`Found.ends`; on a cached orbit too, from its values: the same answer).
    func orbit(at point: BigComplex, lowWords: Bool = true, steps: Int? = nil, watch: PeriodWatch? = nil) throws
        -> ReferenceOrbit
    {
        try addingSeconds(to: &seconds) {
            try fetch(
                point, lowWords: lowWords, threads: threads, steps: steps ?? maxIterations, watch: watch, onDevice: true
            )
        }
    }

    /// Several orbits at once, one per thread (the probe's candidates; Julia's reference and
    /// critical orbits): each is a single-threaded MPFR loop.
    func orbits(at points: [BigComplex]) throws -> [ReferenceOrbit] {
        if points.count == 1 || threads == 1 { return try points.map { try orbit(at: $0) } }
        let results = OrbitResults(count: points.count)
        addingSeconds(to: &seconds) {
            Parallel.forEachChunk(points.count, chunks: points.count) { one in
                for k in one {
                    results.set(
                        k, Result { try fetch(points[k], lowWords: true, threads: 1, steps: maxIterations) })
                }
            }
        }
        return try results.values()
    }

    /// An orbit at `finer` precision, computed (not cached: a cached finer orbit would make this
    /// render depend on the renders before it, and a sequence's slices must equal the full run).
    func finerOrbit(at point: BigComplex, precision finer: Precision, steps: Int? = nil) throws -> ReferenceOrbit {
        try addingSeconds(to: &seconds) {
            try computeFiner(at: point, precision: finer, steps: steps, control: control, threads: threads)
        }
    }

    /// `finerOrbit`, started on another thread: on a GPU the render's own thread mostly waits on
    /// the device, so the orbit the 106-bit passes may need is computed during the first passes.
    /// It shares its steps only among the cores to spare beside the render's own work.
    func startFinerOrbit(at point: BigComplex, precision finer: Precision, steps: Int? = nil) -> FinerOrbitTask {
        FinerOrbitTask { [self] control in
            try computeFiner(at: point, precision: finer, steps: steps, control: control, threads: threads - 1)
        }
    }

    private func computeFiner(
        at point: BigComplex, precision finer: Precision, steps: Int?, control: RenderControl?, threads: Int
    ) throws -> ReferenceOrbit {
        try ReferenceOrbit.compute(
            point: point.rounded(to: finer), power: power, juliaC: nil, maxIterations: steps ?? maxIterations,
            precision: finer, lowWords: true, control: control, threads: threads, bytesPerStep: bytesPerStep)
    }

    /// The orbit `task` computed (waiting for it), its compute time added to `seconds` as
    /// `finerOrbit` adds its own.
    func finish(_ task: FinerOrbitTask) throws -> ReferenceOrbit {
        let (orbit, computeSeconds) = try task.result(watching: control)
        seconds += computeSeconds
        return orbit
    }

    /// The orbit of `point` from the cache, else computed and cached; safe on several threads
    /// when not `onDevice` (its steps on `device` from `ReferenceThreading.deviceMinimumBits` on:
    /// only from the render's own thread, as the backend serialises nothing).
    private func fetch(
        _ point: BigComplex, lowWords: Bool, threads: Int, steps: Int, watch: PeriodWatch? = nil, onDevice: Bool = false
    ) throws -> ReferenceOrbit {
        guard let cache else {
            return try compute(
                point, lowWords: lowWords, threads: threads, steps: steps, watch: watch, onDevice: onDevice)
        }
        // Renders sharing the cache at once compute an orbit once: the others wait for it.
        return try cache.computeOnce(
            {
                ReferenceCache.OrbitRequest(
                    point: point, juliaC: juliaC, power: power, precision: precision, steps: steps,
                    lowWords: lowWords, watched: watch != nil)
            }, cancelled: { control?.isCancelled == true },
            lookup: { try lookUp(point, lowWords: lowWords, steps: steps, watch: watch) },
            compute: {
                try compute(point, lowWords: lowWords, threads: threads, steps: steps, watch: watch, onDevice: onDevice)
            })
    }

    /// The orbit of `point` from the cache (nil: not there); throws `PeriodWatch.Found` as
    /// computing it would.
    private func lookUp(_ point: BigComplex, lowWords: Bool, steps: Int, watch: PeriodWatch?) throws -> ReferenceOrbit?
    {
        if let cached = cache?.orbit(
            for: point, power: power, juliaC: juliaC, maxIterations: steps, precision: precision, lowWords: lowWords)
        {
            if let found = watch?.scan(cached) {
                if found.ends { return cached.limited(to: found.period) }
                throw found
            }
            return cached
        }
        if let watch, watch.ending != .never,
            let ended = cache?.orbit(
                for: point, power: power, juliaC: juliaC, precision: precision, lowWords: lowWords, endedBy: watch)
        {
            return ended
        }
        return nil
    }

    /// The orbit of `point`, computed (the caller looked in the cache first) and cached.
    private func compute(
        _ point: BigComplex, lowWords: Bool, threads: Int, steps: Int, watch: PeriodWatch?, onDevice: Bool
    ) throws -> ReferenceOrbit {
        let stepDevice = onDevice && power == 2 && precision.bits >= ReferenceThreading.deviceMinimumBits ? device : nil
        if let stepDevice { usedDevice = stepDevice.deviceName }
        let computed = try ReferenceOrbit.compute(
            point: point, power: power, juliaC: juliaC, maxIterations: steps,
            precision: precision, lowWords: lowWords, control: control, threads: threads, watch: watch,
            device: stepDevice, bytesPerStep: bytesPerStep)
        cache?.store(computed)
        return computed
    }
}

/// An orbit computed on a thread of its own, with its own control: cancelled when the render is
/// (checked while waiting) or when the render ends without it (`cancel`, which waits for the
/// thread, so nothing runs past the render).
final class FinerOrbitTask: Sendable {
    private let group = DispatchGroup()
    private let control = RenderControl()
    /// Written once by the task's thread before `group` is left; read after waiting on it.
    private let outcome = Mutex<Result<(ReferenceOrbit, Double), any Error>?>(nil)

    init(_ body: @escaping @Sendable (RenderControl) throws -> ReferenceOrbit) {
        group.enter()
        let control = control
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let start = DispatchTime.now().uptimeNanoseconds
            let result = Result { (try body(control), Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }
            outcome.withLock { $0 = result }
            group.leave()
        }
    }

    /// The orbit and the seconds it took; cancels it when `outer` is cancelled meanwhile.
    func result(watching outer: RenderControl?) throws -> (ReferenceOrbit, Double) {
        while group.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if outer?.isCancelled == true { control.cancel() }
        }
        return try outcome.withLock { $0! }.get()
    }

    /// Stops the computation (if it still runs) and waits for its thread.
    func cancel() {
        control.cancel()
        group.wait()
    }
}

/// Orbits computed on several threads, in order, with the first error.
private final class OrbitResults: Sendable {
    private let results: Mutex<[Result<ReferenceOrbit, any Error>?]>

    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }

    func set(_ k: Int, _ r: Result<ReferenceOrbit, any Error>) {
        results.withLock { $0[k] = r }
    }

    func values() throws -> [ReferenceOrbit] { try results.withLock { $0 }.map { try $0!.get() } }
}

/// An orbit and its identity, computed once when a cache or a device needs it.
final class Reference {
    let orbit: ReferenceOrbit
    /// A nucleus orbit of one period, which pixels wrap around by rebasing at its end (its LA
    /// chain spans the period; the interior proof runs against it).
    let wraps: Bool
    /// An orbit of one period that pixels wrap around, a nucleus's or the center's ended at the
    /// view's period (`PeriodWatch.Ending`): dz is reset to z at every wrap.
    let periodic: Bool
    private(set) lazy var identity: OrbitIdentity = orbit.identity

    init(_ orbit: ReferenceOrbit, wraps: Bool = false, periodic: Bool = false) {
        self.orbit = orbit
        self.wraps = wraps
        self.periodic = wraps || periodic
    }
}
