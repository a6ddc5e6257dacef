import CFathomGPU
import Foundation
import FractalEngine

/// The reference orbit's step of CFathomGPU's FathomOrbit.h (z^2 + c in arbitrary precision, bit
/// for bit MPFR's) run on the CPU: the emulation the tests check against MPFR, and the form the
/// CUDA backend's orbit kernels split over threads (Documentation/GPU.md, "The reference orbit
/// on the device").
public final class EmulatedOrbitDevice: ReferenceStepDevice {
    public init() {}

    public var deviceName: String { "CPU emulation" }

    public func startOrbit(bits: Int, z: (OrbitLimbs, OrbitLimbs), c: (OrbitLimbs, OrbitLimbs)) throws
        -> any DeviceOrbit
    {
        guard let engine = fg_orbit_emulation_create(Int64(bits)) else {
            throw GPUError.failed("no memory for a reference orbit at \(bits) bits")
        }
        let orbit = EmulatedOrbit(engine: engine, limbs: OrbitLimbs.count(bits: bits))
        for (i, v) in [z.0, z.1, c.0, c.1].enumerated() { orbit.set(Int32(i), v) }
        return orbit
    }

    /// a + b (operation 0), a - b (1) or a b (2) at `bits`, correctly rounded by the device's
    /// arithmetic: for the tests against MPFR.
    public func operate(_ operation: Int, _ a: OrbitLimbs, _ b: OrbitLimbs, bits: Int) throws -> OrbitLimbs {
        guard let engine = fg_orbit_emulation_create(Int64(bits)) else {
            throw GPUError.failed("no memory for a reference orbit at \(bits) bits")
        }
        let orbit = EmulatedOrbit(engine: engine, limbs: OrbitLimbs.count(bits: bits))
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

    init(engine: UnsafeMutableRawPointer, limbs: Int) {
        self.engine = engine
        self.limbs = limbs
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
