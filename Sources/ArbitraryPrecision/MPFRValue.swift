import CMPFR

/// Owns one heap-allocated `mpfr_t` and clears it on deinit.
///
/// `&x` of a Swift stored `mpfr_t` is not a stable address (Documentation/Design.md section 10), so every
/// MPFR value lives behind a pointer allocated here and passed to each MPFR call.
///
/// Unchecked Sendable: a raw pointer to the `mpfr_t` it owns. Its one holder, `BigFloat`,
/// writes through it only while it holds the sole reference (copy-on-write), and concurrent
/// MPFR calls that only read one `mpfr_t` are safe.
@usableFromInline package final class MPFRValue: @unchecked Sendable {
    @usableFromInline package let pointer: UnsafeMutablePointer<__mpfr_struct>

    @usableFromInline package init(precision: Precision) {
        pointer = .allocate(capacity: 1)
        mpfr_init2(pointer, mpfr_prec_t(precision.bits))
    }

    /// A copy with the same precision and value.
    @usableFromInline package func copy() -> MPFRValue {
        let c = MPFRValue(precision: Precision(uncheckedBits: Int(fathom_mpfr_get_prec(pointer))))
        mpfr_set(c.pointer, pointer, MPFR_RNDN)
        return c
    }

    deinit {
        mpfr_clear(pointer)
        pointer.deallocate()
    }
}
