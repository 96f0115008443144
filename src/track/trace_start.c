/* Where the rod leaves the clamp: the arc of rod signal on a circle around
 * the clamp pixel (trace_sample.h). */
#include <stdlib.h>
#include <string.h>

#include "track/trace_sample.h"

/* Hoare's selection of the k-th smallest of v[0..n). */
static double select_kth(double *v, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        double tmp = v[i];
        v[i++] = v[j];
        v[j--] = tmp;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

double trace_median(const double *v, int n, double *scratch) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i]))
      scratch[m++] = v[i];
  if (m == 0)
    return NAN;
  double upper = select_kth(scratch, m, m / 2);
  if (m % 2)
    return upper;
  double lower = select_kth(scratch, m, m / 2 - 1);
  return 0.5 * (lower + upper);
}

/* Radius of the circle, px: far enough from the clamp that the rod
 * crosses it as a narrow arc, near enough that a short or steeply bent
 * rod still does. */
static const double ring_radius = 12.0;

/* The arc's significance: its peak must exceed the circle's median by
 * this many robust standard deviations (1.4826 times the median absolute
 * deviation) of the circle's samples, and by 2 % of full scale. */
static const double ring_sigmas = 6.0, ring_min_contrast = 0.02;

bool trace_find_start(struct rod_tracer *t, bool near, double max_angle,
                      double dir[2], double *width, double *contrast) {
  double s[TRACE_RING], smooth[TRACE_RING], dev[TRACE_RING];
  const double step = 2 * M_PI / TRACE_RING;
  const double around = near ? atan2(t->start[1], t->start[0]) : 0;
  for (int k = 0; k < TRACE_RING; k++) {
    double a = k * step;
    s[k] = trace_signal(t, t->o.origin[0] + ring_radius * cos(a),
                        t->o.origin[1] + ring_radius * sin(a));
  }
  double base = trace_median(s, TRACE_RING, t->sorted);
  if (!isfinite(base))
    return false;
  for (int k = 0; k < TRACE_RING; k++)
    dev[k] = fabs(s[k] - base);
  double sigma = 1.4826 * trace_median(dev, TRACE_RING, t->sorted);
  /* a 5-sample (2 degree) average against the noise; the peak among the
   * allowed directions */
  int best = -1;
  for (int k = 0; k < TRACE_RING; k++) {
    double sum = 0;
    int m = 0;
    for (int d = -2; d <= 2; d++) {
      double v = s[(k + d + TRACE_RING) % TRACE_RING];
      if (isfinite(v)) {
        sum += v;
        m++;
      }
    }
    smooth[k] = m ? sum / m : NAN;
    double off = remainder(k * step - around, 2 * M_PI);
    if (isfinite(smooth[k]) && (!near || fabs(off) <= max_angle) &&
        (best < 0 || smooth[k] > smooth[best]))
      best = k;
  }
  if (best < 0)
    return false;
  double peak = smooth[best] - base;
  if (!(peak > ring_sigmas * sigma && peak > ring_min_contrast))
    return false;
  /* the arc above half the peak, and its centroid of signal above that
   * level: the rod's direction */
  const double half = base + 0.5 * peak;
  double lo = 0, hi = 0, sw = 0, sa = 0;
  for (int side = -1; side <= 1; side += 2) {
    int k = 0;
    for (; k < TRACE_RING / 2; k++) {
      double v = s[(best + side * k + 2 * TRACE_RING) % TRACE_RING];
      if (!(v >= half))
        break;
      if (k > 0 || side < 0) {
        sw += v - half;
        sa += (v - half) * side * k * step;
      }
    }
    double prev = s[(best + side * (k - 1) + 2 * TRACE_RING) % TRACE_RING];
    double next = s[(best + side * k + 2 * TRACE_RING) % TRACE_RING];
    double frac =
        isfinite(next) && prev > next ? (prev - half) / (prev - next) : 0.5;
    *(side < 0 ? &lo : &hi) = (k - 1 + frac) * step;
  }
  double a = best * step + (sw > 0 ? sa / sw : 0);
  dir[0] = cos(a);
  dir[1] = sin(a);
  *width = ring_radius * (lo + hi);
  *contrast = peak;
  return true;
}
