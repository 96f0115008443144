/* The dominant frequency of a sampled signal: upward zero crossings, then a
 * least-squares fit of a damped sine (see signal/signal.h). */
#include <lapacke.h>
#include <math.h>

#include "rod/status.h"
#include "signal/signal.h"

#define Y(i) y[(size_t)(i)*stride]

enum { OFFSET, COS, SIN, OMEGA, DECAY, NPAR };

static double mean_of(const double *y, size_t stride, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += Y(i);
  return s / n;
}

/* Noise level: for white noise of standard deviation sigma the second
 * difference y[i+1] - 2 y[i] + y[i-1] has variance 6 sigma^2. A smooth
 * signal adds about (omega h)^2 |y|, which only raises the hysteresis a
 * little while the signal has more than a few samples per period. */
static double noise_level(const double *y, size_t stride, int n) {
  double s = 0;
  for (int i = 1; i + 1 < n; i++) {
    double d = Y(i + 1) - 2 * Y(i) + Y(i - 1);
    s += d * d;
  }
  return sqrt(s / (6.0 * (n - 2)));
}

/* Upward crossings of level: y rises through it after having been below
 * level - hysteresis since the previous crossing. Crossing times are
 * interpolated linearly between the two samples around the crossing. */
static int upward_crossings(const double *t, const double *y, size_t stride,
                            int n, double level, double hysteresis,
                            double *first, double *last) {
  int count = 0;
  int armed = 0;
  for (int i = 0; i < n; i++) {
    double v = Y(i) - level;
    if (v < -hysteresis)
      armed = 1;
    if (!armed || v < 0 || i == 0)
      continue;
    double u = Y(i - 1) - level; /* < 0: we did not fire at i - 1 */
    double tc = t[i - 1] + (t[i] - t[i - 1]) * (-u / (v - u));
    if (count++ == 0)
      *first = tc;
    *last = tc;
    armed = 0;
  }
  return count;
}

/* The damped sine at tau = t - tmid and its gradient in the parameters. */
static double model(const double *p, double tau, double *grad) {
  double e = exp(-p[DECAY] * tau);
  double c = cos(p[OMEGA] * tau), s = sin(p[OMEGA] * tau);
  double osc = p[COS] * c + p[SIN] * s;
  if (grad) {
    grad[OFFSET] = 1.0;
    grad[COS] = e * c;
    grad[SIN] = e * s;
    grad[OMEGA] = e * tau * (p[SIN] * c - p[COS] * s);
    grad[DECAY] = -tau * e * osc;
  }
  return p[OFFSET] + e * osc;
}

/* Normal equations A = G^T G, b = G^T r of the first `np` parameters (G
 * the model gradient, r = y - model); returns the sum of squares. */
static double normal_equations(const double *t, const double *y, size_t stride,
                               int n, double tmid, const double *p, int np,
                               double *A, double *b) {
  double ssr = 0, g[NPAR];
  for (int j = 0; j < np * np; j++)
    A[j] = 0;
  for (int j = 0; j < np; j++)
    b[j] = 0;
  for (int i = 0; i < n; i++) {
    double r = Y(i) - model(p, t[i] - tmid, g);
    ssr += r * r;
    for (int j = 0; j < np; j++) {
      b[j] += g[j] * r;
      for (int k = 0; k <= j; k++)
        A[j * np + k] += g[j] * g[k];
    }
  }
  for (int j = 0; j < np; j++) /* mirror: LAPACK reads the upper part */
    for (int k = 0; k < j; k++)
      A[k * np + j] = A[j * np + k];
  return ssr;
}

static double sum_of_squares(const double *t, const double *y, size_t stride,
                             int n, double tmid, const double *p) {
  double ssr = 0;
  for (int i = 0; i < n; i++) {
    double r = Y(i) - model(p, t[i] - tmid, NULL);
    ssr += r * r;
  }
  return ssr;
}

/* Solve (A + lambda diag(A)) x = b in place of b; false if singular. */
static int damped_solve(double *A, double *b, int np, double lambda) {
  for (int j = 0; j < np; j++)
    A[j * np + j] *= 1.0 + lambda;
  return LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', np, 1, A, np, b, np) == 0;
}

/* Marquardt iterations on all five parameters from p; ROD_OK when the
 * frequency and decay steps fall below 1e-12 of the angular frequency. */
static int fit_damped_sine(const double *t, const double *y, size_t stride,
                           int n, double tmid, double *p, double *ssr) {
  double A[NPAR * NPAR], b[NPAR], trial[NPAR];
  double lambda = 1e-3;
  *ssr = normal_equations(t, y, stride, n, tmid, p, NPAR, A, b);
  for (int it = 0; it < 200; it++) {
    if (!damped_solve(A, b, NPAR, lambda))
      return ROD_ENOCONV;
    /* a short step only means convergence while the damping is light */
    double tol = 1e-12 * fabs(p[OMEGA]);
    if (lambda <= 1e-3 && fabs(b[OMEGA]) <= tol && fabs(b[DECAY]) <= tol)
      return ROD_OK;
    for (int j = 0; j < NPAR; j++)
      trial[j] = p[j] + b[j];
    double s = sum_of_squares(t, y, stride, n, tmid, trial);
    if (s < *ssr) {
      for (int j = 0; j < NPAR; j++)
        p[j] = trial[j];
      lambda = lambda > 1e-12 ? lambda * 0.1 : lambda;
    } else if ((lambda *= 10.0) > 1e12) {
      return ROD_OK; /* no decrease at any damping: rounding level */
    }
    *ssr = normal_equations(t, y, stride, n, tmid, p, NPAR, A, b);
  }
  return ROD_ENOCONV;
}

int rod_signal_frequency(const double *t, const double *y, size_t stride, int n,
                         rod_signal_sine *fit) {
  if (n < 8)
    return ROD_EINVAL;
  double level = mean_of(y, stride, n);
  double first = 0, last = 0, peak = 0;
  for (int i = 0; i < n; i++)
    peak = fmax(peak, fabs(Y(i) - level));
  double hysteresis = fmin(3.0 * noise_level(y, stride, n), 0.5 * peak);
  int crossings =
      upward_crossings(t, y, stride, n, level, hysteresis, &first, &last);
  fit->crossings = crossings;
  if (crossings < 2 || !(last > first))
    return ROD_EINVAL;
  /* start: the crossing frequency, no decay, the best linear fit of the
   * offset and the two quadratures */
  const double tmid = 0.5 * (t[0] + t[n - 1]);
  double p[NPAR] = {level, 0, 0, 2 * M_PI * (crossings - 1) / (last - first),
                    0};
  double A[3 * 3], b[3];
  normal_equations(t, y, stride, n, tmid, p, 3, A, b);
  if (!damped_solve(A, b, 3, 0.0))
    return ROD_ENOCONV;
  for (int j = 0; j < 3; j++)
    p[j] += b[j];
  double ssr;
  int st = fit_damped_sine(t, y, stride, n, tmid, p, &ssr);
  if (st != ROD_OK || !(p[OMEGA] > 0) || !isfinite(p[DECAY]))
    return ROD_ENOCONV;
  fit->frequency = p[OMEGA] / (2 * M_PI);
  fit->decay = p[DECAY];
  fit->amplitude = hypot(p[COS], p[SIN]);
  fit->phase = atan2(p[COS], p[SIN]); /* b cos + c sin = A sin(. + phase) */
  fit->offset = p[OFFSET];
  fit->tmid = tmid;
  fit->rms = sqrt(ssr / n);
  return ROD_OK;
}
