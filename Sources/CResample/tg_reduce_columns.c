// reduceh.cpp's sums of products, eight output values at a time.
//
// Each output value is one dot product of a 16-bit mask with 16-bit pixels over `wide` taps.
// Summed one value at a time, as the portable loop in tg_resample.c does, each sum ends in a
// horizontal add across the vector, which for the short masks of a small thumbnail (16 taps:
// one multiply-add) costs more than the products. Here eight values' vectors are added
// across together (a tree of `hadd`s), and the eight results rounded, clipped and stored
// with one pack. Integer sums: the order of the additions changes no value, so the bytes are
// the portable loop's (`NativeResampleTests` compares both with libvips).
#include "tg_reduce_columns.h"

#include <stddef.h>

#define INTERPOLATE_SHIFT 12        // VIPS_INTERPOLATE_SHIFT, as in tg_resample.c
#define INTERPOLATE_ROUND (1 << (INTERPOLATE_SHIFT - 1))

#if defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>

int tg_reduce_columns_has_avx2(void) {
    return __builtin_cpu_supports("avx2");
}

// The eight int32 partial sums of one value, over all its taps.
__attribute__((target("avx2")))
static inline __m256i dot(const int16_t *c, const int16_t *p, int wide) {
    __m256i sum = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) c),
                                    _mm256_loadu_si256((const __m256i *) p));
    for (int i = 16; i < wide; i += 16) {
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) (c + i)),
                                                      _mm256_loadu_si256((const __m256i *) (p + i))));
    }
    return sum;
}

// Each of eight vectors added across, in order: [sum(v[0]), ..., sum(v[7])].
__attribute__((target("avx2")))
static inline __m256i add_across(const __m256i v[8]) {
    // Within each 128-bit lane, hadd sums neighbours: after two rounds, lane 0 of `low` holds
    // the low halves' sums of v[0..3] and lane 1 their high halves'.
    const __m256i low = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
    const __m256i high = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(low, high, 0x20),
                            _mm256_permute2x128_si256(low, high, 0x31));
}

static inline uint8_t clip(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v; }

__attribute__((target("avx2")))
void tg_reduce_columns_avx2(const int16_t *planes, int plane_width, int bands, const int *lefts,
                            const int16_t *const *masks, int wide, int out_width, uint8_t *out) {
    const int count = out_width * bands;
    const __m256i round = _mm256_set1_epi32(INTERPOLATE_ROUND);
    int k = 0;
    // Values in output order, x by x and band by band within a pixel.
    int x = 0, b = 0;
    for (; k + 8 <= count; k += 8) {
        __m256i sums[8];
        for (int j = 0; j < 8; j++) {
            sums[j] = dot(masks[x], planes + (size_t) b * plane_width + lefts[x], wide);
            if (++b == bands) { b = 0; x++; }
        }
        const __m256i shifted = _mm256_srai_epi32(_mm256_add_epi32(add_across(sums), round),
                                                  INTERPOLATE_SHIFT);
        // Saturating packs: to 16 bits, then to 0..255, which is clipping to 0..255.
        const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(shifted),
                                              _mm256_extracti128_si256(shifted, 1));
        _mm_storel_epi64((__m128i *) (out + k), _mm_packus_epi16(words, words));
    }
    for (; k < count; k++) {
        const __m256i one = dot(masks[x], planes + (size_t) b * plane_width + lefts[x], wide);
        const __m128i half = _mm_add_epi32(_mm256_castsi256_si128(one), _mm256_extracti128_si256(one, 1));
        const __m128i pairs = _mm_hadd_epi32(half, half);
        const int sum = _mm_cvtsi128_si32(_mm_hadd_epi32(pairs, pairs));
        out[k] = clip((sum + INTERPOLATE_ROUND) >> INTERPOLATE_SHIFT);
        if (++b == bands) { b = 0; x++; }
    }
}

#else

int tg_reduce_columns_has_avx2(void) {
    return 0;
}

void tg_reduce_columns_avx2(const int16_t *planes, int plane_width, int bands, const int *lefts,
                            const int16_t *const *masks, int wide, int out_width, uint8_t *out) {
    (void) planes; (void) plane_width; (void) bands; (void) lefts;
    (void) masks; (void) wide; (void) out_width; (void) out;
}

#endif
