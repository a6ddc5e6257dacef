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
//   mpfr_get_d does, from the top 192 bits and a sticky bit. A step whose values this cannot
//   settle (a magnitude below 2^-800, a low word past the window, |Z|^2 within 2^-40 of 4 or
//   beyond) is flagged: the host reads z and handles that step in MPFR.
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

/// Decimation in frequency: natural order in, bit-reversed order out.
FK_DEVICE void forwardTransform(const Context &c, U64 *a) {
    const long long n = 1LL << c.nttLog;
    for (long long len = n / 2, stride = 1; len >= 1; len >>= 1, stride <<= 1) {
        for (long long s = 0; s < n; s += 2 * len) {
            for (long long j = 0; j < len; j++) {
                U64 u = a[s + j], v = a[s + j + len];
                a[s + j] = addMod(u, v);
                a[s + j + len] = mulMod(subMod(u, v), c.twiddles[j * stride]);
            }
        }
    }
}

/// Decimation in time with w^-1: bit-reversed order in, natural order out, divided by N.
FK_DEVICE void inverseTransform(const Context &c, U64 *a) {
    const long long n = 1LL << c.nttLog;
    for (long long len = 1, stride = n / 2; len < n; len <<= 1, stride >>= 1) {
        for (long long s = 0; s < n; s += 2 * len) {
            for (long long j = 0; j < len; j++) {
                U64 u = a[s + j], v = mulMod(a[s + j + len], c.inverseTwiddles[j * stride]);
                a[s + j] = addMod(u, v);
                a[s + j + len] = subMod(u, v);
            }
        }
    }
    for (long long i = 0; i < n; i++) a[i] = mulMod(a[i], c.inverseN);
}

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
        c.fa[i] = i < 2 * L ? (a.m[i >> 1] >> (16 * (i & 1))) & 0xffff : 0;
        c.fb[i] = i < 2 * L ? (b.m[i >> 1] >> (16 * (i & 1))) & 0xffff : 0;
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

/// v rounded to a Double (hi) and v - hi rounded to a Double (lo), as mpfr_get_d and
/// mpfr_sub_d then mpfr_get_d give them; false where the top 192 bits cannot tell (the host
/// then rounds in MPFR). Needs v's exponent above -800 (normal Doubles throughout).
FK_DEVICE bool storedDoubles(const Context &c, const Num &v, double *hi, double *lo) {
    if (v.zero) {
        *hi = v.negative ? -0.0 : 0.0;
        *lo = 0.0;  // MPFR: (+-0) - (+-0) = +0
        return true;
    }
    if (v.exponent < -800) return false;
    const int L = c.limbs;
    Limb top[6];
    for (int i = 0; i < 6; i++) top[i] = L - 6 + i >= 0 ? v.m[L - 6 + i] : 0;
    bool outer = false;
    for (int i = 0; i < L - 6 && !outer; i++) outer = v.m[i] != 0;
    const U64 w2 = ((U64)top[5] << 32) | top[4], w1 = ((U64)top[3] << 32) | top[2], w0 = ((U64)top[1] << 32) | top[0];
    // hi: the top 53 bits, the round bit (bit 10 of w2), the sticky bits below.
    const U64 a = w2 >> 11;
    const bool round = (w2 >> 10) & 1;
    const bool stickyA = (w2 & 0x3ff) || w1 || w0 || outer;
    const bool up = round && (stickyA || (a & 1));
    *hi = makeDouble(v.negative, a + (up ? 1 : 0), v.exponent - 53);
    // The residual below those 53 bits: 139 bits (r2 r1 r0) in the window and `outer` below it.
    U64 r2 = w2 & 0x7ff, r1 = w1, r0 = w0;
    bool extra = outer;
    int negative = v.negative;
    if (up) {
        // |v| - |hi| < 0: its magnitude is 2^139 - R (exact), or ~R with a sticky bit below.
        r2 = ~r2 & 0x7ff;
        r1 = ~r1;
        r0 = ~r0;
        if (!outer) {
            if (++r0 == 0)
                if (++r1 == 0) r2 = (r2 + 1) & 0xfff;
        }
        negative ^= 1;
    }
    if (!r2 && !r1 && !r0) {
        if (extra) return false;
        *lo = 0.0;  // exact: v - hi = +0
        return true;
    }
    // The leading bit j of the 139-bit residual (bit 0: 2^(e - 192)).
    int j;
    if (r2)
        j = 128 + 63 - leadingZeros64(r2);
    else if (r1)
        j = 64 + 63 - leadingZeros64(r1);
    else
        j = 63 - leadingZeros64(r0);
    if (j < 53) {
        if (extra) return false;
        // Exact: fewer than 54 bits.
        const U64 d = r0;  // j < 53: all in r0
        const int shift = 52 - j;
        *lo = makeDouble(negative, d << shift, v.exponent - 192 - shift);
        return true;
    }
    // Bits j ... j - 52, round bit j - 53, sticky below.
    const int low = j - 53;  // the round bit's index
    U64 d;
    bool roundBit, stickyLow;
    // The 54 bits from j - 53 up, and the OR of everything under them.
    {
        // Shift the 192-bit (r2 r1 r0) right by `low`.
        U64 x0 = r0, x1 = r1, x2 = r2;
        int sh = low;
        bool lost = false;
        while (sh >= 64) {
            lost = lost || x0 != 0;
            x0 = x1;
            x1 = x2;
            x2 = 0;
            sh -= 64;
        }
        if (sh > 0) {
            lost = lost || (x0 & ((1ULL << sh) - 1)) != 0;
            x0 = (x0 >> sh) | (x1 << (64 - sh));
            x1 = (x1 >> sh) | (x2 << (64 - sh));
        }
        roundBit = x0 & 1;
        d = x0 >> 1;  // 53 bits
        stickyLow = lost || extra;
    }
    if (roundBit && (stickyLow || (d & 1))) d += 1;
    *lo = makeDouble(negative, d, v.exponent - 192 + low + 1);
    return true;
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

/// Up to `count` steps, each step's (x hi, y hi, x lo, y lo) into out. Returns the steps
/// taken; `*flagged` = 1 when the last of them needs the host (its four Doubles unset).
FK_DEVICE long long run(Orbit &o, long long count, double *out, int *flagged) {
    *flagged = 0;
    for (long long k = 0; k < count; k++) {
        step(o);
        double *v = out + 4 * k;
        // The host decides escape in MPFR from 4 (1 - 2^-40) on (Escape.inner2): flagged from
        // a little lower, so a contracted or reordered a a + b b here cannot miss one.
        if (!storedDoubles(o.c, o.x, v + 0, v + 2) || !storedDoubles(o.c, o.y, v + 1, v + 3)
            || v[0] * v[0] + v[1] * v[1] >= 4.0 * (1.0 - 0x1p-36)) {
            *flagged = 1;
            return k + 1;
        }
    }
    return count;
}

}  // namespace orbit
}  // namespace fathom
