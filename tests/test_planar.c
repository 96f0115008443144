/* The planar fast path of the Kirchhoff backend: the planar right-hand side
 * against the 3D one on in-plane states (bit for bit), whole runs with and
 * without it (identical trajectories, fewer integrations), and the symmetry
 * test that decides when it applies. */
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"
#include "scenarioutil.h"

/* Uniform in [-1, 1) from a fixed sequence. */
static double rnd(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return ((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

static bool same_bits(double a, double b) { return a == b; }

/* rod_rhs_eval_planar equals rod_rhs_eval on random in-plane states, with
 * random constants, precurvature and in-plane history, for both rod models,
 * both drag laws, with and without rotary inertia. */
START_TEST(planar_rhs_equals_3d) {
  unsigned seed = 7;
  for (int trial = 0; trial < 2000; trial++) {
    rod_rhs_const c = {0};
    c.cosserat = trial % 2;
    c.loads.drag_normal = (trial / 2) % 2;
    c.rotary = (trial / 4) % 2;
    c.c0 = 500 * (1 + rnd(&seed));
    c.rho_area = 0.01 * (1.5 + rnd(&seed));
    for (int i = 0; i < 3; i++) {
      c.loads.drag[i] = 0.004 * (1 + rnd(&seed));
      c.ki[i] = 30 * (1.5 + rnd(&seed));
      c.kse[i] = 1e-5 * (1.5 + rnd(&seed));
      c.K[i] = 1.0 / c.ki[i];
      c.Kse[i] = 1.0 / c.kse[i];
      c.rho_inertia[i] = c.rotary ? 1e-9 * (1.5 + rnd(&seed)) : 0.0;
    }
    c.loads.ns_dead[0] = rnd(&seed);
    c.loads.ns_dead[2] = rnd(&seed);
    c.loads.gravity[0] = rnd(&seed);
    c.loads.gravity[2] = -9.81;
    rod_hist_point hp;
    memset(&hp, 0, sizeof hp);
    hp.Q[0] = rnd(&seed);
    hp.Q[2] = rnd(&seed);
    hp.U[1] = rnd(&seed);
    hp.V[0] = rnd(&seed);
    hp.V[2] = rnd(&seed);
    hp.W[1] = rnd(&seed);
    rod_rhs_point pt = {{0, rnd(&seed), 0}, NULL, NULL, NULL};
    c.av0[0] = 1e-3 * rnd(&seed);
    c.av0[2] = 1 + 1e-3 * rnd(&seed);
    c.tau_fac = 1e-3 * rnd(&seed);
    double y[ROD_NY] = {0};
    for (int i = 0; i < ROD_NY; i += 2) /* the even (in-plane) entries */
      y[i] = rnd(&seed);
    y[ROD_Y_H] += 1.5;
    double f3[ROD_NY + ROD_NQ], fp[ROD_NY + ROD_NQ];
    rod_rhs_work w3, wp;
    rod_rhs_eval(&c, &hp, &pt, y, f3, &w3, true);
    rod_rhs_eval_planar(&c, &hp, &pt, y, fp, &wp, true);
    double du3[3], dup[3];
    v3_sub(du3, w3.u, pt.ustar);
    v3_sub(dup, wp.u, pt.ustar);
    rod_rhs_quadratures_at(&c, y + ROD_Y_Q, y + ROD_Y_W, du3, w3.v, w3.ps, 0.3,
                           f3 + ROD_NY, c.rotary);
    rod_rhs_quadratures_at(&c, y + ROD_Y_Q, y + ROD_Y_W, dup, wp.v, wp.ps, 0.3,
                           fp + ROD_NY, c.rotary);
    for (int i = 0; i < ROD_NY + ROD_NQ; i++)
      ck_assert_msg(same_bits(f3[i], fp[i]), "trial %d f[%d]: %.17g vs %.17g",
                    trial, i, f3[i], fp[i]);
    for (int i = 1; i < ROD_NY; i += 2)
      ck_assert(fp[i] == 0.0);
    /* the tangent equations see the same intermediate values */
    double dy[ROD_NY], d3[ROD_NY], dp[ROD_NY];
    for (int i = 0; i < ROD_NY; i++)
      dy[i] = i % 2 ? 0.0 : rnd(&seed);
    rod_rhs_tangent(&c, y, &w3, dy, d3, true);
    rod_rhs_tangent_planar(&c, y, &wp, dy, dp, true);
    for (int i = 0; i < ROD_NY; i++)
      ck_assert_msg(same_bits(d3[i], dp[i]), "trial %d df[%d]: %.17g vs %.17g",
                    trial, i, d3[i], dp[i]);
  }
}
END_TEST

/* Largest tip-position difference (m) of two recordings. */
static double tip_difference(const rod_recorder *a, const rod_recorder *b) {
  ck_assert_int_eq(a->count, b->count);
  double d = 0;
  for (int i = 0; i < 3 * a->count; i++)
    d = fmax(d, fabs(a->tip[i] - b->tip[i]));
  return d;
}

/* The shipped planar scenarios give the same trajectory with and without
 * the planar path, to round-off, with fewer integrations. */
static const char *const planar_scenarios[] = {
    "weight_release.ini", "cosserat_cantilever.ini", "flexible_pendulum.ini",
    "impulse.ini"};

/* sc recorded at every step with the 3D path (a) and with auto (b). */
static void run_both(rod_scenario *sc, rod_recorder **a, rod_sim_result *ra,
                     rod_recorder **b, rod_sim_result *rb) {
  sc->output.every = 1;
  sc->solver.planar = ROD_PLANAR_OFF;
  *a = rod_test_run(sc, ra);
  sc->solver.planar = ROD_PLANAR_AUTO;
  *b = rod_test_run(sc, rb);
}

START_TEST(planar_runs_equal_3d) {
  rod_scenario sc;
  rod_test_load(&sc, planar_scenarios[_i]);
  sc.time.duration = 0.3;
  rod_sim_result r3, rp;
  rod_recorder *a, *b;
  run_both(&sc, &a, &r3, &b, &rp);
  /* Both runs converge every step to a scaled residual r <= r_max: a tip
   * load error of r EI/L^2 (moment r EI/L), which moves the tip by at most
   * r L (the static compliances L^3/3EI and L^2/2EI; a step's inertia only
   * stiffens the rod). Such a difference is carried by the history but
   * does not grow in a stable scheme, so after n steps the two paths agree
   * to n L r_max. (Where simple shooting solves every step the paths are
   * the same arithmetic; modified shooting inverts the in-plane block
   * alone on the planar path, which rounds differently.) */
  const double r_max = fmax(r3.max_residual, rp.max_residual);
  const double bound = r3.steps * sc.rod.length * r_max;
  ck_assert_msg(tip_difference(a, b) <= bound,
                "%s: tips differ by %g m, more than %d steps x L x the "
                "largest residual %g = %g m",
                planar_scenarios[_i], tip_difference(a, b), r3.steps, r_max,
                bound);
  ck_assert_int_eq(r3.iterations, rp.iterations);
  ck_assert_msg(rp.integrations < r3.integrations,
                "%s: %g integrations planar, %g in 3D", planar_scenarios[_i],
                rp.integrations, r3.integrations);
  rod_recorder_free(a);
  rod_recorder_free(b);
}
END_TEST

/* A load out of the plane: the symmetry test refuses the planar path, so
 * auto and off run the same 3D computation. */
START_TEST(out_of_plane_gravity_stays_3d) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.environment.gravity[1] = 1.0;
  sc.time.duration = 0.05;
  rod_kirchhoff *k = rod_test_backend(&sc, 0);
  ck_assert(!k->planar);
  for (int i = 1; i <= 5; i++) {
    rod_test_step(k, i * sc.time.dt);
    ck_assert(!k->planar);
  }
  /* the rod left the plane */
  ck_assert(fabs(k->sol_y[(size_t)(k->nodes - 1) * KR_NODE + ROD_NY + 1]) >
            1e-4);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* The weight release struck out of the plane mid-run: planar before the
 * strike, 3D from it on, and the trajectory matches a run that is 3D
 * throughout to the solver's tolerance (the Jacobians differ, so the
 * iterates do). */
START_TEST(impulse_out_of_plane_switches_to_3d) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 60;
  sc.impulse.enabled = true;
  sc.impulse.peak = 0.5;
  sc.impulse.duration = 0.01;
  sc.impulse.start = 0.1;
  sc.impulse.position = 0.2;
  v3_set(sc.impulse.direction, 0.0, 0.6, 0.8);
  sc.time.duration = 0.2;
  rod_sim_result r3, rp;
  rod_recorder *a, *b;
  run_both(&sc, &a, &r3, &b, &rp);
  double d = tip_difference(a, b);
  ck_assert_msg(d < 1e-9, "tips differ by %g m", d);
  /* out of the plane after the strike */
  ck_assert(fabs(b->tip[3 * (b->count - 1) + 1]) > 1e-4);
  rod_recorder_free(a);
  rod_recorder_free(b);
  /* the path taken, step by step */
  rod_kirchhoff *k = rod_test_backend(&sc, 0);
  for (int i = 1; i <= 100; i++) {
    double t = i * sc.time.dt;
    rod_test_step(k, t);
    ck_assert_msg(k->planar == (t < sc.impulse.start + 1e-12),
                  "t = %g: planar %d", t, k->planar);
  }
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

static Suite *planar_suite(void) {
  Suite *s = suite_create("planar");
  TCase *rhs = tcase_create("rhs");
  tcase_add_test(rhs, planar_rhs_equals_3d);
  suite_add_tcase(s, rhs);
  TCase *runs = tcase_create("runs");
  tcase_set_timeout(runs, 60);
  tcase_add_loop_test(runs, planar_runs_equal_3d, 0, 4);
  tcase_add_test(runs, out_of_plane_gravity_stays_3d);
  tcase_add_test(runs, impulse_out_of_plane_switches_to_3d);
  suite_add_tcase(s, runs);
  return s;
}

ROD_TEST_MAIN(planar_suite)
