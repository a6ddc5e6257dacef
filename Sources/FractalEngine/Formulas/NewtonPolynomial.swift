import FractalNumerics

/// A polynomial with real coefficients for Newton fractals, parsed from text such as
/// `z^3-2z+2`, with its roots found once (Durand-Kerner, refined by Newton in double-double).
public struct NewtonPolynomial: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// coefficients[k] multiplies z^k; the leading one is nonzero.
    public let coefficients: [Double]
    /// The text it was parsed from, normalised (no spaces).
    public let text: String

    /// Example polynomials, as text: listed in the command-line help and used by the tests.
    public static let builtIn = ["z^3-1", "z^4-1", "z^5-1", "z^3-2z+2"]
    /// The highest degree the parser accepts.
    public static let maximumDegree = 12

    /// The degree, 2 to `maximumDegree`.
    public var degree: Int { coefficients.count - 1 }

    /// The largest |coefficient| (after like terms are added), as `Location.maximumCoordinate`.
    public static let maximumCoefficient = 1e10
    /// The normalised text it was parsed from, e.g. `z^3-2z+2`.
    public var description: String { text }

    /// Parses a sum of terms `[+-][coefficient][z[^k]]`, e.g. `z^3-2z+2`, `2z^4 - 1`, `-z^5+z`.
    /// Degree 2 to `maximumDegree`; coefficients are decimals whose sums are at most
    /// `maximumCoefficient` in magnitude.
    public init?(_ source: String) {
        let s = source.filter { !$0.isWhitespace }.lowercased()
        guard !s.isEmpty else { return nil }
        var coefficients = [Double](repeating: 0, count: NewtonPolynomial.maximumDegree + 1)
        var i = s.startIndex
        var first = true
        while i < s.endIndex {
            var sign = 1.0
            if s[i] == "+" || s[i] == "-" {
                sign = s[i] == "-" ? -1 : 1
                i = s.index(after: i)
            } else if !first {
                return nil
            }
            first = false
            let numberEnd = s[i...].firstIndex { !($0.isNumber || $0 == ".") } ?? s.endIndex
            let numberText = s[i..<numberEnd]
            var coefficient = 1.0
            if !numberText.isEmpty {
                guard let c = Double(numberText), c.isFinite else { return nil }
                coefficient = c
            }
            i = numberEnd
            var exponent = 0
            if i < s.endIndex && s[i] == "z" {
                exponent = 1
                i = s.index(after: i)
                if i < s.endIndex && s[i] == "^" {
                    i = s.index(after: i)
                    let expEnd = s[i...].firstIndex { !$0.isNumber } ?? s.endIndex
                    guard let e = Int(s[i..<expEnd]) else { return nil }
                    exponent = e
                    i = expEnd
                }
            } else if numberText.isEmpty {
                return nil
            }
            guard exponent <= NewtonPolynomial.maximumDegree else { return nil }
            coefficients[exponent] += sign * coefficient
        }
        while coefficients.count > 1 && coefficients.last == 0 { coefficients.removeLast() }
        guard coefficients.count - 1 >= 2 else { return nil }
        // Terms that add up past the limit (two 1e308 terms give infinity) would give NaN roots.
        guard coefficients.allSatisfy({ $0.isFinite && Swift.abs($0) <= NewtonPolynomial.maximumCoefficient }) else {
            return nil
        }
        self.coefficients = coefficients
        self.text = s
    }

    /// The roots, refined to double-double accuracy and rounded to Double, in a fixed order
    /// (by argument, then magnitude) so root indices are stable.
    public var roots: [Complex<Double>] { NewtonPolynomial.findRoots(coefficients) }

    static func findRoots(_ coefficients: [Double]) -> [Complex<Double>] {
        let n = coefficients.count - 1
        let lead = coefficients[n]
        let monic = coefficients.map { $0 / lead }
        func eval(_ z: Complex<Double>) -> Complex<Double> {
            var r = Complex<Double>(1, 0)
            for k in stride(from: n - 1, through: 0, by: -1) { r = r * z + Complex(monic[k], 0) }
            return r
        }
        // Durand-Kerner from the classic starting points (0.4 + 0.9i)^k.
        var roots = (0..<n).map { Complex<Double>(0.4, 0.9).power($0 + 1) }
        for _ in 0..<500 {
            for i in 0..<n {
                var denominator = Complex<Double>(1, 0)
                for j in 0..<n where j != i { denominator = denominator * (roots[i] - roots[j]) }
                roots[i] = roots[i] - eval(roots[i]) / denominator
            }
        }
        // Polish each root by Newton in double-double.
        let dd = coefficients.map { DoubleDouble($0) }
        roots = roots.map { r in
            var z = Complex(DoubleDouble(r.re), DoubleDouble(r.im))
            for _ in 0..<8 {
                let (p, dp) = NewtonPolynomial.evaluate(dd, at: z)
                if dp.lengthSquared == .zero { break }
                z = z - p / dp
            }
            return Complex(z.re.doubleValue, z.im.doubleValue)
        }
        // Clean signed zeros and sort by argument then magnitude.
        return roots.map { Complex($0.re == 0 ? 0 : $0.re, $0.im == 0 ? 0 : $0.im) }
            .sorted { a, b in
                let aa = Math.atan2(a.im, a.re), ab = Math.atan2(b.im, b.re)
                return aa != ab ? aa < ab : a.magnitude < b.magnitude
            }
    }

    /// `p(z)` and `p'(z)` by Horner's rule, in any number type.
    @inlinable
    public static func evaluate<T: RealScalar>(_ coefficients: [T], at z: Complex<T>) -> (Complex<T>, Complex<T>) {
        var p = Complex<T>(coefficients[coefficients.count - 1], .zero)
        var dp = Complex<T>.zero
        for k in stride(from: coefficients.count - 2, through: 0, by: -1) {
            dp = dp * z + p
            p = p * z + Complex(coefficients[k], .zero)
        }
        return (p, dp)
    }
}
