/* Otsu's threshold (Otsu 1979, IEEE Trans. SMC 9(1)): the histogram split
 * that maximises the between-class variance w0 w1 (mu0 - mu1)^2. */
#include <math.h>

#include "rod/track.h"

enum { BINS = 256 };

double rod_track_otsu(const rod_image *img) {
  /* 256 bins: as fine as 8-bit frames, and enough for 16-bit ones, whose
   * threshold only has to fall between the rod's and the background's
   * levels */
  double hist[BINS] = {0};
  size_t n = (size_t)img->width * (size_t)img->height;
  for (size_t i = 0; i < n; i++) {
    int b = (int)(img->lum[i] * BINS);
    hist[b < 0 ? 0 : b >= BINS ? BINS - 1 : b]++;
  }
  double total = (double)n, sum = 0;
  for (int k = 0; k < BINS; k++)
    sum += k * hist[k];
  /* class 0 is bins 0..k; track the first and last k of the maximum, since
   * a gap between two clean levels gives a plateau and its first bin would
   * put the threshold right on the rod's level */
  double w0 = 0, sum0 = 0, best = 0;
  int first = -1, last = -1;
  for (int k = 0; k < BINS - 1; k++) {
    w0 += hist[k];
    sum0 += k * hist[k];
    double w1 = total - w0;
    if (w0 == 0 || w1 == 0)
      continue;
    double d = sum0 / w0 - (sum - sum0) / w1;
    double between = w0 * w1 * d * d;
    if (between > best) {
      best = between;
      first = last = k;
    } else if (between == best && last == k - 1) {
      last = k;
    }
  }
  if (first < 0)
    return 0.0; /* one level: no split, nothing dark */
  return (0.5 * (first + last) + 1.0) / BINS;
}
