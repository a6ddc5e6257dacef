// Fathom's GPU kernels: one source for NVRTC (CUDA C++, compiled at run time for the device's
// architecture) and for the host (the CPU emulation that the tests compare with the Swift
// kernels bit for bit). It mirrors the Swift kernels operation for operation, in the same
// order: PerturbationKernel<F, D, NoTracking>.step (Perturbation/Kernel/PerturbationKernel.swift), BLAView's
// lookup (ApproximationTable.swift), the perturbation formulas (PerturbationFormula.swift), FloatExp
// (FloatExp.swift), DoubleDouble and DoubleDoubleExp (FractalNumerics) and the direct Double escape time (EscapeTime.swift, QuadraticLanes.swift's
// rounding check). Compiled with --fmad=false (or on a CPU, with -ffp-contract=off) each
// operation rounds as Swift's does, so the iteration data are identical. Smooth values and
// the precision estimate need logarithms: the host computes them from each pixel's FKPixelOut.
//
// Needs FathomKernelABI.h before it. No standard headers (NVRTC has none).

#ifdef __CUDACC__
#define FK_DEVICE __device__ __forceinline__
#define FK_GLOBAL extern "C" __global__
static __device__ __forceinline__ double fk_bits_to_double(long long b) { return __longlong_as_double(b); }
static __device__ __forceinline__ long long fk_double_to_bits(double d) { return __double_as_longlong(d); }
#define FK_SQRT(x) sqrt(x)
#else
#define FK_SQRT(x) __builtin_sqrt(x)
#define FK_DEVICE inline __attribute__((always_inline))
static inline double fk_bits_to_double(long long b) { double d; __builtin_memcpy(&d, &b, 8); return d; }
static inline long long fk_double_to_bits(double d) { long long b; __builtin_memcpy(&b, &d, 8); return b; }
#endif

namespace fathom {

constexpr long long kZeroExponent = (-9223372036854775807LL - 1) >> 2;  // Int.min >> 2
constexpr double kRadiusSquared2 = 4.0;
constexpr double kRadiusSquaredBig = 4294967296.0;
constexpr double kLocalScaleCap = 256.0;
FK_DEVICE double infinity() { return fk_bits_to_double(0x7ff0000000000000LL); }
FK_DEVICE double notANumber() { return fk_bits_to_double(0x7ff8000000000000LL); }

FK_DEVICE bool isFinite(double d) { return d - d == 0.0; }
FK_DEVICE double absolute(double d) { return d < 0 ? -d : d; }
/// 2^k for -1022 <= k <= 1023, from its bits.
FK_DEVICE double powerOfTwo(long long k) {
    return fk_bits_to_double((long long)((unsigned long long)(k + 1023) << 52));
}

// MARK: FloatExp (FloatExp.swift)

struct FExp {
    double s;
    long long e;
};

FK_DEVICE FExp raw(double s, long long e) { FExp r; r.s = s; r.e = e; return r; }
FK_DEVICE FExp normalize(double m, long long e);
FK_DEVICE FExp normalizeRare(double m, long long e) {
    if (m == 0) return raw(0, kZeroExponent);
    if (!isFinite(m)) return raw(m, 0);
    return normalize(m * 18446744073709551616.0, e - 64);
}
FK_DEVICE FExp normalize(double m, long long e) {
    long long bits = fk_double_to_bits(m);
    long long biased = (bits >> 52) & 0x7ff;
    if (biased != 0 && biased != 0x7ff) {
        long long sig = (bits & (long long)0x800fffffffffffffULL) | 0x3ff0000000000000LL;
        return raw(fk_bits_to_double(sig), e + biased - 1023);
    }
    return normalizeRare(m, e);
}
FK_DEVICE FExp fexp(double d) { return normalize(d, 0); }
FK_DEVICE bool isZero(FExp a) { return a.s == 0; }
FK_DEVICE FExp operator*(FExp a, FExp b) { return normalize(a.s * b.s, a.e + b.e); }
FK_DEVICE FExp operator+(FExp a, FExp b) {
    long long d = a.e - b.e;
    if (d >= 0) {
        if (d > 64) return a;
        return normalize(a.s + b.s * powerOfTwo(-d), a.e);
    }
    if (d < -64) return b;
    return normalize(b.s + a.s * powerOfTwo(d), b.e);
}
FK_DEVICE FExp operator-(FExp a) { return raw(-a.s, a.e); }
FK_DEVICE FExp operator-(FExp a, FExp b) { return a + (-b); }
FK_DEVICE bool magnitudeIsLess(FExp a, FExp b) {
    if (a.e != b.e) return a.e < b.e;
    return absolute(a.s) < absolute(b.s);
}
FK_DEVICE bool operator<(FExp a, FExp b) {
    bool aNeg = a.s < 0, bNeg = b.s < 0;
    if (aNeg != bNeg) return aNeg;
    if (isZero(a) || isZero(b)) return a.s < b.s;
    return aNeg ? magnitudeIsLess(b, a) : magnitudeIsLess(a, b);
}
/// Swift's Double(sign: .plus, exponent: e, significand: s): scaled in steps, as the standard
/// library does.
FK_DEVICE double swiftScaled(double s, long long e) {
    double result = s;
    if (!isFinite(s) || s == 0) return result;
    long long clamped = e;
    if (clamped < -1022) {
        clamped = clamped > -3066 ? clamped : -3066;
        while (clamped < -1022) {
            result *= 2.2250738585072014e-308;  // 2^-1022
            clamped += 1022;
        }
    } else if (clamped > 1023) {
        clamped = clamped < 3069 ? clamped : 3069;
        while (clamped > 1023) {
            result *= 8.98846567431158e307;  // 2^1023
            clamped -= 1023;
        }
    }
    return result * powerOfTwo(clamped);
}
/// FloatExp.doubleValue.
FK_DEVICE double toDouble(FExp a) {
    if (isZero(a)) return 0;
    if (a.e > 1100) return a.s * infinity();
    if (a.e < -1200) return a.s * 0.0;
    return swiftScaled(a.s, a.e);
}

// MARK: DoubleDouble (DoubleDouble.swift, Augmented.swift: Joldes, Muller, Popescu 2017)

struct DD {
    double hi, lo;
};
FK_DEVICE DD dd(double hi, double lo) { DD r; r.hi = hi; r.lo = lo; return r; }
/// TwoSum (Augmented.sum).
FK_DEVICE DD twoSum(double a, double b) {
    double s = a + b, bb = s - a;
    return dd(s, (a - (s - bb)) + (b - bb));
}
/// FastTwoSum (Augmented.fastSum), |a| >= |b| or a = 0.
FK_DEVICE DD fastTwoSum(double a, double b) {
    double s = a + b;
    return dd(s, b - (s - a));
}
/// TwoProduct (Augmented.product): fl(a b) and its exact error. On the device one fused
/// multiply-add, explicit so that --fmad does not touch it; on the host Dekker's product with
/// Veltkamp's split, as the Swift kernels on x86-64. Both give the exact error, so the same
/// tail, wherever it is a normal Double and |a|, |b| < 2^996 (the split's range).
FK_DEVICE DD twoProduct(double a, double b) {
    double p = a * b;
#ifdef __CUDACC__
    return dd(p, __fma_rn(a, b, -p));
#else
    double ca = 134217729.0 * a, ah = ca - (ca - a), al = a - ah;
    double cb = 134217729.0 * b, bh = cb - (cb - b), bl = b - bh;
    return dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
#endif
}
/// DoubleWord.add (algorithm 6).
FK_DEVICE DD operator+(DD a, DD b) {
    DD s = twoSum(a.hi, b.hi), t = twoSum(a.lo, b.lo);
    double c = s.lo + t.hi;
    DD v = fastTwoSum(s.hi, c);
    double w = t.lo + v.lo;
    return fastTwoSum(v.hi, w);
}
FK_DEVICE DD operator-(DD a) { return dd(-a.hi, -a.lo); }
FK_DEVICE DD operator-(DD a, DD b) { return a + (-b); }
/// DoubleWord.multiply (algorithm 11).
FK_DEVICE DD operator*(DD a, DD b) {
    DD c = twoProduct(a.hi, b.hi);
    double cl = (a.hi * b.lo + a.lo * b.hi) + c.lo;
    return fastTwoSum(c.hi, cl);
}
FK_DEVICE bool operator<(DD a, DD b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

// MARK: DoubleDoubleExp (DoubleDoubleExp.swift): a DoubleDouble significand, hi in [1, 2), and an exponent

struct DDX {
    DD m;
    long long e;
};
FK_DEVICE DDX ddx(DD m, long long e) { DDX r; r.m = m; r.e = e; return r; }
/// DoubleDoubleExp(normalizing:_:).
FK_DEVICE DDX normalizeDD(DD m, long long e) {
    for (;;) {
        long long bits = fk_double_to_bits(m.hi);
        long long biased = (bits >> 52) & 0x7ff;
        if (biased != 0 && biased != 0x7ff) {
            long long k = biased - 1023;
            double scale = powerOfTwo(-k);
            return ddx(dd(m.hi * scale, m.lo * scale), e + k);
        }
        if (m.hi == 0) return ddx(dd(0, 0), kZeroExponent);
        if (!isFinite(m.hi)) return ddx(m, 0);
        // Subnormal hi (lo is then 0): into the normal range first.
        m = dd(m.hi * 18446744073709551616.0, 0);
        e -= 64;
    }
}
FK_DEVICE bool isZero(DDX a) { return a.m.hi == 0; }
/// m 2^-d, 0 <= d (DoubleDoubleExp.shifted).
FK_DEVICE DD shifted(DD m, long long d) {
    double s = powerOfTwo(-d);
    return dd(m.hi * s, m.lo * s);
}
FK_DEVICE DDX operator+(DDX a, DDX b) {
    long long d = a.e - b.e;
    if (d >= 0) {
        if (d > 110) return a;
        return normalizeDD(a.m + shifted(b.m, d), a.e);
    }
    if (d < -110) return b;
    return normalizeDD(b.m + shifted(a.m, -d), b.e);
}
FK_DEVICE DDX operator-(DDX a) { return ddx(-a.m, a.e); }
FK_DEVICE DDX operator-(DDX a, DDX b) { return a + (-b); }
FK_DEVICE DDX operator*(DDX a, DDX b) { return normalizeDD(a.m * b.m, a.e + b.e); }
FK_DEVICE bool operator<(DDX a, DDX b) {
    bool aNeg = a.m.hi < 0, bNeg = b.m.hi < 0;
    if (aNeg != bNeg) return aNeg;
    if (isZero(a) || isZero(b)) return a.m.hi < b.m.hi;
    if (a.e != b.e) return aNeg ? a.e > b.e : a.e < b.e;
    return a.m < b.m;
}
/// floatExpValue: FloatExp(significand: hi + lo, exponent: e).
FK_DEVICE FExp floatExpOf(DDX a) { return normalize(a.m.hi + a.m.lo, a.e); }
/// DoubleDoubleExp(FloatExp).
FK_DEVICE DDX ddxFromFloatExp(FExp f) { return normalizeDD(dd(f.s, 0), isZero(f) ? kZeroExponent : f.e); }

// MARK: The ABI's layouts of each delta type, read as the kernels' types

FK_DEVICE double fromABI(double d) { return d; }
FK_DEVICE FExp fromABI(const FKFloatExp &f) { return raw(f.s, f.e); }
FK_DEVICE DD fromABI(const FKDoubleDouble &f) { return dd(f.hi, f.lo); }
FK_DEVICE DDX fromABI(const FKDoubleDoubleExp &f) { return ddx(fromABI(f.m), f.e); }

// MARK: The delta types (DeltaScalar.swift): Double, FloatExp, DoubleDouble and DoubleDoubleExp behind one interface

template <class D> struct Delta;

template <> struct Delta<double> {
    typedef FKStepDouble TableStep;
    typedef FKLAEntryDouble LAEntry;
    static constexpr int significandBits = 53;
    /// Whether D is its own wide type (PerturbationDelta.Wide), in which LA entries are built.
    static constexpr bool ownWide = false;
    /// plainLengthSquared: |re + i im|^2 within 2^+-450, else false.
    FK_DEVICE static bool plainLengthSquared(double re, double im, double *s) {
        double t = re * re + im * im;
        *s = t;
        return t >= 0x1p-450 && t <= 0x1p450;
    }
    FK_DEVICE static double fromDouble(double d) { return d; }
    /// D(DoubleDouble(hi: hi, lo: lo)) where D is 106 bits (not called for 53-bit deltas).
    FK_DEVICE static double fromPair(double hi, double) { return hi; }
    FK_DEVICE static double leading(double d) { return d; }
    FK_DEVICE static FExp floatExp(double d) { return fexp(d); }
    FK_DEVICE static double doubled(double d) { return d + d; }
    FK_DEVICE static double zero() { return 0; }
    FK_DEVICE static double one() { return 1; }
    FK_DEVICE static bool less(double a, double b) { return a < b; }
    FK_DEVICE static double complexMagnitude(double re, double im) {
        double s = re * re + im * im;
        if (s >= 0x1p-1000) return FK_SQRT(s);
        double a = re * 0x1p600, b = im * 0x1p600;
        return FK_SQRT(a * a + b * b) * 0x1p-600;
    }
    FK_DEVICE static bool magnitudeIsBelow(double re, double im, double r) {
        double s = re * re + im * im;
        if (s >= 0x1p-1000) return s < r * r;
        double a = re * 0x1p600, b = im * 0x1p600, q = r * 0x1p600;
        return a * a + b * b < q * q;
    }
};

template <> struct Delta<FExp> {
    typedef FKStepFloatExp TableStep;
    typedef FKLAEntryFloatExp LAEntry;
    static constexpr int significandBits = 53;
    static constexpr bool ownWide = false;
    FK_DEVICE static bool plainLengthSquared(FExp, FExp, double *) { return false; }
    FK_DEVICE static FExp fromDouble(double d) { return fexp(d); }
    FK_DEVICE static FExp fromPair(double hi, double) { return fexp(hi); }
    FK_DEVICE static double leading(FExp d) { return toDouble(d); }
    FK_DEVICE static FExp floatExp(FExp d) { return d; }
    FK_DEVICE static FExp doubled(FExp d) { return isZero(d) ? d : raw(d.s, d.e + 1); }
    FK_DEVICE static FExp zero() { return raw(0, kZeroExponent); }
    FK_DEVICE static FExp one() { return raw(1, 0); }
    FK_DEVICE static bool less(FExp a, FExp b) { return a < b; }
    FK_DEVICE static FExp complexMagnitude(FExp re, FExp im) {
        long long e = re.e > im.e ? re.e : im.e;
        double x = re.e - e < -1000 ? 0 : re.s * powerOfTwo(re.e - e);
        double y = im.e - e < -1000 ? 0 : im.s * powerOfTwo(im.e - e);
        return normalize(FK_SQRT(x * x + y * y), e);
    }
    FK_DEVICE static bool magnitudeIsBelow(FExp re, FExp im, FExp r) {
        return re * re + im * im < r * r;
    }
};

template <> struct Delta<DD> {
    typedef FKStepDoubleDouble TableStep;
    typedef FKLAEntryDoubleDouble LAEntry;
    static constexpr int significandBits = 106;
    static constexpr bool ownWide = true;
    /// Double's, from the leading words.
    FK_DEVICE static bool plainLengthSquared(DD re, DD im, double *s) {
        return Delta<double>::plainLengthSquared(re.hi, im.hi, s);
    }
    FK_DEVICE static DD fromDouble(double d) { return dd(d, 0); }
    FK_DEVICE static DD fromPair(double hi, double lo) { return dd(hi, lo); }
    FK_DEVICE static double leading(DD d) { return d.hi; }
    FK_DEVICE static FExp floatExp(DD d) { return fexp(d.hi) + fexp(d.lo); }
    FK_DEVICE static DD doubled(DD d) { return dd(d.hi + d.hi, d.lo + d.lo); }
    FK_DEVICE static DD zero() { return dd(0, 0); }
    FK_DEVICE static DD one() { return dd(1, 0); }
    FK_DEVICE static bool less(DD a, DD b) { return a < b; }
    /// From the leading words (BLA's validity test needs no more).
    FK_DEVICE static DD complexMagnitude(DD re, DD im) {
        return dd(Delta<double>::complexMagnitude(re.hi, im.hi), 0);
    }
    FK_DEVICE static bool magnitudeIsBelow(DD re, DD im, DD r) {
        return Delta<double>::magnitudeIsBelow(re.hi, im.hi, r.hi);
    }
};

template <> struct Delta<DDX> {
    typedef FKStepDoubleDoubleExp TableStep;
    typedef FKLAEntryDoubleDoubleExp LAEntry;
    static constexpr int significandBits = 106;
    static constexpr bool ownWide = true;
    FK_DEVICE static bool plainLengthSquared(DDX, DDX, double *) { return false; }
    FK_DEVICE static DDX fromDouble(double d) { return normalizeDD(dd(d, 0), 0); }
    FK_DEVICE static DDX fromPair(double hi, double lo) { return normalizeDD(dd(hi, lo), 0); }
    /// FloatExp(rawSignificand: hi, exponent: e).doubleValue.
    FK_DEVICE static double leading(DDX d) { return toDouble(raw(d.m.hi, d.e)); }
    FK_DEVICE static FExp floatExp(DDX d) { return floatExpOf(d); }
    FK_DEVICE static DDX doubled(DDX d) { return isZero(d) ? d : ddx(d.m, d.e + 1); }
    FK_DEVICE static DDX zero() { return ddx(dd(0, 0), kZeroExponent); }
    FK_DEVICE static DDX one() { return ddx(dd(1, 0), 0); }
    FK_DEVICE static bool less(DDX a, DDX b) { return a < b; }
    FK_DEVICE static DDX complexMagnitude(DDX re, DDX im) {
        return ddxFromFloatExp(Delta<FExp>::complexMagnitude(floatExpOf(re), floatExpOf(im)));
    }
    FK_DEVICE static bool magnitudeIsBelow(DDX re, DDX im, DDX r) {
        return Delta<FExp>::magnitudeIsBelow(floatExpOf(re), floatExpOf(im), floatExpOf(r));
    }
};

// MARK: Complex (Complex.swift)

template <class D> struct Cx {
    D re, im;
};
template <class D> FK_DEVICE Cx<D> cx(D re, D im) { Cx<D> r; r.re = re; r.im = im; return r; }
template <class D> FK_DEVICE Cx<D> operator+(Cx<D> a, Cx<D> b) { return cx(a.re + b.re, a.im + b.im); }
template <class D> FK_DEVICE Cx<D> operator*(Cx<D> a, Cx<D> b) {
    return cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class D> FK_DEVICE Cx<D> scale(Cx<D> a, D s) { return cx(a.re * s, a.im * s); }
template <class D> FK_DEVICE D lengthSquared(Cx<D> a) { return a.re * a.re + a.im * a.im; }

// MARK: Perturbation formulas (PerturbationFormula.swift)

/// |f'(z)|^2 from |z|^2.
FK_DEVICE double stretchSquared(int power, double r2) {
    if (power == 2) return 4 * r2;
    double t = (double)(power * power);
    for (int k = 1; k < power; k++) t *= r2;
    return t;
}

/// (2Z + dz) dz (+ dc).
template <class D> FK_DEVICE Cx<D> quadraticStep(Cx<D> Z, Cx<D> dz, Cx<D> dc, bool addsDC) {
    Cx<D> t = cx(Delta<D>::doubled(Z.re) + dz.re, Delta<D>::doubled(Z.im) + dz.im) * dz;
    return addsDC ? t + dc : t;
}

/// Horner in dz over the binomials (MultibrotPerturbation.step).
template <class D> FK_DEVICE Cx<D> multibrotStep(Cx<D> Z, Cx<D> dz, Cx<D> dc, int power, const double *binomials) {
    Cx<D> h = cx(Delta<D>::one(), Delta<D>::zero());
    Cx<D> zPower = Z;
    for (int k = power - 1; k >= 1; k--) {
        h = scale(zPower, Delta<D>::fromDouble(binomials[k])) + dz * h;
        zPower = zPower * Z;
    }
    return dz * h + dc;
}

template <class D> FK_DEVICE Cx<D> formulaStep(const FKPerturbParams &p, bool multibrot, Cx<D> Z, Cx<D> dz, Cx<D> dc) {
    return multibrot ? multibrotStep(Z, dz, dc, p.power, p.binomials) : quadraticStep(Z, dz, dc, p.addsDC != 0);
}

// MARK: BLA lookup (BLAView.longestStep)

template <class D> struct Table {
    const typename Delta<D>::TableStep *steps;
    const D *radii;
    const long long *levelStarts;
    long long levels;
    const typename Delta<D>::LAEntry *la;
    const int *chainAt;
    double laLoadScale;
};

template <class D> FK_DEVICE Table<D> table(const FKTable &t) {
    Table<D> r;
    r.steps = (const typename Delta<D>::TableStep *)t.steps;
    r.radii = (const D *)t.radii;
    r.levelStarts = t.levelStarts;
    r.levels = t.levels;
    r.la = (const typename Delta<D>::LAEntry *)t.la;
    r.chainAt = t.chainAt;
    r.laLoadScale = t.laLoadScale;
    return r;
}

/// The longest valid step at reference index m of at most maxLength iterations: its index (or
/// -1) and length.
template <class D>
FK_DEVICE long long longestStep(const Table<D> &t, long long m, Cx<D> dz, long long maxLength, long long *length) {
    if (t.radii == 0 || m < 1) return -1;
    long long j = m - 1;
    if (!(j < t.levelStarts[1]) || !Delta<D>::magnitudeIsBelow(dz.re, dz.im, t.radii[j])) return -1;
    long long best = j;
    long long k = 1;
    while (k < t.levels && (j & ((1LL << k) - 1)) == 0 && (1LL << k) <= maxLength) {
        long long i = t.levelStarts[k] + (j >> k);
        if (!(i < t.levelStarts[k + 1]) || !Delta<D>::magnitudeIsBelow(dz.re, dz.im, t.radii[i])) break;
        best = i;
        k += 1;
    }
    *length = 1LL << (k - 1);
    return best;
}

template <class D> struct StepView {
    Cx<D> a, b;
    D inverseRadiusSquared;
    double stretchSignificand;
    long long stretchExponent;
};

/// A table step of D as the kernel reads it (the ABI's layout of BLAStep<D>).
template <class D> FK_DEVICE StepView<D> stepView(const typename Delta<D>::TableStep &s) {
    StepView<D> v;
    v.a = cx(fromABI(s.ar), fromABI(s.ai));
    v.b = cx(fromABI(s.br), fromABI(s.bi));
    v.inverseRadiusSquared = fromABI(s.inverseRadiusSquared);
    v.stretchSignificand = s.stretchSignificand;
    v.stretchExponent = s.stretchExponent;
    return v;
}

// MARK: LA entries (LAEntry, LAView.longest: LATable.swift)

template <class D> struct LAStep {
    Cx<D> zc, cc;
    D inverseThreshold, inverseDCThreshold;
    double stretchSignificand;
    long long stretchExponent;
    double ccSignificand;
    long long ccExponent;
    long long length;
};
template <class D> FK_DEVICE LAStep<D> laStep(const typename Delta<D>::LAEntry &e) {
    LAStep<D> v;
    v.zc = cx(fromABI(e.zcr), fromABI(e.zci));
    v.cc = cx(fromABI(e.ccr), fromABI(e.cci));
    v.inverseThreshold = fromABI(e.inverseThreshold);
    v.inverseDCThreshold = fromABI(e.inverseDCThreshold);
    v.stretchSignificand = e.stretchSignificand;
    v.stretchExponent = e.stretchExponent;
    v.ccSignificand = e.ccSignificand;
    v.ccExponent = e.ccExponent;
    v.length = e.length;
    return v;
}
/// The longest entry of the chain at `offset` that holds for u and dc and covers at most
/// maxLength iterations (-1: none).
template <class D>
FK_DEVICE long long laLongest(const Table<D> &t, long long offset, Cx<D> u, Cx<D> dc, long long maxLength) {
    long long end = t.la[offset].chainEnd, best = -1;
    for (long long i = offset; i < end; i++) {
        const typename Delta<D>::LAEntry &e = t.la[i];
        if (!(e.length <= maxLength) || !Delta<D>::magnitudeIsBelow(u.re, u.im, fromABI(e.threshold))
            || !Delta<D>::magnitudeIsBelow(dc.re, dc.im, fromABI(e.dcThreshold)))
            break;
        best = i;
    }
    return best;
}
/// LAEntry.load: ((|u| / T)^2 + (|dc| / TC)^2) / 8.
template <class D> FK_DEVICE double laLoad(const LAStep<D> &e, Cx<D> u, Cx<D> dc) {
    double ur = Delta<D>::leading(u.re * e.inverseThreshold), ui = Delta<D>::leading(u.im * e.inverseThreshold);
    double cr = Delta<D>::leading(dc.re * e.inverseDCThreshold), ci = Delta<D>::leading(dc.im * e.inverseDCThreshold);
    return (ur * ur + ui * ui + cr * cr + ci * ci) * 0.125;
}

// MARK: The error variance (PixelRun's ErrorVariance helpers, Perturbation/Kernel/PixelRun.swift)

/// A pair m 2^e (a Double of modest size and an exponent).
struct Pair {
    double m;
    long long e;
};
FK_DEVICE Pair pair(double m, long long e) { Pair r; r.m = m; r.e = e; return r; }
/// FloatExp.parts: the exponent 0 for zero.
FK_DEVICE Pair parts(FExp f) { return pair(f.s, isZero(f) ? 0 : f.e); }
/// PixelRun.normalized.
FK_DEVICE Pair normalized(Pair v) { return parts(normalize(v.m, v.e)); }
/// PixelRun.addVariance: v += m 2^e.
FK_DEVICE void addVariance(Pair &v, double m, long long e) {
    if (v.m == 0) {
        v = pair(m, e);
        return;
    }
    long long j = e - v.e;
    if (j > 900) {
        v = pair(m, e);
    } else if (j >= -900) {
        v.m += m * powerOfTwo(j);
    }
}
/// PixelRun.pairSum.
FK_DEVICE Pair pairSum(Pair a, Pair b) {
    if (a.m == 0) return b;
    if (b.m == 0) return a;
    long long k = a.e - b.e;
    if (k >= 0) return k > 60 ? a : pair(a.m + b.m * powerOfTwo(-k), a.e);
    return k < -60 ? b : pair(b.m + a.m * powerOfTwo(k), b.e);
}
/// Complex.floatExpLengthSquared.
template <class D> FK_DEVICE FExp floatExpLengthSquared(Cx<D> z) {
    FExp x = Delta<D>::floatExp(z.re), y = Delta<D>::floatExp(z.im);
    return x * x + y * y;
}
/// PixelRun.stepRounding.
template <class D> FK_DEVICE Pair stepRounding(Cx<D> before, Pair next, Pair inverseDC, int power) {
    double p2 = (double)(power * power) * inverseDC.m;
    double s;
    if (Delta<D>::plainLengthSquared(before.re, before.im, &s) && next.e == 0) {
        return pair((next.m + s) * s * p2, inverseDC.e);
    }
    FExp d = floatExpLengthSquared(before);
    FExp f = normalize(next.m, next.e);
    Pair sum = pairSum(pair(f.s, f.e), pair(d.s, d.e));
    return pair(sum.m * d.s * p2, sum.e + d.e + inverseDC.e);
}
/// PixelRun.plainStepError.
template <class D> FK_DEVICE Pair plainStepError(Pair v, Pair next, Cx<D> before, Pair inverseDC, int power) {
    Pair w = pair(v.m, v.e + next.e);
    Pair r = stepRounding(before, next, inverseDC, power);
    addVariance(w, r.m, r.e);
    addVariance(w, 1, 0);
    return normalized(w);
}
/// PixelRun.linearRounding (PrecisionEstimate.blaSafety = 2, PixelRun.coefficientRounding = 4).
template <class D> FK_DEVICE Pair linearRounding(
    Pair a2, Pair b2, long long length, double load, double epsilon, Pair inverseDC) {
    double w = 2 * 2.0 * epsilon * powerOfTwo(Delta<D>::significandBits);
    double k = 2 + 4.0 * (double)length + w * w * (isFinite(load) ? load : 1);
    Pair t = pairSum(pair(a2.m * inverseDC.m, a2.e + inverseDC.e), b2);
    return pair(t.m * k, t.e);
}
/// PixelRun.blaError: a BLA step's rounding and truncation (the variance already times |A|^2).
template <class D> FK_DEVICE Pair blaError(
    Pair v, const StepView<D> &step, long long length, Cx<D> before, double load, double epsilon, Pair inverseDC) {
    FExp d = floatExpLengthSquared(before), b = floatExpLengthSquared(step.b);
    Pair r = linearRounding<D>(
        pair(step.stretchSignificand * d.s, step.stretchExponent + d.e), pair(b.s, b.e), length, load, epsilon,
        inverseDC);
    addVariance(v, r.m, r.e);
    return normalized(v);
}
/// PixelRun.laError: after an LA entry from `before` through the exact step's u (the variance
/// already times |f'(z)|^2 |zc|^2).
template <class D> FK_DEVICE Pair laError(
    Pair v, const LAStep<D> &e, Cx<D> before, Cx<D> u, double load, Pair next, double epsilon, Pair inverseDC,
    int power) {
    Pair s = stepRounding(before, next, inverseDC, power);
    addVariance(v, s.m * e.stretchSignificand, s.e + e.stretchExponent);
    addVariance(v, e.stretchSignificand, e.stretchExponent);
    FExp u2 = floatExpLengthSquared(u);
    Pair r = linearRounding<D>(
        pair(e.stretchSignificand * u2.s, e.stretchExponent + u2.e),
        pair(e.ccSignificand * e.ccSignificand, 2 * e.ccExponent), Delta<D>::ownWide ? e.length : 0, load, epsilon,
        inverseDC);
    addVariance(v, r.m, r.e);
    return normalized(v);
}
/// PerturbationKernel.tinyStretch: |f'(z)|^2 with its own exponent where |z|^2 underflows.
template <class D> FK_DEVICE Pair tinyStretch(Cx<D> z, int power) {
    FExp m2 = floatExpLengthSquared(z);
    FExp t = fexp((double)(power * power));
    for (int k = 1; k < power; k++) t = t * m2;
    return parts(t);
}

// MARK: The orbit streamed from its compressed form (CompressedOrbit.swift, KernelOrbit.swift)

// The prediction's arithmetic is the format's: each operation rounded once, never contracted
// into a multiply-add (even under --fmad=true), and one fused multiply-add per product.
#ifdef __CUDACC__
FK_DEVICE double exactAdd(double a, double b) { return __dadd_rn(a, b); }
FK_DEVICE double exactSub(double a, double b) { return __dsub_rn(a, b); }
FK_DEVICE double exactMul(double a, double b) { return __dmul_rn(a, b); }
FK_DEVICE double exactFMA(double a, double b, double c) { return __fma_rn(a, b, c); }
#else
FK_DEVICE double exactAdd(double a, double b) { return a + b; }
FK_DEVICE double exactSub(double a, double b) { return a - b; }
FK_DEVICE double exactMul(double a, double b) { return a * b; }
FK_DEVICE double exactFMA(double a, double b, double c) { return __builtin_fma(a, b, c); }
#endif

constexpr long long kKeyStride = 128;  // CompressedOrbit.keyStride

/// CompressedOrbit's Exact: double-double additions and products.
struct Exact {
    double hi, lo;
};
FK_DEVICE Exact exact(double hi, double lo) { Exact r; r.hi = hi; r.lo = lo; return r; }
FK_DEVICE Exact operator+(Exact a, Exact b) {
    double s = exactAdd(a.hi, b.hi), v = exactSub(s, a.hi);
    double e = exactAdd(
        exactAdd(exactAdd(exactSub(a.hi, exactSub(s, v)), exactSub(b.hi, v)), a.lo), b.lo);
    double h = exactAdd(s, e);
    return exact(h, exactSub(e, exactSub(h, s)));
}
FK_DEVICE Exact operator-(Exact a, Exact b) { return a + exact(-b.hi, -b.lo); }
FK_DEVICE Exact operator*(Exact a, Exact b) {
    double p = exactMul(a.hi, b.hi);
    double e = exactAdd(exactFMA(a.hi, b.hi, -p), exactAdd(exactMul(a.hi, b.lo), exactMul(a.lo, b.hi)));
    double h = exactAdd(p, e);
    return exact(h, exactSub(e, exactSub(h, p)));
}

/// A Double's bits as an integer in the Doubles' order (CompressedOrbit.ordered), and back.
FK_DEVICE long long ordered(double d) {
    long long b = fk_double_to_bits(d);
    return b >= 0 ? b : ~(b & 0x7fffffffffffffffLL);
}
FK_DEVICE double fromOrdered(long long o) {
    return fk_bits_to_double(o >= 0 ? o : (long long)(0x8000000000000000ULL | (unsigned long long)~o));
}
/// ordered(d) + k, wrapping (Swift's &+).
FK_DEVICE double offsetOrdered(double d, long long k) {
    return fromOrdered((long long)((unsigned long long)ordered(d) + (unsigned long long)k));
}

/// A pixel's place in the streamed orbit (StreamedCursor): the step held, its stored Doubles
/// (re, im, reLow, imLow), the nibble its successor starts at, the first tiny entry past it
/// and its value in D.
template <class D> struct StreamCursor {
    long long step;
    double v[4];
    long long nibble;
    long long nextTiny;
    Cx<D> current;
};

/// One zigzag varint of nibbles (three bits each, the fourth set where more follow).
FK_DEVICE long long readVarint(const FKStream &s, long long *nibble) {
    unsigned long long z = 0;
    int shift = 0;
    for (int length = 0; length < 22 && *nibble < s.nibbleCount; length++) {
        unsigned char b = s.bytes[*nibble >> 1];
        unsigned int q = (*nibble & 1) == 0 ? (b & 15u) : (unsigned int)(b >> 4);
        *nibble += 1;
        z |= (unsigned long long)(q & 7u) << shift;
        shift += 3;
        if ((q & 8u) == 0) break;
    }
    return (long long)(z >> 1) ^ -(long long)(z & 1);
}

/// The step after the cursor's (CompressedOrbit.next): z^p + c predicted from its stored
/// values, corrected by the differences read.
template <class D> FK_DEVICE void streamAdvance(const FKStream &s, StreamCursor<D> &k) {
    double g0, g1, g2 = 0, g3 = 0;
    if (s.lowWords) {
        const Exact x = exact(k.v[0], k.v[2]), y = exact(k.v[1], k.v[3]);
        Exact a = x, b = y;
        for (int i = 1; i < s.power; i++) {
            const Exact na = a * x - b * y, nb = a * y + b * x;
            a = na;
            b = nb;
        }
        const Exact re = a + exact(s.c[0], s.c[1]), im = b + exact(s.c[2], s.c[3]);
        g0 = re.hi; g1 = im.hi; g2 = re.lo; g3 = im.lo;
    } else {
        const double x = k.v[0], y = k.v[1];
        double a = x, b = y;
        for (int i = 1; i < s.power; i++) {
            const double na = exactSub(exactMul(a, x), exactMul(b, y));
            const double nb = exactAdd(exactMul(a, y), exactMul(b, x));
            a = na;
            b = nb;
        }
        g0 = exactAdd(a, s.c[0]);
        g1 = exactAdd(b, s.c[2]);
    }
    const double x = offsetOrdered(g0, readVarint(s, &k.nibble));
    const double y = offsetOrdered(g1, readVarint(s, &k.nibble));
    k.v[0] = x;
    k.v[1] = y;
    if (s.lowWords) {
        // The low word the prediction implies given the high word stored (CompressedOrbit.lowWord).
        const double lr = (exact(g0, g2) - exact(x, 0)).hi, li = (exact(g1, g3) - exact(y, 0)).hi;
        k.v[2] = offsetOrdered(lr, readVarint(s, &k.nibble));
        k.v[3] = offsetOrdered(li, readVarint(s, &k.nibble));
    }
    k.step += 1;
}

/// The cursor at step m, from the key at or before it; the first tiny entry at or past m.
template <class D> FK_DEVICE void streamSeek(const FKStream &s, StreamCursor<D> &k, long long m) {
    const long long key = m / kKeyStride, base = (s.lowWords ? 4 : 2) * key;
    k.v[0] = s.keys[base];
    k.v[1] = s.keys[base + 1];
    k.v[2] = s.lowWords ? s.keys[base + 2] : 0;
    k.v[3] = s.lowWords ? s.keys[base + 3] : 0;
    k.nibble = s.keyNibbles[key];
    k.step = key * kKeyStride;
    while (k.step < m) streamAdvance(s, k);
    long long lo = 0, hi = s.tinyCount;
    while (lo < hi) {
        const long long mid = (lo + hi) / 2;
        if (s.tinySteps[mid] < m) lo = mid + 1; else hi = mid;
    }
    k.nextTiny = lo;
}

/// `current` for the step reached: the tiny table's value where it holds the step.
template <class D> FK_DEVICE void streamSettle(const FKStream &s, StreamCursor<D> &k) {
    typedef Delta<D> T;
    if (k.nextTiny < s.tinyCount && s.tinySteps[k.nextTiny] == k.step) {
        k.current = ((const Cx<D> *)s.tinyValues)[k.nextTiny];
        k.nextTiny += 1;
    } else if (s.wide) {
        k.current = cx(T::fromPair(k.v[0], k.v[2]), T::fromPair(k.v[1], k.v[3]));
    } else {
        k.current = cx(T::fromDouble(k.v[0]), T::fromDouble(k.v[1]));
    }
}

/// Z(m) (StreamedCursor.z): the next step decoded from this one, any other from its key.
template <class D> FK_DEVICE Cx<D> streamAt(const FKStream &s, StreamCursor<D> &k, long long m) {
    if (m != k.step) {
        if (m == k.step + 1 && m % kKeyStride != 0) {
            streamAdvance(s, k);
        } else {
            streamSeek(s, k, m);
        }
        streamSettle(s, k);
    }
    return k.current;
}

// MARK: One pixel (PerturbationKernel.iterate with NoTracking, ProductStretch or ErrorVariance)

/// Item `item`'s dc: from the list, or for a whole image without rotation (column's Re, row's
/// Im), as DeltaGrid.delta.
template <class D> FK_DEVICE Cx<D> pixelDelta(const FKPerturbParams &p, long long item) {
    if (p.dc) return ((const Cx<D> *)p.dc)[item];
    long long row = item / p.width, column = item - row * p.width;
    return cx(((const D *)p.columns)[column], ((const D *)p.rows)[row]);
}

/// One pixel's run (PixelRun, PerturbationKernel.iterate): its state, the step it takes next
/// (`advance`: an LA entry, a BLA step or the plain step), what follows every step (`settle`:
/// escape, the stretch, rebasing, the Pauldelbrot test) and its record (`out`). The scalar
/// kernel (`perturbPixel`) is `start`, then `advance` and `settle` until the pixel ends; the
/// CPU's lanes (Lanes.cpp) take the plain steps of many pixels at once and hand a pixel to
/// these members for every other step, so both round as one source does.
template <class D> struct Pixel {
    typedef Delta<D> T;
    const FKPerturbParams *p;
    bool multibrot;
    // Z(m): from the decoded orbit, or streamed (the orbit its own rebase orbit then).
    const Cx<D> *orbit;
    bool streamed;
    StreamCursor<D> cursor;
    Table<D> tab;
    Cx<D> dz, dcStep;
    double nextStretch;
    long long nextStretchExponent;
    long long last, m, n, n2;
    double errorScale;
    long long errorScaleExponent;
    double inverseDCSignificand, blaLoad;
    long long inverseDCExponent;
    unsigned int steps, approximationSteps;
    FKPixelOut out;

    FK_DEVICE Cx<D> Zat(long long k) { return streamed ? streamAt(p->stream, cursor, k) : orbit[k]; }

    /// PerturbationKernel.start for item `item` of `params`.
    FK_DEVICE void start(const FKPerturbParams &params, long long item, bool isMultibrot) {
        p = &params;
        multibrot = isMultibrot;
        orbit = (const Cx<D> *)params.orbit;
        streamed = params.stream.keys != 0;
        if (streamed) {
            streamSeek(params.stream, cursor, 0);
            streamSettle(params.stream, cursor);
        }
        tab = table<D>(params.table);
        const bool addsDC = params.addsDC != 0;
        const Cx<D> dc = pixelDelta<D>(params, item);
        dz = addsDC ? cx(T::zero(), T::zero()) : dc;
        dcStep = addsDC ? dc : cx(T::zero(), T::zero());
        nextStretch = 1.0;
        nextStretchExponent = 0;
        {
            Cx<D> z0 = Zat(0) + dz;
            double x = T::leading(z0.re), y = T::leading(z0.im);
            if (!addsDC) nextStretch = stretchSquared(params.power, x * x + y * y);
        }
        last = params.orbitCount - 1;
        m = 0;
        n = 0;
        n2 = 0;
        errorScale = 1.0;
        errorScaleExponent = 0;
        blaLoad = 0.0;
        {
            FExp dcx = T::floatExp(dc.re), dcy = T::floatExp(dc.im);
            FExp dc2 = dcx * dcx + dcy * dcy;
            if (isZero(dc2)) {
                inverseDCSignificand = 0;
                inverseDCExponent = 0;
            } else {
                inverseDCSignificand = 1 / dc2.s;
                inverseDCExponent = -dc2.e;
            }
        }
        // The error variance starts at 0 (the product at the first step's 1).
        if (params.variance) errorScale = 0;
        steps = 0;
        approximationSteps = 0;
        out.kind = FK_MAX_ITERATIONS;
        out.n = 0;
        out.pad = 0;
        out.r2 = 0;
        out.ratio = notANumber();
    }

    FK_DEVICE Pair inverseDC() const { return pair(inverseDCSignificand, inverseDCExponent); }

    /// PixelRun.addLoad; the variance counts each step's truncation itself (blaError, laError).
    FK_DEVICE void addLoad(double load) {
        double term;
        if (load < 0x1p-24) {
            term = load * kLocalScaleCap;
        } else {
            // PixelRun.localScale()
            double localScale;
            if (!(errorScale > 0)) {
                localScale = 0;
            } else {
                FExp mag = T::floatExp(T::complexMagnitude(dz.re, dz.im));
                long long k = 2 * mag.e + inverseDCExponent - errorScaleExponent;
                double sc = k > 1000 ? 0x1p1000 : (k < -1000 ? 0 : powerOfTwo(k));
                double v = mag.s * mag.s * inverseDCSignificand / errorScale * sc;
                localScale = kLocalScaleCap < v ? kLocalScaleCap : v;
            }
            term = (isFinite(load) ? load : 1) * localScale;
        }
        blaLoad += term;
    }

    /// PixelRun.takePlainStep.
    FK_DEVICE void plainStep(Cx<D> next) {
        const Cx<D> before = dz;
        dz = next;
        m += 1;
        n += 1;
        errorScale *= nextStretch;
        if (p->variance) {
            Pair v = plainStepError<D>(
                pair(errorScale, errorScaleExponent), pair(nextStretch, nextStretchExponent), before, inverseDC(),
                p->power);
            errorScale = v.m;
            errorScaleExponent = v.e;
        }
    }

    /// Whether the pixel has taken its iterations (then its record says so).
    FK_DEVICE bool atLimit() {
        if (n < p->maxIterations) return false;
        out.kind = FK_MAX_ITERATIONS;
        return true;
    }

    /// One step. LA: at an entry's start the exact step there, then the longest entry that
    /// holds (none: the plain step); elsewhere BLA may take the pixel at most to the next start.
    FK_DEVICE void advance() {
        const long long maxIterations = p->maxIterations;
        const bool variance = p->variance != 0;
        const long long chain = tab.la ? (long long)tab.chainAt[m] : -1;
        if (tab.la && chain >= 0) {
            // PerturbationKernel.linearStep
            const Cx<D> u = formulaStep(*p, multibrot, Zat(m), dz, cx(T::zero(), T::zero()));
            long long index = laLongest<D>(tab, chain, u, dcStep, maxIterations - n);
            if (index < 0) {
                plainStep(u + dcStep);
            } else {
                const LAStep<D> e = laStep<D>(tab.la[index]);
                double load = laLoad(e, u, dcStep) * tab.laLoadScale;
                if (!variance) addLoad(load);
                const Cx<D> before = dz;
                dz = e.zc * u + e.cc * dcStep;
                m += e.length;
                n += e.length;
                approximationSteps += 1;
                errorScale *= nextStretch * e.stretchSignificand;
                errorScaleExponent += e.stretchExponent;
                if (variance) {
                    errorScaleExponent += nextStretchExponent;
                    Pair v = laError<D>(
                        pair(errorScale, errorScaleExponent), e, before, u, load,
                        pair(nextStretch, nextStretchExponent), p->epsilon, inverseDC(), p->power);
                    errorScale = v.m;
                    errorScaleExponent = v.e;
                }
            }
        } else {
            const long long reach = tab.la ? -chain : 0x7fffffffffffffffLL;
            long long length = 0;
            long long index = longestStep<D>(tab, m, dz, reach, &length);
            if (index >= 0 && n + length <= maxIterations) {
                StepView<D> s = stepView<D>(tab.steps[index]);
                double load = T::leading(lengthSquared(dz) * s.inverseRadiusSquared);
                if (!variance) addLoad(load);
                const Cx<D> before = dz;
                dz = s.a * dz + s.b * dcStep;
                m += length;
                n += length;
                approximationSteps += 1;
                errorScale *= s.stretchSignificand;
                errorScaleExponent += s.stretchExponent;
                if (variance) {
                    Pair v = blaError<D>(
                        pair(errorScale, errorScaleExponent), s, length, before, load, p->epsilon, inverseDC());
                    errorScale = v.m;
                    errorScaleExponent = v.e;
                }
            } else {
                plainStep(formulaStep(*p, multibrot, Zat(m), dz, dcStep));
            }
        }
    }

    /// After a step: counts it, then `settleAt` with z = Z(m) + dz and |z|^2.
    FK_DEVICE bool settle() {
        steps += 1;
        const Cx<D> Z = Zat(m);
        const Cx<D> z = Z + dz;
        const double x = T::leading(z.re), y = T::leading(z.im);
        return settleAt(Z, z, x * x + y * y);
    }

    /// After a step (counted), with Z = Z(m), z = Z + dz and r2 = |z|^2 from their leading
    /// words: escape, the next stretch, the scale's range, then rebasing (PixelRun.rebase) or
    /// the Pauldelbrot test. True when the pixel ends here (its record set).
    FK_DEVICE bool settleAt(Cx<D> Z, Cx<D> z, double r2) {
        if (r2 > kRadiusSquared2) {
            if (n2 == 0) n2 = n;
            if (r2 > kRadiusSquaredBig) {
                out.kind = FK_ESCAPED;
                out.n = (unsigned int)n;
                out.r2 = r2;
                return true;
            }
        }
        nextStretch = stretchSquared(p->power, r2);
        if (p->variance) {
            if (r2 < 0x1p-900) {
                Pair t = tinyStretch(z, p->power);
                nextStretch = t.m;
                nextStretchExponent = t.e;
            } else {
                nextStretchExponent = 0;
            }
        }
        if (errorScale > 0x1p600) {
            errorScale *= 0x1p-600;
            errorScaleExponent += 600;
        } else if (errorScale < 0x1p-600) {
            errorScale *= 0x1p600;
            errorScaleExponent -= 600;
        }
        if (p->mode == FK_REBASE) {
            if (m == last || T::less(lengthSquared(z), lengthSquared(dz))) rebase(z);
        } else {
            const double zx = T::leading(Z.re), zy = T::leading(Z.im);
            const double big = zx * zx + zy * zy;
            if (r2 < p->tolerance * big) {
                out.kind = FK_BOUNDED;
                out.ratio = r2 / big;
                return true;
            }
            if (m == last && n < p->maxIterations) {
                if (!(r2 > kRadiusSquared2)) {
                    out.kind = FK_BOUNDED;
                    out.ratio = 0;
                    return true;
                }
                rebase(z);
            }
        }
        return false;
    }

    /// PixelRun.rebase: continue on the critical orbit (Z(0) = 0) from dz = z.
    FK_DEVICE void rebase(Cx<D> z) {
        dz = z;
        m = 0;
        orbit = (const Cx<D> *)p->rebaseOrbit;
        tab = table<D>(p->rebaseTable);
        last = p->rebaseCount - 1;
    }

    /// The record, complete.
    FK_DEVICE FKPixelOut record() {
        out.n2 = (unsigned int)n2;
        out.steps = steps;
        out.approximationSteps = approximationSteps;
        out.errorScale = errorScale;
        out.errorScaleExponent = errorScaleExponent;
        out.blaLoad = blaLoad;
        return out;
    }
};

template <class D> FK_DEVICE void perturbPixel(const FKPerturbParams &p, long long item, bool multibrot) {
    Pixel<D> pixel;
    pixel.start(p, item, multibrot);
    while (!pixel.atLimit()) {
        pixel.advance();
        if (pixel.settle()) break;
    }
    p.out[item - p.first] = pixel.record();
}

// MARK: Direct Double escape time (iterateEscape for Double, with the lanes' rounding check)

FK_DEVICE bool knownInterior(double x, double y) {
    double u = x - 0.25;
    double q = u * u + y * y;
    if (q * (q + u) < 0.25 * y * y - 1e-12) return true;
    double v = x + 1;
    return v * v + y * y < 0.0625 - 1e-12;
}

FK_DEVICE void directPixel(const FKDirectParams &p, long long i) {
    long long row = i / p.width, col = i - row * p.width;
    double pr = p.columns[col], pi = p.rows[row];
    double zr, zi, cr, ci;
    if (p.julia) {
        zr = pr; zi = pi; cr = p.juliaRe; ci = p.juliaIm;
    } else {
        zr = 0; zi = 0; cr = pr; ci = pi;
    }
    unsigned int n2 = 0, nBig = 0;
    double escapedR2 = 0;
    const bool quadratic = p.power == 2;
    // The rounding check (RoundingCheck in QuadraticLanes.swift), z^2 + c only.
    double e2 = zr * zr + zi * zi, unit = 1, cAbs = FK_SQRT(cr * cr + ci * ci);
    long long exponent = 0;
    long long n = 0;
    if (quadratic && !p.julia && knownInterior(cr, ci)) n = p.maxIterations;
    while (n < p.maxIterations) {
        if (quadratic) {
            double r2 = zr * zr + zi * zi;
            double added = r2 + cAbs;
            e2 = e2 * (4 * r2) + added * added * unit;
            double re = (zr + zi) * (zr - zi) + cr;
            double t = zr * zi;
            zi = (t + t) + ci;
            zr = re;
        } else {
            // z.power(p): z^2, then p - 2 schoolbook products.
            double sr = (zr + zi) * (zr - zi), t = zr * zi, si = t + t;
            for (int k = 2; k < p.power; k++) {
                double nr = sr * zr - si * zi;
                si = sr * zi + si * zr;
                sr = nr;
            }
            zr = sr + cr;
            zi = si + ci;
        }
        n += 1;
        if (e2 > 0x1p400) {
            e2 *= 0x1p-400;
            unit *= 0x1p-400;
            exponent += 400;
        }
        double r2 = zr * zr + zi * zi;
        if (r2 > kRadiusSquared2) {
            if (n2 == 0) n2 = (unsigned int)n;
            if (r2 > kRadiusSquaredBig) {
                nBig = (unsigned int)n;
                escapedR2 = r2;
                break;
            }
        }
    }
    FKDirectOut out;
    out.n2 = n2;
    out.nBig = nBig;
    out.r2 = escapedR2;
    out.e2 = e2;
    out.exponent = exponent;
    p.out[i - p.first] = out;
}

}  // namespace fathom

#ifdef __CUDACC__
extern "C" __global__ void fathom_perturb_double(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<double>(p, item, false);
}
extern "C" __global__ void fathom_perturb_double_multibrot(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<double>(p, item, true);
}
extern "C" __global__ void fathom_perturb_floatexp(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::FExp>(p, item, false);
}
extern "C" __global__ void fathom_perturb_floatexp_multibrot(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::FExp>(p, item, true);
}
extern "C" __global__ void fathom_perturb_doubledouble(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::DD>(p, item, false);
}
extern "C" __global__ void fathom_perturb_doubledouble_multibrot(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::DD>(p, item, true);
}
extern "C" __global__ void fathom_perturb_doubledoubleexp(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::DDX>(p, item, false);
}
extern "C" __global__ void fathom_perturb_doubledoubleexp_multibrot(FKPerturbParams p) {
    long long item = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (item < p.count) fathom::perturbPixel<fathom::DDX>(p, item, true);
}
extern "C" __global__ void fathom_direct_double(FKDirectParams p) {
    long long i = p.first + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.count) fathom::directPixel(p, i);
}
#endif
