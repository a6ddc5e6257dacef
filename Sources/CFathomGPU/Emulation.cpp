// The GPU kernels' source compiled for the CPU (FathomKernels.h), for the tests.
#include "CFathomGPU.h"
#include "FathomKernels.h"

extern "C" void fg_emulate_perturb(const FKPerturbParams *params, int floatExp, int multibrot, long long begin, long long end) {
    for (long long item = begin; item < end; item++) {
        if (floatExp) {
            fathom::perturbPixel<fathom::FExp>(*params, item, multibrot != 0);
        } else {
            fathom::perturbPixel<double>(*params, item, multibrot != 0);
        }
    }
}

extern "C" void fg_emulate_direct(const FKDirectParams *params, long long begin, long long end) {
    for (long long i = begin; i < end; i++) fathom::directPixel(*params, i);
}

