/* Pieces shared by the PNG reader and writer (image.h). */
#ifndef ROD_PNG_INTERNAL_H
#define ROD_PNG_INTERNAL_H

#include <png.h>
#include <stddef.h>
#include <stdio.h>

/* Decoding buffers a rod_image keeps between reads, so a sequence of
 * frames is decoded without allocating per frame. */
struct rod_png_scratch {
  unsigned char *raw;   /* decoded samples of the whole image */
  size_t raw_size;      /* bytes allocated in raw */
  unsigned char **rows; /* row pointers into raw, as libpng wants them */
  int rows_size;        /* entries allocated in rows */
};

/* libpng reports errors by longjmp to the caller's setjmp; the handler
 * keeps the text for the rod_error. Warnings (such as sRGB profile remarks)
 * are dropped, since the library never prints. */
typedef struct {
  char message[160];
} rod_png_failure;

static inline void rod_png_on_error(png_structp png, png_const_charp msg) {
  rod_png_failure *f = png_get_error_ptr(png);
  snprintf(f->message, sizeof f->message, "%s", msg);
  png_longjmp(png, 1);
}

static inline void rod_png_on_warning(png_structp png, png_const_charp msg) {
  (void)png;
  (void)msg;
}

#endif
