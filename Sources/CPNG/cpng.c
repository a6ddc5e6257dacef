#include "cpng.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *message;
    int message_size;
} error_sink;

static void on_error(png_structp png, png_const_charp text) {
    error_sink *sink = (error_sink *)png_get_error_ptr(png);
    if (sink && sink->message && sink->message_size > 0) {
        snprintf(sink->message, (size_t)sink->message_size, "libpng: %s", text);
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

/* The bytes of a PNG encoded in memory, grown by doubling. */
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} memory_sink;

static void on_memory_write(png_structp png, png_bytep bytes, png_size_t length) {
    memory_sink *sink = (memory_sink *)png_get_io_ptr(png);
    if (length > SIZE_MAX - sink->size) png_error(png, "image too large");
    if (sink->size + length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 65536;
        while (capacity < sink->size + length) {
            if (capacity > SIZE_MAX / 2) png_error(png, "image too large");
            capacity *= 2;
        }
        uint8_t *grown = realloc(sink->data, capacity);
        if (!grown) png_error(png, "out of memory");
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, bytes, length);
    sink->size += length;
}

static void on_memory_flush(png_structp png) { (void)png; }

/* Encodes the image as a PNG into `write` (with `flush`) on `io`: libpng's own stdio writer for
   NULL ones (io a FILE). The one encoder of both entry points: zlib level 3 with the Paeth
   filter on every row, 2.5x faster than libpng's default (level 6, adaptive filters) on fractal
   images for about 5% more bytes (Documentation/Benchmarks.md); the text as iTXt chunks (UTF-8:
   tEXt is Latin-1, which a location's name need not be). FATHOM_PNG_OK, or
   FATHOM_PNG_LIBPNG_ERROR with the reason in `message`. */
static int encode(png_voidp io, png_rw_ptr write, png_flush_ptr flush, const uint8_t *pixels, uint32_t width,
                  uint32_t height, int bit_depth, const char *const *keys, const char *const *texts,
                  int text_count, char *message, int message_size) {
    error_sink sink = {message, message_size};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_textp volatile text = text_count > 0 ? calloc((size_t)text_count, sizeof(png_text)) : NULL;
    if (!png || !info || (text_count > 0 && !text)) {
        png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
        free(text);
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "libpng: out of memory");
        return FATHOM_PNG_LIBPNG_ERROR;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(text);
        return FATHOM_PNG_LIBPNG_ERROR;
    }
    png_set_write_fn(png, io, write, flush);
    png_set_compression_level(png, 3);
    png_set_filter(png, 0, PNG_FILTER_PAETH);
    png_set_IHDR(png, info, width, height, bit_depth, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (int i = 0; i < text_count; i++) {
        text[i].compression = PNG_ITXT_COMPRESSION_NONE;
        text[i].lang = NULL;
        text[i].lang_key = NULL;
        text[i].key = (png_charp)keys[i];
        text[i].text = (png_charp)texts[i];
    }
    if (text_count > 0) png_set_text(png, info, text, text_count);
    png_write_info(png, info);
    size_t row_bytes = (size_t)width * 3 * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * row_bytes));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(text);
    return FATHOM_PNG_OK;
}

int fathom_png_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                     int bit_depth, const char *const *keys, const char *const *texts,
                     int text_count, char *message, int message_size) {
    FILE *file = fopen(path, "wb");
    if (!file) {
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "%s", strerror(errno));
        return FATHOM_PNG_CANNOT_OPEN;
    }
    int status = encode(file, NULL, NULL, pixels, width, height, bit_depth, keys, texts, text_count, message,
                        message_size);
    if (status != FATHOM_PNG_OK) {
        fclose(file);
        return status;
    }
    if (fflush(file) != 0 || ferror(file)) {
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "%s", strerror(errno));
        fclose(file);
        return FATHOM_PNG_WRITE_ERROR;
    }
    if (fclose(file) != 0) {
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "%s", strerror(errno));
        return FATHOM_PNG_WRITE_ERROR;
    }
    return FATHOM_PNG_OK;
}

int fathom_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int bit_depth,
                      const char *const *keys, const char *const *texts, int text_count, void **data,
                      size_t *size, char *message, int message_size) {
    memory_sink out = {NULL, 0, 0};
    int status = encode(&out, on_memory_write, on_memory_flush, pixels, width, height, bit_depth, keys, texts,
                        text_count, message, message_size);
    if (status != FATHOM_PNG_OK) {
        free(out.data);
        out.data = NULL;
        out.size = 0;
    }
    *data = out.data;
    *size = out.size;
    return status;
}

int fathom_png_read_rgb(const char *path, void **pixels, uint32_t *width, uint32_t *height, int *bit_depth,
                        char *message, int message_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *pixels = NULL;
    if (!png_image_begin_read_from_file(&image, path)) {
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "%s", image.message);
        return FATHOM_PNG_CANNOT_OPEN;
    }
    // A 16-bit file (no gAMA chunk: libpng takes it as linear) is read without conversion.
    int sixteen = (image.format & PNG_FORMAT_FLAG_LINEAR) != 0;
    image.format = sixteen ? PNG_FORMAT_LINEAR_RGB : PNG_FORMAT_RGB;
    void *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) {
        png_image_free(&image);
        return FATHOM_PNG_LIBPNG_ERROR;
    }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        if (message && message_size > 0) snprintf(message, (size_t)message_size, "%s", image.message);
        free(buffer);
        return FATHOM_PNG_LIBPNG_ERROR;
    }
    *pixels = buffer;
    *width = image.width;
    *height = image.height;
    *bit_depth = sixteen ? 16 : 8;
    return FATHOM_PNG_OK;
}

void fathom_png_free(void *p) { free(p); }
