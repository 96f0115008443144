/* Luminance to PNG through libpng (image.h), for synthetic frames. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "png_internal.h"
#include "rod/image.h"

typedef struct {
  int color_type, channels, bit_depth;
  bool alpha; /* the last channel is alpha */
} png_format;

static int format_of(rod_png_color color, int bit_depth, png_format *fmt) {
  static const struct {
    int color_type, channels;
  } table[] = {
      [ROD_PNG_GRAY] = {PNG_COLOR_TYPE_GRAY, 1},
      [ROD_PNG_GRAY_ALPHA] = {PNG_COLOR_TYPE_GRAY_ALPHA, 2},
      [ROD_PNG_RGB] = {PNG_COLOR_TYPE_RGB, 3},
      [ROD_PNG_RGBA] = {PNG_COLOR_TYPE_RGB_ALPHA, 4},
  };
  if ((int)color < 0 || color > ROD_PNG_RGBA ||
      (bit_depth != 8 && bit_depth != 16))
    return ROD_EINVAL;
  fmt->color_type = table[color].color_type;
  fmt->channels = table[color].channels;
  fmt->bit_depth = bit_depth;
  fmt->alpha = color == ROD_PNG_GRAY_ALPHA || color == ROD_PNG_RGBA;
  return ROD_OK;
}

static void fill_row(const float *lum, int width, const png_format *fmt,
                     unsigned char *row) {
  unsigned full = fmt->bit_depth == 16 ? 65535u : 255u;
  int wide = fmt->bit_depth == 16;
  for (int c = 0; c < width; c++) {
    float v = lum[c] < 0.0f ? 0.0f : lum[c] > 1.0f ? 1.0f : lum[c];
    unsigned level = (unsigned)lrintf(v * (float)full);
    for (int k = 0; k < fmt->channels; k++) {
      unsigned q = fmt->alpha && k == fmt->channels - 1 ? full : level;
      if (wide) {
        *row++ = (unsigned char)(q >> 8); /* PNG is big-endian */
        *row++ = (unsigned char)(q & 0xff);
      } else {
        *row++ = (unsigned char)q;
      }
    }
  }
}

/* Everything libpng may longjmp out of (see read_samples in png_read.c). */
static void write_rows(png_structp png, png_infop info, FILE *f,
                       const rod_image *img, const png_format *fmt,
                       unsigned char *row) {
  png_init_io(png, f);
  /* tests and the end-to-end generator write many frames: the fastest
   * level, and no per-row filter search, which noisy frames defeat anyway */
  png_set_compression_level(png, 1);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
               fmt->bit_depth, fmt->color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int r = 0; r < img->height; r++) {
    fill_row(img->lum + (size_t)r * (size_t)img->width, img->width, fmt, row);
    png_write_row(png, row);
  }
  png_write_end(png, NULL);
}

static int encode(FILE *f, const rod_image *img, const png_format *fmt,
                  unsigned char *row, const char *path, rod_error *err) {
  rod_png_failure failure = {{0}};
  png_structp png = png_create_write_struct(
      PNG_LIBPNG_VER_STRING, &failure, rod_png_on_error, rod_png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot write PNG (%s)",
                         failure.message);
  }
  write_rows(png, info, f, img, fmt, row);
  png_destroy_write_struct(&png, &info);
  return ROD_OK;
}

int rod_image_write_png(const rod_image *img, const char *path,
                        rod_png_color color, int bit_depth, rod_error *err) {
  png_format fmt;
  if (format_of(color, bit_depth, &fmt) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "unsupported PNG format (colour %d, %d bits)",
                         (int)color, bit_depth);
  if (!img || img->width <= 0 || img->height <= 0)
    return rod_error_set(err, ROD_EINVAL, path, NULL, "empty image");
  unsigned char *row =
      malloc((size_t)img->width * (size_t)fmt.channels * 2 /* 16 bit */);
  if (!row)
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  FILE *f = fopen(path, "wb");
  int st = f ? encode(f, img, &fmt, row, path, err)
             : rod_error_set(err, ROD_EIO, path, NULL, "cannot write (%s)",
                             strerror(errno));
  if (f && fclose(f) != 0 && st == ROD_OK)
    st = rod_error_set(err, ROD_EIO, path, NULL, "write error (%s)",
                       strerror(errno));
  free(row);
  return st;
}
