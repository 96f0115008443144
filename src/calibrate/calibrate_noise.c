/* The noise of measured tip data, estimated from the data alone
 * (rod_calib_noise, rod/calibrate.h): the weight of a data set in a joint
 * fit.
 *
 * For samples y_i = f(t_i) + e_i of a smooth motion f with independent
 * noise e of variance sigma^2, the fourth difference d_i = y_i - 4 y_(i+1)
 * + 6 y_(i+2) - 4 y_(i+3) + y_(i+4) has the noise part of variance (1 + 16
 * + 36 + 16 + 1) sigma^2 = 70 sigma^2 and the motion's part f'''' dt^4,
 * which for a mode of angular frequency omega and amplitude A is at most A
 * (omega dt)^4: at 1 kHz a 5 Hz swing of 50 mm leaves 5e-8 m, a 100 Hz
 * mode of 1 mm 1.6e-4 m against the 8.4e-4 m of 0.1 mm of noise. The
 * median of |d| (times 1.4826, the normal distribution's ratio of standard
 * deviation to median absolute value) ignores the few differences that a
 * kink of the motion (a release, a strike) spoils. */
#include <math.h>
#include <stdlib.h>

#include "rod/calibrate.h"

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double rod_calib_noise(const rod_tip_data *d) {
  if (!d || d->n < 5)
    return 0.0;
  double *diff = malloc(3 * (size_t)d->n * sizeof *diff);
  if (!diff)
    return NAN;
  static const double w[5] = {1, -4, 6, -4, 1};
  size_t count = 0;
  for (int c = 0; c < 3; c++) {
    if (!d->has[c])
      continue;
    for (int i = 0; i + 4 < d->n; i++) {
      double s = 0;
      bool valid = true;
      for (int k = 0; k < 5; k++) {
        valid = valid && d->valid[i + k] && isfinite(d->xyz[3 * (i + k) + c]);
        s += w[k] * d->xyz[3 * (i + k) + c];
      }
      if (valid)
        diff[count++] = fabs(s);
    }
  }
  double sigma = 0.0;
  if (count > 0) {
    qsort(diff, count, sizeof *diff, by_value);
    const double median = count % 2
                              ? diff[count / 2]
                              : 0.5 * (diff[count / 2 - 1] + diff[count / 2]);
    sigma = 1.482602218505602 * median / sqrt(70.0);
  }
  free(diff);
  return sigma;
}
