import FractalNumerics

/// A complex number with `BigFloat` parts.
public struct BigComplex: Sendable, Equatable {
    /// The real part.
    public var re: BigFloat
    /// The imaginary part.
    public var im: BigFloat

    /// `re + im i`, each part at its own precision.
    public init(_ re: BigFloat, _ im: BigFloat) {
        self.re = re
        self.im = im
    }

    /// Zero, both parts at `precision`.
    public init(precision: Precision) {
        self.init(BigFloat(precision: precision), BigFloat(precision: precision))
    }

    /// Parses both parts as decimal strings at `precision`.
    public init(parsingRe re: String, im: String, precision: Precision) throws(ArbitraryPrecisionError) {
        self.init(try BigFloat(parsing: re, precision: precision), try BigFloat(parsing: im, precision: precision))
    }

    /// `z`, exactly when `precision` has at least 53 bits.
    public init(_ z: Complex<Double>, precision: Precision) {
        self.init(BigFloat(z.re, precision: precision), BigFloat(z.im, precision: precision))
    }

    /// The larger of the two parts' precisions.
    public var precision: Precision { max(re.precision, im.precision) }

    /// Both parts rounded to `precision`.
    public func rounded(to precision: Precision) -> BigComplex {
        BigComplex(re.rounded(to: precision), im.rounded(to: precision))
    }
    /// `re * re + im * im`, the squared modulus, rounded after each real operation.
    public var lengthSquared: BigFloat { re * re + im * im }

    /// `((x + y)(x - y), 2xy)`, the oracle's order.
    public var squared: BigComplex { BigComplex((re + im) * (re - im), (re * im).timesPowerOfTwo(1)) }

    /// The sum, part by part, each part correctly rounded.
    public static func + (a: BigComplex, b: BigComplex) -> BigComplex { BigComplex(a.re + b.re, a.im + b.im) }
    /// The difference, part by part, each part correctly rounded.
    public static func - (a: BigComplex, b: BigComplex) -> BigComplex { BigComplex(a.re - b.re, a.im - b.im) }
    /// The product `(a.re b.re - a.im b.im, a.re b.im + a.im b.re)`, rounded after each real operation.
    public static func * (a: BigComplex, b: BigComplex) -> BigComplex {
        BigComplex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
    }
    /// The quotient `a * conj(b) / |b|^2`, rounded after each real operation (so not correctly
    /// rounded as a whole); NaN parts when `b` is zero.
    public static func / (a: BigComplex, b: BigComplex) -> BigComplex {
        let d = b.lengthSquared
        let n = a * BigComplex(b.re, -b.im)
        return BigComplex(n.re / d, n.im / d)
    }

    /// Each part as the nearest `Double` (overflows to infinity, underflows to zero).
    public var doubleValue: Complex<Double> { Complex(re.doubleValue, im.doubleValue) }
    /// Each part as the nearest double-double.
    public var doubleDoubleValue: Complex<DoubleDouble> { Complex(re.doubleDoubleValue, im.doubleDoubleValue) }
    /// Each part as the nearest `FloatExp` (53 bits, any exponent).
    public var floatExpValue: Complex<FloatExp> { Complex(re.floatExpValue, im.floatExpValue) }
}
