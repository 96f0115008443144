/* Explicit time integrators against closed-form solutions: classic RK4 is
 * fourth order, Dormand-Prince's fifth-order solution is fifth order at
 * fixed steps, its error control meets the tolerance it is given, and it
 * lands exactly on the requested times. */
#include <string.h>

#include "integrators/ivp.h"
#include "rod/status.h"
#include "testutil.h"

/* y'' = -w^2 y as a first-order system; y(0) = 1, y'(0) = 0. */
static int harmonic(double t, const double *y, double *dy, void *user) {
  (void)t;
  const double w = *(const double *)user;
  dy[0] = y[1];
  dy[1] = -w * w * y[0];
  return 0;
}

/* y' = -k (y - cos t), a mildly stiff linear problem with the solution
 * y = (k^2 cos t + k sin t)/(1 + k^2) + C e^(-k t). */
static int relax(double t, const double *y, double *dy, void *user) {
  const double k = *(const double *)user;
  dy[0] = -k * (y[0] - cos(t));
  return 0;
}

static double relax_exact(double k, double y0, double t) {
  double p0 = k * k / (1 + k * k);
  return (k * k * cos(t) + k * sin(t)) / (1 + k * k) + (y0 - p0) * exp(-k * t);
}

static double rk4_error(int N) {
  double w = 2.0 * M_PI, y[2] = {1, 0}, work[10];
  ck_assert_uint_ge(sizeof work / sizeof *work, rod_rk4_work_size(2));
  ck_assert_int_eq(rod_rk4_advance(harmonic, 0, 3.0, N, 2, y, work, NULL, &w),
                   ROD_OK);
  return hypot(y[0] - cos(w * 3.0), (y[1] + w * sin(w * 3.0)) / w);
}

/* The error along (cos, sin) is the phase/amplitude error; at w h = 0.2 to
 * 0.05 the O(h^5) terms are 1e-2 of the leading one. */
START_TEST(rk4_fourth_order) {
  double e1 = rk4_error(100), e2 = rk4_error(200), e3 = rk4_error(400);
  double p1 = rod_observed_order(e1, e2), p2 = rod_observed_order(e2, e3);
  ck_assert_msg(fabs(p1 - 4) < 0.05 && fabs(p2 - 4) < 0.05,
                "orders %.3f %.3f (errors %.3g %.3g %.3g)", p1, p2, e1, e2, e3);
}
END_TEST

/* Fixed steps h_max with a tolerance so loose that no step is rejected:
 * the fifth-order solution's global error falls as h^5. */
static double dp5_fixed_error(int N) {
  double w = 2.0 * M_PI, y[2] = {1, 0}, t = 0, atol[2] = {1e9, 1e9};
  rod_rk45 *rk = rod_rk45_alloc(2);
  rod_rk45_options o = {1e9, atol, 3.0 / N, 100000};
  rod_ivp_stats st = {0, 0, 0};
  ck_assert_int_eq(rod_rk45_advance(rk, harmonic, &t, 3.0, y, &o, &st, &w),
                   ROD_OK);
  ck_assert_int_eq(st.rejected, 0);
  /* the starting step is 1e-4 of the span (Hairer's guess with so loose a
   * tolerance) and grows by 5 per step: a few extra tiny steps */
  ck_assert_int_ge(st.steps, N);
  ck_assert_int_le(st.steps, N + 6);
  rod_rk45_free(rk);
  return hypot(y[0] - cos(w * 3.0), (y[1] + w * sin(w * 3.0)) / w);
}

START_TEST(dp5_fifth_order) {
  double e1 = dp5_fixed_error(100), e2 = dp5_fixed_error(200);
  double e3 = dp5_fixed_error(400);
  double p1 = rod_observed_order(e1, e2), p2 = rod_observed_order(e2, e3);
  ck_assert_msg(fabs(p1 - 5) < 0.1 && fabs(p2 - 5) < 0.1,
                "orders %.3f %.3f (errors %.3g %.3g %.3g)", p1, p2, e1, e2, e3);
}
END_TEST

/* Tolerance proportionality: the controller bounds the local error per
 * step, so the global error is a fixed multiple of the tolerance (measured
 * 25 rtol over these 10 periods, 2.5 per period) and falls with it. */
static double rk45_error(double rtol, double grid) {
  double w = 2.0 * M_PI, y[2] = {1, 0}, t = 0, atol[2] = {rtol, rtol * w};
  rod_rk45 *rk = rod_rk45_alloc(2);
  rod_rk45_options o = {rtol, atol, 0, 100000};
  const int n = (int)lround(10.0 / grid);
  for (int i = 1; i <= n; i++) { /* the step size carries over */
    ck_assert_int_eq(
        rod_rk45_advance(rk, harmonic, &t, grid * i, y, &o, NULL, &w), ROD_OK);
    ck_assert(t == grid * i);
  }
  rod_rk45_free(rk);
  return fabs(y[0] - cos(w * 10.0));
}

START_TEST(rk45_meets_tolerance) {
  for (int k = 0; k < 3; k++) {
    double rtol = pow(10.0, -6 - 2 * k);
    double err = rk45_error(rtol, 10.0);
    ck_assert_msg(err > 10 * rtol && err < 40 * rtol, "rtol %.0e: error %.3g",
                  rtol, err);
    /* sampling on a grid of 1.25 s (longer than the steps) changes little */
    double grid = rk45_error(rtol, 1.25);
    ck_assert_msg(grid < 40 * rtol, "rtol %.0e: error %.3g on a grid", rtol,
                  grid);
  }
}
END_TEST

START_TEST(rk45_stiff_relaxation) {
  double k = 200.0, y = 3.0, t = 0, atol = 1e-10;
  rod_rk45 *rk = rod_rk45_alloc(1);
  rod_rk45_options o = {1e-8, &atol, 0, 100000};
  rod_ivp_stats st = {0, 0, 0};
  ck_assert_int_eq(rod_rk45_advance(rk, relax, &t, 2.0, &y, &o, &st, &k),
                   ROD_OK);
  ROD_ASSERT_NEAR(y, relax_exact(k, 3.0, 2.0), 1e-7);
  /* explicit: stability limits the step to about 3.3 / k */
  ck_assert_int_ge(st.steps, (int)(2.0 * k / 3.4));
  /* a step limit is honoured */
  rod_rk45_reset(rk);
  t = 0;
  y = 3.0;
  o.max_steps = 10;
  ck_assert_int_eq(rod_rk45_advance(rk, relax, &t, 2.0, &y, &o, NULL, &k),
                   ROD_ENOCONV);
  rod_rk45_free(rk);
  rod_rk45_free(NULL);
}
END_TEST

static Suite *ivp_suite(void) {
  Suite *s = suite_create("ivp");
  TCase *tc = tcase_create("known answers");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, rk4_fourth_order);
  tcase_add_test(tc, dp5_fifth_order);
  tcase_add_test(tc, rk45_meets_tolerance);
  tcase_add_test(tc, rk45_stiff_relaxation);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(ivp_suite)
