// The GPU kernels' source compiled for the CPU (FathomKernels.h), for the tests.
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

