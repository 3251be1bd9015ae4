// libvips 8.14's downsizing (`vips_resize`, and `vips_shrink` followed by `vips_reduce`) for
// 8-bit pixels held in memory, without building a libvips pipeline.
//
// A small output costs libvips more to build than to run: each reduce computes its 65 masks
// (with `sin`) and compiles a liborc program, and every operation is a GObject with
// properties and signals. A source written at ten sizes paid that ten times. These functions
// do the same arithmetic as libvips 8.14 (the same masks, the same fixed-point sums and
// rounding, and for the vertical reduce liborc's 16-bit saturating sums when vector code is
// on), so that an output's bytes are the ones libvips would have made; `NativeResampleTests`
// compares the two on every size of the test images.
#ifndef THUMBGEN_RESAMPLE_H
#define THUMBGEN_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/// 8-bit interleaved pixels: `height` rows of `width` × `bands` bytes, `stride` bytes apart.
typedef struct {
    const uint8_t *pixels;
    size_t stride;
    int width;
    int height;
    int bands;
} tg_pixels;

/// Kernels, by libvips' `VipsKernel` values (nearest is not reproduced).
enum {
    TG_KERNEL_LINEAR = 1,
    TG_KERNEL_CUBIC = 2,
    TG_KERNEL_MITCHELL = 3,
    TG_KERNEL_LANCZOS2 = 4,
    TG_KERNEL_LANCZOS3 = 5,
};

/// What `vips_resize(in, hscale, "vscale", vscale, "kernel", kernel)` makes when neither axis
/// grows, written into `out` (`out_width` × `out_height` × bands, rows `out_stride` apart).
/// `vector` says whether libvips' vector code would be on (it changes the vertical reduce's
/// rounding). `strip` is the height of the regions libvips' reduce would be asked for (its
/// output read in strips that tall from the top, as `tg_jpeg_write` reads), or 0 for regions
/// of one row: libvips works out a window's position at the top of each region and adds the
/// shrink for each row after it, and that sum can pick another mask than a position worked
/// out afresh. Returns 0, or -1 when the sizes differ from libvips' or the case is not
/// reproduced (the caller then runs libvips).
int tg_resample_resize(const tg_pixels *in, double hscale, double vscale, int kernel, int vector,
                       int strip, uint8_t *out, size_t out_stride, int out_width, int out_height);

/// What `vips_shrink(in, hbox, vbox)` followed by `vips_reduce` to `out_width` × `out_height`
/// makes (the box factors dividing the sides exactly), as `tg_resample_resize`.
int tg_resample_shrink_reduce(const tg_pixels *in, int hbox, int vbox, int kernel, int vector,
                              int strip, uint8_t *out, size_t out_stride, int out_width, int out_height);

#endif
