// OpenEXR output through OpenEXR's C library (OpenEXRCore, Debian's libopenexr-dev), opened at
// run time: a build without it, or a machine without it, still builds and runs, and asking for
// EXR output then gives a one-line error (Documentation/Sequences.md, "Exponential maps").
#ifndef FATHOM_CEXR_H
#define FATHOM_CEXR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fathom_exr fathom_exr;

/// 1 when OpenEXRCore can be used; else 0 with the reason in `message`.
int fathom_exr_available(char *message, size_t capacity);

/// Starts a single-part scanline file at `path`, ZIP compressed, increasing Y, with the channels
/// N (uint) and NF (float), and DEX, DEY (float) when `distance` is set, and the int attributes
/// Iterations and IterationsBias and the string attribute fathom-location. NULL on failure
/// (the reason in `message`).
fathom_exr *fathom_exr_create(const char *path, int32_t width, int32_t height, int distance,
                              int32_t iterations, int32_t bias, const char *location, char *message,
                              size_t capacity);

/// The scanlines a chunk holds (16 with ZIP): rows are written a chunk at a time.
int32_t fathom_exr_rows_per_chunk(const fathom_exr *file);

/// Writes rows y0 ..< y0 + rows (one chunk, or the last one, in order): `n` and `nf` (and `dex`,
/// `dey`) hold `rows` x width values each. 0 on success, else -1 with the reason in `message`.
int fathom_exr_write(fathom_exr *file, int32_t y0, int32_t rows, const uint32_t *n, const float *nf,
                     const float *dex, const float *dey, char *message, size_t capacity);

/// Finishes the file (its chunk offsets) and frees `file`. 0 on success.
int fathom_exr_finish(fathom_exr *file, char *message, size_t capacity);

/// Frees `file` without finishing it (the caller removes the path).
void fathom_exr_discard(fathom_exr *file);

/// Reads rows y0 ..< y0 + rows of channel `name` of the file at `path` into `out` (uint32 for N,
/// float otherwise, as 4-byte values), and its size: for tests, through the same library.
int fathom_exr_read(const char *path, const char *name, int32_t y0, int32_t rows, void *out,
                    int32_t *width, int32_t *height, char *message, size_t capacity);

/// The int attribute `name` of the file at `path`. 0 on success.
int fathom_exr_read_int(const char *path, const char *name, int32_t *value, char *message,
                        size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
