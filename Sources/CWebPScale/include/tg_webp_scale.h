// One decode of a lossy WebP, shared by every size made from it.
//
// libwebp scales while it decodes, so libvips' webpload at a scale decodes the whole VP8
// bitstream again for each size: a photo at 320, 640 and 1280 pixels pays three full decodes
// (about 110 ms each for 4096×4096) where the scaling itself costs a few milliseconds. Here the
// bitstream is decoded once into its Y, U, V (and alpha) planes, and each size is an area
// average of those planes converted to RGB, as libwebp's own scaler does, so that each size
// costs the averaging alone. A size's pixels depend only on the planes and the size asked
// for, never on which other sizes were made from them.
#ifndef THUMBGEN_WEBP_SCALE_H
#define THUMBGEN_WEBP_SCALE_H

#include <stddef.h>
#include <stdint.h>

/// A lossy WebP decoded into its planes: full-size Y and alpha, half-size U and V.
typedef struct tg_webp_planes tg_webp_planes;

/// Decodes `data` (a whole WebP file of `length` bytes) into planes when it is a still lossy
/// image (VP8, with or without an alpha plane); returns NULL for anything else (lossless,
/// animated, damaged), which the caller decodes with libvips instead. `data` is not kept.
tg_webp_planes *tg_webp_planes_decode(const uint8_t *data, size_t length);

/// The full size of the decoded image, and whether it has an alpha plane.
int tg_webp_planes_width(const tg_webp_planes *planes);
int tg_webp_planes_height(const tg_webp_planes *planes);
int tg_webp_planes_has_alpha(const tg_webp_planes *planes);

/// Bytes the planes hold.
size_t tg_webp_planes_bytes(const tg_webp_planes *planes);

/// Writes the image at `width` × `height` into `out` as interleaved 8-bit RGB, or RGBA with
/// an alpha plane (not premultiplied), rows of `width` pixels with no padding: each plane
/// area-averaged to the size, then BT.601 limited-range YUV to RGB. The size must be at
/// least 1 × 1 and at most half the full size, rounded (so that the half-size chroma planes
/// are only ever reduced); `out_length` must hold the pixels. Returns 0, or -1 when a size or
/// the length is out of range (nothing is written).
int tg_webp_planes_render(const tg_webp_planes *planes, int width, int height, uint8_t *out,
                          size_t out_length);

/// Frees the planes (NULL is ignored).
void tg_webp_planes_free(tg_webp_planes *planes);

/// Area-averages one 8-bit plane (`src_width` × `src_height`, rows `src_stride` bytes apart)
/// into `dst` (`dst_width` × `dst_height`, rows `dst_stride` bytes apart): each output pixel is
/// the mean of the source area it covers, source pixels cut by its edges weighted by the part
/// inside, rounded to nearest. Any sizes from 1 to 16383 (WebP's largest), up or down. Exact
/// integer arithmetic, so the same bytes on every machine. Returns 0, or -1 when a size is out
/// of range or memory runs out (nothing is written).
int tg_area_average(const uint8_t *src, int src_width, int src_height, size_t src_stride,
                    uint8_t *dst, int dst_width, int dst_height, size_t dst_stride);

#endif
