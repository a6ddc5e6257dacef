// The reference orbit's step, z <- z^2 + c, in arbitrary precision, bit for bit MPFR's
// (MPFRStep.zPowerPlusC): t1 = x + y, t2 = x - y, t3 = x y, x = t1 t2, y = 2 t3, x += cx,
// y += cy, every operation rounded to nearest (ties to even) at the same precision p. A
// correctly rounded result is one number whatever computes it, so the orbit is MPFR's.
// Documentation/GPU.md, "The reference orbit on the device", has the design.
//
// - A number is sign, zero flag, exponent e and a significand m of L = ceil(p / 32) 32-bit
//   limbs, little-endian, normalised (the top bit of m[L-1] set): the value is 0.m 2^e, MPFR's
//   convention; the 32L - p bits below the precision are zero.
// - Products are exact through a number-theoretic transform over the prime 2^64 - 2^32 + 1 on
//   16-bit digits (a coefficient is at most 2L (2^16 - 1)^2 < 2^64 - 2^32 + 1 for L < 2^31),
//   then rounded once.
// - Sums align the smaller operand under the larger with 64 guard bits and a sticky bit, the
//   textbook correctly rounded addition (Muller et al., Handbook of Floating-Point Arithmetic,
//   2nd ed., 7.3): with two guard limbs a subtraction that cancels more than one bit loses no
//   bit, and one that cancels at most one keeps the round bit.
// - After each step, x and y are rounded to Doubles (and their low words, x - hi rounded) as
//   mpfr_get_d does: the top 64 bits, then the limb where x - hi's leading bits lie (found by a
//   scan: the highest limb that is not 0, or not all ones where hi rounded up) and the two under
//   it, and whether anything lies under those; subnormal and underflowing values as MPFR
//   rounds them, and each number's significand and exponent (mpfr_get_d_2exp) for the host's
//   tiny entries. Where |Z|^2 is within 2^-36 of 4 or beyond, the step also makes the host's
//   exact escape test: x^2 + y^2 against 4, else the gap 4 - (x^2 + y^2). No step needs the
//   host's MPFR (the flag stays in the interface for a device that cannot settle one).
//
// This first form runs each phase as a serial loop (the host emulation, which the tests check
// against MPFR); each loop is a map, a reduction or a carry scan, the shapes a device kernel
// splits over threads. Needs FathomKernels.h before it (FK_DEVICE).

namespace fathom {
namespace orbit {

typedef unsigned int Limb;
typedef unsigned long long U64;

constexpr U64 kPrime = 0xffffffff00000001ULL;  // 2^64 - 2^32 + 1
constexpr U64 kEpsilon = 0xffffffffULL;         // 2^64 mod kPrime

FK_DEVICE U64 addMod(U64 a, U64 b) {
    U64 s = a + b;
    if (s < a) s += kEpsilon;  // wrapped: s + 2^64 = s + kEpsilon (mod p)
    if (s >= kPrime) s -= kPrime;
    return s;
}

FK_DEVICE U64 subMod(U64 a, U64 b) {
    U64 d = a - b;
    if (a < b) d -= kEpsilon;  // borrowed: d - 2^64 = d - kEpsilon (mod p)
    return d;
}

/// a b mod p for a, b < p: 2^64 = 2^32 - 1 and 2^96 = -1 (mod p).
FK_DEVICE U64 mulMod(U64 a, U64 b) {
#ifdef __CUDACC__
    U64 lo = a * b, hi = __umul64hi(a, b);
#else
    unsigned __int128 t = (unsigned __int128)a * b;
    U64 lo = (U64)t, hi = (U64)(t >> 64);
#endif
    U64 hh = hi >> 32, hl = hi & 0xffffffffULL;
    U64 t0 = lo - hh;
    if (lo < hh) t0 -= kEpsilon;
    U64 t1 = hl * kEpsilon;
    U64 s = t0 + t1;
    if (s < t0) s += kEpsilon;
    if (s >= kPrime) s -= kPrime;
    return s;
}

FK_DEVICE U64 powMod(U64 base, U64 exponent) {
    U64 r = 1;
    while (exponent) {
        if (exponent & 1) r = mulMod(r, base);
        base = mulMod(base, base);
        exponent >>= 1;
    }
    return r;
}

FK_DEVICE int leadingZeros32(Limb v) {
#ifdef __CUDACC__
    return __clz((int)v);
#else
    return v ? __builtin_clz(v) : 32;
#endif
}

FK_DEVICE int leadingZeros64(U64 v) {
#ifdef __CUDACC__
    return __clzll((long long)v);
#else
    return v ? __builtin_clzll(v) : 64;
#endif
}

struct Num {
    int negative;
    int zero;
    long long exponent;  // the value is 0.m 2^exponent, m in [1/2, 1)
    Limb *m;             // L limbs
};

/// A step's precision and its scratch memory (all of it preallocated by the caller).
struct Context {
    long long precision;  // p, at least 64
    int limbs;            // L = ceil(p / 32)
    int nttLog;           // N = 2^nttLog >= 4L: the 16-bit digits of an L-limb by L-limb product
    U64 *fa, *fb;         // N each
    const U64 *twiddles;  // w^j for j < N/2, w a primitive N-th root of unity mod p
    const U64 *inverseTwiddles;
    U64 inverseN;
    Limb *wide;     // 2L + 2 limbs
    Limb *shifted;  // L + 2 limbs
};

/// The smallest nttLog for L limbs.
FK_DEVICE int nttLogFor(int limbs) {
    int k = 1;
    while ((1LL << k) < 4LL * limbs) k++;
    return k;
}

/// w^j and w^-j for j < N/2, w = 7^((p - 1) / N) (7 generates the multiplicative group).
FK_DEVICE void makeTwiddles(int nttLog, U64 *twiddles, U64 *inverseTwiddles, U64 *inverseN) {
    const long long n = 1LL << nttLog;
    const U64 w = powMod(7, (kPrime - 1) >> nttLog);
    const U64 wi = powMod(w, kPrime - 2);
    U64 a = 1, b = 1;
    for (long long j = 0; j < n / 2; j++) {
        twiddles[j] = a;
        inverseTwiddles[j] = b;
        a = mulMod(a, w);
        b = mulMod(b, wi);
    }
    *inverseN = powMod((U64)n, kPrime - 2);
}

/// The forward transform's butterfly on a[lo] and a[lo + len] with twiddle w (decimation in
/// frequency), shared by the serial transform and the kernel's stages.
FK_DEVICE void forwardButterfly(U64 *a, long long lo, long long len, U64 w) {
    const U64 u = a[lo], v = a[lo + len];
    a[lo] = addMod(u, v);
    a[lo + len] = mulMod(subMod(u, v), w);
}

/// The inverse transform's butterfly (decimation in time, w a power of w^-1).
FK_DEVICE void inverseButterfly(U64 *a, long long lo, long long len, U64 w) {
    const U64 u = a[lo], v = mulMod(a[lo + len], w);
    a[lo] = addMod(u, v);
    a[lo + len] = subMod(u, v);
}

/// The forward transform's stages of lengths 2^lenLog and 2^(lenLog - 1) as one pass over
/// groups of four words, which the two stages mix only among themselves: group g (< N/4)
/// is base + j, + h, + 2h, + 3h (h = 2^(lenLog - 1), j < h, base a multiple of 4h). The kernel
/// takes its long stages two at a time so, half as many passes over the grid and barriers.
FK_DEVICE void forwardPair(const U64 *twiddles, U64 *a, int logN, int lenLog, long long g) {
    const long long h = 1LL << (lenLog - 1), j = g & (h - 1), e = ((g >> (lenLog - 1)) << (lenLog + 1)) + j;
    const int strideLog = logN - 1 - lenLog;
    U64 v[4] = {a[e], a[e + h], a[e + 2 * h], a[e + 3 * h]};
    const U64 w0 = twiddles[j << strideLog], w1 = twiddles[(j + h) << strideLog], w2 = twiddles[j << (strideLog + 1)];
    forwardButterfly(v, 0, 2, w0);  // length 2h: (0, 2) and (1, 3)
    forwardButterfly(v, 1, 2, w1);
    forwardButterfly(v, 0, 1, w2);  // length h: (0, 1) and (2, 3)
    forwardButterfly(v, 2, 1, w2);
    a[e] = v[0];
    a[e + h] = v[1];
    a[e + 2 * h] = v[2];
    a[e + 3 * h] = v[3];
}

/// The inverse's stages of lengths 2^(lenLog - 1) and 2^lenLog (in that order) as one pass
/// over forwardPair's groups; `scale`: the words times 1/N after (the transform's last stage).
FK_DEVICE void inversePair(const U64 *inverseTwiddles, U64 *a, int logN, int lenLog, long long g, bool scale, U64 inverseN) {
    const long long h = 1LL << (lenLog - 1), j = g & (h - 1), e = ((g >> (lenLog - 1)) << (lenLog + 1)) + j;
    const int strideLog = logN - 1 - lenLog;
    U64 v[4] = {a[e], a[e + h], a[e + 2 * h], a[e + 3 * h]};
    const U64 w2 = inverseTwiddles[j << (strideLog + 1)], w0 = inverseTwiddles[j << strideLog],
              w1 = inverseTwiddles[(j + h) << strideLog];
    inverseButterfly(v, 0, 1, w2);  // length h: (0, 1) and (2, 3)
    inverseButterfly(v, 2, 1, w2);
    inverseButterfly(v, 0, 2, w0);  // length 2h: (0, 2) and (1, 3)
    inverseButterfly(v, 1, 2, w1);
    for (int k = 0; k < 4; k++) a[e + k * h] = scale ? mulMod(v[k], inverseN) : v[k];
}

/// Decimation in frequency: natural order in, bit-reversed order out.
FK_DEVICE void forwardTransform(const Context &c, U64 *a) {
    const long long n = 1LL << c.nttLog;
    for (long long len = n / 2, stride = 1; len >= 1; len >>= 1, stride <<= 1) {
        for (long long s = 0; s < n; s += 2 * len) {
            for (long long j = 0; j < len; j++) forwardButterfly(a, s + j, len, c.twiddles[j * stride]);
        }
    }
}

/// Decimation in time with w^-1: bit-reversed order in, natural order out, divided by N.
FK_DEVICE void inverseTransform(const Context &c, U64 *a) {
    const long long n = 1LL << c.nttLog;
    for (long long len = 1, stride = n / 2; len < n; len <<= 1, stride >>= 1) {
        for (long long s = 0; s < n; s += 2 * len) {
            for (long long j = 0; j < len; j++) inverseButterfly(a, s + j, len, c.inverseTwiddles[j * stride]);
        }
    }
    for (long long i = 0; i < n; i++) a[i] = mulMod(a[i], c.inverseN);
}

/// Digit j of the 16-bit digits of limbs m (two a limb, the low one first).
FK_DEVICE U64 digit16(const Limb *m, long long j) { return (m[j >> 1] >> (16 * (j & 1))) & 0xffff; }

/// Rounds the W-limb integer w (top bit of w[W-1] set, W > L) to p bits into r: r.m = its top
/// p bits rounded to nearest, ties to even; `sticky`: nonzero bits lie below w[0]. r's value is
/// 0.(w) 2^exponent, rounded; a carry out of the top limb adds one to the exponent.
FK_DEVICE void roundTo(const Context &c, Num &r, const Limb *w, int W, long long exponent, bool sticky) {
    const int L = c.limbs;
    const long long drop = 32LL * W - c.precision;  // > 0
    const long long rb = drop - 1;
    const bool round = (w[rb >> 5] >> (rb & 31)) & 1;
    if (!sticky) {
        const long long k = rb >> 5;
        if (w[k] & (Limb)((1ULL << (rb & 31)) - 1)) sticky = true;
        for (long long i = 0; i < k && !sticky; i++) sticky = w[i] != 0;
    }
    const int lowBits = (int)(32LL * L - c.precision);  // 0 ... 31
    const int offset = W - L;
    for (int i = 0; i < L; i++) r.m[i] = w[offset + i];
    r.m[0] &= ~(Limb)((1ULL << lowBits) - 1);
    r.exponent = exponent;
    const bool odd = (r.m[0] >> lowBits) & 1;
    if (round && (sticky || odd)) {
        U64 carry = 1ULL << lowBits;
        for (int i = 0; i < L && carry; i++) {
            U64 s = (U64)r.m[i] + carry;
            r.m[i] = (Limb)s;
            carry = s >> 32;
        }
        if (carry) {  // all ones rounded up: the limbs wrapped to zero
            r.m[L - 1] = 0x80000000u;
            r.exponent += 1;
        }
    }
}

FK_DEVICE void copy(const Context &c, Num &r, const Num &a) {
    r.negative = a.negative;
    r.zero = a.zero;
    r.exponent = a.exponent;
    if (&r != &a && !a.zero)
        for (int i = 0; i < c.limbs; i++) r.m[i] = a.m[i];
}

/// r = a b, correctly rounded. r may be a or b.
FK_DEVICE void multiply(const Context &c, Num &r, const Num &a, const Num &b) {
    const int negative = a.negative ^ b.negative;
    if (a.zero || b.zero) {
        r.zero = 1;
        r.negative = negative;
        return;
    }
    const int L = c.limbs;
    const long long n = 1LL << c.nttLog;
    for (long long i = 0; i < n; i++) {
        c.fa[i] = i < 2 * L ? digit16(a.m, i) : 0;
        c.fb[i] = i < 2 * L ? digit16(b.m, i) : 0;
    }
    forwardTransform(c, c.fa);
    forwardTransform(c, c.fb);
    for (long long i = 0; i < n; i++) c.fa[i] = mulMod(c.fa[i], c.fb[i]);
    inverseTransform(c, c.fa);
    // The coefficients are the exact convolution (each below p): carry them into 16-bit digits.
    Limb *w = c.wide;
    U64 carry = 0;
    for (long long k = 0; k < 4LL * L; k++) {
        U64 v = c.fa[k] + carry;
        if (k & 1)
            w[k >> 1] |= (Limb)(v & 0xffff) << 16;
        else
            w[k >> 1] = (Limb)(v & 0xffff);
        carry = v >> 16;
    }
    // 0.m1 0.m2 lies in [1/4, 1): at most one leading zero.
    long long e = a.exponent + b.exponent;
    if (!(w[2 * L - 1] >> 31)) {
        for (int i = 2 * L - 1; i > 0; i--) w[i] = (w[i] << 1) | (w[i - 1] >> 31);
        w[0] <<= 1;
        e -= 1;
    }
    roundTo(c, r, w, 2 * L, e, false);
    r.negative = negative;
    r.zero = 0;
}

/// Sign of |a| - |b| for nonzero a, b.
FK_DEVICE int compareMagnitude(const Context &c, const Num &a, const Num &b) {
    if (a.exponent != b.exponent) return a.exponent > b.exponent ? 1 : -1;
    for (int i = c.limbs - 1; i >= 0; i--)
        if (a.m[i] != b.m[i]) return a.m[i] > b.m[i] ? 1 : -1;
    return 0;
}

/// r = a + b (or a - b), correctly rounded, with MPFR's signed zeros (RNDN: x - x = +0,
/// -0 + -0 = -0). r may be a or b.
FK_DEVICE void add(const Context &c, Num &r, const Num &a, const Num &b, bool subtract) {
    const int bNegative = b.negative ^ (subtract ? 1 : 0);
    if (a.zero && b.zero) {
        r.zero = 1;
        r.negative = a.negative & bNegative;
        return;
    }
    if (b.zero) {
        copy(c, r, a);
        return;
    }
    if (a.zero) {
        copy(c, r, b);
        r.negative = bNegative;
        return;
    }
    const int order = compareMagnitude(c, a, b);
    const bool same = a.negative == bNegative;
    if (!same && order == 0) {
        r.zero = 1;
        r.negative = 0;
        return;
    }
    const Num &big = order >= 0 ? a : b;
    const Num &small = order >= 0 ? b : a;
    const int negative = order >= 0 ? a.negative : bNegative;
    const long long bigExponent = big.exponent;
    const long long d = bigExponent - small.exponent;
    const int L = c.limbs, W = L + 2;
    Limb *w = c.wide, *s = c.shifted;
    // w = big's significand over two zero guard limbs; s = small's the same, shifted right d bits.
    w[0] = 0;
    w[1] = 0;
    for (int i = 0; i < L; i++) w[i + 2] = big.m[i];
    bool sticky = false;
    if (d >= 32LL * W) {
        for (int i = 0; i < W; i++) s[i] = 0;
        sticky = true;
    } else {
        const int q = (int)(d >> 5), rr = (int)(d & 31);
        for (int i = 0; i < W; i++) {
            const int j = i + q;
            const Limb lo = j < W && j >= 2 ? small.m[j - 2] : 0;
            const Limb hi = j + 1 < W && j + 1 >= 2 ? small.m[j + 1 - 2] : 0;
            s[i] = rr ? (lo >> rr) | (hi << (32 - rr)) : lo;
        }
        for (int j = 2; j < q && j < W && !sticky; j++) sticky = small.m[j - 2] != 0;
        if (rr && q >= 2 && q < W && (small.m[q - 2] & (Limb)((1ULL << rr) - 1))) sticky = true;
    }
    if (same) {
        U64 carry = 0;
        for (int i = 0; i < W; i++) {
            U64 t = (U64)w[i] + s[i] + carry;
            w[i] = (Limb)t;
            carry = t >> 32;
        }
        long long e = bigExponent;
        if (carry) {
            if (w[0] & 1) sticky = true;
            for (int i = 0; i < W - 1; i++) w[i] = (w[i] >> 1) | (w[i + 1] << 31);
            w[W - 1] = (w[W - 1] >> 1) | 0x80000000u;
            e += 1;
        }
        roundTo(c, r, w, W, e, sticky);
    } else {
        U64 borrow = 0;
        for (int i = 0; i < W; i++) {
            U64 t = (U64)w[i] - s[i] - borrow;
            w[i] = (Limb)t;
            borrow = (t >> 32) & 1;
        }
        // The bits shifted out make the exact difference w - 1 + (something in (0, 1)).
        if (sticky)
            for (int i = 0; i < W; i++)
                if (w[i]--) break;
        int top = W - 1;
        while (top > 0 && w[top] == 0) top--;
        const int z = (W - 1 - top) * 32 + leadingZeros32(w[top]);
        if (z > 0) {
            const int q = z >> 5, rr = z & 31;
            for (int i = W - 1; i >= 0; i--) {
                const int j = i - q;
                const Limb hi = j >= 0 ? w[j] : 0;
                const Limb lo = j - 1 >= 0 ? w[j - 1] : 0;
                w[i] = rr ? (hi << rr) | (lo >> (32 - rr)) : hi;
            }
        }
        roundTo(c, r, w, W, bigExponent - z, sticky);
    }
    r.negative = negative;
    r.zero = 0;
}

/// d 2^k as a Double, d < 2^54 with its top bit at 52 or 53, the result a normal number.
FK_DEVICE double makeDouble(int negative, U64 d, long long k) {
    if (d >> 53) {
        d >>= 1;
        k += 1;
    }
    U64 bits = ((U64)(k + 52 + 1023) << 52) | (d & 0xfffffffffffffULL);
    if (negative) bits |= 0x8000000000000000ULL;
    return fk_bits_to_double((long long)bits);
}

/// x 2^base rounded to a Double, to nearest with ties to even, subnormals and underflow as
/// MPFR rounds them; x = nh 2^64 + nl (nh < 2^34), plus something in (0, 1) when `sticky`.
FK_DEVICE double roundedDouble(int negative, U64 nh, U64 nl, long long base, bool sticky) {
    const int t = nh ? 127 - leadingZeros64(nh) : nl ? 63 - leadingZeros64(nl) : -1;
    if (t < 0) return negative ? -0.0 : 0.0;
    long long q = t - 52;  // the Double's last bit, at x's bit q
    if (base + q < -1074) q = -1074 - base;
    U64 mant;
    bool round = false, lost = sticky;
    if (q <= 0) {
        mant = nl << -q;  // t <= 52: all of x, exactly
    } else {
        if (q >= 128)
            mant = 0;
        else if (q >= 64)
            mant = nh >> (q - 64);
        else
            mant = (nl >> q) | (nh << (64 - q));
        const long long r = q - 1;  // the round bit, and whether any bit below it is set
        if (r >= 128) {
            lost = lost || nh || nl;
        } else if (r >= 64) {
            round = (nh >> (r - 64)) & 1;
            lost = lost || nl || (r > 64 && (nh & ((1ULL << (r - 64)) - 1)));
        } else {
            round = (nl >> r) & 1;
            lost = lost || (r > 0 && (nl & ((1ULL << r) - 1)));
        }
    }
    if (round && (lost || (mant & 1))) mant += 1;
    if (mant == 0) return negative ? -0.0 : 0.0;
    long long k = base + q;
    if (mant >> 53) {
        mant >>= 1;
        k += 1;
    }
    if (k == -1074) {  // subnormal (or, at 2^52, the least normal): the bits are the significand
        U64 bits = mant;
        if (negative) bits |= 0x8000000000000000ULL;
        return fk_bits_to_double((long long)bits);
    }
    return makeDouble(negative, mant, k);
}

/// v's top 64 bits, and whether its Double rounds up: the 53 bits kept, then the round bit;
/// `j0`: the highest limb under the top two that is nonzero (-1: none).
FK_DEVICE bool roundsUp(const Context &c, const Num &v, int j0, U64 *top) {
    const int L = c.limbs;
    const U64 T = ((U64)v.m[L - 1] << 32) | v.m[L - 2];
    *top = T;
    const bool round = (T >> 10) & 1, sticky = (T & 0x3ff) || j0 >= 0;
    return round && (sticky || ((T >> 11) & 1));
}

/// The limb holding the leading bits of v - hi (v's bits under the 53 kept, against 0, or
/// against all ones where hi rounds up): L - 2 when they are in its 11 low bits, else the
/// highest limb under the top two that is not 0 (j0) or not all ones (j1); -1 for none.
FK_DEVICE int residualLimb(const Context &c, const Num &v, int j0, int j1) {
    U64 T;
    const bool up = roundsUp(c, v, j0, &T);
    if (((Limb)T & 0x7ff) != (up ? 0x7ffu : 0u)) return c.limbs - 2;
    return up ? j1 : j0;
}

/// What the host stores of one number: hi and lo (v as mpfr_get_d rounds it, and v - hi
/// rounded: mpfr_sub_d is exact there), and v as mpfr_get_d_2exp gives it (significand in
/// [1/2, 1) rounded to 53 bits, and its exponent; 0 and 0 for zero), which the host keeps for
/// magnitudes below 2^-1000.
struct Stored {
    double hi, lo, significand, exponent;
};

/// Stored from v's top two limbs, j0 (the highest nonzero limb under them, -1: none), s
/// (residualLimb) and `below`: whether a limb under s - 2 is nonzero. Every magnitude: under
/// 2^-1022 hi is subnormal or zero and v - hi, at most half its last place, rounds to a zero
/// of its sign.
FK_DEVICE Stored storedDoubles(const Context &c, const Num &v, int j0, int s, bool below) {
    Stored r;
    if (v.zero) {
        r.hi = v.negative ? -0.0 : 0.0;
        r.lo = 0.0;  // MPFR: (+-0) - (+-0) = +0
        r.significand = r.hi;
        r.exponent = 0;
        return r;
    }
    const int L = c.limbs;
    U64 T;
    const bool up = roundsUp(c, v, j0, &T);
    // The 53-bit significand, as mpfr_get_d_2exp rounds it.
    const U64 a = (T >> 11) + (up ? 1 : 0);
    if (a >> 53) {
        r.significand = v.negative ? -0.5 : 0.5;
        r.exponent = (double)(v.exponent + 1);
    } else {
        r.significand = makeDouble(v.negative, a, -53);
        r.exponent = (double)v.exponent;
    }
    if (v.exponent <= -1022) {
        // Under 2^-1022: hi has fewer than 53 bits (or none), v - hi is at most 2^-1075.
        const U64 nh = T >> 32, nl = T << 32;
        r.hi = roundedDouble(v.negative, nh, nl, v.exponent - 96, j0 >= 0);
        // The sign of v - hi: where hi moved away from zero, the opposite of v's.
        const double magnitude = absolute(r.hi);
        // |hi| against |v| = 0.T... 2^e: compare hi's bits with T's (hi is T rounded to fewer bits).
        const long long shift = -1074 - (v.exponent - 64);  // hi's last bit, as a bit of T
        bool exact, away;  // shift >= 12: e <= -1022
        if (magnitude == 0) {
            exact = false;
            away = false;
        } else {
            const U64 hiUnits = (U64)fk_double_to_bits(magnitude);  // subnormal: the units of 2^-1074
            const U64 kept = shift >= 64 ? 0 : T >> shift;
            // hi exceeds the kept bits (rounded up), or equals them with nothing dropped.
            away = hiUnits > kept;
            const bool dropped = (shift >= 64 ? T != 0 : (T & ((1ULL << shift) - 1)) != 0) || j0 >= 0;
            exact = !away && !dropped;
        }
        r.lo = exact ? 0.0 : ((away ? !v.negative : v.negative) ? -0.0 : 0.0);
        return r;
    }
    r.hi = makeDouble(v.negative, a, v.exponent - 53);
    const int negative = up ? !v.negative : v.negative;
    const long long unit = v.exponent - 32LL * L;  // the weight of limb 0's bit 0
    if (s < 0) {
        // Every bit under the 53 is 0 (lo = +0, exact) or 1 (v - hi is minus one unit).
        r.lo = up ? roundedDouble(negative, 0, 1, unit, false) : 0.0;
        return r;
    }
    // The window: limbs s (its low 11 bits if s = L - 2), s - 1, s - 2.
    const U64 mask = s == L - 2 ? 0x7ff : 0xffffffffULL;
    U64 nh = v.m[s] & mask;
    U64 nl = ((U64)(s >= 1 ? v.m[s - 1] : 0) << 32) | (s >= 2 ? v.m[s - 2] : 0);
    if (up) {
        // 2^k - R: the window's complement, plus one where nothing lies under it (the carry
        // may reach one bit above the window); else something in (0, 1) under it.
        nh = ~nh & mask;
        nl = ~nl;
        if (!below && ++nl == 0) nh += 1;
    }
    r.lo = roundedDouble(negative, nh, nl, unit + 32LL * (s - 2), below);
    return r;
}

/// The scans storedDoubles needs, as serial loops: j0, j1 (the highest limbs under the top two
/// that are not 0, not all ones), s and `below`.
FK_DEVICE Stored storedDoublesSerial(const Context &c, const Num &v) {
    if (v.zero) return storedDoubles(c, v, -1, -1, false);
    int j0 = -1, j1 = -1;
    for (int i = 0; i < c.limbs - 2; i++) {
        if (v.m[i]) j0 = i;
        if (v.m[i] != 0xffffffffu) j1 = i;
    }
    const int s = residualLimb(c, v, j0, j1);
    bool below = false;
    for (int i = 0; i < s - 2 && !below; i++) below = v.m[i] != 0;
    return storedDoubles(c, v, j0, s, below);
}

/// The orbit's per-step output: kStepWords Doubles a step.
constexpr int kStepWords = FK_ORBIT_STEP_WORDS;
enum { kNoTest = 0, kGap = 1, kEscaped = 2 };

/// A number's Stored into its step's words (FK_ORBIT_STEP_WORDS): lane 0 is x, lane 1 is y.
FK_DEVICE void writeStored(double *v, int lane, const Stored &s) {
    v[lane] = s.hi;
    v[2 + lane] = s.lo;
    v[4 + 2 * lane] = s.significand;
    v[5 + 2 * lane] = s.exponent;
}

/// The escape test's gap into its step's words.
FK_DEVICE void writeGap(double *v, const Stored &gap) {
    v[8] = gap.significand;
    v[9] = gap.exponent;
    v[10] = kGap;
}
/// No escape test at this step (its words 8 to 11 zero).
FK_DEVICE void writeNoTest(double *v) {
    v[8] = v[9] = v[11] = 0;
    v[10] = kNoTest;
}
/// Where Z is within 2^-36 of |Z|^2 = 4 (or beyond): the host's escape test in MPFR,
/// r2 = x^2 + y^2 (each square and the sum rounded), escaped when r2 > 4, else the gap 4 - r2
/// (rounded) kept as mpfr_get_d_2exp gives it.
constexpr double kNearEscape = 4.0 * (1.0 - 0x1p-36);

/// Whether the step stored as (a, b) is near |Z| = 2: a^2 + b^2 rounded as the host rounds it
/// (two products and a sum, no fused multiply-add, whatever the device compiler's --fmad says).
FK_DEVICE bool nearEscape(double a, double b) {
#ifdef __CUDACC__
    return __dadd_rn(__dmul_rn(a, a), __dmul_rn(b, b)) >= kNearEscape;
#else
    return a * a + b * b >= kNearEscape;
#endif
}

/// 4 at the context's precision.
FK_DEVICE void setFour(const Context &c, Num &r) {
    for (int i = 0; i < c.limbs; i++) r.m[i] = 0;
    r.m[c.limbs - 1] = 0x80000000u;
    r.negative = 0;
    r.zero = 0;
    r.exponent = 3;
}

/// Whether r2 (positive) exceeds 4 = 0.1 2^3.
FK_DEVICE bool aboveFour(const Context &c, const Num &r2) {
    if (r2.zero || r2.exponent < 3) return false;
    if (r2.exponent > 3) return true;
    if (r2.m[c.limbs - 1] != 0x80000000u) return true;
    for (int i = 0; i < c.limbs - 1; i++)
        if (r2.m[i]) return true;
    return false;
}

/// The state of one orbit: z = (x, y), c, three scratch numbers, and the step's context.
struct Orbit {
    Context c;
    Num x, y, cx, cy, t1, t2, t3;
};

/// One step, z <- z^2 + c, in MPFRStep.zPowerPlusC's order.
FK_DEVICE void step(Orbit &o) {
    const Context &c = o.c;
    add(c, o.t1, o.x, o.y, false);
    add(c, o.t2, o.x, o.y, true);
    multiply(c, o.t3, o.x, o.y);
    multiply(c, o.x, o.t1, o.t2);
    copy(c, o.y, o.t3);
    if (!o.y.zero) o.y.exponent += 1;
    add(c, o.x, o.x, o.cx, false);
    add(c, o.y, o.y, o.cy, false);
}

/// Up to `count` steps, each step's kStepWords Doubles into out: x hi, y hi, x lo, y lo, x's
/// and y's significand and exponent (Stored), then the escape test where Z is near |Z| = 2:
/// kNoTest, kGap (the gap's significand and exponent before it) or kEscaped. Stops after an
/// escape. Returns the steps taken; `*flagged` is 0 (no step needs the host any more).
FK_DEVICE long long run(Orbit &o, long long count, double *out, int *flagged) {
    *flagged = 0;
    for (long long k = 0; k < count; k++) {
        step(o);
        double *v = out + kStepWords * k;
        writeStored(v, 0, storedDoublesSerial(o.c, o.x));
        writeStored(v, 1, storedDoublesSerial(o.c, o.y));
        writeNoTest(v);
        if (nearEscape(v[0], v[1])) {
            multiply(o.c, o.t1, o.x, o.x);
            multiply(o.c, o.t2, o.y, o.y);
            add(o.c, o.t3, o.t1, o.t2, false);
            if (aboveFour(o.c, o.t3)) {
                v[10] = kEscaped;
                return k + 1;
            }
            setFour(o.c, o.t1);
            add(o.c, o.t2, o.t1, o.t3, true);
            writeGap(v, storedDoublesSerial(o.c, o.t2));
        }
    }
    return count;
}

}  // namespace orbit
}  // namespace fathom

// MARK: - The device form: one cooperative kernel over many steps

#ifdef __CUDACC__
// fathom_orbit_steps runs `count` steps of one orbit with every block of the grid (one block
// per multiprocessor, launched cooperatively so all are resident), the phases of a step apart
// by a grid barrier:
//   A  block 0: t1 = x + y; block 1: t2 = x - y
//   B  all: the 16-bit digits of x, y, t1, t2 into four transforms; the transform's stages
//      longer than a tile (each over the grid); per tile of kTile words, in shared memory, the
//      shorter stages, the pointwise products x y and t1 t2, and the inverse's short stages
//   C  all: the inverse's long stages (the last one divides by N); the products' 16-bit
//      digits, then their rare carries
//   D  block 0: t3 = x y, y = 2 t3 + cy, y's Doubles; block 1: x = t1 t2 + cx, x's Doubles
// A block's part (A, D) is the serial code's add, multiply and rounding with each loop split
// over the block's threads: maps, reductions and carry scans. Every rounding decision is the
// serial code's, so the orbit is the emulation's, which is MPFR's.

namespace fathom {
namespace orbit {
namespace gpu {

constexpr int kTileLog = 11;
constexpr int kTile = 1 << kTileLog;  // transform words per tile in shared memory (two tiles: 32 KB)

struct Shared {
    U64 tileA[kTile];
    U64 tileB[kTile];
    int ints[40];
    unsigned gs[33], ps[33];
    FKOrbitHead product;  // D's rounded product, where it stays in shared memory
};

struct Ref {
    FKOrbitHead *head;
    Limb *m;
};

/// Nanoseconds on the device's clock.
__device__ __forceinline__ U64 now() {
    U64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// Block 0's thread 0 times parts of its phases into these sums (FK_ORBIT_DETAIL): blockAdd's
/// alignment, carries, normalisation and rounding (every call), then D's product, add and
/// stored Doubles, and A's add.
__device__ U64 detailSums[8];
struct DetailClock {
    U64 mark;
    bool on;
    __device__ DetailClock() : mark(0), on(blockIdx.x == 0 && threadIdx.x == 0) {
        if (on) mark = now();
    }
    __device__ void lap(int k) {
        if (!on) return;
        const U64 t = now();
        detailSums[k] += t - mark;
        mark = t;
    }
};

__device__ __noinline__ int blockMax(int v, Shared &sh) {
    for (int o = 16; o > 0; o >>= 1) {
        int t = __shfl_down_sync(0xffffffffu, v, o);
        v = t > v ? t : v;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    __syncthreads();
    if (lane == 0) sh.ints[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? sh.ints[lane] : (-2147483647 - 1);
        for (int o = 16; o > 0; o >>= 1) {
            int t = __shfl_down_sync(0xffffffffu, v, o);
            v = t > v ? t : v;
        }
        if (lane == 0) sh.ints[32] = v;
    }
    __syncthreads();
    return sh.ints[32];
}

__device__ int blockMin(int v, Shared &sh) { return -blockMax(-v, sh); }
__device__ bool blockAny(bool v, Shared &sh) { return blockMax(v ? 1 : 0, sh) != 0; }

/// The highest i < n with pred(i), or -1: the block tests blockDim.x indices at a time from
/// the top and stops at the first round that finds one. The scans of this kernel (the top
/// limb where two numbers differ, the highest nonzero limb, any nonzero limb under one) almost
/// always end in the first round: a load a thread instead of a pass over every limb.
template <class Pred>
__device__ __forceinline__ int blockHighest(long long n, Pred pred, Shared &sh) {
    for (long long top = n; top > 0; top -= blockDim.x) {
        const long long i = top - 1 - threadIdx.x;
        const int best = blockMax(i >= 0 && pred(i) ? (int)i : -1, sh);
        if (best >= 0) return best;
    }
    return -1;
}

/// The carry into this thread's chunk, from each chunk's (generates, propagates) below it
/// (none into chunk 0); *out: the carry out of the last chunk. An empty chunk propagates.
__device__ __noinline__ bool blockCarry(bool generates, bool propagates, Shared &sh, bool *out) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    unsigned g = generates ? 1 : 0, p = propagates ? 1 : 0;
    for (int o = 1; o < 32; o <<= 1) {  // inclusive scan within the warp
        unsigned g0 = __shfl_up_sync(0xffffffffu, g, o), p0 = __shfl_up_sync(0xffffffffu, p, o);
        if (lane >= o) {
            g = g | (p & g0);
            p = p & p0;
        }
    }
    unsigned ge = __shfl_up_sync(0xffffffffu, g, 1), pe = __shfl_up_sync(0xffffffffu, p, 1);
    if (lane == 0) {
        ge = 0;
        pe = 1;
    }
    __syncthreads();
    if (lane == 31) {
        sh.gs[warp] = g;
        sh.ps[warp] = p;
    }
    __syncthreads();
    if (warp == 0) {  // the carry into each warp
        unsigned wg = lane < warps ? sh.gs[lane] : 0, wp = lane < warps ? sh.ps[lane] : 1;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned g0 = __shfl_up_sync(0xffffffffu, wg, o), p0 = __shfl_up_sync(0xffffffffu, wp, o);
            if (lane >= o) {
                wg = wg | (wp & g0);
                wp = wp & p0;
            }
        }
        unsigned into = __shfl_up_sync(0xffffffffu, wg, 1);
        if (lane == 0) into = 0;
        sh.ps[lane] = into;  // ps reused: the carry into warp `lane`
        if (lane == 31) sh.gs[32] = wg;
    }
    __syncthreads();
    const unsigned into = sh.ps[warp];
    *out = sh.gs[32] != 0;
    const bool carry = (ge | (pe & into)) != 0;
    __syncthreads();
    return carry;
}

/// A carry chain along n entries: the block's warps each take a contiguous segment, 32
/// entries a row (one a lane: the loads are one line). flags(i): bit 0, entry i carries out
/// without a carry in (generates); bit 1, it carries out only with one (propagates). A row's
/// carries come from one 64-bit addition of its ballots ((G | P) + G + carry in: a position
/// carries out exactly where the chain would). apply(i, carry) is called once for each entry
/// with its carry in. Returns the carry out of the last entry.
// FK_EACH_UNROLL (an NVRTC -D option, through FATHOM_NVRTC_OPTIONS) unrolls the carry rows'
// walks and FK_EACH's loops for kernel experiments; 1 (none) by default.
#ifndef FK_EACH_UNROLL
#define FK_EACH_UNROLL 1
#endif
constexpr int kEachUnroll = FK_EACH_UNROLL;

template <class Flags, class Apply>
__device__ bool blockCarryRows(long long n, Flags flags, Apply apply, Shared &sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const long long rows = (n + 31) / 32, rowsPer = (rows + warps - 1) / warps;
    long long begin = warp * rowsPer * 32, end = begin + rowsPer * 32;
    if (begin > n) begin = n;
    if (end > n) end = n;
    unsigned long long c0 = 0, c1 = 1;  // the segment's carry out without and with a carry in
#pragma unroll kEachUnroll
    for (long long base = begin; base < end; base += 32) {
        const long long i = base + lane;
        const int f = i < end ? flags(i) : 2;
        const unsigned long long g = __ballot_sync(0xffffffffu, f & 1), pr = __ballot_sync(0xffffffffu, f & 2);
        c0 = ((g | pr) + g + c0) >> 32;
        c1 = ((g | pr) + g + c1) >> 32;
    }
    bool out;
    const bool into = blockCarry(lane == 0 && c0 != 0, lane != 0 || c1 != 0, sh, &out);
    unsigned long long c = __shfl_sync(0xffffffffu, into ? 1u : 0u, 0);
#pragma unroll kEachUnroll
    for (long long base = begin; base < end; base += 32) {
        const long long i = base + lane;
        const int f = i < end ? flags(i) : 2;
        const unsigned long long g = __ballot_sync(0xffffffffu, f & 1), pr = __ballot_sync(0xffffffffu, f & 2);
        const unsigned long long a = g | pr, sum = a + g + c;
        if (i < end) apply(i, (unsigned)(((sum ^ a ^ g) >> lane) & 1));
        c = sum >> 32;
    }
    __syncthreads();
    return out;
}

// Maps and reductions walk the limbs cyclically (thread t takes t, t + T, ...: a warp's loads
// are one line); only the carry scans take contiguous chunks.
#define FK_EACH(i, n) _Pragma("unroll kEachUnroll") for (long long i = threadIdx.x; i < (n); i += blockDim.x)

/// FK_EACH for a pass that reads global memory: each thread issues the loads of kBatch of its
/// indices (load(i), nothing stored between them) before it uses any (use(i, value)), so
/// their latencies overlap instead of adding up.
constexpr int kBatch = 4;
template <class Load, class Use>
__device__ __forceinline__ void eachLoaded(long long n, Load load, Use use) {
    for (long long base = threadIdx.x; base < n; base += kBatch * (long long)blockDim.x) {
        decltype(load(0LL)) v[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
            const long long i = base + (long long)u * blockDim.x;
            if (i < n) v[u] = load(i);
        }
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
            const long long i = base + (long long)u * blockDim.x;
            if (i < n) use(i, v[u]);
        }
    }
}

__device__ __noinline__ void copyNum(const Context &c, Ref r, Ref a) {
    if (r.m != a.m && !a.head->zero) FK_EACH(i, c.limbs) r.m[i] = a.m[i];
}

/// m (n limbs) plus 2^lowBits (`up`) or minus 1 (lowBits 0), over the block: the carry or
/// borrow wraps the limbs under the lowest one that absorbs it (all ones going up, 0 going
/// down; limb 0 from bit lowBits). Returns whether it ran out of the top limb.
__device__ __noinline__ bool blockRipple(Limb *m, long long n, int lowBits, bool up, Shared &sh) {
    int first = (int)n;
    FK_EACH(i, n) {
        const int shift = i == 0 ? lowBits : 0;
        if (up ? (m[i] >> shift) != (0xffffffffu >> shift) : m[i] != 0) {
            first = (int)i;
            break;
        }
    }
    first = blockMin(first, sh);
    FK_EACH(i, n) {
        if (i > first) break;
        if (i < first)
            m[i] = up ? 0 : 0xffffffffu;
        else if (up)
            m[i] += (Limb)(1u << (i == 0 ? lowBits : 0));
        else
            m[i] -= 1;
    }
    return first == n;
}

/// roundTo over the block: w (W limbs, top bit set) rounded into r, sticky from below w.
__device__ __noinline__ void blockRound(const Context &c, Ref r, const Limb *w, int W, long long exponent, bool sticky,
                                        int negative, Shared &sh) {
    const int L = c.limbs;
    const long long drop = 32LL * W - c.precision;
    const long long rb = drop - 1;
    const bool round = (w[rb >> 5] >> (rb & 31)) & 1;
    const long long k = rb >> 5;
    bool below = (w[k] & (Limb)((1ULL << (rb & 31)) - 1)) != 0;
    FK_EACH(i, k) below = below || w[i] != 0;
    sticky = blockAny(below, sh) || sticky;
    const int lowBits = (int)(32LL * L - c.precision);
    const int offset = W - L;
    FK_EACH(i, L) r.m[i] = i == 0 ? w[offset] & ~(Limb)((1ULL << lowBits) - 1) : w[offset + i];
    __syncthreads();
    const bool odd = (r.m[0] >> lowBits) & 1;
    long long exponentOut = exponent;
    if (round && (sticky || odd) && blockRipple(r.m, L, lowBits, true, sh)) {
        // All ones rounded up: the limbs wrapped to zero (the top one on the thread that wrapped it).
        if (threadIdx.x == (L - 1) % blockDim.x) r.m[L - 1] = 0x80000000u;
        exponentOut += 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        r.head->negative = negative;
        r.head->zero = 0;
        r.head->exponent = exponentOut;
    }
    __syncthreads();
}

/// add over the block; w, s, t: scratch of at least L + 2 limbs.
__device__ __noinline__ void blockAdd(const Context &c, Ref r, Ref a, Ref bb, bool subtract, Limb *w, Limb *s, Limb *t,
                                      Shared &sh) {
    DetailClock clock;
    const FKOrbitHead ha = *a.head, hb = *bb.head;
    const int bNegative = hb.negative ^ (subtract ? 1 : 0);
    const int L = c.limbs, W = L + 2;
    __syncthreads();
    if (ha.zero && hb.zero) {
        if (threadIdx.x == 0) {
            r.head->zero = 1;
            r.head->negative = ha.negative & bNegative;
        }
        __syncthreads();
        return;
    }
    if (hb.zero || ha.zero) {
        copyNum(c, r, hb.zero ? a : bb);
        __syncthreads();
        if (threadIdx.x == 0) {
            *r.head = hb.zero ? ha : hb;
            if (!hb.zero) r.head->negative = bNegative;
        }
        __syncthreads();
        return;
    }
    int order;
    if (ha.exponent != hb.exponent) {
        order = ha.exponent > hb.exponent ? 1 : -1;
    } else {
        const Limb *am = a.m, *bm = bb.m;
        const int top = blockHighest(L, [&](long long i) { return am[i] != bm[i]; }, sh);
        order = top < 0 ? 0 : a.m[top] > bb.m[top] ? 1 : -1;
    }
    const bool same = ha.negative == bNegative;
    if (!same && order == 0) {
        __syncthreads();
        if (threadIdx.x == 0) {
            r.head->zero = 1;
            r.head->negative = 0;
        }
        __syncthreads();
        return;
    }
    const Limb *big = order >= 0 ? a.m : bb.m, *small = order >= 0 ? bb.m : a.m;
    const int negative = order >= 0 ? ha.negative : bNegative;
    const long long bigExponent = order >= 0 ? ha.exponent : hb.exponent;
    const long long d = bigExponent - (order >= 0 ? hb.exponent : ha.exponent);
    bool sticky = false;
    if (d >= 32LL * W) {
        FK_EACH(i, W) {
            w[i] = i < 2 ? 0 : big[i - 2];
            s[i] = 0;
        }
        sticky = true;
    } else {
        const int q = (int)(d >> 5), rr = (int)(d & 31);
        bool lost = false;
        struct Aligned {
            Limb big, lo, hi;
        };
        eachLoaded(
            W,
            [&](long long i) {
                const long long j = i + q;
                Aligned v;
                v.big = i < 2 ? 0 : big[i - 2];
                v.lo = j < W && j >= 2 ? small[j - 2] : 0;
                v.hi = j + 1 < W && j + 1 >= 2 ? small[j + 1 - 2] : 0;
                return v;
            },
            [&](long long i, const Aligned &v) {
                w[i] = v.big;
                s[i] = rr ? (v.lo >> rr) | (v.hi << (32 - rr)) : v.lo;
            });
        // The bits shifted out: small's limbs wholly below the cut (s[i] takes small[i + q - 2]),
        // and the cut limb's low bits.
        // (The same on every thread: no reduction.)
        if (q >= 2) {
            lost = q - 2 < L && rr && (small[q - 2] & (Limb)((1ULL << rr) - 1));
            if (!lost) lost = blockHighest(q - 2 < L ? q - 2 : L, [&](long long i) { return small[i] != 0; }, sh) >= 0;
        }
        sticky = lost;
    }
    __syncthreads();
    clock.lap(0);
    const Limb *source = w;
    long long exponent = bigExponent;
    if (same) {
        const bool out = blockCarryRows(
            W,
            [&](long long i) {
                const U64 v = (U64)w[i] + s[i];
                return (int)(v >> 32) | ((Limb)v == 0xffffffffu ? 2 : 0);
            },
            [&](long long i, unsigned carry) { w[i] = w[i] + s[i] + carry; }, sh);
        clock.lap(1);
        if (out) {
            sticky = sticky || (w[0] & 1);
            FK_EACH(i, W) t[i] = (w[i] >> 1) | (i + 1 < W ? w[i + 1] << 31 : 0x80000000u);
            source = t;
            exponent += 1;
            __syncthreads();
        }
    } else {
        blockCarryRows(
            W, [&](long long i) { return (w[i] < s[i] ? 1 : 0) | (w[i] == s[i] ? 2 : 0); },
            [&](long long i, unsigned borrow) { w[i] = w[i] - s[i] - borrow; }, sh);
        clock.lap(1);
        if (sticky) {
            blockRipple(w, W, 0, false, sh);
            __syncthreads();
        }
        const int top = blockHighest(W, [&](long long i) { return w[i] != 0; }, sh);
        const int z = (W - 1 - top) * 32 + leadingZeros32(w[top]);
        if (z > 0) {
            const int q = z >> 5, rr = z & 31;
            FK_EACH(i, W) {
                const long long j = i - q;
                const Limb hi = j >= 0 ? w[j] : 0;
                const Limb lo = j - 1 >= 0 ? w[j - 1] : 0;
                t[i] = rr ? (hi << rr) | (lo >> (32 - rr)) : hi;
            }
            source = t;
            exponent -= z;
            __syncthreads();
        }
    }
    clock.lap(2);
    blockRound(c, r, source, W, exponent, sticky, negative, sh);
    clock.lap(3);
}

/// The product whose 4L 16-bit digits are d (carried by phase C), rounded into r; top:
/// scratch of L + 2 limbs. The factors' heads give the sign and zero. Only the top L + 2
/// limbs of the product (shifted one bit up where it lies in [1/4, 1/2)) are formed; the
/// limbs under them count as a sticky bit, which is all roundTo reads of them.
__device__ __noinline__ void blockProduct(const Context &c, Ref r, FKOrbitHead ha, FKOrbitHead hb, const Limb *d, Limb *top,
                                          Shared &sh) {
    const int negative = ha.negative ^ hb.negative;
    const int L = c.limbs;
    __syncthreads();
    if (ha.zero || hb.zero) {
        if (threadIdx.x == 0) {
            r.head->zero = 1;
            r.head->negative = negative;
        }
        __syncthreads();
        return;
    }
    // 0.m1 0.m2 lies in [1/4, 1): at most one leading zero.
    const bool shift = !(d[4LL * L - 1] >> 15);
    auto limb = [&](long long i) -> Limb { return i < 0 ? 0 : d[2 * i] | (d[2 * i + 1] << 16); };
    auto shifted = [&](long long i) -> Limb { return shift ? (limb(i) << 1) | (limb(i - 1) >> 31) : limb(i); };
    eachLoaded(L + 2, [&](long long i) { return shifted(L - 2 + i); }, [&](long long i, Limb v) { top[i] = v; });
    const bool sticky = blockHighest(L - 2, [&](long long i) { return shifted(i) != 0; }, sh) >= 0;
    blockRound(c, r, top, L + 2, ha.exponent + hb.exponent - (shift ? 1 : 0), sticky, negative, sh);
}

/// Digit j of a product from its exact convolution f (divided by N) by three exact rewritings
/// of sum f_k 2^16k with smaller terms: each f_k (< 2^64) as four 16-bit pieces added where
/// they fall (s, < 2^18), then twice each term's part above 16 bits moved up (t < 2^16 + 4,
/// then u <= 2^16). Returns u_j; its digit is u_j mod 2^16 plus the carries of gridCarries.
__device__ __forceinline__ Limb productTerm(const U64 *f, long long j) {
    U64 sv[3];
    for (int r = 0; r < 3; r++) {
        const long long jj = j - r;
        U64 sum = 0;
        for (int q = 0; q < 4; q++)
            if (jj - q >= 0) sum += (f[jj - q] >> (16 * q)) & 0xffff;
        sv[r] = jj >= 0 ? sum : 0;
    }
    const U64 t = (sv[0] & 0xffff) + (sv[1] >> 16);
    const U64 tBelow = j >= 1 ? (sv[1] & 0xffff) + (sv[2] >> 16) : 0;
    return (Limb)((t & 0xffff) + (tBelow >> 16));
}

/// storedDoubles of r, its scans (storedDoublesSerial's loops) as block reductions; the
/// result is thread 0's.
__device__ __noinline__ Stored blockStored(const Context &c, Ref r, Shared &sh) {
    Num v;
    v.negative = r.head->negative;
    v.zero = r.head->zero;
    v.exponent = r.head->exponent;
    v.m = r.m;
    int j0 = -1, j1 = -1, s = -1;
    bool below = false;
    if (!v.zero) {
        const Limb *m = v.m;
        j0 = blockHighest(c.limbs - 2, [&](long long i) { return m[i] != 0; }, sh);
        j1 = blockHighest(c.limbs - 2, [&](long long i) { return m[i] != 0xffffffffu; }, sh);
        s = residualLimb(c, v, j0, j1);
        below = blockHighest(s - 2, [&](long long i) { return m[i] != 0; }, sh) >= 0;
    }
    Stored stored = {0, 0, 0, 0};
    if (threadIdx.x == 0) stored = storedDoubles(c, v, j0, s, below);
    __syncthreads();
    return stored;
}

/// Whether the host must take a step with r in it, where the device does not settle tiny
/// values (a magnitude under 2^-800: the host's tiny entries).
__device__ __forceinline__ bool forHost(Ref r) { return !r.head->zero && r.head->exponent < -800; }

/// aboveFour over the block.
__device__ __noinline__ bool blockAboveFour(const Context &c, Ref r, Shared &sh) {
    const FKOrbitHead h = *r.head;
    __syncthreads();
    if (h.zero || h.exponent < 3) return false;
    if (h.exponent > 3) return true;
    const Limb *m = r.m;
    const int L = c.limbs;
    return blockHighest(L, [&](long long i) { return m[i] != (i == L - 1 ? 0x80000000u : 0u); }, sh) >= 0;
}

/// setFour over the block.
__device__ __noinline__ void blockFour(const Context &c, Ref r) {
    FK_EACH(i, c.limbs) r.m[i] = i == c.limbs - 1 ? 0x80000000u : 0u;
    __syncthreads();
    if (threadIdx.x == 0) {
        r.head->negative = 0;
        r.head->zero = 0;
        r.head->exponent = 3;
    }
    __syncthreads();
}

/// Every block waits here until all have arrived (the grid is resident: a cooperative launch).
/// One atomic add a block on FK_ORBIT_ARRIVED: block 0 adds 2^31 - (blocks - 1), the others 1,
/// so the word's top bit flips once every block has arrived, and each waits for the flip (the
/// scheme of CUDA's cooperative groups; the word needs no reset, so one round trip less than
/// a counter that the last block clears).
__device__ __noinline__ void gridBarrier(unsigned *control) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *arrived = control + FK_ORBIT_ARRIVED;
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        __threadfence();
        const unsigned before = atomicAdd(control + FK_ORBIT_ARRIVED, add);
        while (((before ^ *arrived) & 0x80000000u) == 0) {
        }
        __threadfence();
    }
    __syncthreads();
}

}  // namespace gpu
}  // namespace orbit
}  // namespace fathom

extern "C" __global__ void __launch_bounds__(512, 1) fathom_orbit_steps(FKOrbitParams p) {
    using namespace fathom::orbit;
    using namespace fathom::orbit::gpu;
    __shared__ Shared sh;
    const int L = p.limbCount;
    const int logN = p.nttLog;
    const long long n = 1LL << logN, half = n / 2;
    Context c;
    c.precision = p.precision;
    c.limbs = L;
    c.nttLog = logN;
    c.inverseN = p.inverseN;
    c.twiddles = (const U64 *)p.twiddles;
    c.inverseTwiddles = (const U64 *)p.twiddles + half;
    Limb *limbs = (Limb *)p.limbs;
    FKOrbitHead *heads = (FKOrbitHead *)p.heads;
    Ref x = {heads + 0, limbs}, y = {heads + 1, limbs + L}, cx = {heads + 2, limbs + 2 * L},
        cy = {heads + 3, limbs + 3 * L}, t1 = {heads + 4, limbs + 4 * L}, t2 = {heads + 5, limbs + 5 * L},
        t3 = {heads + 6, limbs + 6 * L};
    U64 *f = (U64 *)p.transforms;  // x, y, t1, t2: each n words
    unsigned *control = (unsigned *)p.control;
    double *out = (double *)p.out;
    const long long scratchSize = 4LL * L + 8;
    Limb *scratch = (Limb *)p.scratch + (blockIdx.x < 2 ? blockIdx.x : 0) * 3 * scratchSize;
    Limb *s0 = scratch, *s1 = scratch + scratchSize, *s2 = scratch + 2 * scratchSize;
    // Blocks 0 and 1 add and round in shared memory where the launch gave them three buffers
    // of L + 2 limbs there (the host asks for them where the device holds them; a fourth, where
    // it fits, holds c's part): their passes then wait on shared memory instead of global.
    // Else in s0, s1, s2; the same operations.
    extern __shared__ Limb dynamicLimbs[];
    unsigned dynamicBytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamicBytes));
    const long long padded = (L + 2 + 31) & ~31LL;
    const bool inShared = dynamicBytes >= 12ULL * padded;
    Limb *w0 = inShared ? dynamicLimbs : s0, *w1 = inShared ? dynamicLimbs + padded : s1,
         *w2 = inShared ? dynamicLimbs + 2 * padded : s2;
    // Where a fourth buffer fits, block 0 keeps cy and block 1 cx there for D's adds.
    Ref addend = blockIdx.x == 0 ? cy : cx;
    if (dynamicBytes >= 16ULL * padded && blockIdx.x < 2) {
        Limb *kept = dynamicLimbs + 3 * padded;
        const Limb *m = addend.m;
        FK_EACH(i, L) kept[i] = m[i];
        __syncthreads();
        addend.m = kept;
    }
    const long long threads = (long long)gridDim.x * blockDim.x;
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Tiles small enough that the two products' tiles spread over the grid (2^spread tiles an
    // array, 2^(spread + 1) <= the blocks), at least 2^9 words (a butterfly a thread a stage)
    // and at most kTile: at 380,000 bits 128 tiles of 1,024 words on 132 blocks, against 64 of
    // 2,048 (half the blocks idle), for one more long stage in the same number of passes.
    int spread = 0;
    while ((4LL << spread) <= gridDim.x) spread++;
    int logTile = logN - spread < 9 ? 9 : logN - spread;
    if (logTile > kTileLog) logTile = kTileLog;
    if (logTile > logN) logTile = logN;
    const long long tile = 1LL << logTile;
    const int tilesLog = logN - logTile;  // tiles per array: 2^tilesLog
    // Block 0's thread 0 times the phases (FK_ORBIT_PROFILE): A, B's digits and long stages,
    // the tiles, C, D.
    U64 spent[5] = {0, 0, 0, 0, 0};
    U64 mark = now();
    const bool timer = id == 0;
#define FK_LAP(phase)                     \
    if (timer) {                          \
        const U64 t = now();              \
        spent[phase] += t - mark;         \
        mark = t;                         \
    }

    // B and C: the digits of products a0 a1 and a2 a3 into blocks 0's and 1's first scratch.
    auto products = [&](Ref a0, Ref a1, Ref a2, Ref a3) {
            // B: the digits (a zero's limbs are not read), then the long forward stages.
            {
                const FKOrbitHead *h[4] = {a0.head, a1.head, a2.head, a3.head};
                const Limb *m[4] = {a0.m, a1.m, a2.m, a3.m};
                for (long long i = id; i < 4 * n; i += threads) {
                    const int a = (int)(i >> logN);
                    const long long j = i & (n - 1);
                    f[i] = j < 2LL * L && !h[a]->zero ? digit16(m[a], j) : 0;
                }
            }
            gridBarrier(control);
            // Two stages a pass (forwardPair), the last one alone where their count is odd.
            int forwardLog = logN - 1;
            for (; forwardLog - 1 >= logTile; forwardLog -= 2) {
                for (long long i = id; i < n; i += threads)  // 4 arrays of n / 4 groups
                    forwardPair(c.twiddles, f + ((i >> (logN - 2)) << logN), logN, forwardLog, i & (n / 4 - 1));
                gridBarrier(control);
            }
            if (forwardLog == logTile) {
                const long long len = 1LL << forwardLog;
                const int strideLog = logN - 1 - forwardLog;
                for (long long i = id; i < 2 * n; i += threads) {  // 4 arrays of n / 2 butterflies
                    const long long a = i >> (logN - 1), bfly = i & (half - 1);
                    const long long j = bfly & (len - 1), s = (bfly >> forwardLog) << (forwardLog + 1);
                    forwardButterfly(f + (a << logN), s + j, len, c.twiddles[j << strideLog]);
                }
                gridBarrier(control);
            }
            FK_LAP(1)
            // B, tiles: the short stages, the products, the inverse's short stages.
            for (long long t = blockIdx.x; t < (2LL << tilesLog); t += gridDim.x) {
                const long long product = t >> tilesLog;
                const long long base = (t & ((1LL << tilesLog) - 1)) << logTile;
                U64 *ga = f + ((2 * product) << logN) + base, *gb = f + ((2 * product + 1) << logN) + base;
                for (long long i = threadIdx.x; i < tile; i += blockDim.x) {
                    sh.tileA[i] = ga[i];
                    sh.tileB[i] = gb[i];
                }
                __syncthreads();
                for (int lenLog = logTile - 1; lenLog >= 0; lenLog--) {
                    const long long len = 1LL << lenLog;
                    const int strideLog = logN - 1 - lenLog;
                    for (long long i = threadIdx.x; i < tile; i += blockDim.x) {  // both tiles' tile / 2
                        U64 *g = i < tile / 2 ? sh.tileA : sh.tileB;
                        const long long bfly = i & (tile / 2 - 1);
                        const long long j = bfly & (len - 1), s = (bfly >> lenLog) << (lenLog + 1);
                        forwardButterfly(g, s + j, len, c.twiddles[j << strideLog]);
                    }
                    __syncthreads();
                }
                for (long long i = threadIdx.x; i < tile; i += blockDim.x) sh.tileA[i] = mulMod(sh.tileA[i], sh.tileB[i]);
                __syncthreads();
                for (int lenLog = 0; lenLog < logTile; lenLog++) {
                    const long long len = 1LL << lenLog;
                    const int strideLog = logN - 1 - lenLog;
                    for (long long i = threadIdx.x; i < tile / 2; i += blockDim.x) {
                        const long long j = i & (len - 1), s = (i >> lenLog) << (lenLog + 1);
                        inverseButterfly(sh.tileA, s + j, len, c.inverseTwiddles[j << strideLog]);
                    }
                    __syncthreads();
                }
                const bool last = tile == n;  // no long stages: divide by N here
                for (long long i = threadIdx.x; i < tile; i += blockDim.x)
                    ga[i] = last ? mulMod(sh.tileA[i], c.inverseN) : sh.tileA[i];
                __syncthreads();
            }
            gridBarrier(control);
            FK_LAP(2)
            // C: the inverse's long stages on the two products (arrays 0 and 2): the first alone
            // where their count is odd, then two a pass (inversePair).
            int inverseLog = logTile;
            if ((logN - logTile) & 1) {
                const int lenLog = inverseLog;
                const long long len = 1LL << lenLog;
                const int strideLog = logN - 1 - lenLog;
                const bool last = lenLog == logN - 1;
                for (long long i = id; i < n; i += threads) {  // 2 arrays of n / 2 butterflies
                    const long long a = i >> (logN - 1), bfly = i & (half - 1);
                    const long long j = bfly & (len - 1), s = (bfly >> lenLog) << (lenLog + 1);
                    U64 *g = f + ((2 * a) << logN);
                    inverseButterfly(g, s + j, len, c.inverseTwiddles[j << strideLog]);
                    if (last) {
                        g[s + j] = mulMod(g[s + j], c.inverseN);
                        g[s + j + len] = mulMod(g[s + j + len], c.inverseN);
                    }
                }
                gridBarrier(control);
                inverseLog += 1;
            }
            for (; inverseLog < logN; inverseLog += 2) {
                for (long long i = id; i < n / 2; i += threads)  // 2 arrays of n / 4 groups
                    inversePair(c.inverseTwiddles, f + ((2 * (i >> (logN - 2))) << logN), logN, inverseLog + 1,
                                i & (n / 4 - 1), inverseLog + 1 == logN - 1, c.inverseN);
                gridBarrier(control);
            }
            // C: the products' digits over the grid, then their carries. A term u = 2^16 carries one
            // into the next digit and on through digits of 0xffff; such terms are rare, so each is
            // followed by the thread that finds it (the chains are disjoint; where one ends on
            // another term of 2^16, that digit is 0 and takes the one by an atomic add). The
            // thread reads the terms 32 at a time, their loads in flight together.
            {
                const long long D = 4LL * L;
                Limb *base = (Limb *)p.scratch;
                for (long long i = id; i < 2 * D; i += threads) {
                    const long long product = i >= D ? 1 : 0, j = i - product * D;
                    Limb *digits = base + product * 3 * scratchSize, *terms = digits + scratchSize;
                    const Limb term = productTerm(f + ((2 * product) << logN), j);
                    terms[j] = term;
                    digits[j] = term & 0xffff;
                }
                gridBarrier(control);
                for (long long i = id; i < 2 * D; i += threads) {
                    const long long product = i >= D ? 1 : 0, j = i - product * D;
                    Limb *digits = base + product * 3 * scratchSize, *terms = digits + scratchSize;
                    if (terms[j] != 0x10000u) continue;
                    long long m = j + 1;
                    for (;;) {
                        unsigned ones = 0;  // bit u: terms[m + u] is 0xffff
#pragma unroll
                        for (int u = 0; u < 32; u++)
                            ones |= (unsigned)(m + u < D && terms[m + u] == 0xffffu) << u;
                        const int run = ~ones ? __ffs(~ones) - 1 : 32;
                        for (int u = 0; u < run; u++) digits[m + u] = 0;
                        m += run;
                        if (run < 32) break;
                    }
                    if (m < D) atomicAdd(digits + m, 1u);
                }
                gridBarrier(control);
            }
    };

    long long k = 0;
    bool flagged = false;
    while (k < p.count) {
        // x and y change only in D (block 1 writes x while block 0 needs x's head).
        const FKOrbitHead hx = *x.head, hy = *y.head;
        // A
        if (blockIdx.x == 0) {
            DetailClock clock;
            blockAdd(c, t1, x, y, false, w0, w1, w2, sh);
            clock.lap(7);
        }
        if (blockIdx.x == 1) blockAdd(c, t2, x, y, true, w0, w1, w2, sh);
        gridBarrier(control);
        FK_LAP(0)
        products(x, y, t1, t2);
        FK_LAP(3)
        // D
        double *v = out + kStepWords * k;
        // Each block's product, rounded, stays in its shared memory for the add where that
        // holds the buffers (in place over the top limbs it is rounded from: the add reads it
        // before it writes w2), else t3 and x in global memory.
        const Ref rounded = {&sh.product, w2 + 2};
        if (blockIdx.x == 0) {
            DetailClock clock;
            const Ref product = inShared ? rounded : t3;
            blockProduct(c, product, hx, hy, s0, w2, sh);
            if (threadIdx.x == 0 && !product.head->zero) product.head->exponent += 1;  // 2 t3, exact
            __syncthreads();
            clock.lap(4);
            blockAdd(c, y, product, addend, false, w0, w1, w2, sh);
            clock.lap(5);
            const Stored stored = blockStored(c, y, sh);
            clock.lap(6);
            if (threadIdx.x == 0) {
                writeStored(v, 1, stored);
                writeNoTest(v);
                control[FK_ORBIT_STORED_Y] = p.settle || !forHost(y);
            }
        }
        if (blockIdx.x == 1) {
            const Ref product = inShared ? rounded : x;
            blockProduct(c, product, *t1.head, *t2.head, s0, w2, sh);
            blockAdd(c, x, product, addend, false, w0, w1, w2, sh);
            const Stored stored = blockStored(c, x, sh);
            if (threadIdx.x == 0) {
                writeStored(v, 0, stored);
                control[FK_ORBIT_STORED_X] = p.settle || !forHost(x);
            }
        }
        gridBarrier(control);
        FK_LAP(4)
        k += 1;
        const volatile double *vv = v;
        const volatile unsigned *cc = control;
        const bool near = nearEscape(vv[0], vv[1]);
        if (!p.settle && (near || !cc[FK_ORBIT_STORED_X] || !cc[FK_ORBIT_STORED_Y])) {
            flagged = true;  // the host takes this step in MPFR
            break;
        }
        if (near) {
            // The host's escape test: x^2 and y^2 (products over the grid, rounded on blocks 0
            // and 1), then on block 0 r2 = x^2 + y^2, escaped when r2 > 4, else 4 - r2.
            const FKOrbitHead sx = *x.head, sy = *y.head;
            products(x, x, y, y);
            if (blockIdx.x == 0) blockProduct(c, t1, sx, sx, s0, w2, sh);
            if (blockIdx.x == 1) blockProduct(c, t2, sy, sy, s0, w2, sh);
            gridBarrier(control);
            if (blockIdx.x == 0) {
                blockAdd(c, t3, t1, t2, false, w0, w1, w2, sh);
                if (blockAboveFour(c, t3, sh)) {
                    if (threadIdx.x == 0) v[10] = kEscaped;
                } else {
                    blockFour(c, t1);
                    blockAdd(c, t2, t1, t3, true, w0, w1, w2, sh);
                    const Stored gap = blockStored(c, t2, sh);
                    if (threadIdx.x == 0) writeGap(v, gap);
                }
            }
            gridBarrier(control);
            FK_LAP(4)
            if (vv[10] == kEscaped) break;
        }
    }
#undef FK_LAP
    if (id == 0) {
        control[FK_ORBIT_TAKEN] = (unsigned)k;
        control[FK_ORBIT_FLAGGED] = flagged ? 1 : 0;
        U64 *profile = (U64 *)(control + FK_ORBIT_PROFILE);
        for (int i = 0; i < 5; i++) profile[i] += spent[i];
        U64 *detail = (U64 *)(control + FK_ORBIT_DETAIL);
        for (int i = 0; i < 8; i++) detail[i] = detailSums[i];
    }
}
#endif
