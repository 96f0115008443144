/* Luminance images: allocation. PNG input and output are in png_read.c and
 * png_write.c. */
#include "rod/image.h"

#include <stdlib.h>

#include "png_internal.h"

rod_image *rod_image_alloc(int width, int height) {
  if (width < 0 || height < 0)
    return NULL;
  rod_image *img = calloc(1, sizeof *img);
  if (!img)
    return NULL;
  img->width = width;
  img->height = height;
  size_t n = (size_t)width * (size_t)height;
  if (n > 0 && !(img->lum = calloc(n, sizeof *img->lum))) {
    free(img);
    return NULL;
  }
  return img;
}

void rod_image_free(rod_image *img) {
  if (!img)
    return;
  if (img->scratch) {
    free(img->scratch->raw);
    free(img->scratch->rows);
    free(img->scratch);
  }
  free(img->lum);
  free(img);
}
