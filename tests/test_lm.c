/* Levenberg-Marquardt on standard problems from their usual starts
 * (Moré, Garbow & Hillstrom 1981). */
#include <string.h>

#include "bvp/lm.h"
#include "rod/status.h"
#include "testutil.h"

/* Rosenbrock: r = (10 (x2 - x1^2), 1 - x1), start (-1.2, 1), min (1, 1). */
static int rosenbrock(const double *x, double *r, double *J, void *u) {
  (void)u;
  r[0] = 10.0 * (x[1] - x[0] * x[0]);
  r[1] = 1.0 - x[0];
  if (J) {
    J[0] = -20.0 * x[0];
    J[1] = -1.0;
    J[2] = 10.0;
    J[3] = 0.0;
  }
  return 0;
}

/* Powell singular: singular Jacobian at the solution 0; start (3,-1,0,1). */
static int powell(const double *x, double *r, double *J, void *u) {
  (void)u;
  r[0] = x[0] + 10.0 * x[1];
  r[1] = sqrt(5.0) * (x[2] - x[3]);
  r[2] = (x[1] - 2.0 * x[2]) * (x[1] - 2.0 * x[2]);
  r[3] = sqrt(10.0) * (x[0] - x[3]) * (x[0] - x[3]);
  if (!J)
    return 0;
  return ROD_LM_NO_JACOBIAN; /* exercise forward differences */
}

/* Linear least squares with a nonzero residual: fit a + b t to 5 points. */
static const double lt[5] = {0, 1, 2, 3, 4};
static const double ly[5] = {1.1, 2.9, 5.2, 6.8, 9.1};
static int linear(const double *x, double *r, double *J, void *u) {
  (void)u;
  for (int i = 0; i < 5; i++) {
    r[i] = x[0] + x[1] * lt[i] - ly[i];
    if (J) {
      J[i] = 1.0;
      J[5 + i] = lt[i];
    }
  }
  return 0;
}

START_TEST(rosenbrock_from_standard_start) {
  rod_lm_workspace *w = rod_lm_alloc(2, 2);
  double x[2] = {-1.2, 1.0};
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = 1e-12;
  rod_lm_stats st;
  int s = rod_lm_solve(w, rosenbrock, x, &o, &st, NULL);
  ck_assert_int_eq(s, ROD_OK);
  ROD_ASSERT_NEAR(x[0], 1.0, 1e-10);
  ROD_ASSERT_NEAR(x[1], 1.0, 1e-10);
  ck_assert_int_lt(st.iterations, 40);
  rod_lm_free(w);
}
END_TEST

START_TEST(rosenbrock_broyden) {
  rod_lm_workspace *w = rod_lm_alloc(2, 2);
  double x[2] = {-1.2, 1.0};
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = 1e-12;
  o.broyden = true;
  o.max_iterations = 200;
  rod_lm_stats st;
  int s = rod_lm_solve(w, rosenbrock, x, &o, &st, NULL);
  ck_assert_int_eq(s, ROD_OK);
  ROD_ASSERT_NEAR(x[0], 1.0, 1e-10);
  ROD_ASSERT_NEAR(x[1], 1.0, 1e-10);
  /* Broyden must save Jacobian evaluations against iterations */
  ck_assert_int_lt(st.jacobians, st.iterations);
  rod_lm_free(w);
}
END_TEST

START_TEST(powell_singular) {
  rod_lm_workspace *w = rod_lm_alloc(4, 4);
  double x[4] = {3, -1, 0, 1};
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = 1e-10;
  o.max_iterations = 200;
  rod_lm_stats st;
  int s = rod_lm_solve(w, powell, x, &o, &st, NULL);
  ck_assert_int_eq(s, ROD_OK);
  ck_assert(st.fd_jacobians > 0);
  /* the solution is 0; convergence is linear near the singular point so
   * |x| ~ sqrt(residual) */
  for (int i = 0; i < 4; i++)
    ROD_ASSERT_NEAR(x[i], 0.0, 1e-4);
  rod_lm_free(w);
}
END_TEST

START_TEST(linear_least_squares) {
  rod_lm_workspace *w = rod_lm_alloc(2, 5);
  double x[2] = {0, 0};
  rod_lm_options o = rod_lm_default_options();
  o.least_squares = true;
  o.tolerance = 1e-12;
  o.gradient_tolerance = 1e-12;
  rod_lm_stats st;
  int s = rod_lm_solve(w, linear, x, &o, &st, NULL);
  ck_assert_int_eq(s, ROD_OK);
  /* normal equations: b = Sxy/Sxx, a = ybar - b tbar */
  double tb = 2.0, yb = (1.1 + 2.9 + 5.2 + 6.8 + 9.1) / 5, sxy = 0, sxx = 0;
  for (int i = 0; i < 5; i++) {
    sxy += (lt[i] - tb) * (ly[i] - yb);
    sxx += (lt[i] - tb) * (lt[i] - tb);
  }
  double b = sxy / sxx, a = yb - b * tb;
  ROD_ASSERT_NEAR(x[0], a, 1e-10);
  ROD_ASSERT_NEAR(x[1], b, 1e-10);
  /* covariance (J^T J)^-1: for a line, var(b) = 1/Sxx */
  double cov[4];
  ck_assert_int_eq(rod_lm_covariance(w, cov), ROD_OK);
  ROD_ASSERT_NEAR(cov[3], 1.0 / sxx, 1e-12);
  ROD_ASSERT_NEAR(cov[0], 1.0 / 5 + tb * tb / sxx, 1e-12);
  rod_lm_free(w);
}
END_TEST

static int blows_up(const double *x, double *r, double *J, void *u) {
  (void)J;
  (void)u;
  r[0] = x[0] > 0.5 ? NAN : x[0] - 2.0; /* unreachable root */
  return 0;
}

START_TEST(non_finite_residual_is_rejected) {
  rod_lm_workspace *w = rod_lm_alloc(1, 1);
  double x = 0;
  rod_lm_options o = rod_lm_default_options();
  o.max_iterations = 50;
  rod_lm_stats st;
  int s = rod_lm_solve(w, blows_up, &x, &o, &st, NULL);
  ck_assert_int_ne(s, ROD_OK);
  ck_assert(isfinite(x) && x <= 0.5);
  rod_lm_free(w);
}
END_TEST

static Suite *lm_suite(void) {
  Suite *s = suite_create("lm");
  TCase *tc = tcase_create("problems");
  tcase_set_timeout(tc, 10);
  tcase_add_test(tc, rosenbrock_from_standard_start);
  tcase_add_test(tc, rosenbrock_broyden);
  tcase_add_test(tc, powell_singular);
  tcase_add_test(tc, linear_least_squares);
  tcase_add_test(tc, non_finite_residual_is_rejected);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(lm_suite)
