/* Independent references for the statics tests: the planar cantilever
 * in the angle form, solved by its own shooting. */
#ifndef ROD_TEST_ELASTICA_H
#define ROD_TEST_ELASTICA_H

#include <math.h>

/* Planar cantilever in the angle form, an independent formulation:
 * EI theta'' = -(P + w (L - s)) cos(theta), theta(0) = 0, theta'(L) = 0,
 * solved by bisection on theta'(0) with RK4 on a fine grid. Returns the tip
 * deflection along the load (m) and along the clamp (m). */
static inline void planar_cantilever(double EI, double P, double w, double L,
                                     double *defl, double *along) {
  const int n = 20000;
  double h = L / n, lo = 0.0, hi = (P * L + w * L * L) / EI * 2.0 + 1.0;
  double x = 0, y = 0;
  for (int it = 0; it < 200; it++) {
    double k0 = 0.5 * (lo + hi);
    double th = 0, k = k0;
    x = y = 0;
    for (int i = 0; i < n; i++) {
      double s = i * h;
      /* state (theta, kappa, x, y) */
      double f[4][4], st[4] = {th, k, x, y};
      double c[4] = {0, 0.5, 0.5, 1.0};
      for (int q = 0; q < 4; q++) {
        double yy[4];
        for (int m = 0; m < 4; m++)
          yy[m] = st[m] + (q ? c[q] * h * f[q - 1][m] : 0.0);
        double ss = s + c[q] * h;
        f[q][0] = yy[1];
        f[q][1] = -(P + w * (L - ss)) * cos(yy[0]) / EI;
        f[q][2] = cos(yy[0]);
        f[q][3] = sin(yy[0]);
      }
      th += h / 6 * (f[0][0] + 2 * f[1][0] + 2 * f[2][0] + f[3][0]);
      k += h / 6 * (f[0][1] + 2 * f[1][1] + 2 * f[2][1] + f[3][1]);
      x += h / 6 * (f[0][2] + 2 * f[1][2] + 2 * f[2][2] + f[3][2]);
      y += h / 6 * (f[0][3] + 2 * f[1][3] + 2 * f[2][3] + f[3][3]);
    }
    if (k > 0) /* curvature left at the tip: too much at the clamp */
      hi = k0;
    else
      lo = k0;
    if (hi - lo < 1e-15 * hi)
      break;
  }
  *defl = y;
  *along = x;
}

#endif
