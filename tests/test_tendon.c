/* Tendons on the Kirchhoff and Cosserat rod (docs/tendons.md) against
 * known answers: the closed-form arc of a straight tendon, a tendon on the
 * neutral axis and two opposite ones that do nothing, the tangent
 * equations against finite differences, a helical tendon and the public
 * four-tendon example against independent solutions, and bad input. */
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"
#include "scenarioutil.h"

/* ---- helpers ----------------------------------------------------------- */

/* The static state of sc: positions (nodes x 3) into pos, orientations
 * (nodes x 4) into quat, force and moment at the nodes into n, m (each
 * NULL or room for KR_MAX_NODES points); returns the node count. */
static int solve(const rod_scenario *sc, double *pos, double *quat, double *n,
                 double *m) {
  void *self = NULL;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(sc, &self, &err), ROD_OK);
  rod_step_stats ss;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(self, &ss), ROD_OK);
  rod_sample s;
  rod_backend_kirchhoff.sample(self, &s);
  const int N = s.points;
  if (pos)
    memcpy(pos, s.position, 3 * (size_t)N * sizeof(double));
  if (quat)
    memcpy(quat, s.orientation, 4 * (size_t)N * sizeof(double));
  if (n)
    memcpy(n, s.force, 3 * (size_t)N * sizeof(double));
  if (m)
    memcpy(m, s.moment, 3 * (size_t)N * sizeof(double));
  rod_backend_kirchhoff.destroy(self);
  return N;
}

/* A weightless rod along +z with no tendon yet (rod_test_tendon_rod). */
static void tendon_rod(rod_scenario *sc, rod_model_kind model) {
  rod_test_tendon_rod(sc, model);
}

static rod_tendon_def *add_tendon(rod_scenario *sc, double x, double y,
                                  double tension) {
  return rod_test_add_tendon(sc, x, y, tension);
}

enum { MAXN = 4096 };
static double pos[3 * MAXN], nf[3 * MAXN], mm[3 * MAXN];

/* ---- closed forms ------------------------------------------------------ */

/* A straight tendon at r = (x, y) with tension T bends the weightless rod
 * into an arc of curvature u = T (-y, x, 0) / EI (K u + T r x e3 = 0, the
 * tendon's tangent e3 all along), its tip at sin(kL)/k e3 + (1 - cos(kL))
 * / k (a x e3), a = u/|u|, on the default grid to 1e-8 L (RK4 integrates
 * the constant curvature to rounding); on the Cosserat rod each section is
 * also shortened by T/EA, unsheared (v = (1 - T/EA) e3). The backbone
 * carries -T e3 and the moment balancing the tendon's. */
static void check_arc(rod_model_kind model) {
  rod_scenario sc;
  tendon_rod(&sc, model);
  const double x = 0.006, y = -0.011, T = 12.0, L = 0.5;
  add_tendon(&sc, x, y, T);
  const int N = solve(&sc, pos, NULL, nf, mm);
  rod_model m;
  rod_model_init(&m, &sc);
  const double EI = m.K[0], EA = m.Kse[2];
  const double u[3] = {-T * y / EI, T * x / EI, 0};
  const double k = v3_norm(u);
  const double stretch = model == ROD_MODEL_COSSERAT ? 1.0 - T / EA : 1.0;
  double a[3], axe3[3], e3[3] = {0, 0, 1};
  v3_scale(a, 1.0 / k, u);
  v3_cross(axe3, a, e3);
  double tip[3];
  for (int i = 0; i < 3; i++)
    tip[i] =
        stretch * (sin(k * L) / k * e3[i] + (1.0 - cos(k * L)) / k * axe3[i]);
  double d[3];
  v3_sub(d, pos + 3 * (N - 1), tip);
  ck_assert_msg(v3_norm(d) < 1e-8 * L, "tip off the arc by %.3g m (%d nodes)",
                v3_norm(d), N);
  /* the backbone's force is the tendon's pull back along the arc, -T d3,
   * its moment EI u in the world */
  for (int j = 0; j < N; j += N / 7) {
    ck_assert_msg(fabs(v3_norm(nf + 3 * j) - T) < 1e-9 * T,
                  "|n| = %.12g at node %d", v3_norm(nf + 3 * j), j);
    ck_assert_msg(fabs(v3_norm(mm + 3 * j) - EI * k) < 1e-9 * EI * k,
                  "|m| = %.12g vs %.12g at node %d", v3_norm(mm + 3 * j),
                  EI * k, j);
  }
}

START_TEST(straight_tendon_bends_kirchhoff_rod_into_arc) {
  check_arc(ROD_MODEL_KIRCHHOFF);
}
END_TEST

START_TEST(straight_tendon_bends_cosserat_rod_into_shortened_arc) {
  check_arc(ROD_MODEL_COSSERAT);
}
END_TEST

/* A tendon on the neutral axis, and two opposite ones with equal tension,
 * leave the weightless rod straight (Cosserat: shortened by the tensions'
 * sum over EA). */
static void check_straight(rod_model_kind model, bool pair) {
  rod_scenario sc;
  tendon_rod(&sc, model);
  const double T = 20.0, L = 0.5;
  if (pair) {
    add_tendon(&sc, 0.004, 0.009, T);
    add_tendon(&sc, -0.004, -0.009, T);
  } else {
    add_tendon(&sc, 0, 0, T);
  }
  const int N = solve(&sc, pos, NULL, NULL, NULL);
  rod_model m;
  rod_model_init(&m, &sc);
  const double total = pair ? 2 * T : T;
  const double z = model == ROD_MODEL_COSSERAT ? L * (1 - total / m.Kse[2]) : L;
  const double *tip = pos + 3 * (N - 1);
  ck_assert_msg(fabs(tip[0]) < 1e-12 * L && fabs(tip[1]) < 1e-12 * L &&
                    fabs(tip[2] - z) < 1e-12 * L,
                "tip %.17g %.17g %.17g, expected z %.17g", tip[0], tip[1],
                tip[2], z);
}

START_TEST(neutral_axis_tendon_does_nothing) {
  check_straight(ROD_MODEL_KIRCHHOFF, false);
  check_straight(ROD_MODEL_COSSERAT, false);
}
END_TEST

START_TEST(opposite_equal_tendons_do_nothing) {
  check_straight(ROD_MODEL_KIRCHHOFF, true);
  check_straight(ROD_MODEL_COSSERAT, true);
}
END_TEST

/* ---- the tangent equations --------------------------------------------- */

/* Uniform in [-1, 1) from a fixed sequence. */
static double rnd(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return ((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* rod_rhs_tangent with tendons against central differences of
 * rod_rhs_eval, on random states, constants, routings (with r' and r'')
 * and tensions, both models, half the trials with the tendons' friction
 * (rod_tendon_friction.h: beta up to 8 s/m, sliding rates up to 0.1 m/s,
 * loads of the order of the dead load's): relative agreement 1e-7 (the
 * differences' own error is about 1e-9 here). */
START_TEST(tangent_with_tendons_matches_differences) {
  unsigned seed = 11;
  double route[3 * ROD_ROUTE], slide[3];
  for (int trial = 0; trial < 400; trial++) {
    rod_rhs_const c;
    memset(&c, 0, sizeof c);
    c.cosserat = trial % 2;
    c.c0 = 300 * (1 + rnd(&seed));
    c.rho_area = 0.02 * (1.5 + rnd(&seed));
    c.tau_fac = 1e-3 * (1 + rnd(&seed));
    for (int i = 0; i < 3; i++) {
      c.ki[i] = 5 * (1.5 + rnd(&seed));
      c.kse[i] = 1e-4 * (1.5 + rnd(&seed));
      c.K[i] = 1.0 / c.ki[i];
      c.Kse[i] = 1.0 / c.kse[i];
      c.av0[i] = (i == 2 ? 1.0 : 0.0) + 1e-3 * rnd(&seed);
      c.loads.ns_dead[i] = rnd(&seed);
    }
    c.ntendons = 3;
    for (int i = 0; i < 3; i++) {
      c.tension[i] = 10 * (1 + rnd(&seed)); /* up to 20 N */
      for (int j = 0; j < ROD_ROUTE; j++)
        route[ROD_ROUTE * i + j] = 0.02 * rnd(&seed) * (j < 2 ? 1 : 3);
      route[ROD_ROUTE * i + 6] = 1.0; /* it runs here */
      c.beta[i] = 4 * (1 + rnd(&seed));
      slide[i] = 0.1 * rnd(&seed);
    }
    c.friction = trial % 4 >= 2;
    rod_hist_point hp;
    for (int i = 0; i < 3; i++) {
      hp.Q[i] = rnd(&seed);
      hp.U[i] = rnd(&seed);
      hp.V[i] = 1e-3 * rnd(&seed);
      hp.W[i] = 0;
    }
    rod_rhs_point pt = {
        {0.3 * rnd(&seed), 0.3 * rnd(&seed), 0}, route, NULL, slide};
    double y[ROD_NY], dy[ROD_NY], yp[ROD_NY], ym[ROD_NY];
    for (int i = 0; i < ROD_NY; i++) {
      y[i] = 0.2 * rnd(&seed);
      dy[i] = rnd(&seed);
    }
    y[ROD_Y_H] += 1.5;
    double f[ROD_NY], fp[ROD_NY], fm[ROD_NY], df[ROD_NY];
    rod_rhs_work wk, wp, wm;
    rod_rhs_eval(&c, &hp, &pt, y, f, &wk, true);
    rod_rhs_tangent(&c, y, &wk, dy, df, true);
    const double e = 1e-6;
    for (int i = 0; i < ROD_NY; i++) {
      yp[i] = y[i] + e * dy[i];
      ym[i] = y[i] - e * dy[i];
    }
    rod_rhs_eval(&c, &hp, &pt, yp, fp, &wp, true);
    rod_rhs_eval(&c, &hp, &pt, ym, fm, &wm, true);
    double scale = 0, diff = 0;
    for (int i = 0; i < ROD_NY; i++) {
      const double fd = (fp[i] - fm[i]) / (2 * e);
      scale = fmax(scale, fabs(fd));
      diff = fmax(diff, fabs(fd - df[i]));
    }
    ck_assert_msg(diff < 1e-7 * scale, "trial %d: tangent off by %.3g of %.3g",
                  trial, diff, scale);
    if (c.friction) { /* the friction's own share and its tangent */
      rod_rhs_const c0 = c;
      c0.friction = 0;
      double f0[ROD_NY], fp0[ROD_NY], fm0[ROD_NY], df0[ROD_NY];
      rod_rhs_eval(&c0, &hp, &pt, y, f0, &wk, true);
      rod_rhs_tangent(&c0, y, &wk, dy, df0, true);
      rod_rhs_eval(&c0, &hp, &pt, yp, fp0, &wp, true);
      rod_rhs_eval(&c0, &hp, &pt, ym, fm0, &wm, true);
      double share = 0, sd = 0, dd = 0;
      for (int i = 0; i < ROD_NY; i++) {
        const double fd = (fp[i] - fm[i] - fp0[i] + fm0[i]) / (2 * e);
        share = fmax(share, fabs(f[i] - f0[i]));
        sd = fmax(sd, fabs(fd));
        dd = fmax(dd, fabs(fd - (df[i] - df0[i])));
      }
      ck_assert_msg(share > 0.01, "trial %d: friction's share %.3g", trial,
                    share);
      ck_assert_msg(dd < 1e-6 * sd,
                    "trial %d: friction's tangent off by "
                    "%.3g of %.3g",
                    trial, dd, sd);
    }
  }
}
END_TEST

/* ---- independent solutions --------------------------------------------- */

/* A helical tendon of one turn (radius 15.06 mm, phase 0, 10 N) on the
 * weightless rod of tendon_rod bends it out of any plane. The tips of
 * validation/tendon_rw.py (Rucker & Webster 2011's u-v form, classic RK4
 * on 400 points; the case {"L": 0.5, "E": 200e9, "G": 80e9, "radius":
 * 0.001, "model": "kirchhoff" or "cosserat", "rk4": 400, "tendons":
 * [{"helix": [0.01506, 1, 0], "tension": 10}]}), within 1e-6 L on the
 * default grid (measured: 5.9e-9 m on its 51 points, 5e-11 m on 400). */
static void check_helix(rod_model_kind model, const double expect[3]) {
  rod_scenario sc;
  tendon_rod(&sc, model);
  rod_tendon_def *t = add_tendon(&sc, 0, 0, 10.0);
  v3_set(t->helix, 0.01506, 1, 0);
  const int N = solve(&sc, pos, NULL, NULL, NULL);
  double d[3];
  v3_sub(d, pos + 3 * (N - 1), expect);
  ck_assert_msg(v3_norm(d) < 1e-6 * 0.5, "tip off by %.3g m", v3_norm(d));
  ck_assert(fabs(pos[3 * (N - 1) + 1]) > 0.03); /* out of the x-z plane */
}

START_TEST(helical_tendon_matches_independent_solution) {
  static const double kirchhoff[3] = {
      2.6616792253865627e-05, 0.038509868859145154, 0.49706084107721138};
  static const double cosserat[3] = {2.6617430656757196e-05,
                                     0.038509299678926898, 0.49705278205970987};
  check_helix(ROD_MODEL_KIRCHHOFF, kirchhoff);
  check_helix(ROD_MODEL_COSSERAT, cosserat);
}
END_TEST

/* data/scenarios/tendon_statics.ini, the public four-tendon example (Till,
 * Aloi & Rucker 2019): its program's tip (0.18221151304739194, 0,
 * 0.45322937148613812) within 1e-4 L. The program stops its
 * Levenberg-Marquardt iteration at a sum of squared residuals of 1e-12
 * (N^2), 1.8e-7 m from its own solution, which it reaches with a sum of
 * 1e-21: (0.1822116945404027, 0, 0.45322927092954224); rodsim on the same
 * 100 points within 1e-8 L of that (the scenario's solver.tolerance of
 * 1e-8 moves the tip by up to about 1e-8 L / 2; measured 3e-12 L), and of
 * the independent solution (validation/tendon_rw.py, RK4 on 400 points,
 * 4e-12 m from rodsim on 1600). */
START_TEST(four_tendon_example_matches_published_program) {
  rod_scenario sc;
  rod_test_load(&sc, "tendon_statics.ini");
  const int N = solve(&sc, pos, NULL, NULL, NULL);
  const double *tip = pos + 3 * (N - 1), L = 0.5;
  const double published[3] = {0.18221151304739194, 0, 0.45322937148613812};
  const double tight[3] = {0.1822116945404027, 0, 0.45322927092954224};
  const double exact[3] = {0.1822116945361664, 0, 0.45322927093576637};
  double d[3];
  v3_sub(d, tip, published);
  ck_assert_msg(v3_norm(d) < 1e-4 * L, "%.3g m from the published tip",
                v3_norm(d));
  v3_sub(d, tip, tight);
  ck_assert_msg(v3_norm(d) < 1e-8 * L, "%.3g m from the program's solution",
                v3_norm(d));
  v3_sub(d, tip, exact);
  ck_assert_msg(v3_norm(d) < 1e-8 * L, "%.3g m from the independent solution",
                v3_norm(d));
}
END_TEST

/* ---- where a tendon runs, its routing and tension from files ------------ */

/* A straight tendon (12 N at (6, -11) mm) that enters at start = 0.123 m
 * and is anchored at end = 0.3771 m (neither a node of the uniform grid:
 * nodes move there) bends only [start, end] into the arc of curvature T r
 * / EI (Cosserat: shortened by T / EA there); the rod is straight before
 * and after, along the arc's end tangent: tip within 1e-8 L on the default
 * grid. The backbone carries -T d3 where the tendon runs, nothing
 * elsewhere (1e-9 T). */
static void check_span(rod_model_kind model) {
  rod_scenario sc;
  tendon_rod(&sc, model);
  const double x = 0.006, y = -0.011, T = 12.0, L = 0.5, a = 0.123, b = 0.3771;
  rod_tendon_def *t = add_tendon(&sc, x, y, T);
  t->start = a;
  t->end.tip = false;
  t->end.s = b;
  const int N = solve(&sc, pos, NULL, nf, NULL);
  rod_model m;
  rod_model_init(&m, &sc);
  const double EI = m.K[0], EA = m.Kse[2];
  const double u[3] = {-T * y / EI, T * x / EI, 0};
  const double k = v3_norm(u), th = k * (b - a);
  const double stretch = model == ROD_MODEL_COSSERAT ? 1.0 - T / EA : 1.0;
  double ax[3], axe3[3], e3[3] = {0, 0, 1};
  v3_scale(ax, 1.0 / k, u);
  v3_cross(axe3, ax, e3);
  double tip[3];
  for (int i = 0; i < 3; i++)
    tip[i] = a * e3[i] +
             stretch * (sin(th) / k * e3[i] + (1.0 - cos(th)) / k * axe3[i]) +
             (L - b) * (cos(th) * e3[i] + sin(th) * axe3[i]);
  double d[3];
  v3_sub(d, pos + 3 * (N - 1), tip);
  ck_assert_msg(v3_norm(d) < 1e-8 * L, "tip off by %.3g m (%d nodes)",
                v3_norm(d), N);
  ck_assert_int_eq(N, 51); /* two nodes moved, none added */
  for (int j = 1; j < N - 1; j++) {
    const double s = L * j / (N - 1);
    const double want = s > a + 0.01 && s < b - 0.01 ? T : 0.0;
    if (fabs(s - a) > 0.01 && fabs(s - b) > 0.01)
      ck_assert_msg(fabs(v3_norm(nf + 3 * j) - want) < 1e-9 * T,
                    "|n| = %.12g at node %d", v3_norm(nf + 3 * j), j);
  }
}

START_TEST(tendon_between_start_and_end_bends_only_there) {
  check_span(ROD_MODEL_KIRCHHOFF);
  check_span(ROD_MODEL_COSSERAT);
}
END_TEST

/* The helix of check_helix sampled into a routing file (s, x, y) every
 * 2.5 mm and every 1.25 mm gives the tip of the helix key to within the
 * spline's error, which comes from its natural end condition r'' = 0
 * (the helix has |r''| = radius (2 pi / L)^2 at its ends) and falls as h^2:
 * measured 3.5e-9 m and 3.7e-10 m, required below 1e-8 L and a fall by
 * more than 3 on halving h. A routing file of one constant row pair gives
 * the offset run bit for bit. */
static double helix_file_tip_error(const char *dir, int rows, const double *ref,
                                   int N) {
  static char text[64 * 1024];
  char line[128], path[512];
  size_t len = (size_t)snprintf(text, sizeof text, "s,x,y\n");
  const double rho = 0.01506, L = 0.5;
  for (int i = 0; i <= rows; i++) {
    const double s = L * i / rows, a = 2 * M_PI * s / L;
    snprintf(line, sizeof line, "%.17g,%.17g,%.17g\n", s, rho * cos(a),
             rho * sin(a));
    len += (size_t)snprintf(text + len, sizeof text - len, "%s", line);
  }
  rod_test_write(dir, "helix.csv", text);
  rod_scenario sc;
  tendon_rod(&sc, ROD_MODEL_KIRCHHOFF);
  rod_tendon_def *t = add_tendon(&sc, 0, 0, 10.0);
  snprintf(path, sizeof path, "%s/helix.csv", dir);
  snprintf(t->routing_file, sizeof t->routing_file, "%s", path);
  ck_assert_int_eq(solve(&sc, pos, NULL, NULL, NULL), N);
  double d[3];
  v3_sub(d, pos + 3 * (N - 1), ref + 3 * (N - 1));
  return v3_norm(d);
}

START_TEST(routing_file_matches_the_routing_it_samples) {
  char dir[256], path[512];
  rod_test_dir(dir, sizeof dir, "tendon");
  static double ref[3 * MAXN];
  const double L = 0.5;
  rod_scenario sc;
  tendon_rod(&sc, ROD_MODEL_KIRCHHOFF);
  rod_tendon_def *t = add_tendon(&sc, 0, 0, 10.0);
  v3_set(t->helix, 0.01506, 1, 0);
  int N = solve(&sc, ref, NULL, NULL, NULL);
  const double e1 = helix_file_tip_error(dir, 200, ref, N);
  const double e2 = helix_file_tip_error(dir, 400, ref, N);
  fprintf(stderr,
          "routing file of the helix: tip %.3g m (h 2.5 mm), %.3g m "
          "(1.25 mm) from the key's\n",
          e1, e2);
  ck_assert_msg(e1 < 1e-8 * L && e2 < e1 / 3,
                "tip off the helix key's by "
                "%.3g m, then %.3g m",
                e1, e2);
  /* the straight table against the offset, bit for bit */
  rod_test_write(dir, "straight.csv",
                 "s,x,y\n0,0.006,-0.011\n0.5,0.006,-0.011\n");
  tendon_rod(&sc, ROD_MODEL_COSSERAT);
  t = add_tendon(&sc, 0.006, -0.011, 12.0);
  N = solve(&sc, ref, NULL, NULL, NULL);
  t->offset[0] = t->offset[1] = 0;
  snprintf(path, sizeof path, "%s/straight.csv", dir);
  snprintf(t->routing_file, sizeof t->routing_file, "%s", path);
  solve(&sc, pos, NULL, NULL, NULL);
  ck_assert(memcmp(pos, ref, 3 * (size_t)N * sizeof(double)) == 0);
  rod_test_rmdir(dir);
}
END_TEST

/* tension_file: the tension at each step's time is the table's, linear
 * between rows and held beyond them (0 N at t = 0 rising to 10 N at t =
 * 0.01 s, then 10 N): the static state at t = 0 is straight, and the
 * tensions of the steps at 2.5 ms, 5 ms and 20 ms are 2.5, 5 and 10 N. */
START_TEST(tension_file_gives_the_tension_in_time) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon");
  rod_test_write(dir, "T.csv", "t,T\n0,0\n0.01,10\n");
  rod_scenario sc;
  tendon_rod(&sc, ROD_MODEL_KIRCHHOFF);
  sc.solver.tolerance = 1e-10;
  sc.time.dt = 2.5e-3;
  rod_tendon_def *t = add_tendon(&sc, 0.006, 0, 0);
  snprintf(t->tension_file, sizeof t->tension_file, "%s/T.csv", dir);
  void *self = rod_test_backend(&sc, 0);
  rod_kirchhoff *k = self;
  ck_assert(k->tension[0] == 0 && k->rc.tension[0] == 0);
  rod_sample s;
  rod_backend_kirchhoff.sample(self, &s);
  ck_assert(fabs(s.position[3 * (s.points - 1)]) < 1e-12);
  const double times[3] = {2.5e-3, 5e-3, 20e-3}, want[3] = {2.5, 5, 10};
  for (int i = 0; i < 3; i++) {
    rod_test_step(self, times[i]);
    ck_assert_msg(fabs(k->tension[0] - want[i]) < 1e-12 &&
                      k->rc.tension[0] == k->tension[0],
                  "tension %.15g at t = %g", k->tension[0], times[i]);
  }
  rod_sample s2;
  rod_backend_kirchhoff.sample(self, &s2);
  ck_assert(s2.position[3 * (s2.points - 1)] > 1e-4); /* pulled towards +x */
  rod_backend_kirchhoff.destroy(self);
  rod_test_rmdir(dir);
}
END_TEST

/* A tension that starts to rise is a kink in the load's history, which the
 * step's prediction (degree-4 extrapolation of the last unknowns) turns
 * into a jump five times its own: on the motor-driven robot (Kirchhoff
 * rod, 40 points, 10 ms steps, simple shooting as the scenario asks) a
 * tendon pulled from 0 to 0.08 N over 10 ms at t = 0.3 s gave simple
 * shooting starts it could not converge from two steps later (residuals
 * 8.5, 40, then 2242). The step is retried from the last step's solution:
 * the run goes on, and its tip agrees with modified shooting's at every
 * step to 1e-6 L (both solve each step to solver.tolerance = 1e-8 of the
 * moment unit; simple shooting's sensitivity exp(k L / sqrt 2), k^4 =
 * rho A c0^2 / EI, is about 850 here; measured 2.8e-11 m). */
START_TEST(tension_ramp_solved_from_the_last_step) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon");
  rod_test_write(dir, "T.csv", "t,T\n0,0\n0.3,0\n0.31,0.08\n5,0.08\n");
  rod_scenario sc;
  rod_test_load(&sc, "tendon_dynamics.ini");
  sc.rod.model = ROD_MODEL_KIRCHHOFF;
  sc.space.nodes = 40;
  sc.time.dt = 0.01;
  rod_tendon_def *t = &sc.tendons.item[0];
  t->displacement_file[0] = 0;
  t->compliance = 0;
  t->base_to_motor = 0;
  snprintf(t->tension_file, sizeof t->tension_file, "%s/T.csv", dir);
  rod_scenario modified = sc;
  modified.solver.strategy = ROD_STRATEGY_MODIFIED;
  ck_assert(sc.solver.strategy == ROD_STRATEGY_SIMPLE);
  void *a = rod_test_backend(&sc, 0), *b = rod_test_backend(&modified, 0);
  double worst = 0, motion = 0;
  rod_sample s0;
  rod_backend_kirchhoff.sample(a, &s0);
  const double z0 = s0.position[3 * (s0.points - 1) + 2];
  for (int i = 1; i <= 50; i++) {
    rod_test_step(a, i * sc.time.dt);
    rod_test_step(b, i * sc.time.dt);
    rod_sample sa, sb;
    rod_backend_kirchhoff.sample(a, &sa);
    rod_backend_kirchhoff.sample(b, &sb);
    const double *ta = sa.position + 3 * (sa.points - 1);
    const double *tb = sb.position + 3 * (sb.points - 1);
    double d[3];
    v3_sub(d, ta, tb);
    worst = fmax(worst, v3_norm(d));
    motion = fmax(motion, fabs(ta[2] - z0));
  }
  ck_assert_msg(worst < 1e-6 * sc.rod.length,
                "simple and modified shooting %.3g m apart", worst);
  ck_assert(motion > 1e-4); /* the tendon moved the rod */
  rod_backend_kirchhoff.destroy(a);
  rod_backend_kirchhoff.destroy(b);
  rod_test_rmdir(dir);
}
END_TEST

/* ---- bad input --------------------------------------------------------- */

/* Exit 2 and one line naming the file, the key and the problem, for the
 * scenario text beside a data file (name and its text; NULL: none). */
static void check_refused_with(const char *data_name, const char *data,
                               const char *section_text, const char *key) {
  rod_test_refused(data_name, data, section_text, key);
}

static void check_refused(const char *section_text, const char *key) {
  check_refused_with(NULL, NULL, section_text, key);
}

START_TEST(bad_tendon_input_is_refused) {
  check_refused("[tendon.a]\noffset = 0.01 0\ntension = -1\n",
                "tendon.a.tension");
  check_refused("[tendon.a]\noffset = nan 0\ntension = 1\n", "tendon.a.offset");
  check_refused("[tendon.a]\noffset = 0.01\n", "tendon.a.offset");
  check_refused("[tendon.a]\noffset = 0.01 0\nhelix = 0.01 1 0\n",
                "tendon.a.helix");
  check_refused("[tendon.a]\nhelix = -0.01 1 0\n", "tendon.a.helix");
  check_refused("[rod]\nlength = 0.5\n[tendon.a]\noffset = 0.01 0\nend = "
                "0.6\n",
                "tendon.a.end");
  check_refused("[tendon.a]\noffset = 0.01 0\nstart = 0.2\nend = 0.1\n",
                "tendon.a.start");
  check_refused("[tendon.a]\noffset = 0.01 0\ntension = 1\ntension_file = "
                "T.csv\n",
                "tendon.a.tension_file");
  check_refused("[tendon.a]\noffset = 0.01 0\nrouting_file = r.csv\n",
                "tendon.a.routing_file");
  /* a routing file not covering [start, end], a negative tension in a
   * file, a tension file whose times do not increase */
  check_refused_with("r.csv", "s,x,y\n0,0.01,0\n0.2,0.01,0\n",
                     "[rod]\nlength = 0.5\n[tendon.a]\nrouting_file = "
                     "r.csv\nend = 0.3\n",
                     "tendon.a.routing_file");
  check_refused_with("T.csv", "t,T\n0,1\n1,-2\n",
                     "[tendon.a]\noffset = 0.01 0\ntension_file = T.csv\n",
                     "tendon.a.tension_file");
  check_refused_with("T.csv", "t,T\n0,1\n0,2\n",
                     "[tendon.a]\noffset = 0.01 0\ntension_file = T.csv\n",
                     "tendon.a.tension_file");
}
END_TEST

static Suite *tendon_suite(void) {
  Suite *s = suite_create("tendon");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, straight_tendon_bends_kirchhoff_rod_into_arc);
  tcase_add_test(tc, straight_tendon_bends_cosserat_rod_into_shortened_arc);
  tcase_add_test(tc, neutral_axis_tendon_does_nothing);
  tcase_add_test(tc, opposite_equal_tendons_do_nothing);
  tcase_add_test(tc, tangent_with_tendons_matches_differences);
  tcase_add_test(tc, helical_tendon_matches_independent_solution);
  tcase_add_test(tc, four_tendon_example_matches_published_program);
  tcase_add_test(tc, tendon_between_start_and_end_bends_only_there);
  tcase_add_test(tc, routing_file_matches_the_routing_it_samples);
  tcase_add_test(tc, tension_file_gives_the_tension_in_time);
  tcase_add_test(tc, tension_ramp_solved_from_the_last_step);
  tcase_add_test(tc, bad_tendon_input_is_refused);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_suite)
