#include "tg_jpeg_writer.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>
#include <vips/vips.h>

// libjpeg reports errors by calling error_exit, which must not return: it jumps back here.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
} WriterError;

static void writer_error_exit(j_common_ptr cinfo) {
    WriterError *error = (WriterError *) cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    vips_error("jpegsave", "%s", message);
    longjmp(error->jump, 1);
}

// Warnings (libjpeg has none for compression worth a row's failure) are dropped, as jpegsave
// turns them into g_warning noise.
static void writer_emit_message(j_common_ptr cinfo, int level) {
    (void) cinfo;
    (void) level;
}

int tg_jpeg_write(void *image, int quality, int progressive, int no_subsample, void **out, size_t *length) {
    VipsImage *in = (VipsImage *) image;
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE ||
        (in->Bands != 1 && in->Bands != 3) || vips_concurrency_get() != 1)
        return TG_JPEG_WRITER_UNSUPPORTED;

    // As jpegsave does before its sink: the image must be one that can be read by regions.
    if (vips_image_pio_input(in)) return -1;

    struct jpeg_compress_struct cinfo;
    WriterError error;
    // Written after setjmp and read after a jump: volatile, so the jump sees their values.
    unsigned char *volatile memory = NULL;
    unsigned long size = 0;
    VipsRegion *volatile region = NULL;

    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = writer_error_exit;
    error.manager.emit_message = writer_emit_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(memory);
        if (region) g_object_unref(region);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **) &memory, &size);

    cinfo.image_width = in->Xsize;
    cinfo.image_height = in->Ysize;
    cinfo.input_components = in->Bands;
    cinfo.in_color_space = in->Bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    cinfo.optimize_coding = TRUE;
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    // jpegsave's "auto" chroma subsampling: none from quality 90 up; "off": none at all.
    if (quality >= 90 || no_subsample)
        for (int i = 0; i < in->Bands; i++)
            cinfo.comp_info[i].h_samp_factor = cinfo.comp_info[i].v_samp_factor = 1;
    // jpegsave never writes JFIF when it has libexif, and writes nothing else when stripping.
    cinfo.write_JFIF_header = FALSE;
    jpeg_start_compress(&cinfo, TRUE);

    // Strips as tall as the buffers vips_sink_disc fills for this image.
    int tile_width, tile_height, lines;
    vips_get_tile_size(in, &tile_width, &tile_height, &lines);
    if (lines < 1) lines = 16;
    if (!(region = vips_region_new(in))) longjmp(error.jump, 1);
    for (int top = 0; top < in->Ysize; top += lines) {
        if (vips_image_iskilled(in)) {
            vips_error("jpegsave", "killed");
            longjmp(error.jump, 1);
        }
        VipsRect strip = { 0, top, in->Xsize, VIPS_MIN(lines, in->Ysize - top) };
        if (vips_region_prepare(region, &strip)) longjmp(error.jump, 1);
        for (int y = 0; y < strip.height; y++) {
            JSAMPROW row = VIPS_REGION_ADDR(region, 0, top + y);
            jpeg_write_scanlines(&cinfo, &row, 1);
        }
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    g_object_unref(region);
    // As libvips' sinks do once an image is written: loaders drop what they hold (a
    // sequential loader closes its file) without waiting for the last reference to go.
    vips_image_minimise_all(in);
    *out = memory;
    *length = size;
    return 0;
}
