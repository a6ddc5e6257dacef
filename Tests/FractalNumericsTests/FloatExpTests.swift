import ArbitraryPrecision
import FractalNumerics
import Testing

@Suite("FloatExp against MPFR at 53 bits")
struct FloatExpTests {
    /// FloatExp rounds every operation once to 53 bits, so it must equal MPFR at 53 bits with
    /// MPFR's (far larger) exponent range: equality, no tolerance.
    func check(_ a: FloatExp, _ b: FloatExp) {
        let ma = BigFloat(a, precision: bits53), mb = BigFloat(b, precision: bits53)
        #expect((a + b) == (ma + mb).floatExpValue, "\(a) + \(b)")
        #expect((a - b) == (ma - mb).floatExpValue, "\(a) - \(b)")
        #expect((a * b) == (ma * mb).floatExpValue, "\(a) * \(b)")
        if !b.isZero { #expect((a / b) == (ma / mb).floatExpValue, "\(a) / \(b)") }
        #expect((a < b) == (ma < mb), "\(a) < \(b)")
        #expect(a.magnitudeIsLess(than: b) == (ma.magnitude < mb.magnitude))
    }

    @Test("+ - * / and < on 3000 random pairs with exponents up to +-332,000 (1e+-100000)")
    func randomWideRange() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<1000 {
            check(rng.floatExp(exponents: -332_200...332_200), rng.floatExp(exponents: -332_200...332_200))
        }
        // Close exponents exercise alignment and rounding of sums.
        for _ in 0..<1000 {
            let e = Int.random(in: -332_200...332_200, using: &rng)
            check(rng.floatExp(exponents: e...e + 60), rng.floatExp(exponents: e...e + 60))
        }
        // Exponent differences around the 64-bit cut-off of addition.
        for d in 50...70 {
            let a = rng.floatExp(exponents: 0...0)
            check(a, rng.floatExp(exponents: -d ... -d))
            check(a, -FloatExp(significand: a.significand, exponent: -d))
        }
    }

    @Test("cancellation, zero and signs")
    func cancellationAndZero() {
        var rng = SplitMix64(seed: 4)
        for _ in 0..<500 {
            let a = rng.floatExp(exponents: -100_000...100_000)
            #expect((a - a).isZero)
            let nearby = FloatExp(significand: a.significand.nextUp, exponent: a.exponent)
            check(nearby, a)
            check(a, .zero)
            check(.zero, a)
            #expect((a * .zero).isZero)
            #expect(-(-a) == a)
        }
        #expect(FloatExp.zero + .zero == .zero)
        #expect(FloatExp(-0.0) == .zero)
    }

    @Test("1e-100000 and 1e+100000 from decimal strings keep their magnitude")
    func extremeDecimals() throws {
        let tiny = try BigFloat(parsing: "1e-100000", precision: bits53).floatExpValue
        let huge = try BigFloat(parsing: "1e+100000", precision: bits53).floatExpValue
        #expect(Swift.abs(tiny.log2Magnitude - (-100_000 * 3.321928094887362)) < 1e-6)
        #expect(Swift.abs(huge.log2Magnitude - 100_000 * 3.321928094887362) < 1e-6)
        let product = tiny * huge
        #expect(Swift.abs(product.doubleValue - 1) < 1e-15)
        #expect(tiny.doubleValue == 0)
        #expect(huge.doubleValue == .infinity)
    }

    @Test("conversions to and from Double, subnormals included")
    func doubleConversions() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<1000 {
            let d = rng.double(exponents: -1074...1023)
            #expect(FloatExp(d).doubleValue == d)
        }
        let sub = Double.leastNonzeroMagnitude * 3
        #expect(FloatExp(sub).doubleValue == sub)
        #expect(FloatExp(sub).exponent == -1073)
    }
}

@Suite("FloatExp's exponent range")
struct FloatExpRangeTests {
    @Test("a value past the exponent range is infinite or zero, never a wrapped exponent")
    func range() {
        let limit = FloatExp.maximumExponent
        #expect(FloatExp(significand: 1, exponent: limit).exponent == limit)
        #expect(FloatExp(significand: 1, exponent: -limit).exponent == -limit)
        for (m, e) in [(1.0, Int.max), (1.5, limit + 1), (2.0, limit), (1e300, limit - 10)] {
            let v = FloatExp(significand: m, exponent: e)
            #expect(!v.isFinite && v.significand > 0, "\(m) * 2^\(e)")
            let w = FloatExp(significand: -m, exponent: e)
            #expect(!w.isFinite && w.significand < 0, "-\(m) * 2^\(e)")
        }
        for (m, e) in [(1.0, Int.min), (1.0, -limit - 1), (0.5, -limit), (1e-300, -limit + 10), (5e-324, -limit)] {
            #expect(FloatExp(significand: m, exponent: e).isZero, "\(m) * 2^\(e)")
        }
        #expect(FloatExp(significand: 0, exponent: Int.max).isZero)
        #expect(FloatExp(significand: .nan, exponent: 3).significand.isNaN)
        // Two values at the limit multiply without wrapping (the arithmetic's range is 2^62).
        let big = FloatExp(significand: 1, exponent: limit)
        #expect((big * big).exponent == 2 * limit)
        #expect((big / FloatExp(significand: 1, exponent: -limit)).exponent == 2 * limit)
    }
}
