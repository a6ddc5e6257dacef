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

// Acquire loads and release stores for the reference orbit's partner thread (MultiplyPartner):
// C11 builtins, so no OS-version requirement on Swift's Synchronization module.
static inline long fathom_atomic_load_acquire(const long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void fathom_atomic_store_release(long *p, long v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
#endif
