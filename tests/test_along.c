/* Jacobians from the tangents along the last sweep (rod_bvp.tangents,
 * kirchhoff_sweep.c) against the tangents integrated with the states: the
 * fourth order of the coarse RK4, the error at the chosen stride for simple
 * and modified shooting, the impulse's point force, Euler grids. */
#include <string.h>

#include "kirchhoffutil.h"

/* Relative error of simple shooting's Jacobian along the last sweep at
 * the backend's unknowns with the given stride. */
static double simple_error(rod_kirchhoff *k, int stride) {
  double r[6], J[36], Ja[36], ra[6];
  ck_assert_int_eq(rod_shooting_jacobian(k->shoot, k->x, r, J), ROD_OK);
  k->tangent_stride = stride;
  ck_assert_int_eq(rod_shooting_jacobian_along(k->shoot, k->x, ra, Ja), ROD_OK);
  for (int i = 0; i < 6; i++) /* the same residual: the same state sweep */
    ck_assert(ra[i] == r[i]);
  return rod_test_relative_difference(36, Ja, J);
}

static const rod_planar_kind planar_modes[] = {ROD_PLANAR_OFF, ROD_PLANAR_AUTO};

/* Relative differences between the Jacobians along the sweep at strides
 * 2, 4 and 8: d[0] = |J4 - J2|, d[1] = |J8 - J4| (relative to J2). */
static void stride_differences(rod_kirchhoff *k, double *d) {
  double r[6], J[3][36];
  for (int s = 0; s < 3; s++) {
    k->tangent_stride = 2 << s;
    ck_assert_int_eq(rod_shooting_jacobian_along(k->shoot, k->x, r, J[s]),
                     ROD_OK);
  }
  d[0] = rod_test_relative_difference(36, J[1], J[0]);
  d[1] = rod_test_relative_difference(36, J[2], J[1]);
}

/* The static cantilever of the weight release (smooth A(s), no history):
 * doubling the coarse interval multiplies the error by 2^4, and at the
 * statics' stride (8) the Jacobian is within 1e-6 of the integrated one. */
START_TEST(static_along_is_fourth_order) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 100; /* the paper's grid */
  sc.solver.planar = planar_modes[_i];
  rod_kirchhoff *k = rod_test_backend(&sc, 0);
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.0, true);
  ck_assert_int_eq(k->tangent_stride, KR_TANGENT_STRIDE_MAX);
  double d[2];
  stride_differences(k, d);
  ck_assert_msg(d[1] / d[0] > 12 && d[1] / d[0] < 20, "order: %.3g %.3g", d[1],
                d[0]);
  double e8 = simple_error(k, 8);
  ck_assert_msg(e8 < 1e-6, "stride 8: %.3g", e8);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* Weight release at 2 ms, 100 RK4 nodes (k h = 0.096): at the stride the
 * step chose (4) the Jacobian is within a few 1e-3 of the integrated one
 * (enough for Newton's contraction), and the coarse error grows past it. */
START_TEST(dynamic_along_is_close) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 100; /* the paper's grid */
  sc.solver.planar = planar_modes[_i];
  rod_kirchhoff *k = rod_test_before_step(&sc, 5);
  ck_assert(k->planar == (_i == 1));
  ck_assert_int_eq(k->tangent_stride, 4);
  double e4 = simple_error(k, 4), e8 = simple_error(k, 8);
  ck_assert_msg(e4 < 5e-3, "stride 4: %.3g", e4);
  ck_assert_msg(e8 > 4 * e4, "stride 8: %.3g, 4: %.3g", e8, e4);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* During the strike the point force makes n jump at its node inside the
 * rod: a coarse step ends there, on the left limit, and the next starts on
 * the right one. The error then falls with the grid like the coarse RK4's
 * (measured, 3D: 3.9e-4 at 200 nodes, 4.0e-5 at 400; planar, whose
 * Jacobian lacks the large out-of-plane columns: 1.7e-3, 2.3e-4);
 * evaluating A on the right limit instead leaves a first-order error
 * (3D: 7.8e-4, 3.6e-4). */
START_TEST(along_across_point_force) {
  double e[2];
  for (int g = 0; g < 2; g++) {
    rod_scenario sc;
    rod_test_load(&sc, "impulse.ini");
    sc.solver.planar = planar_modes[_i];
    sc.space.nodes = 200 << g;
    rod_kirchhoff *k = rod_test_before_step(&sc, 1); /* the 2nd step: 2.5 N */
    ck_assert_int_eq(k->loads.npoints, 1);
    ck_assert_int_gt(k->loads.point_node[0], 0);
    ck_assert_int_lt(k->loads.point_node[0], k->nodes - 1);
    ck_assert(v3_norm(k->loads.point_force[0]) > 1.0);
    e[g] = simple_error(k, 2);
    rod_backend_kirchhoff.destroy(k);
  }
  ck_assert_msg(e[0] < 5e-3, "200 nodes: %.3g", e[0]);
  ck_assert_msg(e[0] / e[1] > 6, "200, 400 nodes: %.3g %.3g", e[0], e[1]);
}
END_TEST

/* Modified shooting: the banded Jacobian of segments from the node states
 * off the reference, along its own evaluation, against the tangents
 * integrated segment by segment. */
START_TEST(modified_along_matches_integrated_tangents) {
  rod_scenario sc;
  rod_test_load(&sc, "impulse.ini");
  sc.space.nodes = 100; /* the paper's grid */
  sc.solver.strategy = ROD_STRATEGY_MODIFIED;
  sc.solver.planar = planar_modes[_i];
  rod_kirchhoff *k = rod_test_before_step(&sc, 3);
  ck_assert_int_gt(rod_mshoot_node_count(k->mshoot), 0);
  int n = rod_mshoot_unknowns(k->mshoot);
  for (int j = 0; j < k->nodes; j++)
    memcpy(k->yref + (size_t)ROD_NY * j, k->sol_y + (size_t)KR_NODE * j,
           ROD_NY * sizeof(double));
  double *X = calloc(n, sizeof(double)), *R = calloc(n, sizeof(double));
  double *Ra = calloc(n, sizeof(double));
  double *J = calloc((size_t)n * n, sizeof(double));
  double *Ja = calloc((size_t)n * n, sizeof(double));
  memcpy(X, k->x, 6 * sizeof(double));
  for (int i = 6; i < n; i++) /* off the reference */
    X[i] = k->planar && (i - 6) % 2 ? 0.0 : 1e-3 * sin(i);
  ck_assert_int_eq(rod_mshoot_dense_jacobian(k->mshoot, X, k->yref, R, J),
                   ROD_OK);
  ck_assert_int_eq(k->tangent_stride, 2);
  ck_assert_int_eq(
      rod_mshoot_dense_jacobian_along(k->mshoot, X, k->yref, Ra, Ja), ROD_OK);
  for (int i = 0; i < n; i++)
    ck_assert(Ra[i] == R[i]);
  double e = rod_test_relative_difference(n * n, Ja, J);
  ck_assert_msg(e < 1e-3, "stride 2: %.3g (n = %d)", e, n);
  free(X);
  free(R);
  free(Ra);
  free(J);
  free(Ja);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* Euler grids keep the Jacobian of Euler's rule: no stride, and the API
 * says the problem cannot. */
START_TEST(euler_grid_integrates_its_tangents) {
  rod_scenario sc;
  rod_test_load(&sc, "cosserat_cantilever.ini");
  rod_kirchhoff *k = rod_test_before_step(&sc, 2);
  ck_assert_int_eq(k->tangent_stride, 0);
  double r[6], J[36];
  ck_assert_int_eq(rod_shooting_jacobian_along(k->shoot, k->x, r, J),
                   ROD_EINVAL);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* The stride follows the step's wavenumber: k H <= 0.4. */
START_TEST(stride_follows_wavenumber) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 100; /* the paper's grid */
  const double dts[] = {5e-3, 2e-3, 5e-4, 1e-4};
  const int expect[] = {6, 4, 2, 0};
  for (int i = 0; i < 4; i++) {
    sc.time.dt = dts[i];
    rod_kirchhoff *k = rod_test_before_step(&sc, 1);
    double kk = rod_model_step_wavenumber(&k->model, k->rc.c0);
    double h = k->len[0];
    ck_assert_msg(k->tangent_stride == expect[i], "dt %g: stride %d (k h %g)",
                  dts[i], k->tangent_stride, kk * h);
    if (k->tangent_stride < KR_TANGENT_STRIDE_MAX && k->tangent_stride > 0)
      ck_assert(kk * h * (k->tangent_stride + 2) > 0.4);
    ck_assert(kk * h * k->tangent_stride <= 0.4);
    rod_backend_kirchhoff.destroy(k);
  }
}
END_TEST

static Suite *along_suite(void) {
  Suite *s = suite_create("along");
  TCase *tc = tcase_create("along");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, static_along_is_fourth_order, 0, 2);
  tcase_add_loop_test(tc, dynamic_along_is_close, 0, 2);
  tcase_add_loop_test(tc, along_across_point_force, 0, 2);
  tcase_add_loop_test(tc, modified_along_matches_integrated_tangents, 0, 2);
  tcase_add_test(tc, euler_grid_integrates_its_tangents);
  tcase_add_test(tc, stride_follows_wavenumber);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(along_suite)
