/* Modified simple shooting on a model problem with a known answer:
 * y'' = lambda^2 y on [0, 1], y(0) = 1, y(1) = 0, whose solution
 * y = sinh(lambda (1 - s)) / sinh(lambda) simple shooting cannot reach for
 * large lambda (errors grow like exp(lambda)). Nodes come from the drift
 * rule alone, or from the spacing rule alone. */
#include <string.h>

#include "bvp/mshoot.h"
#include "bvp/shooting.h"
#include "rod/status.h"
#include "testutil.h"

enum { NODES = 201 };

typedef struct {
  double lambda;
  double s[NODES];
  double y[NODES][2]; /* the states of the last propagate at the nodes */
} model;

static void start(void *user, const double *x, double *y0, double *dy0) {
  (void)user;
  y0[0] = 1.0;  /* y(0) */
  y0[1] = x[0]; /* y'(0), the unknown */
  if (dy0) {
    dy0[0] = 0.0;
    dy0[1] = 1.0;
  }
}

/* RK4 on y1' = y2, y2' = lambda^2 y1, with k tangents (linear: the same
 * equations). */
static int propagate(void *user, int a, int b, double *y, int k, double *dy) {
  model *m = user;
  const double l2 = m->lambda * m->lambda;
  for (int j = a; j < b; j++) {
    double h = m->s[j + 1] - m->s[j];
    for (int v = -1; v < k; v++) {
      double *p = v < 0 ? y : dy + 2 * v;
      double k1a = p[1], k1b = l2 * p[0];
      double k2a = p[1] + h / 2 * k1b, k2b = l2 * (p[0] + h / 2 * k1a);
      double k3a = p[1] + h / 2 * k2b, k3b = l2 * (p[0] + h / 2 * k2a);
      double k4a = p[1] + h * k3b, k4b = l2 * (p[0] + h * k3a);
      p[0] += h / 6 * (k1a + 2 * k2a + 2 * k3a + k4a);
      p[1] += h / 6 * (k1b + 2 * k2b + 2 * k3b + k4b);
    }
    m->y[j + 1][0] = y[0];
    m->y[j + 1][1] = y[1];
  }
  return isfinite(y[0]) && isfinite(y[1]) ? 0 : 1;
}

static const double *node(void *user, int g) {
  model *m = user;
  return m->y[g];
}

static void end(void *user, const double *y, double *r, double *drdy) {
  (void)user;
  r[0] = y[0]; /* y(1) = 0 */
  if (drdy) {
    drdy[0] = 1.0;
    drdy[1] = 0.0;
  }
}

/* The model problem on a uniform grid of NODES points. */
static rod_bvp model_bvp(model *m, double lambda) {
  m->lambda = lambda;
  for (int j = 0; j < NODES; j++)
    m->s[j] = (double)j / (NODES - 1);
  rod_bvp bvp = {.ny = 2,
                 .nx = 1,
                 .nnodes = NODES,
                 .start = start,
                 .propagate = propagate,
                 .end = end,
                 .user = m};
  return bvp;
}

static void check(double lambda, int spacing, double drift) {
  model m;
  rod_bvp bvp = model_bvp(&m, lambda);
  const double scale[2] = {1.0, lambda};
  rod_mshoot *ms = rod_mshoot_alloc(&bvp, scale, 60);
  ck_assert_ptr_nonnull(ms);
  static double yref[2 * NODES]; /* a poor reference: zero everywhere */
  memset(yref, 0, sizeof yref);
  rod_mshoot_options o = {.spacing = spacing,
                          .drift = drift,
                          .tolerance = 1e-12,
                          .max_iterations = 50};
  double x = 0.0;
  rod_shooting_stats st;
  int status = rod_mshoot_solve(ms, &x, yref, &o, &st);
  ck_assert_msg(status == ROD_OK, "lambda %g: %s", lambda,
                rod_strerror(status));
  ck_assert_int_gt(rod_mshoot_node_count(ms), 0);
  /* y'(0) = -lambda coth(lambda) = -lambda for lambda >= 40 */
  double exact = -lambda / tanh(lambda);
  /* RK4 with h = 1/200: relative error ~ (lambda h)^4 / 120 */
  double lh = lambda / (NODES - 1);
  ck_assert_msg(fabs(x / exact - 1) < lh * lh * lh * lh / 10 + 1e-12,
                "lambda %g: y'(0) = %.12g, exact %.12g", lambda, x, exact);
  rod_mshoot_free(ms);
}

/* exp(60) = 1e26: far beyond simple shooting in double precision. */
START_TEST(drift_places_nodes) { check(60.0, 0, 5.0); }
END_TEST

START_TEST(spacing_places_nodes) { check(60.0, 10, 0.0); }
END_TEST

/* The drift test on a whole segment from the problem's node states
 * (rod_bvp.node) places the same nodes and reaches the same answer, bit for
 * bit, as the test interval by interval, with a drift test that fires many
 * times (a zero reference). */
START_TEST(drift_from_node_states) {
  double x[2], integ[2];
  int nodes[2][64], count[2];
  for (int with_node = 0; with_node < 2; with_node++) {
    model m;
    rod_bvp bvp = model_bvp(&m, 60.0);
    bvp.node = with_node ? node : NULL;
    const double scale[2] = {1.0, 60.0};
    rod_mshoot *ms = rod_mshoot_alloc(&bvp, scale, 60);
    static double yref[2 * NODES];
    memset(yref, 0, sizeof yref);
    rod_mshoot_options o = {
        .drift = 5.0, .tolerance = 1e-12, .max_iterations = 50};
    x[with_node] = 0.0;
    rod_shooting_stats st;
    ck_assert_int_eq(rod_mshoot_solve(ms, &x[with_node], yref, &o, &st),
                     ROD_OK);
    integ[with_node] = st.integrations;
    count[with_node] = rod_mshoot_node_count(ms);
    ck_assert_int_le(count[with_node], 64);
    memcpy(nodes[with_node], rod_mshoot_nodes(ms),
           (size_t)count[with_node] * sizeof(int));
    rod_mshoot_free(ms);
  }
  ck_assert_int_gt(count[0], 3);
  ck_assert_int_eq(count[0], count[1]);
  for (int i = 0; i < count[0]; i++)
    ck_assert_int_eq(nodes[0][i], nodes[1][i]);
  ck_assert(x[0] == x[1]);
  /* the whole segment was integrated before the test cut it */
  ck_assert(integ[1] >= integ[0]);
}
END_TEST

/* Simple shooting fails on the same problem: the guard that the test
 * problem is really out of its reach. */
START_TEST(simple_shooting_fails) {
  model m;
  rod_bvp bvp = model_bvp(&m, 60.0);
  rod_shooting *sh = rod_shooting_alloc(&bvp);
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = 1e-12;
  o.max_iterations = 200;
  double x = 0.0;
  int status = rod_shooting_solve(sh, &x, &o, NULL);
  double exact = -60.0 / tanh(60.0);
  ck_assert(status != ROD_OK || fabs(x / exact - 1) > 1e-6);
  rod_shooting_free(sh);
}
END_TEST

/* Two copies of the model problem side by side, states (y1, y1', y2, y2'),
 * unknowns (y1'(0), y2'(0)), residuals (y1(1), y2(1)); the second copy
 * has zero data, so its solution is 0 and it never couples to the first:
 * the symmetry rod_shooting_set_active and rod_mshoot_set_active serve. */
static void start_pair(void *user, const double *x, double *y0, double *dy0) {
  (void)user;
  y0[0] = 1.0;
  y0[1] = x[0];
  y0[2] = 0.0;
  y0[3] = x[1];
  if (dy0) {
    memset(dy0, 0, 8 * sizeof(double));
    dy0[1] = 1.0;     /* d y1'(0) / d x0 */
    dy0[4 + 3] = 1.0; /* d y2'(0) / d x1 */
  }
}

/* Each copy, and each tangent column, by the model problem's RK4. */
static int propagate_pair(void *user, int a, int b, double *y, int k,
                          double *dy) {
  double col[2];
  int st = 0;
  for (int v = -1; v < k; v++)
    for (int c = 0; c < 2; c++) {
      double *p = (v < 0 ? y : dy + 4 * v) + 2 * c;
      memcpy(col, p, sizeof col);
      st |= propagate(user, a, b, col, 0, NULL);
      memcpy(p, col, sizeof col);
    }
  return st;
}

static void end_pair(void *user, const double *y, double *r, double *drdy) {
  (void)user;
  r[0] = y[0];
  r[1] = y[2];
  if (drdy) { /* 2 x 4, column-major */
    memset(drdy, 0, 8 * sizeof(double));
    drdy[0] = 1.0;
    drdy[2 * 2 + 1] = 1.0;
  }
}

static rod_bvp pair_bvp(model *m, double lambda) {
  rod_bvp bvp = model_bvp(m, lambda);
  bvp.ny = 4;
  bvp.nx = 2;
  bvp.start = start_pair;
  bvp.propagate = propagate_pair;
  bvp.end = end_pair;
  return bvp;
}

/* Carrying only the first copy's directions: the same answer, the second
 * copy's unknown untouched, fewer integrations; bad lists are refused. */
START_TEST(active_directions_simple) {
  model m;
  rod_bvp bvp = pair_bvp(&m, 5.0);
  rod_shooting *sh = rod_shooting_alloc(&bvp);
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = 1e-12;
  double x_all[2] = {0, 0}, x_one[2] = {0, 0};
  rod_shooting_stats all, one;
  ck_assert_int_eq(rod_shooting_solve(sh, x_all, &o, &all), ROD_OK);
  const int first[] = {0};
  ck_assert_int_eq(rod_shooting_set_active(sh, first, 1), ROD_OK);
  ck_assert_int_eq(rod_shooting_solve(sh, x_one, &o, &one), ROD_OK);
  ck_assert(fabs(x_one[0] - x_all[0]) < 1e-12 * fabs(x_all[0]));
  ck_assert(x_one[1] == 0.0);
  ck_assert_int_eq(one.iterations, all.iterations);
  ck_assert(one.integrations < all.integrations);
  const int repeated[] = {0, 0}, outside[] = {2}, unsorted[] = {1, 0};
  ck_assert_int_eq(rod_shooting_set_active(sh, repeated, 2), ROD_EINVAL);
  ck_assert_int_eq(rod_shooting_set_active(sh, outside, 1), ROD_EINVAL);
  ck_assert_int_eq(rod_shooting_set_active(sh, unsorted, 2), ROD_EINVAL);
  rod_shooting_free(sh);
}
END_TEST

START_TEST(active_directions_modified) {
  model m;
  rod_bvp bvp = pair_bvp(&m, 60.0);
  const double scale[4] = {1.0, 60.0, 1.0, 60.0};
  rod_mshoot *ms = rod_mshoot_alloc(&bvp, scale, 60);
  static double yref[4 * NODES];
  memset(yref, 0, sizeof yref);
  rod_mshoot_options o = {
      .spacing = 10, .tolerance = 1e-12, .max_iterations = 50};
  double x_all[2] = {0, 0}, x_one[2] = {0, 0};
  rod_shooting_stats all, one;
  ck_assert_int_eq(rod_mshoot_solve(ms, x_all, yref, &o, &all), ROD_OK);
  const int first_x[] = {0}, first_y[] = {0, 1};
  ck_assert_int_eq(rod_mshoot_set_active(ms, first_x, 1, first_y, 2), ROD_OK);
  ck_assert_int_eq(rod_mshoot_solve(ms, x_one, yref, &o, &one), ROD_OK);
  ck_assert_msg(fabs(x_one[0] - x_all[0]) < 1e-10 * fabs(x_all[0]),
                "%.17g vs %.17g", x_one[0], x_all[0]);
  ck_assert(x_one[1] == 0.0);
  ck_assert_msg(one.integrations < 0.75 * all.integrations, "%g vs %g",
                one.integrations, all.integrations);
  const int outside[] = {4};
  ck_assert_int_eq(rod_mshoot_set_active(ms, first_x, 1, outside, 1),
                   ROD_EINVAL);
  rod_mshoot_free(ms);
}
END_TEST

/* A nonlinear model problem for the Broyden updates: y'' = lambda^2 y
 * (1 + y^2) on [0, 1], y(0) = a, y(1) = 0; states and tangents by RK4
 * together (the tangents' coefficient 1 + 3 y^2 follows the state). */
typedef struct {
  model m;
  double a;
} cubic_model;

static void start_cubic(void *user, const double *x, double *y0, double *dy0) {
  const cubic_model *c = user;
  y0[0] = c->a;
  y0[1] = x[0];
  if (dy0) {
    dy0[0] = 0.0;
    dy0[1] = 1.0;
  }
}

static void cubic_rhs(double l2, const double *z, int k, double *f) {
  f[0] = z[1];
  f[1] = l2 * z[0] * (1 + z[0] * z[0]);
  for (int v = 0; v < k; v++) {
    f[2 + 2 * v] = z[3 + 2 * v];
    f[3 + 2 * v] = l2 * (1 + 3 * z[0] * z[0]) * z[2 + 2 * v];
  }
}

static int propagate_cubic(void *user, int a, int b, double *y, int k,
                           double *dy) {
  cubic_model *c = user;
  const double l2 = c->m.lambda * c->m.lambda;
  const int n = 2 + 2 * k;
  double z[6], f[4][6], t[6];
  memcpy(z, y, 2 * sizeof(double));
  memcpy(z + 2, dy, (size_t)(2 * k) * sizeof(double));
  for (int j = a; j < b; j++) {
    const double h = c->m.s[j + 1] - c->m.s[j];
    cubic_rhs(l2, z, k, f[0]);
    for (int i = 0; i < n; i++)
      t[i] = z[i] + h / 2 * f[0][i];
    cubic_rhs(l2, t, k, f[1]);
    for (int i = 0; i < n; i++)
      t[i] = z[i] + h / 2 * f[1][i];
    cubic_rhs(l2, t, k, f[2]);
    for (int i = 0; i < n; i++)
      t[i] = z[i] + h * f[2][i];
    cubic_rhs(l2, t, k, f[3]);
    for (int i = 0; i < n; i++)
      z[i] += h / 6 * (f[0][i] + 2 * f[1][i] + 2 * f[2][i] + f[3][i]);
  }
  memcpy(y, z, 2 * sizeof(double));
  memcpy(dy, z + 2, (size_t)(2 * k) * sizeof(double));
  return isfinite(z[0]) && isfinite(z[1]) ? 0 : 1;
}

/* Sum over i of |(J^-1)_{0 i}|: how far a residual of infinity norm 1
 * moves the first unknown. J (n x n, column-major) is overwritten. */
static double first_row_of_inverse(double *J, int n) {
  /* solve J^T z = e_0 by Gaussian elimination with partial pivoting */
  double A[64 * 64], z[64];
  ck_assert_int_le(n, 64);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      A[i * n + j] = J[(size_t)i * n + j]; /* row i of J^T: column i */
    z[i] = i == 0;
  }
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c]))
        p = r;
    for (int j = 0; j < n; j++) {
      double w = A[c * n + j];
      A[c * n + j] = A[p * n + j];
      A[p * n + j] = w;
    }
    double w = z[c];
    z[c] = z[p];
    z[p] = w;
    for (int r = c + 1; r < n; r++) {
      double f = A[r * n + c] / A[c * n + c];
      for (int j = c; j < n; j++)
        A[r * n + j] -= f * A[c * n + j];
      z[r] -= f * z[c];
    }
  }
  double sum = 0;
  for (int c = n - 1; c >= 0; c--) {
    for (int j = c + 1; j < n; j++)
      z[c] -= A[c * n + j] * z[j];
    z[c] /= A[c * n + c];
    sum += fabs(z[c]);
  }
  return sum;
}

/* The stages' solves (rod_mshoot_options.stages: 19 unknowns, folded
 * Broyden updates; 49, plain chord iterations on the band LU) and
 * Broyden's updates held beside the inverse, over a series of solves
 * that reuse the Jacobian (as the stages of a time step do): every
 * solution within what the tolerance leaves open of a tightly solved one
 * (the residual tolerance through the first row of J^-1 at the
 * solution), and the Jacobian kept across solves. */
START_TEST(stage_solves_reach_the_solution) {
  const double lambda = 20.0, tol = 1e-8;
  const int solves = 40;
  cubic_model c;
  rod_bvp bvp = model_bvp(&c.m, lambda);
  bvp.start = start_cubic;
  bvp.propagate = propagate_cubic;
  bvp.user = &c;
  const double scale[2] = {1.0, lambda};
  static double yref[2 * NODES];
  const struct {
    bool stages;
    int spacing;
  } cases[] = {{false, 20}, {true, 20}, {true, 8}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const bool stages = cases[k].stages;
    const int spacing = cases[k].spacing;
    rod_mshoot *ms = rod_mshoot_alloc(&bvp, scale, 60);
    rod_mshoot *tight = rod_mshoot_alloc(&bvp, scale, 60);
    double x = -lambda;
    int jacobians = 0;
    for (int j = 0; j < solves; j++) {
      c.a = 0.6 + 0.02 * j;
      for (int g = 0; g < NODES; g++) { /* the linear problem's solution */
        double s = c.m.s[g];
        yref[2 * g] = c.a * sinh(lambda * (1 - s)) / sinh(lambda);
        yref[2 * g + 1] = -lambda * c.a * cosh(lambda * (1 - s)) / sinh(lambda);
      }
      rod_mshoot_options o = {.spacing = spacing,
                              .tolerance = tol,
                              .max_iterations = 50,
                              .reuse_jacobian = true,
                              .stages = stages};
      rod_shooting_stats st;
      ck_assert_int_eq(rod_mshoot_solve(ms, &x, yref, &o, &st), ROD_OK);
      jacobians += st.jacobians;
      rod_mshoot_options ot = {
          .spacing = spacing, .tolerance = 1e-14, .max_iterations = 50};
      double xt = x;
      ck_assert_int_eq(rod_mshoot_solve(tight, &xt, yref, &ot, &st), ROD_OK);
      const int n = rod_mshoot_unknowns(tight);
      static double X[64], R[64], J[64 * 64];
      memset(X, 0, sizeof X);
      X[0] = xt; /* the nodes at the tight solution's states */
      ck_assert_int_eq(rod_mshoot_dense_jacobian(tight, X, yref, R, J), ROD_OK);
      const double bound = first_row_of_inverse(J, n) * tol;
      ck_assert_msg(fabs(x - xt) <= bound,
                    "stages %d, spacing %d, a = %g: %.3g > %.3g", stages,
                    spacing, c.a, fabs(x - xt), bound);
    }
    ck_assert_msg(jacobians < solves,
                  "stages %d, spacing %d: %d Jacobians for %d solves", stages,
                  spacing, jacobians, solves);
    rod_mshoot_free(ms);
    rod_mshoot_free(tight);
  }
}
END_TEST

static Suite *mshoot_suite(void) {
  Suite *s = suite_create("mshoot");
  TCase *tc = tcase_create("model problem");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, drift_places_nodes);
  tcase_add_test(tc, spacing_places_nodes);
  tcase_add_test(tc, drift_from_node_states);
  tcase_add_test(tc, simple_shooting_fails);
  tcase_add_test(tc, active_directions_simple);
  tcase_add_test(tc, active_directions_modified);
  tcase_add_test(tc, stage_solves_reach_the_solution);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(mshoot_suite)
