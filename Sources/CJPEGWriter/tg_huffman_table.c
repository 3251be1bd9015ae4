// libjpeg's optimal Huffman table, built with the same result in less time.
//
// With optimised coding (which thumbgen's JPEGs use, as jpegsave does for it) libjpeg builds
// four tables an image from the symbol counts of a first pass (jchuff.c,
// jpeg_gen_optimal_table). Its search for the two least counts runs over all 257 symbols for
// every merge, and its ordering of symbols by code length over 32 × 256 pairs, whether the image
// used ten symbols or two hundred: for a 100-pixel thumbnail that was 4% of a ten-size run's
// cycles, more than the entropy coding itself. The procedure is the one of Annex K.2 of
// Rec. ITU-T T.81 | ISO/IEC 10918-1, which fixes every choice the code lengths depend on (the
// least count, the larger symbol among equal counts, the pseudo-symbol 256 with a count of 1,
// the limit of 16 bits); this one searches only the symbols still in use and orders them by
// one counting pass, so the tables, and the files, are libjpeg's own, bit for bit
// (`HuffmanTableTests` compares every field with the library's function over counts shaped as
// images' are and as they are not; the corpora's outputs were compared byte for byte).
//
// libjpeg-turbo calls the function through its procedure linkage table, so a definition in the
// executable takes its place in every encoder of the process (thumbgen's writer and libvips'
// jpegsave alike), as a program's own `malloc` takes libc's. Where a build of the library binds
// its calls internally, libjpeg's own function keeps running: slower, the same bytes.

#include "tg_jpeg_writer.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

enum {
    SYMBOLS = 257,            // 256 symbols and the pseudo-symbol 256, which keeps a code of all ones free
    LONGEST_BEFORE_LIMIT = 32, // the longest code the procedure may assign before the 16-bit limit
    LONGEST = 16,
};

// Counts at or above this are never taken as least (libjpeg starts its search from it).
static const long COUNT_CEILING = 1000000000L;

// Declared in libjpeg's private jchuff.h: the function replaced.
void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]);

// The position in `live` (ascending symbols) of the least count, the larger symbol among equals;
// `skip` is a position left out (or -1). -1 when there is none below the ceiling.
static int least(const long *freq, const int *live, int count, int skip) {
    int found = -1;
    long best = COUNT_CEILING;
    for (int k = 0; k < count; k++) {
        long value = freq[live[k]];
        if (value <= best && k != skip) {
            best = value;
            found = k;
        }
    }
    return found;
}

static atomic_ulong tables_built;

void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]) {
    atomic_fetch_add_explicit(&tables_built, 1, memory_order_relaxed);
    int codesize[SYMBOLS] = {0};
    int others[SYMBOLS];
    int live[SYMBOLS];  // the symbols with a count, ascending
    int count = 0;
    freq[256] = 1;
    for (int i = 0; i < SYMBOLS; i++) {
        others[i] = -1;
        if (freq[i]) live[count++] = i;
    }

    // Huffman's procedure: merge the two least counts until one is left, each merge making
    // every symbol under both one bit longer.
    for (;;) {
        int first = least(freq, live, count, -1);
        int second = first < 0 ? -1 : least(freq, live, count, first);
        if (second < 0) break;
        int c1 = live[first], c2 = live[second];
        freq[c1] += freq[c2];
        freq[c2] = 0;
        memmove(&live[second], &live[second + 1], sizeof live[0] * (size_t) (count - second - 1));
        count--;
        codesize[c1]++;
        while (others[c1] >= 0) {
            c1 = others[c1];
            codesize[c1]++;
        }
        others[c1] = c2;
        codesize[c2]++;
        while (others[c2] >= 0) {
            c2 = others[c2];
            codesize[c2]++;
        }
    }

    // Symbols per code length, in bytes as libjpeg keeps them (a count of 256 wraps, as there).
    uint8_t bits[LONGEST_BEFORE_LIMIT + 1] = {0};
    for (int i = 0; i < SYMBOLS; i++) {
        if (!codesize[i]) continue;
        if (codesize[i] > LONGEST_BEFORE_LIMIT) {
            cinfo->err->msg_code = JERR_HUFF_CLEN_OVERFLOW;
            (*cinfo->err->error_exit)((j_common_ptr) cinfo);
        }
        bits[codesize[i]]++;
    }

    // Codes over 16 bits: two symbols of the longest length become one a bit shorter and one
    // under a code of the next shorter length in use, which becomes a prefix (K.2, figure K.3).
    int length = LONGEST_BEFORE_LIMIT;
    for (; length > LONGEST; length--) {
        while (bits[length] > 0) {
            int prefix = length - 2;
            while (bits[prefix] == 0) prefix--;
            bits[length] -= 2;
            bits[length - 1]++;
            bits[prefix + 1] += 2;
            bits[prefix]--;
        }
    }
    // The pseudo-symbol leaves the longest length in use.
    while (bits[length] == 0) length--;
    bits[length]--;
    memcpy(htbl->bits, bits, sizeof htbl->bits);

    // The symbols by the code length the procedure gave them (before the limit), ascending
    // within a length: one counting pass instead of a scan of every symbol per length.
    int start[LONGEST_BEFORE_LIMIT + 2] = {0};
    for (int symbol = 0; symbol < 256; symbol++) {
        if (codesize[symbol]) start[codesize[symbol] + 1]++;
    }
    for (int i = 1; i <= LONGEST_BEFORE_LIMIT + 1; i++) start[i] += start[i - 1];
    for (int symbol = 0; symbol < 256; symbol++) {
        if (codesize[symbol]) htbl->huffval[start[codesize[symbol]]++] = (UINT8) symbol;
    }
    htbl->sent_table = FALSE;
}

unsigned long tg_jpeg_huffman_tables_built(void) {
    return atomic_load_explicit(&tables_built, memory_order_relaxed);
}

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
} TableError;

static void table_error_exit(j_common_ptr cinfo) {
    longjmp(((TableError *) cinfo->err)->jump, 1);
}

int tg_jpeg_huffman_table(long counts[257], unsigned char bits[17], unsigned char huffval[256], int library) {
    typedef void (*Build)(j_compress_ptr, JHUFF_TBL *, long[]);
    Build build = jpeg_gen_optimal_table;
    if (library) {
        // The library's own definition: looked up in libjpeg's object, not in the process's
        // global scope, where this file's definition comes first.
        void *handle = dlopen("libjpeg.so.62", RTLD_LAZY | RTLD_NOLOAD);
        if (!handle) return -1;
        build = (Build) dlsym(handle, "jpeg_gen_optimal_table");
        dlclose(handle);
        if (!build || build == jpeg_gen_optimal_table) return -1;
    }
    struct jpeg_compress_struct cinfo;
    TableError error;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = table_error_exit;
    JHUFF_TBL table;
    memset(&table, 0, sizeof table);
    if (setjmp(error.jump)) return -1;
    build(&cinfo, &table, counts);
    memcpy(bits, table.bits, 17);
    memcpy(huffval, table.huffval, 256);
    return 0;
}
