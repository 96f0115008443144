/* Loads and geometry of real rods against closed forms, on both backends
 * where they apply: a tip torque's twist T L / (G J), a tip moment's
 * circular arc of curvature M / EI, precurved rods that keep their arc and
 * helix and a ring that closes, hollow sections, the shear coefficient. */
#include <string.h>

#include "core/loads.h"
#include "core/model.h"
#include "core/v3.h"
#include "integrators/bdf.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "rfem/rfem_loads.h"
#include "rod/recorder.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- a sink that keeps the whole rod of every sample -------------------- */

enum { MAXPTS = 512, MAXSAMPLES = 4096 };

typedef struct {
  int count, points;
  double t[MAXSAMPLES];
  double s[MAXPTS];
  double *pos;                                  /* samples x points x 3 */
  double *quat;                                 /* samples x points x 4 */
  double *vel;                                  /* samples x points x 3 */
  double moment[MAXPTS * 3], force[MAXPTS * 3]; /* of the last sample */
  double kinetic[MAXSAMPLES];
} rod_states;

static int keep_sample(void *user, double t, const rod_sample *s,
                       const rod_step_stats *st, double wall) {
  (void)st;
  (void)wall;
  rod_states *r = user;
  ck_assert_int_le(s->points, MAXPTS);
  ck_assert_int_lt(r->count, MAXSAMPLES);
  const int i = r->count++, n = s->points;
  r->points = n;
  r->t[i] = t;
  memcpy(r->s, s->s, (size_t)n * sizeof(double));
  memcpy(r->pos + (size_t)i * n * 3, s->position, (size_t)n * 3 * 8);
  memcpy(r->quat + (size_t)i * n * 4, s->orientation, (size_t)n * 4 * 8);
  memcpy(r->vel + (size_t)i * n * 3, s->velocity, (size_t)n * 3 * 8);
  if (s->force)
    memcpy(r->force, s->force, (size_t)n * 3 * 8);
  if (s->moment)
    memcpy(r->moment, s->moment, (size_t)n * 3 * 8);
  r->kinetic[i] = s->kinetic;
  return 0;
}

static rod_states *states_alloc(int samples) {
  rod_states *r = calloc(1, sizeof *r);
  r->pos = calloc((size_t)samples * MAXPTS * 3, sizeof(double));
  r->quat = calloc((size_t)samples * MAXPTS * 4, sizeof(double));
  r->vel = calloc((size_t)samples * MAXPTS * 3, sizeof(double));
  return r;
}

static void states_free(rod_states *r) {
  free(r->pos);
  free(r->quat);
  free(r->vel);
  free(r);
}

/* Run sc (static only: the t = 0 sample) and keep every sample. */
static rod_states *simulate(const rod_scenario *sc, bool static_only) {
  rod_error err;
  ck_assert_msg(rod_scenario_validate(sc, &err) == ROD_OK, "%s: %s", err.key,
                err.message);
  int samples = static_only ? 1 : rod_sim_step_count(sc) + 2;
  rod_states *r = states_alloc(samples);
  rod_sim_sink sink = {.sample = keep_sample, .user = r};
  rod_sim_result res;
  int st = rod_sim_run(sc, &sink, static_only, &res, &err);
  ck_assert_msg(st == ROD_OK, "run failed: %s", res.message);
  return r;
}

static const double *point_pos(const rod_states *r, int sample, int j) {
  return r->pos + ((size_t)sample * r->points + j) * 3;
}
static const double *point_quat(const rod_states *r, int sample, int j) {
  return r->quat + ((size_t)sample * r->points + j) * 4;
}

/* A steel rod along +x without gravity: the scenario of these tests. */
static void straight_rod(rod_scenario *sc, rod_backend_kind backend) {
  rod_scenario_default(sc);
  sc->environment.gravity[2] = 0.0;
  sc->solver.backend = backend;
  sc->solver.tolerance = 1e-10;
  sc->space.nodes = 50;
  sc->rfem.segments = 40;
}

static double bending_stiffness(const rod_scenario *sc) {
  return rod_model_bending_stiffness(sc);
}

static double torsion_stiffness(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return m.K[2];
}

/* Rotation angle (rad) between two unit quaternions. */
static double quat_angle(const double *a, const double *b) {
  double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2.0 * acos(fmin(1.0, d));
}

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
 * twists the rod: on the weight release the chain's out-of-plane swing
 * under generalized-alpha at 2 ms then changes with the elements (tip y up
 * to 1.9, 3.3, 1.3 mm at 20, 40, 80) where the Kirchhoff rod's converges
 * in time (1.2 mm); under rk45 the chain follows the Kirchhoff rod (the
 * stiff torsion joints, not the body). */
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

/* ---- the clamp moved along a table (base.motion_file) ------------------- */

/* A sink that keeps the clamp's and the tip's position, their
 * orientations and the force at the clamp of every sample. */
typedef struct {
  int count;
  double t[MAXSAMPLES], base[MAXSAMPLES][3], tip[MAXSAMPLES][3];
  double hb[MAXSAMPLES][4], ht[MAXSAMPLES][4], n0[MAXSAMPLES][3];
  double m0[MAXSAMPLES][3];
} ends;

static int keep_ends(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  (void)st;
  (void)wall;
  ends *e = user;
  ck_assert_int_lt(e->count, MAXSAMPLES);
  const int i = e->count++, last = s->points - 1;
  e->t[i] = t;
  memcpy(e->base[i], s->position, 3 * sizeof(double));
  memcpy(e->tip[i], s->position + 3 * last, 3 * sizeof(double));
  memcpy(e->hb[i], s->orientation, 4 * sizeof(double));
  memcpy(e->ht[i], s->orientation + 4 * last, 4 * sizeof(double));
  memcpy(e->n0[i], s->force, 3 * sizeof(double));
  memcpy(e->m0[i], s->moment, 3 * sizeof(double));
  return 0;
}

static ends *run_ends(const rod_scenario *sc) {
  rod_error err;
  ck_assert_msg(rod_scenario_validate(sc, &err) == ROD_OK, "%s: %s", err.key,
                err.message);
  ends *e = calloc(1, sizeof *e);
  rod_sim_sink sink = {.sample = keep_ends, .user = e};
  rod_sim_result res;
  ck_assert_msg(rod_sim_run(sc, &sink, false, &res, &err) == ROD_OK,
                "run failed: %s", res.message);
  return e;
}

/* Write a motion table of rows (t, x, y, z, rx, ry, rz) and point sc at
 * it. */
static void motion_table(rod_scenario *sc, const char *dir, const char *name,
                         int rows, double (*row)[7]) {
  size_t size = 64 + (size_t)rows * 7 * 26;
  char *text = malloc(size), path[600];
  int len = snprintf(text, size, "t,x,y,z,rx,ry,rz\n");
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < 7; c++)
      len += snprintf(text + len, size - (size_t)len, "%.17g%c", row[i][c],
                      c < 6 ? ',' : '\n');
  rod_test_write(dir, name, text);
  free(text);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(sc->base.motion_file, sizeof sc->base.motion_file, "%s", path);
}

/* A straight rod moved along its axis while the clamp spins about it: the
 * inextensible rod without rotary inertia moves as a rigid body (every
 * point turned as the clamp, the tip L ahead of it), and the clamp pushes
 * the rod's mass: n(0) = -rhoA L a, a the acceleration that the scheme
 * makes of the table's velocity v (BDF: a_i = c0 v_i + c1 v_(i-1) + c2
 * v_(i-2) + d1 a_(i-1), backward Euler at the first step). Both to the
 * solver's tolerance. */
START_TEST(base_motion_rigid) {
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  sc.time.alpha = -0.48;
  sc.time.dt = 1e-3;
  sc.time.duration = 0.1;
  sc.space.nodes = 30;
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  enum { ROWS = 61 };
  double tab[ROWS][7] = {{0}};
  for (int i = 0; i < ROWS; i++) {
    const double t = 0.002 * i, c = 1 - cos(2 * M_PI * t / 0.1);
    tab[i][0] = t;
    tab[i][1] = 2e-3 * c; /* along the rod (+x) */
    tab[i][4] = 0.3 * c;  /* turning about it */
  }
  motion_table(&sc, dir, "axial.csv", ROWS, tab);
  rod_inputs *in;
  rod_error err;
  ck_assert_int_eq(rod_inputs_load(&sc, &in, &err), ROD_OK);
  ends *e = run_ends(&sc);
  rod_test_rmdir(dir);
  rod_model m;
  rod_model_init(&m, &sc);
  const double L = sc.rod.length, tol = sc.solver.tolerance;
  const double fscale = m.K[0] / (L * L);
  double v1 = 0, v2 = 0, a1 = 0; /* the table's velocity, the scheme's a */
  for (int i = 1; i < e->count; i++) {
    const double t = e->t[i];
    double x[3], v[3];
    rod_base_table(in, t, x, v, NULL, NULL, NULL, NULL);
    rod_bdf_coeffs c = i == 1 ? rod_bdf_backward_euler(sc.time.dt)
                              : rod_bdf_alpha(sc.time.alpha, sc.time.dt);
    const double a = c.c0 * v[0] + c.c1 * v1 + c.c2 * v2 + c.d1 * a1;
    v2 = v1;
    v1 = v[0];
    a1 = a;
    ROD_ASSERT_NEAR(e->base[i][0], x[0], 1e-15);
    ROD_ASSERT_NEAR(e->tip[i][0] - e->base[i][0], L, tol * L);
    ROD_ASSERT_NEAR(e->tip[i][1], 0.0, tol * L);
    ROD_ASSERT_NEAR(e->tip[i][2], 0.0, tol * L);
    for (int c = 0; c < 4; c++) /* unit, w >= 0 */
      ROD_ASSERT_NEAR(e->ht[i][c], e->hb[i][c], 10 * tol);
    ROD_ASSERT_NEAR(e->n0[i][0], -m.rho_area * L * a, 10 * tol * fscale);
  }
  /* and the clamp did turn and push */
  ck_assert(quat_angle(e->hb[e->count / 2], e->hb[0]) > 0.5);
  rod_inputs_free(in);
  free(e);
}
END_TEST

/* The straight rod under gravity turned by the motor's cosine ramp about
 * y (0.5 rad from 20 ms over 200 ms), for 0.25 s at steps of 0.5 ms. */
static void motor_ramp_rod(rod_scenario *sc, int nodes) {
  straight_rod(sc, ROD_BACKEND_KIRCHHOFF);
  sc->environment.gravity[2] = -9.81;
  sc->motor.enabled = true;
  v3_set(sc->motor.axis, 0, 1, 0);
  sc->motor.angle = 0.5;
  sc->motor.start = 0.02;
  sc->motor.ramp = 0.2;
  sc->time.dt = 5e-4;
  sc->time.duration = 0.25;
  sc->space.nodes = nodes;
}

/* The motor's ramp as a table (rows every h) on a rod under gravity. */
static void motor_ramp_table(rod_scenario *sc, const rod_scenario *motor,
                             const char *dir, double h, double t0) {
  const int rows = (int)lround((motor->time.duration + 0.05 - t0) / h) + 1;
  double(*tab)[7] = calloc((size_t)rows, sizeof *tab);
  for (int i = 0; i < rows; i++) {
    double angle, rate;
    tab[i][0] = t0 + h * i;
    rod_motor_reference(motor, tab[i][0], &angle, &rate);
    tab[i][5] = angle; /* about y */
  }
  *sc = *motor;
  sc->motor.enabled = false;
  motion_table(sc, dir, "turn.csv", rows, tab);
  free(tab);
}

static double tip_distance(const ends *a, const ends *b) {
  ck_assert_int_eq(a->count, b->count);
  double d = 0;
  for (int i = 0; i < a->count; i++)
    for (int c = 0; c < 3; c++)
      d = fmax(d, fabs(a->tip[i][c] - b->tip[i][c]));
  return d;
}

/* The largest excursion (m) of the tip from its first sample. */
static double tip_swing(const ends *e) {
  double swing = 0;
  for (int i = 0; i < e->count; i++)
    for (int c = 0; c < 3; c++)
      swing = fmax(swing, fabs(e->tip[i][c] - e->tip[0][c]));
  return swing;
}

/* The run of sc (its motor on) against the same motion as tables of rows
 * every 10 and 5 ms: O(h^2) or better, below 1e-4 of the swing at 5 ms. */
static void check_table_follows_the_motor(const rod_scenario *sc,
                                          const ends *motor, double swing) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  double d[2];
  for (int k = 0; k < 2; k++) {
    rod_scenario tb;
    motor_ramp_table(&tb, sc, dir, 0.01 / (1 << k), 0);
    ends *e = run_ends(&tb);
    d[k] = tip_distance(e, motor);
    free(e);
  }
  rod_test_rmdir(dir);
  ck_assert_msg(d[0] / d[1] > 3 && d[1] < 1e-4 * swing,
                "tips %.3g m and %.3g m apart (swing %.3g m)", d[0], d[1],
                swing);
}

/* The clamp turned by the motor's cosine ramp, and by a table of the same
 * motion (rotation vector angle x axis) sampled every h: cubic splines
 * round the ramp's corners (its acceleration jumps), so the runs differ
 * by O(h^2), far below the time step's own error in each. Halving h
 * divides the difference by more than 3 (observed about 5), at a time
 * step (0.5 ms) whose error is below the finer table's. */
START_TEST(base_motion_table_follows_the_motor) {
  rod_scenario sc;
  motor_ramp_rod(&sc, 40);
  ends *ref = run_ends(&sc);
  check_table_follows_the_motor(&sc, ref, tip_swing(ref));
  free(ref);
}
END_TEST

/* The angular acceleration of a rotation vector r(t): rod_rotation_accel
 * against central differences of rod_rotation_rate along r(t) = r0 + r1 t
 * + r2 t^2 / 2, at angles from 1e-3 (the series) to 2.5 rad. The
 * difference's error is w''' h^2 / 6 with h = 1e-4 s: below 1e-8 here. */
START_TEST(rotation_acceleration) {
  const double scale[4] = {1e-3, 0.02, 1.0, 2.5};
  for (int k = 0; k < 4; k++) {
    double r0[3] = {0.3, -0.5, 0.8}, r1[3] = {0.7, 0.2, -0.4};
    const double r2[3] = {-0.6, 0.9, 0.3};
    v3_scale(r0, scale[k] / v3_norm(r0), r0);
    v3_scale(r1, scale[k] / v3_norm(r1), r1);
    const double h = 1e-4;
    double w[2][3], wt[3];
    for (int s = 0; s < 2; s++) {
      const double t = s ? h : -h;
      double r[3], rt[3];
      for (int c = 0; c < 3; c++) {
        r[c] = r0[c] + r1[c] * t + 0.5 * r2[c] * t * t;
        rt[c] = r1[c] + r2[c] * t;
      }
      rod_rotation_rate(r, rt, w[s]);
    }
    rod_rotation_accel(r0, r1, r2, wt);
    for (int c = 0; c < 3; c++)
      ROD_ASSERT_NEAR(wt[c], (w[1][c] - w[0][c]) / (2 * h), 1e-8);
  }
}
END_TEST

/* The RFEM chain moved along its axis while the clamp spins about it: the
 * planar chain (no torsion joint) moves as a rigid body, its joints at rest
 * to Newton's tolerance, and the clamp's force and moment are the whole
 * rod's: n(0) = -rhoA L a and m(0) = -I w_t about the axis (I = rhoA L (d^2
 * + d_i^2) / 8, the cylinders' polar inertia), with a and w_t the table's
 * spline acceleration that enters the articulated-body pass as the root's
 * prescribed motion: the generalized-alpha step integrates no clamp
 * motion of its own, so both hold to round-off (peaks 0.0377 N and
 * 1.78e-6 N m). On the 3D chain the push alone (no spin: the torsion
 * joints would carry the spin's torque) moves it rigidly too. */
START_TEST(base_motion_rigid_rfem) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  enum { ROWS = 61 };
  for (int planar = 1; planar >= 0; planar--) {
    rod_scenario sc;
    straight_rod(&sc, ROD_BACKEND_RFEM);
    sc.rfem.planar = planar;
    sc.rfem.layout = planar ? ROD_LAYOUT_CENTERED : ROD_LAYOUT_UNIFORM;
    sc.rfem.segments = 20;
    sc.rod.inner_diameter = 0.5 * sc.rod.diameter;
    sc.time.dt = 1e-3;
    sc.time.duration = 0.1;
    double tab[ROWS][7] = {{0}};
    for (int i = 0; i < ROWS; i++) {
      const double t = 0.002 * i, c = 1 - cos(2 * M_PI * t / 0.1);
      tab[i][0] = t;
      tab[i][1] = 2e-3 * c;             /* along the rod (+x) */
      tab[i][4] = planar ? 0.3 * c : 0; /* turning about it */
    }
    motion_table(&sc, dir, "axial.csv", ROWS, tab);
    rod_inputs *in;
    rod_error err;
    ck_assert_int_eq(rod_inputs_load(&sc, &in, &err), ROD_OK);
    ends *e = run_ends(&sc);
    rod_model m;
    rod_model_init(&m, &sc);
    const double L = sc.rod.length, tol = sc.solver.tolerance;
    const double d = sc.rod.diameter, di = sc.rod.inner_diameter;
    const double mass = m.rho_area * L, I = mass * (d * d + di * di) / 8;
    double fpeak = 0, mpeak = 0;
    for (int i = 1; i < e->count; i++) {
      double x[3], a[3], r[3], r_t[3], r_tt[3], wt[3];
      rod_base_table(in, e->t[i], x, NULL, a, r, r_t, r_tt);
      rod_rotation_accel(r, r_t, r_tt, wt);
      ROD_ASSERT_NEAR(e->base[i][0], x[0], 1e-15);
      ROD_ASSERT_NEAR(e->tip[i][0] - e->base[i][0], L, tol * L);
      ROD_ASSERT_NEAR(e->tip[i][1], 0.0, tol * L);
      ROD_ASSERT_NEAR(e->tip[i][2], 0.0, tol * L);
      for (int c = 0; c < 4; c++)
        ROD_ASSERT_NEAR(e->ht[i][c], e->hb[i][c], 10 * tol);
      ROD_ASSERT_NEAR(e->n0[i][0], -mass * a[0], 1e-12 * mass * 1.0);
      ROD_ASSERT_NEAR(e->m0[i][0], -I * wt[0], 1e-12 * I * 1.0);
      fpeak = fmax(fpeak, fabs(e->n0[i][0]));
      mpeak = fmax(mpeak, fabs(e->m0[i][0]));
    }
    /* and the clamp did push (and turn) */
    ck_assert(fpeak > 0.5 * mass * 2e-3 * pow(2 * M_PI / 0.1, 2));
    if (planar)
      ck_assert(quat_angle(e->hb[e->count / 2], e->hb[0]) > 0.5 &&
                mpeak > 0.5 * I * 0.3 * pow(2 * M_PI / 0.1, 2));
    rod_inputs_free(in);
    free(e);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* The motor's cosine ramp as a table on the RFEM chain (centered layout,
 * planar, under gravity: a 0.22 m swing), two checks. Against the chain
 * driven by its prescribed motor joint: the table sampled every 10 and 5
 * ms differs by O(h^2) or better (its splines round the ramp's corners;
 * measured 1.88e-4 and 1.07e-5 m, 1.25e-6 m at 2.5 ms). Against the
 * Kirchhoff rod moved by the same table (2.5 ms rows, 100 nodes): the
 * chain's tip converges at second order in the elements (measured 1.32e-4
 * and 3.37e-5 m max at 20 and 40 elements, order 1.97), both at a step of
 * 0.5 ms. */
START_TEST(base_motion_table_rfem) {
  rod_scenario sc;
  motor_ramp_rod(&sc, 100);
  sc.rfem.layout = ROD_LAYOUT_CENTERED;
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  rod_scenario tb;
  motor_ramp_table(&tb, &sc, dir, 0.0025, 0);
  ends *ref = run_ends(&tb);
  double e[2];
  for (int k = 0; k < 2; k++) {
    tb.solver.backend = ROD_BACKEND_RFEM;
    tb.rfem.segments = 20 << k;
    ends *r = run_ends(&tb);
    e[k] = tip_distance(r, ref);
    free(r);
  }
  rod_test_rmdir(dir);
  const double p = log2(e[0] / e[1]);
  ck_assert_msg(fabs(p - 2) < 0.2, "order %.3f (%.3g, %.3g m)", p, e[0], e[1]);
  rod_scenario rm = sc;
  rm.solver.backend = ROD_BACKEND_RFEM;
  rm.rfem.segments = 20;
  ends *motor = run_ends(&rm);
  check_table_follows_the_motor(&rm, motor, tip_swing(ref));
  free(motor);
  free(ref);
}
END_TEST

/* The RFEM chain's clamp set between steps (rod_sim_set_base) to the
 * clamp of table_sc's base.motion_file at each step's end (pose, velocity,
 * angular velocity): the largest distance (m) of its tip from the run of
 * the table itself, e. */
static double drive_against_table(const rod_scenario *table_sc, const ends *e) {
  rod_scenario sc = *table_sc;
  rod_error err;
  rod_inputs *in;
  ck_assert_int_eq(rod_inputs_load(&sc, &in, &err), ROD_OK);
  sc.base.motion_file[0] = '\0';
  rod_sim *sim;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  rod_model m;
  rod_model_init(&m, &sc);
  const int n = rod_sim_points(sim);
  double *pos = malloc(3 * (size_t)n * sizeof(double)), d = 0;
  for (int i = 1; i < e->count; i++) {
    double p[3], h[4], ql[3], wl[3], R[9], v[3], w[3];
    rod_base_state(&sc, &m, NULL, in, e->t[i], p, h, ql, wl);
    quat_to_R(R, h);
    m3_mul_v(v, R, ql);
    m3_mul_v(w, R, wl);
    ck_assert_int_eq(rod_sim_set_base(sim, p, h, v, w), ROD_OK);
    ck_assert_msg(rod_sim_step(sim) == ROD_OK, "%s", rod_sim_error(sim));
    ROD_ASSERT_NEAR(rod_sim_time(sim), e->t[i], 1e-12);
    rod_sim_get_positions(sim, pos);
    for (int c = 0; c < 3; c++)
      d = fmax(d, fabs(pos[3 * (n - 1) + c] - e->tip[i][c]));
  }
  free(pos);
  rod_sim_free(sim);
  rod_inputs_free(in);
  return d;
}

/* The RFEM chain's clamp set between steps moves over each step along the
 * cubic Hermite interpolation of the ends' positions and velocities (its
 * turn: of the rotation vector from the step's start). Two checks against
 * the chain moved by a table (splines, rows every 10 ms, still until 0.2
 * s so the spline is still at t = 0 too). A turn about a fixed axis (the
 * motor's ramp, planar chain): each step lies within one spline piece, a
 * cubic that the Hermite motion reproduces exactly, so the runs agree to
 * round-off (measured 3.7e-14 m; asserted: the solver's tolerance times
 * L). Translation and a turn about a moving axis (3D chain, 0.31 m
 * swing): the Hermite rotation vector is not the table's, its
 * acceleration differs by O(dt^2) at the step's end, which
 * generalized-alpha sees (measured 3.58e-6 and 9.0e-7 m at 2 and 1 ms,
 * order 1.99; 2.3e-7 at 0.5 ms). */
START_TEST(base_drive_follows_the_table_rfem) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  rod_scenario sc, tb;
  motor_ramp_rod(&sc, 100);
  sc.solver.backend = ROD_BACKEND_RFEM;
  sc.rfem.segments = 20;
  sc.time.dt = 2e-3;
  sc.motor.start = 0.2;
  sc.time.duration = 0.45;
  motor_ramp_table(&tb, &sc, dir, 0.01, -0.5);
  ends *e = run_ends(&tb);
  double d = drive_against_table(&tb, e);
  ck_assert_msg(d < sc.solver.tolerance * sc.rod.length, "%.3g m apart", d);
  free(e);
  double dk[2], swing = 0;
  for (int k = 0; k < 2; k++) {
    straight_rod(&sc, ROD_BACKEND_RFEM);
    sc.environment.gravity[2] = -9.81;
    sc.rfem.planar = false;
    sc.rfem.segments = 20;
    sc.time.dt = 2e-3 / (1 << k);
    sc.time.duration = 0.45;
    enum { ROWS = 101 };
    double tab[ROWS][7] = {{0}};
    for (int i = 0; i < ROWS; i++) {
      const double t = -0.5 + 0.01 * i, s = t > 0.2 ? t - 0.2 : 0;
      const double c[4] = {1 - cos(4 * M_PI * s), 1 - cos(6 * M_PI * s),
                           1 - cos(8 * M_PI * s), 1 - cos(10 * M_PI * s)};
      tab[i][0] = t;
      tab[i][1] = 0.02 * c[2];
      tab[i][3] = 0.01 * c[1];
      v3_set(tab[i] + 4, 0.3 * c[1], 0.4 * c[0], 0.2 * c[3]);
    }
    motion_table(&sc, dir, "turns.csv", ROWS, tab);
    e = run_ends(&sc);
    dk[k] = drive_against_table(&sc, e);
    swing = tip_swing(e);
    free(e);
  }
  rod_test_rmdir(dir);
  const double p = log2(dk[0] / dk[1]);
  ck_assert_msg(fabs(p - 2) < 0.2 && dk[1] < 1e-5 * swing,
                "order %.3f (%.3g, %.3g m; swing %.3g m)", p, dk[0], dk[1],
                swing);
}
END_TEST

/* The clamp of a table set turning at once (rate W from t = 0, the table
 * held before): an impulse through the clamp, which the chain takes
 * keeping its free joints' generalized momentum (rfem_base_jump), so its
 * distal links lag. Cross-checked by an independent route: the same turn
 * reached by a short ramp of the rate over eps (rows every eps / 20), the
 * chain's dynamics integrated through it (rk45). The runs differ by O(eps)
 * (the ramp's lag W eps / 2 and its finite duration): halving eps halves
 * the tip's distance from the impulsive run (measured 1.18e-3, 5.98e-4,
 * 3.04e-4 m at eps 2, 1, 0.5 ms, after 10 ms); a chain turned rigidly
 * with the clamp instead (joint rates kept through the jump) stays 25 mm
 * away at every eps. */
START_TEST(base_motion_jump_is_an_impulse_rfem) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "rodsim_physics");
  rod_scenario sc;
  straight_rod(&sc, ROD_BACKEND_RFEM);
  sc.rfem.segments = 20;
  sc.rfem.integrator = ROD_RFEM_RK45;
  sc.rfem.rtol = 1e-9;
  sc.time.dt = 1e-3;
  sc.time.duration = 0.05;
  const double W = 2.0;
  enum { ROWS = 200 };
  double tab[ROWS][7] = {{0}};
  for (int i = 0; i < 21; i++) {
    tab[i][0] = 0.005 * i;
    tab[i][5] = W * tab[i][0];
  }
  motion_table(&sc, dir, "jump.csv", 21, tab);
  ends *jump = run_ends(&sc);
  double d[3];
  for (int k = 0; k < 3; k++) {
    const double eps = 2e-3 / (1 << k);
    int n = 0;
    for (int i = 0; i <= 40; i++, n++) { /* the ramp, and as far again */
      const double t = eps / 20 * i;
      tab[n][0] = t;
      tab[n][5] = t < eps ? W * t * t / (2 * eps) : W * (t - eps / 2);
    }
    for (double t = 0.005; t <= 0.1 + 1e-12; t += 0.005, n++) {
      tab[n][0] = t;
      tab[n][5] = W * (t - eps / 2);
    }
    motion_table(&sc, dir, "ramp.csv", n, tab);
    ends *ramp = run_ends(&sc);
    d[k] = 0;
    for (int i = 0; i < ramp->count; i++)
      if (ramp->t[i] >= 0.01)
        for (int c = 0; c < 3; c++)
          d[k] = fmax(d[k], fabs(ramp->tip[i][c] - jump->tip[i][c]));
    free(ramp);
  }
  rod_test_rmdir(dir);
  for (int k = 0; k < 2; k++)
    ck_assert_msg(fabs(d[k] / d[k + 1] - 2) < 0.4,
                  "not first order in eps: %.3g, %.3g, %.3g m", d[0], d[1],
                  d[2]);
  free(jump);
}
END_TEST

/* base.motion_file with [motor] (two motions of one clamp), and on the
 * RFEM chain with contact bodies (its contact stepper would need the
 * clamp's pose at a step's start): refused, naming the key. */
START_TEST(base_motion_refusals) {
  rod_scenario sc;
  rod_error err;
  straight_rod(&sc, ROD_BACKEND_KIRCHHOFF);
  snprintf(sc.base.motion_file, sizeof sc.base.motion_file, "m.csv");
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  sc.motor.enabled = true;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "base.motion_file");
  sc.motor.enabled = false;
  sc.solver.backend = ROD_BACKEND_RFEM;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  sc.plane.enabled = true;
  sc.plane.point[2] = -0.1; /* a table below the rod */
  sc.rfem.integrator = ROD_RFEM_RK45;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EUNSUPPORTED);
  ck_assert_str_eq(err.key, "base.motion_file");
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
  tc = tcase_create("loads");
  tcase_add_test(tc, load_values_in_time);
  tcase_add_test(tc, tip_load_section_is_tip_force);
  tcase_add_test(tc, point_moment_bends_up_to_its_node);
  tcase_add_test(tc, tabulated_force_reproduces_impulse);
  suite_add_tcase(s, tc);
  tc = tcase_create("tip_body");
  tcase_add_test(tc, tip_body_weight_is_its_end_loads);
  tcase_add_test(tc, tip_body_jacobian);
  tcase_add_test(tc, tip_body_energy_conserved);
  tcase_add_test(tc, tip_body_column_buckles_at_its_arm_load);
  tcase_add_test(tc, tip_body_rfem_converges_to_kirchhoff);
  suite_add_tcase(s, tc);
  tc = tcase_create("base_motion");
  tcase_add_test(tc, base_motion_rigid);
  tcase_add_test(tc, base_motion_table_follows_the_motor);
  tcase_add_test(tc, rotation_acceleration);
  tcase_add_test(tc, base_motion_rigid_rfem);
  tcase_add_test(tc, base_motion_table_rfem);
  tcase_add_test(tc, base_drive_follows_the_table_rfem);
  tcase_add_test(tc, base_motion_jump_is_an_impulse_rfem);
  tcase_add_test(tc, base_motion_refusals);
  suite_add_tcase(s, tc);
  tc = tcase_create("drag");
  tcase_add_test(tc, normal_drag_integrals);
  tcase_add_test(tc, normal_drag_keeps_the_plane);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(physics_suite)
