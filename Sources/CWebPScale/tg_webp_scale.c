#include "tg_webp_scale.h"

#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

struct tg_webp_planes {
    WebPDecBuffer buffer;
    int width, height, has_alpha;
};

enum { LARGEST_SIDE = 16383 };

// ---------------------------------------------------------------------------------------------
// Area averaging

// n / d rounded to nearest, without a division per pixel: d is the same for a whole plane, so
// its reciprocal is worked out once (`magic` = ceil(2^64 / d)). The result is exact for
// n < 256·d and d < 2^28 (what a plane of 8-bit pixels up to 16383 a side gives): the error
// of the reciprocal, under d, times n, stays below 2^64.
typedef struct {
    uint64_t divisor;
    uint64_t magic;
} Divider;

static Divider divider_make(uint64_t divisor) {
    Divider divider = {divisor, divisor > 1 ? UINT64_MAX / divisor + 1 : 0};
    return divider;
}

static inline uint8_t divide_rounded(Divider divider, uint64_t n) {
    uint64_t value = n + divider.divisor / 2;
    if (divider.divisor == 1) return (uint8_t) n;
    return (uint8_t) (((unsigned __int128) value * divider.magic) >> 64);
}

// Where one axis of the output reads the source: in units where a source pixel is `dst` long
// and an output pixel `src` long (so both spans are whole numbers), output pixel k covers
// [k·src, (k+1)·src) and source pixel i covers [i·dst, (i+1)·dst); the weight of i in k is the
// length they share.
typedef struct {
    int *first;       // per output pixel: its first source pixel
    int *count;       // per output pixel: how many source pixels it covers
    int *offset;      // per output pixel: where its weights start in `weights`
    uint32_t *weights;
} Axis;

static void axis_free(Axis *axis) {
    free(axis->first);
    free(axis->count);
    free(axis->offset);
    free(axis->weights);
}

static int axis_make(Axis *axis, int src, int dst) {
    memset(axis, 0, sizeof *axis);
    axis->first = malloc(sizeof(int) * (size_t) dst);
    axis->count = malloc(sizeof(int) * (size_t) dst);
    axis->offset = malloc(sizeof(int) * (size_t) dst);
    // Each output pixel covers at most src/dst + 2 source pixels; the sum over all of them is
    // at most src + dst.
    axis->weights = malloc(sizeof(uint32_t) * ((size_t) src + (size_t) dst));
    if (!axis->first || !axis->count || !axis->offset || !axis->weights) {
        axis_free(axis);
        return -1;
    }
    int next = 0;
    for (int k = 0; k < dst; k++) {
        int64_t start = (int64_t) k * src, end = (int64_t) (k + 1) * src;
        int first = (int) (start / dst);
        int last = (int) ((end - 1) / dst);
        axis->first[k] = first;
        axis->count[k] = last - first + 1;
        axis->offset[k] = next;
        for (int i = first; i <= last; i++) {
            int64_t from = (int64_t) i * dst > start ? (int64_t) i * dst : start;
            int64_t to = (int64_t) (i + 1) * dst < end ? (int64_t) (i + 1) * dst : end;
            axis->weights[next++] = (uint32_t) (to - from);
        }
    }
    return 0;
}

int tg_area_average(const uint8_t *src, int src_width, int src_height, size_t src_stride,
                    uint8_t *dst, int dst_width, int dst_height, size_t dst_stride) {
    if (src_width < 1 || src_height < 1 || dst_width < 1 || dst_height < 1
        || src_width > LARGEST_SIDE || src_height > LARGEST_SIDE
        || dst_width > LARGEST_SIDE || dst_height > LARGEST_SIDE) return -1;
    Axis columns, rows;
    if (axis_make(&columns, src_width, dst_width)) return -1;
    if (axis_make(&rows, src_height, dst_height)) {
        axis_free(&columns);
        return -1;
    }
    // One output row's source rows, weighted and summed per source column: at most
    // 255 × src_height, which fits 32 bits.
    uint32_t *sums = malloc(sizeof(uint32_t) * (size_t) src_width);
    if (!sums) {
        axis_free(&columns);
        axis_free(&rows);
        return -1;
    }
    // Every output pixel's weights add up to src_width × src_height.
    Divider divider = divider_make((uint64_t) src_width * (uint64_t) src_height);
    for (int y = 0; y < dst_height; y++) {
        memset(sums, 0, sizeof(uint32_t) * (size_t) src_width);
        const uint32_t *row_weights = rows.weights + rows.offset[y];
        for (int j = 0; j < rows.count[y]; j++) {
            const uint8_t *line = src + (size_t) (rows.first[y] + j) * src_stride;
            uint32_t weight = row_weights[j];
            for (int i = 0; i < src_width; i++) sums[i] += weight * line[i];
        }
        uint8_t *out = dst + (size_t) y * dst_stride;
        for (int x = 0; x < dst_width; x++) {
            const uint32_t *weights = columns.weights + columns.offset[x];
            const uint32_t *column = sums + columns.first[x];
            uint64_t total = 0;
            for (int i = 0; i < columns.count[x]; i++) total += (uint64_t) weights[i] * column[i];
            out[x] = divide_rounded(divider, total);
        }
    }
    free(sums);
    axis_free(&columns);
    axis_free(&rows);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Planes

tg_webp_planes *tg_webp_planes_decode(const uint8_t *data, size_t length) {
    WebPDecoderConfig config;
    if (!data || !WebPInitDecoderConfig(&config)) return NULL;
    if (WebPGetFeatures(data, length, &config.input) != VP8_STATUS_OK) return NULL;
    // 1 is lossy (VP8, alpha or not); 2 is lossless, 0 mixed (animations).
    if (config.input.has_animation || config.input.format != 1) return NULL;
    if (config.input.width < 1 || config.input.height < 1
        || config.input.width > LARGEST_SIDE || config.input.height > LARGEST_SIDE) return NULL;
    config.output.colorspace = config.input.has_alpha ? MODE_YUVA : MODE_YUV;
    if (WebPDecode(data, length, &config) != VP8_STATUS_OK) {
        WebPFreeDecBuffer(&config.output);
        return NULL;
    }
    tg_webp_planes *planes = malloc(sizeof *planes);
    if (!planes) {
        WebPFreeDecBuffer(&config.output);
        return NULL;
    }
    planes->buffer = config.output;
    planes->width = config.output.width;
    planes->height = config.output.height;
    planes->has_alpha = config.input.has_alpha && config.output.u.YUVA.a != NULL;
    return planes;
}

int tg_webp_planes_width(const tg_webp_planes *planes) { return planes->width; }
int tg_webp_planes_height(const tg_webp_planes *planes) { return planes->height; }
int tg_webp_planes_has_alpha(const tg_webp_planes *planes) { return planes->has_alpha; }

size_t tg_webp_planes_bytes(const tg_webp_planes *planes) {
    const WebPYUVABuffer *yuva = &planes->buffer.u.YUVA;
    return yuva->y_size + yuva->u_size + yuva->v_size + (planes->has_alpha ? yuva->a_size : 0);
}

void tg_webp_planes_free(tg_webp_planes *planes) {
    if (!planes) return;
    WebPFreeDecBuffer(&planes->buffer);
    free(planes);
}

// BT.601 limited range (VP8's YUV) to 8-bit RGB, in 16-bit fixed point.
static inline uint8_t clip_shifted(int32_t value) {
    if (value < 0) return 0;
    value >>= 16;
    return value > 255 ? 255 : (uint8_t) value;
}

int tg_webp_planes_render(const tg_webp_planes *planes, int width, int height, uint8_t *out,
                          size_t out_length) {
    int bands = planes->has_alpha ? 4 : 3;
    // The half-size chroma planes are only ever reduced: at most half the size, rounded.
    if (width < 1 || height < 1 || width > (planes->width + 1) / 2
        || height > (planes->height + 1) / 2) return -1;
    if (out_length < (size_t) width * (size_t) height * (size_t) bands) return -1;
    const WebPYUVABuffer *yuva = &planes->buffer.u.YUVA;
    size_t area = (size_t) width * (size_t) height;
    uint8_t *scaled = malloc(area * (size_t) bands);
    if (!scaled) return -1;
    uint8_t *y = scaled, *u = scaled + area, *v = scaled + 2 * area, *a = scaled + 3 * area;
    int chroma_width = (planes->width + 1) / 2, chroma_height = (planes->height + 1) / 2;
    int failed = tg_area_average(yuva->y, planes->width, planes->height, (size_t) yuva->y_stride,
                                 y, width, height, (size_t) width)
        || tg_area_average(yuva->u, chroma_width, chroma_height, (size_t) yuva->u_stride,
                           u, width, height, (size_t) width)
        || tg_area_average(yuva->v, chroma_width, chroma_height, (size_t) yuva->v_stride,
                           v, width, height, (size_t) width)
        || (bands == 4 && tg_area_average(yuva->a, planes->width, planes->height,
                                          (size_t) yuva->a_stride, a, width, height, (size_t) width));
    if (failed) {
        free(scaled);
        return -1;
    }
    for (size_t p = 0; p < area; p++) {
        int32_t luma = 76309 * ((int32_t) y[p] - 16) + 32768;
        int32_t cb = (int32_t) u[p] - 128, cr = (int32_t) v[p] - 128;
        uint8_t *pixel = out + p * (size_t) bands;
        pixel[0] = clip_shifted(luma + 104597 * cr);
        pixel[1] = clip_shifted(luma - 25675 * cb - 53279 * cr);
        pixel[2] = clip_shifted(luma + 132201 * cb);
        if (bands == 4) pixel[3] = a[p];
    }
    free(scaled);
    return 0;
}
