/* Tendons on the RFEM chain (docs/tendons.md, "The RFEM chain") against
 * known answers: a straight tendon's discrete arc in closed form, a tendon
 * on the neutral axis and two opposite ones that do nothing, the loads as
 * -tau dL/dq and their stiffness against differences, and the chain's
 * approach to the Kirchhoff rod in statics (second order in a plane: the
 * four-tendon example; first order twisted: a helical tendon) and in a run
 * whose tension is set each step (rod_sim_set_tendon), with the tendon's
 * length through rod_sim_get_tendon. */
#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_tendon.h"
#include "rfemutil.h"
#include "rod/sim.h"
#include "scenarioutil.h"

/* The weightless rod of test_tendon.c (L 0.5 m, d 2 mm, E 200 GPa, along
 * +z) as a chain of n elements, centered layout. */
static void tendon_chain(rod_scenario *sc, int n, bool planar) {
  rod_test_tendon_rod(sc, ROD_MODEL_KIRCHHOFF);
  sc->solver.backend = ROD_BACKEND_RFEM;
  sc->rfem.segments = n;
  sc->rfem.layout = ROD_LAYOUT_CENTERED;
  sc->rfem.planar = planar;
}

static rod_tendon_def *add_tendon(rod_scenario *sc, double x, double y,
                                  double tension) {
  return rod_test_add_tendon(sc, x, y, tension);
}

/* The joint angle of the discrete arc: the chord from disk to disk (l
 * apart, the joint halfway) at offset r shortens by 2 r sin(q/2) and
 * turns by q, so -tau dL/dq = tau (r cos(q/2) + (l/2) sin(q/2)) balances
 * the spring EI q / l; Newton from T r l / EI to rounding. */
static double arc_angle(double EI, double l, double T, double r) {
  double q = T * r * l / EI;
  for (int it = 0; it < 50; it++) {
    const double f = EI / l * q - T * (r * cos(q / 2) + l / 2 * sin(q / 2));
    const double df = EI / l - T * (-r / 2 * sin(q / 2) + l / 4 * cos(q / 2));
    q -= f / df;
  }
  return q;
}

/* A straight tendon (12 N at 12.5 mm along d1) on the weightless chain of
 * 20 elements: every d2 joint at the arc's angle q, the others 0, to the
 * solver's tolerance (1e-12 rad); the tip the polygon's, (l/2) e(0) +
 * l sum_(j<n) e(j q) + (l/2) e(n q), e(a) = (sin a, 0, cos a), within
 * 1e-12 L; the tendon's length n (l cos(q/2) - 2 r sin(q/2)) to rounding.
 * The 3D chain and the planar one alike. */
static void check_discrete_arc(bool planar) {
  const int n = 20;
  const double T = 12.0, r = 0.0125;
  rod_scenario sc;
  tendon_chain(&sc, n, planar);
  add_tendon(&sc, r, 0.0, T);
  rod_rfem *rf = make(&sc);
  solve_static(rf);
  const double L = sc.rod.length, l = L / n;
  const double q = arc_angle(rf->EI, l, T, r);
  const int per = planar ? 1 : 3;
  for (int j = 1; j <= n; j++)
    for (int m = 0; m < per; m++) {
      const double want = (planar || m == 1) ? q : 0.0;
      ROD_ASSERT_NEAR(rf->q[1 + per * (j - 1) + m], want, 1e-12);
    }
  double tip[3] = {0.5 * l * sin(n * q), 0, 0.5 * l * (1 + cos(n * q))};
  for (int j = 1; j < n; j++) {
    tip[0] += l * sin(j * q);
    tip[2] += l * cos(j * q);
  }
  double got[3];
  rod_sample s;
  ck_assert_int_eq(rod_backend_rfem.sample(rf, &s), ROD_OK);
  memcpy(got, s.position + 3 * (s.points - 1), sizeof got);
  double d[3];
  v3_sub(d, got, tip);
  ck_assert_msg(v3_norm(d) < 1e-12 * L, "tip %.3g m from the polygon's",
                v3_norm(d));
  ck_assert_int_eq(s.tendons, 1);
  const double len = n * (l * cos(q / 2) - 2 * r * sin(q / 2));
  ck_assert_msg(fabs(s.tendon_length[0] - len) < 1e-14 * L,
                "length %.17g, polygon %.17g", s.tendon_length[0], len);
  ck_assert(s.tendon_tension[0] == T);
  /* the backbone at the clamp carries the tendon's compression and moment
   * T r (the rod's: -T d3, T r d2), as the chord leaves it at q / 2 */
  ROD_ASSERT_NEAR(s.force[2], -T * cos(q / 2), 1e-12 * T);
  ROD_ASSERT_NEAR(s.moment[1], T * r * cos(q / 2), 1e-12 * T * r);
  rod_backend_rfem.destroy(rf);
}

START_TEST(straight_tendon_bends_chain_into_discrete_arc) {
  check_discrete_arc(false);
  check_discrete_arc(true);
}
END_TEST

/* A tendon on the neutral axis, and two opposite ones of equal tension,
 * leave the chain straight (1e-12 L). */
START_TEST(neutral_and_opposite_tendons_do_nothing) {
  for (int c = 0; c < 2; c++) {
    rod_scenario sc;
    tendon_chain(&sc, 20, false);
    if (c == 0) {
      add_tendon(&sc, 0.0, 0.0, 12.0);
    } else {
      add_tendon(&sc, 0.0125, 0.004, 12.0);
      add_tendon(&sc, -0.0125, -0.004, 12.0);
    }
    double tip[3];
    static_tip(&sc, tip);
    ck_assert_msg(fabs(tip[0]) < 1e-12 * 0.5 && fabs(tip[1]) < 1e-12 * 0.5 &&
                      fabs(tip[2] - 0.5) < 1e-12 * 0.5,
                  "case %d: tip %.3g %.3g %.17g", c, tip[0], tip[1], tip[2]);
  }
}
END_TEST

/* The tendons' generalized forces G (-RNEA of their pull on the disks at
 * rest, no gravity) on a 3D chain of 7 elements at random angles: G =
 * -tau dL/dq against central differences of the length (1e-8 of the
 * largest), and their stiffness rfem_tendon_stiffness against central
 * differences of G (1e-7 of the largest), a helical tendon and a straight
 * one on [0.123, 0.3771] m (disks off the nodes) both pulling; the
 * iteration matrix's diagonal is the stiffness's. */
static void tendon_forces(rod_rfem *r, const double *q, double *G) {
  const int n = r->nlinks;
  rod_chain_update(r->chain, q, NULL);
  memset(r->fext, 0, 6 * (size_t)n * sizeof(double));
  rfem_tendon_forces(r, 0.0, 1.0, r->fext);
  memset(r->full, 0, (size_t)n * sizeof(double));
  rod_chain_rnea(r->chain, r->full, r->fext, G);
  for (int i = 0; i < n; i++)
    G[i] = -G[i];
}

static double tendon_length_at(rod_rfem *r, const double *q) {
  double G[64];
  tendon_forces(r, q, G);
  return r->tendons->length[0] * 10.0 + r->tendons->length[1] * 7.0;
}

START_TEST(tendon_loads_are_the_length_gradient) {
  rod_scenario sc;
  tendon_chain(&sc, 7, false);
  rod_tendon_def *h = add_tendon(&sc, 0, 0, 10.0);
  h->helix[0] = 0.01506;
  h->helix[1] = 1.0;
  h->helix[2] = 0.3;
  rod_tendon_def *s = add_tendon(&sc, 0.006, -0.011, 7.0);
  s->start = 0.123;
  s->end.tip = false;
  s->end.s = 0.3771;
  rod_rfem *r = make(&sc);
  const int n = r->nlinks;
  ck_assert_int_le(n, 64);
  double q[64], G[64], Gp[64], Gm[64], K[64 * 64], Kd[64];
  for (int i = 0; i < n; i++)
    q[i] = i == 0 ? 0.0 : 0.3 * sin(1.7 * i + 0.4);
  const double hq = 1e-6;
  double big = 0, gbig = 0;
  tendon_forces(r, q, G);
  memset(K, 0, sizeof K);
  rfem_tendon_stiffness(r, K, n);
  memset(Kd, 0, sizeof Kd);
  rfem_tendon_iteration(r, 1.0, Kd);
  for (int i = 0; i < n * n; i++)
    big = fmax(big, fabs(K[i]));
  for (int i = 0; i < n; i++)
    gbig = fmax(gbig, fabs(G[i]));
  ck_assert(big > 0 && gbig > 0);
  for (int j = 1; j < n; j++) {
    ROD_ASSERT_NEAR(Kd[j], -K[j + j * n], 1e-14 * big);
    const double qj = q[j];
    q[j] = qj + hq;
    const double Lp = tendon_length_at(r, q);
    tendon_forces(r, q, Gp);
    q[j] = qj - hq;
    const double Lm = tendon_length_at(r, q);
    tendon_forces(r, q, Gm);
    q[j] = qj;
    ROD_ASSERT_NEAR(G[j], -(Lp - Lm) / (2 * hq), 1e-8 * gbig);
    for (int i = 1; i < n; i++)
      ROD_ASSERT_NEAR(K[i + j * n], (Gp[i] - Gm[i]) / (2 * hq), 1e-7 * big);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- the chain against the Kirchhoff rod ------------------------------- */

/* The static tip of sc on the Kirchhoff rod (400 points: within 1e-10 m
 * of its converged tip) and its distance from the chain's on n, 2n, 4n
 * elements into err. */
static void statics_errors(rod_scenario *sc, int n, double *err) {
  double ref[3];
  sc->solver.backend = ROD_BACKEND_KIRCHHOFF;
  sc->space.nodes = 400;
  sc->space.integrator = ROD_SPACE_RK4;
  rod_sim *sim = NULL;
  rod_error e;
  ck_assert_int_eq(rod_sim_create(sc, &sim, &e), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  double pos[3 * 401];
  ck_assert_int_le(rod_sim_points(sim), 401);
  rod_sim_get_positions(sim, pos);
  memcpy(ref, pos + 3 * (rod_sim_points(sim) - 1), sizeof ref);
  rod_sim_free(sim);
  sc->solver.backend = ROD_BACKEND_RFEM;
  sc->rfem.layout = ROD_LAYOUT_CENTERED;
  for (int k = 0; k < 3; k++) {
    double tip[3], d[3];
    sc->rfem.segments = n << k;
    static_tip(sc, tip);
    v3_sub(d, tip, ref);
    err[k] = v3_norm(d);
  }
}

/* The four-tendon example (data/scenarios/tendon_statics.ini, Kirchhoff
 * rod: the chain neither stretches nor shears; 15 N on t1, gravity along
 * the normal), bent in a plane, on the 3D chain of 10, 20, 40 elements:
 * second order (observed 2 +- 0.1). A helical tendon of one turn (15.06
 * mm, 10 N, test_tendon.c's) bends and twists the rod out of any plane,
 * where the 3D chain's springs on x-y-z angles (a, b, c) differ from the
 * rod's E I theta by O(theta^2) (theta the turn between elements), first
 * order in the elements with or without tendons (docs/tendons.md): on 20,
 * 40, 80 elements observed orders above 0.9. */
START_TEST(chain_statics_converge_to_the_rod) {
  rod_scenario sc;
  double err[3];
  rod_test_load(&sc, "tendon_statics.ini");
  sc.rod.model = ROD_MODEL_KIRCHHOFF;
  sc.solver.tolerance = 1e-12;
  statics_errors(&sc, 10, err);
  check_layout_order(ROD_LAYOUT_CENTERED, err);
  tendon_chain(&sc, 10, false);
  rod_tendon_def *h = add_tendon(&sc, 0, 0, 10.0);
  h->helix[0] = 0.01506;
  h->helix[1] = 1.0;
  statics_errors(&sc, 20, err);
  const double p1 = rod_observed_order(err[0], err[1]);
  const double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(p1 > 0.9 && p2 > 0.9,
                "orders %.3f %.3f (errors %.3g %.3g %.3g)", p1, p2, err[0],
                err[1], err[2]);
}
END_TEST

/* A run: the four-tendon robot's t1 pulled 0 -> 15 N over 40 ms then let
 * down to 5 N by 80 ms (rod_sim_set_tendon before each step of 1 ms, both
 * backends), for 0.1 s: the chain's tip against the Kirchhoff rod's
 * (space.nodes 100, BDF-alpha) over the run falls at second order from 10
 * to 20 to 40 elements (observed orders 2 +- 0.3: the two time schemes'
 * own difference is a floor far below), and the chain's tendon length
 * (rod_sim_get_tendon) approaches the rod's at the same order. */
static double ramp_tension(double t) {
  if (t < 0.04)
    return 15.0 * t / 0.04;
  if (t < 0.08)
    return 15.0 - 10.0 * (t - 0.04) / 0.04;
  return 5.0;
}

static void run_tips(rod_scenario *sc, double *tips, double *lengths,
                     int steps) {
  rod_sim *sim = NULL;
  rod_error e;
  ck_assert_int_eq(rod_sim_create(sc, &sim, &e), ROD_OK);
  ck_assert_int_eq(rod_sim_set_tendon(sim, "t1", 0.0), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  double pos[3 * 201];
  for (int k = 0; k < steps; k++) {
    const double t = (k + 1) * sc->time.dt;
    ck_assert_int_eq(rod_sim_set_tendon(sim, "t1", ramp_tension(t)), ROD_OK);
    ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
    const int np = rod_sim_points(sim);
    ck_assert_int_le(np, 201);
    rod_sim_get_positions(sim, pos);
    memcpy(tips + 3 * k, pos + 3 * (np - 1), 3 * sizeof(double));
    double T;
    ck_assert_int_eq(rod_sim_get_tendon(sim, "t1", &T, lengths + k), ROD_OK);
    ROD_ASSERT_NEAR(T, ramp_tension(t), 1e-12);
  }
  rod_sim_free(sim);
}

START_TEST(chain_run_converges_to_the_rod) {
  enum { STEPS = 100 };
  static double ref[3 * STEPS], tips[3 * STEPS], lref[STEPS], len[STEPS];
  rod_scenario sc;
  rod_test_load(&sc, "tendon_statics.ini");
  sc.rod.model = ROD_MODEL_KIRCHHOFF;
  sc.time.dt = 1e-3;
  sc.time.duration = STEPS * sc.time.dt;
  sc.tendons.item[0].tension = 0;
  run_tips(&sc, ref, lref, STEPS);
  sc.solver.backend = ROD_BACKEND_RFEM;
  double err[3], lerr[3];
  for (int k = 0; k < 3; k++) {
    sc.rfem.segments = 10 << k;
    run_tips(&sc, tips, len, STEPS);
    err[k] = lerr[k] = 0;
    for (int i = 0; i < 3 * STEPS; i++)
      err[k] = fmax(err[k], fabs(tips[i] - ref[i]));
    for (int i = 0; i < STEPS; i++)
      lerr[k] = fmax(lerr[k], fabs(len[i] - lref[i]));
  }
  const double p1 = rod_observed_order(err[0], err[1]);
  const double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(fabs(p1 - 2) < 0.3 && fabs(p2 - 2) < 0.3,
                "orders %.3f %.3f (errors %.3g %.3g %.3g)", p1, p2, err[0],
                err[1], err[2]);
  const double l1 = rod_observed_order(lerr[0], lerr[1]);
  const double l2 = rod_observed_order(lerr[1], lerr[2]);
  ck_assert_msg(fabs(l1 - 2) < 0.3 && fabs(l2 - 2) < 0.3,
                "length orders %.3f %.3f", l1, l2);
}
END_TEST

static Suite *rfem_tendon_suite(void) {
  Suite *s = suite_create("rfem_tendon");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, straight_tendon_bends_chain_into_discrete_arc);
  tcase_add_test(tc, neutral_and_opposite_tendons_do_nothing);
  tcase_add_test(tc, tendon_loads_are_the_length_gradient);
  tcase_add_test(tc, chain_statics_converge_to_the_rod);
  tcase_add_test(tc, chain_run_converges_to_the_rod);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(rfem_tendon_suite)
