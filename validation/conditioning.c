/* Condition number of the shooting Jacobian against the time step
 * (small-dt ill-conditioning). For each dt the impulse scenario is
 * run a few steps past the strike, then at the converged solution the
 * Jacobians of simple shooting (6 x 6, scaled unknowns and residuals) and
 * of modified shooting (multiple shooting with the nodes the solver places)
 * are formed by tangent sweeps and their 2-norm condition numbers computed
 * by SVD. Prints CSV:
 *   dt,growth,cond_simple,nodes,cond_modified
 * (cond_simple = inf where simple shooting's sweep overflows).
 * growth = exp(k L / sqrt 2), k^4 = rhoA c0^2 / EI (docs/numerics.md).
 *
 * usage: conditioning SCENARIO.ini [dt ...] */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"
#include "study.h"

static double cond2(int n, const double *J) {
  double *A = malloc((size_t)n * n * sizeof(double));
  double *s = malloc((size_t)n * sizeof(double));
  double *sup = malloc((size_t)n * sizeof(double));
  memcpy(A, J, (size_t)n * n * sizeof(double));
  lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, n, A, n, s,
                                   NULL, 1, NULL, 1, sup);
  double c = info == 0 ? s[0] / s[n - 1] : NAN;
  free(A);
  free(s);
  free(sup);
  return c;
}

static void study(const rod_scenario *base, double dt) {
  rod_scenario sc = *base;
  sc.time.dt = dt;
  sc.solver.strategy = ROD_STRATEGY_MODIFIED;
  void *self;
  rod_error err;
  rod_step_stats st;
  if (rod_backend_kirchhoff.create(&sc, &self, &err) != ROD_OK ||
      rod_backend_kirchhoff.solve_static(self, &st) != ROD_OK) {
    printf("%g,,,,\n", dt);
    return;
  }
  rod_kirchhoff *k = self;
  /* a few steps into the strike */
  int steps = (int)ceil(0.006 / dt);
  for (int i = 1; i <= steps; i++)
    if (rod_backend_kirchhoff.step(self, i * dt, &st) != ROD_OK) {
      printf("%g,,,,\n", dt);
      rod_backend_kirchhoff.destroy(self);
      return;
    }
  rod_bdf_coeffs c = rod_bdf_alpha(sc.time.alpha, dt);
  kr_set_coefficients(k, &c, true);
  kr_set_loads(k, (steps + 1) * dt, false);
  double kk = pow(k->model.rho_area * c.c0 * c.c0 / k->model.K[0], 0.25);
  double growth = exp(kk * k->model.length / M_SQRT2);
  double r[6], J[36];
  /* beyond double precision the sweep itself overflows: infinite */
  double cs = rod_shooting_jacobian(k->shoot, k->x, r, J) == ROD_OK
                  ? cond2(6, J)
                  : INFINITY;
  /* modified shooting at the same solution: node states from it */
  for (int j = 0; j < k->nodes; j++)
    memcpy(k->yref + (size_t)ROD_NY * j, k->sol_y + (size_t)KR_NODE * j,
           ROD_NY * sizeof(double));
  int n = rod_mshoot_unknowns(k->mshoot);
  double *X = calloc(n, sizeof(double)), *R = calloc(n, sizeof(double));
  double *Jm = calloc((size_t)n * n, sizeof(double));
  memcpy(X, k->x, sizeof k->x);
  rod_mshoot_dense_jacobian(k->mshoot, X, k->yref, R, Jm);
  double cm = cond2(n, Jm);
  printf("%g,%.4g,%.4g,%d,%.4g\n", dt, growth, cs,
         rod_mshoot_node_count(k->mshoot), cm);
  free(X);
  free(R);
  free(Jm);
  rod_backend_kirchhoff.destroy(self);
}

int main(int argc, char **argv) {
  rod_scenario sc;
  if (!study_start(argc, argv, "conditioning", "[dt ...]", &sc))
    return 2;
  printf("dt,growth,cond_simple,nodes,cond_modified\n");
  if (argc > 2) {
    for (int i = 2; i < argc; i++)
      study(&sc, atof(argv[i]));
  } else {
    const double dts[] = {20e-3, 10e-3,  5e-3,   2e-3,
                          1e-3,  0.5e-3, 0.2e-3, 0.1e-3};
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++)
      study(&sc, dts[i]);
  }
  return 0;
}
