// Issue 45's second question: what do LA steps and lanes at different reference indices cost?
// A synthetic stand-in (not the engine's tables): chains of 4 entries (lengths 8 to 512) at
// every 8th index with thresholds that nearby pixels pass differently, the error variance's
// fast-path terms, the escape and rebase tests. Scalar: one pixel at a time. Lanes (Imagina's
// scheme, naive): each round steps the lanes at the lowest index (a broadcast of Z and of the
// chain), computes the LA and the plain update for every lane and selects, gathers Z at the
// lanes' new indices. Both take the same loop steps per pixel (checked: equal totals). Not part
// of the package; results in Documentation/Benchmarks.md ("Lanes and the error variance").
//   clang++ -O3 -std=c++17 -ffp-contract=off lanes-la.cpp -o lanes-la && ./lanes-la
#include "lanes-common.h"
#include <chrono>
#include <cstdio>
#include <cmath>
#include <initializer_list>


const int N = 1 << 14;   // orbit length
const int K = 4;          // entries a chain: lengths 8, 32, 128, 512
const int L0 = 8;
double Zr[N + 1], Zi[N + 1];
// Entry k at chain start s: zc, cc, threshold^2, length.
double Ezr[N / L0][K], Ezi[N / L0][K], Ecr[N / L0][K], Eci[N / L0][K], Et2[N / L0][K], Es[N / L0][K];
int Elen[K] = {8, 32, 128, 512};
volatile double sink;
long long loopSteps;

__attribute__((noinline)) void scalarRun(long long iterations, int pixels) {
    long long total = 0;
    for (int p = 0; p < pixels; p++) {
        double dcr = 1e-9 * (1 + (p % 8) * 0.1), dci = 1e-9 * (2 - (p / 8) * 0.05), dzr = 0, dzi = 0;
        double invm = 1.0 / (dcr * dcr + dci * dci);
        Pair v = {0, 0};
        double next = 1.0;
        int64_t m = 0, n = 0;
        while (n < iterations) {
            total++;
            double br = dzr, bi = dzi;
            double tr = 2 * Zr[m] + dzr, ti = 2 * Zi[m] + dzi;
            double ur = tr * br - ti * bi, ui = tr * bi + ti * br;
            int chosen = -1;
            if (m % L0 == 0 && m + 512 <= N) {
                double u2 = ur * ur + ui * ui;
                for (int k = K - 1; k >= 0; k--)
                    if (u2 < Et2[m / L0][k]) { chosen = k; break; }
            }
            v.m *= next;
            double s = br * br + bi * bi, p2 = 4.0 * invm;
            if (chosen >= 0) {
                int c = (int)(m / L0);
                double zr = Ezr[c][chosen], zi = Ezi[c][chosen], cr = Ecr[c][chosen], ci = Eci[c][chosen];
                dzr = (zr * ur - zi * ui) + (cr * dcr - ci * dci);
                dzi = (zr * ui + zi * ur) + (cr * dci + ci * dcr);
                m += Elen[chosen];
                n += Elen[chosen];
                double st = Es[c][chosen];
                v.m *= st;
                Pair r = {(next + s) * s * p2 * st, 0};
                addVariance(v, r.m, r.e);
                addVariance(v, st, 0);
                double u2 = ur * ur + ui * ui;
                addVariance(v, (st * u2 * invm + 1e-3) * 6.0, 0);
            } else {
                dzr = ur + dcr;
                dzi = ui + dci;
                m++;
                n++;
                addVariance(v, (next + s) * s * p2, 0);
                addVariance(v, 1, 0);
            }
            v = normalized(v);
            if (scalarSettle(Zr, Zi, N, m, dzr, dzi, next)) break;
        }
        sink = v.m + dzr;
    }
    loopSteps = total;
}

template <int W>
static inline __attribute__((always_inline)) void laneRun(long long iterations, int pixels, long long *laneSteps) {
    typedef typename V<W>::d vd;
    typedef typename V<W>::i vi;
    long long total = 0, rounds = 0;
    for (int p0 = 0; p0 < pixels; p0 += W) {
        vd dcr, dci, dzr = {}, dzi = {}, invm, vm = {}, next;
        vi ve = {}, m = {}, n = {}, done = {};
        for (int l = 0; l < W; l++) {
            int p = p0 + l;
            dcr[l] = 1e-9 * (1 + (p % 8) * 0.1); dci[l] = 1e-9 * (2 - (p / 8) * 0.05);
            invm[l] = 1.0 / (dcr[l] * dcr[l] + dci[l] * dci[l]);
            next[l] = 1.0;
        }
        for (;;) {
            // The lowest index among the unfinished lanes; the lanes there step.
            long long mMin = 1LL << 62;
            bool any = false;
            for (int l = 0; l < W; l++)
                if (!done[l]) { any = true; if (m[l] < mMin) mMin = m[l]; }
            if (!any) break;
            vi act = (m == ((vi){} + (int64_t)mMin)) & ~done;
            rounds++;
            for (int l = 0; l < W; l++) total += act[l] != 0;
            vd br = dzr, bi = dzi;
            double Zr0 = Zr[mMin], Zi0 = Zi[mMin];
            vd tr = 2 * Zr0 + dzr, ti = 2 * Zi0 + dzi;
            vd ur = tr * br - ti * bi, ui = tr * bi + ti * br;
            vi chosen = (vi){} - 1;
            vd ezr = {}, ezi = {}, ecr = {}, eci = {}, est = {};
            vi elen = {};
            if (mMin % L0 == 0 && mMin + 512 <= N) {
                int c = (int)(mMin / L0);
                vd u2 = ur * ur + ui * ui;
                for (int k = K - 1; k >= 0; k--) {
                    vi take = (chosen < 0) & (u2 < Et2[c][k]);
                    chosen = take ? (vi){} + k : chosen;
                    ezr = take ? (vd){} + Ezr[c][k] : ezr; ezi = take ? (vd){} + Ezi[c][k] : ezi;
                    ecr = take ? (vd){} + Ecr[c][k] : ecr; eci = take ? (vd){} + Eci[c][k] : eci;
                    est = take ? (vd){} + Es[c][k] : est;
                    elen = take ? (vi){} + Elen[k] : elen;
                }
            }
            vi la = chosen >= 0;
            vd s = br * br + bi * bi, p2 = 4.0 * invm;
            vd wm = vm * next;
            vi we = ve;
            // LA lanes' update and plain lanes' update, each computed for all lanes, then selected.
            vd laR = (ezr * ur - ezi * ui) + (ecr * dcr - eci * dci);
            vd laI = (ezr * ui + ezi * ur) + (ecr * dci + eci * dcr);
            vd plR = ur + dcr, plI = ui + dci;
            vd lm = wm * est;
            vi le = we;
            laneAddVariance<W>(lm, le, (next + s) * s * p2 * est, (vi){}, la);
            laneAddVariance<W>(lm, le, est, (vi){}, la);
            vd u2 = ur * ur + ui * ui;
            laneAddVariance<W>(lm, le, (est * u2 * invm + 1e-3) * 6.0, (vi){}, la);
            vd pm = wm;
            vi pe = we;
            vi plain = ~la;
            laneAddVariance<W>(pm, pe, (next + s) * s * p2, (vi){}, plain);
            laneAddVariance<W>(pm, pe, (vd){} + 1.0, (vi){}, plain);
            vd nm = la ? lm : pm;
            vi ne = la ? le : pe;
            laneNormalized<W>(nm, ne);
            vd ndr = la ? laR : plR, ndi = la ? laI : plI;
            vi nmv = la ? m + elen : m + 1;
            vi nn = la ? n + elen : n + 1;
            // Z(m) after the step: lanes now at different indices (a gather).
            vd Zr1, Zi1;
            for (int l = 0; l < W; l++) { long long q = nmv[l] > N ? N : nmv[l]; Zr1[l] = Zr[q]; Zi1[l] = Zi[q]; }
            vd zr = Zr1 + ndr, zi = Zi1 + ndi;
            vd r2 = zr * zr + zi * zi;
            vi esc = (r2 > 1e10) & act;
            vd nnext = 4 * r2;
            vi reb = (nmv >= N) | (r2 < ndr * ndr + ndi * ndi);
            ndr = reb ? zr : ndr; ndi = reb ? zi : ndi;
            nmv = reb ? (vi){} : nmv;
            // Commit the active lanes.
            dzr = act ? ndr : dzr; dzi = act ? ndi : dzi;
            vm = act ? nm : vm; ve = act ? ne : ve;
            next = act ? nnext : next;
            m = act ? nmv : m; n = act ? nn : n;
            done = done | esc | ((n >= ((vi){} + (int64_t)iterations)) & act);
        }
        for (int l = 0; l < W; l++) sink = vm[l] + dzr[l];
    }
    *laneSteps = total;
    loopSteps = rounds;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void lanes8(long long it, int px, long long *s) { laneRun<8>(it, px, s); }
__attribute__((target_clones("avx512f", "avx2", "default")))
void lanes4(long long it, int px, long long *s) { laneRun<4>(it, px, s); }

int main() {
    double cr = -0.12, ci = 0.1, xr = 0, xi = 0;
    for (int k = 0; k <= N; k++) { Zr[k] = xr; Zi[k] = xi; double t = xr * xr - xi * xi + cr; xi = 2 * xr * xi + ci; xr = t; }
    // Entries: coefficients of modest size, thresholds that pixels sometimes fail (lanes then
    // choose different entries).
    for (int c = 0; c < N / L0; c++)
        for (int k = 0; k < K; k++) {
            Ezr[c][k] = 0.5 + 0.01 * k; Ezi[c][k] = 0.1; Ecr[c][k] = 1.0 + k; Eci[c][k] = 0.2;
            double t = 3e-9 * pow(0.6, k) * (1 + 0.3 * sin(c * 0.37));
            Et2[c][k] = t * t;
            Es[c][k] = 0.9;
        }
    const long long iterations = 2000000; const int pixels = 64;
    auto t0 = std::chrono::steady_clock::now();
    scalarRun(iterations, pixels);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    long long scalarSteps = loopSteps;
    printf("scalar: %lld loop steps, %.2f ns a loop step\n", scalarSteps, s * 1e9 / scalarSteps);
    for (int W : {4, 8}) {
        long long laneSteps = 0;
        t0 = std::chrono::steady_clock::now();
        if (W == 8) lanes8(iterations, pixels, &laneSteps); else lanes4(iterations, pixels, &laneSteps);
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("lanes %d: %lld lane-steps in %lld rounds (%.0f%% of lanes busy), %.2f ns a lane-step\n", W, laneSteps,
               loopSteps, 100.0 * laneSteps / (double)(loopSteps * W), s * 1e9 / laneSteps);
    }
}
