/* Classic fourth-order Runge-Kutta in time with fixed steps. */
#include "integrators/ivp.h"
#include "rod/status.h"

size_t rod_rk4_work_size(int n) { return 5 * (size_t)n; }

int rod_rk4_advance(rod_ivp_fn f, double t, double t_end, int substeps, int n,
                    double *y, double *work, rod_ivp_stats *st, void *user) {
  if (substeps < 1)
    return ROD_EINVAL;
  double *k1 = work, *k2 = work + n, *k3 = work + 2 * n, *k4 = work + 3 * n;
  double *ys = work + 4 * n;
  const double h = (t_end - t) / substeps;
  for (int step = 0; step < substeps; step++) {
    const double t0 = t + step * h;
    double *const k[4] = {k1, k2, k3, k4};
    static const double c[4] = {0.0, 0.5, 0.5, 1.0};
    for (int s = 0; s < 4; s++) {
      for (int i = 0; i < n; i++)
        ys[i] = s ? y[i] + c[s] * h * k[s - 1][i] : y[i];
      int status = f(t0 + c[s] * h, ys, k[s], user);
      if (st)
        st->evaluations++;
      if (status != 0)
        return status;
    }
    for (int i = 0; i < n; i++)
      y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    if (st)
      st->steps++;
  }
  return ROD_OK;
}
