import ArbitraryPrecision
import CFathomGPU
import FathomGPU
import Foundation
import FractalEngine
import FractalNumerics
import Testing

/// The reference orbit's step in the GPU kernels' arithmetic (CFathomGPU's FathomOrbit.h), run
/// by its CPU emulation, against MPFR: every operation correctly rounded, every orbit bit for bit.
@Suite("Reference orbit on the device (emulated)")
struct DeviceOrbitTests {
    /// A number in [1/2, 1) with `bits` random bits.
    static func random(_ rng: inout SplitMix64, bits: Int) -> BigFloat {
        let p = Precision(bits: bits)
        var v = BigFloat(0, precision: p)
        var k = 0
        while k < bits + 53 {
            v = v + BigFloat(Double(rng.next() >> 11), precision: p).timesPowerOfTwo(-53 - k)
            k += 53
        }
        // Into [1/2, 1): set the top bit by adding 1/2 to a value below it.
        return v.timesPowerOfTwo(-1) + BigFloat(0.5, precision: p)
    }

    @Test("add, subtract and multiply: correctly rounded as MPFR rounds, signed zeros included")
    func arithmetic() throws {
        let device = EmulatedOrbitDevice()
        var rng = SplitMix64(seed: 17)
        for bits in [64, 65, 95, 96, 127, 200, 1000, 4097] {
            let p = Precision(bits: bits)
            let one = BigFloat(1, precision: p)
            for trial in 0..<120 {
                var a = Self.random(&rng, bits: bits), b = Self.random(&rng, bits: bits)
                switch trial % 6 {
                case 1:  // a few units in the last place apart: cancellation
                    b = a + a.timesPowerOfTwo(-bits + 1) * BigFloat(Int(rng.next() % 3), precision: p)
                case 2:  // far apart: alignment, guard bits and the sticky bit
                    b = b.timesPowerOfTwo(-Int(rng.next() % UInt64(bits + 140)))
                case 3:  // all ones, and a tail that carries or borrows through them
                    a = one - one.timesPowerOfTwo(-bits)
                    b = b.timesPowerOfTwo(-(bits - 2 + Int(rng.next() % 6)))
                case 4:  // a power of two: the half-ulp below it
                    a = one.timesPowerOfTwo(Int(rng.next() % 4))
                    b = b.timesPowerOfTwo(-Int(rng.next() % UInt64(bits + 70)))
                case 5:  // zeros of both signs
                    b = trial & 8 == 0 ? BigFloat(0, precision: p) : -BigFloat(0, precision: p)
                    if trial & 16 != 0 { a = trial & 32 == 0 ? BigFloat(0, precision: p) : -BigFloat(0, precision: p) }
                default: break
                }
                if trial & 1 != 0 { a = -a }
                if rng.next() & 1 != 0 { b = -b }
                a = a.timesPowerOfTwo(Int(rng.next() % 9) - 4)
                for (operation, expected) in [(0, a + b), (1, a - b), (2, a * b)] {
                    let got = try device.operate(operation, OrbitLimbs(a), OrbitLimbs(b), bits: bits)
                    #expect(got == OrbitLimbs(expected), "\(bits) bits, case \(trial), operation \(operation)")
                }
            }
        }
    }

    /// The orbit from the device and from MPFR on one thread: the same stored values, escape,
    /// escape gaps and tiny entries.
    static func expectSameOrbit(
        _ re: BigFloat, _ im: BigFloat, bits: Int, steps: Int, julia: BigComplex? = nil, lowWords: Bool = true,
        _ comment: Comment
    ) throws -> ReferenceOrbit {
        let p = Precision(bits: bits)
        let c = BigComplex(re.rounded(to: p), im.rounded(to: p))
        let cpu = try ReferenceOrbit.compute(
            point: c, power: 2, juliaC: julia, maxIterations: steps, precision: p, lowWords: lowWords)
        let device = try ReferenceOrbit.compute(
            point: c, power: 2, juliaC: julia, maxIterations: steps, precision: p, lowWords: lowWords,
            device: EmulatedOrbitDevice())
        #expect(cpu.compressed == device.compressed, comment)
        #expect(cpu.count == device.count && cpu.escaped == device.escaped, comment)
        #expect(cpu.escapeGaps == device.escapeGaps && cpu.tiny.keys == device.tiny.keys, comment)
        return cpu
    }

    @Test("orbits bit for bit MPFR's: escaping, periodic, on the real axis, at |Z| = 2, tiny values, Julia")
    func orbits() throws {
        let parse = { (s: String) in try BigFloat(parsing: s, precision: Precision(bits: 4000)) }
        let airship = "-1.7548776662466927600495088963585286918946066177727931860"
        for bits in [64, 130, 1000, 2500] {
            for (re, im, steps) in [
                ("-0.75", "0.1", 3000), ("0.3", "0.5", 200), (airship, "0", 3000), ("-2", "0", 500),
                ("-1.99999999999999999999999999999999999999", "1e-45", 300),
                ("-0.10109636384562", "0.95628651080914", 3000),
                // Residuals far under the top 192 bits, under a Double that rounds down or up.
                ("-1." + String(repeating: "0", count: 100) + "1", "0", 2000),
                ("0", "0." + String(repeating: "9", count: 90), 2000),
                // Tiny, subnormal and underflowing values (the host's tiny entries), and the
                // escape test on each step near |Z| = 2 with a tiny imaginary part.
                ("-1", "1e-310", 400), ("-1", "3e-320", 400), ("-1", "1e-400", 400),
                ("-1.99999999999999999999999999999", "1e-330", 400),
            ] {
                _ = try Self.expectSameOrbit(parse(re), parse(im), bits: bits, steps: steps, "\(re) at \(bits) bits")
            }
        }
        // -1 + 2^-1010: every other step below 2^-1000 (the tiny entries, on the host).
        let p = Precision(bits: 1200)
        let nearMinusOne = BigFloat(-1, precision: p) + BigFloat(1, precision: p).timesPowerOfTwo(-1010)
        let tiny = try Self.expectSameOrbit(
            nearMinusOne, BigFloat(0, precision: p), bits: 1200, steps: 400, "-1 + 2^-1010")
        #expect(tiny.tiny.count >= 100)
        _ = try Self.expectSameOrbit(
            nearMinusOne,
            BigFloat(0, precision: p).timesPowerOfTwo(-900) + BigFloat(1, precision: p).timesPowerOfTwo(-900),
            bits: 1200, steps: 400, "-1 + 2^-1010 + 2^-900 i")
        // Without low words, and a Julia orbit (z(0) the point).
        _ = try Self.expectSameOrbit(
            parse("-0.75"), parse("0.1"), bits: 300, steps: 2000, lowWords: false, "no low words")
        let juliaC = try BigComplex(
            parse("-0.8").rounded(to: Precision(bits: 300)), parse("0.156").rounded(to: Precision(bits: 300)))
        _ = try Self.expectSameOrbit(parse("0.1"), parse("-0.2"), bits: 300, steps: 2000, julia: juliaC, "Julia")
    }

    /// A device whose orbit is wrong in one bit of one low word from step 20 on.
    final class CorruptDevice: ReferenceStepDevice {
        let inner = EmulatedOrbitDevice()
        var deviceName: String { "corrupt" }
        func startOrbit(bits: Int, z: (OrbitLimbs, OrbitLimbs), c: (OrbitLimbs, OrbitLimbs)) throws -> any DeviceOrbit {
            Corrupt(try inner.startOrbit(bits: bits, z: z, c: c))
        }
        final class Corrupt: DeviceOrbit {
            let inner: any DeviceOrbit
            var taken = 0
            init(_ inner: any DeviceOrbit) { self.inner = inner }
            func run(steps: Int, into out: UnsafeMutablePointer<Double>) throws -> (taken: Int, flagged: Bool) {
                let r = try inner.run(steps: Swift.min(steps, 7), into: out)
                for k in 0..<r.taken where taken + k + 1 >= 20 {
                    let w = out + DeviceOrbitStep.words * k + 2
                    w.pointee = Double(bitPattern: w.pointee.bitPattern ^ 1)
                }
                taken += r.taken
                return r
            }
            func current() throws -> (OrbitLimbs, OrbitLimbs) { try inner.current() }
        }
    }

    /// The kernel takes the transform's long stages two a pass (FathomOrbit.h's forwardPair and
    /// inversePair, which only the CUDA kernel runs); in the kernel's order on the CPU they give
    /// the serial transforms' words exactly, for 8 to 4,096 points and every tile size.
    @Test("the transform's stages two at a time give the serial transform's words")
    func pairedStages() {
        #expect(fg_orbit_check_paired_stages(12) == 0)
    }

    @Test("the first steps are checked against MPFR: a device that goes wrong is reported, not rendered")
    func checkedSteps() throws {
        let p = Precision(bits: 300)
        let c = try BigComplex(parsingRe: "-0.75", im: "0.1", precision: p)
        #expect(throws: RenderError.deviceOrbit("step 20 differs from MPFR's; render on the CPU (backend cpu)")) {
            try ReferenceOrbit.compute(
                point: c, power: 2, juliaC: nil, maxIterations: 1000, precision: p, lowWords: true,
                device: CorruptDevice())
        }
    }
}
