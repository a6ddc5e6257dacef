import ArbitraryPrecision
import FractalEngine
import FractalNumerics
import Testing

@Suite("BLA table")
struct BLATests {
    /// The e55 oracle center's orbit: it stays bounded for 15000 steps.
    func orbit(_ steps: Int) throws -> [Complex<Double>] {
        let p = Precision(bits: 300)
        let c = try BigComplex(parsingRe: PerturbationTests.e55Re, im: PerturbationTests.e55Im, precision: p)
        let o = try ReferenceOrbit.compute(point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p)
        return o.values(as: Double.self)
    }

    @Test("merged steps equal their single steps composed, and agree with plain perturbation inside their radius")
    func mergedStepsMatchPerturbation() throws {
        let z = try orbit(4096)
        let dcMax = 1e-40
        let table = ApproximationTable(orbit: z, dcMax: dcMax, epsilon: 0x1p-24, threads: 2)
        #expect(table.level(0).count == z.count - 2)
        #expect(table.level(1).count == (z.count - 2) / 2)
        let dc = Complex(0.6e-40, -0.7e-40)
        var checked = 0
        for m in stride(from: 1, to: 3000, by: 97) {
            let start = Complex(1e-38, 0.5e-38)
            guard let (step, length) = table.longestStep(at: m, dz: start) else { continue }
            // Plain perturbation from dz at index m, `length` steps.
            var dz = start
            for k in m..<(m + length) {
                dz = Complex(z[k].re * 2 + dz.re, z[k].im * 2 + dz.im) * dz + dc
            }
            let approx = step.apply(start, dc)
            let error = (approx - dz).magnitude / dz.magnitude
            // Valid while |dz| < radius: the neglected dz^2 terms stay below eps relative.
            #expect(error < 1e-6, "m \(m), length \(length), error \(error)")
            checked += 1
        }
        #expect(checked > 10)
        // Merging is associative in its A and B (up to rounding).
        let s = Array(table.level(0))
        let left = s[0].then(s[1], dcMax: dcMax).then(s[2], dcMax: dcMax)
        let right = s[0].then(s[1].then(s[2], dcMax: dcMax), dcMax: dcMax)
        #expect((left.a - right.a).magnitude <= 1e-12 * left.a.magnitude)
        #expect((left.b - right.b).magnitude <= 1e-12 * left.b.magnitude)
        // Level 1 entry 0 is single steps 0 and 1 merged.
        let merged = table.level(1).first!
        #expect(merged.a == s[0].then(s[1], dcMax: dcMax).a && merged.radius == s[0].then(s[1], dcMax: dcMax).radius)
    }

    @Test("|z|^2 of Double deltas in Double where it lies in range: FloatExp's bits, edge cases included")
    func lengthSquaredFastPath() {
        func reference(_ z: Complex<Double>) -> FloatExp {
            let x = FloatExp(z.re), y = FloatExp(z.im)
            return x * x + y * y
        }
        var random = SplitMix64(seed: 15)
        var cases: [Complex<Double>] = [
            Complex(0, 0), Complex(-0.0, 3), Complex(0x1p-225, 0), Complex(0x1p225, 0x1p225), Complex(0x1p-226, 0),
            Complex(1, 0x1p-600), Complex(0x1p-200, 0x1p-1074), Complex(0x1p-225, 0x1p-258), Complex(-1.5, 0x1p-33),
            Complex(0x1.fffffffffffffp-1, 0x1.fffffffffffffp-27), Complex(0x1p-300, 0x1p-300),
        ]
        for _ in 0..<20_000 {
            // Exponents over and past the fast path's range, and pairs far apart.
            let e1 = Int(random.next() % 1400) - 700, e2 = e1 - Int(random.next() % 90)
            let m1 = 1 + Double(random.next() >> 11) * 0x1p-53, m2 = 1 + Double(random.next() >> 11) * 0x1p-53
            let a = (random.next() & 1 == 0 ? m1 : -m1) * FloatExp.powerOfTwo(Swift.max(-1022, Swift.min(1023, e1)))
            let b = (random.next() & 1 == 0 ? m2 : -m2) * FloatExp.powerOfTwo(Swift.max(-1022, Swift.min(1023, e2)))
            cases.append(random.next() & 1 == 0 ? Complex(a, b) : Complex(b, a))
        }
        var fast = 0
        for z in cases {
            let got = z.floatExpLengthSquared, want = reference(z)
            #expect(
                got.significand.bitPattern == want.significand.bitPattern
                    && (got.isZero || got.exponent == want.exponent),
                "\(z): \(got) against \(want)")
            let s = z.re * z.re + z.im * z.im
            if s >= 0x1p-450 && s <= 0x1p450 { fast += 1 }
        }
        #expect(fast > 5000)
    }
}
