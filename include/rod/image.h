/* Luminance images and their PNG files (libpng), for `rodsim track` and the
 * synthetic frames of tests.
 *
 * Reading accepts every PNG colour type and bit depth: palette and low-bit
 * gray are expanded, alpha (and tRNS) is ignored because video frames are
 * opaque, and colour is reduced to the Rec. 709 luma 0.2126 R + 0.7152 G +
 * 0.0722 B of the stored (gamma-encoded) values, as is usual for
 * thresholding. An image keeps its buffers, so reading a sequence of
 * frames of one size allocates only at the first frame. */
#ifndef ROD_IMAGE_H
#define ROD_IMAGE_H

#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rod_png_scratch; /* decoding buffers, internal */

typedef struct {
  int width, height; /* pixels */
  float *lum;        /* (height x width), row-major from the top row:
                        luminance in [0, 1], 0 black, 1 full scale */
  struct rod_png_scratch *scratch;
} rod_image;

/* A width x height image, all black. rod_image_alloc(0, 0) is an empty
 * image that takes the size of the first PNG read into it. NULL if out of
 * memory or a size is negative. */
rod_image *rod_image_alloc(int width, int height);
void rod_image_free(rod_image *img);

/* Read a PNG file into img. An empty image takes the file's size; otherwise
 * the file must have img's size. ROD_EIO if the file cannot be opened;
 * ROD_EINVAL if it is not a PNG, is corrupt or truncated, or has another
 * size; err names path. */
int rod_image_read_png(rod_image *img, const char *path, rod_error *err);

typedef enum {
  ROD_PNG_GRAY,
  ROD_PNG_GRAY_ALPHA,
  ROD_PNG_RGB,
  ROD_PNG_RGBA
} rod_png_color;

/* Write img as a PNG: luminance rounded to the nearest level of bit_depth
 * (8 or 16) after clamping to [0, 1], the same value in R, G and B, alpha
 * opaque. */
int rod_image_write_png(const rod_image *img, const char *path,
                        rod_png_color color, int bit_depth, rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
