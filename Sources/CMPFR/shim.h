#ifndef FATHOM_CMPFR_SHIM_H
#define FATHOM_CMPFR_SHIM_H
// stdio.h and stdint.h first: mpfr.h declares its FILE* and intmax_t functions only after them.
#include <stdio.h>
#include <stdint.h>
#include <mpfr.h>

// Macro-only MPFR names, as functions Swift can call.
static inline int fathom_mpfr_cmpabs(mpfr_srcptr a, mpfr_srcptr b) { return mpfr_cmpabs(a, b); }
static inline int fathom_mpfr_sgn(mpfr_srcptr a) { return mpfr_sgn(a); }
static inline mpfr_prec_t fathom_mpfr_get_prec(mpfr_srcptr a) { return mpfr_get_prec(a); }
static inline mpfr_exp_t fathom_mpfr_get_exp(mpfr_srcptr a) { return mpfr_get_exp(a); }
static inline int fathom_mpfr_zero_p(mpfr_srcptr a) { return mpfr_zero_p(a); }
static inline int fathom_mpfr_nan_p(mpfr_srcptr a) { return mpfr_nan_p(a); }
static inline int fathom_mpfr_inf_p(mpfr_srcptr a) { return mpfr_inf_p(a); }
static inline const char *fathom_mpfr_version(void) { return mpfr_get_version(); }

// Acquire loads, release stores and a fetch-and-add for the reference orbit's team of threads
// (ReferenceTeam): C11 builtins, so no OS-version requirement on Swift's Synchronization module.
static inline long fathom_atomic_load_acquire(const long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void fathom_atomic_store_release(long *p, long v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline long fathom_atomic_fetch_add(long *p, long v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
// A spin-wait hint (x86 PAUSE, arm64 YIELD); nothing elsewhere.
static inline void fathom_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// The significand and exponent of a regular number, and a number set from a significand the
// caller owns (MPFR's custom interface), for products formed limb by limb (SplitProduct).
static inline mp_limb_t *fathom_mpfr_significand(mpfr_srcptr a) { return (mp_limb_t *)mpfr_custom_get_significand(a); }
static inline mpfr_exp_t fathom_mpfr_exponent(mpfr_srcptr a) { return mpfr_custom_get_exp(a); }
static inline int fathom_mpfr_regular_p(mpfr_srcptr a) { return mpfr_regular_p(a); }
static inline void fathom_mpfr_set_regular(mpfr_ptr a, int negative, mpfr_exp_t e, mpfr_prec_t p, mp_limb_t *limbs) {
    mpfr_custom_init_set(a, negative ? -MPFR_REGULAR_KIND : MPFR_REGULAR_KIND, e, p, limbs);
}

// GMP's limb arithmetic (its names are macros).
static inline void fathom_mpn_mul_n(mp_limb_t *r, const mp_limb_t *a, const mp_limb_t *b, long n) { mpn_mul_n(r, a, b, n); }
static inline mp_limb_t fathom_mpn_add(mp_limb_t *r, const mp_limb_t *a, long an, const mp_limb_t *b, long bn) {
    return mpn_add(r, a, an, b, bn);
}
static inline mp_limb_t fathom_mpn_sub(mp_limb_t *r, const mp_limb_t *a, long an, const mp_limb_t *b, long bn) {
    return mpn_sub(r, a, an, b, bn);
}
static inline mp_limb_t fathom_mpn_lshift(mp_limb_t *r, const mp_limb_t *a, long n, unsigned s) { return mpn_lshift(r, a, n, s); }
static inline void fathom_mpn_copy(mp_limb_t *r, const mp_limb_t *a, long n) { mpn_copyi(r, a, n); }
#endif
