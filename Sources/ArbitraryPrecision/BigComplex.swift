import FractalNumerics

/// A complex number with `BigFloat` parts.
public struct BigComplex: Sendable, Equatable {
    public var re: BigFloat
    public var im: BigFloat

    public init(_ re: BigFloat, _ im: BigFloat) {
        self.re = re
        self.im = im
    }

    public init(precision: Precision) {
        self.init(BigFloat(precision: precision), BigFloat(precision: precision))
    }

    /// Parses both parts as decimal strings at `precision`.
    public init(parsingRe re: String, im: String, precision: Precision) throws(ArbitraryPrecisionError) {
        self.init(try BigFloat(parsing: re, precision: precision), try BigFloat(parsing: im, precision: precision))
    }

    public init(_ z: Complex<Double>, precision: Precision) {
        self.init(BigFloat(z.re, precision: precision), BigFloat(z.im, precision: precision))
    }

    public var precision: Precision { max(re.precision, im.precision) }

    /// Both parts rounded to `precision`.
    public func rounded(to precision: Precision) -> BigComplex {
        BigComplex(re.rounded(to: precision), im.rounded(to: precision))
    }
    public var lengthSquared: BigFloat { re * re + im * im }

    /// `((x + y)(x - y), 2xy)`, the oracle's order.
    public var squared: BigComplex { BigComplex((re + im) * (re - im), (re * im).timesPowerOfTwo(1)) }

    public static func + (a: BigComplex, b: BigComplex) -> BigComplex { BigComplex(a.re + b.re, a.im + b.im) }
    public static func - (a: BigComplex, b: BigComplex) -> BigComplex { BigComplex(a.re - b.re, a.im - b.im) }
    public static func * (a: BigComplex, b: BigComplex) -> BigComplex {
        BigComplex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
    }
    public static func / (a: BigComplex, b: BigComplex) -> BigComplex {
        let d = b.lengthSquared
        let n = a * BigComplex(b.re, -b.im)
        return BigComplex(n.re / d, n.im / d)
    }

    public var doubleValue: Complex<Double> { Complex(re.doubleValue, im.doubleValue) }
    public var doubleDoubleValue: Complex<DoubleDouble> { Complex(re.doubleDoubleValue, im.doubleDoubleValue) }
    public var floatExpValue: Complex<FloatExp> { Complex(re.floatExpValue, im.floatExpValue) }
}
