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

    /// TwoProduct through a fused multiply-add: `a * b = head + tail` exactly
    /// (when no underflow occurs in `tail`).
    @inlinable @inline(__always)
    public static func product(_ a: Double, _ b: Double) -> (head: Double, tail: Double) {
        let p = a * b
        return (p, (-p).addingProduct(a, b))
    }
}
