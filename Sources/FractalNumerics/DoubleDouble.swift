// Double-double arithmetic: an unevaluated sum hi + lo of two Doubles, |lo| <= ulp(hi)/2,
// about 106 significant bits with Double's exponent range.
// Goals, in order: (1) accuracy: the "accurate" algorithms (relative error about 2^-104 for
// + - and 2^-103 for * /); (2) speed: every operation inline, no branches on the common path.
// Sources: Hida, Li, Bailey, "Library for double-double and quad-double arithmetic" (2007),
// Joldes, Muller, Popescu, "Tight and rigorous error bounds for basic building blocks of
// double-word arithmetic" (ACM TOMS 2017), algorithms 6 (add), 12 (mul), 18 (div).
// Never compile this with fast-math or reassociation: the error terms would be optimised away.

/// A double-double number: the exact value is `hi + lo`.
@frozen
public struct DoubleDouble: Sendable, Hashable {
    /// The leading word: the value rounded to a Double.
    public var hi: Double
    /// The trailing word: the rounding error of `hi`, at most half an ulp of `hi` in magnitude.
    public var lo: Double

    /// Creates `hi + lo` without normalising. Precondition (not checked): `hi == fl(hi + lo)`.
    @inlinable @inline(__always)
    public init(hi: Double, lo: Double) {
        self.hi = hi
        self.lo = lo
    }

    /// Normalises an arbitrary pair so that `hi == fl(hi + lo)`.
    @inlinable @inline(__always)
    public init(unnormalizedHi a: Double, lo b: Double) {
        let s = Augmented.sum(a, b)
        self.init(hi: s.head, lo: s.tail)
    }

    /// Whether the value is finite (tested on `hi`).
    @inlinable public var isFinite: Bool { hi.isFinite }
}

extension DoubleDouble: RealScalar {
    /// Zero.
    @inlinable public static var zero: DoubleDouble { DoubleDouble(hi: 0, lo: 0) }
    /// One.
    @inlinable public static var one: DoubleDouble { DoubleDouble(hi: 1, lo: 0) }

    /// The Double `value` exactly, with `lo = 0`.
    @inlinable @inline(__always)
    public init(_ value: Double) { self.init(hi: value, lo: 0) }

    /// The nearest Double, `hi + lo` rounded once (`hi` for a normalised value).
    @inlinable public var doubleValue: Double { hi + lo }
    /// `hi`, the leading word.
    @inlinable public var leadingDouble: Double { hi }

    /// Accurate addition (`DoubleWord.add`, Joldes et al. algorithm 6).
    @inlinable @inline(__always)
    public static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let (h, l) = DoubleWord.add(a.hi, a.lo, b.hi, b.lo)
        return DoubleDouble(hi: h, lo: l)
    }

    /// The negation, exact (both words negated).
    @inlinable @inline(__always)
    public static prefix func - (a: DoubleDouble) -> DoubleDouble { DoubleDouble(hi: -a.hi, lo: -a.lo) }

    /// The difference, computed as `a + (-b)` by accurate addition.
    @inlinable @inline(__always)
    public static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble { a + (-b) }

    /// Product (`DoubleWord.multiply`, Joldes et al. algorithm 11).
    @inlinable @inline(__always)
    public static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let (h, l) = DoubleWord.multiply(a.hi, a.lo, b.hi, b.lo)
        return DoubleDouble(hi: h, lo: l)
    }

    /// Quotient: three Newton-style correction steps on the leading quotient (Hida et al.).
    ///
    /// Edge cases: `b == 0` gives a non-finite result.
    @inlinable @inline(__always)
    public static func / (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let q1 = a.hi / b.hi
        var r = a - b.scaled(by: q1)
        let q2 = r.hi / b.hi
        r = r - b.scaled(by: q2)
        let q3 = r.hi / b.hi
        let q = Augmented.fastSum(q1, q2)
        return DoubleDouble(hi: q.head, lo: q.tail) + DoubleDouble(q3)
    }

    /// `self * 2`, exact (both words doubled).
    @inlinable public var doubled: DoubleDouble { DoubleDouble(hi: hi + hi, lo: lo + lo) }

    /// `self * d` for a Double `d` (`DoubleWord.multiply(_:_:by:)`, Joldes et al. algorithm 9).
    @inlinable @inline(__always)
    public func scaled(by d: Double) -> DoubleDouble {
        let (h, l) = DoubleWord.multiply(hi, lo, by: d)
        return DoubleDouble(hi: h, lo: l)
    }

    /// Orders by `hi`, then by `lo`: the order of the values for normalised pairs.
    @inlinable @inline(__always)
    public static func < (a: DoubleDouble, b: DoubleDouble) -> Bool {
        a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)
    }
}

extension DoubleDouble: CustomStringConvertible {
    /// `hi + lo` as two round-tripping Doubles; for decimal digits convert through `BigFloat`.
    public var description: String { "DoubleDouble(\(hi), \(lo))" }
}
