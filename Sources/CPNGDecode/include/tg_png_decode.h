// A PNG's pixels decoded in one pass over the whole file: libdeflate's inflate (the library
// libvips already loads through libtiff, two to three times faster than zlib's streamed
// inflate) and the five row filters undone with vector code where a pixel is 3 or 4 bytes.
//
// Only the PNGs whose pixels libvips' `pngload` passes through untouched are taken: 8 bits a
// sample, not interlaced, grey, grey with alpha, RGB or RGBA, no `tRNS`. Anything else, and
// any fault in the file (a chunk past the end, a bad CRC on a critical chunk, a zlib stream
// that is short, long, or followed by more data, a window other than 32 KiB, a filter type
// past 4, an unknown critical chunk, no IEND), makes it return NULL: the caller then lets
// libvips read the file, which reports or tolerates the fault as it always has.
#ifndef THUMBGEN_PNG_DECODE_H
#define THUMBGEN_PNG_DECODE_H
#include <stddef.h>
#include <stdint.h>

/// A decoded PNG: `height` rows of `width` × `bands` bytes with no gaps, in a buffer from
/// `malloc` that the caller frees.
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
    int bands;
} tg_png_pixels;

/// Decodes the PNG file at `path` into `out` when it is one this reader takes and its
/// pixels are at most `max_bytes`; returns 0, or -1 (nothing to free) otherwise.
int tg_png_decode_file(const char *path, size_t max_bytes, tg_png_pixels *out);

/// The same for a PNG held in memory: `size` bytes at `data`.
int tg_png_decode(const uint8_t *data, size_t size, size_t max_bytes, tg_png_pixels *out);

/// Undoes one row's filter: `raw` (its `row_bytes` bytes after the filter type byte) into
/// `out`, with `previous` the row above after its own filter was undone (NULL for the first
/// row) and `bpp` bytes a pixel (1 to 4). `out` may lie before `raw` in one buffer (the
/// decoder undoes rows in place), never after it: each byte is read before any byte after it
/// is written. Returns 0, or -1 for a filter type past 4 or a row of partial pixels.
/// Exposed for the tests, which hold it to a plain reading of the PNG specification.
int tg_png_unfilter_row(int filter, const uint8_t *raw, const uint8_t *previous, uint8_t *out,
                        size_t row_bytes, int bpp);

#endif
