// The GPU kernels' source compiled for the CPU (FathomKernels.h), for the tests.
// No contraction of a * b + c into one FMA anywhere in this file: the emulation must round as
// the CUDA kernels (compiled with --fmad=false) and Swift do. A pragma, not the compiler flag
// -ffp-contract=off, which SwiftPM counts as unsafe (Package.swift). Fast math is off by default.
#pragma STDC FP_CONTRACT OFF
#include "CFathomGPU.h"
#include "FathomKernels.h"

extern "C" void fg_emulate_perturb(const FKPerturbParams *params, int delta, int multibrot, long long begin, long long end) {
    const bool m = multibrot != 0;
    for (long long item = begin; item < end; item++) {
        switch (delta) {
        case FK_DELTA_FLOATEXP: fathom::perturbPixel<fathom::FExp>(*params, item, m); break;
        case FK_DELTA_DOUBLEDOUBLE: fathom::perturbPixel<fathom::DD>(*params, item, m); break;
        case FK_DELTA_DOUBLEDOUBLEEXP: fathom::perturbPixel<fathom::DDX>(*params, item, m); break;
        default: fathom::perturbPixel<double>(*params, item, m); break;
        }
    }
}

extern "C" void fg_emulate_direct(const FKDirectParams *params, long long begin, long long end) {
    for (long long i = begin; i < end; i++) fathom::directPixel(*params, i);
}


// MARK: The reference orbit's step (FathomOrbit.h) on the CPU

#include "FathomOrbit.h"
#include <stdlib.h>
#include <string.h>

namespace {
struct OrbitEmulation {
    fathom::orbit::Orbit orbit;
    void *memory;
    fathom::orbit::Num *registers[7];
};
}  // namespace

extern "C" void *fg_orbit_emulation_create(long long precision) {
    using namespace fathom::orbit;
    if (precision < 64 || precision > (1LL << 36)) return nullptr;
    const long long limbs = (precision + 31) / 32;
    const int nttLog = nttLogFor((int)limbs);
    const long long n = 1LL << nttLog;
    // Seven numbers, the transforms' two buffers and two twiddle tables, the sum's and the
    // product's limbs.
    const size_t bytes = sizeof(Limb) * (size_t)(7 * limbs + 2 * limbs + 2 + limbs + 2) + sizeof(U64) * (size_t)(3 * n);
    auto *e = (OrbitEmulation *)calloc(1, sizeof(OrbitEmulation));
    void *memory = calloc(1, bytes);
    if (!e || !memory) {
        free(e);
        free(memory);
        return nullptr;
    }
    e->memory = memory;
    Context &c = e->orbit.c;
    c.precision = precision;
    c.limbs = (int)limbs;
    c.nttLog = nttLog;
    U64 *words = (U64 *)memory;
    c.fa = words;
    c.fb = words + n;
    U64 *tw = words + 2 * n;
    U64 *itw = tw + n / 2;
    makeTwiddles(nttLog, tw, itw, &c.inverseN);
    c.twiddles = tw;
    c.inverseTwiddles = itw;
    Limb *limb = (Limb *)(words + 3 * n);
    Num *numbers[7] = {&e->orbit.x, &e->orbit.y, &e->orbit.cx, &e->orbit.cy, &e->orbit.t1, &e->orbit.t2, &e->orbit.t3};
    for (int i = 0; i < 7; i++) {
        numbers[i]->m = limb + i * limbs;
        numbers[i]->zero = 1;
        e->registers[i] = numbers[i];
    }
    c.wide = limb + 7 * limbs;
    c.shifted = c.wide + 2 * limbs + 2;
    return e;
}

extern "C" void fg_orbit_emulation_destroy(void *engine) {
    auto *e = (OrbitEmulation *)engine;
    if (!e) return;
    free(e->memory);
    free(e);
}

extern "C" void fg_orbit_emulation_set(void *engine, int which, int negative, int zero, long long exponent,
                                       const unsigned *limbs) {
    auto *e = (OrbitEmulation *)engine;
    fathom::orbit::Num &r = *e->registers[which];
    r.negative = negative;
    r.zero = zero;
    r.exponent = exponent;
    memcpy(r.m, limbs, sizeof(unsigned) * (size_t)e->orbit.c.limbs);
}

extern "C" void fg_orbit_emulation_get(void *engine, int which, int *negative, int *zero, long long *exponent,
                                       unsigned *limbs) {
    auto *e = (OrbitEmulation *)engine;
    const fathom::orbit::Num &r = *e->registers[which];
    *negative = r.negative;
    *zero = r.zero;
    *exponent = r.exponent;
    if (r.zero)
        memset(limbs, 0, sizeof(unsigned) * (size_t)e->orbit.c.limbs);
    else
        memcpy(limbs, r.m, sizeof(unsigned) * (size_t)e->orbit.c.limbs);
}

extern "C" long long fg_orbit_emulation_run(void *engine, long long count, double *out, int *flagged) {
    auto *e = (OrbitEmulation *)engine;
    return fathom::orbit::run(e->orbit, count, out, flagged);
}

extern "C" void fg_orbit_emulation_operate(void *engine, int operation, int r, int a, int b) {
    auto *e = (OrbitEmulation *)engine;
    const fathom::orbit::Context &c = e->orbit.c;
    fathom::orbit::Num &nr = *e->registers[r];
    const fathom::orbit::Num &na = *e->registers[a], &nb = *e->registers[b];
    if (operation == 2)
        fathom::orbit::multiply(c, nr, na, nb);
    else
        fathom::orbit::add(c, nr, na, nb, operation == 1);
}

extern "C" void fg_orbit_twiddles(int nttLog, unsigned long long *twiddles, unsigned long long *inverseTwiddles,
                                  unsigned long long *inverseN) {
    fathom::orbit::makeTwiddles(nttLog, twiddles, inverseTwiddles, inverseN);
}

extern "C" int fg_orbit_ntt_log(int limbs) { return fathom::orbit::nttLogFor(limbs); }

extern "C" long long fg_orbit_check_paired_stages(int maxLog) {
    using namespace fathom::orbit;
    long long mismatches = 0;
    unsigned long long state = 0x9e3779b97f4a7c15ULL;
    auto next = [&state]() {  // SplitMix64
        unsigned long long z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    for (int logN = 3; logN <= maxLog; logN++) {
        const long long n = 1LL << logN;
        U64 *tw = (U64 *)malloc(sizeof(U64) * n), *a = (U64 *)malloc(sizeof(U64) * n), *b = (U64 *)malloc(sizeof(U64) * n);
        if (!tw || !a || !b) {
            free(tw), free(a), free(b);
            return -1;
        }
        U64 *itw = tw + n / 2, inverseN;
        makeTwiddles(logN, tw, itw, &inverseN);
        Context c;
        c.nttLog = logN;
        c.twiddles = tw;
        c.inverseTwiddles = itw;
        c.inverseN = inverseN;
        for (int logTile = 1; logTile < logN; logTile++) {
            for (long long i = 0; i < n; i++) a[i] = b[i] = next() % kPrime;
            forwardTransform(c, a);
            // The kernel's order: the long stages two a pass (the last alone where their count
            // is odd), then the tile's stages one at a time.
            int lenLog = logN - 1;
            for (; lenLog - 1 >= logTile; lenLog -= 2)
                for (long long g = 0; g < n / 4; g++) forwardPair(tw, b, logN, lenLog, g);
            for (; lenLog >= 0; lenLog--) {
                const long long len = 1LL << lenLog;
                for (long long i = 0; i < n / 2; i++) {
                    const long long j = i & (len - 1), s = (i >> lenLog) << (lenLog + 1);
                    forwardButterfly(b, s + j, len, tw[j << (logN - 1 - lenLog)]);
                }
            }
            for (long long i = 0; i < n; i++) mismatches += a[i] != b[i];
            // The inverse: the tile's stages, the first long one alone where their count is
            // odd, then two a pass, the last scaled by 1/N.
            inverseTransform(c, a);
            for (lenLog = 0; lenLog < logTile; lenLog++) {
                const long long len = 1LL << lenLog;
                for (long long i = 0; i < n / 2; i++) {
                    const long long j = i & (len - 1), s = (i >> lenLog) << (lenLog + 1);
                    inverseButterfly(b, s + j, len, itw[j << (logN - 1 - lenLog)]);
                }
            }
            if ((logN - logTile) & 1) {
                const long long len = 1LL << lenLog;
                const bool last = lenLog == logN - 1;
                for (long long i = 0; i < n / 2; i++) {
                    const long long j = i & (len - 1), s = (i >> lenLog) << (lenLog + 1);
                    inverseButterfly(b, s + j, len, itw[j << (logN - 1 - lenLog)]);
                    if (last) {
                        b[s + j] = mulMod(b[s + j], inverseN);
                        b[s + j + len] = mulMod(b[s + j + len], inverseN);
                    }
                }
                lenLog++;
            }
            for (; lenLog < logN; lenLog += 2)
                for (long long g = 0; g < n / 4; g++) inversePair(itw, b, logN, lenLog + 1, g, lenLog + 1 == logN - 1, inverseN);
            for (long long i = 0; i < n; i++) mismatches += a[i] != b[i];
        }
        free(tw), free(a), free(b);
    }
    return mismatches;
}
