/* Sampled signals (a tip coordinate against time): interpolation, the
 * dominant frequency and local extrema.
 *
 * `calibrate` resamples simulations at the data's times and extracts the
 * features of Till & Rucker 2017, section III.A (first peak, first valley,
 * final peak, frequency); `compare` takes the dominant frequency of
 * docs/commands.md section 1 (upward zero crossings of z minus its mean,
 * refined by a least-squares sine fit). Sample i is (t[i], y[i * stride]), so a
 * column of an (n x 3) row-major position array is read in place (stride 3).
 * Times must increase strictly. Nothing here allocates. */
#ifndef ROD_SIGNAL_H
#define ROD_SIGNAL_H

#include <stddef.h>

/* Node slopes dy/dt for cubic Hermite interpolation from positions only:
 * the derivative at t[i] of the quartic through the five nodes nearest to
 * i (shifted inwards at the ends; fewer when n < 5). The slope error is
 * O(h^4), so the interpolant's error stays O(h^4) like a cubic spline's,
 * but each slope is local: no tridiagonal solve, any spacing. dydt has
 * the stride of y. n >= 2. */
void rod_signal_slopes(const double *t, int n, const double *y, size_t stride,
                       double *dydt);

/* The cubic Hermite interpolant of (t, y, dydt) at tq; outside [t[0],
 * t[n-1]] the end value (a run's samples start at the static state, which
 * is also the state before release). *hint (may be NULL) is an interval
 * index kept between calls: queries in increasing order then cost O(1). */
double rod_signal_hermite(const double *t, int n, const double *y,
                          const double *dydt, size_t stride, double tq,
                          int *hint);

/* A damped sine fitted to a signal:
 *   y(t) ~ offset + amplitude e^(-decay (t - tmid)) sin(2 pi f (t - tmid) +
 *   phase),
 * tmid the middle of the samples' time span. */
typedef struct {
  double frequency; /* Hz */
  double decay;     /* 1/s, exponential decay rate of the amplitude */
  double amplitude; /* units of y, at tmid */
  double phase;     /* rad, at tmid */
  double offset;    /* units of y */
  double tmid;      /* s */
  double rms;       /* units of y, rms residual of the fit */
  int crossings;    /* upward zero crossings of the first estimate */
} rod_signal_sine;

/* The dominant frequency of y: first from the upward zero crossings of y
 * minus its mean, with a hysteresis of three times the noise level so that
 * noise cannot add crossings, f0 = (crossings - 1) / (time from the first
 * to the last crossing); then refined by fitting the damped sine above by
 * least squares (Gauss-Newton with Marquardt damping on frequency, decay,
 * offset and the two quadrature amplitudes). The decay term makes the
 * estimate exact for exponentially damped sines, where a plain sine fit
 * is biased by ~0.1 % per unit of decay x duration. ROD_EINVAL if n < 8
 * or fewer than two upward crossings; ROD_ENOCONV if the fit fails. */
int rod_signal_frequency(const double *t, const double *y, size_t stride, int n,
                         rod_signal_sine *fit);

/* The local maximum (sign > 0) or minimum (sign < 0) of y near t_guess:
 * the vertex of a parabola fitted by weighted least squares to the samples
 * within half_width of a centre, with biweight weights (1 - u^2)^2, u =
 * (t - centre) / half_width, the centre moved to the vertex until it stays
 * (starting from the extreme sample within half_width of t_guess). The
 * weights vanish smoothly at the window's edges, so the result depends
 * smoothly on the samples even as the window slides over them, and the
 * fit averages the noise of the samples it spans. ROD_EINVAL if fewer than
 * five samples fall in the window or the vertex is not an extremum of that
 * sign within half_width of t_guess. */
int rod_signal_extremum(const double *t, const double *y, size_t stride, int n,
                        double t_guess, double half_width, int sign,
                        double *t_ext, double *y_ext);

#endif
