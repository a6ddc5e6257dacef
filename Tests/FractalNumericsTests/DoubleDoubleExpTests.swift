import ArbitraryPrecision
import FractalNumerics
import Testing

@Suite("DoubleDoubleExp: double-double at any magnitude")
struct DoubleDoubleExpTests {
    func big(_ x: DoubleDoubleExp) -> BigFloat {
        x.isZero ? BigFloat(precision: wide) : BigFloat(x.significand, precision: wide).timesPowerOfTwo(x.exponent)
    }

    @Test("the same results as DoubleDouble wherever DoubleDouble's range suffices (only powers of two differ)")
    func matchesDoubleDouble() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<2000 {
            let a = rng.doubleDouble(exponents: -200...200), b = rng.doubleDouble(exponents: -200...200)
            let x = DoubleDoubleExp(a), y = DoubleDoubleExp(b)
            #expect(x + y == DoubleDoubleExp(a + b), "\(a) + \(b)")
            #expect(x - y == DoubleDoubleExp(a - b), "\(a) - \(b)")
            #expect(x * y == DoubleDoubleExp(a * b), "\(a) * \(b)")
            #expect(x / y == DoubleDoubleExp(a / b), "\(a) / \(b)")
            #expect((x < y) == (a < b))
        }
    }

    @Test("+ - * / within 2^-100 of MPFR with exponents up to +-300,000")
    func wideRange() {
        var rng = SplitMix64(seed: 12)
        for _ in 0..<1000 {
            let ea = Int.random(in: -300_000...300_000, using: &rng)
            let eb =
                Bool.random(using: &rng)
                ? ea + Int.random(in: -120...120, using: &rng) : Int.random(in: -300_000...300_000, using: &rng)
            let x = DoubleDoubleExp(normalizing: rng.doubleDouble(exponents: 0...0), ea)
            let y = DoubleDoubleExp(normalizing: rng.doubleDouble(exponents: 0...0), eb)
            let bx = big(x), by = big(y)
            #expect(relativeError(big(x * y), bx * by) < 0x1p-100)
            #expect(relativeError(big(x / y), bx / by) < 0x1p-100)
            // Sums: relative to the larger operand (cancellation loses the rest, as in DoubleDouble).
            let scale = bx.magnitude < by.magnitude ? by.magnitude : bx.magnitude
            #expect(((big(x + y) - (bx + by)) / scale).magnitude.doubleValue < 0x1p-100)
            #expect(((big(x - y) - (bx - by)) / scale).magnitude.doubleValue < 0x1p-100)
        }
        #expect((DoubleDoubleExp.zero + .zero).isZero)
        let one = DoubleDoubleExp.one
        #expect((one - one).isZero)
    }
}
