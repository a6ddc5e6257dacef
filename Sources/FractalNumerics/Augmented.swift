// Error-free transformations (Knuth, Dekker; Muller et al., Handbook of Floating-Point
// Arithmetic, 2nd ed., sections 4.3 and 4.4). The building blocks of DoubleDouble.

/// Error-free transformations of `Double` arithmetic.
///
/// Each returns `(head, tail)` with `head = fl(a op b)` and `head + tail = a op b` exactly.
/// Edge cases: undefined (non-finite tails) when the exact result overflows.
public enum Augmented {
    /// Knuth's TwoSum: no precondition on the magnitudes of `a` and `b`. Six flops.
    @inlinable @inline(__always)
    public static func sum(_ a: Double, _ b: Double) -> (head: Double, tail: Double) {
        let s = a + b
        let bb = s - a
        let err = (a - (s - bb)) + (b - bb)
        return (s, err)
    }

    /// Dekker's FastTwoSum. Precondition: `a == 0 || |a| >= |b|`. Three flops.
    @inlinable @inline(__always)
    public static func fastSum(_ a: Double, _ b: Double) -> (head: Double, tail: Double) {
        let s = a + b
        return (s, b - (s - a))
    }

    /// TwoProduct: `a * b = head + tail` exactly (when no underflow occurs in `tail`).
    ///
    /// With a fused multiply-add in the target (arm64, or x86-64 built with
    /// `FATHOM_NATIVE=1`), one FMA; otherwise Dekker's product with Veltkamp splitting,
    /// 17 inline flops, which measured faster here than the C library's `fma` call.
    /// Edge cases: Dekker's split overflows for |a| or |b| above 2^996.
    @inlinable @inline(__always)
    public static func product(_ a: Double, _ b: Double) -> (head: Double, tail: Double) {
        let p = a * b
        #if arch(arm64) || FATHOM_FMA
        return (p, (-p).addingProduct(a, b))
        #else
        let (ah, al) = split(a)
        let (bh, bl) = split(b)
        return (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
        #endif
    }

    /// Veltkamp's split of `a` into two 26-bit halves, `a = hi + lo` exactly.
    @inlinable @inline(__always)
    public static func split(_ a: Double) -> (hi: Double, lo: Double) {
        let c = 134_217_729.0 * a  // 2^27 + 1
        let hi = c - (c - a)
        return (hi, a - hi)
    }
}
