// OpenEXR through OpenEXRCore, its symbols found with dlopen/dlsym at run time (cexr.h).
// The library's own header gives the types when it is installed at build time; without it
// every call reports that this build has no OpenEXR support.
#include "cexr.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<OpenEXR/openexr.h>)
#include <OpenEXR/openexr.h>
#define FATHOM_HAVE_EXR 1
#endif

static void say(char *message, size_t capacity, const char *what) {
    if (message && capacity) snprintf(message, capacity, "%s", what);
}

#ifndef FATHOM_HAVE_EXR

int fathom_exr_available(char *message, size_t capacity) {
    say(message, capacity, "this build of Fathom has no OpenEXR support (libopenexr-dev was not installed when it was built)");
    return 0;
}
fathom_exr *fathom_exr_create(const char *path, int32_t width, int32_t height, int distance, int32_t iterations,
                              int32_t bias, const char *location, char *message, size_t capacity) {
    (void)path; (void)width; (void)height; (void)distance; (void)iterations; (void)bias; (void)location;
    fathom_exr_available(message, capacity);
    return NULL;
}
int32_t fathom_exr_rows_per_chunk(const fathom_exr *file) { (void)file; return 16; }
int fathom_exr_write(fathom_exr *file, int32_t y0, int32_t rows, const uint32_t *n, const float *nf, const float *dex,
                     const float *dey, char *message, size_t capacity) {
    (void)file; (void)y0; (void)rows; (void)n; (void)nf; (void)dex; (void)dey;
    fathom_exr_available(message, capacity);
    return -1;
}
int fathom_exr_finish(fathom_exr *file, char *message, size_t capacity) {
    (void)file;
    fathom_exr_available(message, capacity);
    return -1;
}
void fathom_exr_discard(fathom_exr *file) { (void)file; }
int fathom_exr_read(const char *path, const char *name, int32_t y0, int32_t rows, void *out, int32_t *width,
                    int32_t *height, char *message, size_t capacity) {
    (void)path; (void)name; (void)y0; (void)rows; (void)out; (void)width; (void)height;
    fathom_exr_available(message, capacity);
    return -1;
}
int fathom_exr_read_int(const char *path, const char *name, int32_t *value, char *message, size_t capacity) {
    (void)path; (void)name; (void)value;
    fathom_exr_available(message, capacity);
    return -1;
}

#else

// The functions used, as pointers of the header's own types.
#define FATHOM_EXR_FUNCTIONS(X) \
    X(exr_start_write) X(exr_start_read) X(exr_finish) X(exr_add_part) X(exr_initialize_required_attr_simple) \
    X(exr_add_channel) X(exr_attr_set_int) X(exr_attr_get_int) X(exr_attr_set_string) X(exr_write_header) \
    X(exr_get_scanlines_per_chunk) X(exr_write_scanline_chunk_info) X(exr_read_scanline_chunk_info) \
    X(exr_encoding_initialize) X(exr_encoding_choose_default_routines) X(exr_encoding_run) \
    X(exr_encoding_destroy) X(exr_decoding_initialize) X(exr_decoding_choose_default_routines) \
    X(exr_decoding_run) X(exr_decoding_destroy) X(exr_get_data_window) X(exr_get_default_error_message)

#define FATHOM_EXR_POINTER(name) static __typeof__(name) *p_##name;
FATHOM_EXR_FUNCTIONS(FATHOM_EXR_POINTER)

static int loaded = -1;
static char load_error[256];

static int load(void) {
    if (loaded >= 0) return loaded;
    const char *names[] = {"libOpenEXRCore-3_1.so.30", "libOpenEXRCore-3_1.so", "libOpenEXRCore.so",
                           "libOpenEXRCore-3_2.so.31", "libOpenEXRCore-3_3.so.32", "libOpenEXRCore.dylib", NULL};
    void *library = NULL;
    for (int i = 0; names[i] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error,
                 "OpenEXR's C library (libOpenEXRCore, Debian's libopenexr-dev) is not installed");
        return loaded = 0;
    }
#define FATHOM_EXR_LOAD(name)                                                                          \
    p_##name = (__typeof__(name) *)dlsym(library, #name);                                              \
    if (!p_##name) {                                                                                   \
        snprintf(load_error, sizeof load_error, "OpenEXR's C library lacks %s (version 3.1 or later needed)", #name); \
        return loaded = 0;                                                                             \
    }
    FATHOM_EXR_FUNCTIONS(FATHOM_EXR_LOAD)
    return loaded = 1;
}

int fathom_exr_available(char *message, size_t capacity) {
    if (load()) return 1;
    say(message, capacity, load_error);
    return 0;
}

struct fathom_exr {
    exr_context_t context;
    int32_t width, height, rows_per_chunk;
    int distance;
};

static int failed(exr_result_t rv, const char *what, char *message, size_t capacity) {
    if (message && capacity) snprintf(message, capacity, "%s: %s", what, p_exr_get_default_error_message(rv));
    return -1;
}

// No messages on the library's own stream: each failure becomes the caller's one line.
static void quiet(exr_const_context_t context, exr_result_t code, const char *text) {
    (void)context; (void)code; (void)text;
}

fathom_exr *fathom_exr_create(const char *path, int32_t width, int32_t height, int distance, int32_t iterations,
                              int32_t bias, const char *location, char *message, size_t capacity) {
    if (!fathom_exr_available(message, capacity)) return NULL;
    fathom_exr *file = calloc(1, sizeof *file);
    if (!file) { say(message, capacity, "out of memory"); return NULL; }
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = quiet;
    exr_result_t rv = p_exr_start_write(&file->context, path, EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv != EXR_ERR_SUCCESS) { failed(rv, "cannot start the file", message, capacity); free(file); return NULL; }
    int part = 0;
    const char *what = "cannot write the header";
    if ((rv = p_exr_add_part(file->context, "fathom", EXR_STORAGE_SCANLINE, &part)) != EXR_ERR_SUCCESS ||
        (rv = p_exr_initialize_required_attr_simple(file->context, part, width, height, EXR_COMPRESSION_ZIP)) !=
            EXR_ERR_SUCCESS)
        goto fail;
    if (distance) {
        if ((rv = p_exr_add_channel(file->context, part, "DEX", EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1)) !=
                EXR_ERR_SUCCESS ||
            (rv = p_exr_add_channel(file->context, part, "DEY", EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1)) !=
                EXR_ERR_SUCCESS)
            goto fail;
    }
    if ((rv = p_exr_add_channel(file->context, part, "N", EXR_PIXEL_UINT, EXR_PERCEPTUALLY_LINEAR, 1, 1)) !=
            EXR_ERR_SUCCESS ||
        (rv = p_exr_add_channel(file->context, part, "NF", EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1)) !=
            EXR_ERR_SUCCESS ||
        (rv = p_exr_attr_set_int(file->context, part, "Iterations", iterations)) != EXR_ERR_SUCCESS ||
        (rv = p_exr_attr_set_int(file->context, part, "IterationsBias", bias)) != EXR_ERR_SUCCESS ||
        (rv = p_exr_attr_set_string(file->context, part, "fathom-location", location)) != EXR_ERR_SUCCESS ||
        (rv = p_exr_write_header(file->context)) != EXR_ERR_SUCCESS)
        goto fail;
    if ((rv = p_exr_get_scanlines_per_chunk(file->context, part, &file->rows_per_chunk)) != EXR_ERR_SUCCESS) goto fail;
    file->width = width;
    file->height = height;
    file->distance = distance;
    return file;
fail:
    failed(rv, what, message, capacity);
    p_exr_finish(&file->context);
    free(file);
    return NULL;
}

int32_t fathom_exr_rows_per_chunk(const fathom_exr *file) { return file->rows_per_chunk; }

int fathom_exr_write(fathom_exr *file, int32_t y0, int32_t rows, const uint32_t *n, const float *nf, const float *dex,
                     const float *dey, char *message, size_t capacity) {
    exr_chunk_info_t info;
    exr_encode_pipeline_t encoder = EXR_ENCODE_PIPELINE_INITIALIZER;
    exr_result_t rv = p_exr_write_scanline_chunk_info(file->context, 0, y0, &info);
    if (rv != EXR_ERR_SUCCESS) return failed(rv, "cannot place the rows", message, capacity);
    if (info.height != rows) { say(message, capacity, "rows do not match the file's chunk"); return -1; }
    if ((rv = p_exr_encoding_initialize(file->context, 0, &info, &encoder)) != EXR_ERR_SUCCESS)
        return failed(rv, "cannot encode the rows", message, capacity);
    for (int c = 0; c < encoder.channel_count; c++) {
        exr_coding_channel_info_t *channel = &encoder.channels[c];
        const void *data = NULL;
        if (strcmp(channel->channel_name, "N") == 0) data = n;
        else if (strcmp(channel->channel_name, "NF") == 0) data = nf;
        else if (strcmp(channel->channel_name, "DEX") == 0) data = dex;
        else if (strcmp(channel->channel_name, "DEY") == 0) data = dey;
        channel->encode_from_ptr = data;
        channel->user_pixel_stride = 4;
        channel->user_line_stride = 4 * file->width;
        channel->user_bytes_per_element = 4;
        channel->user_data_type = channel->data_type;
    }
    if ((rv = p_exr_encoding_choose_default_routines(file->context, 0, &encoder)) != EXR_ERR_SUCCESS ||
        (rv = p_exr_encoding_run(file->context, 0, &encoder)) != EXR_ERR_SUCCESS) {
        p_exr_encoding_destroy(file->context, &encoder);
        return failed(rv, "cannot write the rows", message, capacity);
    }
    p_exr_encoding_destroy(file->context, &encoder);
    return 0;
}

int fathom_exr_finish(fathom_exr *file, char *message, size_t capacity) {
    exr_result_t rv = p_exr_finish(&file->context);
    free(file);
    return rv == EXR_ERR_SUCCESS ? 0 : failed(rv, "cannot finish the file", message, capacity);
}

void fathom_exr_discard(fathom_exr *file) {
    if (!file) return;
    p_exr_finish(&file->context);
    free(file);
}

static int open_read(const char *path, exr_context_t *context, char *message, size_t capacity) {
    if (!fathom_exr_available(message, capacity)) return -1;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = quiet;
    exr_result_t rv = p_exr_start_read(context, path, &init);
    return rv == EXR_ERR_SUCCESS ? 0 : failed(rv, "cannot read the file", message, capacity);
}

int fathom_exr_read(const char *path, const char *name, int32_t y0, int32_t rows, void *out, int32_t *width,
                    int32_t *height, char *message, size_t capacity) {
    exr_context_t context;
    if (open_read(path, &context, message, capacity) != 0) return -1;
    exr_attr_box2i_t window;
    exr_result_t rv = p_exr_get_data_window(context, 0, &window);
    if (rv != EXR_ERR_SUCCESS) { p_exr_finish(&context); return failed(rv, "no data window", message, capacity); }
    int32_t w = window.max.x - window.min.x + 1;
    *width = w;
    *height = window.max.y - window.min.y + 1;
    int result = 0;
    int32_t y = y0;
    while (y < y0 + rows && result == 0) {
        exr_chunk_info_t info;
        exr_decode_pipeline_t decoder = EXR_DECODE_PIPELINE_INITIALIZER;
        if ((rv = p_exr_read_scanline_chunk_info(context, 0, y, &info)) != EXR_ERR_SUCCESS ||
            (rv = p_exr_decoding_initialize(context, 0, &info, &decoder)) != EXR_ERR_SUCCESS) {
            result = failed(rv, "cannot read the rows", message, capacity);
            break;
        }
        // The chunk's rows that fall in y0 ..< y0 + rows go to `out`; the others to a scratch row.
        uint8_t *chunk = malloc((size_t)4 * w * info.height);
        int found = 0;
        for (int c = 0; c < decoder.channel_count; c++) {
            exr_coding_channel_info_t *channel = &decoder.channels[c];
            int mine = strcmp(channel->channel_name, name) == 0;
            found |= mine;
            channel->decode_to_ptr = mine ? chunk : NULL;
            channel->user_pixel_stride = 4;
            channel->user_line_stride = 4 * w;
            channel->user_bytes_per_element = 4;
            channel->user_data_type = channel->data_type;
        }
        if (!found) {
            say(message, capacity, "no such channel");
            result = -1;
        } else if ((rv = p_exr_decoding_choose_default_routines(context, 0, &decoder)) != EXR_ERR_SUCCESS ||
                   (rv = p_exr_decoding_run(context, 0, &decoder)) != EXR_ERR_SUCCESS) {
            result = failed(rv, "cannot decode the rows", message, capacity);
        } else {
            for (int32_t r = 0; r < info.height; r++) {
                int32_t row = info.start_y + r;
                if (row >= y0 && row < y0 + rows)
                    memcpy((uint8_t *)out + (size_t)4 * w * (row - y0), chunk + (size_t)4 * w * r, (size_t)4 * w);
            }
            y = info.start_y + info.height;
        }
        p_exr_decoding_destroy(context, &decoder);
        free(chunk);
    }
    p_exr_finish(&context);
    return result;
}

int fathom_exr_read_int(const char *path, const char *name, int32_t *value, char *message, size_t capacity) {
    exr_context_t context;
    if (open_read(path, &context, message, capacity) != 0) return -1;
    exr_result_t rv = p_exr_attr_get_int(context, 0, name, value);
    p_exr_finish(&context);
    return rv == EXR_ERR_SUCCESS ? 0 : failed(rv, "no such attribute", message, capacity);
}

#endif
