/* Explicit Euler and classic fourth-order Runge-Kutta steps in arclength. */
#include "integrators/spatial.h"

#include <string.h>

static size_t euler_work(int n) { return (size_t)n; }

static int euler_step(rod_ode_fn f, int j, double h, int n, int nq, double *y,
                      double *dyds_start, double *work, void *user) {
  (void)nq;
  double *k = dyds_start ? dyds_start : work;
  int st = f(j, 0, y, k, user);
  if (st)
    return st;
  for (int i = 0; i < n; i++)
    y[i] += h * k[i];
  return 0;
}

static size_t rk4_work(int n) { return 5 * (size_t)n; }

/* Classic RK4: stages at s_j, s_j + h/2 (twice) and s_j + h. */
static int rk4_step(rod_ode_fn f, int j, double h, int n, int nq, double *y,
                    double *dyds_start, double *work, void *user) {
  double *k1 = work, *k2 = work + n, *k3 = work + 2 * n, *k4 = work + 3 * n;
  double *yt = work + 4 * n;
  int ns = n - nq; /* components that stages need */
  int st;
  if ((st = f(j, 0, y, k1, user)))
    return st;
  for (int i = 0; i < ns; i++)
    yt[i] = y[i] + 0.5 * h * k1[i];
  if ((st = f(j, 1, yt, k2, user)))
    return st;
  for (int i = 0; i < ns; i++)
    yt[i] = y[i] + 0.5 * h * k2[i];
  if ((st = f(j, 2, yt, k3, user)))
    return st;
  for (int i = 0; i < ns; i++)
    yt[i] = y[i] + h * k3[i];
  if ((st = f(j, 3, yt, k4, user)))
    return st;
  const double h6 = h / 6.0;
  for (int i = 0; i < n; i++)
    y[i] += h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
  if (dyds_start)
    memcpy(dyds_start, k1, (size_t)n * sizeof *k1);
  return 0;
}

static const double euler_c[1] = {0.0};
static const double rk4_c[4] = {0.0, 0.5, 0.5, 1.0};
const rod_spatial_type rod_spatial_euler = {"euler", 1,          1,
                                            euler_c, euler_step, euler_work};
const rod_spatial_type rod_spatial_rk4 = {"rk4", 4,        4,
                                          rk4_c, rk4_step, rk4_work};

int rod_spatial_integrate(const rod_spatial_type *type, rod_ode_fn f,
                          const double *s, int npts, int n, int nq, double *y,
                          double *ys, double *work, void *user) {
  if (ys)
    memcpy(ys, y, (size_t)n * sizeof *y);
  for (int j = 0; j + 1 < npts; j++) {
    int st = type->step(f, j, s[j + 1] - s[j], n, nq, y, NULL, work, user);
    if (st)
      return st;
    if (ys)
      memcpy(ys + (size_t)(j + 1) * n, y, (size_t)n * sizeof *y);
  }
  return 0;
}
