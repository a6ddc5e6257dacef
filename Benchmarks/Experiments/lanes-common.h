// What the lane experiments share (lanes-variance.cpp, lanes-la.cpp): the variance's scalar
// helpers as FathomKernels.h has them (`powerOfTwo`, `Pair`, `normalized`, `addVariance`), the
// lane types (GCC/Clang vector extensions) and the same two helpers branch-free over lanes:
// each lane's operations those of the scalar helper, in the same order.
#pragma once
// The lane helpers are always inlined: no vector crosses a call, whatever the build's ISA.
#pragma clang diagnostic ignored "-Wpsabi"
#pragma STDC FP_CONTRACT OFF
#include <cstdint>
#include <cstring>

static inline double bitsToDouble(int64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline int64_t doubleToBits(double d) { int64_t b; memcpy(&b, &d, 8); return b; }
static inline double powerOfTwo(int64_t k) { return bitsToDouble((int64_t)((uint64_t)(k + 1023) << 52)); }

struct Pair { double m; int64_t e; };
static inline Pair normalized(Pair v) {
    int64_t bits = doubleToBits(v.m);
    int64_t biased = (bits >> 52) & 0x7ff;
    if (biased != 0 && biased != 0x7ff) {
        int64_t sig = (bits & (int64_t)0x800fffffffffffffULL) | 0x3ff0000000000000LL;
        return {bitsToDouble(sig), v.e + biased - 1023};
    }
    if (v.m == 0) return {0, 0};
    return v;  // rare (subnormal, infinite): not reached in these experiments
}
static inline void addVariance(Pair &v, double m, int64_t e) {
    if (v.m == 0) { v = {m, e}; return; }
    int64_t j = e - v.e;
    if (j > 900) v = {m, e};
    else if (j >= -900) v.m += m * powerOfTwo(j);
}

/// W lanes of doubles (`d`) and of 64-bit integers or masks (`i`).
template <int W> struct V {
    typedef double d __attribute__((vector_size(8 * W)));
    typedef int64_t i __attribute__((vector_size(8 * W)));
};

/// `addVariance` in the lanes of `mask` (all ones: every lane).
template <int W>
static inline __attribute__((always_inline)) void laneAddVariance(
    typename V<W>::d &vm, typename V<W>::i &ve, typename V<W>::d m, typename V<W>::i e, typename V<W>::i mask) {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    vi zero = vm == 0;
    vi j = e - ve;
    vi take = (zero | (j > 900)) & mask;
    vi add = (~take) & (j >= -900) & mask;
    vi jc = add ? j : (vi){};
    vd scale = (vd)((jc + 1023) << 52);
    vd sum = vm + m * scale;
    vm = take ? m : (add ? sum : vm);
    ve = take ? e : ve;
}

/// `normalized` in every lane.
template <int W>
static inline __attribute__((always_inline)) void laneNormalized(typename V<W>::d &vm, typename V<W>::i &ve) {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    vi bits = (vi)vm;
    vi biased = (bits >> 52) & 0x7ff;
    vi normal = (biased != 0) & (biased != 0x7ff);
    vi sig = (bits & (int64_t)0x800fffffffffffffULL) | 0x3ff0000000000000LL;
    vm = normal ? (vd)sig : vm;
    ve = normal ? ve + biased - 1023 : ((vm == 0) ? (vi){} : ve);
}

/// The scalar loops' settle after a step: z = Z(m) + dz; true where it escapes (|z|^2 > 1e10),
/// else the next stretch 4|z|^2 and, where m reaches the orbit's end (n) or |z| < |dz|, the
/// rebase to Z(0) from dz = z.
static inline bool scalarSettle(const double *Zr, const double *Zi, int64_t n, int64_t &m, double &dzr, double &dzi,
                                double &next) {
    double zr = Zr[m] + dzr, zi = Zi[m] + dzi;
    double r2 = zr * zr + zi * zi;
    if (r2 > 1e10) return true;
    next = 4 * r2;
    if (m >= n || r2 < dzr * dzr + dzi * dzi) { dzr = zr; dzi = zi; m = 0; }
    return false;
}
