/* vips_floor: the least CPU libvips itself needs to make thumbnails, with none of thumbgen
 * around it (no processes, no cache, no files written, no report).
 *
 *   vips_floor SIZE[,SIZE...] FILE...
 *
 * For each JPEG FILE, on one thread, as thumbgen decodes and renders it: one decode per
 * group of sizes that share a JPEG shrink-on-load factor (decoded into memory when the group
 * has several sizes, as thumbgen shares it; left lazy for one), then per size a Lanczos-3
 * `vips_resize` to fit SIZE x SIZE and a JPEG encode to memory (Q80, optimised Huffman
 * tables, metadata stripped: thumbgen's defaults; with FLOOR_DIRECT=1 through thumbgen's own
 * writer, as thumbgen runs). Prints the CPU time per source and per
 * output, split into decoding and resizing + encoding. scripts/bench_floor runs it. */
#include <vips/vips.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_jpeg_writer.h"

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* thumbgen's ShrinkOnLoad.jpegFactor in its default mode (balanced): DCT 1/2 with no
 * headroom, 1/4 and 1/8 leaving the kernel at least a factor of two. */
static int jpeg_factor(double shrink) {
    if (shrink >= 16) return 8;
    if (shrink >= 8) return 4;
    if (shrink >= 2) return 2;
    return 1;
}

/* FLOOR_DIRECT=1: encode with thumbgen's own JPEG writer (Sources/CJPEGWriter), which
 * evaluates the pipeline on the calling thread, instead of jpegsave; same bytes. */
static void fail(const char *what) {
    fprintf(stderr, "vips_floor: %s: %s\n", what, vips_error_buffer());
    exit(1);
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) fail("vips_init");
    if (argc < 3) {
        fprintf(stderr, "usage: vips_floor SIZE[,SIZE...] FILE...\n");
        return 2;
    }
    vips_cache_set_max(0);      /* as thumbgen: no operation cache */
    vips_concurrency_set(1);    /* as thumbgen: one libvips thread per image */
    int sizes[64], count = 0;
    for (char *p = strtok(argv[1], ","); p && count < 64; p = strtok(NULL, ",")) sizes[count++] = atoi(p);

    int direct = getenv("FLOOR_DIRECT") != NULL;
    double decode = 0, render = 0;
    long outputs = 0, bytes = 0;
    for (int f = 2; f < argc; f++) {
        double t0 = cpu_seconds();
        VipsImage *header = vips_image_new_from_file(argv[f], NULL);
        if (!header) fail(argv[f]);
        int width = header->Xsize, height = header->Ysize;
        g_object_unref(header);
        decode += cpu_seconds() - t0;
        int done[64] = {0};
        for (int i = 0; i < count; i++) {
            if (done[i]) continue;
            double scale_i = fmin((double) sizes[i] / width, (double) sizes[i] / height);
            int factor = jpeg_factor(1 / scale_i);
            /* The group: every size with the same factor, decoded at the largest scale. */
            int group[64], members = 0;
            for (int j = i; j < count; j++) {
                double s = fmin((double) sizes[j] / width, (double) sizes[j] / height);
                if (jpeg_factor(1 / s) == factor) { group[members++] = j; done[j] = 1; }
            }
            t0 = cpu_seconds();
            VipsImage *decoded = vips_image_new_from_file(argv[f], "shrink", factor,
                                                          "access", VIPS_ACCESS_SEQUENTIAL, NULL);
            if (!decoded) fail(argv[f]);
            if (members > 1) {
                VipsImage *memory = vips_image_copy_memory(decoded);
                g_object_unref(decoded);
                if (!memory) fail(argv[f]);
                decoded = memory;
            }
            decode += cpu_seconds() - t0;
            for (int m = 0; m < members; m++) {
                double t1 = cpu_seconds();
                int size = sizes[group[m]];
                double scale = fmin((double) size / decoded->Xsize, (double) size / decoded->Ysize);
                VipsImage *resized;
                void *buffer;
                size_t length;
                if (vips_resize(decoded, &resized, scale, NULL)) fail("resize");
                if (direct) {
                    if (tg_jpeg_write(resized, 80, 0, &buffer, &length)) fail("tg_jpeg_write");
                } else if (vips_jpegsave_buffer(resized, &buffer, &length, "Q", 80, "strip", TRUE,
                                                "optimize_coding", TRUE, NULL)) fail("jpegsave");
                g_object_unref(resized);
                if (direct) free(buffer); else g_free(buffer);
                bytes += length;
                outputs++;
                render += cpu_seconds() - t1;
            }
            g_object_unref(decoded);
        }
        vips_thread_shutdown();
    }
    int sources = argc - 2;
    printf("sources\toutputs\tdecode_ms_per_source\trender_ms_per_output\ttotal_ms_per_source\tbytes_per_output\n");
    printf("%d\t%ld\t%.3f\t%.3f\t%.3f\t%ld\n", sources, outputs, decode * 1000 / sources,
           render * 1000 / outputs, (decode + render) * 1000 / sources, bytes / (outputs ? outputs : 1));
    return 0;
}
