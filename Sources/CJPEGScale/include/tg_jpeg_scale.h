// One entropy decode of a JPEG, shared by every DCT scale made from it.
//
// libjpeg scales while it decodes (an IDCT of 4×4, 2×2 or 1×1 per block for ½, ¼, ⅛), but it
// must Huffman-decode every coefficient of the file whatever the scale, and that is most of a
// scaled decode's cost. A photo whose sizes need two or three scales paid that decode two or
// three times. Here the coefficients are read once (`jpeg_read_coefficients`), and each scale
// is made from them with libjpeg's own reduced IDCTs and its YCbCr-to-RGB arithmetic, so that
// a scale's pixels are the ones libjpeg's scaled decode gives for the same file: the same
// bytes whichever other scales were made from the coefficients.
#ifndef THUMBGEN_JPEG_SCALE_H
#define THUMBGEN_JPEG_SCALE_H

#include <stddef.h>
#include <stdint.h>

/// The DCT coefficients of a JPEG, with what is needed to turn them into pixels.
typedef struct tg_jpeg_coefficients tg_jpeg_coefficients;

/// Reads every coefficient of `data` (a whole JPEG file of `length` bytes) when the file is
/// one whose scaled decodes this reproduces exactly: 8-bit, greyscale or YCbCr sampled 4:4:4,
/// 4:2:2 or 4:2:0, read without a single warning (no damage, no missing data), every
/// progressive refinement present, and every block's coefficients within what a DCT of 8-bit
/// samples gives (beyond it libjpeg's SIMD IDCTs and its C ones part). Returns NULL for
/// anything else, which the caller decodes with libvips instead. `data` is not kept.
tg_jpeg_coefficients *tg_jpeg_coefficients_read(const uint8_t *data, size_t length);

/// The full size of the image, as stored, and its bands (1 for grey, 3 for RGB).
int tg_jpeg_coefficients_width(const tg_jpeg_coefficients *coefficients);
int tg_jpeg_coefficients_height(const tg_jpeg_coefficients *coefficients);
int tg_jpeg_coefficients_bands(const tg_jpeg_coefficients *coefficients);

/// The size the image has at 1/`factor` (2, 4 or 8), as libjpeg rounds it (up).
int tg_jpeg_coefficients_scaled_width(const tg_jpeg_coefficients *coefficients, int factor);
int tg_jpeg_coefficients_scaled_height(const tg_jpeg_coefficients *coefficients, int factor);

/// Writes the top left `width` × `height` of the image at 1/`factor` (2, 4 or 8) into `out`,
/// interleaved 8-bit grey or RGB, rows of `width` pixels with no padding: what libjpeg's decode
/// with `scale_denom` = `factor` and its defaults (islow IDCT, fancy upsampling) writes there.
/// The size may be smaller than the scaled size (libvips rounds it down where libjpeg rounds
/// it up), never larger; `out_length` must hold the pixels. Returns 0, or -1 for another
/// factor or size, too short a buffer or no memory (nothing useful is written). Safe to call
/// from several threads at once.
int tg_jpeg_coefficients_render(const tg_jpeg_coefficients *coefficients, int factor, int width,
                                int height, uint8_t *out, size_t out_length);

/// Frees the coefficients (NULL is ignored).
void tg_jpeg_coefficients_free(tg_jpeg_coefficients *coefficients);

#endif
