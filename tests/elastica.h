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

/* The planar heavy elastica clamped horizontally at height h over a
 * frictionless table and lying on it from s = a (the independent
 * reference): no horizontal force anywhere, the vertical internal force
 * P - q (a - s) with P the touchdown's point force, EI theta'' =
 * -cos(theta) (P - q (a - s)); at a theta = theta' = z = 0, at the clamp
 * theta = 0, z = h. Shooting from a back to the clamp (RK4, n steps,
 * error O(n^-4)) with Newton on (P, a) from the small-deflection answer.
 * out: a, the clamp moment and vertical force. */
static inline void shoot_table(double EI, double q, double P, double a, int n,
                               double y[3]) {
  const double du = a / n;
  y[0] = y[1] = y[2] = 0; /* theta, theta', z from the touchdown back */
  for (int i = 0; i < n; i++) {
    double k[4][3], t[3];
    for (int st = 0; st < 4; st++) {
      const double c = st == 0 ? 0 : (st == 3 ? 1 : 0.5);
      const double u = (i + c) * du;
      for (int j = 0; j < 3; j++)
        t[j] = y[j] + (st ? c * du * k[st - 1][j] : 0);
      k[st][0] = -t[1];
      k[st][1] = cos(t[0]) * (P - q * u) / EI;
      k[st][2] = -sin(t[0]);
    }
    for (int j = 0; j < 3; j++)
      y[j] += du / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
  }
}

static inline void heavy_on_table(double EI, double q, double h,
                                  double out[3]) {
  enum { N = 4000 };
  double a = pow(72 * EI * h / q, 0.25), P = q * a / 3, y[3];
  for (int it = 0; it < 30; it++) {
    shoot_table(EI, q, P, a, N, y);
    const double F0 = y[0], F1 = y[2] - h;
    if (fabs(F0) < 1e-14 && fabs(F1) < 1e-14 * h)
      break;
    double Jm[2][2], yp[3], ym[3];
    const double dP = 1e-6 * q * a, da = 1e-6 * a;
    shoot_table(EI, q, P + dP, a, N, yp);
    shoot_table(EI, q, P - dP, a, N, ym);
    Jm[0][0] = (yp[0] - ym[0]) / (2 * dP);
    Jm[1][0] = (yp[2] - ym[2]) / (2 * dP);
    shoot_table(EI, q, P, a + da, N, yp);
    shoot_table(EI, q, P, a - da, N, ym);
    Jm[0][1] = (yp[0] - ym[0]) / (2 * da);
    Jm[1][1] = (yp[2] - ym[2]) / (2 * da);
    const double det = Jm[0][0] * Jm[1][1] - Jm[0][1] * Jm[1][0];
    P -= (Jm[1][1] * F0 - Jm[0][1] * F1) / det;
    a -= (-Jm[1][0] * F0 + Jm[0][0] * F1) / det;
  }
  shoot_table(EI, q, P, a, N, y);
  out[0] = a;
  out[1] = fabs(EI * y[1]);
  out[2] = q * a - P;
}

#endif
