internal import CFathomGPU
import Foundation
import FractalEngine

/// The reference orbit's step of CFathomGPU's FathomOrbit.h (z^2 + c in arbitrary precision, bit
/// for bit MPFR's) run on the CPU: the emulation the tests check against MPFR, and the form the
/// CUDA backend's orbit kernels split over threads (Documentation/GPU.md, "The reference orbit
/// on the device").
package final class EmulatedOrbitDevice: ReferenceStepDevice {
    package init() {}

    package var deviceName: String { "CPU emulation" }

    package func startOrbit(bits: Int, z: (OrbitLimbs, OrbitLimbs), c: (OrbitLimbs, OrbitLimbs)) throws
        -> any DeviceOrbit
    {
        let orbit = try EmulatedOrbit(bits: bits)
        for (i, v) in [z.0, z.1, c.0, c.1].enumerated() { orbit.set(Int32(i), v) }
        return orbit
    }

    /// a + b (operation 0), a - b (1) or a b (2) at `bits`, correctly rounded by the device's
    /// arithmetic: for the tests against MPFR.
    package func operate(_ operation: Int, _ a: OrbitLimbs, _ b: OrbitLimbs, bits: Int) throws -> OrbitLimbs {
        let orbit = try EmulatedOrbit(bits: bits)
        orbit.set(4, a)
        orbit.set(5, b)
        orbit.operate(Int32(operation), 6, 4, 5)
        return orbit.get(6)
    }
}

/// One orbit in the emulation's memory (freed with the object).
final class EmulatedOrbit: DeviceOrbit {
    private let engine: UnsafeMutableRawPointer
    private let limbs: Int

    init(bits: Int) throws {
        guard let engine = fg_orbit_emulation_create(Int64(bits)) else {
            throw GPUError.failed("no memory for a reference orbit at \(bits) bits")
        }
        self.engine = engine
        limbs = OrbitLimbs.count(bits: bits)
    }

    deinit { fg_orbit_emulation_destroy(engine) }

    func set(_ which: Int32, _ v: OrbitLimbs) {
        precondition(v.limbs.count == limbs)
        v.limbs.withUnsafeBufferPointer {
            fg_orbit_emulation_set(engine, which, v.negative ? 1 : 0, v.zero ? 1 : 0, Int64(v.exponent), $0.baseAddress)
        }
    }

    func get(_ which: Int32) -> OrbitLimbs {
        var negative: Int32 = 0, zero: Int32 = 0, exponent: Int64 = 0
        let values = [UInt32](unsafeUninitializedCapacity: limbs) { buffer, count in
            fg_orbit_emulation_get(engine, which, &negative, &zero, &exponent, buffer.baseAddress)
            count = limbs
        }
        return OrbitLimbs(negative: negative != 0, zero: zero != 0, exponent: Int(exponent), limbs: values)
    }

    func run(steps: Int, into out: UnsafeMutablePointer<Double>) throws -> (taken: Int, flagged: Bool) {
        var flagged: Int32 = 0
        let taken = fg_orbit_emulation_run(engine, Int64(steps), out, &flagged)
        return (Int(taken), flagged != 0)
    }

    func current() throws -> (OrbitLimbs, OrbitLimbs) { (get(0), get(1)) }

    /// One operation on the registers (0 x, 1 y, 2 cx, 3 cy, 4-6 scratch): 0 add, 1 subtract,
    /// 2 multiply, each correctly rounded; for the tests of the arithmetic against MPFR.
    func operate(_ operation: Int32, _ r: Int32, _ a: Int32, _ b: Int32) {
        fg_orbit_emulation_operate(engine, operation, r, a, b)
    }
}

/// The reference orbit's steps on the CUDA device: FathomOrbit.h's `fathom_orbit_steps`, one
/// cooperative launch of a block per multiprocessor for each batch of steps. The same orbit as
/// the emulation and MPFR, bit for bit (checked by `fathom-bench device-orbit`).
///
/// Unchecked Sendable: `function` is a CUDA handle (a raw pointer) fixed at init, which the
/// driver lets any thread launch; the phase timings are read and written under `lock`; each
/// orbit it computes is used from one thread at a time.
package final class CUDAOrbitDevice: ReferenceStepDevice, @unchecked Sendable {
    let executor: GPUExecutor
    let function: UnsafeMutableRawPointer
    let blocks: Int

    /// Whether the kernel settles tiny values and the escape test near |Z| = 2 itself (the
    /// default; both forms checked bit for bit against MPFR on an H200); false hands such steps
    /// to the host's MPFR, which costs a transfer and an MPFR step each (e52465 and e22522 sit
    /// at |Z| = 2: every step).
    package let settles: Bool
    /// Whether the two blocks that add and round work in shared memory where the device holds
    /// their three buffers of L + 2 limbs, and c's part in a fourth where it fits (the default;
    /// to 528k bits on an H200, four buffers to 396k), else in global memory. The same orbit
    /// either way; false measures the difference.
    package let sharedScratch: Bool

    /// The device of the process's CUDA backend; throws without a driver or GPU.
    package convenience init(settles: Bool = true, sharedScratch: Bool = true) throws {
        var warning: String?
        guard let executor = try GPUExecutor.resolve(.cuda, exact: true, warning: &warning),
            let function = executor.function("fathom_orbit_steps")
        else { throw GPUError.failed("the reference orbit's kernel is not loaded") }
        self.init(executor: executor, function: function, settles: settles, sharedScratch: sharedScratch)
    }

    init(executor: GPUExecutor, function: UnsafeMutableRawPointer, settles: Bool = true, sharedScratch: Bool = true) {
        self.settles = settles
        self.sharedScratch = sharedScratch
        self.executor = executor
        self.function = function
        blocks = Swift.max(2, Int(fg_multiprocessors()))
    }

    package var deviceName: String { executor.deviceName }

    private let lock = NSLock()
    private var spent = [Double](repeating: 0, count: 5)

    /// Seconds in the kernel's phases since the device was opened, by block 0's clock (each
    /// phase with its grid barriers): A (t1, t2), B (digits, long stages), B's tiles, C (the
    /// inverse's long stages), D (the products rounded, + c, the stored Doubles).
    package var phaseSeconds: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return spent
    }

    private var details = [Double](repeating: 0, count: 8)

    /// Seconds in parts of the phases since the kernels were loaded, by block 0's clock
    /// (FK_ORBIT_DETAIL): blockAdd's alignment, carries, normalisation and rounding over every
    /// call, then D's product, add and stored Doubles, and A's add.
    package var detailSeconds: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return details
    }

    func set(detailSeconds: [Double]) {
        lock.lock()
        defer { lock.unlock() }
        details = detailSeconds
    }

    func add(phaseSeconds: [Double]) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<spent.count { spent[i] += phaseSeconds[i] }
    }

    package func startOrbit(bits: Int, z: (OrbitLimbs, OrbitLimbs), c: (OrbitLimbs, OrbitLimbs)) throws
        -> any DeviceOrbit
    {
        try CUDAOrbit(device: self, bits: bits, values: [z.0, z.1, c.0, c.1])
    }
}

/// One orbit in device memory.
final class CUDAOrbit: DeviceOrbit {
    let device: CUDAOrbitDevice
    let limbCount: Int
    let limbs, heads, scratch, transforms, twiddles, control: GPUExecutor.Buffer
    var out: GPUExecutor.Buffer?
    var params: FKOrbitParams
    /// Dynamic shared memory a block: four (or three) buffers of L + 2 limbs, each padded to 32,
    /// or 0.
    let sharedBytes: UInt32
    /// The kernel's phase sums as last read (they accumulate on the device).
    var reported = [UInt64](repeating: 0, count: 5)

    init(device: CUDAOrbitDevice, bits: Int, values: [OrbitLimbs]) throws {
        self.device = device
        let count = OrbitLimbs.count(bits: bits)
        limbCount = count
        let nttLog = Int(fg_orbit_ntt_log(Int32(count)))
        let n = 1 << nttLog
        let kind = GPUExecutor.Kind.cuda
        let limbs = try GPUExecutor.Buffer(bytes: 4 * 7 * count, kind: kind)
        let heads = try GPUExecutor.Buffer(bytes: MemoryLayout<FKOrbitHead>.stride * 7, kind: kind)
        let twiddles = try GPUExecutor.Buffer(bytes: 8 * n, kind: kind)
        let control = try GPUExecutor.Buffer(bytes: 4 * Int(FK_ORBIT_CONTROL_WORDS), kind: kind)
        var table = [UInt64](repeating: 0, count: n)
        var inverseN: UInt64 = 0
        let half = n / 2
        table.withUnsafeMutableBufferPointer {
            fg_orbit_twiddles(Int32(nttLog), $0.baseAddress, $0.baseAddress! + half, &inverseN)
        }
        try table.withUnsafeBytes { try twiddles.upload($0.baseAddress!, bytes: $0.count) }
        var allLimbs = [UInt32](repeating: 0, count: 7 * count)
        var allHeads = [FKOrbitHead](repeating: FKOrbitHead(negative: 0, zero: 1, exponent: 0), count: 7)
        for (i, v) in values.enumerated() {
            allLimbs.replaceSubrange(i * count..<(i + 1) * count, with: v.limbs)
            allHeads[i] = FKOrbitHead(negative: v.negative ? 1 : 0, zero: v.zero ? 1 : 0, exponent: Int64(v.exponent))
        }
        try allLimbs.withUnsafeBytes { try limbs.upload($0.baseAddress!, bytes: $0.count) }
        try allHeads.withUnsafeBytes { try heads.upload($0.baseAddress!, bytes: $0.count) }
        let zeros = [UInt32](repeating: 0, count: Int(FK_ORBIT_CONTROL_WORDS))
        try zeros.withUnsafeBytes { try control.upload($0.baseAddress!, bytes: $0.count) }
        let scratch = try GPUExecutor.Buffer(bytes: 4 * 2 * 3 * (4 * count + 8), kind: kind)
        let transforms = try GPUExecutor.Buffer(bytes: 8 * 4 * n, kind: kind)
        params = FKOrbitParams(
            limbs: limbs.address, heads: heads.address, scratch: scratch.address, transforms: transforms.address,
            twiddles: twiddles.address, out: 0, control: control.address, inverseN: inverseN,
            precision: Int64(bits), count: 0, limbCount: Int32(count), nttLog: Int32(nttLog),
            settle: device.settles ? 1 : 0, unused: 0)
        (self.limbs, self.heads, self.scratch, self.transforms, self.twiddles, self.control) =
            (limbs, heads, scratch, transforms, twiddles, control)
        // Four buffers of FathomOrbit.h's `padded` limbs (the adds' three and c's part), else three.
        let padded = (count + 2 + 31) & ~31
        let wanted = device.sharedScratch && padded < 1 << 24 ? [16 * padded, 12 * padded] : []
        sharedBytes = wanted.lazy.map { fg_allow_shared(device.function, UInt32($0)) }.first { $0 > 0 } ?? 0
    }

    func run(steps: Int, into destination: UnsafeMutablePointer<Double>) throws -> (taken: Int, flagged: Bool) {
        let stepBytes = 8 * DeviceOrbitStep.words
        if (out?.bytes ?? 0) < stepBytes * steps { out = try .init(bytes: stepBytes * steps, kind: .cuda) }
        params.out = out!.address
        params.count = Int64(steps)
        let blocks = UInt32(device.blocks)
        try withUnsafeMutablePointer(to: &params) { p in
            try GPUExecutor.call { fg_launch_cooperative(device.function, blocks, 512, sharedBytes, p, $0, $1) }
        }
        var words = [UInt32](repeating: 0, count: Int(FK_ORBIT_CONTROL_WORDS))
        try words.withUnsafeMutableBytes { try control.download($0.baseAddress!, bytes: $0.count) }
        let taken = Int(words[Int(FK_ORBIT_TAKEN)]), flagged = words[Int(FK_ORBIT_FLAGGED)] != 0
        let profile = (0..<5).map { i in
            let w = Int(FK_ORBIT_PROFILE) + 2 * i
            return UInt64(words[w]) | UInt64(words[w + 1]) << 32
        }
        device.add(phaseSeconds: zip(profile, reported).map { Double($0 - $1) / 1e9 })
        reported = profile
        device.set(
            detailSeconds: (0..<8).map { i in
                let w = Int(FK_ORBIT_DETAIL) + 2 * i
                return Double(UInt64(words[w]) | UInt64(words[w + 1]) << 32) / 1e9
            })
        try out!.download(UnsafeMutableRawPointer(destination), bytes: stepBytes * taken)
        return (taken, flagged)
    }

    func current() throws -> (OrbitLimbs, OrbitLimbs) {
        var allHeads = [FKOrbitHead](repeating: FKOrbitHead(), count: 7)
        try allHeads.withUnsafeMutableBytes { try heads.download($0.baseAddress!, bytes: $0.count) }
        var two = [UInt32](repeating: 0, count: 2 * limbCount)
        try two.withUnsafeMutableBytes { try limbs.download($0.baseAddress!, bytes: $0.count) }
        func number(_ i: Int) -> OrbitLimbs {
            OrbitLimbs(
                negative: allHeads[i].negative != 0, zero: allHeads[i].zero != 0, exponent: Int(allHeads[i].exponent),
                limbs: allHeads[i].zero != 0
                    ? [UInt32](repeating: 0, count: limbCount) : Array(two[i * limbCount..<(i + 1) * limbCount]))
        }
        return (number(0), number(1))
    }
}
