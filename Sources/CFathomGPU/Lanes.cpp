// The perturbation kernel's lane form for the CPU: W pixels in flight per core in SIMD lanes
// (Documentation/Perturbation.md, "The lane form").
//
// Each lane holds one pixel (`Pixel<double>`, FathomKernels.h). A round gives every lane one
// step. The common step, a plain step of z^2 + c with the error variance's fast path and a
// settle without escape, rebase or Pauldelbrot test, runs in all its lanes at once; every
// other step (an LA entry or a BLA step, a variance outside the fast path, a rebased pixel, an
// escape, a rebase, the iteration limit) is the pixel's own scalar step through the same
// `Pixel` members the GPU and the emulation run. Each lane's operations are those of the scalar
// step in the same order, and nothing is contracted into a multiply-add, so every pixel's
// record equals the scalar kernel's bit for bit at every width. A lane whose pixel ends takes
// the next item of the range.
//
// The widths (8, 4, 2) are compiled for AVX-512, AVX2 and the baseline by `target_clones`
// (clang emits a resolver that picks the build for this CPU at load time: no build flag), and
// `fg_lanes_widest` says which width the CPU runs natively.
#pragma STDC FP_CONTRACT OFF
#pragma clang diagnostic ignored "-Wpsabi"
#include "CFathomGPU.h"
#include "FathomKernels.h"

namespace {
using namespace fathom;

/// W lanes of doubles (`d`) and of 64-bit integers or masks (`i`: all ones where true).
template <int W> struct V {
    typedef double d __attribute__((vector_size(8 * W)));
    typedef long long i __attribute__((vector_size(8 * W)));
};

// Every member is inlined into the width's function, so all of it is compiled for the ISA its
// clone targets (a member called out of line would be compiled once, for the baseline).
#define FK_LANE inline __attribute__((always_inline))

template <int W> struct Lanes {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    typedef Cx<double> C;

    const FKPerturbParams *p;
    const C *orbit;
    long long last, level1;
    const int *chainAt;
    const double *radii;
    const FKLAEntryDouble *la;
    Pixel<double> pixel[W];
    long long item[W];
    // The state of the pixels in the lanes that the plain step reads and writes (the rest
    // lives in `pixel` only, and the lanes copy it there before a scalar step).
    vd dzr, dzi, dcr, dci, scale, stretch, inverseDC;
    /// Z(m) of each lane on the orbit (0 in the others).
    vd Zr, Zi;
    vi m, n, n2, scaleExponent, stretchExponent, inverseDCExponent, steps, live;
    /// Lanes whose pixel reads the pass's orbit and table (not rebased onto another).
    vi onOrbit;
    long long next, end;

    /// (A member, not a constructor: clang emits no constructor for a target_clones caller.)
    FK_LANE void begin(const FKPerturbParams *params, long long first, long long stop) {
        p = params;
        next = first;
        end = stop;
        orbit = (const C *)p->orbit;
        last = p->orbitCount - 1;
        chainAt = p->table.la ? p->table.chainAt : nullptr;
        la = (const FKLAEntryDouble *)p->table.la;
        radii = (const double *)p->table.radii;
        level1 = radii ? p->table.levelStarts[1] : 0;
        if (level1 <= 0) radii = nullptr;
        for (int k = 0; k < W; k++) empty(k);
        for (int k = 0; k < W; k++) refill(k);
    }

    /// Lane k of `v` set to x: a blend in registers (a store into one lane, read back as a
    /// whole vector, would stall the load on the store).
    template <class Vec, class S> static FK_LANE void set(Vec &v, int k, S x) {
        vi lane;
        for (int j = 0; j < W; j++) lane[j] = j;
        v = (lane == k) ? ((Vec){} + x) : v;
    }
    FK_LANE void load(int k) {
        const Pixel<double> &x = pixel[k];
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
        set(onOrbit, k, x.orbit == orbit && x.last == last && x.tab.la == p->table.la && x.tab.chainAt == p->table.chainAt
                && x.tab.radii == p->table.radii
            ? -1LL
            : 0LL);
        const bool on = onOrbit[k] != 0;
        set(Zr, k, on ? orbit[x.m].re : 0.0);
        set(Zi, k, on ? orbit[x.m].im : 0.0);
    }
    FK_LANE void store(int k) {
        Pixel<double> &x = pixel[k];
        x.dz.re = dzr[k];
        x.dz.im = dzi[k];
        x.errorScale = scale[k];
        x.nextStretch = stretch[k];
        x.m = m[k];
        x.n = n[k];
        x.n2 = n2[k];
        x.errorScaleExponent = scaleExponent[k];
        x.nextStretchExponent = stretchExponent[k];
        x.steps = (unsigned int)steps[k];
    }
    /// A lane without a pixel: values any lane step reads safely (m = 0 in the orbit).
    FK_LANE void empty(int k) {
        live[k] = 0;
        onOrbit[k] = 0;
        dzr[k] = dzi[k] = dcr[k] = dci[k] = scale[k] = stretch[k] = inverseDC[k] = Zr[k] = Zi[k] = 0;
        m[k] = n[k] = n2[k] = scaleExponent[k] = stretchExponent[k] = inverseDCExponent[k] = steps[k] = 0;
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

    static FK_LANE unsigned bits(vi mask) {
        vi weight;
        for (int k = 0; k < W; k++) weight[k] = 1LL << k;
        return (unsigned)__builtin_reduce_or(mask & weight);
    }

    FK_LANE void run() {
        const long long maxIterations = p->maxIterations;
        const bool variance = p->variance != 0, addsDC = p->addsDC != 0, rebaseMode = p->mode == FK_REBASE;
        const C *const orbit0 = orbit;
        for (;;) {
            // Which lanes take the lanes' plain step: those on the orbit the lanes read, not at
            // the limit, with |dz|^2 in the variance's fast range (PixelRun.stepRounding), and
            // either between LA starts with no BLA step holding (BLAView.longestStep's first
            // test) or at an LA start whose chain's first entry does not hold
            // (LAView.longest), where the plain step goes on from the exact step u.
            const vd s = dzr * dzr + dzi * dzi;
            // Indices read only in lanes on the orbit (0 elsewhere: always in range).
            const vi at = (live & onOrbit) ? m : (vi){};
            // (2Z + dz) dz (quadraticStep before dc).
            const vd tr = (Zr + Zr) + dzr, ti = (Zi + Zi) + dzi;
            const vd pr = tr * dzr - ti * dzi, pi = tr * dzi + ti * dzr;
            vi fast = live & onOrbit & (n < maxIterations) & (vi)(s >= 0x1p-450) & (vi)(s <= 0x1p450);
            if (variance) fast &= stretchExponent == 0;
            vi start = (vi){}, fromU = (vi){};
            vd ur = pr, ui = pi;
            if (chainAt) {
                vi chain;
                for (int k = 0; k < W; k++) chain[k] = chainAt[at[k]];
                start = chain >= 0;
                // u: formulaStep with dc = 0 (PerturbationKernel.linearStep).
                if (addsDC) {
                    ur = pr + 0.0;
                    ui = pi + 0.0;
                }
                // The first entry's bounds in the lanes at a start (0 elsewhere, unread).
                vi length = (vi){};
                vd threshold = (vd){}, dcThreshold = (vd){};
                for (unsigned b = bits(fast & start); b; b &= b - 1) {
                    const int k = __builtin_ctz(b);
                    const FKLAEntryDouble &e = la[chain[k]];
                    set(length, k, e.length);
                    set(threshold, k, e.threshold);
                    set(dcThreshold, k, e.dcThreshold);
                }
                const vi holds = (length <= maxIterations - n) & magnitudeIsBelow(ur, ui, threshold)
                    & magnitudeIsBelow(dcr, dci, dcThreshold);
                fromU = fast & start & ~holds;
                fast &= ~start | fromU;
            }
            if (radii) {
                const vi j = at - 1;
                const vi in = (at >= 1) & (j < level1) & ~start;
                vd r;
                for (int k = 0; k < W; k++) r[k] = radii[in[k] ? j[k] : 0];
                fast &= ~(in & (vi)(s < r * r));
            }
            // The others, one scalar step each.
            for (unsigned b = bits(live & ~fast); b; b &= b - 1) {
                const int k = __builtin_ctz(b);
                store(k);
                Pixel<double> &x = pixel[k];
                if (x.atLimit()) {
                    retire(k);
                    continue;
                }
                x.advance();
                if (x.settle()) retire(k);
                else load(k);
            }
            const unsigned fastBits = bits(fast);
            if (fastBits == 0) {
                if (bits(live) == 0) return;
                continue;
            }
            // The plain step (PixelRun.takePlainStep) in the fast lanes: z^2 + c's step, or u + dc.
            vd nr = pr, ni = pi;
            if (addsDC) {
                nr = pr + dcr;
                ni = pi + dci;
            }
            nr = fromU ? ur + dcr : nr;
            ni = fromU ? ui + dci : ni;
            vd es = scale * stretch;
            vi ese = scaleExponent;
            if (variance) {
                // plainStepError's fast path: w = v (next's exponent 0), the step's rounding
                // ((next + s) s p^2 / |dc|^2), then 1, then normalized.
                vd wm = es;
                vi we = ese;
                const vd rm = (stretch + s) * s * (4.0 * inverseDC);
                const vi re = inverseDCExponent;
                addVariance(wm, we, rm, re);
                addVariance(wm, we, (vd){} + 1.0, (vi){});
                // normalized
                const vi b = (vi)wm, biased = (b >> 52) & 0x7ff;
                const vi normal = (biased != 0) & (biased != 0x7ff);
                const vi zero = (vi)(wm == 0);
                const vi sig = (b & (long long)0x800fffffffffffffULL) | 0x3ff0000000000000LL;
                es = normal ? (vd)sig : wm;
                ese = normal ? we + biased - 1023 : (zero ? (vi){} : we);
                for (unsigned r = bits(fast & ~normal & ~zero); r; r &= r - 1) {
                    const int k = __builtin_ctz(r);
                    const Pair q = normalized(pair(wm[k], we[k]));
                    es[k] = q.m;
                    ese[k] = q.e;
                }
            }
            dzr = fast ? nr : dzr;
            dzi = fast ? ni : dzi;
            scale = fast ? es : scale;
            scaleExponent = fast ? ese : scaleExponent;
            m = fast ? m + 1 : m;
            n = fast ? n + 1 : n;
            steps = fast ? steps + 1 : steps;
            // Settle (Pixel.settleAt): the lanes that neither escape nor rebase nor meet the
            // Pauldelbrot test nor fall below 2^-900; the others through the scalar settle.
            const vi to = fast ? m : (vi){};
            vd Yr, Yi;
            for (int k = 0; k < W; k++) {
                Yr[k] = orbit0[to[k]].re;
                Yi[k] = orbit0[to[k]].im;
            }
            Zr = fast ? Yr : Zr;
            Zi = fast ? Yi : Zi;
            const vd zr = Zr + dzr, zi = Zi + dzi;
            const vd r2 = zr * zr + zi * zi;
            vi special = (vi)(r2 > kRadiusSquaredBig) | (m == last);
            if (variance) special |= (vi)(r2 < 0x1p-900);
            if (rebaseMode) {
                special |= (vi)(r2 < dzr * dzr + dzi * dzi);
            } else {
                special |= (vi)(r2 < p->tolerance * (Zr * Zr + Zi * Zi));
            }
            special &= fast;
            const vi plain = fast & ~special;
            n2 = (plain & (vi)(r2 > kRadiusSquared2) & (n2 == 0)) ? n : n2;
            stretch = plain ? 4 * r2 : stretch;
            if (variance) stretchExponent = plain ? (vi){} : stretchExponent;
            const vi high = plain & (vi)(scale > 0x1p600), low = plain & ~high & (vi)(scale < 0x1p-600);
            scale = high ? scale * 0x1p-600 : (low ? scale * 0x1p600 : scale);
            scaleExponent = high ? scaleExponent + 600 : (low ? scaleExponent - 600 : scaleExponent);
            for (unsigned b = bits(special); b; b &= b - 1) {
                const int k = __builtin_ctz(b);
                store(k);
                if (pixel[k].settleAt(cx(Zr[k], Zi[k]), cx(zr[k], zi[k]), r2[k])) retire(k);
                else load(k);
            }
        }
    }

    /// Delta<double>::magnitudeIsBelow in every lane: |re + i im| < r, scaled by 2^600 where
    /// |re + i im|^2 is below 2^-1000.
    static FK_LANE vi magnitudeIsBelow(vd re, vd im, vd r) {
        const vd s = re * re + im * im;
        const vd a = re * 0x1p600, b = im * 0x1p600, q = r * 0x1p600;
        return (vi)(s >= 0x1p-1000) ? (vi)(s < r * r) : (vi)(a * a + b * b < q * q);
    }

    /// PixelRun.addVariance in every lane: v += m 2^e.
    static FK_LANE void addVariance(vd &vm, vi &ve, vd mm, vi e) {
        const vi zero = (vi)(vm == 0);
        const vi j = e - ve;
        const vi take = zero | (j > 900);
        const vi add = ~take & (j >= -900);
        const vi jc = add ? j : (vi){};
        const vd sum = vm + mm * (vd)((jc + 1023) << 52);
        vm = take ? mm : (add ? sum : vm);
        ve = take ? e : ve;
    }
};

template <int W> FK_LANE void runLanes(const FKPerturbParams *p, long long begin, long long end) {
    Lanes<W> lanes;
    lanes.begin(p, begin, end);
    lanes.run();
}

#if defined(__x86_64__) && defined(__clang__)
#define FK_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FK_CLONES
#endif

FK_CLONES void lanes8(const FKPerturbParams *p, long long begin, long long end) { runLanes<8>(p, begin, end); }
FK_CLONES void lanes4(const FKPerturbParams *p, long long begin, long long end) { runLanes<4>(p, begin, end); }
FK_CLONES void lanes2(const FKPerturbParams *p, long long begin, long long end) { runLanes<2>(p, begin, end); }
}  // namespace

extern "C" int fg_lanes_widest(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 8;
    if (__builtin_cpu_supports("avx2")) return 4;
#endif
    return 2;
}

extern "C" int fg_lanes_perturb(const FKPerturbParams *params, int width, long long begin, long long end) {
    if (params->stream.keys != 0 || params->power != 2 || params->orbit == 0) return 0;
    switch (width) {
    case 8: lanes8(params, begin, end); return 1;
    case 4: lanes4(params, begin, end); return 1;
    case 2: lanes2(params, begin, end); return 1;
    default: return 0;
    }
}
