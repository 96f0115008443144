/* PNG to luminance through libpng (image.h). */
#include <errno.h>
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "png_internal.h"
#include "rod/image.h"

/* The decoded samples: 1 (gray) or 3 (RGB) channels of 8 or 16 bits. */
typedef struct {
  int width, height, channels, bit_depth;
  size_t rowbytes;
} png_layout;

enum { SIZE_MISMATCH = 1 };

/* Grow the scratch buffers of img to height rows of rowbytes; they only
 * grow, so frames of one format reuse them. */
static int ensure_scratch(rod_image *img, size_t rowbytes, int height) {
  if (!img->scratch && !(img->scratch = calloc(1, sizeof *img->scratch)))
    return ROD_ENOMEM;
  struct rod_png_scratch *s = img->scratch;
  if (height <= 0 || rowbytes > SIZE_MAX / (size_t)height)
    return ROD_ENOMEM;
  size_t need = rowbytes * (size_t)height;
  if (need > s->raw_size) {
    unsigned char *raw = realloc(s->raw, need);
    if (!raw)
      return ROD_ENOMEM;
    s->raw = raw;
    s->raw_size = need;
  }
  if (height > s->rows_size) {
    unsigned char **rows = realloc(s->rows, (size_t)height * sizeof *rows);
    if (!rows)
      return ROD_ENOMEM;
    s->rows = rows;
    s->rows_size = height;
  }
  for (int r = 0; r < height; r++)
    s->rows[r] = s->raw + (size_t)r * rowbytes;
  return ROD_OK;
}

/* Everything libpng may longjmp out of; kept apart from the setjmp in
 * decode() so that no local of that function changes after setjmp. */
static int read_samples(png_structp png, png_infop info, FILE *f,
                        rod_image *img, png_layout *lay) {
  png_init_io(png, f);
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  lay->width = (int)png_get_image_width(png, info);
  lay->height = (int)png_get_image_height(png, info);
  bool sized = img->width > 0 || img->height > 0;
  if (sized && (lay->width != img->width || lay->height != img->height))
    return SIZE_MISMATCH;
  png_set_expand(png); /* palette to RGB, 1-4 bit gray to 8, tRNS to alpha */
  png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  lay->channels = png_get_channels(png, info);
  lay->bit_depth = png_get_bit_depth(png, info);
  lay->rowbytes = png_get_rowbytes(png, info);
  int st = ensure_scratch(img, lay->rowbytes, lay->height);
  if (st != ROD_OK)
    return st;
  png_read_image(png, img->scratch->rows);
  png_read_end(png, NULL);
  return ROD_OK;
}

static int decode(FILE *f, rod_image *img, const char *path, png_layout *lay,
                  rod_error *err) {
  rod_png_failure failure = {{0}};
  png_structp png = png_create_read_struct(
      PNG_LIBPNG_VER_STRING, &failure, rod_png_on_error, rod_png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, NULL);
    return rod_error_set(err, ROD_EINVAL, path, NULL, "corrupt PNG (%s)",
                         failure.message);
  }
  int st = read_samples(png, info, f, img, lay);
  png_destroy_read_struct(&png, &info, NULL);
  if (st == SIZE_MISMATCH)
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "%dx%d pixels, expected %dx%d", lay->width,
                         lay->height, img->width, img->height);
  if (st != ROD_OK)
    return rod_error_set(err, st, path, NULL, "out of memory (%dx%d pixels)",
                         lay->width, lay->height);
  return ROD_OK;
}

static inline unsigned sample(const unsigned char *p, int wide) {
  return wide ? (unsigned)p[0] << 8 | p[1] : p[0]; /* PNG is big-endian */
}

static void to_luminance(const struct rod_png_scratch *s, const png_layout *lay,
                         float *lum) {
  int wide = lay->bit_depth == 16, step = wide ? 2 : 1;
  float full = wide ? 65535.0f : 255.0f;
  for (int r = 0; r < lay->height; r++) {
    const unsigned char *p = s->rows[r];
    float *out = lum + (size_t)r * (size_t)lay->width;
    if (lay->channels == 1) {
      for (int c = 0; c < lay->width; c++, p += step)
        out[c] = (float)sample(p, wide) / full;
      continue;
    }
    for (int c = 0; c < lay->width; c++, p += 3 * step) {
      float y = 0.2126f * (float)sample(p, wide) +
                0.7152f * (float)sample(p + step, wide) +
                0.0722f * (float)sample(p + 2 * step, wide);
      out[c] = y / full;
    }
  }
}

/* Give an empty image the size of the decoded file. */
static int adopt_size(rod_image *img, const png_layout *lay, const char *path,
                      rod_error *err) {
  if (img->width > 0 || img->height > 0)
    return ROD_OK;
  size_t n = (size_t)lay->width * (size_t)lay->height;
  float *lum = realloc(img->lum, n * sizeof *lum);
  if (!lum)
    return rod_error_set(err, ROD_ENOMEM, path, NULL,
                         "out of memory (%dx%d pixels)", lay->width,
                         lay->height);
  img->lum = lum;
  img->width = lay->width;
  img->height = lay->height;
  return ROD_OK;
}

int rod_image_read_png(rod_image *img, const char *path, rod_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot open (%s)",
                         strerror(errno));
  unsigned char signature[8];
  png_layout lay = {0};
  int st;
  if (fread(signature, 1, sizeof signature, f) != sizeof signature ||
      png_sig_cmp(signature, 0, sizeof signature) != 0)
    st = rod_error_set(err, ROD_EINVAL, path, NULL, "not a PNG file");
  else
    st = decode(f, img, path, &lay, err);
  fclose(f);
  if (st == ROD_OK)
    st = adopt_size(img, &lay, path, err);
  if (st == ROD_OK)
    to_luminance(img->scratch, &lay, img->lum);
  return st;
}
