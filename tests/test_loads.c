/* The loads room (core/loads.h, kirchhoff/rod_loads.h,
 * kirchhoff/kirchhoff_loads.h), each load against a known answer: loads
 * in time (ramps, tables, the drive), [load.NAME] at the tip and inside the
 * rod, a force table against [impulse], the point loads' list and their
 * place on the Kirchhoff grid (a table's values on its node), the weight
 * rhoA g and the drag laws at a given velocity through the right-hand side
 * (the chain's exact drag integrals, the density's derivative), the weight
 * carried to the clamp and the point forces' jumps in n in the static
 * state, the loads' planar symmetry, their resultant and scaling along a
 * static loading path. */
#include <string.h>

#include "core/loads.h"
#include "core/model.h"
#include "core/v3.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "kirchhoff/rod_rhs.h"
#include "physicsutil.h"
#include "rfem/rfem_loads.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- loads in time ------------------------------------------------------- */

/* rod_load_values: a constant with a ramp (zero before start, linear to
 * full), a table (times from start, linear, zero outside), the drive's
 * value when one is set. */
START_TEST(load_values_in_time) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.force=2 0 -4", &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.moment=0 1 0", &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.start=0.1", &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.ramp=0.2", &err), ROD_OK);
  double F[3], M[3];
  const double t[4] = {0.05, 0.1, 0.2, 0.5}, f[4] = {0, 0, 0.5, 1};
  for (int i = 0; i < 4; i++) {
    rod_load_values(&sc, NULL, NULL, 0, t[i], F, M);
    ROD_ASSERT_NEAR(F[0], 2 * f[i], 1e-15);
    ROD_ASSERT_NEAR(F[2], -4 * f[i], 1e-15);
    ROD_ASSERT_NEAR(M[1], f[i], 1e-15);
  }
  /* a step when ramp = 0: full at start */
  sc.loads.item[0].ramp = 0;
  rod_load_values(&sc, NULL, NULL, 0, 0.1, F, M);
  ck_assert(F[0] == 2 && M[1] == 1);
  /* a table, times from start */
  char dir[256], path[600];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  rod_test_write(dir, "f.csv", "t,Fy\n0,0\n0.1,3\n0.3,-1\n");
  snprintf(path, sizeof path, "load.a.force_file=%s/f.csv", dir);
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.force=0 0 0", &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_set(&sc, path, &err), ROD_OK);
  rod_inputs *in;
  ck_assert_int_eq(rod_inputs_load(&sc, &in, &err), ROD_OK);
  rod_test_rmdir(dir);
  const double tt[5] = {0.05, 0.15, 0.3, 0.39, 0.41};
  const double fy[5] = {0, 1.5, 1, -0.8, 0};
  for (int i = 0; i < 5; i++) {
    rod_load_values(&sc, in, NULL, 0, tt[i], F, M);
    ROD_ASSERT_NEAR(F[1], fy[i], 1e-14);
    ck_assert(F[0] == 0 && F[2] == 0);
  }
  rod_drive d;
  rod_drive_clear(&d);
  d.load[0] = true;
  v3_set(d.load_force[0], 7, 8, 9);
  rod_load_values(&sc, in, &d, 0, 0.15, F, M);
  ck_assert(F[0] == 7 && F[2] == 9 && M[1] == 0);
  rod_inputs_free(in);
}
END_TEST

/* A constant [load.NAME] at the tip is tip.force and tip.moment, bit for
 * bit, on both backends. */
START_TEST(tip_load_section_is_tip_force) {
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    rod_error err;
    straight_rod(&sc, b ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF);
    sc.environment.gravity[2] = -9.81;
    sc.time.duration = 0.04;
    rod_scenario with = sc;
    ck_assert_int_eq(
        rod_scenario_set(&with, "load.grip.force=0.1 0 -0.2", &err), ROD_OK);
    ck_assert_int_eq(
        rod_scenario_set(&with, "load.grip.moment=0 0.01 0.002", &err), ROD_OK);
    v3_set(sc.tip.force, 0.1, 0, -0.2);
    v3_set(sc.tip.moment, 0, 0.01, 0.002);
    rod_states *a = simulate(&sc, false), *c = simulate(&with, false);
    ck_assert_int_eq(a->count, c->count);
    for (size_t j = 0; j < (size_t)a->count * a->points * 3; j++)
      ck_assert_msg(a->pos[j] == c->pos[j],
                    "backend %d sample %zu: %.17g %.17g", b,
                    j / (3 * a->points), a->pos[j], c->pos[j]);
    states_free(a);
    states_free(c);
  }
}
END_TEST

/* A point moment M at s_p = 0.3 L: a node sits exactly there, the rod
 * bends into an arc of curvature M / EI up to s_p and runs straight
 * beyond, along the arc's tangent (the arc's tolerances of
 * arc_by_tip_moment; RFEM: the couple on the element holding s_p, whose
 * joints after it carry no moment). */
START_TEST(point_moment_bends_up_to_its_node) {
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    rod_error err;
    straight_rod(&sc, b ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF);
    const double L = sc.rod.length, sp = 0.3 * L;
    const double kappa = 1.0 / L, M = kappa * bending_stiffness(&sc);
    char set[128];
    snprintf(set, sizeof set, "load.m.position=%.17g", sp);
    ck_assert_int_eq(rod_scenario_set(&sc, set, &err), ROD_OK);
    snprintf(set, sizeof set, "load.m.moment=0 %.17g 0", M);
    ck_assert_int_eq(rod_scenario_set(&sc, set, &err), ROD_OK);
    rod_states *r = simulate(&sc, true);
    const double l = L / sc.rfem.segments;
    const double tol =
        b ? l * l * kappa / 4 + kappa * l * l : 10 * sc.solver.tolerance * L;
    bool node_there = false;
    const double th = kappa * sp; /* turn at s_p, about +y: x towards -z */
    for (int j = 0; j < r->points; j++) {
      const double s = r->s[j], *p = point_pos(r, 0, j);
      node_there = node_there || s == sp;
      double x, z;
      if (s <= sp) {
        x = sin(kappa * s) / kappa;
        z = -(1 - cos(kappa * s)) / kappa;
      } else {
        x = sin(th) / kappa + (s - sp) * cos(th);
        z = -(1 - cos(th)) / kappa - (s - sp) * sin(th);
      }
      ROD_ASSERT_NEAR(p[0], x, tol);
      ROD_ASSERT_NEAR(p[2], z, tol);
    }
    ck_assert(b || node_there);
    states_free(r);
  }
}
END_TEST

/* A force table equal to the hat of [impulse] (three rows) reproduces the
 * impulse run: the same node, the same force to rounding, so the runs
 * differ by what the solver's tolerance leaves open (steps x L x
 * tolerance; measured far below). */
START_TEST(tabulated_force_reproduces_impulse) {
  char dir[256], text[256], set[600];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    rod_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/impulse.ini",
             getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
    rod_scenario_default(&sc);
    ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
    sc.time.duration = 0.1;
    sc.solver.backend = b ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF;
    sc.rfem.segments = 20;
    rod_scenario tab = sc;
    tab.impulse.enabled = false;
    const double d = sc.impulse.duration, P = sc.impulse.peak;
    snprintf(text, sizeof text, "t,Fz\n0,0\n%.17g,%.17g\n%.17g,0\n", d / 2, P,
             d);
    rod_test_write(dir, "hat.csv", text);
    snprintf(set, sizeof set, "load.hat.force_file=%s/hat.csv", dir);
    ck_assert_int_eq(rod_scenario_set(&tab, set, &err), ROD_OK);
    snprintf(set, sizeof set, "load.hat.position=%.17g", sc.impulse.position);
    ck_assert_int_eq(rod_scenario_set(&tab, set, &err), ROD_OK);
    snprintf(set, sizeof set, "load.hat.start=%.17g", sc.impulse.start);
    ck_assert_int_eq(rod_scenario_set(&tab, set, &err), ROD_OK);
    rod_states *a = simulate(&sc, false), *c = simulate(&tab, false);
    ck_assert_int_eq(a->count, c->count);
    ck_assert_int_eq(a->points, c->points);
    const double bound =
        rod_sim_step_count(&sc) * sc.rod.length * sc.solver.tolerance;
    double diff = 0;
    for (size_t j = 0; j < (size_t)a->count * a->points * 3; j++)
      diff = fmax(diff, fabs(a->pos[j] - c->pos[j]));
    ck_assert_msg(diff <= bound, "%s: %g m apart (bound %g)",
                  b ? "rfem" : "kirchhoff", diff, bound);
    states_free(a);
    states_free(c);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* ---- drag ---------------------------------------------------------------- */

/* RFEM's normal drag over an element, int |u| u dx and int x |u| u dx for
 * u = a + b x in the cross-section's plane: exact (the paper's split
 * Simpson rule) when u keeps one direction; else 5-point Gauss-Legendre on
 * each side of the smallest |u|, against a 4000-point midpoint sum (error
 * ~1e-9): over 20000 random elements the worst error was 3.6e-5 of int
 * |u|^2 dx; allowed 1e-4. */
START_TEST(normal_drag_integrals) {
  unsigned seed = 11;
  for (int t = 0; t < 400; t++) {
    double a[2], b[2], l = 0.04, i0[2], i1[2], r0[2] = {0}, r1[2] = {0};
    for (int c = 0; c < 2; c++) {
      seed = seed * 1103515245u + 12345u;
      a[c] = ((seed >> 8) & 0xffff) / 32768.0 - 1.0;
      seed = seed * 1103515245u + 12345u;
      b[c] = 50 * (((seed >> 8) & 0xffff) / 32768.0 - 1.0);
    }
    if (t % 4 == 0) /* one direction: exact */
      a[1] = b[1] = 0.0;
    rfem_normal_drag_integrals(a, b, l, i0, i1);
    const int N = 4000;
    double scale = 0;
    for (int k = 0; k < N; k++) {
      double x = (k + 0.5) * l / N, u0 = a[0] + b[0] * x, u1 = a[1] + b[1] * x;
      double n = sqrt(u0 * u0 + u1 * u1), w = l / N;
      r0[0] += w * n * u0;
      r0[1] += w * n * u1;
      r1[0] += w * x * n * u0;
      r1[1] += w * x * n * u1;
      scale += w * n * n;
    }
    if (t % 4 == 0) {
      double e0, e1;
      rfem_drag_integrals(a[0], b[0], l, &e0, &e1);
      ck_assert(i0[0] == e0 && i1[0] == e1 && i0[1] == 0 && i1[1] == 0);
    }
    for (int c = 0; c < 2; c++) {
      ROD_ASSERT_NEAR(i0[c], r0[c], 1e-4 * scale);
      ROD_ASSERT_NEAR(i1[c], r1[c], 1e-4 * scale * l);
    }
  }
}
END_TEST

/* Largest distance (m) of the tip from the plane through the clamp with
 * normal n over a run. */
static double out_of_plane(const rod_states *r, const double n[3]) {
  double d = 0;
  for (int i = 0; i < r->count; i++)
    d = fmax(d, fabs(v3_dot(point_pos(r, i, r->points - 1), n)));
  return d;
}

/* The weight release under gravity turned 30 degrees about the rod: the
 * motion plane holds the rod and g but neither material axis. */
static double skew_release(rod_backend_kind backend, rod_drag_kind drag,
                           double C) {
  rod_scenario sc;
  char path[1024];
  rod_error err;
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  const double phi = M_PI / 6, g = 9.81;
  v3_set(sc.environment.gravity, 0, -g * sin(phi), -g * cos(phi));
  sc.rod.drag_model = drag;
  sc.rod.drag = C;
  sc.solver.backend = backend;
  sc.rfem.segments = 20;
  sc.time.duration = 1.0;
  rod_states *r = simulate(&sc, false);
  const double n[3] = {0, cos(phi), -sin(phi)}; /* e_x x g / |g| */
  const double d = out_of_plane(r, n);
  states_free(r);
  return d;
}

/* Isotropic drag keeps the motion in its plane: the Kirchhoff rod within
 * what the solver's tolerance leaves open (steps x L x tolerance = 2e-6 m;
 * measured 3e-8 m), where the paper's per-component drag pushes it 3.8 mm
 * out of the plane. RFEM's Euler-angle joints couple the planes by
 * themselves (0.18 mm without drag): normal drag stays at that level, the
 * paper's adds 3.8 mm. */
START_TEST(normal_drag_keeps_the_plane) {
  const double C = 0.003556, L = 0.408, steps = 500, tol = 1e-8;
  const double paper = skew_release(ROD_BACKEND_KIRCHHOFF, ROD_DRAG_PAPER, C);
  const double normal = skew_release(ROD_BACKEND_KIRCHHOFF, ROD_DRAG_NORMAL, C);
  ck_assert_msg(paper > 1e-3, "paper drag: %g m out of the plane", paper);
  ck_assert_msg(normal < steps * L * tol, "normal drag: %g m", normal);
  const double chain = skew_release(ROD_BACKEND_RFEM, ROD_DRAG_NORMAL, 0.0);
  const double rfem_paper = skew_release(ROD_BACKEND_RFEM, ROD_DRAG_PAPER, C);
  const double rfem_normal = skew_release(ROD_BACKEND_RFEM, ROD_DRAG_NORMAL, C);
  ck_assert_msg(rfem_normal <= chain && rfem_paper > 10 * chain,
                "rfem: %g (no drag), %g (normal), %g (paper)", chain,
                rfem_normal, rfem_paper);
}
END_TEST

/* ---- the loads room ------------------------------------------------------ */

/* A straight rod 1 m long along +x (clamp at the origin) with tip.force,
 * [impulse] at 0.3 m and two [load.NAME]: p at 0.5 m and q at the tip. */
static void loaded_rod(rod_scenario *sc) {
  straight_rod(sc, ROD_BACKEND_KIRCHHOFF);
  sc->environment.gravity[2] = -9.81;
  rod_error err;
  const char *set[] = {"rod.length=1",           "tip.force=0.01 0 -0.02",
                       "tip.moment=0 0.003 0",   "impulse.peak=4",
                       "impulse.duration=0.02",  "impulse.start=0",
                       "impulse.position=0.3",   "impulse.direction=3 0 4",
                       "load.p.position=0.5",    "load.p.force=0 0 -0.5",
                       "load.p.moment=0 0.02 0", "load.q.position=tip",
                       "load.q.force=0.2 0 0",   "load.q.moment=0 -0.01 0"};
  for (size_t i = 0; i < sizeof set / sizeof *set; i++)
    ck_assert_msg(rod_scenario_set(sc, set[i], &err) == ROD_OK, "%s: %s",
                  set[i], err.message);
  ck_assert_msg(rod_scenario_validate(sc, &err) == ROD_OK, "%s: %s", err.key,
                err.message);
}

/* rod_point_loads: the tip loads first, then the impulse (its hat's value
 * along its unit direction: at t = 5 ms, half way up, 2 N), then each
 * [load.NAME] in order, each where it acts. */
START_TEST(point_loads_in_order) {
  rod_scenario sc;
  loaded_rod(&sc);
  rod_point_load pl[ROD_MAX_POINT_LOADS];
  const int n = rod_point_loads(&sc, NULL, NULL, 0.005, false, pl);
  ck_assert_int_eq(n, 4);
  ck_assert_int_eq(pl[0].source, ROD_POINT_TIP);
  ck_assert(pl[0].tip && pl[0].s == sc.rod.length);
  ck_assert(pl[0].force[0] == 0.01 && pl[0].force[2] == -0.02);
  ck_assert(pl[0].moment[1] == 0.003);
  ck_assert_int_eq(pl[1].source, ROD_POINT_IMPULSE);
  ck_assert(!pl[1].tip && pl[1].s == 0.3);
  ck_assert_double_eq_tol(pl[1].force[0], 2.0 * 0.6, 1e-15);
  ck_assert_double_eq_tol(pl[1].force[2], 2.0 * 0.8, 1e-15);
  ck_assert(pl[1].force[1] == 0 && v3_norm(pl[1].moment) == 0);
  ck_assert_int_eq(pl[2].source, 0);
  ck_assert(!pl[2].tip && pl[2].s == 0.5 && pl[2].force[2] == -0.5);
  ck_assert_int_eq(pl[3].source, 1);
  ck_assert(pl[3].tip && pl[3].s == sc.rod.length && pl[3].force[0] == 0.2);
  /* the static state adds tip.preload to the tip's */
  sc.tip.preload[2] = -1.0;
  rod_point_loads(&sc, NULL, NULL, 0.0, true, pl);
  ck_assert(pl[0].force[2] == -0.02 + -1.0);
  ck_assert(v3_norm(pl[1].force) == 0); /* the hat starts at zero */
}
END_TEST

/* On the Kirchhoff grid: a node at each point load's arclength, its force
 * and moment there, the tip's [load.NAME] added to the tip loads. */
START_TEST(point_loads_on_their_nodes) {
  rod_scenario sc;
  loaded_rod(&sc);
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_kirchhoff *k = self;
  kr_set_loads(k, 0.005, false);
  const rod_loads_nodes *ld = &k->loads;
  ck_assert_int_eq(ld->npoints, 2);
  ck_assert(k->s[ld->point_node[0]] == 0.3 && k->s[ld->point_node[1]] == 0.5);
  ck_assert_int_eq(ld->node_point[ld->point_node[1]], 1);
  ck_assert_int_eq(ld->next_point[0], ld->point_node[0]);
  ck_assert_double_eq_tol(ld->point_force[0][2], 1.6, 1e-15);
  ck_assert(ld->point_force[1][2] == -0.5 && ld->point_moment[1][1] == 0.02);
  ck_assert(ld->tip_force[0] == 0.01 + 0.2 &&
            ld->tip_moment[1] == 0.003 - 0.01);
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* The straight rigid rod's n(0) and m(0): the total load, F + P + w L, and
 * its moment about the clamp, d x (F L + P s_p + w L^2 / 2) + M, the
 * weight w = rhoA g per length, by hand. */
START_TEST(straight_rod_resultant) {
  rod_scenario sc;
  loaded_rod(&sc);
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_kirchhoff *k = self;
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.005, false);
  const double d[3] = {1, 0, 0}, L = sc.rod.length;
  double n0[3], m0[3], w[3], n[3] = {0}, arm[3] = {0}, m[3];
  v3_scale(w, k->model.rho_area, sc.environment.gravity);
  const double *P[3] = {k->loads.tip_force, k->loads.point_force[0],
                        k->loads.point_force[1]};
  const double at[3] = {L, 0.3, 0.5};
  for (int i = 0; i < 3; i++) {
    v3_axpy(n, 1.0, P[i]);
    v3_axpy(arm, at[i], P[i]);
  }
  v3_axpy(n, L, w);
  v3_axpy(arm, 0.5 * L * L, w);
  v3_cross(m, d, arm);
  v3_add(m, m, k->loads.tip_moment);
  v3_add(m, m, k->loads.point_moment[0]);
  v3_add(m, m, k->loads.point_moment[1]);
  kr_loads_straight(k, d, n0, m0);
  for (int i = 0; i < 3; i++) {
    ck_assert_double_eq_tol(n0[i], n[i], 1e-14 * v3_norm(n));
    ck_assert_double_eq_tol(m0[i], m[i], 1e-14 * v3_norm(m));
  }
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* A static loading path's scaling: every dead load times f, the weight's
 * share of n_s too, and back; their size. */
START_TEST(dead_loads_scale) {
  rod_scenario sc;
  loaded_rod(&sc);
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_kirchhoff *k = self;
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.005, false);
  kr_dead_loads full, half;
  kr_loads_dead(k, &full);
  kr_loads_scale(k, &full, 0.5);
  kr_loads_dead(k, &half);
  for (int i = 0; i < 3; i++) {
    ck_assert(half.tip_force[i] == 0.5 * full.tip_force[i]);
    ck_assert(half.tip_moment[i] == 0.5 * full.tip_moment[i]);
    ck_assert(half.ns_dead[i] == 0.5 * full.ns_dead[i]);
    for (int p = 0; p < 2; p++) {
      ck_assert(half.point_force[p][i] == 0.5 * full.point_force[p][i]);
      ck_assert(half.point_moment[p][i] == 0.5 * full.point_moment[p][i]);
    }
  }
  const double L = sc.rod.length;
  const double F = v3_norm(full.tip_force) + v3_norm(full.point_force[0]) +
                   v3_norm(full.point_force[1]) + v3_norm(full.ns_dead) * L;
  ck_assert_double_eq_tol(kr_loads_size(&full, L), F, 1e-15 * F);
  ck_assert_double_eq_tol(kr_loads_size(&half, L), 0.5 * F, 1e-15 * F);
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* The loads' planar symmetry: forces in the x-z plane and moments about y
 * are; a force along y, a moment about x or z at any load is not. */
START_TEST(planar_loads) {
  rod_scenario sc;
  loaded_rod(&sc);
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_kirchhoff *k = self;
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.005, false);
  ck_assert(kr_loads_planar(k));
  double *across[] = {&k->loads.tip_force[1], &k->loads.tip_moment[0],
                      &k->loads.point_force[1][1], &k->loads.point_moment[0][2],
                      &k->rc.loads.ns_dead[1]};
  for (size_t i = 0; i < sizeof across / sizeof *across; i++) {
    *across[i] = 1e-300;
    ck_assert_msg(!kr_loads_planar(k), "load %zu", i);
    *across[i] = 0;
  }
  ck_assert(kr_loads_planar(k));
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* The drag density's derivative along dq against central differences of
 * the density, both laws, at random velocities away from rest (where the
 * normal law's |q_perp| is smooth): the differences' error, (h |dq|)^2
 * times the third derivative, and their rounding, eps / h, are both below
 * 1e-8 of the derivative's scale. */
START_TEST(drag_tangent_is_its_derivative) {
  unsigned seed = 11;
  rod_loads_const L = {{0}, {0.004, 0.004, 0.001}, 0, {0}};
  for (int trial = 0; trial < 200; trial++) {
    const bool normal = trial % 2;
    double q[3], dq[3], qp_[3], qm[3];
    for (int i = 0; i < 3; i++) {
      q[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
      dq[i] = 2.0 * rand_r(&seed) / RAND_MAX - 1.0;
      q[i] += q[i] < 0 ? -0.1 : 0.1;
    }
    const double h = 1e-5;
    for (int i = 0; i < 3; i++) {
      qp_[i] = q[i] + h * dq[i];
      qm[i] = q[i] - h * dq[i];
    }
    const double speed = sqrt(q[0] * q[0] + q[1] * q[1]);
    const double qdq = (q[0] * dq[0] + q[1] * dq[1]) / speed;
    const double sp = sqrt(qp_[0] * qp_[0] + qp_[1] * qp_[1]);
    const double sm = sqrt(qm[0] * qm[0] + qm[1] * qm[1]);
    for (int i = 0; i < 3; i++) {
      const double fd = (rod_loads_drag(&L, qp_, sp, i, normal) -
                         rod_loads_drag(&L, qm, sm, i, normal)) /
                        (2.0 * h);
      const double an =
          rod_loads_drag_tangent(&L, q, speed, qdq, dq, i, normal);
      const double scale = L.drag[i] * v3_norm(q) * v3_norm(dq);
      ck_assert_msg(fabs(fd - an) < 1e-8 * scale,
                    "trial %d, %d: %.17g against %.17g", trial, i, an, fd);
    }
  }
}
END_TEST

/* The right-hand side's n_s at the state y with the loads L, c0 = 0 and no
 * history (statics, or a step whose inertia is left out): R D(q) + ns_dead
 * (rod_rhs.h). */
static void rhs_ns(const rod_loads_const *L, const double *y, double ns[3]) {
  rod_rhs_const c;
  memset(&c, 0, sizeof c);
  c.loads = *L;
  rod_hist_point hp;
  memset(&hp, 0, sizeof hp);
  rod_rhs_point pt = {{0}, NULL, NULL, NULL};
  rod_rhs_work wk;
  double f[ROD_NY];
  rod_rhs_eval(&c, &hp, &pt, y, f, &wk, true);
  v3_copy(ns, f + ROD_Y_N);
}

/* A state at the quaternion h with the local velocity q, n = m = w = 0. */
static void state_at(double *y, const double h[4], const double q[3]) {
  memset(y, 0, ROD_NY * sizeof *y);
  memcpy(y + ROD_Y_H, h, 4 * sizeof *h);
  v3_copy(y + ROD_Y_Q, q);
}

/* Gravity's distributed weight: ns_dead = -rhoA g with rhoA = rho pi (d^2
 * - d_i^2) / 4 of the rod's own keys (a tube), by hand; the right-hand
 * side's n_s of a turned cross-section at rest is it, whatever the turn. */
START_TEST(weight_is_rho_area_g) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  v3_set(sc.environment.gravity, 1.5, -2.0, -9.81);
  sc.rod.inner_diameter = 0.5 * sc.rod.diameter;
  rod_model m;
  rod_model_init(&m, &sc);
  rod_loads_const L;
  kr_loads_distributed(&m, &L);
  const double d = sc.rod.diameter, di = sc.rod.inner_diameter;
  const double rhoA = sc.rod.density * M_PI * (d * d - di * di) / 4.0;
  double y[ROD_NY], ns[3], h[4];
  const double axis[3] = {0.3, -0.5, 0.8}, rest[3] = {0, 0, 0};
  quat_axis_angle(h, axis, 0.7);
  state_at(y, h, rest);
  rhs_ns(&L, y, ns);
  for (int i = 0; i < 3; i++) {
    const double w = rhoA * sc.environment.gravity[i];
    ck_assert_double_eq_tol(L.ns_dead[i], -w, 4e-16 * fabs(w));
    ck_assert(L.gravity[i] == sc.environment.gravity[i]);
    ck_assert(ns[i] == L.ns_dead[i]);
  }
}
END_TEST

/* The clamped rod under its weight alone, static state: n(s) = rhoA g (L -
 * s) along the whole rod, whatever its deflection, to the shooting's
 * tolerance on n(L) (solver.tolerance EI / L^2, docs/scenario.md) and the
 * rounding of the sweep's sums (nodes x eps x rhoA g L). */
START_TEST(weight_carried_to_the_clamp) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  sc.environment.gravity[2] = -9.81;
  rod_model m;
  rod_model_init(&m, &sc);
  rod_states *r = simulate(&sc, true);
  const double L = sc.rod.length, w = m.rho_area * 9.81;
  const double tol =
      sc.solver.tolerance * m.K[0] / (L * L) + sc.space.nodes * 2.2e-16 * w * L;
  for (int j = 0; j < r->points; j++) {
    const double *n = r->force + 3 * j;
    ROD_ASSERT_NEAR(n[0], 0.0, tol);
    ROD_ASSERT_NEAR(n[1], 0.0, tol);
    ROD_ASSERT_NEAR(n[2], -w * (L - r->s[j]), tol);
  }
  states_free(r);
}
END_TEST

/* Drag at a given velocity q = (0.3, -0.4, 2) m/s (local), rod.drag C =
 * 0.004 and rod.drag_tangential C_t = 0.001 kg/m^2: the paper's law C q_i
 * |q_i| = (0.00036, -0.00064, 0.016) N/m, the normal law C q_i |q_perp|
 * across (|q_perp| = 0.5: 0.0006, -0.0008) and C_t q_3 |q_3| = 0.004
 * along; the right-hand side's n_s is R D(q) plus the weight (c0 = 0, w =
 * 0: no inertia). */
START_TEST(drag_at_a_velocity) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  sc.environment.gravity[2] = -9.81;
  sc.rod.drag = 0.004;
  sc.rod.drag_tangential = 0.001;
  const double q[3] = {0.3, -0.4, 2.0};
  const double paper[3] = {0.004 * 0.3 * 0.3, -0.004 * 0.4 * 0.4, 0.004 * 4};
  const double across[3] = {0.004 * 0.3 * 0.5, -0.004 * 0.4 * 0.5, 0.001 * 4};
  double h[4], R[9], y[ROD_NY], ns[3], D[3], RD[3];
  const double axis[3] = {-0.2, 0.9, 0.4};
  quat_axis_angle(h, axis, 1.1);
  quat_to_R(R, h);
  state_at(y, h, q);
  for (int normal = 0; normal < 2; normal++) {
    sc.rod.drag_model = normal ? ROD_DRAG_NORMAL : ROD_DRAG_PAPER;
    rod_model m;
    rod_model_init(&m, &sc);
    rod_loads_const L;
    kr_loads_distributed(&m, &L);
    ck_assert_int_eq(L.drag_normal, normal);
    const double *want = normal ? across : paper;
    for (int i = 0; i < 3; i++) {
      D[i] = rod_loads_drag(&L, q, 0.5, i, normal);
      ck_assert_double_eq_tol(D[i], want[i], 4e-16 * fabs(want[i]));
    }
    m3_mul_v(RD, R, D);
    rhs_ns(&L, y, ns);
    for (int i = 0; i < 3; i++)
      ck_assert_double_eq_tol(ns[i], RD[i] + L.ns_dead[i],
                              1e-15 * (v3_norm(D) + v3_norm(L.ns_dead)));
  }
}
END_TEST

/* A [load.NAME] from a table inside the rod (s = 0.4 m, times from start
 * = 0.02 s) on its Kirchhoff node: the force and moment interpolated
 * linearly between the rows at each time, zero before the first row and
 * after the last. */
START_TEST(table_load_on_its_node) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  char dir[256], set[600];
  rod_test_dir(dir, sizeof dir, "rodsim_loads");
  rod_test_write(dir, "f.csv", "t,Fx,Fy,Fz\n0,0,0,0\n0.1,1,0,-3\n0.3,0,0,1\n");
  rod_test_write(dir, "m.csv", "t,Mx,My,Mz\n0,0,0.2,0\n0.2,0,-0.2,0\n");
  rod_error err;
  const char *keys[] = {"load.a.position=0.4", "load.a.start=0.02",
                        "load.a.force_file=%s/f.csv",
                        "load.a.moment_file=%s/m.csv"};
  for (int i = 0; i < 4; i++) {
    snprintf(set, sizeof set, keys[i], dir);
    ck_assert_msg(rod_scenario_set(&sc, set, &err) == ROD_OK, "%s: %s", set,
                  err.message);
  }
  void *self;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_test_rmdir(dir);
  rod_kirchhoff *k = self;
  const rod_loads_nodes *ld = &k->loads;
  ck_assert_int_eq(ld->npoints, 1);
  ck_assert(k->s[ld->point_node[0]] == 0.4);
  /* times, and the force (x, z) and moment (y) the rows give there */
  const double t[6] = {0.01, 0.02, 0.07, 0.17, 0.27, 0.35};
  const double fx[6] = {0, 0, 0.5, 0.75, 0.25, 0};
  const double fz[6] = {0, 0, -1.5, -2, 0, 0};
  const double my[6] = {0, 0.2, 0.1, -0.1, 0, 0};
  for (int i = 0; i < 6; i++) {
    kr_set_loads(k, t[i], false);
    const double *F = ld->point_force[0], *M = ld->point_moment[0];
    ROD_ASSERT_NEAR(F[0], fx[i], 1e-15);
    ROD_ASSERT_NEAR(F[2], fz[i], 1e-15);
    ROD_ASSERT_NEAR(M[1], my[i], 1e-15);
    ck_assert(F[1] == 0 && M[0] == 0 && M[2] == 0);
    ck_assert(v3_norm(ld->tip_force) == 0 && v3_norm(ld->tip_moment) == 0);
  }
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* Point loads make n jump: the clamped rod without weight, static state,
 * tip force F and a point force P at 0.3 m and Q at 0.6 m: n = F + P + Q
 * before 0.3, F + Q between, F beyond, on every node off the loads' own
 * (n is constant between them, whatever the deflection), to the
 * shooting's tolerance on n(L) (solver.tolerance EI / L^2). */
START_TEST(point_forces_jump_the_internal_force) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  rod_error err;
  const char *set[] = {"rod.length=1",          "tip.force=0.2 0 -0.1",
                       "load.p.position=0.3",   "load.p.force=0 0.05 -0.3",
                       "load.q.position=0.6",   "load.q.force=-0.4 0 0.2",
                       "load.q.moment=0 0.01 0"};
  for (size_t i = 0; i < sizeof set / sizeof *set; i++)
    ck_assert_msg(rod_scenario_set(&sc, set[i], &err) == ROD_OK, "%s: %s",
                  set[i], err.message);
  rod_model m;
  rod_model_init(&m, &sc);
  rod_states *r = simulate(&sc, true);
  const double F[3] = {0.2, 0, -0.1}, P[3] = {0, 0.05, -0.3};
  const double Q[3] = {-0.4, 0, 0.2}, L = sc.rod.length;
  const double tol = sc.solver.tolerance * m.K[0] / (L * L) + 1e-15;
  int seen[3] = {0, 0, 0};
  for (int j = 0; j < r->points; j++) {
    const double s = r->s[j], *n = r->force + 3 * j;
    if (s == 0.3 || s == 0.6)
      continue;
    const int part = s < 0.3 ? 0 : s < 0.6 ? 1 : 2;
    seen[part]++;
    for (int i = 0; i < 3; i++) {
      const double want =
          F[i] + (part < 2 ? Q[i] : 0.0) + (part < 1 ? P[i] : 0.0);
      ROD_ASSERT_NEAR(n[i], want, tol);
    }
  }
  ck_assert(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
  states_free(r);
}
END_TEST

static Suite *loads_suite(void) {
  Suite *s = suite_create("loads");
  TCase *tc = tcase_create("in_time");
  tcase_add_test(tc, load_values_in_time);
  tcase_add_test(tc, tip_load_section_is_tip_force);
  tcase_add_test(tc, point_moment_bends_up_to_its_node);
  tcase_add_test(tc, tabulated_force_reproduces_impulse);
  suite_add_tcase(s, tc);
  tc = tcase_create("drag");
  tcase_add_test(tc, normal_drag_integrals);
  tcase_add_test(tc, normal_drag_keeps_the_plane);
  suite_add_tcase(s, tc);
  tc = tcase_create("room");
  tcase_add_test(tc, point_loads_in_order);
  tcase_add_test(tc, point_loads_on_their_nodes);
  tcase_add_test(tc, straight_rod_resultant);
  tcase_add_test(tc, dead_loads_scale);
  tcase_add_test(tc, planar_loads);
  tcase_add_test(tc, drag_tangent_is_its_derivative);
  tcase_add_test(tc, weight_is_rho_area_g);
  tcase_add_test(tc, weight_carried_to_the_clamp);
  tcase_add_test(tc, drag_at_a_velocity);
  tcase_add_test(tc, table_load_on_its_node);
  tcase_add_test(tc, point_forces_jump_the_internal_force);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(loads_suite)
