/* The clamp's prescribed motion on both backends: a table
 * (base.motion_file) moving and spinning the rod rigidly, a table of the
 * motor's ramp following the motor, the rotation vector's acceleration,
 * the chain's clamp set between steps, a jump of the table's rate as an
 * impulse, and the refusals of two motions of one clamp. */
#include <string.h>

#include "core/loads.h"
#include "core/model.h"
#include "core/v3.h"
#include "integrators/bdf.h"
#include "io/inputs.h"
#include "physicsutil.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "testutil.h"

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

static Suite *base_motion_suite(void) {
  Suite *s = suite_create("base_motion");
  TCase *tc = tcase_create("base_motion");
  tcase_add_test(tc, base_motion_rigid);
  tcase_add_test(tc, base_motion_table_follows_the_motor);
  tcase_add_test(tc, rotation_acceleration);
  tcase_add_test(tc, base_motion_rigid_rfem);
  tcase_add_test(tc, base_motion_table_rfem);
  tcase_add_test(tc, base_drive_follows_the_table_rfem);
  tcase_add_test(tc, base_motion_jump_is_an_impulse_rfem);
  tcase_add_test(tc, base_motion_refusals);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(base_motion_suite)
