/* RFEM against the Kirchhoff rod (rod/compare.h, rodsim compare): a
 * recorded run's dominant tip frequency and the tip error between two runs
 * over their common times (signal/signal.h). */
#include "rod/compare.h"

#include <math.h>
#include <stdlib.h>

#include "rod/status.h"
#include "signal/signal.h"

int rod_compare_frequency(const rod_recorder *r, double *hz) {
  /* after t = 0: the release makes the static sample a corner */
  int first = r->count > 0 && r->t[0] <= 0.0 ? 1 : 0;
  int n = r->count - first;
  rod_signal_sine fit;
  int st =
      rod_signal_frequency(r->t + first, r->tip + 3 * first + 2, 3, n, &fit);
  if (st != ROD_OK)
    return st;
  *hz = fit.frequency;
  return ROD_OK;
}

int rod_compare_tips(const rod_recorder *run, const rod_recorder *ref,
                     rod_compare_result *out) {
  out->rms_error = out->max_error = 0;
  out->common = 0;
  if (ref->count < 2 || run->count < 1)
    return ROD_EINVAL;
  /* slopes of the reference for Hermite interpolation, per coordinate */
  double *slopes = malloc((size_t)ref->count * 3 * sizeof(double));
  if (!slopes)
    return ROD_ENOMEM;
  for (int c = 0; c < 3; c++)
    rod_signal_slopes(ref->t, ref->count, ref->tip + c, 3, slopes + c);
  double sum = 0;
  int hint = 0;
  const double t_end = ref->t[ref->count - 1];
  for (int i = 0; i < run->count; i++) {
    double t = run->t[i];
    if (t > t_end * (1 + 1e-12))
      break;
    double d2 = 0;
    for (int c = 0; c < 3; c++) {
      int h = hint;
      double p = rod_signal_hermite(ref->t, ref->count, ref->tip + c,
                                    slopes + c, 3, t, &h);
      if (c == 2)
        hint = h;
      double d = run->tip[3 * i + c] - p;
      d2 += d * d;
    }
    sum += d2;
    double d = sqrt(d2);
    if (d > out->max_error)
      out->max_error = d;
    out->common++;
  }
  free(slopes);
  out->rms_error = out->common ? sqrt(sum / out->common) : 0;
  return ROD_OK;
}
