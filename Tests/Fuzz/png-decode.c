// sources: CPNGDecode/tg_png_decode.c
// libs: -ldeflate
#include <stdlib.h>
#include <string.h>

#include "tg_png_decode.h"

// The PNG reader over any bytes: never read or write outside its buffers, never leak. A file
// it takes has as many pixels as it says; the limit it is given is kept.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tg_png_pixels out;
    memset(&out, 0, sizeof out);
    size_t limit = 1u << 24;
    if (tg_png_decode(data, size, limit, &out) == 0) {
        size_t bytes = (size_t) out.width * (size_t) out.height * (size_t) out.bands;
        if (bytes == 0 || bytes > limit || out.bands < 1 || out.bands > 4) abort();
        volatile uint8_t last = out.pixels[bytes - 1];
        (void) last;
        free(out.pixels);
    }
    return 0;
}
