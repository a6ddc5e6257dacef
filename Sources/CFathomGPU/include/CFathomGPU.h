/* CFathomGPU: the CUDA driver API and NVRTC, opened at run time with dlopen (nothing links
 * against CUDA), and the host emulation of Fathom's GPU kernels. Every function returns 0 on
 * success, else writes a one-line message into `error` (`errorLength` bytes) and returns a
 * non-zero code. Not thread-safe: the Swift side serialises calls. */
#ifndef CFATHOMGPU_H
#define CFATHOMGPU_H

#include <stddef.h>
#include "FathomKernelABI.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens libcuda.so.1, initialises the driver and makes device 0's primary context current.
 * Returns 1 (with a message) when no driver library is found, 2 for any other failure. */
int fg_open(char *error, int errorLength);
/* The open device: its name, compute capability (major, minor), memory, and the driver's
 * CUDA version (e.g. 13000). */
int fg_device_info(char *name, int nameLength, int *major, int *minor, size_t *memory, int *driverVersion);

/* Compiles CUDA C++ `source` to CUBIN with NVRTC (opened on first use: libnvrtc.so.13, .12,
 * .11, libnvrtc.so, or the path in FATHOM_NVRTC). `*image` is malloc'ed: free it with
 * fg_free_image. */
int fg_compile(const char *source, const char *name, const char *const *options, int optionCount,
               void **image, size_t *size, char *error, int errorLength);
void fg_free_image(void *image);
/* NVRTC's version (major * 1000 + minor * 10), or 0 when it cannot be opened. */
int fg_nvrtc_version(void);

int fg_load_module(const void *image, void **module, char *error, int errorLength);
int fg_get_function(void *module, const char *name, void **function, char *error, int errorLength);
int fg_alloc(size_t bytes, unsigned long long *pointer, char *error, int errorLength);
void fg_free(unsigned long long pointer);
/* Page-locked host memory: the fastest target for downloads. */
int fg_host_alloc(size_t bytes, void **pointer, char *error, int errorLength);
void fg_host_free(void *pointer);
int fg_upload(unsigned long long destination, const void *source, size_t bytes, char *error, int errorLength);
int fg_download(void *destination, unsigned long long source, size_t bytes, char *error, int errorLength);
/* Launches `function` on `blocks` blocks of `threads` threads with one by-value parameter
 * (a struct of `parameterSize` bytes at `parameter`), then waits for it. */
int fg_launch(void *function, unsigned int blocks, unsigned int threads, void *parameter,
              char *error, int errorLength);

/* The open device's multiprocessors (0 when unknown). */
int fg_multiprocessors(void);
/* fg_launch for a kernel whose blocks wait for each other (cuLaunchCooperativeKernel: all
 * `blocks` resident at once, or an error), with `sharedBytes` of dynamic shared memory a block. */
int fg_launch_cooperative(void *function, unsigned int blocks, unsigned int threads, unsigned int sharedBytes,
                          void *parameter, char *error, int errorLength);
/* Lets `function` launch with `bytes` of dynamic shared memory a block where the device's
 * opt-in limit holds them beside its static shared memory: returns `bytes`, else 0. */
unsigned int fg_allow_shared(void *function, unsigned int bytes);

/* The same kernels on the CPU, items begin ..< end (the tests compare them with the Swift
 * kernels); `delta` is one of FK_DELTA_DOUBLE ... FK_DELTA_DOUBLEDOUBLEEXP. */
void fg_emulate_perturb(const FKPerturbParams *params, int delta, int multibrot, long long begin, long long end);

/* The CPU's lane form of a perturbation pass of z^2 + c over a decoded orbit (Lanes.cpp), with
 * `delta` one of FK_DELTA_DOUBLE ... FK_DELTA_DOUBLEDOUBLEEXP: items begin ..< end in `width`
 * lanes (8, 4 or 2),
 * each record as the scalar kernel's. Returns 0, running nothing, for a pass or width it does not
 * take. */
int fg_lanes_perturb(const FKPerturbParams *params, int delta, int width, long long begin, long long end);
/* The widest lanes this CPU runs natively: 8 (AVX-512), 4 (AVX2) or 2. */
int fg_lanes_widest(void);
void fg_emulate_direct(const FKDirectParams *params, long long begin, long long end);

/* The reference orbit's step (FathomOrbit.h) on the CPU: z <- z^2 + c at `precision` bits
 * (64 ... 2^36), bit for bit MPFR's. Registers: 0 x, 1 y, 2 cx, 3 cy, 4-6 scratch; a number is
 * (negative, zero, exponent, ceil(precision / 32) 32-bit limbs little-endian, normalised), its
 * value 0.limbs 2^exponent. NULL when out of memory or the precision is out of range. */
void *fg_orbit_emulation_create(long long precision);
void fg_orbit_emulation_destroy(void *engine);
void fg_orbit_emulation_set(void *engine, int which, int negative, int zero, long long exponent, const unsigned *limbs);
void fg_orbit_emulation_get(void *engine, int which, int *negative, int *zero, long long *exponent, unsigned *limbs);
/* Up to `count` steps, step k's FK_ORBIT_STEP_WORDS Doubles at out[12k ...] (FathomOrbit.h's
 * run), stopping after an escape. Returns the steps taken; *flagged is always 0 (the
 * emulation settles every step itself; the CUDA kernel without `settle` may flag one). */
long long fg_orbit_emulation_run(void *engine, long long count, double *out, int *flagged);
/* The transform's tables for 2^nttLog points (FathomOrbit.h's makeTwiddles): w^j and w^-j for
 * j < 2^(nttLog - 1), and 1 / 2^nttLog mod p; and the smallest nttLog for `limbs` limbs. */
void fg_orbit_twiddles(int nttLog, unsigned long long *twiddles, unsigned long long *inverseTwiddles,
                       unsigned long long *inverseN);
int fg_orbit_ntt_log(int limbs);
/* The CUDA kernel's transform order checked on the CPU: for 2^3 ... 2^maxLog points and every
 * tile size, the long stages two at a time (forwardPair, inversePair, FathomOrbit.h) and the
 * short ones singly against the serial transforms, on pseudo-random words. Returns the words
 * that differ (-1: out of memory). */
long long fg_orbit_check_paired_stages(int maxLog);
/* One operation on the registers: 0 r = a + b, 1 r = a - b, 2 r = a b (each correctly rounded). */
void fg_orbit_emulation_operate(void *engine, int operation, int r, int a, int b);

#ifdef __cplusplus
}
#endif
#endif
