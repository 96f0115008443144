/* Geometry of real rods against closed forms, on both backends where they
 * apply: a tip torque's twist T L / (G J), a tip moment's circular arc of
 * curvature M / EI, precurved rods that keep their arc and helix and a ring
 * that closes, hollow sections, the shear coefficient; precurvature from a
 * file and its errors. The loads (test_loads.c), the attached tip body
 * (test_tip_body.c) and the clamp's motion (test_base_motion.c) have their
 * own suites. */
#include <string.h>

#include "core/model.h"
#include "core/v3.h"
#include "physicsutil.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- twist and bending by a tip moment ---------------------------------- */

/* A torque T about the rod's axis twists it uniformly: phi = T L / (G J).
 * The equations of the twist are linear with constant u3 = T / GJ, which
 * RK4 integrates to round-off; the tolerance is the solver's: a moment
 * residual r EI/L leaves phi off by r EI / GJ. RFEM's torsion joints
 * (stiffness GJ / l in series) give the same phi exactly. */
static void check_twist(rod_backend_kind backend, double d_inner) {
  rod_scenario sc;
  straight_rod(&sc, backend);
  sc.rod.inner_diameter = d_inner;
  const double GJ = torsion_stiffness(&sc), L = sc.rod.length;
  const double phi = 0.8, T = phi * GJ / L;
  sc.tip.moment[0] = T;
  rod_states *r = simulate(&sc, true);
  const int tip = r->points - 1;
  const double got = quat_angle(point_quat(r, 0, tip), point_quat(r, 0, 0));
  const double tol = 10 * sc.solver.tolerance * bending_stiffness(&sc) / GJ;
  ROD_ASSERT_NEAR(got, phi, tol);
  /* the centreline stays straight */
  ROD_ASSERT_NEAR(point_pos(r, 0, tip)[0], L, 1e-12);
  ROD_ASSERT_NEAR(point_pos(r, 0, tip)[1], 0.0, 1e-12);
  ROD_ASSERT_NEAR(point_pos(r, 0, tip)[2], 0.0, 1e-12);
  states_free(r);
}

START_TEST(twist_by_tip_torque) {
  check_twist(ROD_BACKEND_KIRCHHOFF, 0.0);
  check_twist(ROD_BACKEND_RFEM, 0.0);
  /* a tube: J = pi (d^4 - d_i^4) / 32 */
  check_twist(ROD_BACKEND_KIRCHHOFF, 1.0e-3);
  check_twist(ROD_BACKEND_RFEM, 1.0e-3);
}
END_TEST

/* A bending moment M at the tip bends the rod into a circular arc of
 * curvature M / EI (here 1 rad over the length, about y and about a
 * skew axis). Kirchhoff: every node on the circle to the solver's
 * tolerance (a moment residual r EI / L moves the tip by about r L; RK4
 * is exact to round-off for constant curvature at k h = 0.02, whose
 * truncation (k h)^5 / 120 per interval sums to 1e-12 L). RFEM: every
 * joint turns by k l exactly, so the joints lie on a polygon whose half
 * elements at the ends shift it off the arc by about the sagitta of an
 * element, l^2 k / 8 (measured: 1.0 sagitta at 40 elements, second
 * order); allowed: two. */
static void check_arc(rod_backend_kind backend, const double axis[3]) {
  rod_scenario sc;
  straight_rod(&sc, backend);
  const double EI = bending_stiffness(&sc), L = sc.rod.length;
  const double kappa = 1.0 / L;
  double a[3];
  v3_copy(a, axis);
  v3_normalize(a);
  v3_scale(sc.tip.moment, kappa * EI, a);
  rod_states *r = simulate(&sc, true);
  /* the circle: centre c = (1/kappa) (a x e_x)^-1 ... in the plane normal
   * to a through the clamp, the tangent e_x turning about a */
  double n[3], ex[3] = {1, 0, 0}, c[3];
  v3_cross(n, a, ex); /* towards the centre */
  v3_scale(c, 1.0 / kappa, n);
  const double l = L / sc.rfem.segments;
  const double tol = backend == ROD_BACKEND_KIRCHHOFF
                         ? 10 * sc.solver.tolerance * L
                         : l * l * kappa / 4;
  for (int j = 0; j < r->points; j++) {
    const double *p = point_pos(r, 0, j);
    double d[3];
    v3_sub(d, p, c);
    ROD_ASSERT_NEAR(v3_norm(d), 1.0 / kappa, tol);
    ROD_ASSERT_NEAR(v3_dot(p, a), 0.0, tol); /* in the plane */
  }
  /* the tip at arclength L along the circle */
  if (backend == ROD_BACKEND_KIRCHHOFF) {
    const double *p = point_pos(r, 0, r->points - 1);
    ROD_ASSERT_NEAR(v3_dot(p, ex), sin(kappa * L) / kappa, tol);
    ROD_ASSERT_NEAR(v3_dot(p, n), (1 - cos(kappa * L)) / kappa, tol);
  }
  states_free(r);
}

START_TEST(arc_by_tip_moment) {
  const double y[3] = {0, 1, 0}, skew[3] = {0, 0.6, -0.8};
  check_arc(ROD_BACKEND_KIRCHHOFF, y);
  check_arc(ROD_BACKEND_KIRCHHOFF, skew);
  check_arc(ROD_BACKEND_RFEM, y);
  check_arc(ROD_BACKEND_RFEM, skew);
}
END_TEST

/* ---- precurvature ------------------------------------------------------- */

/* The unloaded shape of a rod of constant precurvature u*: R(s) = R(0)
 * exp(s [u*]x), p(s) = R(0) int_0^s exp(t [u*]x) e3 dt, in closed form with
 * the unit axis w = u* / |u*| and k = |u*|:
 *   e3 sin(k s)/k + (w x e3)(1 - cos(k s))/k + w (w.e3)(s - sin(k s)/k). */
static void precurved_point(const rod_scenario *sc, double s, double p[3]) {
  rod_model m;
  rod_model_init(&m, sc);
  const double *u = sc->rod.precurvature, k = v3_norm(u);
  double w[3], e3[3] = {0, 0, 1}, wxe[3], local[3];
  v3_scale(w, 1.0 / k, u);
  v3_cross(wxe, w, e3);
  for (int i = 0; i < 3; i++)
    local[i] = e3[i] * sin(k * s) / k + wxe[i] * (1 - cos(k * s)) / k +
               w[i] * w[2] * (s - sin(k * s) / k);
  m3_mul_v(p, m.base_R, local);
  v3_add(p, p, sc->base.position);
}

/* RK4's truncation for a constant rotation rate: (k h)^5 / 120 per interval
 * of the frame, (k h)^4 L / 120 on positions over the rod (the quadrature
 * of p_s errs less); as a tolerance, that with the solver's r L. */
static double rk4_arc_tolerance(const rod_scenario *sc) {
  const double k = v3_norm(sc->rod.precurvature), L = sc->rod.length;
  const double kh = k * L / (sc->space.nodes - 1);
  return kh * kh * kh * kh * L / 120 + 10 * sc->solver.tolerance * L;
}

/* With no load the precurved shape is the equilibrium: the static state is
 * it (every node on the closed form) and the dynamics keep it exactly (the
 * rest state is a fixed point of the step). */
static void check_precurved_rest(const double u[3], double nodes) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  sc.space.nodes = nodes;
  v3_copy(sc.rod.precurvature, u);
  sc.time.duration = 0.02;
  rod_states *r = simulate(&sc, false);
  const double tol = rk4_arc_tolerance(&sc);
  for (int j = 0; j < r->points; j++) {
    double p[3];
    precurved_point(&sc, r->s[j], p);
    for (int c = 0; c < 3; c++)
      ROD_ASSERT_NEAR(point_pos(r, 0, j)[c], p[c], tol);
  }
  for (int i = 1; i < r->count; i++) {
    for (int j = 0; j < 3 * r->points; j++)
      ck_assert(r->pos[(size_t)i * r->points * 3 + j] == r->pos[j]);
    ck_assert(r->kinetic[i] == 0.0);
  }
  states_free(r);
}

START_TEST(precurved_rod_keeps_its_shape) {
  const double L = 0.408;
  const double arc[3] = {0, 3.0 / L, 0}, helix[3] = {1.0 / L, -2.0 / L, 4 / L};
  check_precurved_rest(arc, 50);
  check_precurved_rest(helix, 100);
}
END_TEST

/* RFEM: the springs' rest angles turn each element by the integral of u*
 * between the bodies' centres, so the unloaded chain's joints lie on the
 * precurved shape within about a sagitta l^2 |u*| / 8 of an element (the
 * half elements at the ends shift the polygon; measured 1.0 sagitta on the
 * arc, second order in l); allowed: two. The chain rests there. */
static void check_precurved_rfem(const double u[3], bool planar) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_RFEM);
  v3_copy(sc.rod.precurvature, u);
  sc.rfem.planar = planar;
  sc.time.duration = 0.02;
  rod_states *r = simulate(&sc, false);
  const double l = sc.rod.length / sc.rfem.segments;
  const double tol = l * l * v3_norm(u) / 4;
  for (int j = 0; j < r->points; j++) {
    double p[3];
    precurved_point(&sc, r->s[j], p);
    for (int c = 0; c < 3; c++)
      ROD_ASSERT_NEAR(point_pos(r, 0, j)[c], p[c], tol);
  }
  const int last = r->count - 1;
  for (int j = 0; j < 3 * r->points; j++)
    ROD_ASSERT_NEAR(r->pos[(size_t)last * r->points * 3 + j], r->pos[j], 1e-12);
  states_free(r);
}

START_TEST(precurved_chain_keeps_its_shape) {
  const double L = 0.408;
  const double arc[3] = {0, 3.0 / L, 0}, helix[3] = {1.0 / L, -2.0 / L, 4 / L};
  check_precurved_rfem(arc, false);
  check_precurved_rfem(arc, true);
  check_precurved_rfem(helix, false);
  /* a planar chain cannot hold a helix: refused with one line */
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_RFEM);
  v3_copy(sc.rod.precurvature, helix);
  sc.rfem.planar = true;
  void *self;
  rod_error err;
  ck_assert_int_eq(rod_backend_rfem.create(&sc, &self, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "rfem.planar");
}
END_TEST

/* u* = 2 pi / L closes the rod into a ring: the tip at the clamp with the
 * clamp's tangent, to RK4's truncation on 100 nodes (k h = 0.063: 2.2e-8
 * m) and the solver's tolerance. */
START_TEST(ring_closes) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  sc.space.nodes = 100;
  const double L = sc.rod.length;
  sc.rod.precurvature[1] = 2 * M_PI / L;
  rod_states *r = simulate(&sc, true);
  const double tol = rk4_arc_tolerance(&sc);
  const double *tip = point_pos(r, 0, r->points - 1);
  for (int c = 0; c < 3; c++)
    ROD_ASSERT_NEAR(tip[c], sc.base.position[c], tol);
  ck_assert(quat_angle(point_quat(r, 0, r->points - 1), point_quat(r, 0, 0)) <
            tol / L);
  states_free(r);
}
END_TEST

/* ---- precurvature from a file ------------------------------------------- */

/* The clothoid: u*_2 rising linearly from 0 to 2 k over the rod (a file of
 * two rows) turns the tangent by theta(s) = k s^2 / L in the x-z plane. The
 * reference shape by Simpson's rule on 20000 intervals (error ~1e-17 L).
 * Kirchhoff: RK4 meets u* exactly at its stages (a linear table), so the
 * arc's bound (k h)^4 L / 120 holds with k the largest curvature; RFEM:
 * two sagittas l^2 k / 4. A table of a constant equals rod.precurvature
 * bit for bit. */
static void clothoid_point(double k, double L, double s, double p[2]) {
  const int n = 20000;
  double h = s / n, x = 0, z = 0;
  for (int i = 0; i <= n; i++) {
    double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    double th = k * (i * h) * (i * h) / L;
    x += w * cos(th);
    z += w * sin(th);
  }
  p[0] = x * h / 3;
  p[1] = z * h / 3;
}

START_TEST(precurvature_from_a_file) {
  char dir[256], text[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  const double L = 0.408, k = 2.0 / L;
  snprintf(text, sizeof text, "# a clothoid\ns,u2\n0,0\n%.17g,%.17g\n", L,
           2 * k);
  rod_test_write(dir, "clothoid.csv", text);
  snprintf(text, sizeof text, "s,u1,u2,u3\n0,0,%.17g,0\n%.17g,0,%.17g,0\n", k,
           L, k);
  rod_test_write(dir, "constant.csv", text);
  for (int b = 0; b < 2; b++) {
    rod_scenario sc;
    straight_rod(&sc, b ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF);
    snprintf(sc.rod.precurvature_file, sizeof sc.rod.precurvature_file,
             "%s/clothoid.csv", dir);
    rod_states *r = simulate(&sc, true);
    const double h = L / (sc.space.nodes - 1), l = L / sc.rfem.segments;
    const double tol =
        b ? l * l * 2 * k / 4
          : pow(2 * k * h, 4) * L / 120 + 10 * sc.solver.tolerance * L;
    for (int j = 0; j < r->points; j++) {
      double p[2];
      clothoid_point(k, L, r->s[j], p);
      /* u*_2 > 0 turns e3 = x towards -z (material frame d1 = -z) */
      ROD_ASSERT_NEAR(point_pos(r, 0, j)[0], p[0], tol);
      ROD_ASSERT_NEAR(fabs(point_pos(r, 0, j)[2]), p[1], tol);
      ROD_ASSERT_NEAR(point_pos(r, 0, j)[1], 0.0, 1e-15);
    }
    states_free(r);
    /* a constant table is rod.precurvature */
    snprintf(sc.rod.precurvature_file, sizeof sc.rod.precurvature_file,
             "%s/constant.csv", dir);
    r = simulate(&sc, true);
    rod_scenario key = sc;
    key.rod.precurvature_file[0] = '\0';
    key.rod.precurvature[1] = k;
    rod_states *q = simulate(&key, true);
    for (int j = 0; j < 3 * r->points; j++)
      ck_assert(r->pos[j] == q->pos[j]);
    states_free(r);
    states_free(q);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* A data file's problems are the scenario key's: one line with the file,
 * the line and what is wrong. */
START_TEST(data_file_errors) {
  char dir[256], path[600];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  rod_test_write(dir, "short.csv", "s,u1\n0,1\n0.2,1\n");
  rod_test_write(dir, "back.csv", "s,u2\n0,1\n0.3,1\n0.2,1\n0.5,0\n");
  const struct {
    const char *file, *what;
  } cases[] = {
      {"short.csv", "s must cover [0, rod.length = 0.408] (got 0 to 0.2)"},
      {"back.csv", "back.csv: line 4: s = 0.2 is not after the previous "
                   "sample's s = 0.3"},
      {"none.csv", "none.csv: cannot open"},
  };
  for (int i = 0; i < 3; i++) {
    rod_scenario sc;
    straight_rod(&sc, i % 2 ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF);
    snprintf(sc.source, sizeof sc.source, "s.ini");
    snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
    snprintf(sc.rod.precurvature_file, sizeof sc.rod.precurvature_file, "%s",
             path);
    rod_sim *sim = NULL;
    rod_error err;
    ck_assert_int_ne(rod_sim_create(&sc, &sim, &err), ROD_OK);
    char line[1024];
    rod_error_format(&err, line, sizeof line);
    ck_assert_msg(strstr(line, "s.ini: rod.precurvature_file: ") == line &&
                      strstr(line, cases[i].what),
                  "'%s' lacks '%s'", line, cases[i].what);
  }
  rod_test_rmdir(dir);
}
END_TEST

static Suite *physics_suite(void) {
  Suite *s = suite_create("physics");
  TCase *tc = tcase_create("moments");
  tcase_add_test(tc, twist_by_tip_torque);
  tcase_add_test(tc, arc_by_tip_moment);
  suite_add_tcase(s, tc);
  tc = tcase_create("precurvature");
  tcase_add_test(tc, precurved_rod_keeps_its_shape);
  tcase_add_test(tc, ring_closes);
  tcase_add_test(tc, precurved_chain_keeps_its_shape);
  tcase_add_test(tc, precurvature_from_a_file);
  tcase_add_test(tc, data_file_errors);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(physics_suite)
