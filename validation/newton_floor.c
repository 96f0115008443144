/* Where the floor of spatial integrations per step lies ("at most
 * 3 per step" on the weight release). The scenario runs exactly as
 * `rodsim run` does; before every step, the step's boundary-value problem
 * (its BDF coefficients, history and loads) is solved again by simple
 * shooting in several ways, on a shooting instance of its own, so the run
 * is not disturbed:
 *
 *   reference  Newton with the integrated-tangent Jacobian from the
 *              prediction down to ||r|| < 1e-12: the step's exact unknowns
 *              x* (and e0 = ||x_pred - x*||_inf, scaled units).
 *   exact      Newton with the integrated-tangent Jacobian at every
 *              iterate, as if it cost nothing: residual sweeps to reach
 *              solver.tolerance (the first at the prediction included).
 *   along      the same with a fresh Jacobian along every iterate's sweep.
 *   solver     the solver as the backend runs it (a Jacobian along the
 *              prediction's sweep, Broyden updates): integrations counted
 *              as in /solver/integrations.
 *   oracle     exact Newton from x* + e, e along x_pred - x* with
 *              ||e||_inf = 1e-6 and 1e-7: how much a better predictor buys.
 *
 * and the Jacobian at x* is compared with cheaper ones through Newton's
 * contraction d = ||I - J* Ja^-1||_2 (in-plane block): along (Ja along the
 * prediction's sweep; along_half with half the coarse interval), stale (the
 * previous step's J*), extrapolated (the last three steps' J* quadratically). A
 * Newton step with Ja leaves r1 ~ (I - J* Ja^-1) r0: d must be far below 1 for
 * the Jacobian to be worth skipping.
 *
 * Prints one CSV row per step (empty where a method did not apply or did
 * not converge) and, on stderr, medians and means over the steps where it
 * did.
 *
 * usage: newton_floor SCENARIO.ini [steps] */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_solve.h"
#include "study.h"

enum { NX = 6, NP = 3, MAX_NEWTON = 30 };
static const int in_plane[NP] = {0, 2, 4};

static double norm_inf(const double *v, int n) {
  double a = 0;
  for (int i = 0; i < n; i++)
    a = fmax(a, fabs(v[i]));
  return a;
}

/* x += -J^-1 r (6 x 6); false when singular. */
static bool newton_update(const double *J, const double *r, double *x) {
  double A[NX * NX], b[NX];
  lapack_int ipiv[NX];
  memcpy(A, J, sizeof A);
  for (int i = 0; i < NX; i++)
    b[i] = -r[i];
  if (LAPACKE_dgesv(LAPACK_COL_MAJOR, NX, 1, A, NX, ipiv, b, NX) != 0)
    return false;
  for (int i = 0; i < NX; i++)
    x[i] += b[i];
  return true;
}

typedef int (*jacobian_fn)(rod_shooting *, const double *, double *, double *);

/* Newton from x with the given Jacobian at every iterate until ||r|| <
 * tol; the residual sweeps it took (the first included), NAN when it did
 * not converge (undamped Newton from a poor guess diverges: modified
 * shooting takes those steps). hist (3) gets r0, r1, r2; J (NX x NX) the
 * Jacobian at the last iterate. */
static double newton(rod_shooting *sh, jacobian_fn jac, double *x, double tol,
                     double *hist, double *J) {
  double r[NX];
  for (int i = 0; i < 3; i++)
    hist[i] = NAN;
  for (int sweeps = 1; sweeps <= MAX_NEWTON; sweeps++) {
    if (jac(sh, x, r, J) != ROD_OK)
      return NAN;
    double res = norm_inf(r, NX);
    if (sweeps <= 3)
      hist[sweeps - 1] = res;
    if (res < tol)
      return sweeps;
    if (!newton_update(J, r, x))
      return NAN;
  }
  return NAN;
}

/* The in-plane 3 x 3 block of a 6 x 6 Jacobian (column-major). */
static void block(const double *J, double *B) {
  for (int j = 0; j < NP; j++)
    for (int i = 0; i < NP; i++)
      B[j * NP + i] = J[in_plane[j] * NX + in_plane[i]];
}

/* ||I - Jt Ja^-1||_2 on the in-plane block. */
static double contraction(const double *Jt, const double *Ja) {
  double T[NP * NP], A[NP * NP], s[NP], sup[NP];
  lapack_int ipiv[NP];
  block(Jt, T);
  block(Ja, A);
  /* M = I - T A^-1: solve A^T M^T = A^T - T^T, i.e. M^T = I - A^-T T^T */
  double At[NP * NP], Mt[NP * NP];
  for (int i = 0; i < NP; i++)
    for (int j = 0; j < NP; j++) {
      At[j * NP + i] = A[i * NP + j];
      Mt[j * NP + i] = T[i * NP + j]; /* T^T */
    }
  if (LAPACKE_dgesv(LAPACK_COL_MAJOR, NP, NP, At, NP, ipiv, Mt, NP) != 0)
    return NAN;
  for (int i = 0; i < NP * NP; i++)
    Mt[i] = (i % (NP + 1) == 0 ? 1.0 : 0.0) - Mt[i];
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', NP, NP, Mt, NP, s, NULL, 1,
                     NULL, 1, sup) != 0)
    return NAN;
  return s[0];
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of the finite values among n (NAN if none); sorts a copy. */
static double median(const double *v, int n) {
  double *c = malloc((size_t)n * sizeof *c);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i]))
      c[m++] = v[i];
  qsort(c, (size_t)m, sizeof *c, compare_double);
  double r = m ? (m % 2 ? c[m / 2] : 0.5 * (c[m / 2 - 1] + c[m / 2])) : NAN;
  free(c);
  return r;
}

/* Mean of the finite values among n; *count gets how many there are. */
static double mean(const double *v, int n, int *count) {
  double s = 0;
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i])) {
      s += v[i];
      m++;
    }
  *count = m;
  return m ? s / m : NAN;
}

/* Columns of the per-step table. */
enum {
  C_R0,
  C_E0,
  C_EXACT,
  C_EXACT_R1,
  C_EXACT_R2,
  C_ALONG,
  C_SOLVER,
  C_SOLVER_INT,
  C_ORACLE6,
  C_ORACLE7,
  C_D_ALONG,
  C_D_HALF,
  C_D_STALE,
  C_D_EXTRAP,
  C_COUNT
};
static const char *const column_names[C_COUNT] = {
    "r0",
    "e0",
    "exact_sweeps",
    "exact_r1",
    "exact_r2",
    "along_sweeps",
    "solver_iterations",
    "solver_integrations",
    "oracle6_sweeps",
    "oracle7_sweeps",
    "d_along",
    "d_along_half",
    "d_stale",
    "d_extrap",
};

int main(int argc, char **argv) {
  rod_scenario sc;
  if (!study_start(argc, argv, "newton_floor", "[steps]", &sc))
    return 2;
  int steps = (int)lround(sc.time.duration / sc.time.dt);
  if (argc > 2 && (steps = atoi(argv[2])) < 1) {
    fprintf(stderr, "newton_floor: steps: must be >= 1 (got %s)\n", argv[2]);
    return 2;
  }
  void *self;
  rod_step_stats st;
  rod_error err;
  if (rod_backend_kirchhoff.create(&sc, &self, &err) != ROD_OK ||
      rod_backend_kirchhoff.solve_static(self, &st) != ROD_OK) {
    fprintf(stderr, "newton_floor: %s: the static state failed\n", argv[1]);
    return 1;
  }
  rod_kirchhoff *k = self;
  rod_shooting *sh = rod_shooting_alloc(&k->bvp);
  double(*row)[C_COUNT] = calloc((size_t)steps, sizeof *row);
  double(*Jstar)[NX * NX] = calloc((size_t)steps, sizeof *Jstar);
  bool *have_ref = calloc((size_t)steps, sizeof *have_ref); /* x* found */
  if (!sh || !row || !Jstar || !have_ref) {
    fprintf(stderr, "newton_floor: out of memory\n");
    return 1;
  }
  const double tol = sc.solver.tolerance;
  printf("step,t");
  for (int c = 0; c < C_COUNT; c++)
    printf(",%s", column_names[c]);
  printf("\n");
  int done = 0;
  for (int i = 0; i < steps; i++) {
    const double t = (i + 1) * sc.time.dt;
    double xp[NX], xs[NX], x[NX], h[3], J[NX * NX], *rw = row[i];
    for (int l = 0; l < C_COUNT; l++)
      rw[l] = NAN;
    /* the step's problem, as the backend's first attempt poses it */
    kr_prepare_prediction(k);
    rod_bdf_coeffs c = kr_step_coefficients(k);
    kr_pose_step(k, t, &c, xp);
    rod_shooting_set_active(sh, k->planar ? in_plane : NULL,
                            k->planar ? NP : 0);
    memcpy(xs, xp, sizeof xs);
    have_ref[i] =
        isfinite(newton(sh, rod_shooting_jacobian, xs, 1e-11, h, Jstar[i]));
    rw[C_R0] = h[0];
    memcpy(x, xp, sizeof x);
    rw[C_EXACT] = newton(sh, rod_shooting_jacobian, x, tol, h, J);
    rw[C_EXACT_R1] = h[1];
    rw[C_EXACT_R2] = h[2];
    memcpy(x, xp, sizeof x);
    if (k->tangent_stride > 0)
      rw[C_ALONG] = newton(sh, rod_shooting_jacobian_along, x, tol, h, J);
    if (have_ref[i]) {
      double e[NX];
      for (int l = 0; l < NX; l++)
        e[l] = xp[l] - xs[l];
      rw[C_E0] = norm_inf(e, NX);
      for (int o = 0; o < 2 && rw[C_E0] > 0; o++) {
        double size = o == 0 ? 1e-6 : 1e-7;
        for (int l = 0; l < NX; l++)
          x[l] = xs[l] + e[l] * size / rw[C_E0];
        rw[o == 0 ? C_ORACLE6 : C_ORACLE7] =
            newton(sh, rod_shooting_jacobian, x, tol, h, J);
      }
      double r[NX];
      if (rod_shooting_jacobian_along(sh, xp, r, J) == ROD_OK)
        rw[C_D_ALONG] = contraction(Jstar[i], J);
      /* along the sweep at half the coarse interval: what RK4's truncation
       * on the coarse intervals costs */
      if (k->tangent_stride >= 4) {
        const int stride = k->tangent_stride;
        k->tangent_stride = stride / 2 + (stride / 2) % 2; /* even */
        if (rod_shooting_jacobian_along(sh, xp, r, J) == ROD_OK)
          rw[C_D_HALF] = contraction(Jstar[i], J);
        k->tangent_stride = stride;
      }
      if (i >= 1 && have_ref[i - 1])
        rw[C_D_STALE] = contraction(Jstar[i], Jstar[i - 1]);
      if (i >= 3 && have_ref[i - 1] && have_ref[i - 2] && have_ref[i - 3]) {
        for (int l = 0; l < NX * NX; l++)
          J[l] = 3 * Jstar[i - 1][l] - 3 * Jstar[i - 2][l] + Jstar[i - 3][l];
        rw[C_D_EXTRAP] = contraction(Jstar[i], J);
      }
    }
    /* the solver's own step (poses the step again: the experiments change
     * nothing it reads) */
    if (rod_backend_kirchhoff.step(self, t, &st) != ROD_OK) {
      fprintf(stderr, "newton_floor: the step to t = %g failed\n", t);
      break;
    }
    if (st.method == ROD_METHOD_SIMPLE) {
      rw[C_SOLVER] = st.iterations;
      rw[C_SOLVER_INT] = st.integrations;
    }
    printf("%d,%.6g", i + 1, t);
    for (int l = 0; l < C_COUNT; l++)
      if (isfinite(rw[l]))
        printf(",%.4g", rw[l]);
      else
        printf(",");
    printf("\n");
    done++;
  }
  /* summaries: all steps, and the second half (past the release's
   * transient) */
  for (int part = 0; part < 2; part++) {
    int first = part == 0 ? 0 : done / 2, n = done - first;
    fprintf(stderr, "%s (%d steps):\n", part == 0 ? "all steps" : "second half",
            n);
    double *col = malloc((size_t)(n > 0 ? n : 1) * sizeof *col);
    for (int c = 0; c < C_COUNT; c++) {
      for (int l = 0; l < n; l++)
        col[l] = row[first + l][c];
      int m;
      double avg = mean(col, n, &m);
      fprintf(stderr, "  %-20s median %-10.3g mean %-10.3g (%d steps)\n",
              column_names[c], median(col, n), avg, m);
    }
    free(col);
  }
  free(row);
  free(Jstar);
  free(have_ref);
  rod_shooting_free(sh);
  rod_backend_kirchhoff.destroy(self);
  return 0;
}
