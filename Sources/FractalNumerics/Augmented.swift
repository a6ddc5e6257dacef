// Error-free transformations (Knuth, Dekker; Muller et al., Handbook of Floating-Point
// Arithmetic, 2nd ed., sections 4.3 and 4.4) and the double-word algorithms built on them,
// generic over the component: a Double, or a SIMD vector of Doubles (one double-word per
// lane). Scalar DoubleDouble and the vectorised kernels share this code, so a lane computes
// bit for bit what the scalar type computes.

/// A Double or a vector of Doubles: what double-word arithmetic is built from.
public protocol DoubleWordComponent: Sendable {
    /// The sum, rounded once (lane by lane for a vector).
    static func + (a: Self, b: Self) -> Self
    /// The difference, rounded once (lane by lane for a vector).
    static func - (a: Self, b: Self) -> Self
    /// The product, rounded once (lane by lane for a vector).
    static func * (a: Self, b: Self) -> Self
    /// `self + a * b` with one rounding.
    func addingProduct(_ a: Self, _ b: Self) -> Self
    /// The constant `d` (in every lane).
    init(splat d: Double)
}

extension Double: DoubleWordComponent {
    /// The Double `d` itself.
    @inlinable @inline(__always) public init(splat d: Double) { self = d }
}

extension SIMD2: DoubleWordComponent where Scalar == Double {
    /// A vector with `d` in every lane.
    @inlinable @inline(__always) public init(splat d: Double) { self.init(repeating: d) }
}

extension SIMD4: DoubleWordComponent where Scalar == Double {
    /// A vector with `d` in every lane.
    @inlinable @inline(__always) public init(splat d: Double) { self.init(repeating: d) }
}

extension SIMD8: DoubleWordComponent where Scalar == Double {
    /// A vector with `d` in every lane.
    @inlinable @inline(__always) public init(splat d: Double) { self.init(repeating: d) }
}

/// Error-free transformations of floating-point arithmetic.
///
/// Each returns `(head, tail)` with `head = fl(a op b)` and `head + tail = a op b` exactly.
/// Edge cases: undefined (non-finite tails) when the exact result overflows.
public enum Augmented {
    /// Knuth's TwoSum: no precondition on the magnitudes of `a` and `b`. Six flops.
    @inlinable @inline(__always)
    public static func sum<D: DoubleWordComponent>(_ a: D, _ b: D) -> (head: D, tail: D) {
        let s = a + b
        let bb = s - a
        let err = (a - (s - bb)) + (b - bb)
        return (s, err)
    }

    /// Dekker's FastTwoSum. Precondition: `a == 0 || |a| >= |b|`. Three flops.
    @inlinable @inline(__always)
    public static func fastSum<D: DoubleWordComponent>(_ a: D, _ b: D) -> (head: D, tail: D) {
        let s = a + b
        return (s, b - (s - a))
    }

    /// TwoProduct: `a * b = head + tail` exactly (when no underflow occurs in `tail`).
    ///
    /// With a fused multiply-add in the target (arm64, or x86-64 built with
    /// `make native`: `FATHOM_FMA`), one FMA; otherwise Dekker's product with Veltkamp splitting,
    /// 17 inline flops: the C library's `fma` is a function call on baseline x86-64.
    /// Edge cases: Dekker's split overflows for |a| or |b| above 2^996.
    @inlinable @inline(__always)
    public static func product<D: DoubleWordComponent>(_ a: D, _ b: D) -> (head: D, tail: D) {
        let p = a * b
        #if arch(arm64) || FATHOM_FMA
        return (p, (D(splat: 0) - p).addingProduct(a, b))
        #else
        let (ah, al) = split(a)
        let (bh, bl) = split(b)
        return (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
        #endif
    }

    /// Veltkamp's split of `a` into two 26-bit halves, `a = hi + lo` exactly.
    @inlinable @inline(__always)
    public static func split<D: DoubleWordComponent>(_ a: D) -> (hi: D, lo: D) {
        let c = D(splat: 134_217_729.0) * a  // 2^27 + 1
        let hi = c - (c - a)
        return (hi, a - hi)
    }
}

/// Double-word ("double-double") algorithms on (hi, lo) pairs of any component type.
/// Sources: Joldes, Muller, Popescu, "Tight and rigorous error bounds for basic building
/// blocks of double-word arithmetic" (ACM TOMS 2017); Hida, Li, Bailey (2007).
public enum DoubleWord {
    /// Accurate addition (Joldes et al. algorithm 6), relative error <= 3u^2.
    @inlinable @inline(__always)
    public static func add<D: DoubleWordComponent>(_ ah: D, _ al: D, _ bh: D, _ bl: D) -> (D, D) {
        let s = Augmented.sum(ah, bh)
        let t = Augmented.sum(al, bl)
        let c = s.tail + t.head
        let v = Augmented.fastSum(s.head, c)
        let w = t.tail + v.tail
        let r = Augmented.fastSum(v.head, w)
        return (r.head, r.tail)
    }

    /// Product (Joldes et al. algorithm 11: cross terms without FMA), relative error <= 5u^2.
    @inlinable @inline(__always)
    public static func multiply<D: DoubleWordComponent>(_ ah: D, _ al: D, _ bh: D, _ bl: D) -> (D, D) {
        let c = Augmented.product(ah, bh)
        let cl = (ah * bl + al * bh) + c.tail
        let r = Augmented.fastSum(c.head, cl)
        return (r.head, r.tail)
    }

    /// Product with a plain component `d` (Joldes et al. algorithm 9).
    @inlinable @inline(__always)
    public static func multiply<D: DoubleWordComponent>(_ ah: D, _ al: D, by d: D) -> (D, D) {
        let c = Augmented.product(ah, d)
        let t = Augmented.fastSum(c.head, al * d)
        let r = Augmented.fastSum(t.head, t.tail + c.tail)
        return (r.head, r.tail)
    }
}
