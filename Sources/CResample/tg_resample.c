// libvips 8.14's downsizing for 8-bit pixels in memory; see tg_resample.h.
//
// Each step follows the libvips 8.14 source it is named after (resample/shrinkv.c,
// shrinkh.c, reducev.cpp, reduceh.cpp, templates.h, iofuncs/vector.c), expression for
// expression where rounding depends on it. Two things differ on purpose and change no value:
// a reduce's masks are computed when first used rather than all 65 up front, and the steps
// run a row at a time instead of in libvips' regions.
#include "tg_resample.h"
#include "tg_reduce_columns.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRANSFORM_SCALE 64          // VIPS_TRANSFORM_SCALE: mask positions between two pixels
#define INTERPOLATE_SHIFT 12        // VIPS_INTERPOLATE_SHIFT: the C path's fixed point
#define INTERPOLATE_SCALE (1 << INTERPOLATE_SHIFT)
#define MAX_POINT 2000              // presample.h: libvips refuses longer masks
#define VECTOR_MAX_POINT 50         // reducev.cpp: 10 passes of 5 taps, else the C path
#define DOT_LANES 16                // taps a horizontal mask is padded to a multiple of (`DOT16`)
#define PI 3.14159265358979323846   // VIPS_PI

// The two reduce loops are built twice, for AVX2 and for any x86-64, and the one the processor
// runs is picked when the library loads: 1.5 to 2 times faster where AVX2 is there (measured on
// 400×250 to 176×110: 0.29 against 0.41 ms). Integer sums, so both make the same bytes.
#if defined(__x86_64__) && defined(__linux__)
#define TG_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TG_VECTOR_CLONES
#endif

// ---------------------------------------------------------------------------------------------
// Masks (templates.h, reduceh.cpp's vips_reduce_get_points and vips_reduce_make_mask).

static int mask_points(int kernel, double shrink) {
    switch (kernel) {
    case TG_KERNEL_LINEAR: return 2 * rint(shrink) + 1;
    case TG_KERNEL_CUBIC:
    case TG_KERNEL_MITCHELL:
    case TG_KERNEL_LANCZOS2: return 2 * rint(2 * shrink) + 1;
    case TG_KERNEL_LANCZOS3: return 2 * rint(3 * shrink) + 1;
    default: return 0;
    }
}

static void mask_triangle(double *c, const double shrink, const double x) {
    const int n_points = 2 * rint(shrink) + 1;
    const double half = x + n_points / 2.0 - 1;
    double sum = 0;
    for (int i = 0; i < n_points; i++) {
        const double xp = (i - half) / shrink;
        double l = 1.0 - fabs(xp);
        l = l > 0.0 ? l : 0.0;
        c[i] = l;
        sum += l;
    }
    for (int i = 0; i < n_points; i++) c[i] /= sum;
}

static void mask_cubic(double *c, const double shrink, const double x, double B, double C) {
    const int n_points = 2 * rint(2 * shrink) + 1;
    const double half = x + n_points / 2.0 - 1;
    double sum = 0;
    for (int i = 0; i < n_points; i++) {
        const double xp = (i - half) / shrink;
        const double axp = fabs(xp);
        const double axp2 = axp * axp;
        const double axp3 = axp2 * axp;
        double l;
        if (axp <= 1)
            l = ((12 - 9 * B - 6 * C) * axp3 + (-18 + 12 * B + 6 * C) * axp2 + (6 - 2 * B)) / 6;
        else if (axp <= 2)
            l = ((-B - 6 * C) * axp3 + (6 * B + 30 * C) * axp2 + (-12 * B - 48 * C) * axp
                 + (8 * B + 24 * C)) / 6;
        else
            l = 0.0;
        c[i] = l;
        sum += l;
    }
    for (int i = 0; i < n_points; i++) c[i] /= sum;
}

static void mask_lanczos(double *c, const int a, const double shrink, const double x) {
    const int n_points = 2 * rint(a * shrink) + 1;
    const double half = x + n_points / 2.0 - 1;
    double sum = 0;
    for (int i = 0; i < n_points; i++) {
        const double xp = (i - half) / shrink;
        double l;
        if (xp == 0.0)
            l = 1.0;
        else if (xp < -a)
            l = 0.0;
        else if (xp > a)
            l = 0.0;
        else
            l = (double) a * sin(PI * xp) * sin(PI * xp / (double) a) / (PI * PI * xp * xp);
        c[i] = l;
        sum += l;
    }
    for (int i = 0; i < n_points; i++) c[i] /= sum;
}

static void make_mask(double *c, int kernel, double shrink, double x) {
    switch (kernel) {
    case TG_KERNEL_LINEAR: mask_triangle(c, shrink, x); break;
    case TG_KERNEL_CUBIC: mask_cubic(c, shrink, x, 0.0, 0.5); break;
    case TG_KERNEL_MITCHELL: mask_cubic(c, shrink, x, 1.0 / 3.0, 1.0 / 3.0); break;
    case TG_KERNEL_LANCZOS2: mask_lanczos(c, 2, shrink, x); break;
    case TG_KERNEL_LANCZOS3: mask_lanczos(c, 3, shrink, x); break;
    }
}

// vips_vector_to_fixed_point: rounds `in` to integers at `scale` whose sum is exactly the
// rounded sum, as the vector path's 2.6 coefficients are made.
static void to_fixed_point(const double *in, int *out, int n, int scale) {
    double fsum = 0.0;
    for (int i = 0; i < n; i++) fsum += in[i];
    const int target = rint(fsum * scale);
    double high = scale + (n + 1) / 2;
    double low = scale - (n + 1) / 2;
    int sum;
    do {
        const double guess = (high + low) / 2.0;
        for (int i = 0; i < n; i++) out[i] = rint(in[i] * guess);
        sum = 0;
        for (int i = 0; i < n; i++) sum += out[i];
        if (sum == target) break;
        if (sum < target) low = guess;
        if (sum > target) high = guess;
    } while (high - low > 0.01);
    if (sum != target) {
        const int each_error = (target - sum) / n;
        const int extra_error = (target - sum) % n;
        const int direction = extra_error > 0 ? 1 : -1;
        const int n_elements = abs(extra_error);
        for (int i = 0; i < n; i++) out[i] += each_error;
        for (int i = 0; i < n_elements; i++) out[i] += direction;
    }
}

// ---------------------------------------------------------------------------------------------
// One reduce along one axis: its factor, offset and masks (made when first used).

typedef struct {
    int kernel;
    int vector;             // the vertical reduce's liborc path
    int n;                  // taps
    double shrink;          // the fractional factor left after any whole-number shrink
    double offset;          // voffset / hoffset: where the first output pixel's window starts
    int edge;               // rows or columns the edge is repeated by before the first pixel
    unsigned char ready[TRANSFORM_SCALE + 1];
    unsigned char narrow_ready[TRANSFORM_SCALE + 1];    // 1: made, 2: does not fit
    int *fixed;             // (TRANSFORM_SCALE + 1) × n: 20.12 (C path) or 2.6 (vector path)
    int16_t *narrow;        // the same 20.12 values as 16 bits, when every one fits (reduceh),
                            // each mask padded with zeros to `wide` taps
    int wide;               // n rounded up to a multiple of DOT_LANES
    double *scratch;        // n
} reducer;

static int reducer_init(reducer *r, int kernel, int vector, double shrink, double extra_pixels) {
    memset(r, 0, sizeof *r);
    r->kernel = kernel;
    r->shrink = shrink;
    r->n = mask_points(kernel, shrink);
    if (r->n < 1 || r->n > MAX_POINT) return -1;
    r->vector = vector && r->n <= VECTOR_MAX_POINT;
    r->offset = (1 + extra_pixels) / 2.0 - 1;
    r->edge = (int) ceil(r->n / 2.0) - 1;
    r->fixed = malloc(sizeof(int) * (size_t) r->n * (TRANSFORM_SCALE + 1));
    r->wide = (r->n + DOT_LANES - 1) / DOT_LANES * DOT_LANES;
    r->narrow = calloc((size_t) r->wide * (TRANSFORM_SCALE + 1), sizeof(int16_t));
    r->scratch = malloc(sizeof(double) * (size_t) r->n);
    return r->fixed && r->narrow && r->scratch ? 0 : -1;
}

static void reducer_free(reducer *r) {
    free(r->fixed);
    free(r->narrow);
    free(r->scratch);
}

static const int *reducer_mask(reducer *r, int t) {
    int *fixed = r->fixed + (size_t) t * r->n;
    if (!r->ready[t]) {
        make_mask(r->scratch, r->kernel, r->shrink, (float) t / TRANSFORM_SCALE);
        if (r->vector) {
            to_fixed_point(r->scratch, fixed, r->n, 64);
        } else {
            for (int i = 0; i < r->n; i++) fixed[i] = r->scratch[i] * INTERPOLATE_SCALE;
        }
        r->ready[t] = 1;
    }
    return fixed;
}

// Mask `t` as 16-bit values, or NULL when one does not fit (a mask's values are at most about
// 1.0, 4,096, so this does not happen with libvips' kernels).
static const int16_t *reducer_narrow_mask(reducer *r, int t) {
    int16_t *narrow = r->narrow + (size_t) t * r->wide;
    if (!r->narrow_ready[t]) {
        const int *fixed = reducer_mask(r, t);
        r->narrow_ready[t] = 1;
        for (int i = 0; i < r->n; i++) {
            if (fixed[i] < INT16_MIN || fixed[i] > INT16_MAX) r->narrow_ready[t] = 2;
            narrow[i] = (int16_t) fixed[i];
        }
    }
    return r->narrow_ready[t] == 1 ? narrow : NULL;
}

// The mask index for a window starting at `position` (reduceh.cpp, reducev.cpp).
static int mask_index(double position) {
    const int s = position * TRANSFORM_SCALE * 2;
    const int si = s & (TRANSFORM_SCALE * 2 - 1);
    return (si + 1) >> 1;
}

static inline uint8_t clip_uchar(int v) { return v < 0 ? 0 : v > UCHAR_MAX ? UCHAR_MAX : v; }

static inline int clamp_index(int i, int count) { return i < 0 ? 0 : i >= count ? count - 1 : i; }

// ---------------------------------------------------------------------------------------------
// Images as they pass between steps.

typedef struct {
    uint8_t *pixels;        // owned, or NULL when `view` is the caller's
    tg_pixels view;
} image;

// shrinkv.c: each output row the rounded mean of `factor` rows, the last rows repeated.
static int shrink_rows(const tg_pixels *in, int factor, int ceil_size, image *out) {
    const int height = ceil_size ? (int) ceil((double) in->height / factor)
                                 : (int) ((double) in->height / factor + 0.5);
    const size_t line = (size_t) in->width * in->bands;
    if (height < 1) return -1;
    out->pixels = malloc(line * height);
    unsigned int *sum = malloc(sizeof(unsigned int) * line);
    if (!out->pixels || !sum) {
        free(sum);
        return -1;
    }
    for (int y = 0; y < height; y++) {
        memset(sum, 0, sizeof(unsigned int) * line);
        for (int j = 0; j < factor; j++) {
            const uint8_t *p = in->pixels + in->stride * clamp_index(y * factor + j, in->height);
            for (size_t x = 0; x < line; x++) sum[x] += p[x];
        }
        uint8_t *q = out->pixels + line * y;
        for (size_t x = 0; x < line; x++) q[x] = (sum[x] + factor / 2) / factor;
    }
    free(sum);
    out->view = (tg_pixels) { out->pixels, line, in->width, height, in->bands };
    return 0;
}

// shrinkh.c, one row: each output pixel the rounded mean of `factor` pixels, the last repeated.
static void shrink_row(const uint8_t *in, int width, int bands, int factor, int out_width,
                       uint8_t *out) {
    for (int x = 0; x < out_width; x++) {
        for (int b = 0; b < bands; b++) {
            unsigned int sum = 0;
            for (int j = 0; j < factor; j++) sum += in[clamp_index(x * factor + j, width) * bands + b];
            out[x * bands + b] = (sum + factor / 2) / factor;
        }
    }
}

static int shrunk_width(int width, int factor, int ceil_size) {
    return ceil_size ? (int) ceil((double) width / factor) : (int) ((double) width / factor + 0.5);
}

// shrinkh.c over a whole image.
static int shrink_columns(const tg_pixels *in, int factor, int ceil_size, image *out) {
    const int width = shrunk_width(in->width, factor, ceil_size);
    if (width < 1) return -1;
    const size_t line = (size_t) width * in->bands;
    out->pixels = malloc(line * in->height);
    if (!out->pixels) return -1;
    for (int y = 0; y < in->height; y++) {
        shrink_row(in->pixels + in->stride * y, in->width, in->bands, factor, width,
                   out->pixels + line * y);
    }
    out->view = (tg_pixels) { out->pixels, line, width, in->height, in->bands };
    return 0;
}

// ---------------------------------------------------------------------------------------------
// The reduces, one output row at a time.

// reducev.cpp: one output row, whose window starts at `position` (rows of the input with its
// edge rows repeated `r->edge` times above). Tap by tap over the whole row, so that the loops
// vectorise; each element still sums its taps in libvips' order. `sums` holds a row.
TG_VECTOR_CLONES
static void reduce_rows(reducer *r, const tg_pixels *in, double position, int32_t *sums,
                        uint8_t *out) {
    const int top = (int) position;
    const int *c = reducer_mask(r, mask_index(position));
    const int line = in->width * in->bands;
    if (r->vector) {
        // liborc's program: a signed 16-bit sum from 32, each tap's 16-bit product added with
        // saturation, then shifted down by 6 and saturated to 8 bits.
        int16_t *sum = (int16_t *) sums;
        for (int z = 0; z < line; z++) sum[z] = 32;
        for (int i = 0; i < r->n; i++) {
            const uint8_t *p = in->pixels + in->stride * clamp_index(top + i - r->edge, in->height);
            const uint16_t coefficient = (uint16_t) c[i];
            for (int z = 0; z < line; z++) {
                const int16_t value = (int16_t) (uint16_t) (p[z] * coefficient);
                const int s = sum[z] + value;
                sum[z] = s > INT16_MAX ? INT16_MAX : s < INT16_MIN ? INT16_MIN : s;
            }
        }
        for (int z = 0; z < line; z++) out[z] = clip_uchar(sum[z] >> 6);
    } else {
        for (int z = 0; z < line; z++) sums[z] = 0;
        for (int i = 0; i < r->n; i++) {
            const uint8_t *p = in->pixels + in->stride * clamp_index(top + i - r->edge, in->height);
            const int coefficient = c[i];
            for (int z = 0; z < line; z++) sums[z] += coefficient * p[z];
        }
        for (int z = 0; z < line; z++) {
            out[z] = clip_uchar((sums[z] + (INTERPOLATE_SCALE >> 1)) >> INTERPOLATE_SHIFT);
        }
    }
}

// A sum of products of 16-bit values over `wide` taps, a multiple of DOT_LANES, so that the
// whole sum is vector code (pmaddwd) with no scalar tail: a mask of 7 or 13 taps left the loop
// scalar. The taps past a mask's own are zero, so they add nothing, and integer sums do not
// depend on the order of the additions: the result is the n-tap sum's, bit for bit.
// A macro, not a function: a function outside the caller's `target_clones` is called out of
// line from the AVX2 clone, and compiled for the baseline only.
#define DOT16(sum, c, p, wide) do { \
        const int16_t *restrict dot_c = (c), *restrict dot_p = (p); \
        int dot_sum = 0; \
        for (int i = 0; i < (wide); i += DOT_LANES) { \
            for (int j = 0; j < DOT_LANES; j++) dot_sum += dot_c[i + j] * dot_p[i + j]; \
        } \
        (sum) = dot_sum; \
    } while (0)

// reduceh.cpp: one row. `padded` is the row with its edge pixels repeated `r->edge` times on
// the left and `r->n` times on the right, as libvips embeds it; `planes` has room for its
// bands split apart as 16-bit values (`padded_width` each), so that each output value is one
// contiguous sum of products.
// RGB, the common case, in one pass over the row that the compiler turns into shuffles; a
// plane at a time it read every third byte, a load per sample.
TG_VECTOR_CLONES
static void split_planes(const uint8_t *restrict padded, int padded_width, int bands, int16_t *restrict planes) {
    if (bands == 3) {
        int16_t *restrict red = planes, *restrict green = planes + padded_width,
                *restrict blue = planes + 2 * (size_t) padded_width;
        for (int k = 0; k < padded_width; k++) {
            red[k] = padded[3 * k];
            green[k] = padded[3 * k + 1];
            blue[k] = padded[3 * k + 2];
        }
        return;
    }
    for (int b = 0; b < bands; b++) {
        int16_t *plane = planes + (size_t) b * padded_width;
        for (int k = 0; k < padded_width; k++) plane[k] = padded[k * bands + b];
    }
}

TG_VECTOR_CLONES
static void reduce_columns(reducer *r, const uint8_t *padded, int padded_width, int bands,
                           int16_t *planes, int out_width, uint8_t *out) {
    const int n = r->n;
    split_planes(padded, padded_width, bands, planes);
    double x_position = 0.5 * r->shrink - 0.5 - r->offset;
    for (int x = 0; x < out_width; x++) {
        const int left = (int) x_position;
        const int t = mask_index(x_position);
        const int16_t *narrow = reducer_narrow_mask(r, t);
        uint8_t *q = out + x * bands;
        for (int b = 0; b < bands; b++) {
            int sum;
            if (narrow) {
                DOT16(sum, narrow, planes + (size_t) b * padded_width + left, r->wide);
            } else {
                const int *c = reducer_mask(r, t);
                const int16_t *p = planes + (size_t) b * padded_width + left;
                sum = 0;
                for (int i = 0; i < n; i++) sum += c[i] * p[i];
            }
            q[b] = clip_uchar((sum + (INTERPOLATE_SCALE >> 1)) >> INTERPOLATE_SHIFT);
        }
        x_position += r->shrink;
    }
}

// Each output column's window start and 16-bit mask, worked out as `reduce_columns` does
// (the same running position), for `tg_reduce_columns_avx2`: 0, or -1 when a mask does not fit
// 16 bits or memory runs out (the caller keeps to `reduce_columns`).
static int plan_column_windows(reducer *r, int out_width, int **lefts, const int16_t ***masks) {
    *lefts = malloc(sizeof(int) * (size_t) out_width);
    *masks = malloc(sizeof(int16_t *) * (size_t) out_width);
    if (!*lefts || !*masks) return -1;
    double x_position = 0.5 * r->shrink - 0.5 - r->offset;
    for (int x = 0; x < out_width; x++) {
        (*lefts)[x] = (int) x_position;
        (*masks)[x] = reducer_narrow_mask(r, mask_index(x_position));
        if (!(*masks)[x]) return -1;
        x_position += r->shrink;
    }
    return 0;
}

// `row` (`width` pixels) into `padded`, its edge pixels repeated `left` times before it and
// `right` times after.
static void pad_row(const uint8_t *row, int width, int bands, int left, int right, uint8_t *padded) {
    for (int i = 0; i < left; i++) memcpy(padded + i * bands, row, bands);
    memcpy(padded + left * bands, row, (size_t) width * bands);
    for (int i = 0; i < right; i++) {
        memcpy(padded + (left + width + i) * bands, row + (width - 1) * bands, bands);
    }
}

// ---------------------------------------------------------------------------------------------
// The two operations.

// The vertical step (vips_reducev with `gap`), planned: any whole-number shrink done into
// `shrunk`, the reduce left in `r` (r->n == 0 when none is left). Returns the output height.
static int plan_rows(const tg_pixels *in, double vshrink, double gap, int kernel, int vector,
                     image *shrunk, const tg_pixels **source, reducer *r) {
    const int height = (int) ((double) in->height / vshrink + 0.5);
    double extra_pixels = height * vshrink - in->height;
    *source = in;
    memset(r, 0, sizeof *r);
    if (height < 1) return -1;
    if (gap > 0.0) {
        const int factor = fmax(1, floor((double) in->height / height / gap));
        if (factor > 1) {
            if (shrink_rows(in, factor, 1, shrunk)) return -1;
            *source = &shrunk->view;
            vshrink /= factor;
            extra_pixels /= factor;
        }
    }
    if (vshrink == 1.0) return (*source)->height;
    if (reducer_init(r, kernel, vector, vshrink, extra_pixels)) return -1;
    return height;
}

// The horizontal step (vips_reduceh with `gap`), planned for rows `width` wide: any
// whole-number shrink factor in `factor`, the reduce left in `r`. Returns the output width.
static int plan_columns(int width, double hshrink, double gap, int kernel, int *factor, reducer *r) {
    const int out_width = (int) ((double) width / hshrink + 0.5);
    double extra_pixels = out_width * hshrink - width;
    *factor = 1;
    memset(r, 0, sizeof *r);
    if (out_width < 1) return -1;
    if (gap > 0.0) {
        const int f = fmax(1, floor((double) width / out_width / gap));
        if (f > 1) {
            *factor = f;
            hshrink /= f;
            extra_pixels /= f;
        }
    }
    if (hshrink == 1.0) return shrunk_width(width, *factor, 1);
    if (reducer_init(r, kernel, 0, hshrink, extra_pixels)) return -1;
    return out_width;
}

// vips_reducev then vips_reduceh (each with `gap`) over `in`, into `out`.
static int reduce_both(const tg_pixels *in, double hshrink, double vshrink, double gap, int kernel,
                       int vector, int strip, uint8_t *out, size_t out_stride, int out_width,
                       int out_height) {
    image shrunk = { 0 };
    const tg_pixels *source;
    reducer rows_r, columns_r;
    int factor, status = -1;
    uint8_t *row = NULL, *columns = NULL, *padded = NULL;
    int32_t *sums = NULL;
    int16_t *planes = NULL;
    int *lefts = NULL;
    const int16_t **masks = NULL;
    const int height = plan_rows(in, vshrink, gap, kernel, vector, &shrunk, &source, &rows_r);
    const int width = plan_columns(in->width, hshrink, gap, kernel, &factor, &columns_r);
    if (height != out_height || width != out_width) goto done;
    const int bands = in->bands;
    const int shrunk_w = shrunk_width(in->width, factor, 1);
    row = malloc((size_t) in->width * bands);
    columns = malloc((size_t) shrunk_w * bands);
    sums = malloc(sizeof(int32_t) * (size_t) in->width * bands);
    const int padded_width = shrunk_w + columns_r.edge + columns_r.n;
    padded = malloc((size_t) padded_width * bands);
    // Room past the last plane for the zero taps of a padded mask (`DOT16`), zeroed so that
    // no byte read is undefined.
    planes = calloc((size_t) padded_width * bands + DOT_LANES, sizeof(int16_t));
    if (!row || !columns || !sums || !padded || !planes) goto done;
    const int eight_at_a_time = columns_r.n && tg_reduce_columns_has_avx2()
        && plan_column_windows(&columns_r, out_width, &lefts, &masks) == 0;

    double running = 0.0;
    for (int y = 0; y < out_height; y++) {
        const uint8_t *line;
        if (rows_r.n) {
            // libvips' reducev works the position out at the top of each region it makes and
            // adds the shrink for each row after it; a sum of a factor that is no binary
            // fraction drifts in the last bit, and picks the other mask where a window starts
            // exactly on a boundary between two. With `strip`, the regions are strips that
            // tall (tg_jpeg_write's); without, the position is worked out afresh for each
            // row, as a region of one row has it.
            if (strip <= 0 || y % strip == 0) {
                running = (y + 0.5) * rows_r.shrink - 0.5 - rows_r.offset;
            } else {
                running += rows_r.shrink;
            }
            reduce_rows(&rows_r, source, running, sums, row);
            line = row;
        } else {
            line = source->pixels + source->stride * y;
        }
        if (factor > 1) {
            shrink_row(line, in->width, bands, factor, shrunk_w, columns);
            line = columns;
        }
        uint8_t *q = out + out_stride * y;
        if (columns_r.n) {
            pad_row(line, shrunk_w, bands, columns_r.edge, columns_r.n, padded);
            if (eight_at_a_time) {
                split_planes(padded, padded_width, bands, planes);
                tg_reduce_columns_avx2(planes, padded_width, bands, lefts, masks, columns_r.wide,
                                       out_width, q);
            } else {
                reduce_columns(&columns_r, padded, padded_width, bands, planes, out_width, q);
            }
        } else {
            memcpy(q, line, (size_t) out_width * bands);
        }
    }
    status = 0;
done:
    free(row);
    free(columns);
    free(sums);
    free(padded);
    free(planes);
    free(lefts);
    free(masks);
    free(shrunk.pixels);
    reducer_free(&rows_r);
    reducer_free(&columns_r);
    return status;
}

static int supported(const tg_pixels *in, int kernel) {
    return in->pixels && in->width > 0 && in->height > 0 && in->bands >= 1 && in->bands <= 4
           && mask_points(kernel, 1.0) > 0;
}

int tg_resample_resize(const tg_pixels *in, double hscale, double vscale, int kernel, int vector,
                       int strip, uint8_t *out, size_t out_stride, int out_width, int out_height) {
    if (!supported(in, kernel) || hscale > 1.0 || vscale > 1.0) return -1;
    // resize.c: neither axis below one pixel; no step along an axis that keeps its size.
    hscale = fmax(hscale, 1.0 / in->width);
    vscale = fmax(vscale, 1.0 / in->height);
    return reduce_both(in, 1.0 / hscale, 1.0 / vscale, 2.0, kernel,
                       vector, strip, out, out_stride, out_width, out_height);
}

int tg_resample_shrink_reduce(const tg_pixels *in, int hbox, int vbox, int kernel, int vector,
                              int strip, uint8_t *out, size_t out_stride, int out_width, int out_height) {
    if (!supported(in, kernel) || hbox < 1 || vbox < 1
        || in->width % hbox != 0 || in->height % vbox != 0) return -1;
    image rows = { 0 }, both = { 0 };
    const tg_pixels *source = in;
    int status = -1;
    if (vbox > 1) {
        if (shrink_rows(source, vbox, 0, &rows)) goto done;
        source = &rows.view;
    }
    if (hbox > 1) {
        if (shrink_columns(source, hbox, 0, &both)) goto done;
        source = &both.view;
    }
    status = reduce_both(source, (double) source->width / out_width,
                         (double) source->height / out_height, 0.0, kernel, vector, strip, out, out_stride,
                         out_width, out_height);
done:
    free(rows.pixels);
    free(both.pixels);
    return status;
}
