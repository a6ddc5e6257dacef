import ArbitraryPrecision
import FractalNumerics
import Testing

@Suite("Complex over each scalar type")
struct ComplexTests {
    func exact(_ z: Complex<Double>) -> BigComplex { BigComplex(z, precision: wide) }

    @Test("squared and power match MPFR products to rounding", arguments: [2, 3, 5, 16])
    func powers(p: Int) {
        var rng = SplitMix64(seed: UInt64(p))
        for _ in 0..<200 {
            let z = Complex(rng.double(exponents: -2...0), rng.double(exponents: -2...0))
            var expected = exact(z)
            for _ in 1..<p { expected = expected * exact(z) }
            let got = z.power(p)
            let scale = expected.lengthSquared.squareRoot().doubleValue
            #expect(Swift.abs(got.re - expected.re.doubleValue) <= scale * Double(4 * p) * 0x1p-52)
            #expect(Swift.abs(got.im - expected.im.doubleValue) <= scale * Double(4 * p) * 0x1p-52)
        }
    }

    @Test("the generic operations agree across Double, DoubleDouble and FloatExp")
    func acrossTypes() {
        var rng = SplitMix64(seed: 9)
        for _ in 0..<200 {
            let a = Complex(rng.double(exponents: -3...3), rng.double(exponents: -3...3))
            let b = Complex(rng.double(exponents: -3...3), rng.double(exponents: -3...3))
            let d = (a * b + a.squared) / b
            let dd =
                (Complex(DoubleDouble(a.re), DoubleDouble(a.im)) * Complex(DoubleDouble(b.re), DoubleDouble(b.im))
                    + Complex(DoubleDouble(a.re), DoubleDouble(a.im)).squared)
                / Complex(DoubleDouble(b.re), DoubleDouble(b.im))
            let fe =
                (Complex(FloatExp(a.re), FloatExp(a.im)) * Complex(FloatExp(b.re), FloatExp(b.im))
                    + Complex(FloatExp(a.re), FloatExp(a.im)).squared) / Complex(FloatExp(b.re), FloatExp(b.im))
            let scale = max(1, Swift.abs(dd.re.doubleValue) + Swift.abs(dd.im.doubleValue))
            #expect(Swift.abs(d.re - dd.re.doubleValue) <= 1e-13 * scale)
            #expect(Swift.abs(d.im - dd.im.doubleValue) <= 1e-13 * scale)
            // FloatExp rounds each operation like Double: identical results when nothing leaves Double's range.
            #expect(fe.re.doubleValue == d.re && fe.im.doubleValue == d.im)
        }
    }
}
