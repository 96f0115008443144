/* Spatial integrators: orders of convergence on ODEs with known solutions. */
#include <string.h>

#include "integrators/spatial.h"
#include "testutil.h"

/* y0' = y1, y1' = -y0 (harmonic), y2' = -y2^2 (Riccati), y3' = y0
 * (quadrature). Solutions from (1, 0, 1, 0): cos s, -sin s, 1/(1+s),
 * sin s. */
static int rhs(int j, int stage, const double *y, double *f, void *u) {
  (void)j;
  (void)stage;
  (void)u;
  f[0] = y[1];
  f[1] = -y[0];
  f[2] = -y[2] * y[2];
  f[3] = y[0];
  return 0;
}

static double error_at(const rod_spatial_type *t, int steps) {
  const double S = 2.0;
  double s[4097];
  for (int j = 0; j <= steps; j++)
    s[j] = S * j / steps;
  double y[4] = {1, 0, 1, 0}, work[64];
  rod_spatial_integrate(t, rhs, s, steps + 1, 4, 1, y, NULL, work, NULL);
  double e = fabs(y[0] - cos(S));
  e = fmax(e, fabs(y[1] + sin(S)));
  e = fmax(e, fabs(y[2] - 1.0 / (1.0 + S)));
  e = fmax(e, fabs(y[3] - sin(S)));
  return e;
}

START_TEST(euler_first_order) {
  double e1 = error_at(&rod_spatial_euler, 512);
  double e2 = error_at(&rod_spatial_euler, 1024);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 1.0) < 0.05, "Euler order %.3f", p);
}
END_TEST

START_TEST(rk4_fourth_order) {
  double e1 = error_at(&rod_spatial_rk4, 32);
  double e2 = error_at(&rod_spatial_rk4, 64);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 4.0) < 0.1, "RK4 order %.3f", p);
  ck_assert(e2 < 1e-7);
}
END_TEST

/* Stages report their index; with the abscissae c, f = s gives y = s^2/2
 * exactly with RK4 only if the stages come in the right order. */
static int rhs_points(int j, int stage, const double *y, double *f, void *u) {
  (void)y;
  const double *s = u;
  double h = s[j + 1] - s[j];
  f[0] = s[j] + rod_spatial_rk4.c[stage] * h;
  return 0;
}

START_TEST(rk4_stage_points) {
  double s[] = {0.0, 0.3, 0.5, 1.2}, y = 0, work[16];
  rod_spatial_integrate(&rod_spatial_rk4, rhs_points, s, 4, 1, 0, &y, NULL,
                        work, s);
  ROD_ASSERT_NEAR(y, 0.72, 1e-15);
}
END_TEST

static Suite *spatial_suite(void) {
  Suite *s = suite_create("spatial");
  TCase *tc = tcase_create("orders");
  tcase_set_timeout(tc, 10);
  tcase_add_test(tc, euler_first_order);
  tcase_add_test(tc, rk4_fourth_order);
  tcase_add_test(tc, rk4_stage_points);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(spatial_suite)
