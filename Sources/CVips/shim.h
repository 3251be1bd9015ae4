// The only door from Swift into libvips.
//
// Swift cannot call C variadic functions, and most libvips operations take their optional
// arguments as a NULL-terminated variadic list. Each shim below fixes one such call to the
// arguments thumbgen uses, so that the Swift layer (Sources/Thumbgen/Imaging) sees ordinary
// functions. Every shim is one call (one loop, to copy an image's metadata); policy lives in Swift. Returned images are new references
// that the caller owns (and releases with g_object_unref).
#ifndef THUMBGEN_CVIPS_SHIM_H
#define THUMBGEN_CVIPS_SHIM_H

#include <stdlib.h>
#include <string.h>

#include <vips/vips.h>
#include <vips/vector.h>

/// memfd_create is declared by <sys/mman.h> only under _GNU_SOURCE (glibc 2.27 and later).
extern int memfd_create(const char *name, unsigned int flags);

/// A file that lives in memory, closed on exec: libvips reads an ICC profile only from a file
/// (`output_profile`), and thumbgen's own profiles need none on disk.
static inline int tg_memory_file(const char *name) { return memfd_create(name, 1U /* MFD_CLOEXEC */); }

/// VIPS_INIT is a macro; Swift needs a function.
static inline int tg_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

/// Loads the libvips module (a shared object that registers loaders and savers when it is
/// opened) at `path`, for good; 1 when it loaded.
static inline int tg_load_module(const char *path) {
    GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
    if (!module) return 0;
    g_module_make_resident(module);
    return 1;
}

/// libvips reports recoverable trouble (a bad tile, a short read) with g_warning; thumbgen
/// reports failures per row instead, so the warnings are silenced unless asked for.
static inline void tg_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                                 gpointer data) {}
static inline void tg_silence_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, tg_ignore_log, NULL);
}

// MARK: - Loading

/// Copies one metadata item of an image onto `target` (a `VipsImage *`), skipping the fields
/// every image has of its own (size, bands, format, ...) and the page height of `image`'s size.
static inline void *tg_copy_metadata_item(VipsImage *image, const char *name, GValue *value,
                                          void *target) {
    static const char *own[] = {"width", "height", "bands", "format", "coding", "interpretation",
                                "xoffset", "yoffset", "xres", "yres", "filename", "page-height",
                                NULL};
    for (int i = 0; own[i]; i++) {
        if (strcmp(name, own[i]) == 0) return NULL;
    }
    vips_image_set((VipsImage *) target, name, value);
    return NULL;
}

/// A new image in memory for `width` × `height` interleaved 8-bit pixels (sRGB, or greyscale
/// with fewer than 3 bands), which the caller writes at `tg_memory_pixels`, carrying the
/// metadata of `like` (the header image of the file they were decoded from: its ICC profile,
/// EXIF, orientation, resolution, loader), as the loader itself would have given it at this
/// size. The metadata is copied item by item, reading `like` only: `like` is shared by the
/// source's rows, and linking an image to it in libvips' graph (as an operation's output is
/// linked to its input) would change it under threads that evaluate its other images.
static inline VipsImage *tg_image_for_pixels(int width, int height, int bands, VipsImage *like) {
    if (width < 1 || height < 1 || bands < 1) return NULL;
    VipsImage *out = vips_image_new_memory();
    vips_image_init_fields(out, width, height, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB,
                           like->Xres, like->Yres);
    if (vips_image_write_prepare(out)) {
        g_object_unref(out);
        return NULL;
    }
    vips_image_map(like, tg_copy_metadata_item, out);
    return out;
}

static inline void tg_free_pixels(VipsImage *image, void *pixels) {
    (void) image;
    free(pixels);
}

/// An image in memory over `pixels`, `width` × `height` interleaved 8-bit pixels of `bands`
/// bands from `malloc`, which the image frees when it closes, carrying `like`'s metadata as
/// `tg_image_for_pixels` does (for a decode made outside libvips, without copying it); NULL on
/// failure, the pixels freed.
static inline VipsImage *tg_image_over_pixels(unsigned char *pixels, int width, int height, int bands,
                                              VipsImage *like) {
    if (width < 1 || height < 1 || bands < 1) {
        free(pixels);
        return NULL;
    }
    VipsImage *out = vips_image_new_from_memory(pixels, (size_t) width * (size_t) height * (size_t) bands,
                                                width, height, bands, VIPS_FORMAT_UCHAR);
    if (!out) {
        free(pixels);
        return NULL;
    }
    g_signal_connect(out, "postclose", G_CALLBACK(tg_free_pixels), pixels);
    out->Type = bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    out->Xres = like->Xres;
    out->Yres = like->Yres;
    vips_image_map(like, tg_copy_metadata_item, out);
    return out;
}

/// Opens `path` with the loader named `loader` (`jpegload`, `pngload`, ...) and no other.
/// Unlike vips_image_new_from_file, this runs no format sniffer: thumbgen names the format from
/// the magic bytes itself (FormatSniffer.swift), because libvips runs the sniffers of blocked
/// loaders too. `access` and `fail_on` are VipsAccess and VipsFailOn.
static inline VipsImage *tg_load_with(const char *loader, const char *path, int access,
                                      int fail_on) {
    VipsImage *out = NULL;
    if (vips_call(loader, path, &out, "access", access, "fail_on", fail_on, NULL))
        return NULL;
    return out;
}

/// One page (`page`, counted from 0) of a multi-page file (a PDF, TIFF, HEIF, GIF or WebP).
static inline VipsImage *tg_load_page(const char *loader, const char *path, int access,
                                      int fail_on, int page) {
    VipsImage *out = NULL;
    if (vips_call(loader, path, &out, "access", access, "fail_on", fail_on, "page", page, NULL))
        return NULL;
    return out;
}

/// A PDF's page `page` (from 0) drawn at `scale` times its size at 72 dpi: the vector drawn
/// at the density the output needs, not a 72-dpi raster resampled.
static inline int tg_pdfload_scale(const char *path, VipsImage **out, int access, int fail_on,
                                   int page, double scale) {
    return vips_pdfload(path, out, "access", access, "fail_on", fail_on, "page", page,
                        "scale", scale, NULL);
}

/// An SVG drawn at `scale` times its own size (as tg_pdfload_scale; an SVG has one page).
static inline int tg_svgload_scale(const char *path, VipsImage **out, int access, int fail_on,
                                   double scale) {
    return vips_svgload(path, out, "access", access, "fail_on", fail_on, "scale", scale, NULL);
}

/// Every page (frame) of a multi-page file, stacked vertically (`page-height` tells them apart).
static inline VipsImage *tg_load_with_all_pages(const char *loader, const char *path, int access,
                                                int fail_on) {
    VipsImage *out = NULL;
    if (vips_call(loader, path, &out, "access", access, "fail_on", fail_on, "n", -1, NULL))
        return NULL;
    return out;
}

/// Whether the loader named `loader` claims the file, by its own sniffer only: used for loaders
/// opted in with --enable-loader, never for blocked ones.
static inline int tg_loader_is_a(const char *loader, const char *path) {
    return vips_foreign_is_a(loader, path);
}

/// JPEG with shrink-on-load (`shrink` is 1, 2, 4 or 8): the DCT skips the pixels it would drop.
static inline int tg_jpegload_shrink(const char *path, VipsImage **out, int access, int fail_on,
                                     int shrink) {
    return vips_jpegload(path, out, "access", access, "fail_on", fail_on, "shrink", shrink, NULL);
}

/// WebP with shrink-on-load (`scale` in (0, 1]): libwebp decodes straight to the smaller size.
/// `pages` frames from frame `page` (from 0): 1 for one frame, -1 for all from there.
static inline int tg_webpload_scale(const char *path, VipsImage **out, int access, int fail_on,
                                    double scale, int page, int pages) {
    return vips_webpload(path, out, "access", access, "fail_on", fail_on, "scale", scale,
                         "page", page, "n", pages, NULL);
}

/// The embedded thumbnail of a HEIF's image `page` (from 0), if it has one (else the image).
static inline VipsImage *tg_heifload_thumbnail(const char *path, int access, int fail_on,
                                               int page) {
    VipsImage *out = NULL;
    if (vips_heifload(path, &out, "access", access, "fail_on", fail_on, "page", page,
                      "thumbnail", TRUE, NULL))
        return NULL;
    return out;
}

/// Reads every pixel once (streaming, in constant memory), to find out whether the data decodes.
static inline int tg_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

// MARK: - Colour and orientation

static inline int tg_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Converts through the embedded profile (or `input_profile` when the image has none) to
/// `output_profile` ("srgb", "cmyk" or a file), which is attached to the result.
static inline int tg_icc_transform(VipsImage *in, VipsImage **out, const char *output_profile,
                                   const char *input_profile) {
    return vips_icc_transform(in, out, output_profile, "input_profile", input_profile,
                              "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
}

static inline int tg_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

/// Cast that keeps each value's number (`shift` off: no bit shifting, so 16-bit 65535 does not
/// become 255) and clips what is out of the new format's range instead of wrapping it:
/// unpremultiplied pixels go back to the format they came from, and 16-bit pixels reach
/// 8 bits through vips_colourspace instead, which scales every band, alpha included.
static inline int tg_cast_unshifted(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, "shift", FALSE, NULL);
}

/// tg_icc_transform with the result at `depth` 8 or 16 bits. The transform casts extra bands
/// (alpha) to that depth by clipping, so a 16-bit source must keep 16 bits through it.
static inline int tg_icc_transform_depth(VipsImage *in, VipsImage **out, const char *output_profile,
                                         const char *input_profile, int depth) {
    return vips_icc_transform(in, out, output_profile, "input_profile", input_profile,
                              "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, "depth", depth,
                              NULL);
}

// MARK: - Geometry

static inline int tg_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width,
                                  int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

static inline int tg_resize(VipsImage *in, VipsImage **out, double hscale, double vscale,
                            VipsKernel kernel) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", kernel, NULL);
}

/// Box-filter shrink by whole factors (each pixel the mean of a block).
static inline int tg_shrink(VipsImage *in, VipsImage **out, int hshrink, int vshrink) {
    return vips_shrink(in, out, (double) hshrink, (double) vshrink, NULL);
}

/// Kernel resampling down by `hshrink`×`vshrink` (each at least 1), centre convention.
static inline int tg_reduce(VipsImage *in, VipsImage **out, double hshrink, double vshrink,
                            VipsKernel kernel) {
    return vips_reduce(in, out, hshrink, vshrink, "kernel", kernel, NULL);
}

static inline int tg_premultiply(VipsImage *in, VipsImage **out) {
    return vips_premultiply(in, out, NULL);
}

static inline int tg_unpremultiply(VipsImage *in, VipsImage **out) {
    return vips_unpremultiply(in, out, NULL);
}

/// Places `in` on a `width`×`height` canvas at `direction`, padding (or cropping) as needed.
static inline int tg_gravity(VipsImage *in, VipsImage **out, VipsCompassDirection direction,
                             int width, int height, const double *background, int n) {
    VipsArrayDouble *bg = vips_array_double_new(background, n);
    int result = vips_gravity(in, out, direction, width, height, "extend", VIPS_EXTEND_BACKGROUND,
                              "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}

/// Crops to `width`×`height` keeping the most interesting part (VipsInteresting: attention,
/// entropy).
static inline int tg_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                               VipsInteresting interesting) {
    return vips_smartcrop(in, out, width, height, "interesting", interesting, NULL);
}

/// Composites alpha onto an opaque background.
static inline int tg_flatten(VipsImage *in, VipsImage **out, const double *background, int n) {
    VipsArrayDouble *bg = vips_array_double_new(background, n);
    int result = vips_flatten(in, out, "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}

/// Stacks images top to bottom (the frames of an animation).
static inline int tg_arrayjoin_vertical(VipsImage **in, VipsImage **out, int n) {
    return vips_arrayjoin(in, out, n, "across", 1, NULL);
}

/// Appends one constant band (an opaque alpha channel).
static inline int tg_bandjoin_const1(VipsImage *in, VipsImage **out, double c) {
    return vips_bandjoin_const1(in, out, c, NULL);
}

/// Rotates clockwise by `angle` (a quarter turn or more).
static inline int tg_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

/// Mirrors left to right (`VIPS_DIRECTION_HORIZONTAL`) or top to bottom.
static inline int tg_flip(VipsImage *in, VipsImage **out, VipsDirection direction) {
    return vips_flip(in, out, direction, NULL);
}

/// sharp's `sharpen()` without arguments, a fast, mild sharpen: a 3×3 convolution with 32 in
/// the centre and -1 around it, over 24.
static inline int tg_mild_sharpen(VipsImage *in, VipsImage **out) {
    VipsImage *mask = vips_image_new_matrixv(3, 3, -1.0, -1.0, -1.0, -1.0, 32.0, -1.0, -1.0, -1.0, -1.0);
    if (!mask) return -1;
    vips_image_set_double(mask, "scale", 24.0);
    int result = vips_conv(in, out, mask, "precision", VIPS_PRECISION_INTEGER, NULL);
    g_object_unref(mask);
    return result;
}

/// An unsharp mask of Gaussian `sigma` with sharp's settings for `sharpen({ sigma })`.
static inline int tg_sharpen(VipsImage *in, VipsImage **out, double sigma) {
    return vips_sharpen(in, out, "sigma", sigma, "m1", 1.0, "m2", 2.0, "x1", 2.0, "y2", 10.0, "y3", 20.0, NULL);
}

/// Band `band` of `in`, alone.
static inline int tg_extract_band(VipsImage *in, VipsImage **out, int band) {
    return vips_extract_band(in, out, band, NULL);
}

/// The box inside `in` whose pixels differ from its top-left pixel's by more than `threshold`
/// (sharp's `trim()`): an image with alpha is flattened on that colour first.
static inline int tg_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, double threshold) {
    double *vector = NULL;
    int n = 0;
    if (vips_getpoint(in, &vector, &n, 0, 0, NULL)) return -1;
    if (vips_image_hasalpha(in) && n > 1) n -= 1;
    VipsArrayDouble *background = vips_array_double_new(vector, n);
    g_free(vector);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold,
                                "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// A new image header sharing the pixels of `in`, whose metadata may then be changed.
static inline int tg_copy(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, NULL);
}

// MARK: - Saving (metadata stripped: outputs carry no EXIF or XMP, and a profile only where
// asked: `--colour`, `--keep icc`)

/// `no_subsample` writes chroma at full resolution (4:4:4) whatever the quality.
static inline int tg_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                     int progressive, int no_subsample) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE,
                                "optimize_coding", TRUE, "interlace", progressive,
                                "subsample_mode", no_subsample ? VIPS_FOREIGN_SUBSAMPLE_OFF
                                                               : VIPS_FOREIGN_SUBSAMPLE_AUTO,
                                NULL);
}

/// `filter` is a `VipsForeignPngFilter`; `palette` quantises to at most 256 colours, steered
/// by `quality`.
static inline int tg_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression,
                                    int filter, int palette, int quality) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "filter", filter,
                               "strip", TRUE, "palette", palette, "Q", quality, NULL);
}

/// An image with a `page-height` metadata field is saved as an animation.
/// `near_lossless` preprocesses at level `quality`, then encodes losslessly.
static inline int tg_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                     int effort, int lossless, int near_lossless) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, "effort", effort,
                                "lossless", lossless, "near_lossless", near_lossless, NULL);
}

/// With `strip` 0 the image's ICC profile is written (the only metadata thumbgen leaves on
/// it); libvips 8.14 then also writes a small EXIF block of its own (resolution, size,
/// orientation 1).
static inline int tg_avifsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                     int effort, int lossless, int strip) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "strip", strip, "compression",
                                VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", effort,
                                "lossless", lossless, NULL);
}

static inline int tg_jxlsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                    int effort, int lossless) {
    return vips_jxlsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, "effort", effort,
                               "lossless", lossless, NULL);
}

/// An image with a `page-height` metadata field is saved as an animation.
static inline int tg_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int effort) {
    return vips_gifsave_buffer(in, buf, len, "strip", TRUE, "effort", effort, NULL);
}

/// Deflate with a horizontal predictor: lossless, keeps alpha, and much smaller than none.
/// With `strip` 0 the image's ICC profile is written (the only metadata thumbgen leaves on it).
static inline int tg_tiffsave_buffer(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_tiffsave_buffer(in, buf, len, "strip", strip,
                                "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE,
                                "predictor", VIPS_FOREIGN_TIFF_PREDICTOR_HORIZONTAL, NULL);
}

/// Sets an integer metadata field on an image nobody else holds yet (`page-height`).
static inline void tg_set_int(VipsImage *image, const char *name, int value) {
    vips_image_set_int(image, name, value);
}

/// The pixels of `image` when libvips holds them in one block of memory (an image made in
/// memory or copied there), else NULL: rows of `VIPS_IMAGE_SIZEOF_LINE` bytes, top to bottom.
static inline const unsigned char *tg_memory_pixels(VipsImage *image) {
    if (image->dtype != VIPS_IMAGE_SETBUF && image->dtype != VIPS_IMAGE_SETBUF_FOREIGN) return NULL;
    return (const unsigned char *) image->data;
}

/// Bytes from one row of `image` to the next.
static inline size_t tg_line_size(VipsImage *image) { return VIPS_IMAGE_SIZEOF_LINE(image); }

/// Whether `image` is uncoded 8-bit pixels (what the C resampler reads).
static inline int tg_is_uchar(VipsImage *image) {
    return image->Coding == VIPS_CODING_NONE && image->BandFmt == VIPS_FORMAT_UCHAR;
}

/// A new image in memory, `width` × `height`, with the bands, format, colour space, resolution
/// and metadata of `like` (as an operation's output carries its input's), its pixels left for
/// the caller to write at `tg_memory_pixels`; NULL on failure. Linked to `like` in libvips'
/// graph: make and free it under `VipsGraphLock`.
static inline VipsImage *tg_memory_image_like(VipsImage *like, int width, int height) {
    VipsImage *out = vips_image_new_memory();
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, like, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    out->Xsize = width;
    out->Ysize = height;
    if (vips_image_write_prepare(out)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

/// Gives `image` its own copy of each blob in its metadata (the ICC profile, EXIF, XMP).
/// libvips 8.14's heifload attaches them as pointers into memory its load frees: an image
/// that outlives the load (one copied to memory) then reads freed bytes, and an ICC transform
/// falls back to sRGB without a word. Call it on a loaded image before any operation copies
/// its metadata.
static inline void tg_own_blobs(VipsImage *image) {
    // Setting "exif-data" parses it again, which would take the resolution and the orientation
    // from the EXIF tags: the image keeps the ones the loader gave it (heifload drops the
    // orientation, libheif having turned the pixels already).
    const double xres = image->Xres, yres = image->Yres;
    int orientation = 0;
    const int had_orientation = !vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation);
    vips_error_clear();
    gchar **fields = vips_image_get_fields(image);
    for (int i = 0; fields && fields[i]; i++) {
        const void *data;
        size_t length;
        if (vips_image_get_typeof(image, fields[i]) == VIPS_TYPE_BLOB
            && !vips_image_get_blob(image, fields[i], &data, &length)) {
            vips_image_set_blob_copy(image, fields[i], data, length);
        }
    }
    g_strfreev(fields);
    image->Xres = xres;
    image->Yres = yres;
    if (had_orientation) {
        vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
    } else {
        vips_image_remove(image, VIPS_META_ORIENTATION);
    }
}

// MARK: - Memory

/// Drops one reference to a libvips object (GObject); Swift cannot see the GObject cast macro.
static inline void tg_unref(VipsImage *image) { g_object_unref(image); }

#endif
