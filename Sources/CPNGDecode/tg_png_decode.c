#include "tg_png_decode.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// MARK: - Filters (PNG specification, section 9)

static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t) (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

#if defined(__SSE2__)
// A pixel of 3 or 4 bytes as 16-bit lanes, and back. Loads and stores of a 3-byte pixel touch
// 3 bytes only: the row buffers have no slack to spare at their ends.
// Always inlined where `bpp` is a constant, so that the copies are single moves.
#define TG_INLINE static inline __attribute__((always_inline))

TG_INLINE __m128i load_pixel(const uint8_t *p, int bpp) {
    uint32_t v = 0;
    memcpy(&v, p, (size_t) bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int) v), _mm_setzero_si128());
}

TG_INLINE void store_pixel(uint8_t *p, __m128i v, int bpp) {
    uint32_t packed = (uint32_t) _mm_cvtsi128_si32(_mm_packus_epi16(v, v));
    memcpy(p, &packed, (size_t) bpp);
}

static inline __m128i abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

static inline __m128i select16(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

// Paeth over whole pixels: the predictor's three distances in 16-bit lanes, the spec's order of
// preference kept by replacing `a` only on a strictly smaller distance.
TG_INLINE void paeth_pixels(const uint8_t *raw, const uint8_t *previous, uint8_t *out, size_t row_bytes, int bpp) {
    const __m128i mask = _mm_set1_epi16(0xff);
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    for (size_t i = 0; i < row_bytes; i += (size_t) bpp) {
        __m128i b = load_pixel(previous + i, bpp);
        __m128i x = load_pixel(raw + i, bpp);
        __m128i to_b = _mm_sub_epi16(b, c), to_a = _mm_sub_epi16(a, c);
        __m128i pa = abs16(to_b), pb = abs16(to_a), pc = abs16(_mm_add_epi16(to_b, to_a));
        __m128i nearest = a;
        __m128i b_nearer = _mm_cmpgt_epi16(pa, pb);
        nearest = select16(b_nearer, b, nearest);
        pa = _mm_min_epi16(pa, pb);
        nearest = select16(_mm_cmpgt_epi16(pa, pc), c, nearest);
        a = _mm_and_si128(_mm_add_epi16(x, nearest), mask);
        store_pixel(out + i, a, bpp);
        c = b;
    }
}

TG_INLINE void average_pixels(const uint8_t *raw, const uint8_t *previous, uint8_t *out, size_t row_bytes, int bpp) {
    const __m128i mask = _mm_set1_epi16(0xff);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < row_bytes; i += (size_t) bpp) {
        __m128i b = load_pixel(previous + i, bpp);
        __m128i x = load_pixel(raw + i, bpp);
        a = _mm_and_si128(_mm_add_epi16(x, _mm_srli_epi16(_mm_add_epi16(a, b), 1)), mask);
        store_pixel(out + i, a, bpp);
    }
}
TG_INLINE void sub_pixels(const uint8_t *raw, uint8_t *out, size_t row_bytes, int bpp) {
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < row_bytes; i += (size_t) bpp) {
        uint32_t v = 0;
        memcpy(&v, raw + i, (size_t) bpp);
        a = _mm_add_epi8(a, _mm_cvtsi32_si128((int) v));
        uint32_t packed = (uint32_t) _mm_cvtsi128_si32(a);
        memcpy(out + i, &packed, (size_t) bpp);
    }
}

/// Sub, Average or Paeth (`filter` 1, 3, 4) over a row of 3- or 4-byte pixels, each
/// specialised for its pixel size.
static void filter_pixels(int filter, const uint8_t *raw, const uint8_t *previous, uint8_t *out,
                          size_t row_bytes, int bpp) {
    if (bpp == 3) {
        if (filter == 1) sub_pixels(raw, out, row_bytes, 3);
        else if (filter == 3) average_pixels(raw, previous, out, row_bytes, 3);
        else paeth_pixels(raw, previous, out, row_bytes, 3);
    } else {
        if (filter == 1) sub_pixels(raw, out, row_bytes, 4);
        else if (filter == 3) average_pixels(raw, previous, out, row_bytes, 4);
        else paeth_pixels(raw, previous, out, row_bytes, 4);
    }
}
#endif

int tg_png_unfilter_row(int filter, const uint8_t *raw, const uint8_t *previous, uint8_t *out,
                        size_t row_bytes, int bpp) {
    if (bpp < 1 || bpp > 4 || row_bytes % (size_t) bpp != 0) return -1;
    size_t step = (size_t) bpp;
    if (!previous) {
        // Above the first row every byte is 0: Up is None, Paeth is Sub.
        if (filter == 2) filter = 0;
        else if (filter == 4) filter = 1;
    }
#if defined(__SSE2__)
    // Sub, Average and Paeth over whole pixels of 3 or 4 bytes in vector code (Average and
    // Paeth with a row above; the first row's Average is the scalar loop below).
    if (bpp >= 3 && (filter == 1 || (previous && (filter == 3 || filter == 4)))) {
        filter_pixels(filter, raw, previous, out, row_bytes, bpp);
        return 0;
    }
#endif
    switch (filter) {
    case 0:
        memmove(out, raw, row_bytes);
        return 0;
    case 1:
        memmove(out, raw, step < row_bytes ? step : row_bytes);
        for (size_t i = step; i < row_bytes; i++) out[i] = (uint8_t) (raw[i] + out[i - step]);
        return 0;
    case 2:
        for (size_t i = 0; i < row_bytes; i++) out[i] = (uint8_t) (raw[i] + previous[i]);
        return 0;
    case 3:
        if (!previous) {
            for (size_t i = 0; i < row_bytes; i++) out[i] = (uint8_t) (raw[i] + (i >= step ? out[i - step] >> 1 : 0));
            return 0;
        }
        for (size_t i = 0; i < row_bytes; i++) {
            int left = i >= step ? out[i - step] : 0;
            out[i] = (uint8_t) (raw[i] + ((left + previous[i]) >> 1));
        }
        return 0;
    case 4:
        for (size_t i = 0; i < row_bytes; i++) {
            int a = i >= step ? out[i - step] : 0, c = i >= step ? previous[i - step] : 0;
            out[i] = (uint8_t) (raw[i] + paeth(a, previous[i], c));
        }
        return 0;
    default:
        return -1;
    }
}

// MARK: - Chunks

/// The signature and the IHDR chunk's length, type and data: what `takes_header` reads.
enum { TG_PNG_HEADER_BYTES = 8 + 8 + 13 };

static inline uint32_t be32(const uint8_t *p) {
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/// A chunk's CRC (over its type and data) is what the file says.
static int crc_matches(const uint8_t *chunk, uint32_t length) {
    return libdeflate_crc32(0, chunk + 4, (size_t) length + 4) == be32(chunk + 8 + length);
}

/// Whether the first `size` bytes of a file (at least `TG_PNG_HEADER_BYTES`) are a PNG's
/// signature and an IHDR this reader takes: 8 bits a sample, deflate, the adaptive filters, no
/// interlace, grey, grey and alpha, RGB or RGBA; its size and bands set when so.
static int takes_header(const uint8_t *data, size_t size, int *width, int *height, int *bands) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < TG_PNG_HEADER_BYTES || memcmp(data, signature, 8) != 0) return 0;
    if (be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0) return 0;
    const uint8_t *h = data + 16;
    uint32_t w = be32(h), hh = be32(h + 4);
    if (w == 0 || hh == 0 || w > 0x7fffffffu || hh > 0x7fffffffu) return 0;
    if (h[8] != 8 || h[10] != 0 || h[11] != 0 || h[12] != 0) return 0;
    switch (h[9]) {
    case 0: *bands = 1; break;
    case 2: *bands = 3; break;
    case 4: *bands = 2; break;
    case 6: *bands = 4; break;
    default: return 0;
    }
    *width = (int) w;
    *height = (int) hh;
    return 1;
}

/// The image data of the PNG in `data`: `idat` set to the zlib stream (the one IDAT's data in
/// the file, or the IDATs' data copied into `*joined`, which the caller frees). 0, or -1 when
/// the file is not one this reader takes (see the header).
static int read_chunks(const uint8_t *data, size_t size, int *width, int *height, int *bands,
                       const uint8_t **idat, size_t *idat_size, uint8_t **joined) {
    if (size < TG_PNG_HEADER_BYTES) return -1;  // the walk below starts past the signature
    size_t offset = 8, first_idat = 0, idats = 0, idat_bytes = 0;
    int seen_ihdr = 0, colour = -1, in_idat = 0, ended_idat = 0, palettes = 0;
    for (;;) {
        if (size - offset < 12) return -1;
        const uint8_t *chunk = data + offset;
        uint32_t length = be32(chunk);
        if (length > 0x7fffffffu || size - offset - 12 < length) return -1;
        const uint8_t *type = chunk + 4;
        int critical = !(type[0] & 0x20);
        if (!seen_ihdr) {
            if (!takes_header(data, size, width, height, bands) || !crc_matches(chunk, length)) return -1;
            colour = chunk[8 + 9];
            seen_ihdr = 1;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            if (ended_idat || !crc_matches(chunk, length)) return -1;
            if (!in_idat) first_idat = offset;
            in_idat = 1;
            idats++;
            idat_bytes += length;
        } else {
            if (in_idat) ended_idat = 1, in_idat = 0;
            if (memcmp(type, "IEND", 4) == 0) break;
            // libvips adds an alpha band for tRNS, and a palette for grey is an error.
            if (memcmp(type, "tRNS", 4) == 0) return -1;
            if (memcmp(type, "PLTE", 4) == 0) {
                // A suggested palette, which libpng skips: once, before the image data.
                if ((colour != 2 && colour != 6) || palettes++ || idats) return -1;
            } else if (critical || memcmp(type, "IHDR", 4) == 0) {
                return -1;
            }
        }
        offset += 12 + (size_t) length;
    }
    if (idats == 0) return -1;
    if (idats == 1) {
        *idat = data + first_idat + 8;
        *idat_size = idat_bytes;
        return 0;
    }
    uint8_t *all = malloc(idat_bytes ? idat_bytes : 1);
    if (!all) return -1;
    size_t at = 0;
    for (size_t o = first_idat; at < idat_bytes;) {
        uint32_t length = be32(data + o);
        memcpy(all + at, data + o + 8, length);
        at += length;
        o += 12 + (size_t) length;
    }
    *joined = all;
    *idat = all;
    *idat_size = idat_bytes;
    return 0;
}

// MARK: - Decoding

int tg_png_decode(const uint8_t *data, size_t size, size_t max_bytes, tg_png_pixels *out) {
    int width = 0, height = 0, bands = 0;
    const uint8_t *idat = NULL;
    size_t idat_size = 0;
    uint8_t *joined = NULL;
    if (read_chunks(data, size, &width, &height, &bands, &idat, &idat_size, &joined) != 0) return -1;
    int result = -1;
    uint8_t *inflated = NULL;
    struct libdeflate_decompressor *inflater = NULL;
    size_t row_bytes = (size_t) width * (size_t) bands;
    // A zlib stream with a window other than 32 KiB is one zlib may refuse (a distance too far
    // back) and libdeflate would not: left to libvips.
    if (idat_size < 2 || (idat[0] & 0x0f) != 8 || (idat[0] >> 4) != 7) goto done;
    if (row_bytes / (size_t) bands != (size_t) width || row_bytes > max_bytes
        || (size_t) height > max_bytes / row_bytes) goto done;
    size_t stream_bytes = (size_t) height * (row_bytes + 1);
    inflated = malloc(stream_bytes);
    inflater = libdeflate_alloc_decompressor();
    if (!inflated || !inflater) goto done;
    size_t used = 0, made = 0;
    if (libdeflate_zlib_decompress_ex(inflater, idat, idat_size, inflated, stream_bytes, &used, &made)
            != LIBDEFLATE_SUCCESS || used != idat_size || made != stream_bytes) goto done;
    // Each row is undone into its place at the front of the same buffer: row y's pixels
    // land y + 1 bytes before its filtered bytes and end before row y + 1's filter byte, so no
    // byte is overwritten before it is read (`tg_png_unfilter_row`).
    const uint8_t *previous = NULL;
    for (size_t y = 0; y < (size_t) height; y++) {
        const uint8_t *line = inflated + y * (row_bytes + 1);
        uint8_t *target = inflated + y * row_bytes;
        if (tg_png_unfilter_row(line[0], line + 1, previous, target, row_bytes, bands) != 0) goto done;
        previous = target;
    }
    uint8_t *pixels = realloc(inflated, row_bytes * (size_t) height);
    if (pixels) inflated = pixels;
    out->pixels = inflated;
    out->width = width;
    out->height = height;
    out->bands = bands;
    inflated = NULL;
    result = 0;
done:
    libdeflate_free_decompressor(inflater);
    free(inflated);
    free(joined);
    return result;
}

int tg_png_decode_file(const char *path, size_t max_bytes, tg_png_pixels *out) {
    // Read, not mapped: a file cut short while mapped would kill the process with SIGBUS.
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info;
    uint8_t *data = NULL;
    size_t size = 0;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0
        && (uint64_t) info.st_size <= (uint64_t) SIZE_MAX) {
        size = (size_t) info.st_size;
        data = malloc(size);
    }
    size_t got = 0;
    // The header first: a PNG this reader leaves to libvips (a palette, 16 bits, interlaced)
    // costs no read of the whole file.
    int width, height, bands;
    while (data && got < TG_PNG_HEADER_BYTES && got < size) {
        ssize_t n = read(fd, data + got, TG_PNG_HEADER_BYTES - got);
        if (n <= 0) break;
        got += (size_t) n;
    }
    if (data && !takes_header(data, got, &width, &height, &bands)) {
        close(fd);
        free(data);
        return -1;
    }
    while (data && got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n <= 0) break;
        got += (size_t) n;
    }
    close(fd);
    int result = data && got == size ? tg_png_decode(data, size, max_bytes, out) : -1;
    free(data);
    return result;
}
