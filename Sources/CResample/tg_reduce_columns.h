// The horizontal reduce's inner loop for processors with AVX2 (tg_reduce_columns.c), used by
// tg_resample.c. Not part of the module's interface.
#ifndef THUMBGEN_REDUCE_COLUMNS_H
#define THUMBGEN_REDUCE_COLUMNS_H

#include <stdint.h>

/// Whether `tg_reduce_columns_avx2` may run here.
int tg_reduce_columns_has_avx2(void);

/// One row of reduceh.cpp's output, `out_width` × `bands` values into `out`: the value of
/// output pixel x, band b is the sum over `wide` taps (a multiple of 16) of `masks[x][i]` ×
/// `planes[b * plane_width + lefts[x] + i]`, rounded and clipped as libvips does. Every
/// plane must be readable `wide` values past `lefts[x]` for each x.
void tg_reduce_columns_avx2(const int16_t *planes, int plane_width, int bands, const int *lefts,
                            const int16_t *const *masks, int wide, int out_width, uint8_t *out);

#endif
