/* The attached tip body (tip.release = false) against closed forms: its
 * weight as its end loads, the end conditions' derivatives, energy of a
 * swinging rod, the column buckling at its arm's load, the chain
 * converging to the Kirchhoff rod. */
#include <string.h>

#include "core/model.h"
#include "core/v3.h"
#include "integrators/bdf.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "physicsutil.h"
#include "rod/recorder.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- the attached tip body ---------------------------------------------- */

/* The straight rod under gravity with an attached tip body of the given
 * mass, an inertia and an offset in all three directions. */
static void rod_with_body(rod_scenario *sc, int backend, double mass) {
  straight_rod(sc, backend ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF);
  sc->environment.gravity[2] = -9.81;
  sc->tip.release = false;
  sc->tip.mass = mass;
  v3_set(sc->tip.offset, 0.02, -0.01, 0.05);
  v3_set(sc->tip.inertia, 1e-6, 2e-6, 3e-7);
}

/* At rest an attached body's weight W = M g acts at its centre, R(L) r from
 * the end: a run with that force and the moment (R(L) r) x W at the tip,
 * R(L) taken from the first run, solves the same equations, on both
 * backends (the RFEM chain carries the body in the last element's mass);
 * the rods agree to the solvers' tolerance. A heavy body far off the axis
 * bends the rod to 40 degrees: no small-deflection argument. */
START_TEST(tip_body_weight_is_its_end_loads) {
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    rod_with_body(&sc, b, 0.04); /* its inertia: no effect at rest */
    rod_states *a = simulate(&sc, true);
    const int tip = a->points - 1;
    double R[9], Rr[3], W[3], M[3];
    quat_to_R(R, point_quat(a, 0, tip));
    m3_mul_v(Rr, R, sc.tip.offset);
    v3_scale(W, sc.tip.mass, sc.environment.gravity);
    v3_cross(M, Rr, W);
    rod_scenario eq = sc;
    eq.tip.release = true;
    eq.tip.mass = 0;
    v3_set(eq.tip.offset, 0, 0, 0);
    v3_set(eq.tip.inertia, 0, 0, 0);
    v3_copy(eq.tip.force, W);
    v3_copy(eq.tip.moment, M);
    rod_states *c = simulate(&eq, true);
    const double L = sc.rod.length;
    /* the turn of the end: far from small */
    ck_assert(fabs(asin(fmin(1.0, fabs(R[8])))) > 0.5);
    for (int j = 0; j < a->points; j++)
      for (int i = 0; i < 3; i++)
        ROD_ASSERT_NEAR(point_pos(a, 0, j)[i], point_pos(c, 0, j)[i],
                        100 * sc.solver.tolerance * L);
    states_free(a);
    states_free(c);
  }
}
END_TEST

/* The end conditions' derivatives (the shooting's Jacobian) against
 * central differences, at a state with every term alive: a turned end,
 * velocities, history terms, c0 of a step. Central differences of step
 * 1e-6 leave O(1e-12) relative. */
START_TEST(tip_body_jacobian) {
  rod_scenario sc;
  rod_with_body(&sc, 0, 0.03);
  v3_set(sc.tip.inertia, 1e-4, 2e-4, 3e-5);
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_kirchhoff *k = self;
  const rod_bdf_coeffs c = rod_bdf_alpha(-0.48, 1e-3);
  kr_set_coefficients(k, &c, true);
  kr_set_loads(k, 0.1, false);
  v3_set(k->body_qh, 0.3, -0.2, 0.5);
  v3_set(k->body_wh, -1.1, 0.7, 2.0);
  double y[ROD_NY] = {0};
  const double h[4] = {0.8, 0.3, -0.4, 0.35}; /* not unit */
  memcpy(y + ROD_Y_H, h, sizeof h);
  v3_set(y + ROD_Y_Q, 0.1, -0.3, 0.05);
  v3_set(y + ROD_Y_W, 2.0, -1.0, 3.0);
  double F[3], M[3], dF[3 * ROD_NY], dM[3 * ROD_NY];
  kr_tip_body_loads(k, y, F, M, dF, dM);
  for (int j = 0; j < ROD_NY; j++) {
    double yp[ROD_NY], ym[ROD_NY], Fp[3], Mp[3], Fm[3], Mm[3];
    const double e = 1e-6;
    memcpy(yp, y, sizeof y);
    memcpy(ym, y, sizeof y);
    yp[j] += e;
    ym[j] -= e;
    kr_tip_body_loads(k, yp, Fp, Mp, NULL, NULL);
    kr_tip_body_loads(k, ym, Fm, Mm, NULL, NULL);
    for (int i = 0; i < 3; i++) {
      const double fd = (Fp[i] - Fm[i]) / (2 * e);
      const double md = (Mp[i] - Mm[i]) / (2 * e);
      ck_assert_msg(fabs(dF[3 * j + i] - fd) <= 1e-8 * (1 + fabs(fd)),
                    "dF%d/dy%d = %.12g, differences %.12g", i, j, dF[3 * j + i],
                    fd);
      ck_assert_msg(fabs(dM[3 * j + i] - md) <= 1e-8 * (1 + fabs(md)),
                    "dM%d/dy%d = %.12g, differences %.12g", i, j, dM[3 * j + i],
                    md);
    }
  }
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* Energy of a swinging rod with an attached body (mass, inertia, offset)
 * under the trapezoidal rule, the body's kinetic and gravitational
 * energy included: constant to the discretisation's drift (measured 1.5e-5
 * of the largest kinetic energy on Kirchhoff, 4.8e-5 on RFEM), where the
 * body's share of the swing is about half. */
START_TEST(tip_body_energy_conserved) {
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    rod_with_body(&sc, b, 0.005);
    sc.tip.preload[2] = -0.02;
    sc.time.alpha = -0.5;
    sc.time.dt = 1e-3;
    sc.time.duration = 0.3;
    sc.space.nodes = 100;
    rod_error err;
    ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
    rod_recorder *r = rod_recorder_alloc(&sc, false);
    rod_sim_sink sink = rod_recorder_sink(r);
    rod_sim_result res;
    ck_assert_int_eq(rod_sim_run(&sc, &sink, false, &res, &err), ROD_OK);
    double lo = INFINITY, hi = -INFINITY, swing = 0;
    for (int i = 1; i < r->count; i++) { /* after the preload's release */
      const double E = r->kinetic[i] + r->elastic[i] + r->gravity[i];
      lo = fmin(lo, E);
      hi = fmax(hi, E);
      swing = fmax(swing, r->kinetic[i]);
    }
    ck_assert_msg(hi - lo < 1e-4 * swing,
                  "backend %d: E drifts %.3g J (%.3g J swing)", b, hi - lo,
                  swing);
    rod_recorder_free(r);
  }
}
END_TEST

/* The attached body (mass, inertia, an offset in the bending plane)
 * swinging after a preload's release, on both backends, two independent
 * methods: the RFEM chain's tip converges to the Kirchhoff rod's at second
 * order in the elements (centered layout, 3D chain; measured 1.14e-4 and
 * 2.86e-5 m rms at 20 and 40 elements over 0.3 s, at a step of 0.5 ms
 * that keeps both time errors below that). An offset across the plane
 * twists the rod (docs/numerics.md, "The 3D chain: twist and the
 * out-of-plane swing"): released from 0.2 N, the chain's tip y over 0.5 s
 * at 0.25 ms is 0.047, 0.026, 0.030 mm off the Kirchhoff rod's at 20, 40,
 * 80 elements (0.123, 0.077, 0.055 mm while the springs acted on the joint
 * angles); at 2 ms generalized-alpha's numerical damping on the stiff
 * torsion joints makes the error grow with the elements (0.385, 0.414,
 * 0.485 mm at rho_inf 0.9; 0.380, 0.394, 0.388 mm at rho_inf 1). */
START_TEST(tip_body_rfem_converges_to_kirchhoff) {
  rod_scenario sc;
  rod_with_body(&sc, 0, 0.02);
  sc.tip.offset[1] = 0; /* in the bending plane */
  sc.space.nodes = 100;
  sc.tip.preload[2] = -0.2;
  sc.time.dt = 5e-4;
  sc.time.duration = 0.3;
  rod_states *ref = simulate(&sc, false);
  double e[2];
  for (int k = 0; k < 2; k++) {
    rod_scenario rf = sc;
    rf.solver.backend = ROD_BACKEND_RFEM;
    rf.rfem.layout = ROD_LAYOUT_CENTERED;
    rf.rfem.planar = false; /* the offset leaves the plane */
    rf.rfem.segments = 20 << k;
    rod_states *r = simulate(&rf, false);
    ck_assert_int_eq(r->count, ref->count);
    double acc = 0;
    for (int i = 0; i < r->count; i++) {
      const double *a = point_pos(r, i, r->points - 1);
      const double *b = point_pos(ref, i, ref->points - 1);
      for (int c = 0; c < 3; c++)
        acc += (a[c] - b[c]) * (a[c] - b[c]);
    }
    e[k] = sqrt(acc / r->count);
    states_free(r);
  }
  const double p = log2(e[0] / e[1]);
  ck_assert_msg(fabs(p - 2) < 0.2, "order %.3f (%.3g, %.3g m rms)", p, e[0],
                e[1]);
  states_free(ref);
}
END_TEST

/* A body offset across the bending plane (tip.offset y = -0.01 m) twists
 * the rod at rest; the static tip of the 3D chain converges to the
 * Kirchhoff rod's (400 nodes, within 1e-11 m of 200) at second order in
 * the elements. The chain's springs act on each element's rotation vector
 * to second order (rfem_joints.c); on the joint angles themselves the
 * twist times the bend gave a first-order error across the plane
 * (measured: y off by 1.0e-4, 5.0e-5, 2.5e-5 m at 10, 20, 40 elements,
 * now 4.7e-7, 6.7e-8, 1.0e-8 m; x 2.5e-6, 6.7e-7, 2.1e-7 m, now 2.2e-6,
 * 5.1e-7, 1.2e-7 m). */
START_TEST(tip_body_twist_converges_at_second_order) {
  rod_scenario sc;
  rod_with_body(&sc, 0, 0.02);
  sc.solver.tolerance = 1e-12;
  sc.space.nodes = 400;
  rod_states *ref = simulate(&sc, true);
  const double *pk = point_pos(ref, 0, ref->points - 1);
  ck_assert(fabs(pk[1]) > 5e-4); /* the twist moves the tip across */
  double e[3][3];
  for (int k = 0; k < 3; k++) {
    rod_scenario rf = sc;
    rf.solver.backend = ROD_BACKEND_RFEM;
    rf.rfem.planar = false;
    rf.rfem.segments = 10 << k;
    rod_states *r = simulate(&rf, true);
    for (int c = 0; c < 3; c++)
      e[k][c] = fabs(point_pos(r, 0, r->points - 1)[c] - pk[c]);
    states_free(r);
  }
  for (int k = 0; k < 2; k++) {
    const double px = log2(e[k][0] / e[k + 1][0]);
    const double py = log2(e[k][1] / e[k + 1][1]);
    ck_assert_msg(fabs(px - 2) < 0.3 && py > 1.8,
                  "order x %.3f, y %.3f (y off %.3g, %.3g m)", px, py, e[k][1],
                  e[k + 1][1]);
  }
  states_free(ref);
}
END_TEST

/* The 3D chain carrying a body off its axis under generalized-alpha: at 2
 * ms on 80 elements the numerical damping on the torsion joints moves the
 * swing with the element count (docs/numerics.md), and the time warnings
 * say so once, naming time.dt and a step that is not warned about; none
 * at that step, with rfem.spectral_radius = 1, on the planar chain, under
 * rk45, with the body on the axis, or on the Kirchhoff rod. */
static int torsion_warnings(const rod_scenario *sc, double *advice) {
  rod_warning w[8];
  const int n = rod_scenario_warnings(sc, ROD_WARN_TIME, w, 8);
  int found = 0;
  for (int i = 0; i < n; i++) {
    const char *use = strstr(w[i].message, "use time.dt = ");
    if (!strstr(w[i].message, "torsion joints"))
      continue;
    ck_assert_str_eq(w[i].key, "time.dt");
    ck_assert(strstr(w[i].message, "rfem.spectral_radius = 1") != NULL);
    ck_assert(use != NULL);
    *advice = strtod(use + strlen("use time.dt = "), NULL);
    found++;
  }
  return found;
}

START_TEST(tip_body_torsion_damping_warns) {
  rod_scenario sc;
  rod_with_body(&sc, 1, 0.02);
  sc.rfem.segments = 80;
  sc.time.dt = 2e-3;
  double advice = 0;
  ck_assert_int_eq(torsion_warnings(&sc, &advice), 1);
  ck_assert_msg(advice > 1e-3 && advice < 1.4e-3, "advice %g s", advice);
  rod_scenario ok[6];
  for (int k = 0; k < 6; k++)
    ok[k] = sc;
  ok[0].time.dt = advice;
  ok[1].rfem.spectral_radius = 1.0;
  ok[2].rfem.planar = true;
  ok[3].rfem.integrator = ROD_RFEM_RK45;
  v3_set(ok[4].tip.offset, 0, 0, 0.05);
  ok[5].solver.backend = ROD_BACKEND_KIRCHHOFF;
  for (int k = 0; k < 6; k++) {
    rod_error err;
    ck_assert_int_eq(rod_scenario_validate(&ok[k], &err), ROD_OK);
    ck_assert_msg(torsion_warnings(&ok[k], &advice) == 0, "case %d warns", k);
  }
}
END_TEST

/* A column carrying an attached body whose centre sits c above its end:
 * the weight acts at the end of a rigid arm, so the end's turn theta adds
 * the moment P c theta and the column buckles at kL tan(kL) = L / c (k^2 =
 * P / EI; Euler's pi / 2 as c -> 0): at c = L / 2, kL = 1.0768739863, 47 %
 * of Euler's load. The conjugate-point test must see the body's weight
 * turn with the end: at 0.9 of that load the straight column is stable,
 * at 1.1 (still below Euler's) it is not, and the static state found bends
 * (a dead tip force of the same weight would leave it straight). The
 * rod's own weight is made negligible (1e-7 of the body's). */
START_TEST(tip_body_column_buckles_at_its_arm_load) {
  double bl = 1.0, lo = 0.5, hi = 1.5; /* kL tan kL = 2 */
  for (int i = 0; i < 100; i++) {
    bl = 0.5 * (lo + hi);
    if (bl * tan(bl) < 2.0)
      lo = bl;
    else
      hi = bl;
  }
  for (int above = 0; above < 2; above++) {
    rod_scenario sc;
    straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
    v3_set(sc.base.direction, 0, 0, 1);
    sc.environment.gravity[2] = -9.81;
    sc.rod.density = 1e-3;
    const double L = sc.rod.length, EI = bending_stiffness(&sc);
    const double P = (above ? 1.1 : 0.9) * bl * bl * EI / (L * L);
    ck_assert(P < M_PI * M_PI / 4 * EI / (L * L));
    sc.tip.release = false;
    sc.tip.mass = P / 9.81;
    v3_set(sc.tip.offset, 0, 0, L / 2);
    rod_states *r = simulate(&sc, true);
    const double *tip = point_pos(r, 0, r->points - 1);
    const double side = hypot(tip[0], tip[1]);
    if (above)
      ck_assert_msg(side > 0.05 * L, "the column stayed straight (%g m)", side);
    else
      ck_assert_msg(side < 1e-9 * L, "the column bent by %g m", side);
    states_free(r);
  }
}
END_TEST

static Suite *tip_body_suite(void) {
  Suite *s = suite_create("tip_body");
  TCase *tc = tcase_create("tip_body");
  tcase_add_test(tc, tip_body_weight_is_its_end_loads);
  tcase_add_test(tc, tip_body_jacobian);
  tcase_add_test(tc, tip_body_energy_conserved);
  tcase_add_test(tc, tip_body_column_buckles_at_its_arm_load);
  tcase_add_test(tc, tip_body_rfem_converges_to_kirchhoff);
  tcase_add_test(tc, tip_body_twist_converges_at_second_order);
  tcase_add_test(tc, tip_body_torsion_damping_warns);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tip_body_suite)
