import ArbitraryPrecision
import FractalNumerics

extension SplitMix64 {
    /// A random Double in [1, 2) with a random sign, times 2^e for e in `exponents`.
    mutating func double(exponents: ClosedRange<Int>) -> Double {
        let m = Double.random(in: 1..<2, using: &self) * (Bool.random(using: &self) ? 1 : -1)
        return Double(sign: .plus, exponent: Int.random(in: exponents, using: &self), significand: m)
    }

    /// A random normalised double-double near 2^e.
    mutating func doubleDouble(exponents: ClosedRange<Int>) -> DoubleDouble {
        let hi = double(exponents: exponents)
        let lo = Double.random(in: -0.5...0.5, using: &self) * hi.ulp
        return DoubleDouble(unnormalizedHi: hi, lo: lo)
    }

    /// A random FloatExp with exponent in `exponents`.
    mutating func floatExp(exponents: ClosedRange<Int>) -> FloatExp {
        let m = Double.random(in: 1..<2, using: &self) * (Bool.random(using: &self) ? 1 : -1)
        return FloatExp(significand: m, exponent: Int.random(in: exponents, using: &self))
    }
}

let wide = Precision(bits: 2400)
let bits53 = Precision(bits: 53)

/// |a - b| / |b| in MPFR, as a Double.
func relativeError(_ a: BigFloat, _ exact: BigFloat) -> Double {
    if exact.isZero { return a.isZero ? 0 : .infinity }
    return ((a - exact) / exact).magnitude.doubleValue
}
