/* Modal analysis of simulated vibrations for the test suites: quadrature
 * weights on a non-uniform grid, a single mode's frequency and decay per
 * step by Prony's method, and BDF-alpha's own root for y' = i w y (the
 * frequency a linear mode of frequency w shows after time stepping). */
#ifndef ROD_MODALUTIL_H
#define ROD_MODALUTIL_H

#include <complex.h>
#include <math.h>

#include "integrators/bdf.h"

/* Quadrature weights on the grid s: Simpson's rule on pairs of intervals
 * (the non-uniform form), a trapezoid for a last odd interval. Exact for
 * cubics, so the mode shapes' projections leak little into each other. */
static inline void quadrature_weights(const double *s, int N, double *w) {
  for (int j = 0; j < N; j++)
    w[j] = 0;
  int j = 0;
  for (; j + 2 < N; j += 2) {
    double h0 = s[j + 1] - s[j], h1 = s[j + 2] - s[j + 1], H = h0 + h1;
    w[j] += H / 6 * (2 - h1 / h0);
    w[j + 1] += H * H * H / (6 * h0 * h1);
    w[j + 2] += H / 6 * (2 - h0 / h1);
  }
  if (j + 1 < N) {
    double h = s[j + 1] - s[j];
    w[j] += 0.5 * h;
    w[j + 1] += 0.5 * h;
  }
}

/* Prony: uniform samples of one damped sinusoid obey
 * q(i+m) = a q(i) + b q(i-m) with a = 2 rho^m cos(m theta), b = -rho^2m.
 * Least squares over [i0, i1); the stride m keeps m theta near 0.5 so that
 * a is not too close to 2. Returns theta and rho per sample. */
static inline void prony(const double *q, int i0, int i1, double theta_guess,
                         double *theta, double *rho) {
  int m = (int)(0.5 / theta_guess);
  if (m < 1)
    m = 1;
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (int i = i0 + m; i + m < i1; i++) {
    double x1 = q[i], x2 = q[i - m], y = q[i + m];
    s11 += x1 * x1;
    s12 += x1 * x2;
    s22 += x2 * x2;
    r1 += x1 * y;
    r2 += x2 * y;
  }
  double det = s11 * s22 - s12 * s12;
  double a = (r1 * s22 - r2 * s12) / det, b = (s11 * r2 - s12 * r1) / det;
  double rm = sqrt(-b);
  *rho = pow(rm, 1.0 / m);
  *theta = acos(a / (2.0 * rm)) / m;
}

/* Principal root of BDF-alpha applied to y' = i w y:
 * (c0 - i w) z^2 + (c1 + i d1 w) z + c2 = 0. */
static inline double complex bdf_root(double alpha, double dt, double w) {
  rod_bdf_coeffs c = rod_bdf_alpha(alpha, dt);
  double complex A = c.c0 - I * w, B = c.c1 + I * c.d1 * w, C = c.c2;
  double complex d = csqrt(B * B - 4 * A * C);
  double complex z1 = (-B + d) / (2 * A), z2 = (-B - d) / (2 * A);
  return cabs(z1) > cabs(z2) ? z1 : z2;
}

#endif
