// The perturbation kernel's lane form for the CPU: W pixels in flight per core in SIMD lanes
// (Documentation/Perturbation.md, "The lane form").
//
// Each lane holds one pixel (`Pixel<D>`, FathomKernels.h) at its own reference index, with
// deltas of any of the kernels' types (D = double, FExp, DD or DDX: a FloatExp lane is a vector
// of significands and one of exponents, its operations FExp's, so normalised as FloatExp.swift
// does; a double-double lane two vectors, a DoubleDoubleExp lane two and an exponent vector). A
// round gives every lane one step. In all lanes at once: the plain step of z^2 + c (also from an
// LA start whose chain has no entry that holds), an LA entry that holds (found by the scalar
// walk for a few lanes at a start, else by bisection in the lanes: `longest`), the error
// variance (both of its paths, FloatExp where |dz|^2 leaves 2^+-450), and a settle without
// escape or Pauldelbrot test (|z|^2 below 2^-900 included), with a rebase onto the orbit the
// lane is on. Every other step (a BLA step, a pixel rebased onto another orbit, an escape, the
// iteration limit, a FloatExp of a subnormal or infinite value) is the pixel's own scalar step
// through the same `Pixel` members the GPU and the emulation run. Each lane's operations are
// those of the scalar step in the same order, with selects for branches, and nothing is
// contracted into a multiply-add, so every pixel's record equals the scalar kernel's bit for bit
// at every width. A lane whose pixel ends takes the next item of the range.
//
// The widths (8, 4, 2) are compiled for AVX-512, AVX2 and the baseline by `target_clones`
// (clang emits a resolver that picks the build for this CPU at load time: no build flag), and
// `fg_lanes_widest` says which width the CPU runs natively.
#pragma STDC FP_CONTRACT OFF
#pragma clang diagnostic ignored "-Wpsabi"
#include "CFathomGPU.h"
#include "FathomKernels.h"
#include <type_traits>
#include <utility>

namespace {
using namespace fathom;

/// W lanes of doubles (`d`) and of 64-bit integers or masks (`i`: all ones where true).
template <int W> struct V {
    typedef double d __attribute__((vector_size(8 * W)));
    typedef long long i __attribute__((vector_size(8 * W)));
};
/// A FloatExp in every lane (FExp): significands and exponents.
template <int W> struct FV {
    typename V<W>::d s;
    typename V<W>::i e;
};
/// A double-double in every lane (DD): leading and trailing words.
template <int W> struct DV {
    typename V<W>::d hi, lo;
};
/// A DoubleDoubleExp in every lane (DDX): a double-double significand and an exponent.
template <int W> struct XV {
    typename V<W>::d hi, lo;
    typename V<W>::i e;
};

// Every member is inlined into the width's function, so all of it is compiled for the ISA its
// clone targets (a member called out of line would be compiled once, for the baseline).
#define FK_LANE inline __attribute__((always_inline))

/// W lanes of pixels with deltas of type D (double, FExp, DD or DDX).
template <int W, class D> struct Lanes {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    typedef FV<W> FE;
    typedef DV<W> DL;
    typedef XV<W> XL;
    /// Double deltas (one vector of doubles a delta).
    static constexpr bool isDouble = std::is_same<D, double>::value;
    /// FloatExp deltas.
    static constexpr bool hasExponent = std::is_same<D, FExp>::value;
    /// Double-double deltas (106 bits: the passes for pixels at risk).
    static constexpr bool isPair = std::is_same<D, DD>::value;
    /// DoubleDoubleExp deltas (106 bits past Double's range).
    static constexpr bool isPairExp = std::is_same<D, DDX>::value;
    /// Deltas with an exponent of their own (FloatExp, DoubleDoubleExp): |dz|^2 is always
    /// FloatExp's (no Double fast path) and their magnitudes compare in FloatExp.
    static constexpr bool extended = hasExponent || isPairExp;
    static_assert(isDouble || hasExponent || isPair || isPairExp, "a delta type of the kernels");
    /// A delta in every lane: a vector of doubles, of FloatExps, of double-doubles or of
    /// DoubleDoubleExps.
    typedef typename std::conditional<
        hasExponent, FE,
        typename std::conditional<isPair, DL, typename std::conditional<isPairExp, XL, vd>::type>::type>::type L;
    typedef Cx<D> C;
    typedef typename Delta<D>::LAEntry E;

    const FKPerturbParams *p;
    const C *orbit;
    long long last, level1;
    const int *chainAt;
    const D *radii;
    const E *la;
    Pixel<D> pixel[W];
    long long item[W];
    // The state of the pixels in the lanes that the plain step reads and writes (the rest
    // lives in `pixel` only, and the lanes copy it there before a scalar step).
    L dzr, dzi, dcr, dci;
    vd scale, stretch, inverseDC;
    /// Z(m) of each lane on the orbit (0 in the others).
    L Zr, Zi;
    vi m, n, n2, scaleExponent, stretchExponent, inverseDCExponent, steps, approximationSteps, live;
    /// Lanes whose pixel reads the pass's orbit and table (not rebased onto another).
    vi onOrbit;
    long long next, end;
    /// The pass's table (the one the lanes on the orbit read).
    Table<D> passTable;
    /// At most this many lanes at an LA start walk their chains one by one (more: `longest`),
    /// and at most this many lanes that take an entry load it lane by lane (more: gathered).
    static constexpr int kFewStarts = 3;
    /// Whether a rebase stays in the lanes: the pass's orbit and table are the critical orbit's.
    bool rebasesInLanes;
    /// Lanes where a FloatExp operation (the deltas', or a double-double's FloatExp |z|^2) met
    /// a value it does not normalise in lanes (subnormal, infinite or NaN): their step is
    /// redone scalar.
    mutable vi fault;

    /// (A member, not a constructor: clang emits no constructor for a target_clones caller.)
    FK_LANE void begin(const FKPerturbParams *params, long long first, long long stop) {
        p = params;
        next = first;
        end = stop;
        orbit = (const C *)p->orbit;
        last = p->orbitCount - 1;
        chainAt = p->table.la ? p->table.chainAt : nullptr;
        la = (const E *)p->table.la;
        radii = (const D *)p->table.radii;
        level1 = radii ? p->table.levelStarts[1] : 0;
        if (level1 <= 0) radii = nullptr;
        passTable = table<D>(p->table);
        fault = (vi){};
        const FKTable &t = p->table, &r = p->rebaseTable;
        rebasesInLanes = p->mode == FK_REBASE && p->rebaseOrbit == p->orbit && p->rebaseCount == p->orbitCount
            && t.steps == r.steps && t.radii == r.radii && t.levelStarts == r.levelStarts && t.levels == r.levels
            && t.la == r.la && t.chainAt == r.chainAt && t.laLoadScale == r.laLoadScale;
        for (int k = 0; k < W; k++) empty(k);
        for (int k = 0; k < W; k++) refill(k);
    }

    // MARK: Lanes of deltas (D's operations, FathomKernels.h, in every lane)

    /// Lane k of `v` set to x: a blend in registers (a store into one lane, read back as a
    /// whole vector, would stall the load on the store).
    template <class Vec, class S> static FK_LANE void set(Vec &v, int k, S x) {
        vi lane;
        for (int j = 0; j < W; j++) lane[j] = j;
        v = (lane == k) ? ((Vec){} + x) : v;
    }
    static FK_LANE void set(FE &v, int k, FExp x) {
        set(v.s, k, x.s);
        set(v.e, k, x.e);
    }
    static FK_LANE void set(DL &v, int k, DD x) {
        set(v.hi, k, x.hi);
        set(v.lo, k, x.lo);
    }
    static FK_LANE void set(XL &v, int k, DDX x) {
        set(v.hi, k, x.m.hi);
        set(v.lo, k, x.m.lo);
        set(v.e, k, x.e);
    }
    /// Lane k of a delta.
    static FK_LANE D element(L v, int k) {
        if constexpr (hasExponent) return raw(v.s[k], v.e[k]);
        else if constexpr (isPair) return dd(v.hi[k], v.lo[k]);
        else if constexpr (isPairExp) return ddx(dd(v.hi[k], v.lo[k]), v.e[k]);
        else return v[k];
    }
    /// x in every lane.
    static FK_LANE L splat(D x) {
        if constexpr (hasExponent) return FE{(vd){} + x.s, (vi){} + x.e};
        else if constexpr (isPair) return DL{(vd){} + x.hi, (vd){} + x.lo};
        else if constexpr (isPairExp) return XL{(vd){} + x.m.hi, (vd){} + x.m.lo, (vi){} + x.e};
        else return (vd){} + x;
    }
    /// D's zero in every lane.
    static FK_LANE L zero() { return splat(Delta<D>::zero()); }
    /// mask ? a : b, lane by lane.
    static FK_LANE L select(vi mask, L a, L b) {
        if constexpr (hasExponent) return FE{mask ? a.s : b.s, mask ? a.e : b.e};
        else if constexpr (isPair) return DL{mask ? a.hi : b.hi, mask ? a.lo : b.lo};
        else if constexpr (isPairExp) return XL{mask ? a.hi : b.hi, mask ? a.lo : b.lo, mask ? a.e : b.e};
        else return mask ? a : b;
    }
    /// FExp's + in every lane: the operand with the larger exponent, or normalize(big + small
    /// 2^-k).
    FK_LANE FE feAdd(FE a, FE b) const {
        const vi d = a.e - b.e, ge = d >= 0;
        const vi k = ge ? d : -d;
        const vi far = k > 64;
        const vd big = ge ? a.s : b.s, small = ge ? b.s : a.s;
        const vi e = ge ? a.e : b.e;
        vi rare = (vi){};
        const FE sum = normalize(big + small * powersOfTwo(far ? (vi){} : -k), e, rare);
        fault |= ~far & rare;
        return FE{far ? big : sum.s, far ? e : sum.e};
    }
    /// FExp's * in every lane.
    FK_LANE FE feMul(FE a, FE b) const {
        vi rare = (vi){};
        const FE r = normalize(a.s * b.s, a.e + b.e, rare);
        fault |= rare;
        return r;
    }
    /// fexp(d) in every lane.
    FK_LANE FE feOf(vd d) const {
        vi rare = (vi){};
        const FE r = normalize(d, (vi){}, rare);
        fault |= rare;
        return r;
    }
    // DD's operations (FathomKernels.h: TwoSum, FastTwoSum, Dekker's TwoProduct, DoubleWord's
    // add and multiply), in the same order.
    static FK_LANE DL twoSum(vd a, vd b) {
        const vd s = a + b, bb = s - a;
        return DL{s, (a - (s - bb)) + (b - bb)};
    }
    static FK_LANE DL fastTwoSum(vd a, vd b) {
        const vd s = a + b;
        return DL{s, b - (s - a)};
    }
    static FK_LANE DL twoProduct(vd a, vd b) {
        const vd p = a * b;
        const vd ca = 134217729.0 * a, ah = ca - (ca - a), al = a - ah;
        const vd cb = 134217729.0 * b, bh = cb - (cb - b), bl = b - bh;
        return DL{p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
    }
    /// DD's + (DoubleWord.add, algorithm 6).
    static FK_LANE DL ddAdd(DL a, DL b) {
        const DL s = twoSum(a.hi, b.hi), t = twoSum(a.lo, b.lo);
        const vd c = s.lo + t.hi;
        const DL v = fastTwoSum(s.hi, c);
        const vd w = t.lo + v.lo;
        return fastTwoSum(v.hi, w);
    }
    /// DD's * (DoubleWord.multiply, algorithm 11).
    static FK_LANE DL ddMul(DL a, DL b) {
        const DL c = twoProduct(a.hi, b.hi);
        const vd cl = (a.hi * b.lo + a.lo * b.hi) + c.lo;
        return fastTwoSum(c.hi, cl);
    }
    /// DD's <.
    static FK_LANE vi ddLess(vd ahi, vd alo, vd bhi, vd blo) {
        return (vi)(ahi < bhi) | ((vi)(ahi == bhi) & (vi)(alo < blo));
    }
    /// normalizeDD in every lane: zero as (0, kZeroExponent); a subnormal, infinite or NaN
    /// leading word marks the lane in `fault` (its value here is not normalizeDD's).
    FK_LANE XL normalizeX(DL m, vi e) const {
        const vi b = (vi)m.hi, biased = (b >> 52) & 0x7ff;
        const vi normal = (biased != 0) & (biased != 0x7ff);
        fault |= ~normal & ~(vi)(m.hi == 0);
        const vi k = biased - 1023;
        const vd scale = powersOfTwo(normal ? -k : (vi){});
        return XL{normal ? m.hi * scale : (vd){}, normal ? m.lo * scale : (vd){},
            normal ? e + k : (vi){} + kZeroExponent};
    }
    /// DDX's +: the operand with the larger exponent (110 and more above), or
    /// normalizeDD(big + small 2^-k).
    FK_LANE XL xAdd(XL a, XL b) const {
        const vi d = a.e - b.e, ge = d >= 0;
        const vi k = ge ? d : -d;
        const vi far = k > 110;
        const DL big = DL{ge ? a.hi : b.hi, ge ? a.lo : b.lo};
        const vd s = powersOfTwo(far ? (vi){} : -k);
        const DL small = DL{(ge ? b.hi : a.hi) * s, (ge ? b.lo : a.lo) * s};
        const vi e = ge ? a.e : b.e;
        const vi kept = fault;
        const XL sum = normalizeX(ddAdd(big, small), e);
        fault = kept | (~far & fault);
        return XL{far ? big.hi : sum.hi, far ? big.lo : sum.lo, far ? e : sum.e};
    }
    /// floatExpOf: FloatExp(significand: hi + lo, exponent: e).
    FK_LANE FE feOf(XL a) const {
        vi rare = (vi){};
        const FE r = normalize(a.hi + a.lo, a.e, rare);
        fault |= rare;
        return r;
    }
    /// a + b.
    FK_LANE L add(L a, L b) const {
        if constexpr (hasExponent) return feAdd(a, b);
        else if constexpr (isPair) return ddAdd(a, b);
        else if constexpr (isPairExp) return xAdd(a, b);
        else return a + b;
    }
    /// a * b.
    FK_LANE L mul(L a, L b) const {
        if constexpr (hasExponent) return feMul(a, b);
        else if constexpr (isPair) return ddMul(a, b);
        else if constexpr (isPairExp) return normalizeX(ddMul(DL{a.hi, a.lo}, DL{b.hi, b.lo}), a.e + b.e);
        else return a * b;
    }
    /// -a.
    static FK_LANE L negated(L a) {
        if constexpr (hasExponent) return FE{-a.s, a.e};
        else if constexpr (isPair) return DL{-a.hi, -a.lo};
        else if constexpr (isPairExp) return XL{-a.hi, -a.lo, a.e};
        else return -a;
    }
    /// a - b (FExp, DD, DDX: a + (-b)).
    FK_LANE L sub(L a, L b) const { return add(a, negated(b)); }
    /// Delta<D>::doubled: a + a.
    static FK_LANE L doubled(L a) {
        if constexpr (hasExponent) return FE{a.s, a.s == 0 ? a.e : a.e + 1};
        else if constexpr (isPair) return DL{a.hi + a.hi, a.lo + a.lo};
        else if constexpr (isPairExp) return XL{a.hi, a.lo, a.hi == 0 ? a.e : a.e + 1};
        else return a + a;
    }
    /// FExp's toDouble of s 2^e in every lane, with swiftScaled's steps.
    static FK_LANE vd toDouble(vd s, vi e) {
        const vi normal = (e >= -1022) & (e <= 1023), low = (e < -1022) & (e >= -1200);
        const vi high = (e > 1023) & (e <= 1100);
        const vi k = normal ? e : (low ? e + 1022 : (high ? e - 1023 : (vi){}));
        const vd first = low ? s * 0x1p-1022 : (high ? s * 0x1p1023 : s);
        const vd inRange = first * powersOfTwo(k);
        const vd outside = s * ((e > 1100) ? (vd){} + infinity() : (vd){});
        return (s == 0) ? (vd){} : ((normal | low | high) ? inRange : outside);
    }
    /// Delta<D>::leading: the delta as a Double (FExp's toDouble; a double-double's leading
    /// word; a DDX's leading word with its exponent, as FExp's toDouble).
    static FK_LANE vd leading(L a) {
        if constexpr (isPair) return a.hi;
        else if constexpr (hasExponent) return toDouble(a.s, a.e);
        else if constexpr (isPairExp) return toDouble(a.hi, a.e);
        else return a;
    }
    /// FExp's < in every lane.
    static FK_LANE vi feLess(FE a, FE b) {
        const vi aNeg = (vi)(a.s < 0), bNeg = (vi)(b.s < 0);
        const vi anyZero = (vi)(a.s == 0) | (vi)(b.s == 0);
        const vd aAbs = aNeg ? -a.s : a.s, bAbs = bNeg ? -b.s : b.s;
        const vi aLess = (a.e != b.e) ? (a.e < b.e) : (vi)(aAbs < bAbs);
        const vi bLess = (a.e != b.e) ? (b.e < a.e) : (vi)(bAbs < aAbs);
        const vi same = aNeg ? bLess : aLess;
        return (aNeg != bNeg) ? aNeg : (anyZero ? (vi)(a.s < b.s) : same);
    }
    /// Delta<D>::less, lane by lane.
    static FK_LANE vi less(L a, L b) {
        if constexpr (hasExponent) {
            return feLess(a, b);
        } else if constexpr (isPair) {
            return ddLess(a.hi, a.lo, b.hi, b.lo);
        } else if constexpr (isPairExp) {
            // DDX's <: by sign, then zeros by their leading words, then by exponent, then as DD.
            const vi aNeg = (vi)(a.hi < 0), bNeg = (vi)(b.hi < 0);
            const vi anyZero = (vi)(a.hi == 0) | (vi)(b.hi == 0);
            const vi byExponent = aNeg ? (a.e > b.e) : (a.e < b.e);
            const vi same = (a.e != b.e) ? byExponent : ddLess(a.hi, a.lo, b.hi, b.lo);
            return (aNeg != bNeg) ? aNeg : (anyZero ? (vi)(a.hi < b.hi) : same);
        } else {
            return (vi)(a < b);
        }
    }
    /// Complex.floatExpLengthSquared in FloatExp (FExp deltas: their own arithmetic; a
    /// double-double: each part as fexp(hi) + fexp(lo)). Double deltas use the lanes'
    /// `lengthSquared` below.
    FK_LANE FE floatExpLengthSquared(L re, L im) const {
        static_assert(!isDouble, "FloatExp or double-double deltas");
        if constexpr (isPair) {
            const FE x = feAdd(feOf(re.hi), feOf(re.lo)), y = feAdd(feOf(im.hi), feOf(im.lo));
            return feAdd(feMul(x, x), feMul(y, y));
        } else if constexpr (isPairExp) {
            const FE x = feOf(re), y = feOf(im);
            return feAdd(feMul(x, x), feMul(y, y));
        } else {
            return add(mul(re, re), mul(im, im));
        }
    }

    /// Gathers, built in registers from one load per lane (lanes written one by one through
    /// memory and read back as a vector would stall the read on the writes).
    typedef std::make_index_sequence<W> Lane;
    /// base[index] in every lane.
    template <class Vec, class T, size_t... K> static FK_LANE Vec gather(const T *base, vi index, std::index_sequence<K...>) {
        return (Vec){base[index[K]]...};
    }
    /// base[index].*field in every lane.
    template <class Vec, class S, class T, size_t... K>
    static FK_LANE Vec gather(const S *base, T S::*field, vi index, std::index_sequence<K...>) {
        return (Vec){base[index[K]].*field...};
    }
    /// The delta base[index].*field in every lane (F: D, or the ABI's layout of D).
    template <class S, class F, size_t... K>
    static FK_LANE L gatherDelta(const S *base, F S::*field, vi index, std::index_sequence<K...>) {
        if constexpr (hasExponent) return FE{(vd){(base[index[K]].*field).s...}, (vi){(base[index[K]].*field).e...}};
        else if constexpr (isPair) return DL{(vd){(base[index[K]].*field).hi...}, (vd){(base[index[K]].*field).lo...}};
        else if constexpr (isPairExp)
            return XL{(vd){(base[index[K]].*field).m.hi...}, (vd){(base[index[K]].*field).m.lo...},
                (vi){(base[index[K]].*field).e...}};
        else return gather<vd>(base, field, index, Lane());
    }
    /// The delta base[index] in every lane.
    template <size_t... K> static FK_LANE L gatherDelta(const D *base, vi index, std::index_sequence<K...>) {
        if constexpr (hasExponent) return FE{(vd){base[index[K]].s...}, (vi){base[index[K]].e...}};
        else if constexpr (isPair) return DL{(vd){base[index[K]].hi...}, (vd){base[index[K]].lo...}};
        else if constexpr (isPairExp)
            return XL{(vd){base[index[K]].m.hi...}, (vd){base[index[K]].m.lo...}, (vi){base[index[K]].e...}};
        else return gather<vd>(base, index, Lane());
    }

    // MARK: Pixels in and out of the lanes

    FK_LANE void load(int k) {
        const Pixel<D> &x = pixel[k];
        set(dzr, k, x.dz.re);
        set(dzi, k, x.dz.im);
        set(dcr, k, x.dcStep.re);
        set(dci, k, x.dcStep.im);
        set(scale, k, x.errorScale);
        set(stretch, k, x.nextStretch);
        set(inverseDC, k, x.inverseDCSignificand);
        set(m, k, x.m);
        set(n, k, x.n);
        set(n2, k, x.n2);
        set(scaleExponent, k, x.errorScaleExponent);
        set(stretchExponent, k, x.nextStretchExponent);
        set(inverseDCExponent, k, x.inverseDCExponent);
        set(steps, k, (long long)x.steps);
        set(approximationSteps, k, (long long)x.approximationSteps);
        set(onOrbit, k, x.orbit == orbit && x.last == last && x.tab.la == passTable.la && x.tab.chainAt == passTable.chainAt
                && x.tab.radii == passTable.radii
            ? -1LL
            : 0LL);
        const bool on = onOrbit[k] != 0;
        set(Zr, k, on ? orbit[x.m].re : Delta<D>::zero());
        set(Zi, k, on ? orbit[x.m].im : Delta<D>::zero());
    }
    FK_LANE void store(int k) {
        Pixel<D> &x = pixel[k];
        x.dz.re = element(dzr, k);
        x.dz.im = element(dzi, k);
        x.errorScale = scale[k];
        x.nextStretch = stretch[k];
        x.m = m[k];
        x.n = n[k];
        x.n2 = n2[k];
        x.errorScaleExponent = scaleExponent[k];
        x.nextStretchExponent = stretchExponent[k];
        x.steps = (unsigned int)steps[k];
        x.approximationSteps = (unsigned int)approximationSteps[k];
    }
    /// A lane without a pixel: values any lane step reads safely (m = 0 in the orbit).
    FK_LANE void empty(int k) {
        live[k] = 0;
        onOrbit[k] = 0;
        const D z = Delta<D>::zero();
        set(dzr, k, z);
        set(dzi, k, z);
        set(dcr, k, z);
        set(dci, k, z);
        set(Zr, k, z);
        set(Zi, k, z);
        scale[k] = stretch[k] = inverseDC[k] = 0;
        m[k] = n[k] = n2[k] = scaleExponent[k] = stretchExponent[k] = inverseDCExponent[k] = steps[k] = approximationSteps[k] = 0;
    }
    /// Lane k takes the range's next item, or empties.
    FK_LANE void refill(int k) {
        if (next >= end) {
            empty(k);
            return;
        }
        item[k] = next++;
        pixel[k].start(*p, item[k], false);
        load(k);
        live[k] = -1;
    }
    /// Lane k's pixel has ended: its record, then the next item.
    FK_LANE void retire(int k) {
        p->out[item[k] - p->first] = pixel[k].record();
        refill(k);
    }

    /// The lanes of a mask as bits (lane k: bit k), through a vector of bools (a mask register
    /// or a move of the sign bits, not a reduction).
    typedef bool vb __attribute__((ext_vector_type(W)));
    static FK_LANE unsigned bits(vi mask) {
        return __builtin_bit_cast(unsigned char, __builtin_convertvector(mask < 0, vb)) & ((1u << W) - 1);
    }

    // MARK: Magnitudes against radii (Delta<D>::magnitudeIsBelow)

    /// |re + i im| in every lane as Delta<D>::magnitudeIsBelow compares it with a radius,
    /// computed once for the comparisons with every radius a search reads. Double (and a
    /// double-double's leading words): |re + i im|^2, and the same scaled by 2^1200 for where it
    /// is below 2^-1000; FExp: re re + im im.
    struct Magnitude {
        typename std::conditional<extended, FE, vd>::type squared;
        vd scaled;
    };
    FK_LANE Magnitude magnitude(L re, L im) const {
        if constexpr (hasExponent) {
            return Magnitude{add(mul(re, re), mul(im, im)), (vd){}};
        } else if constexpr (isPairExp) {
            // Delta<DDX>::magnitudeIsBelow: FExp's, of floatExpOf of each.
            return Magnitude{floatExpLengthSquared(re, im), (vd){}};
        } else {
            const vd x = leading(re), y = leading(im);
            const vd a = x * 0x1p600, b = y * 0x1p600;
            return Magnitude{x * x + y * y, a * a + b * b};
        }
    }
    /// Delta<D>::magnitudeIsBelow in every lane: |re + i im| < r.
    FK_LANE vi isBelow(const Magnitude &g, L radius) const {
        if constexpr (hasExponent) {
            return less(g.squared, mul(radius, radius));
        } else if constexpr (isPairExp) {
            const FE r = feOf(radius);
            return feLess(g.squared, feMul(r, r));
        } else {
            const vd r = leading(radius), q = r * 0x1p600;
            return (vi)(g.squared >= 0x1p-1000) ? (vi)(g.squared < r * r) : (vi)(g.scaled < q * q);
        }
    }

    /// An LA entry's fields in the lanes that take one (zero in the others).
    struct LAFields {
        L zcr, zci, ccr, cci, it, idt;
        vd ss, ccs;
        vi se, cce, length;
        /// The entries `best` in the lanes of `mask`, one lane at a time.
        FK_LANE void loadEach(const E *la, vi mask, vi best) {
            zcr = zci = ccr = cci = it = idt = zero();
            ss = ccs = (vd){};
            se = cce = length = (vi){};
            for (unsigned b = bits(mask); b; b &= b - 1) {
                const int k = __builtin_ctz(b);
                const E &e = la[best[k]];
                set(zcr, k, fromABI(e.zcr));
                set(zci, k, fromABI(e.zci));
                set(ccr, k, fromABI(e.ccr));
                set(cci, k, fromABI(e.cci));
                set(it, k, fromABI(e.inverseThreshold));
                set(idt, k, fromABI(e.inverseDCThreshold));
                set(ss, k, e.stretchSignificand);
                set(ccs, k, e.ccSignificand);
                set(se, k, e.stretchExponent);
                set(cce, k, e.ccExponent);
                set(length, k, e.length);
            }
        }
        /// The entries `best` in the lanes of `mask`, gathered.
        FK_LANE void loadGathered(const E *la, vi mask, vi best) {
            const vi index = mask ? best : (vi){};
            const Lane lane;
            if constexpr (!isDouble) {
                const L z = zero();
                zcr = select(mask, gatherDelta(la, &E::zcr, index, lane), z);
                zci = select(mask, gatherDelta(la, &E::zci, index, lane), z);
                ccr = select(mask, gatherDelta(la, &E::ccr, index, lane), z);
                cci = select(mask, gatherDelta(la, &E::cci, index, lane), z);
                it = select(mask, gatherDelta(la, &E::inverseThreshold, index, lane), z);
                idt = select(mask, gatherDelta(la, &E::inverseDCThreshold, index, lane), z);
            } else {
                zcr = mask ? Lanes::gather<vd>(la, &E::zcr, index, lane) : (vd){};
                zci = mask ? Lanes::gather<vd>(la, &E::zci, index, lane) : (vd){};
                ccr = mask ? Lanes::gather<vd>(la, &E::ccr, index, lane) : (vd){};
                cci = mask ? Lanes::gather<vd>(la, &E::cci, index, lane) : (vd){};
                it = mask ? Lanes::gather<vd>(la, &E::inverseThreshold, index, lane) : (vd){};
                idt = mask ? Lanes::gather<vd>(la, &E::inverseDCThreshold, index, lane) : (vd){};
            }
            ss = mask ? Lanes::gather<vd>(la, &E::stretchSignificand, index, lane) : (vd){};
            ccs = mask ? Lanes::gather<vd>(la, &E::ccSignificand, index, lane) : (vd){};
            se = mask ? Lanes::gather<vi>(la, &E::stretchExponent, index, lane) : (vi){};
            cce = mask ? Lanes::gather<vi>(la, &E::ccExponent, index, lane) : (vi){};
            length = mask ? Lanes::gather<vi>(la, &E::length, index, lane) : (vi){};
        }
    };

    // MARK: The rounds

    FK_LANE void run() {
        const long long maxIterations = p->maxIterations;
        const bool variance = p->variance != 0, addsDC = p->addsDC != 0, rebaseMode = p->mode == FK_REBASE;
        const double laLoadScale = p->table.laLoadScale;
        // linearRounding's factor for the 53-bit deltas' LA entries: 2 + 4 * 0 + w^2 load.
        const double w = 2 * 2.0 * p->epsilon * powerOfTwo(Delta<D>::significandBits), ww = w * w;
        for (;;) {
            if constexpr (!isDouble) fault = (vi){};
            // The lanes that may step in the lanes: on the orbit the lanes read, below the limit.
            const vi on = live & onOrbit & (n < maxIterations);
            // Indices read only there (0 elsewhere: always in range).
            const vi at = on ? m : (vi){};
            // (2Z + dz) dz: the quadratic step before dc (quadraticStep), and u, the exact
            // step at an LA start (formulaStep with dc = 0, PerturbationKernel.linearStep).
            const L tr = add(doubled(Zr), dzr), ti = add(doubled(Zi), dzi);
            const L pr = sub(mul(tr, dzr), mul(ti, dzi)), pi = add(mul(tr, dzi), mul(ti, dzr));
            // u = p + 0: Double's + 0.0 turns -0 into +0; FExp's + zero gives p itself (a
            // normalised p's exponent is more than 64 above the zero's).
            L ur = pr, ui = pi;
            if constexpr (isDouble) {
                ur = addsDC ? pr + 0.0 : pr;
                ui = addsDC ? pi + 0.0 : pi;
            } else if constexpr (isPair) {
                // DD's + zero renormalises: the scalar step's u = p + 0 literally.
                if (addsDC) {
                    ur = add(pr, zero());
                    ui = add(pi, zero());
                }
            }
            // Which step each lane takes (Pixel.advance): the plain step, from u where an LA
            // start's chain has no entry that holds; an LA entry (with the variance); others
            // (a BLA step, an LA entry without the variance, a lane off the orbit) scalar.
            vi plain = on, fromU = (vi){}, viaLA = (vi){};
            // The LA entry each lane at a start takes (LAView.longest: the scalar walk per lane
            // for a few lanes, else the first entries' test and bisection in the lanes), and its
            // coefficients, laid out for the lanes.
            LAFields entry;
            if (chainAt) {
                const vi chain = gather<vi>(chainAt, at, Lane());
                const vi start = on & (chain >= 0);
                if (const unsigned b = bits(start)) {
                    // Few lanes at a start walk their chains one by one (a search in the lanes
                    // reads every lane). Many test their chains' first entries at once (about
                    // half fail there), then search together.
                    vi best = (vi){} - 1;
                    if (__builtin_popcount(b) <= kFewStarts) {
                        best = longestEach(b, chain, ur, ui);
                    } else {
                        const vi maxLength = maxIterations - n;
                        const bool shortOfLast = bits(start & (maxLength < last)) != 0;
                        const Magnitude u = magnitude(ur, ui), dc = magnitude(dcr, dci);
                        const vi first = start & holdsAt(start ? chain : (vi){}, u, dc, maxLength, shortOfLast);
                        if (bits(first)) best = longest(first, chain, u, dc, maxLength, shortOfLast);
                    }
                    const vi holds = best >= 0;
                    if (__builtin_popcount(bits(holds)) <= kFewStarts) entry.loadEach(la, holds, best);
                    else entry.loadGathered(la, holds, best);
                    fromU = start & ~holds;
                    plain &= ~start | fromU;
                    if (variance) viaLA = holds;
                }
            }
            if (radii) {
                const vi j = at - 1;
                const vi in = plain & ~fromU & (at >= 1) & (j < level1);
                L r;
                if constexpr (!isDouble) r = select(in, gatherDelta(radii, in ? j : (vi){}, Lane()), zero());
                else r = in ? gather<vd>(radii, in ? j : (vi){}, Lane()) : (vd){};
                plain &= ~(in & isBelow(magnitude(dzr, dzi), r));
            }
            // Lanes whose arithmetic leaves the lanes' cases (a FloatExp of a subnormal or
            // infinite value): their step is redone scalar.
            vi rare = (vi){};

            // The plain step (PixelRun.takePlainStep): z^2 + c's step, or u + dc.
            L nr, ni;
            if constexpr (isPair) {
                // u + dc from a start, else p + dc (Julia: p).
                nr = add(select(fromU, ur, pr), dcr);
                ni = add(select(fromU, ui, pi), dci);
                if (!addsDC) {
                    nr = select(fromU, nr, pr);
                    ni = select(fromU, ni, pi);
                }
            } else {
                nr = addsDC ? add(pr, dcr) : pr;
                ni = addsDC ? add(pi, dci) : pi;
                if constexpr (isDouble) {
                    nr = fromU ? ur + dcr : nr;
                    ni = fromU ? ui + dci : ni;
                }
            }
            // |dz|^2 in Double (a double-double's from its leading words: plainLengthSquared).
            vd before2 = (vd){};
            if constexpr (!extended) {
                const vd x = leading(dzr), y = leading(dzi);
                before2 = x * x + y * y;
            }
            vd es = scale * stretch;
            vi ese = scaleExponent;
            if (variance) {
                // PixelRun.plainStepError.
                vi we = ese + stretchExponent;
                vd rm;
                vi re, plainRare = (vi){};
                stepRounding(plain, dzr, dzi, before2, stretch, stretchExponent, rm, re, plainRare);
                addVariance(es, we, rm, re);
                addVariance(es, we, (vd){} + 1.0, (vi){});
                normalized(es, we, plainRare);
                ese = we;
                rare |= plain & plainRare;
            }

            // An LA entry (Pixel.advance's LA branch, with the variance).
            L lr = dzr, li = dzi;
            vd ls = scale;
            vi lse = scaleExponent, lm = m;
            if (bits(viaLA)) {
                const L zcr = entry.zcr, zci = entry.zci, ccr = entry.ccr, cci = entry.cci, it = entry.it;
                const L idt = entry.idt;
                const vd ss = entry.ss, ccs = entry.ccs;
                const vi se = entry.se, cce = entry.cce, length = entry.length;
                // LAEntry.load, scaled.
                const vd a = leading(mul(ur, it)), b = leading(mul(ui, it));
                const vd c = leading(mul(dcr, idt)), d = leading(mul(dci, idt));
                const vd load = (a * a + b * b + c * c + d * d) * 0.125 * laLoadScale;
                // dz = zc u + cc dc.
                lr = add(sub(mul(zcr, ur), mul(zci, ui)), sub(mul(ccr, dcr), mul(cci, dci)));
                li = add(add(mul(zcr, ui), mul(zci, ur)), add(mul(ccr, dci), mul(cci, dcr)));
                lm = m + length;
                ls = scale * (stretch * ss);
                lse = scaleExponent + se + stretchExponent;
                // PixelRun.laError.
                vd rm;
                vi re;
                vi laRare = (vi){};
                stepRounding(viaLA, dzr, dzi, before2, stretch, stretchExponent, rm, re, laRare);
                addVariance(ls, lse, rm * ss, re + se);
                addVariance(ls, lse, ss, se);
                FE u2;
                if constexpr (!isDouble) u2 = floatExpLengthSquared(ur, ui);
                else u2 = lengthSquared(ur, ui, laRare);
                // linearRounding(|zc|^2 |u|^2 / |dc|^2 + |cc|^2, k = 2 + 4 length + w^2 load;
                // the length term only for deltas whose entries were built in their own type).
                const vd wLoad = ww * ((vi)(load - load == 0) ? load : 1.0);
                vd k;
                if constexpr (Delta<D>::ownWide) k = (2.0 + 4.0 * __builtin_convertvector(length, vd)) + wLoad;
                else k = 2.0 + wLoad;
                vd tm = ss * u2.s * inverseDC;
                vi te = se + u2.e + inverseDCExponent;
                pairSum(tm, te, ccs * ccs, 2 * cce);
                addVariance(ls, lse, tm * k, te);
                normalized(ls, lse, laRare);
                rare |= viaLA & laRare;
            }
            if constexpr (!isDouble) rare |= fault;

            const vi vector = (plain | viaLA) & ~rare;
            // The others, one scalar step each.
            for (unsigned b = bits(live & ~vector); b; b &= b - 1) {
                const int k = __builtin_ctz(b);
                store(k);
                Pixel<D> &x = pixel[k];
                if (x.atLimit()) {
                    retire(k);
                    continue;
                }
                x.advance();
                if (x.settle()) retire(k);
                else load(k);
            }
            if (bits(vector) == 0) {
                if (bits(live) == 0) return;
                continue;
            }
            const vi stepped = vector & plain, linear = vector & viaLA;
            dzr = select(stepped, nr, select(linear, lr, dzr));
            dzi = select(stepped, ni, select(linear, li, dzi));
            scale = stepped ? es : (linear ? ls : scale);
            scaleExponent = stepped ? ese : (linear ? lse : scaleExponent);
            const vi advanced = stepped ? m + 1 : (linear ? lm : m);
            n = vector ? n + (advanced - m) : n;
            m = advanced;
            steps = vector ? steps + 1 : steps;
            approximationSteps = linear ? approximationSteps + 1 : approximationSteps;
            // Settle (Pixel.settleAt): the lanes that neither escape nor meet the Pauldelbrot
            // test, and rebase only onto the orbit they are on (|z|^2 below 2^-900 too); the others
            // through the scalar settle.
            if constexpr (!isDouble) fault = (vi){};
            const vi to = vector ? m : (vi){};
            if constexpr (!isDouble) {
                Zr = select(vector, gatherDelta(orbit, &C::re, to, Lane()), Zr);
                Zi = select(vector, gatherDelta(orbit, &C::im, to, Lane()), Zi);
            } else {
                Zr = vector ? gather<vd>(orbit, &C::re, to, Lane()) : Zr;
                Zi = vector ? gather<vd>(orbit, &C::im, to, Lane()) : Zi;
            }
            const L zr = add(Zr, dzr), zi = add(Zi, dzi);
            const vd xr = leading(zr), xi = leading(zi);
            const vd r2 = xr * xr + xi * xi;
            vi special = (vi)(r2 > kRadiusSquaredBig), rebase = (vi){};
            // |z|^2 below 2^-900 (with the variance): the next stretch keeps its own exponent
            // (tinyStretch for z^2 + c: fexp(4) times |z|^2 in FloatExp, that is (s, e + 2),
            // and (0, 0) for zero). A Double part that is subnormal goes scalar.
            vi tiny = (vi){}, tinyExponent = (vi){};
            vd tinyStretch = (vd){};
            if (variance) {
                tiny = vector & (vi)(r2 < 0x1p-900);
                if (bits(tiny)) {
                    FE m2;
                    if constexpr (!isDouble) {
                        m2 = floatExpLengthSquared(zr, zi);
                    } else {
                        vi tinyRare = (vi){};
                        m2 = lengthSquared(zr, zi, tinyRare);
                        special |= tiny & tinyRare;
                    }
                    tinyStretch = m2.s;
                    tinyExponent = (vi)(m2.s == 0) ? (vi){} : m2.e + 2;
                }
            }
            if (rebaseMode) {
                // T::less(|z|^2, |dz|^2) (for Double, |z|^2 is r2).
                vi below;
                if constexpr (!isDouble) below = less(add(mul(zr, zr), mul(zi, zi)), add(mul(dzr, dzr), mul(dzi, dzi)));
                else below = (vi)(r2 < dzr * dzr + dzi * dzi);
                rebase = (m == last) | below;
                if (!rebasesInLanes) special |= rebase;
            } else {
                const vd Xr = leading(Zr), Xi = leading(Zi);
                special |= (m == last) | (vi)(r2 < p->tolerance * (Xr * Xr + Xi * Xi));
            }
            if constexpr (!isDouble) special |= fault;
            special &= vector;
            const vi settled = vector & ~special;
            n2 = (settled & (vi)(r2 > kRadiusSquared2) & (n2 == 0)) ? n : n2;
            stretch = settled ? (tiny ? tinyStretch : 4 * r2) : stretch;
            if (variance) stretchExponent = settled ? (tiny ? tinyExponent : (vi){}) : stretchExponent;
            const vi high = settled & (vi)(scale > 0x1p600), low = settled & ~high & (vi)(scale < 0x1p-600);
            scale = high ? scale * 0x1p-600 : (low ? scale * 0x1p600 : scale);
            scaleExponent = high ? scaleExponent + 600 : (low ? scaleExponent - 600 : scaleExponent);
            // Pixel.rebase onto the same orbit: dz = z at m = 0.
            rebase &= settled;
            if (bits(rebase)) {
                dzr = select(rebase, zr, dzr);
                dzi = select(rebase, zi, dzi);
                m = rebase ? (vi){} : m;
                Zr = select(rebase, splat(orbit[0].re), Zr);
                Zi = select(rebase, splat(orbit[0].im), Zi);
            }
            for (unsigned b = bits(special); b; b &= b - 1) {
                const int k = __builtin_ctz(b);
                store(k);
                const C Z = cx(element(Zr, k), element(Zi, k));
                bool ends;
                if constexpr (extended) {
                    // z and |z|^2 again, scalar (a lane that faulted has none in the lanes).
                    const C z = Z + pixel[k].dz;
                    const double x = Delta<D>::leading(z.re), y = Delta<D>::leading(z.im);
                    ends = pixel[k].settleAt(Z, z, x * x + y * y);
                } else {
                    ends = pixel[k].settleAt(Z, cx(element(zr, k), element(zi, k)), r2[k]);
                }
                if (ends) retire(k);
                else load(k);
            }
        }
    }

    /// LAView.longest (`laLongest`), the scalar kernel's own walk, for the lanes in `b`.
    FK_LANE vi longestEach(unsigned b, vi chain, L ur, L ui) const {
        vi best = (vi){} - 1;
        for (; b; b &= b - 1) {
            const int k = __builtin_ctz(b);
            set(best, k,
                laLongest<D>(passTable, chain[k], cx(element(ur, k), element(ui, k)), cx(element(dcr, k), element(dci, k)),
                    p->maxIterations - n[k]));
        }
        return best;
    }
    /// Whether entry `at` holds for u and dc within `maxLength` iterations, in every lane
    /// (LAView.longest's test). An entry ends on the orbit, so it is no longer than `last`:
    /// unless `shortOfLast` (a lane has fewer iterations left), the lengths are not read.
    FK_LANE vi holdsAt(vi at, const Magnitude &u, const Magnitude &dc, vi maxLength, bool shortOfLast) const {
        const L threshold = gatherDelta(la, &E::threshold, at, Lane());
        const L dcThreshold = gatherDelta(la, &E::dcThreshold, at, Lane());
        const vi length = shortOfLast ? gather<vi>(la, &E::length, at, Lane()) : (vi){};
        return (length <= maxLength) & isBelow(u, threshold) & isBelow(dc, dcThreshold);
    }
    /// LAView.longest (`laLongest`) in the lanes of `mask`, whose chains' first entries hold:
    /// the last entry of the chain's run that holds. Along a chain the thresholds only shrink
    /// and the lengths only grow (LATable.swift), so the entries that hold are a prefix of the
    /// chain and the last of them is found by bisection, all lanes together: the walk's entry.
    FK_LANE vi longest(vi mask, vi chain, const Magnitude &u, const Magnitude &dc, vi maxLength, bool shortOfLast) const {
        // Entries up to `low` hold; `high` does not (or is the chain's end).
        vi low = mask ? chain : (vi){};
        vi high = gather<vi>(la, &E::chainEnd, low, Lane());
        for (vi open = mask & (high - low > 1); bits(open); open &= high - low > 1) {
            const vi at = open ? (low + high) >> 1 : (vi){};
            const vi holds = holdsAt(at, u, dc, maxLength, shortOfLast);
            low = (open & holds) ? at : low;
            high = (open & ~holds) ? at : high;
        }
        return mask ? low : (vi){} - 1;
    }

    // MARK: The error variance's arithmetic (PixelRun's helpers) in every lane

    /// 2^k in every lane, for -1022 <= k <= 1023 (powerOfTwo).
    static FK_LANE vd powersOfTwo(vi k) { return (vd)((k + 1023) << 52); }

    /// `normalize(m, e)` in every lane: zero as (0, kZeroExponent); a subnormal, infinite or
    /// NaN m marks its lane in `rare` (its value here is not normalize's).
    static FK_LANE FE normalize(vd m, vi e, vi &rare) {
        const vi b = (vi)m, biased = (b >> 52) & 0x7ff;
        const vi normal = (biased != 0) & (biased != 0x7ff);
        const vi zero = (vi)(m == 0);
        rare |= ~normal & ~zero;
        const vi sig = (b & (long long)0x800fffffffffffffULL) | 0x3ff0000000000000LL;
        return FE{normal ? (vd)sig : (vd){}, normal ? e + biased - 1023 : (vi){} + kZeroExponent};
    }
    /// Complex.floatExpLengthSquared of Double deltas in every lane, without FloatExp's steps:
    /// both parts scaled by the power of two that brings the larger into [1, 2), squared and
    /// summed in Double, the exponent put back. Its value is FloatExp's: scaling by a power of
    /// two changes no rounding while nothing is subnormal, a square below 2^-66 of the other
    /// (all that may be subnormal here) moves neither sum, and FloatExp drops an addend 2^64
    /// below the other. A larger part that is zero gives (0, kZeroExponent); subnormal,
    /// infinite or NaN, its lane is marked in `rare`.
    static FK_LANE FE lengthSquared(vd re, vd im, vi &rare) {
        const vi magnitude = (vi){} + (long long)0x7fffffffffffffffULL;
        const vi a = (vi)re & magnitude, b = (vi)im & magnitude;
        const vi larger = a > b ? a : b;
        const vi biased = larger >> 52;
        const vi zero = larger == 0;
        rare |= ~zero & ((biased == 0) | (biased >= 2046));
        // 2^(1023 - biased): the larger part times it lies in [1, 2).
        const vd scale = powersOfTwo(1023 - biased);
        const vd x = re * scale, y = im * scale;
        vi ignored = (vi){};
        const FE v = normalize(x * x + y * y, biased * 2 - 2046, ignored);
        return FE{zero ? (vd){} : v.s, zero ? (vi){} + kZeroExponent : v.e};
    }
    /// PixelRun.pairSum in every lane: (am, ae) += (bm, be).
    static FK_LANE void pairSum(vd &am, vi &ae, vd bm, vi be) {
        const vi aZero = (vi)(am == 0), bZero = (vi)(bm == 0);
        const vi k = ae - be, ge = k >= 0;
        const vi far = ge ? (k > 60) : (k < -60);
        const vi j = far ? (vi){} : (ge ? -k : k);
        const vd big = ge ? am : bm, small = ge ? bm : am;
        const vi e = ge ? ae : be;
        const vd sum = far ? big : big + small * powersOfTwo(j);
        const vd m = aZero ? bm : (bZero ? am : sum);
        ae = aZero ? be : (bZero ? ae : e);
        am = m;
    }
    /// PixelRun.stepRounding for z^2 + c in every lane: Double deltas from |before|^2 (`s`)
    /// where it lies in 2^+-450 and the next stretch's exponent is 0, else in FloatExp
    /// (computed only where a lane of `mask` needs it); FloatExp deltas always in FloatExp.
    FK_LANE void stepRounding(vi mask, L br, L bi, vd s, vd nm, vi ne, vd &rm, vi &re, vi &rare) const {
        const vd p2 = 4.0 * inverseDC;
        vi fastPath = (vi){};
        if constexpr (!extended) {
            fastPath = (vi)(s >= 0x1p-450) & (vi)(s <= 0x1p450) & (ne == 0);
            rm = (nm + s) * s * p2;
            re = inverseDCExponent;
            if (bits(~fastPath & mask) == 0) return;
        }
        vi slowRare = (vi){};
        FE d;
        if constexpr (extended) {
            d = floatExpLengthSquared(br, bi);
        } else if constexpr (isPair) {
            // Only the lanes off the fast path keep what faults here.
            const vi kept = fault;
            d = floatExpLengthSquared(br, bi);
            fault = kept | (~fastPath & fault);
        } else {
            d = lengthSquared(br, bi, slowRare);
        }
        const FE f = normalize(nm, ne, slowRare);
        vd sm = f.s;
        vi se = f.e;
        pairSum(sm, se, d.s, d.e);
        if constexpr (extended) {
            rm = sm * d.s * p2;
            re = se + d.e + inverseDCExponent;
            rare |= slowRare;
        } else {
            rm = fastPath ? rm : sm * d.s * p2;
            re = fastPath ? re : se + d.e + inverseDCExponent;
            rare |= ~fastPath & slowRare;
        }
    }
    /// PixelRun.normalized in every lane: zero as (0, 0); others as `normalize`.
    static FK_LANE void normalized(vd &m, vi &e, vi &rare) {
        const vi zero = (vi)(m == 0);
        const FE f = normalize(m, e, rare);
        m = f.s;
        e = zero ? (vi){} : f.e;
    }

    /// PixelRun.addVariance in every lane: v += m 2^e.
    static FK_LANE void addVariance(vd &vm, vi &ve, vd mm, vi e) {
        const vi zero = (vi)(vm == 0);
        const vi j = e - ve;
        const vi take = zero | (j > 900);
        const vi add = ~take & (j >= -900);
        const vi jc = add ? j : (vi){};
        const vd sum = vm + mm * powersOfTwo(jc);
        vm = take ? mm : (add ? sum : vm);
        ve = take ? e : ve;
    }
};

template <int W, class D> FK_LANE void runLanes(const FKPerturbParams *p, long long begin, long long end) {
    Lanes<W, D> lanes;
    lanes.begin(p, begin, end);
    lanes.run();
}

#if defined(__x86_64__) && defined(__clang__)
#define FK_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FK_CLONES
#endif

// One entry point a width and delta type, each cloned for the instruction sets (`target_clones`
// takes functions, not templates).
#define FK_LANE_WIDTHS(name, D)                                                                                  \
    FK_CLONES void name##8(const FKPerturbParams *p, long long begin, long long end) { runLanes<8, D>(p, begin, end); } \
    FK_CLONES void name##4(const FKPerturbParams *p, long long begin, long long end) { runLanes<4, D>(p, begin, end); } \
    FK_CLONES void name##2(const FKPerturbParams *p, long long begin, long long end) { runLanes<2, D>(p, begin, end); }
FK_LANE_WIDTHS(lanes, double)
FK_LANE_WIDTHS(floatExpLanes, FExp)
FK_LANE_WIDTHS(pairLanes, DD)
FK_LANE_WIDTHS(pairExpLanes, DDX)
}  // namespace

extern "C" int fg_lanes_widest(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 8;
    if (__builtin_cpu_supports("avx2")) return 4;
#endif
    return 2;
}

extern "C" int fg_lanes_perturb(const FKPerturbParams *params, int delta, int width, long long begin, long long end) {
    if (params->stream.keys != 0 || params->power != 2 || params->orbit == 0) return 0;
    typedef void (*Run)(const FKPerturbParams *, long long, long long);
    // By delta (FK_DELTA_DOUBLE, FK_DELTA_FLOATEXP, FK_DELTA_DOUBLEDOUBLE,
    // FK_DELTA_DOUBLEDOUBLEEXP), then width 2, 4, 8.
    static const Run runs[4][3] = {{lanes2, lanes4, lanes8}, {floatExpLanes2, floatExpLanes4, floatExpLanes8},
                                   {pairLanes2, pairLanes4, pairLanes8}, {pairExpLanes2, pairExpLanes4, pairExpLanes8}};
    const int lane = width == 2 ? 0 : width == 4 ? 1 : width == 8 ? 2 : -1;
    if (delta < 0 || delta > 3 || lane < 0) return 0;
    runs[delta][lane](params, begin, end);
    return 1;
}
