/* libFuzzer target: the PNG frame reader (rod_image_read_png, the frames of
 * `rodsim track DIR`), twice into one image as a frame sequence is read:
 * the first read sets the size, the second must match it. Luminance is
 * finite and within [0, 1]. */
#include <math.h>

#include "fuzz_util.h"
#include "rod/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".png");
  rod_image *img = rod_image_alloc(0, 0);
  if (!img)
    abort();
  rod_error err = {{0}, {0}, {0}, 0};
  for (int pass = 0; pass < 2; pass++) {
    if (rod_image_read_png(img, path, &err) != ROD_OK)
      break;
    FUZZ_CHECK(img->width > 0 && img->height > 0);
    const size_t n = (size_t)img->width * (size_t)img->height;
    for (size_t i = 0; i < n; i++)
      FUZZ_CHECK(img->lum[i] >= 0.0f && img->lum[i] <= 1.0f);
  }
  rod_image_free(img);
  return 0;
}
