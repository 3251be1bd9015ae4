// A JPEG writer that evaluates a libvips image on the calling thread.
//
// libvips' jpegsave builds an operation, converts the image for saving and runs it through
// vips_sink_disc, whose worker threads hand each strip back to the caller: about 0.7 ms an
// output whatever its size, a third of what a 176-pixel thumbnail costs in all (measured with
// scripts/vips_floor.c). This writer asks libvips for the same strips with
// vips_region_prepare on the calling thread and gives them to libjpeg-turbo with the settings
// jpegsave uses for thumbgen's call (strip, optimised Huffman tables), so that its bytes are
// jpegsave's, byte for byte (JPEGWriterTests compares them).
#ifndef THUMBGEN_JPEG_WRITER_H
#define THUMBGEN_JPEG_WRITER_H

#include <stddef.h>

/// The image is not one this writer takes: use jpegsave.
#define TG_JPEG_WRITER_UNSUPPORTED (-2)

/// Encodes `image` (a `VipsImage *`; untyped here, so that libvips' header, which `CVips`
/// already brings to Swift, is included by one module only) as JPEG at `quality` (1–100), progressive when `progressive` is non-zero, as
/// `vips_jpegsave_buffer(in, ..., "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
/// "interlace", progressive)` does: chroma 4:2:0 below quality 90 (4:4:4 throughout with
/// `no_subsample`, as its "subsample_mode" off), 4:4:4 from 90, no JFIF or
/// other markers. Takes 8-bit images of 1 band (grey) or 3 (RGB), uncoded, when libvips gives
/// an image one thread (`vips_concurrency_get() == 1`): otherwise, or for any other image,
/// returns TG_JPEG_WRITER_UNSUPPORTED. Stops between strips when the image is killed. On
/// success returns 0 and a buffer in `*out` (free with `free`); on failure returns -1 with the
/// reason in libvips' error buffer.
int tg_jpeg_write(void *image, int quality, int progressive, int no_subsample, void **out, size_t *length);

/// Builds libjpeg's optimal Huffman table for `counts` (257 entries, the last one the
/// pseudo-symbol's, overwritten as libjpeg does) into `bits` (17 entries, index 0 unused) and
/// `huffval` (256), with thumbgen's function (`library` zero) or libjpeg-turbo's own, found in
/// the loaded library by name (`library` non-zero). Returns 0, or -1 when libjpeg's own cannot
/// be found or the table cannot be built. For tests: encoders reach the function through libjpeg.
int tg_jpeg_huffman_table(long counts[257], unsigned char bits[17], unsigned char huffval[256], int library);

/// How many tables thumbgen's function has built in this process: a test's proof that
/// libjpeg's encoders call it.
unsigned long tg_jpeg_huffman_tables_built(void);

#endif
