/* Local extrema of a sampled signal by a weighted parabola fit that follows
 * its own vertex (see signal/signal.h). */
#include <lapacke.h>
#include <math.h>

#include "rod/status.h"
#include "signal/signal.h"

#define Y(i) y[(size_t)(i)*stride]

/* Weighted least-squares parabola y ~ q0 + q1 u + q2 u^2, u = (t - centre)
 * / half_width, biweight weights (1 - u^2)^2 for |u| < 1. Returns the
 * number of samples with positive weight, or -1 if the fit is singular. */
static int fit_parabola(const double *t, const double *y, size_t stride, int n,
                        double centre, double half_width, double *q) {
  double A[9] = {0}, b[3] = {0};
  int used = 0;
  for (int i = 0; i < n; i++) {
    double u = (t[i] - centre) / half_width;
    if (!(fabs(u) < 1.0))
      continue;
    double w = (1 - u * u) * (1 - u * u), g[3] = {1.0, u, u * u};
    used++;
    for (int j = 0; j < 3; j++) {
      b[j] += w * g[j] * Y(i);
      for (int k = j; k < 3; k++)
        A[k * 3 + j] += w * g[j] * g[k]; /* upper triangle, column-major */
    }
  }
  if (used < 5)
    return used;
  if (LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', 3, 1, A, 3, b, 3) != 0)
    return -1;
  for (int j = 0; j < 3; j++)
    q[j] = b[j];
  return used;
}

/* The sample with the largest sign * y within half_width of t_guess. */
static int extreme_sample(const double *t, const double *y, size_t stride,
                          int n, double t_guess, double half_width, int sign) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (fabs(t[i] - t_guess) <= half_width &&
        (best < 0 || sign * Y(i) > sign * Y(best)))
      best = i;
  return best;
}

int rod_signal_extremum(const double *t, const double *y, size_t stride, int n,
                        double t_guess, double half_width, int sign,
                        double *t_ext, double *y_ext) {
  sign = sign < 0 ? -1 : 1;
  if (!(half_width > 0))
    return ROD_EINVAL;
  int start = extreme_sample(t, y, stride, n, t_guess, half_width, sign);
  if (start < 0)
    return ROD_EINVAL;
  double centre = t[start], q[3];
  /* The vertex hardly depends on the centre for a peak that is nearly
   * symmetric in the window, so this fixed-point iteration contracts fast;
   * the cap only guards against a wandering centre on a flat signal. */
  for (int it = 0; it < 100; it++) {
    if (fit_parabola(t, y, stride, n, centre, half_width, q) < 5)
      return ROD_EINVAL;
    if (!(sign * q[2] < 0)) /* curved the wrong way: no extremum here */
      return ROD_EINVAL;
    double shift = -q[1] / (2 * q[2]); /* vertex, in units of half_width */
    if (fabs(shift) > 0.5)
      shift = shift > 0 ? 0.5 : -0.5; /* move at most a quarter window */
    centre += shift * half_width;
    if (fabs(centre - t_guess) > half_width)
      return ROD_EINVAL;
    if (fabs(shift) <= 1e-12) {
      *t_ext = centre;
      *y_ext = q[0] - q[1] * q[1] / (4 * q[2]);
      return ROD_OK;
    }
  }
  return ROD_EINVAL;
}
