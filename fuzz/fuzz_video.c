/* libFuzzer target: the video reader (rod_video_open / rod_video_read, the
 * frames of `rodsim track VIDEO`, decoded by FFmpeg's libraries): open,
 * read up to 16 frames into one image, close. Frames keep the size the
 * video declares, their luminance within [0, 1], and real timestamps
 * start at 0 and increase. */
#include <math.h>

#include "fuzz_util.h"
#include "rod/video.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".vid");
  rod_error err = {{0}, {0}, {0}, 0};
  rod_video *v = NULL;
  if (rod_video_open(path, &v, &err) != ROD_OK) {
    FUZZ_CHECK(v == NULL);
    return 0;
  }
  const rod_video_info *info = rod_video_get_info(v);
  rod_image *img = rod_image_alloc(0, 0);
  if (!img)
    abort();
  double last = -INFINITY;
  for (int i = 0; i < 16; i++) {
    double t;
    bool end = false;
    if (rod_video_read(v, img, &t, &end, &err) != ROD_OK || end)
      break;
    FUZZ_CHECK(img->width == info->width && img->height == info->height);
    if (info->timestamps) { /* times since the first frame, increasing */
      FUZZ_CHECK(isfinite(t) && t > last && (i > 0 || t == 0.0));
      last = t;
    }
    const size_t n = (size_t)img->width * (size_t)img->height;
    for (size_t k = 0; k < n; k++)
      FUZZ_CHECK(img->lum[k] >= 0.0f && img->lum[k] <= 1.0f);
  }
  rod_image_free(img);
  rod_video_close(v);
  return 0;
}
