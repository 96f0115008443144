/* Shooting: the tangent Jacobians against central finite differences, the
 * branches of the fallback strategy (Till & Rucker 2017, Fig. 2), agreement
 * between methods, and a regression trajectory guarding the speed work. */
#include <string.h>

#include "kirchhoffutil.h"

/* Loop index _i of the FD tests: 0 the 3D path, 1 the planar one (whose
 * out-of-plane columns carry the direction unchanged, as the planar
 * right-hand side does). */
static const rod_planar_kind planar_modes[] = {ROD_PLANAR_OFF, ROD_PLANAR_AUTO};

START_TEST(simple_tangent_jacobian_matches_fd) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 40;
  sc.solver.planar = planar_modes[_i];
  rod_kirchhoff *k = rod_test_before_step(&sc, 5);
  ck_assert(k->planar == (_i == 1));
  double x[6], r[6], J[36], Jfd[36], rp[6], rm[6];
  memcpy(x, k->x, sizeof x);
  ck_assert_int_eq(rod_shooting_jacobian(k->shoot, x, r, J), ROD_OK);
  const double h = 1e-6; /* unknowns are O(1) in scaled units */
  for (int j = 0; j < 6; j++) {
    double xp[6], xm[6];
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[j] += h;
    xm[j] -= h;
    rod_shooting_jacobian(k->shoot, xp, rp, NULL);
    rod_shooting_jacobian(k->shoot, xm, rm, NULL);
    for (int i = 0; i < 6; i++)
      Jfd[6 * j + i] = (rp[i] - rm[i]) / (2 * h);
  }
  double mis = rod_test_relative_difference(36, J, Jfd);
  ck_assert_msg(mis < 1e-6, "tangent vs FD: %.3g", mis);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* The same for the multiple-shooting Jacobian of a Cosserat rod with an
 * impulse node inside a segment, off the reference in every direction (3D)
 * or in the in-plane ones (planar). */
START_TEST(modified_tangent_jacobian_matches_fd) {
  rod_scenario sc;
  rod_test_load(&sc, "impulse.ini");
  sc.space.nodes = 41;
  sc.rod.model = ROD_MODEL_COSSERAT;
  sc.solver.strategy = ROD_STRATEGY_MODIFIED;
  sc.solver.planar = planar_modes[_i];
  rod_kirchhoff *k = rod_test_before_step(&sc, 3);
  ck_assert(k->planar == (_i == 1));
  /* the structure of the last solve; unknowns at its solution, perturbed */
  int n = rod_mshoot_unknowns(k->mshoot);
  ck_assert_int_gt(rod_mshoot_node_count(k->mshoot), 0);
  for (int j = 0; j < k->nodes; j++)
    memcpy(k->yref + (size_t)ROD_NY * j, k->sol_y + (size_t)KR_NODE * j,
           ROD_NY * sizeof(double));
  double *X = calloc(n, sizeof(double)), *R = calloc(n, sizeof(double));
  double *J = calloc(n * n, sizeof(double)),
         *Jd = calloc(n * n, sizeof(double));
  double *Jfd = calloc(n * n, sizeof(double));
  double *Rp = calloc(n, sizeof(double)), *Rm = calloc(n, sizeof(double));
  memcpy(X, k->x, 6 * sizeof(double));
  for (int i = 6; i < n; i++) /* off the reference */
    X[i] = k->planar && (i - 6) % 2 ? 0.0 : 1e-3 * sin(i);
  ck_assert_int_eq(rod_mshoot_dense_jacobian(k->mshoot, X, k->yref, R, J),
                   ROD_OK);
  const double h = 1e-6;
  for (int j = 0; j < n; j++) {
    X[j] += h;
    rod_mshoot_dense_jacobian(k->mshoot, X, k->yref, Rp, Jd);
    X[j] -= 2 * h;
    rod_mshoot_dense_jacobian(k->mshoot, X, k->yref, Rm, Jd);
    X[j] += h;
    for (int i = 0; i < n; i++)
      Jfd[(size_t)n * j + i] = (Rp[i] - Rm[i]) / (2 * h);
  }
  double mis = rod_test_relative_difference(n * n, J, Jfd);
  ck_assert_msg(mis < 1e-6, "tangent vs FD: %.3g (n = %d)", mis, n);
  free(X);
  free(R);
  free(J);
  free(Jd);
  free(Jfd);
  free(Rp);
  free(Rm);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* Simple and modified shooting solve the same discrete equations: their
 * trajectories agree to the solver tolerance. At dt = 4 ms simple shooting
 * is well conditioned (error growth 200) and converges at every step. */
START_TEST(simple_and_modified_agree) {
  rod_scenario a;
  rod_test_load(&a, "weight_release.ini");
  a.time.duration = 0.4;
  a.time.dt = 4e-3;
  a.solver.tolerance = 1e-10;
  rod_scenario b = a;
  a.solver.strategy = ROD_STRATEGY_SIMPLE;
  b.solver.strategy = ROD_STRATEGY_MODIFIED;
  rod_sim_result ra, rb;
  rod_recorder *s = rod_test_run(&a, &ra), *m = rod_test_run(&b, &rb);
  for (int i = 1; i < s->count; i++) {
    ck_assert_int_eq(s->method[i], ROD_METHOD_SIMPLE);
    ck_assert_int_eq(m->method[i], ROD_METHOD_MODIFIED);
    for (int c = 0; c < 3; c++)
      ROD_ASSERT_NEAR(m->tip[3 * i + c], s->tip[3 * i + c], 1e-10);
  }
  rod_recorder_free(s);
  rod_recorder_free(m);
}
END_TEST

/* The paper's strategy with a tiny iteration budget: simple shooting gives
 * up, modified shooting takes over and stays on, and where it also fails
 * the step is redone with BDF2. Steps before the first BDF2 step match the
 * unconstrained solution; BDF2 steps are second order too, so the rest
 * stays close. */
START_TEST(paper_strategy_branches) {
  rod_scenario ref;
  rod_test_load(&ref, "weight_release.ini");
  ref.time.duration = 0.2;
  rod_scenario tight = ref;
  tight.solver.strategy = ROD_STRATEGY_PAPER;
  tight.solver.max_iterations = 6;
  rod_sim_result rr, rt;
  rod_recorder *r = rod_test_run(&ref, &rr), *t = rod_test_run(&tight, &rt);
  int count[3] = {0, 0, 0}, first_bdf2 = -1;
  for (int i = 1; i < t->count; i++) {
    count[t->method[i]]++;
    if (t->method[i] == ROD_METHOD_BDF2 && first_bdf2 < 0)
      first_bdf2 = i;
  }
  ck_assert_msg(count[0] > 0 && count[1] > 0 && count[2] > 0,
                "methods used: simple %d, modified %d, BDF2 %d", count[0],
                count[1], count[2]);
  ck_assert_int_gt(rt.fallbacks, 0);
  for (int i = 1; i < first_bdf2; i++)
    ROD_ASSERT_NEAR(t->tip[3 * i + 2], r->tip[3 * i + 2], 1e-9);
  for (int i = first_bdf2; i < t->count; i++)
    ROD_ASSERT_NEAR(t->tip[3 * i + 2], r->tip[3 * i + 2], 2e-3);
  rod_recorder_free(r);
  rod_recorder_free(t);
}
END_TEST

/* Auto's last resort: when the modified shooting it chose fails, simple
 * shooting with the whole iteration budget. The impulse on 20 Euler nodes
 * at dt = 5 ms: auto holds modified shooting from step 2; at step 12
 * (t = 0.06 s) modified shooting fails and simple shooting converges (275
 * iterations), and the run goes on. Modified shooting alone takes its
 * BDF2 retry at step 11 and at step 12 fails from the extrapolated start
 * and with BDF2 (it stopped there before the last retry existed); from the
 * last step's solution it converges and the run goes on. */
START_TEST(auto_falls_back_to_simple_shooting) {
  rod_scenario sc;
  rod_test_load(&sc, "impulse.ini");
  sc.space.integrator = ROD_SPACE_EULER;
  sc.space.nodes = 20;
  sc.time.dt = 5e-3;
  sc.time.duration = 0.1;
  rod_scenario only_modified = sc;
  only_modified.solver.strategy = ROD_STRATEGY_MODIFIED;
  rod_recorder *m = rod_recorder_alloc(&only_modified, false);
  rod_sim_sink sink = rod_recorder_sink(m);
  rod_sim_result res;
  rod_error err;
  ck_assert_int_eq(rod_sim_run(&only_modified, &sink, false, &res, &err),
                   ROD_OK);
  ck_assert_int_eq(m->count, 21);
  ck_assert_int_eq(res.fallbacks, 2);
  ck_assert_int_eq(m->method[11], ROD_METHOD_BDF2);
  ck_assert_int_eq(m->method[12], ROD_METHOD_MODIFIED); /* not BDF2 */
  rod_recorder *r = rod_test_run(&sc, &res);
  ck_assert_int_eq(r->count, 21);
  ck_assert_int_eq(r->method[10], ROD_METHOD_MODIFIED);
  ck_assert_int_eq(r->method[12], ROD_METHOD_SIMPLE);
  ck_assert_int_gt(r->iterations[12], 25); /* beyond auto's budget */
  ck_assert_int_gt(res.fallbacks, 0);
  rod_recorder_free(m);
  rod_recorder_free(r);
}
END_TEST

/* The weight release's tip height at 0.1 s intervals (RK4, 100 nodes,
 * dt 2 ms, alpha -0.48, tolerance 1e-10), recorded when the solver was
 * written: speed work must leave it unchanged to the solver tolerance. */
START_TEST(weight_release_regression) {
  static const double z_ref[10] = {
      0.0738233238063,  -0.0441222193894, -0.0362056543074, 0.0606089803118,
      -0.0980306174867, 0.0628304206881,  -0.0449792826934, -0.0243476607034,
      0.0436206911163,  -0.0842468162795};
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 100; /* the paper's grid */
  sc.time.duration = 1.0;
  sc.solver.tolerance = 1e-10;
  sc.output.every = 50;
  rod_sim_result res;
  rod_recorder *r = rod_test_run(&sc, &res);
  ck_assert_int_eq(r->count, 11);
  for (int i = 1; i <= 10; i++)
    ck_assert_msg(fabs(r->tip[3 * i + 2] - z_ref[i - 1]) < 1e-9,
                  "t = %.1f: z = %.12g, recorded %.12g", r->t[i],
                  r->tip[3 * i + 2], z_ref[i - 1]);
  rod_recorder_free(r);
}
END_TEST

/* A hard case for modified shooting: the impulse on a coarse Euler grid
 * (16 iterations per step), whose failing solves retry with finer segments
 * that start anywhere on the rod; a reference good only at the regular
 * nodes made them fail (a regression seen once). */
START_TEST(impulse_on_coarse_euler_grid) {
  rod_scenario sc;
  rod_test_coarse_euler_impulse(&sc);
  rod_sim_result res;
  rod_recorder *r = rod_test_run(&sc, &res);
  ck_assert_int_eq(r->count, 101);
  rod_recorder_free(r);
}
END_TEST

static Suite *shooting_suite(void) {
  Suite *s = suite_create("shooting");
  TCase *j = tcase_create("jacobians");
  tcase_set_timeout(j, 60);
  tcase_add_loop_test(j, simple_tangent_jacobian_matches_fd, 0, 2);
  tcase_add_loop_test(j, modified_tangent_jacobian_matches_fd, 0, 2);
  suite_add_tcase(s, j);
  TCase *st = tcase_create("strategy");
  tcase_set_timeout(st, 60);
  tcase_add_test(st, simple_and_modified_agree);
  tcase_add_test(st, paper_strategy_branches);
  tcase_add_test(st, weight_release_regression);
  tcase_add_test(st, impulse_on_coarse_euler_grid);
  tcase_add_test(st, auto_falls_back_to_simple_shooting);
  suite_add_tcase(s, st);
  return s;
}

ROD_TEST_MAIN(shooting_suite)
