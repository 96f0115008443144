/* Statics as a path and the stability of its end (src/kirchhoff/
 * kirchhoff_static.c): the conjugate-point test against the closed-form
 * critical loads of a column (Euler: P L^2 / EI = (2k - 1)^2 pi^2 / 4;
 * Greenhill's heavy column: w L^3 / EI = 7.837), the buckled column
 * against the elastica, a soft rod whose direct solve looped behind the
 * clamp against an independent solution, and a column past buckling that
 * buckles toward its preload. */
#include <string.h>

#include "elastica.h"
#include "rod/sim.h"
#include "scenarioutil.h"

typedef struct {
  double tip[3];
  rod_static_report rep;
  int status;
} static_result;

static static_result solve_by(const rod_backend_ops *ops,
                              const rod_scenario *sc) {
  static_result r = {{0}, {0}, 0};
  void *self = NULL;
  rod_error err;
  ck_assert_int_eq(ops->create(sc, &self, &err), ROD_OK);
  rod_step_stats ss;
  r.status = ops->solve_static(self, &ss);
  ops->static_report(self, &r.rep);
  if (r.status == ROD_OK) {
    rod_sample s;
    ops->sample(self, &s);
    memcpy(r.tip, s.position + 3 * (s.points - 1), sizeof r.tip);
  }
  ops->destroy(self);
  return r;
}

static static_result solve(const rod_scenario *sc) {
  return solve_by(&rod_backend_kirchhoff, sc);
}

/* A weightless rod, EI = L = 1, clamped pointing up (+z). */
static void column(rod_scenario *sc, int nodes) {
  rod_scenario_default(sc);
  sc->rod.length = 1.0;
  sc->rod.has_bending_stiffness = true;
  sc->rod.bending_stiffness = 1.0;
  sc->environment.gravity[2] = 0.0;
  sc->base.direction[0] = 0.0;
  sc->base.direction[2] = 1.0;
  sc->space.nodes = nodes;
  sc->solver.tolerance = 1e-12;
}

/* The number in "(N unstable direction" of a note, -1 if none. */
static int unstable_directions(const char *note) {
  const char *p = strstr(note, " unstable direction");
  if (!p)
    return -1;
  while (p > note && p[-1] >= '0' && p[-1] <= '9')
    p--;
  return atoi(p);
}

static const double euler_load = M_PI * M_PI / 4; /* P L^2 / EI */

/* Just below the critical load the straight column is stable and solved
 * directly; just above it is unstable in two directions (in the plane and
 * out of it), and past the second critical load (9 times the first) in
 * four: the conjugate points of the straight state count them. */
START_TEST(column_critical_loads) {
  rod_scenario sc;
  column(&sc, 60);
  sc.tip.force[2] = -0.99 * euler_load;
  static_result r = solve(&sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_int_eq(r.rep.path_steps, 0);
  ROD_ASSERT_NEAR(r.tip[0], 0.0, 1e-12);
  const double load[] = {1.01, 8.9, 9.1, 24.9, 25.1};
  const int index[] = {2, 2, 4, 4, 6};
  for (int i = 0; i < 5; i++) {
    sc.tip.force[2] = -load[i] * euler_load;
    r = solve(&sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_msg(unstable_directions(r.rep.note) == index[i],
                  "P = %g P_cr: %s", load[i], r.rep.note);
  }
}
END_TEST

/* Elliptic integrals K(p), E(p) of modulus p by the arithmetic-geometric
 * mean (Abramowitz & Stegun 17.6). */
static void elliptic(double p, double *K, double *E) {
  double a = 1.0, g = sqrt(1.0 - p * p), c = p, sum = 0.5 * c * c, pw = 0.5;
  for (int i = 0; i < 40 && c > 1e-17; i++) {
    double an = 0.5 * (a + g);
    c = 0.5 * (a - g);
    g = sqrt(a * g);
    a = an;
    pw *= 2.0;
    sum += pw * c * c;
  }
  *K = M_PI / (2.0 * a);
  *E = *K * (1.0 - sum);
}

/* The tip of the buckled cantilever column (EI = L = 1) under P: across
 * and along the axis (Timoshenko & Gere 2.7). */
static void buckled_tip(double P, double *across, double *along) {
  double lo = 0, hi = 1, K, E;
  for (int i = 0; i < 100; i++) { /* K(p) = sqrt(P) */
    double p = 0.5 * (lo + hi);
    elliptic(p, &K, &E);
    if (K > sqrt(P))
      hi = p;
    else
      lo = p;
  }
  double p = 0.5 * (lo + hi);
  elliptic(p, &K, &E);
  *across = 2.0 * p / K;
  *along = 2.0 * E / K - 1.0;
}

/* The buckled cantilever column (Timoshenko & Gere 2.7): with
 * k L = sqrt(P L^2 / EI) = K(p), p = sin(tip angle / 2), the tip lies
 * 2 p L / K across the axis and L (2 E / K - 1) along it. No preload: the
 * path passes the bifurcation, finds the straight state unstable and
 * takes the side a small imperfection picks (+x), which it then removes;
 * the state is the perfect elastica. */
START_TEST(buckled_column_is_the_elastica) {
  rod_scenario sc;
  column(&sc, 80);
  const double P = 3.0; /* 1.22 times critical */
  sc.tip.force[2] = -P;
  static_result r = solve(&sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_ptr_nonnull(strstr(r.rep.note, "along x"));
  double across, along;
  buckled_tip(P, &across, &along);
  /* RK4 on 80 nodes (measured 4e-9 L) */
  ROD_ASSERT_NEAR(r.tip[0], across, 1e-7);
  ROD_ASSERT_NEAR(r.tip[2], along, 1e-7);
  ROD_ASSERT_NEAR(r.tip[1], 0.0, 1e-12);
  /* a preload decides the side */
  sc.tip.preload[0] = -1e-3;
  r = solve(&sc);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_double_lt(r.tip[0], -0.5);
}
END_TEST

/* The column hanging down (-z) and pushed up at its tip: the elastica
 * upside down. Its clamp frame was a half turn about x, which took the
 * rod off the planar path: the whole determinant of the conjugate-point
 * test, the product of the two equal bending modes' determinants, kept
 * its sign, and the straight state, unstable in two directions, was
 * returned as stable by the direct solve (also for a rod hanging under a
 * tip force 4 times critical in the robustness study). In the y-z plane
 * (a preload along y) the plane is found and the instability reported,
 * with what to change; the straight state is never called stable. */
START_TEST(column_in_any_direction) {
  rod_scenario sc;
  column(&sc, 80);
  const double P = 3.0;
  sc.base.direction[2] = -1.0;
  sc.tip.force[2] = P;
  static_result r = solve(&sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  double across, along;
  buckled_tip(P, &across, &along);
  ROD_ASSERT_NEAR(fabs(r.tip[0]), across, 1e-7);
  ROD_ASSERT_NEAR(r.tip[2], -along, 1e-7);
  column(&sc, 80);
  sc.tip.force[2] = -P;
  sc.tip.preload[1] = -1e-3;
  r = solve(&sc);
  ck_assert_int_eq(r.status, ROD_OK);
  if (r.rep.stable == 1)
    ROD_ASSERT_NEAR(hypot(r.tip[0], r.tip[1]), across, 1e-3);
  else
    ck_assert_ptr_nonnull(strstr(r.rep.note, "turn them into x-z"));
}
END_TEST

/* Far past buckling (40 times the critical load, past the third mode's
 * 25): the curled elastica, tip angle 167 degrees. The loading path's
 * corrector once landed on a branch two in-plane modes further, which
 * det J's sign does not see, and the run refused (4 or 6 unstable
 * directions, no stable state found); the path now watches the in-plane
 * conjugate points. The shooting tolerance stays 1e-8 (1e-12 is below
 * what exp(sqrt(P L^2 / EI)) = 2e4 lets the shooting resolve). */
START_TEST(column_far_past_buckling) {
  rod_scenario sc;
  column(&sc, 200);
  sc.solver.tolerance = 1e-8;
  const double P = 40.0 * euler_load;
  sc.tip.force[2] = -P;
  double across, along;
  buckled_tip(P, &across, &along);
  for (int side = 0; side < 2; side++) {
    sc.tip.preload[0] = side ? -1e-3 : 0.0;
    static_result r = solve(&sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_int_eq(r.rep.stable, 1);
    /* RK4 on 200 nodes (measured 5e-8 L; the preload moves it 1e-5 L) */
    ROD_ASSERT_NEAR(fabs(r.tip[0]), across, side ? 1e-4 : 1e-6);
    ROD_ASSERT_NEAR(r.tip[2], along, side ? 1e-4 : 1e-6);
    if (side)
      ck_assert_double_lt(r.tip[0], 0.0);
  }
}
END_TEST

/* Greenhill's heavy column: a rod standing up under its own weight buckles
 * at w L^3 / EI = 7.837 (Timoshenko & Gere 2.13). */
START_TEST(heavy_column_critical_weight) {
  rod_scenario sc;
  column(&sc, 80);
  const double crit = 7.8373;
  const double d = sc.rod.diameter;
  const double rhoA = sc.rod.density * M_PI * d * d / 4;
  const double f[] = {0.99, 1.01};
  for (int i = 0; i < 2; i++) {
    sc.environment.gravity[2] = -f[i] * crit / rhoA;
    static_result r = solve(&sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_int_eq(r.rep.stable, 1);
    if (i == 0) {
      ck_assert_int_eq(r.rep.path_steps, 0);
      ROD_ASSERT_NEAR(r.tip[0], 0.0, 1e-12);
    } else {
      ck_assert_msg(unstable_directions(r.rep.note) == 2, "%s", r.rep.note);
      ck_assert_double_gt(r.tip[0], 1e-3);
    }
  }
}
END_TEST

/* A soft rod under its own weight (L 0.3 m, d 5 mm, 1100 kg/m^3,
 * E 4 MPa: w L^3 / EI = 47) hangs down; the direct solve from the
 * straight rod's forces once returned a loop behind the clamp (tip at
 * z = +0.076 m). Against the angle-form solution of the same rod. */
START_TEST(soft_rod_hangs_down) {
  const double E[] = {4e6, 2e6};
  for (int i = 0; i < 2; i++) {
    rod_scenario sc;
    rod_test_soft_rod(&sc);
    sc.rod.youngs_modulus = E[i];
    sc.space.nodes = 100;
    static_result r = solve(&sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_int_eq(r.rep.stable, 1);
    const double d = sc.rod.diameter;
    const double EI = E[i] * M_PI * pow(d, 4) / 64;
    const double w = sc.rod.density * M_PI * d * d / 4 * 9.81;
    double defl, along;
    planar_cantilever(EI, 0.0, w, sc.rod.length, &defl, &along);
    /* RK4 on 100 nodes (measured 4e-9 m) */
    ROD_ASSERT_NEAR(r.tip[0], along, 1e-7);
    ROD_ASSERT_NEAR(-r.tip[2], defl, 1e-7);
  }
}
END_TEST

/* The weight release's rod standing up with 0.1 kg on its tip (1.7 times
 * the critical load) and a 1 mN preload along +x: it buckles toward +x.
 * The direct solve once returned the straight state leaning 0.76 mm
 * against the preload. */
START_TEST(column_buckles_toward_preload) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.base.direction[0] = 0.0;
  sc.base.direction[2] = 1.0;
  sc.tip.mass = 0.1;
  sc.tip.preload[0] = 1e-3;
  static_result r = solve(&sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_double_gt(r.tip[0], 0.3);
  sc.tip.preload[0] = -1e-3;
  static_result m = solve(&sc);
  ck_assert_int_eq(m.rep.stable, 1);
  /* the mirror image, to within what the preload changes */
  ROD_ASSERT_NEAR(m.tip[0], -r.tip[0], 1e-3);
  ROD_ASSERT_NEAR(m.tip[2], r.tip[2], 1e-3);
}
END_TEST

/* ---- the rigid-element chain (src/rfem/rfem_static.c) ---------------- */

/* The column as a chain of n elements. */
static void chain_column(rod_scenario *sc, int n) {
  column(sc, 2);
  sc->solver.backend = ROD_BACKEND_RFEM;
  sc->rfem.segments = n;
}

/* The chain's critical load lies within 0.5 % of Euler's from 10 elements
 * on (centered layout; measured between 0.995 and 1.005 at 10, 20, 40):
 * 2 % below it the straight chain is stable and solved directly, 2 %
 * above it unstable in two directions, and the path takes the side a
 * small imperfection picks, then removes it; in the plane of a planar
 * chain one direction. */
START_TEST(chain_column_critical_load) {
  rod_scenario sc;
  chain_column(&sc, 20);
  sc.tip.force[2] = -0.98 * euler_load;
  static_result r = solve_by(&rod_backend_rfem, &sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_int_eq(r.rep.path_steps, 0);
  ROD_ASSERT_NEAR(r.tip[0], 0.0, 1e-12);
  sc.tip.force[2] = -1.02 * euler_load;
  r = solve_by(&rod_backend_rfem, &sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_msg(unstable_directions(r.rep.note) == 2, "%s", r.rep.note);
  ck_assert_ptr_nonnull(strstr(r.rep.note, "along x"));
  ck_assert_double_gt(r.tip[0], 0.1);
  sc.rfem.planar = true;
  r = solve_by(&rod_backend_rfem, &sc);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_msg(unstable_directions(r.rep.note) == 1, "%s", r.rep.note);
  ck_assert_double_gt(hypot(r.tip[0], r.tip[1]), 0.1);
}
END_TEST

/* The buckled chain converges to the elastica at second order in the
 * element length (RFEM's discretisation error); its direct solve from
 * the straight chain finds the unstable straight state, the path the
 * buckled one. */
START_TEST(chain_buckled_column_is_the_elastica) {
  const double P = 3.0;
  double across, along, err[2];
  buckled_tip(P, &across, &along);
  for (int i = 0; i < 2; i++) {
    rod_scenario sc;
    chain_column(&sc, 20 << i);
    sc.tip.force[2] = -P;
    static_result r = solve_by(&rod_backend_rfem, &sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_int_eq(r.rep.stable, 1);
    err[i] = hypot(r.tip[0] - across, r.tip[2] - along);
  }
  ck_assert_double_lt(err[1], 2e-3);
  const double order = log2(err[0] / err[1]);
  ck_assert_msg(order > 1.8 && order < 2.2, "order %g (%g, %g)", order, err[0],
                err[1]);
}
END_TEST

/* The soft rod of soft_rod_hangs_down as a chain: Newton from the
 * unloaded chain did not converge; the path hangs it down, converging to
 * the angle-form solution at second order. */
START_TEST(chain_soft_rod_hangs_down) {
  double err[2], defl, along;
  rod_scenario sc;
  rod_test_soft_rod(&sc);
  sc.solver.backend = ROD_BACKEND_RFEM;
  const double d = sc.rod.diameter;
  const double EI = sc.rod.youngs_modulus * M_PI * pow(d, 4) / 64;
  const double w = sc.rod.density * M_PI * d * d / 4 * 9.81;
  planar_cantilever(EI, 0.0, w, sc.rod.length, &defl, &along);
  for (int i = 0; i < 2; i++) {
    sc.rfem.segments = 20 << i;
    static_result r = solve_by(&rod_backend_rfem, &sc);
    ck_assert_int_eq(r.status, ROD_OK);
    ck_assert_int_eq(r.rep.stable, 1);
    err[i] = hypot(r.tip[0] - along, r.tip[2] + defl);
  }
  ck_assert_double_lt(err[1], 1e-3 * sc.rod.length);
  const double order = log2(err[0] / err[1]);
  ck_assert_msg(order > 1.8 && order < 2.2, "order %g (%g, %g)", order, err[0],
                err[1]);
}
END_TEST

/* column_buckles_toward_preload as a chain: the direct solve returned
 * the straight state leaning 0.75 mm against the preload. */
START_TEST(chain_column_buckles_toward_preload) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.solver.backend = ROD_BACKEND_RFEM;
  sc.base.direction[0] = 0.0;
  sc.base.direction[2] = 1.0;
  sc.tip.mass = 0.1;
  sc.tip.preload[0] = 1e-3;
  static_result r = solve_by(&rod_backend_rfem, &sc);
  ck_assert_int_eq(r.status, ROD_OK);
  ck_assert_int_eq(r.rep.stable, 1);
  ck_assert_double_gt(r.tip[0], 0.3);
  sc.tip.preload[0] = -1e-3;
  static_result m = solve_by(&rod_backend_rfem, &sc);
  ck_assert_int_eq(m.rep.stable, 1);
  ROD_ASSERT_NEAR(m.tip[0], -r.tip[0], 1e-12);
  ROD_ASSERT_NEAR(m.tip[2], r.tip[2], 1e-12);
}
END_TEST

static Suite *stability_suite(void) {
  Suite *s = suite_create("stability");
  TCase *tc = tcase_create("statics");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, column_critical_loads);
  tcase_add_test(tc, buckled_column_is_the_elastica);
  tcase_add_test(tc, column_in_any_direction);
  tcase_add_test(tc, column_far_past_buckling);
  tcase_add_test(tc, heavy_column_critical_weight);
  tcase_add_test(tc, soft_rod_hangs_down);
  tcase_add_test(tc, column_buckles_toward_preload);
  suite_add_tcase(s, tc);
  tc = tcase_create("chain");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, chain_column_critical_load);
  tcase_add_test(tc, chain_buckled_column_is_the_elastica);
  tcase_add_test(tc, chain_soft_rod_hangs_down);
  tcase_add_test(tc, chain_column_buckles_toward_preload);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(stability_suite)
