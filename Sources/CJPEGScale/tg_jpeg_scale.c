#include "tg_jpeg_scale.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

// The loops over every block or sample of a source are built for AVX2 too, and the one the
// processor runs is picked when the library loads, as `CResample`'s are: baseline x86-64 has no
// 32-bit multiply (SSE2 makes one of two 64-bit multiplies and four shuffles). Integer
// arithmetic, so both builds give the same results.
#if defined(__x86_64__) && defined(__linux__)
#define TG_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TG_VECTOR_CLONES
#endif

// libjpeg's reduced inverse DCTs: public symbols of libjpeg-turbo, declared in its private
// jdct.h. Each turns one 8×8 block of quantised coefficients into an N×N block of samples,
// reading only `cinfo->sample_range_limit` and `compptr->dct_table` besides its arguments.
typedef void (*Idct)(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);
extern void jpeg_idct_islow(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);
extern void jpeg_idct_4x4(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);
extern void jpeg_idct_2x2(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);
extern void jpeg_idct_1x1(j_decompress_ptr, jpeg_component_info *, JCOEFPTR, JSAMPARRAY, JDIMENSION);

// The type of the islow IDCTs' multiplier table: jmorecfg.h's MULTIPLIER, which it defines only
// for libjpeg's own files (short where the library was built with SIMD, as jconfig.h says).
#ifdef WITH_SIMD
typedef short Multiplier;
#else
typedef int Multiplier;
#endif

enum { COMPONENTS_MAX = 3, RANGE_TABLE = 5 * (MAXJSAMPLE + 1) + CENTERJSAMPLE };

typedef struct {
    int h, v;                      // sampling factors
    int blocks_wide, blocks_high;  // blocks holding image data
    JBLOCKROW *rows;               // blocks_high rows of blocks_wide blocks of 64, natural
                                   // order, in libjpeg's arrays (`decoder` keeps them)
    Multiplier quantisers[DCTSIZE2];  // the islow IDCT's multipliers: the quantisation steps
} Component;

struct tg_jpeg_coefficients {
    // The decompressor that read the coefficients, kept alive (never called again but to be
    // destroyed) because its memory holds them: copying them out would hold them twice.
    struct jpeg_decompress_struct *decoder;
    struct jpeg_error_mgr *errors;
    int width, height, count, max_h, max_v;
    Component components[COMPONENTS_MAX];
    JSAMPLE range[RANGE_TABLE];
};

// ---------------------------------------------------------------------------------------------
// Reading

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
} ErrorTrap;

// libjpeg reports errors by calling error_exit, which must not return: it jumps back.
static void trap_error_exit(j_common_ptr cinfo) {
    longjmp(((ErrorTrap *) cinfo->err)->jump, 1);
}

// Warnings (damaged data that libjpeg papers over) are counted, never printed: a file with
// any is left to libvips, whose handling of damage the caller's limits govern.
static void trap_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) cinfo->err->num_warnings++;
}

static void trap_output_message(j_common_ptr cinfo) { (void) cinfo; }

// The size of component `c`'s IDCT output per block when the image is decoded with
// `min_size` (8 / factor) samples per luma block: libjpeg scales chroma up in the IDCT rather
// than in the upsampler where the sampling factors allow (jdmaster.c), and so must this.
static int scaled_block_size(const struct tg_jpeg_coefficients *c, const Component *component,
                             int min_size) {
    int size = min_size;
    while (size < DCTSIZE && (c->max_h * min_size) % (component->h * size * 2) == 0
           && (c->max_v * min_size) % (component->v * size * 2) == 0) {
        size *= 2;
    }
    return size;
}

// How many output columns one column of component `component`'s scaled samples covers at
// `min_size`: 1, or 2 where libjpeg upsamples it horizontally (4:2:2); 0 for any other case.
static int horizontal_ratio(const struct tg_jpeg_coefficients *c, const Component *component, int min_size) {
    int size = scaled_block_size(c, component, min_size);
    if (component->v * size != c->max_v * min_size) return 0;
    if (component->h * size == c->max_h * min_size) return 1;
    return component->h * size * 2 == c->max_h * min_size ? 2 : 0;
}

// Whether libjpeg's scaled decodes of every factor need no upsampler but its horizontal
// doubling (4:4:4, 4:2:2, 4:2:0 and grey): the only cases reproduced here.
static int has_reproducible_sampling(const struct tg_jpeg_coefficients *c) {
    for (int min_size = 1; min_size <= 4; min_size *= 2) {
        for (int i = 0; i < c->count; i++) {
            if (horizontal_ratio(c, &c->components[i], min_size) == 0) return 0;
        }
    }
    return 1;
}

// libjpeg's sample range table (jdmaster.c, prepare_range_limit_table), which its IDCTs index
// at `range + MAXJSAMPLE + 1 + CENTERJSAMPLE` with the output masked by 4·MAXJSAMPLE + 3:
// plain clamping for -256…511, and wrapping beyond, as libjpeg's own decode gives.
static void fill_range_table(JSAMPLE *table) {
    JSAMPLE *limit = table + MAXJSAMPLE + 1;
    memset(table, 0, MAXJSAMPLE + 1);
    for (int i = 0; i <= MAXJSAMPLE; i++) limit[i] = (JSAMPLE) i;
    JSAMPLE *post = limit + CENTERJSAMPLE;
    for (int i = CENTERJSAMPLE; i < 2 * (MAXJSAMPLE + 1); i++) post[i] = MAXJSAMPLE;
    memset(post + 2 * (MAXJSAMPLE + 1), 0, 2 * (MAXJSAMPLE + 1) - CENTERJSAMPLE);
    memcpy(post + 4 * (MAXJSAMPLE + 1) - CENTERJSAMPLE, limit, CENTERJSAMPLE);
}

// libjpeg's YCbCr → RGB (jdcolor.c): fixed point with 16 fraction bits, each term rounded as
// libjpeg's tables round it, then clamped.
enum { SCALE_BITS = 16 };
#define ONE_HALF ((int32_t) 1 << (SCALE_BITS - 1))
#define FIXED(x) ((int32_t) ((x) * (1L << SCALE_BITS) + 0.5))

// Where libjpeg's own decode and the C IDCTs called here could part. Its decode runs SIMD
// IDCTs, which agree with the C ones bit for bit for the coefficients a DCT of 8-bit samples
// gives, but not beyond: they multiply coefficients by their quantisers in 16 bits, keep the
// first pass in 16 bits, and saturate a sample past its range where the C ones wrap it (a
// sample 512 or more beyond mid-grey comes out at the other end). A damaged or crafted file
// can hold any coefficient, so every block is checked, and a file with one block that could
// part is left to libvips: the pixels of a scale never depend on which path made them.
//
// A block's samples are at most the sum of its dequantised coefficients, each weighted by its
// largest basis value (1/8 for DC, √2/8 for the first row and column, 1/4 for the rest):
// photos' blocks mostly stay far inside. A block that does not is run through a
// floating-point IDCT, and passes when every sample and first-pass value stays well inside
// (`SAMPLE_MARGIN` from mid-grey, leaving room for the reduced IDCTs, which differ from the
// full one by their approximations).
enum { SAMPLE_MARGIN = 384, FIRST_PASS_MARGIN = 2048, PRODUCT_LIMIT = 32767 };

// The JPEG IDCT's basis: cosines[x][u] = C(u)/2 · cos((2x + 1)uπ/16), C(0) = 1/√2, else 1.
static double cosines[DCTSIZE][DCTSIZE];
static pthread_once_t cosines_once = PTHREAD_ONCE_INIT;

static void fill_cosines(void) {
    for (int x = 0; x < DCTSIZE; x++) {
        for (int u = 0; u < DCTSIZE; u++) {
            cosines[x][u] = (u == 0 ? M_SQRT1_2 : 1.0) / 2 * cos((2 * x + 1) * u * M_PI / 16);
        }
    }
}

// Whether the block's samples and first-pass values, in floating point, stay inside.
static int block_stays_inside(const long *values) {
    double pass[DCTSIZE][DCTSIZE];
    for (int y = 0; y < DCTSIZE; y++) {
        for (int u = 0; u < DCTSIZE; u++) {
            double sum = 0;
            for (int v = 0; v < DCTSIZE; v++) sum += cosines[y][v] * (double) values[v * DCTSIZE + u];
            if (fabs(sum) > FIRST_PASS_MARGIN) return 0;
            pass[y][u] = sum;
        }
    }
    for (int y = 0; y < DCTSIZE; y++) {
        for (int x = 0; x < DCTSIZE; x++) {
            double sum = 0;
            for (int u = 0; u < DCTSIZE; u++) sum += cosines[x][u] * pass[y][u];
            if (fabs(sum) > SAMPLE_MARGIN) return 0;
        }
    }
    return 1;
}

// Whether every block of `count` keeps libjpeg's SIMD IDCTs and the C ones together.
TG_VECTOR_CLONES
static int within_limit(const JCOEF *blocks, size_t count, const Multiplier *quantisers) {
    static const int32_t weights[DCTSIZE2] = {
        2, 3, 3, 3, 3, 3, 3, 3,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
        3, 4, 4, 4, 4, 4, 4, 4,
    };
    pthread_once(&cosines_once, fill_cosines);
    long values[DCTSIZE2];
    for (size_t block = 0; block < count; block++, blocks += DCTSIZE2) {
        // 32 bits hold it all (64 · 32767 · 4) and let the compiler vectorise the loop.
        int32_t sum = 0, over = 0;
        for (int k = 0; k < DCTSIZE2; k++) {
            int32_t value = (int32_t) blocks[k] * (int32_t) quantisers[k];
            int32_t size = value < 0 ? -value : value;
            over |= size > PRODUCT_LIMIT;
            sum += size * weights[k];
        }
        if (over) return 0;
        // In sixteenths: the weights above, times 16.
        if (sum < 16 * SAMPLE_MARGIN) continue;
        for (int k = 0; k < DCTSIZE2; k++) values[k] = (long) blocks[k] * (long) quantisers[k];
        if (!block_stays_inside(values)) return 0;
    }
    return 1;
}

// Finds every row of the coefficients in libjpeg's arrays, which its memory manager holds
// whole in memory (libjpeg-turbo has no backing store), so that the rows stay where they are
// until the decompressor is destroyed; 0, or -1 when memory runs out or a block is beyond
// what libjpeg's SIMD and C IDCTs compute alike.
static int find_rows(struct tg_jpeg_coefficients *c, j_decompress_ptr cinfo, jvirt_barray_ptr *arrays) {
    for (int i = 0; i < c->count; i++) {
        Component *component = &c->components[i];
        jpeg_component_info *info = &cinfo->comp_info[i];
        for (int k = 0; k < DCTSIZE2; k++) component->quantisers[k] = (Multiplier) info->quant_table->quantval[k];
        component->rows = malloc(sizeof(JBLOCKROW) * (size_t) component->blocks_high);
        if (!component->rows) return -1;
        for (int row = 0; row < component->blocks_high; row++) {
            JBLOCKARRAY rows = (*cinfo->mem->access_virt_barray)((j_common_ptr) cinfo, arrays[i],
                                                                (JDIMENSION) row, 1, FALSE);
            component->rows[row] = rows[0];
            if (!within_limit(rows[0][0], (size_t) component->blocks_wide, component->quantisers)) return -1;
        }
    }
    return 0;
}

// Whether the file is one whose scaled decode this reproduces (see the header).
static int is_reproducible(j_decompress_ptr cinfo) {
    if (cinfo->data_precision != 8) return 0;
    if (cinfo->num_components == 1) return cinfo->jpeg_color_space == JCS_GRAYSCALE;
    return cinfo->num_components == 3 && cinfo->jpeg_color_space == JCS_YCbCr;
}

// Whether every coefficient of every component got all its bits: libjpeg smooths the blocks
// of a progressive image whose refinements stop early, which is not reproduced here.
static int is_fully_refined(j_decompress_ptr cinfo) {
    if (!cinfo->progressive_mode) return 1;
    if (!cinfo->coef_bits) return 0;
    for (int i = 0; i < cinfo->num_components; i++) {
        for (int k = 0; k < DCTSIZE2; k++) {
            if (cinfo->coef_bits[i][k] != 0) return 0;
        }
    }
    return 1;
}

tg_jpeg_coefficients *tg_jpeg_coefficients_read(const uint8_t *data, size_t length) {
    if (!data || length == 0 || length > (size_t) 0xffffffffu) return NULL;
    struct tg_jpeg_coefficients *volatile c = calloc(1, sizeof *c);
    ErrorTrap *trap = calloc(1, sizeof *trap);
    struct jpeg_decompress_struct *cinfo = calloc(1, sizeof *cinfo);
    if (!c || !trap || !cinfo) {
        free(c);
        free(trap);
        free(cinfo);
        return NULL;
    }
    c->decoder = cinfo;
    c->errors = &trap->manager;
    cinfo->err = jpeg_std_error(&trap->manager);
    trap->manager.error_exit = trap_error_exit;
    trap->manager.emit_message = trap_emit_message;
    trap->manager.output_message = trap_output_message;
    if (setjmp(trap->jump)) {
        tg_jpeg_coefficients_free(c);
        return NULL;
    }
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, data, (unsigned long) length);
    if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK || !is_reproducible(cinfo)) {
        tg_jpeg_coefficients_free(c);
        return NULL;
    }
    c->width = (int) cinfo->image_width;
    c->height = (int) cinfo->image_height;
    c->count = cinfo->num_components;
    c->max_h = cinfo->max_h_samp_factor;
    c->max_v = cinfo->max_v_samp_factor;
    for (int i = 0; i < c->count; i++) {
        c->components[i].h = cinfo->comp_info[i].h_samp_factor;
        c->components[i].v = cinfo->comp_info[i].v_samp_factor;
        c->components[i].blocks_wide = (int) cinfo->comp_info[i].width_in_blocks;
        c->components[i].blocks_high = (int) cinfo->comp_info[i].height_in_blocks;
    }
    // jpeg_read_coefficients reads the whole file, to its end marker: damage anywhere in it
    // has been warned of by the time it returns.
    jvirt_barray_ptr *arrays = has_reproducible_sampling(c) ? jpeg_read_coefficients(cinfo) : NULL;
    int ok = arrays && trap->manager.num_warnings == 0 && is_fully_refined(cinfo) && find_rows(c, cinfo, arrays) == 0;
    if (!ok) {
        tg_jpeg_coefficients_free(c);
        return NULL;
    }
    fill_range_table(c->range);
    return c;
}

int tg_jpeg_coefficients_width(const tg_jpeg_coefficients *c) { return c->width; }
int tg_jpeg_coefficients_height(const tg_jpeg_coefficients *c) { return c->height; }
int tg_jpeg_coefficients_bands(const tg_jpeg_coefficients *c) { return c->count; }

int tg_jpeg_coefficients_scaled_width(const tg_jpeg_coefficients *c, int factor) {
    return factor > 0 ? (c->width + factor - 1) / factor : 0;
}

int tg_jpeg_coefficients_scaled_height(const tg_jpeg_coefficients *c, int factor) {
    return factor > 0 ? (c->height + factor - 1) / factor : 0;
}

void tg_jpeg_coefficients_free(tg_jpeg_coefficients *c) {
    if (!c) return;
    for (int i = 0; i < COMPONENTS_MAX; i++) free(c->components[i].rows);
    if (c->decoder) {
        jpeg_destroy_decompress(c->decoder);
        free(c->decoder);
    }
    // The error manager is the first member of the trap that holds it.
    free(c->errors);
    free(c);
}

// ---------------------------------------------------------------------------------------------
// Rendering

static Idct idct_for(int size) {
    switch (size) {
    case 1: return jpeg_idct_1x1;
    case 2: return jpeg_idct_2x2;
    case 4: return jpeg_idct_4x4;
    case 8: return jpeg_idct_islow;
    default: return NULL;
    }
}

// One component at its scaled block size: `plane` gets blocks_wide·size × blocks_high·size
// samples.
static void render_component(const struct tg_jpeg_coefficients *c, const Component *component,
                            int size, JSAMPLE *plane) {
    // The IDCTs take a decompressor and a component but read only the range table and the
    // multipliers: carriers holding just those stand in for libjpeg's.
    struct jpeg_decompress_struct carrier;
    memset(&carrier, 0, sizeof carrier);
    carrier.sample_range_limit = (JSAMPLE *) c->range + MAXJSAMPLE + 1;
    jpeg_component_info info;
    memset(&info, 0, sizeof info);
    info.dct_table = (void *) component->quantisers;
    Idct idct = idct_for(size);
    size_t stride = (size_t) component->blocks_wide * (size_t) size;
    JSAMPROW rows[DCTSIZE];
    for (int by = 0; by < component->blocks_high; by++) {
        for (int r = 0; r < size; r++) rows[r] = plane + ((size_t) by * (size_t) size + (size_t) r) * stride;
        JCOEF *block = component->rows[by][0];
        for (int bx = 0; bx < component->blocks_wide; bx++, block += DCTSIZE2) {
            idct(&carrier, &info, block, rows, (JDIMENSION) (bx * size));
        }
    }
}

static inline uint8_t clamped(int32_t value) {
    return (uint8_t) (value < 0 ? 0 : value > MAXJSAMPLE ? MAXJSAMPLE : value);
}

// One output row from rows of the Y, Cb and Cr planes. libjpeg looks each term up in tables of
// 256 and clamps through its range table; the terms are computed here as those tables hold them
// (the same products, roundings and shifts), and every sum they make lies where its range table
// clamps, so the samples are libjpeg's for all 2^24 inputs, in a loop the compiler vectorises
// (2.7 times faster than the lookups with AVX2).
TG_VECTOR_CLONES
static void convert_row(const JSAMPLE *restrict y, const JSAMPLE *restrict cb, const JSAMPLE *restrict cr,
                        int width, uint8_t *restrict out) {
    for (int x = 0; x < width; x++) {
        int32_t luma = y[x], blue = cb[x] - CENTERJSAMPLE, red = cr[x] - CENTERJSAMPLE;
        out[3 * x] = clamped(luma + ((FIXED(1.40200) * red + ONE_HALF) >> SCALE_BITS));
        out[3 * x + 1] = clamped(luma + ((-FIXED(0.34414) * blue + ONE_HALF - FIXED(0.71414) * red) >> SCALE_BITS));
        out[3 * x + 2] = clamped(luma + ((FIXED(1.77200) * blue + ONE_HALF) >> SCALE_BITS));
    }
}

// libjpeg's horizontal doubling of one row of `count` samples into 2·`count` (jdsample.c):
// with `fancy`, each output sample is ¾ of its nearer input and ¼ of the further, rounded
// up and down by turns (the edges repeat their sample); without, each sample is repeated.
static void double_row(const JSAMPLE *in, int count, int fancy, JSAMPLE *out) {
    if (!fancy || count <= 2) {
        for (int x = 0; x < count; x++) out[2 * x] = out[2 * x + 1] = in[x];
        return;
    }
    out[0] = in[0];
    out[1] = (JSAMPLE) ((in[0] * 3 + in[1] + 2) >> 2);
    for (int x = 1; x < count - 1; x++) {
        int near = in[x] * 3;
        out[2 * x] = (JSAMPLE) ((near + in[x - 1] + 1) >> 2);
        out[2 * x + 1] = (JSAMPLE) ((near + in[x + 1] + 2) >> 2);
    }
    out[2 * count - 2] = (JSAMPLE) ((in[count - 1] * 3 + in[count - 2] + 1) >> 2);
    out[2 * count - 1] = in[count - 1];
}

int tg_jpeg_coefficients_render(const tg_jpeg_coefficients *c, int factor, int width, int height,
                                uint8_t *out, size_t out_length) {
    if (!c || !out || (factor != 2 && factor != 4 && factor != 8)) return -1;
    if (width < 1 || height < 1 || width > tg_jpeg_coefficients_scaled_width(c, factor)
        || height > tg_jpeg_coefficients_scaled_height(c, factor)) return -1;
    if (out_length < (size_t) width * (size_t) height * (size_t) c->count) return -1;
    int min_size = DCTSIZE / factor;
    JSAMPLE *planes[COMPONENTS_MAX] = {NULL, NULL, NULL};
    size_t strides[COMPONENTS_MAX] = {0, 0, 0};
    int status = 0;
    for (int i = 0; i < c->count && status == 0; i++) {
        const Component *component = &c->components[i];
        int size = scaled_block_size(c, component, min_size);
        strides[i] = (size_t) component->blocks_wide * (size_t) size;
        size_t rows = (size_t) component->blocks_high * (size_t) size;
        planes[i] = malloc(strides[i] * rows);
        if (!planes[i]) status = -1;
        else render_component(c, component, size, planes[i]);
        if (status == 0 && horizontal_ratio(c, component, min_size) == 2) {
            // The samples libjpeg upsamples: the component's width at this scale, rounded up.
            int count = (int) (((size_t) c->width * (size_t) (component->h * size) + (size_t) (c->max_h * DCTSIZE) - 1)
                               / (size_t) (c->max_h * DCTSIZE));
            JSAMPLE *doubled = malloc((size_t) count * 2 * rows);
            if (!doubled) status = -1;
            for (size_t row = 0; doubled && row < rows; row++) {
                double_row(planes[i] + row * strides[i], count, min_size > 1, doubled + row * (size_t) count * 2);
            }
            free(planes[i]);
            planes[i] = doubled;
            strides[i] = (size_t) count * 2;
        }
    }
    if (status == 0) {
        // Each plane now meets the luma grid one to one; their strides differ by the blocks
        // that pad a row of MCUs.
        for (int row = 0; row < height; row++) {
            uint8_t *line = out + (size_t) row * (size_t) width * (size_t) c->count;
            const JSAMPLE *y = planes[0] + (size_t) row * strides[0];
            if (c->count == 1) memcpy(line, y, (size_t) width);
            else convert_row(y, planes[1] + (size_t) row * strides[1], planes[2] + (size_t) row * strides[2],
                             width, line);
        }
    }
    for (int i = 0; i < COMPONENTS_MAX; i++) free(planes[i]);
    return status;
}
