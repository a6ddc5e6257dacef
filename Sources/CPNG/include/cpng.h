#ifndef FATHOM_CPNG_H
#define FATHOM_CPNG_H
#include <stddef.h>
#include <stdint.h>

/// Result codes of fathom_png_write.
enum {
    FATHOM_PNG_OK = 0,
    FATHOM_PNG_CANNOT_OPEN = 1,   ///< fopen failed (errno is set)
    FATHOM_PNG_LIBPNG_ERROR = 2,  ///< libpng reported an error while writing
    FATHOM_PNG_WRITE_ERROR = 3,   ///< the final flush or close failed (disk full?)
};

/// Writes an RGB image to `path` through libpng's classic API, with `text_count` tEXt chunks.
/// `pixels` holds rows top to bottom, 3 samples a pixel; `bit_depth` is 8 (one byte a sample)
/// or 16 (two bytes a sample, big-endian). setjmp/longjmp stay inside this function: it
/// returns an error code and never unwinds through its caller. On error the file may be
/// partial; the caller writes to a temporary name and renames on success.
int fathom_png_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                     int bit_depth, const char *const *keys, const char *const *texts,
                     int text_count, char *message, int message_size);

/// fathom_png_write's PNG in memory: *data (malloc'ed, free with fathom_png_free) holds *size
/// bytes. FATHOM_PNG_OK, or FATHOM_PNG_LIBPNG_ERROR with the reason in `message`.
int fathom_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int bit_depth,
                      const char *const *keys, const char *const *texts, int text_count, void **data,
                      size_t *size, char *message, int message_size);

#endif

#ifndef FATHOM_CPNG_READ_H
#define FATHOM_CPNG_READ_H
/// Reads a PNG as RGB through libpng's simplified API (no setjmp needed): 8 bits a sample, or
/// for a 16-bit file 16 bits a sample (native-endian uint16). On success returns 0 and sets
/// *pixels (malloc'ed, free with fathom_png_free), *width, *height and *bit_depth.
int fathom_png_read_rgb(const char *path, void **pixels, uint32_t *width, uint32_t *height, int *bit_depth,
                        char *message, int message_size);
void fathom_png_free(void *p);
#endif
