// Issue 45's question: can SIMD lanes carry the error variance cheaply? One perturbation plain
// step (z^2 + c) with the variance's fast path (PixelRun.plainStepError: stepRounding in Double,
// two addVariance, normalized), the escape and rebase tests: the scalar loop against W lanes
// that share the reference index (GCC/Clang vector extensions; every lane's operations those of
// the scalar loop in the same order, no contraction: the check sums agree), and W = 8 behind
// target_clones (a run-time choice, no build flag). Not part of the package; measured results
// in Documentation/Benchmarks.md ("Lanes and the error variance, a microbenchmark").
//   clang++ -O3 -std=c++17 -ffp-contract=off lanes-variance.cpp -o lanes && ./lanes
//   (also with -mavx2 -mfma, or -march=znver4, to compare the widths by hand)
#include "lanes-common.h"
#include <chrono>
#include <cstdio>
#include <vector>
#include <cmath>


const int N = 4096;  // orbit length
volatile double sink;
double Zr[N + 1], Zi[N + 1];

__attribute__((noinline)) double scalarRun(long long steps, int pixels) {
    double acc = 0;
    for (int p = 0; p < pixels; p++) {
        double dcr = 1e-12 * (1 + p), dci = 1e-12 * (2 - p * 0.01), dzr = 0, dzi = 0;
        double invm = 1.0 / (dcr * dcr + dci * dci); int64_t inve = 0;
        Pair v = {0, 0}; double next = 1.0; int64_t m = 0;
        for (long long n = 0; n < steps; n++) {
            double br = dzr, bi = dzi;
            double tr = 2 * Zr[m] + dzr, ti = 2 * Zi[m] + dzi;
            dzr = tr * br - ti * bi + dcr;
            dzi = tr * bi + ti * br + dci;
            m++;
            v.m *= next;
            double s = br * br + bi * bi;
            double p2 = 4.0 * invm;
            Pair r;
            if (s >= 0x1p-450 && s <= 0x1p450) r = {(next + s) * s * p2, inve};
            else r = {0, 0};
            addVariance(v, r.m, r.e);
            addVariance(v, 1, 0);
            v = normalized(v);
            if (scalarSettle(Zr, Zi, N, m, dzr, dzi, next)) break;
        }
        acc += v.m + dzr;
        sink = v.m + dzr + (double)m;  // kept: the optimiser may not drop a pixel's work
    }
    return acc;
}

template <int W>
static inline __attribute__((always_inline)) double laneRun(long long steps, int pixels) {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    double acc = 0;
    for (int p0 = 0; p0 < pixels; p0 += W) {
        vd dcr, dci, dzr = {}, dzi = {}, invm, vm = {}, next;
        vi ve = {}, inve = {};
        for (int l = 0; l < W; l++) {
            int p = p0 + l;
            dcr[l] = 1e-12 * (1 + p); dci[l] = 1e-12 * (2 - p * 0.01);
            invm[l] = 1.0 / (dcr[l] * dcr[l] + dci[l] * dci[l]);
            next[l] = 1.0;
        }
        long long m = 0;  // shared index
        for (long long n = 0; n < steps; n++) {
            vd br = dzr, bi = dzi;
            double zr0 = Zr[m], zi0 = Zi[m];
            vd tr = 2 * zr0 + dzr, ti = 2 * zi0 + dzi;
            dzr = tr * br - ti * bi + dcr;
            dzi = tr * bi + ti * br + dci;
            m++;
            vm = vm * next;
            vd s = br * br + bi * bi;
            vd p2 = 4.0 * invm;
            vi fast = (s >= 0x1p-450) & (s <= 0x1p450);
            vd rm = fast ? (next + s) * s * p2 : (vd){};
            vi re = fast ? inve : (vi){};
            vi all = (vi){} - 1;
            laneAddVariance<W>(vm, ve, rm, re, all);
            laneAddVariance<W>(vm, ve, (vd){} + 1.0, (vi){}, all);
            laneNormalized<W>(vm, ve);
            double Zr1 = Zr[m], Zi1 = Zi[m];
            vd zr = Zr1 + dzr, zi = Zi1 + dzi;
            vd r2 = zr * zr + zi * zi;
            vi esc = r2 > 1e10;
            bool anyEsc = false;
            for (int l = 0; l < W; l++) anyEsc |= esc[l] != 0;
            if (anyEsc) break;
            next = 4 * r2;
            vi reb = r2 < dzr * dzr + dzi * dzi;
            bool any = false;
            for (int l = 0; l < W; l++) any |= reb[l] != 0;
            if (m == N || any) { dzr = zr; dzi = zi; m = 0; }  // (all lanes together, for the benchmark)
        }
        for (int l = 0; l < W; l++) acc += vm[l] + dzr[l];
    }
    return acc;
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
double lanes8(long long steps, int pixels) { return laneRun<8>(steps, pixels); }

int main() {
    // Z: the orbit of c = -0.1 + 0.65i (bounded), from 0.
    double cr = -0.12, ci = 0.1, xr = 0, xi = 0;
    for (int k = 0; k <= N; k++) { Zr[k] = xr; Zi[k] = xi; double t = xr * xr - xi * xi + cr; xi = 2 * xr * xi + ci; xr = t; }
    const long long steps = 200000; const int pixels = 64;
    auto time = [&](const char *name, auto f) {
        double best = 1e9, r = 0;
        for (int k = 0; k < 3; k++) {
            auto t0 = std::chrono::steady_clock::now();
            r = f();
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (s < best) best = s;
        }
        printf("%-10s %.3f ns a pixel-step (check %g)\n", name, best * 1e9 / (double)(steps * pixels), r);
    };
    time("scalar", [&] { return scalarRun(steps, pixels); });
    time("lanes 2", [&] { return laneRun<2>(steps, pixels); });
    time("lanes 4", [&] { return laneRun<4>(steps, pixels); });
    time("lanes 8", [&] { return laneRun<8>(steps, pixels); });
    time("clones 8", [&] { return lanes8(steps, pixels); });
}
