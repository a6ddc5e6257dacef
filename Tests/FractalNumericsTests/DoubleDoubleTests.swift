import ArbitraryPrecision
import FractalNumerics
import Testing

@Suite("DoubleDouble against MPFR")
struct DoubleDoubleTests {
    /// Each operation on random operands against the exact MPFR result of the same operands.
    /// Tolerances are the published bounds (Joldes, Muller, Popescu 2017): 2^-104 relative
    /// for + and - of same-sign operands (3u^2 in general, checked with cancellation below),
    /// 2^-102 for *, 2^-100 for / (generous: 15u^2 bound).
    @Test("+ - * / on 4000 random operand pairs stay within the published error bounds")
    func randomOperations() {
        var rng = SplitMix64(seed: 1)
        for _ in 0..<1000 {
            let a = rng.doubleDouble(exponents: -60...60)
            let b = rng.doubleDouble(exponents: -60...60)
            let ba = BigFloat(a, precision: wide), bb = BigFloat(b, precision: wide)
            let sumError = relativeError(BigFloat(a + b, precision: wide), ba + bb)
            let sumBound = 4 * 0x1p-106 * ((ba.magnitude + bb.magnitude) / (ba + bb).magnitude).doubleValue
            #expect(sumError <= sumBound, "sum \(a) + \(b)")
            let diffBound = 4 * 0x1p-106 * ((ba.magnitude + bb.magnitude) / (ba - bb).magnitude).doubleValue
            #expect(relativeError(BigFloat(a - b, precision: wide), ba - bb) <= diffBound, "difference \(a) - \(b)")
            #expect(relativeError(BigFloat(a * b, precision: wide), ba * bb) <= 0x1p-102, "product \(a) * \(b)")
            #expect(relativeError(BigFloat(a / b, precision: wide), ba / bb) <= 0x1p-100, "quotient \(a) / \(b)")
        }
    }

    @Test("catastrophic cancellation keeps the low word exactly")
    func cancellation() {
        var rng = SplitMix64(seed: 2)
        for _ in 0..<500 {
            let a = rng.doubleDouble(exponents: -5...5)
            let tiny = DoubleDouble(rng.double(exponents: -100 ... -80))
            let r = (a + tiny) - a
            // a + tiny is exact to 2^-106 |a|; subtracting a leaves tiny up to that error.
            let error = (BigFloat(r, precision: wide) - BigFloat(tiny, precision: wide)).magnitude
            let bound = BigFloat(a, precision: wide).magnitude * BigFloat(0x1p-104, precision: wide)
            #expect(error <= bound)
        }
        #expect(DoubleDouble(1) - DoubleDouble(1) == .zero)
        let third = DoubleDouble(1) / DoubleDouble(3)
        #expect(
            relativeError(BigFloat(third * DoubleDouble(3), precision: wide), BigFloat(1, precision: wide)) <= 0x1p-104)
    }

    @Test("signs, zero, doubling and comparison")
    func signsAndZero() {
        let x = DoubleDouble(unnormalizedHi: 1.5, lo: 0x1p-60)
        #expect((-x).hi == -1.5 && (-x).lo == -0x1p-60)
        #expect(x * .zero == .zero)
        #expect(x + .zero == x)
        #expect(x.doubled == x + x)
        #expect(DoubleDouble(1) < x)
        #expect(!(x < x))
        #expect(-x < DoubleDouble(-1.5))
        #expect(x.scaled(by: 3) == x * DoubleDouble(3))
    }

    @Test("conversion from MPFR is nearest: hi nearest Double, lo nearest of the rest")
    func conversion() throws {
        let third = try BigFloat(parsing: "0.333333333333333333333333333333333333333333", precision: wide)
        let dd = third.doubleDoubleValue
        #expect(dd.hi == 1.0 / 3.0)
        #expect(relativeError(BigFloat(dd, precision: wide), third) <= 0x1p-105)
    }
}
