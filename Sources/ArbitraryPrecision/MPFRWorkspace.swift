import CMPFR

/// A fixed set of preallocated `mpfr_t` registers for allocation-free hot loops.
///
/// Operators on `BigFloat` allocate a result each time; an orbit loop instead calls MPFR
/// directly on these registers (`mpfr_mul(ws[0], ws[1], ws[2], MPFR_RNDN)`), in place.
/// Not thread-safe: one workspace per thread.
@usableFromInline package final class MPFRWorkspace {
    /// The number of registers.
    @usableFromInline package let count: Int
    @usableFromInline let base: UnsafeMutablePointer<__mpfr_struct>

    /// `count` registers, each zero at `precision`.
    @usableFromInline package init(count: Int, precision: Precision) {
        precondition(count > 0)
        self.count = count
        base = .allocate(capacity: count)
        for i in 0..<count {
            mpfr_init2(base + i, mpfr_prec_t(precision.bits))
            mpfr_set_zero(base + i, 1)
        }
    }

    deinit {
        for i in 0..<count { mpfr_clear(base + i) }
        base.deallocate()
    }

    /// Register `i`, to pass to MPFR calls.
    @inlinable package subscript(i: Int) -> UnsafeMutablePointer<__mpfr_struct> {
        precondition(i >= 0 && i < count)
        return base + i
    }

    /// Copies `value` into register `i`, rounding to the register's precision.
    @usableFromInline package func set(_ i: Int, _ value: BigFloat) {
        value.withPointer { _ = mpfr_set(self[i], $0, MPFR_RNDN) }
    }

    /// Register `i` as a `BigFloat` (a copy).
    @usableFromInline package func value(_ i: Int) -> BigFloat {
        var r = BigFloat(precision: Precision(bits: Int(fathom_mpfr_get_prec(self[i]))))
        r.withMutablePointer { _ = mpfr_set($0, self[i], MPFR_RNDN) }
        return r
    }
}
