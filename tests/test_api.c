/* The public simulation object (include/rod/sim.h): bad values get the
 * loader's messages whichever way they come in; stepping matches the
 * all-in-one run bit for bit; loads and the clamp set between steps
 * against closed forms (a pure tip moment bends the rod into a circular
 * arc, a chain into its polygon; a hanging rod carried up by its clamp at
 * constant acceleration stays straight with n(0) = rhoA L (g - a)) and
 * against symmetry (a turned clamp turns the whole static solution). */
#include <string.h>

#include "rod/recorder.h"
#include "rod/sim.h"
#include "testutil.h"

static const char *short_run = "[rod]\nlength = 0.3\n[time]\ndt = 2e-3\n"
                               "duration = 0.02\n[space]\nnodes = 30\n";

/* ---- errors ------------------------------------------------------------ */

/* The key and message of a failure through the loader (a file), through
 * rod_scenario_set_key and through a struct set in code and given to
 * rod_sim_create are the same. */
static void same_error(const char *section, const char *key, const char *value,
                       void (*set)(rod_scenario *), const char *expect) {
  char dir[256], path[600], text[256], label[96];
  rod_test_dir(dir, sizeof dir, "rodsim_api");
  snprintf(text, sizeof text, "[%s]\n%s = %s\n", section, key, value);
  rod_test_write(dir, "bad.ini", text);
  snprintf(path, sizeof path, "%s/bad.ini", dir);
  snprintf(label, sizeof label, "%s.%s", section, key);
  rod_error e_file, e_key, e_code, e_str;
  rod_scenario sc;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &e_file), ROD_EINVAL);
  rod_sim *sim = NULL;
  ck_assert_int_eq(rod_sim_create_file(path, &sim, &e_str), ROD_EINVAL);
  ck_assert_ptr_null(sim);
  ck_assert_str_eq(e_str.message, e_file.message);
  rod_test_rmdir(dir);
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_set_key(&sc, section, key, value, &e_key),
                   ROD_EINVAL);
  rod_scenario_default(&sc);
  set(&sc);
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &e_code), ROD_EINVAL);
  ck_assert_ptr_null(sim);
  const rod_error *all[3] = {&e_file, &e_key, &e_code};
  for (int i = 0; i < 3; i++) {
    ck_assert_str_eq(all[i]->key, label);
    ck_assert_str_eq(all[i]->message, expect);
  }
  ck_assert_str_eq(e_file.file, path);
  ck_assert_str_eq(e_code.file, "scenario");
}

static void negative_length(rod_scenario *sc) { sc->rod.length = -1; }
static void one_node(rod_scenario *sc) { sc->space.nodes = 1; }
static void zero_dt(rod_scenario *sc) { sc->time.dt = 0; }
static void nan_density(rod_scenario *sc) { sc->rod.density = NAN; }

START_TEST(bad_values_as_the_loader) {
  same_error("rod", "length", "-1", negative_length, "must be > 0 (got -1)");
  same_error("space", "nodes", "1", one_node, "must be >= 2 (got 1)");
  same_error("time", "dt", "0", zero_dt, "must be > 0 (got 0)");
  same_error("rod", "density", "nan", nan_density,
             "must be a finite number (got nan)");
  /* the INI string names itself */
  rod_sim *sim;
  rod_error err;
  ck_assert_int_eq(
      rod_sim_create_string("[rod]\nlength = -1\n", "mine", &sim, &err),
      ROD_EINVAL);
  char line[1024];
  rod_error_format(&err, line, sizeof line);
  ck_assert_str_eq(line, "mine: rod.length: must be > 0 (got -1) (line 2)");
  ck_assert_int_eq(rod_sim_create_string("[rods]\n", NULL, &sim, &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.file, "scenario");
}
END_TEST

START_TEST(errors_of_a_simulation) {
  rod_sim *sim;
  ck_assert_int_eq(rod_sim_create_string(short_run, "s", &sim, NULL), ROD_OK);
  ck_assert_str_eq(rod_sim_error(sim), "");
  double xyz[3 * 30];
  ck_assert_int_eq(rod_sim_get_positions(sim, xyz), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "rod_sim_static"));
  const double F[3] = {0, 0, 1};
  ck_assert_int_eq(rod_sim_set_load(sim, "gripper", F, NULL), ROD_EINVAL);
  ck_assert_str_eq(rod_sim_error(sim),
                   "s: [load.gripper]: no such section in the scenario");
  const double bad[3] = {0, NAN, 0};
  ck_assert_int_eq(rod_sim_set_tip_load(sim, bad, NULL), ROD_EINVAL);
  const double p[3] = {0, 0, 0}, h[4] = {1, 1, 0, 0};
  ck_assert_int_eq(rod_sim_set_base(sim, p, h, NULL, NULL), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "unit quaternion"));
  ck_assert_str_eq(rod_sim_backend(sim), "kirchhoff");
  rod_sim_free(sim);
  rod_sim_free(NULL);
  /* the rfem backend cannot move the clamp its motor joint turns: refused,
   * the state intact */
  ck_assert_int_eq(
      rod_sim_create_string("[solver]\nbackend = rfem\n[motor]\nangle = 0.1\n",
                            "r", &sim, NULL),
      ROD_OK);
  const double up[4] = {1, 0, 0, 0};
  ck_assert_int_eq(rod_sim_set_base(sim, p, up, NULL, NULL), ROD_EUNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "[motor]"));
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  rod_sim_free(sim);
}
END_TEST

/* A recorder holds a run of more samples than its first block (16384):
 * it grows as they come, and keeps every one: 40001 samples of a chain of
 * 4 elements at 2^-16 s over 0.61 s, the whole rod with them. */
START_TEST(recorder_grows_with_the_run) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  ck_assert_int_eq(rod_scenario_load_string(&sc, short_run, "s", &err), ROD_OK);
  sc.solver.backend = ROD_BACKEND_RFEM;
  sc.rfem.segments = 4;
  sc.time.dt = 0x1p-16;               /* 15.3 us, exact in binary */
  sc.time.duration = 40000 * 0x1p-16; /* 0.61 s */
  const int samples = 40001;          /* t = 0 and each step */
  ck_assert_int_ge(rod_sim_sample_count(&sc), samples); /* a bound */
  rod_recorder *r = rod_recorder_alloc(&sc, true);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_lt(r->capacity, samples); /* not all of it at the start */
  rod_sim_sink sink = rod_recorder_sink(r);
  rod_sim_result res;
  ck_assert_int_eq(rod_sim_run(&sc, &sink, false, &res, &err), ROD_OK);
  ck_assert_int_eq(res.samples, samples);
  ck_assert_int_eq(r->count, samples);
  ck_assert_int_ge(r->capacity, r->count);
  for (int i = 0; i < r->count; i++) {
    ck_assert(r->t[i] == i * sc.time.dt);
    const double *tip = r->rod + ((size_t)i * r->points + r->points - 1) * 3;
    for (int c = 0; c < 3; c++)
      ck_assert(tip[c] == r->tip[3 * i + c]);
  }
  rod_recorder_free(r);
}
END_TEST

/* ---- stepping ---------------------------------------------------------- */

/* Stepping by hand gives the samples and numbers of rod_sim_run: the
 * output grid of docs/hdf5.md (t = 0, every 3 steps, the last step). */
START_TEST(stepping_matches_the_run) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  ck_assert_int_eq(rod_scenario_load_string(&sc, short_run, "s", &err), ROD_OK);
  sc.output.every = 3;
  rod_recorder *a = rod_recorder_alloc(&sc, true);
  rod_recorder *b = rod_recorder_alloc(&sc, true);
  rod_sim_sink sa = rod_recorder_sink(a), sb = rod_recorder_sink(b);
  rod_sim_result ra, rb;
  ck_assert_int_eq(rod_sim_run(&sc, &sa, false, &ra, &err), ROD_OK);
  rod_sim *sim;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  rod_sim_set_sink(sim, &sb);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
  ROD_ASSERT_NEAR(rod_sim_time(sim), 2e-3, 0);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.0145), ROD_OK); /* to 16 ms */
  ROD_ASSERT_NEAR(rod_sim_time(sim), 8 * 2e-3, 0);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.02), ROD_OK);
  ck_assert_int_eq(rod_sim_flush(sim), ROD_OK);
  rod_sim_get_result(sim, &rb);
  ck_assert_int_eq(rb.steps, 10);
  ck_assert_int_eq(a->count, 5); /* 0, 6, 12, 18, 20 ms */
  ck_assert_int_eq(b->count, a->count);
  ck_assert_int_eq(rb.samples, ra.samples);
  ck_assert_int_eq(rb.iterations, ra.iterations);
  for (int i = 0; i < a->count; i++) {
    ck_assert(a->t[i] == b->t[i]);
    for (int j = 0; j < 3 * a->points; j++)
      ck_assert(a->rod[3 * a->points * i + j] == b->rod[3 * b->points * i + j]);
  }
  ROD_ASSERT_NEAR(a->t[4], 0.02, 1e-15);
  /* the state by copy: the last sample's positions and the tip */
  int n = rod_sim_points(sim);
  ck_assert_int_eq(n, 30);
  double s[30], xyz[90], q[120], v[90], f[90], m[90], e[3];
  ck_assert_int_eq(rod_sim_get_arclength(sim, s), ROD_OK);
  ck_assert_int_eq(rod_sim_get_positions(sim, xyz), ROD_OK);
  ck_assert_int_eq(rod_sim_get_orientations(sim, q), ROD_OK);
  ck_assert_int_eq(rod_sim_get_velocities(sim, v), ROD_OK);
  ck_assert_int_eq(rod_sim_get_forces(sim, f), ROD_OK);
  ck_assert_int_eq(rod_sim_get_moments(sim, m), ROD_OK);
  ck_assert_int_eq(rod_sim_get_energies(sim, e), ROD_OK);
  ROD_ASSERT_NEAR(s[29], 0.3, 1e-15);
  for (int j = 0; j < 90; j++)
    ck_assert(xyz[j] == a->rod[3 * a->points * 4 + j]);
  ROD_ASSERT_NEAR(e[0], a->kinetic[4], 0);
  ROD_ASSERT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1,
                  1e-12);
  rod_sim_free(sim);
  rod_recorder_free(a);
  rod_recorder_free(b);
}
END_TEST

/* A failed step keeps the last converged state and refuses later steps. */
START_TEST(no_steps_after_a_failure) {
  rod_sim *sim;
  ck_assert_int_eq(
      rod_sim_create_string("[solver]\nmax_iterations = 1\nstrategy = simple\n"
                            "[tip]\nmass = 0.05\n",
                            "f", &sim, NULL),
      ROD_OK);
  int st = rod_sim_static(sim);
  if (st == ROD_OK) {
    for (int i = 0; i < 50 && st == ROD_OK; i++)
      st = rod_sim_step(sim);
  }
  ck_assert_int_eq(st, ROD_ENOCONV);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "did not converge"));
  ck_assert_int_eq(rod_sim_step(sim), ROD_ENOCONV);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "no more steps"));
  rod_sim_free(sim);
}
END_TEST

/* ---- loads set between steps ------------------------------------------- */

/* A tip force set through the API before the static solve is tip.force:
 * the same numbers, static and dynamic, on both backends. */
START_TEST(tip_force_as_the_key) {
  for (int backend = 0; backend < 2; backend++) {
    char text[256];
    snprintf(text, sizeof text, "%s[solver]\nbackend = %s\n", short_run,
             backend ? "rfem" : "kirchhoff");
    rod_sim *key, *api;
    rod_scenario sc;
    rod_scenario_default(&sc);
    ck_assert_int_eq(rod_scenario_load_string(&sc, text, "k", NULL), ROD_OK);
    const double F[3] = {0.01, 0.02, 0.05};
    memcpy(sc.tip.force, F, sizeof F);
    ck_assert_int_eq(rod_sim_create(&sc, &key, NULL), ROD_OK);
    ck_assert_int_eq(rod_sim_create_string(text, "a", &api, NULL), ROD_OK);
    ck_assert_int_eq(rod_sim_set_tip_load(api, F, NULL), ROD_OK);
    ck_assert_int_eq(rod_sim_advance_to(key, 0.01), ROD_OK);
    ck_assert_int_eq(rod_sim_advance_to(api, 0.01), ROD_OK);
    int n = rod_sim_points(key);
    double a[300], b[300];
    rod_sim_get_positions(key, a);
    rod_sim_get_positions(api, b);
    for (int j = 0; j < 3 * n; j++)
      ck_assert(a[j] == b[j]);
    /* a change between steps acts at the next step */
    const double zero[3] = {0, 0, 0};
    ck_assert_int_eq(rod_sim_set_tip_load(api, zero, NULL), ROD_OK);
    ck_assert_int_eq(rod_sim_step(key), ROD_OK);
    ck_assert_int_eq(rod_sim_step(api), ROD_OK);
    rod_sim_get_velocities(key, a);
    rod_sim_get_velocities(api, b);
    ck_assert(a[3 * n - 1] != b[3 * n - 1]);
    rod_sim_free(key);
    rod_sim_free(api);
  }
}
END_TEST

/* A pure tip moment M about y, no gravity: the Kirchhoff rod bends into a
 * circular arc of curvature M / EI (tip at (sin kL, 0, -(1 - cos kL)) / k
 * for a rod along x); the RFEM chain turns every bending joint by
 * M / k_bend = M l / EI, so its tip is the polygon of its elements. Both
 * within 10 solver tolerances of L: the residual bounds the moment error
 * by tolerance EI / L, the curvature error by tolerance / L. */
START_TEST(tip_moment_bends_an_arc) {
  const double L = 0.3, EI = 0.03, kappa = 2.0 / L; /* 2 rad of arc */
  const double M = kappa * EI;
  for (int backend = 0; backend < 2; backend++) {
    char text[512];
    snprintf(text, sizeof text,
             "[rod]\nlength = %g\nbending_stiffness = %g\n[environment]\n"
             "gravity = 0 0 0\n[space]\nnodes = 60\n[solver]\nbackend = %s\n"
             "[rfem]\nsegments = 12\n",
             L, EI, backend ? "rfem" : "kirchhoff");
    rod_sim *sim;
    ck_assert_int_eq(rod_sim_create_string(text, "arc", &sim, NULL), ROD_OK);
    const double moment[3] = {0, M, 0};
    ck_assert_int_eq(rod_sim_set_tip_load(sim, NULL, moment), ROD_OK);
    ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
    int n = rod_sim_points(sim);
    double p[300], m[300], expect[3];
    rod_sim_get_positions(sim, p);
    rod_sim_get_moments(sim, m);
    if (backend == 0) {
      expect[0] = sin(kappa * L) / kappa;
      expect[1] = 0;
      expect[2] = -(1 - cos(kappa * L)) / kappa;
    } else { /* centered: half, 11 full, half element; 12 joints */
      const int segs = 12;
      const double l = L / segs, theta = M * l / EI;
      double angle = 0;
      expect[0] = 0.5 * l;
      expect[1] = expect[2] = 0;
      for (int j = 1; j <= segs; j++) {
        angle += theta;
        double len = j == segs ? 0.5 * l : l;
        expect[0] += len * cos(angle);
        expect[2] -= len * sin(angle);
      }
    }
    for (int i = 0; i < 3; i++)
      ROD_ASSERT_NEAR(p[3 * (n - 1) + i], expect[i], 10 * 1e-8 * L);
    /* the internal moment is M all along (at the tip: the load) */
    ROD_ASSERT_NEAR(m[3 * (n - 1) + 1], M, 1e-12 * M);
    ROD_ASSERT_NEAR(m[1], M, 10 * 1e-8 * EI / L);
    rod_sim_free(sim);
  }
}
END_TEST

/* A simulation that has taken no step and has no sink solves its static
 * state again after its loads change (a model a controller asks,
 * examples/tendon_circle.c): the same state bit for bit as a new
 * simulation under those loads, on the rod with a tip moment (both
 * backends) and the four-tendon robot with its tensions changed; once it
 * stepped, refused. */
static void same_state(rod_sim *a, rod_sim *b) {
  const int n = rod_sim_points(a);
  double pa[3 * 200], pb[3 * 200], ma[3 * 200], mb[3 * 200];
  ck_assert_int_le(n, 200);
  ck_assert_int_eq(rod_sim_get_positions(a, pa), ROD_OK);
  ck_assert_int_eq(rod_sim_get_positions(b, pb), ROD_OK);
  ck_assert_int_eq(rod_sim_get_moments(a, ma), ROD_OK);
  ck_assert_int_eq(rod_sim_get_moments(b, mb), ROD_OK);
  ck_assert(memcmp(pa, pb, 3 * (size_t)n * sizeof *pa) == 0);
  ck_assert(memcmp(ma, mb, 3 * (size_t)n * sizeof *ma) == 0);
}

START_TEST(static_solved_again_before_steps) {
  const double m1[3] = {0, 0.02, 0}, m2[3] = {0.01, -0.03, 0};
  for (int backend = 0; backend < 2; backend++) {
    char text[256];
    snprintf(text, sizeof text,
             "[rod]\nlength = 0.3\n[space]\nnodes = 40\n[solver]\n"
             "backend = %s\n",
             backend ? "rfem" : "kirchhoff");
    rod_sim *again, *fresh;
    ck_assert_int_eq(rod_sim_create_string(text, "again", &again, NULL), 0);
    ck_assert_int_eq(rod_sim_create_string(text, "fresh", &fresh, NULL), 0);
    rod_sim_set_tip_load(again, NULL, m1);
    ck_assert_int_eq(rod_sim_static(again), ROD_OK);
    rod_sim_set_tip_load(again, NULL, m2);
    ck_assert_int_eq(rod_sim_static(again), ROD_OK);
    rod_sim_set_tip_load(fresh, NULL, m2);
    ck_assert_int_eq(rod_sim_static(fresh), ROD_OK);
    same_state(again, fresh);
    ck_assert_int_eq(rod_sim_step(again), ROD_OK);
    ck_assert_int_eq(rod_sim_static(again), ROD_EINVAL);
    rod_sim_free(again);
    rod_sim_free(fresh);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/scenarios/tendon_statics.ini",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
  rod_sim *again, *fresh;
  ck_assert_int_eq(rod_sim_create_file(path, &again, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_create_file(path, &fresh, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_static(again), ROD_OK);
  const char *names[2] = {"t1", "t2"};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(rod_sim_set_tendon(again, names[i], 3.0 + i), ROD_OK);
    ck_assert_int_eq(rod_sim_set_tendon(fresh, names[i], 3.0 + i), ROD_OK);
  }
  ck_assert_int_eq(rod_sim_static(again), ROD_OK);
  ck_assert_int_eq(rod_sim_static(fresh), ROD_OK);
  same_state(again, fresh);
  rod_sim_free(again);
  rod_sim_free(fresh);
}
END_TEST

/* ---- the clamp set between steps --------------------------------------- */

/* A rod hanging straight down, its clamp carried up at constant
 * acceleration a: an inextensible rod moves rigidly, every point at the
 * clamp's velocity a t, and the clamp pulls n(0) = rhoA L (g - a) - C L
 * (a t)^2 (the rod beyond s: -n(s) + rhoA (L - s) g + drag = rhoA (L - s)
 * a, the square-law drag C v|v| per unit length against the motion).
 * BDF-alpha differentiates the linear velocity exactly, so to solver
 * tolerance; on the RFEM chain the clamp's cubic Hermite motion over each
 * step is the parabola itself, whose acceleration the articulated-body
 * pass takes as the root's. */
START_TEST(clamp_carried_up) {
  const int backend = _i;
  rod_sim *sim;
  char text[256];
  snprintf(text, sizeof text,
           "[rod]\nlength = 0.3\ndrag = 0.003\n[base]\n"
           "direction = 0 0 -1\n[space]\nnodes = 20\n[solver]\nbackend = "
           "%s\n[rfem]\nsegments = 19\nlayout = uniform\n",
           backend ? "rfem" : "kirchhoff");
  ck_assert_int_eq(rod_sim_create_string(text, "up", &sim, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_points(sim), 20);
  const rod_scenario *sc = rod_sim_scenario(sim);
  const double a = 3.0, g = -9.81, L = 0.3, dt = sc->time.dt;
  const double rhoA =
      sc->rod.density * M_PI * 0.25 * sc->rod.diameter * sc->rod.diameter;
  const double h[4] = {0, 0, 1, 0}; /* a half turn about y: d3 = -z */
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  double p[60], v[60], n[60];
  rod_sim_get_forces(sim, n);
  ROD_ASSERT_NEAR(n[2], rhoA * L * g, 1e-8 * fabs(rhoA * L * g));
  for (int i = 1; i <= 20; i++) {
    const double t = i * dt;
    const double base[3] = {0, 0, 0.5 * a * t * t}, vel[3] = {0, 0, a * t};
    const double w[3] = {0, 0, 0};
    ck_assert_int_eq(rod_sim_set_base(sim, base, h, vel, w), ROD_OK);
    ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
    rod_sim_get_positions(sim, p);
    rod_sim_get_velocities(sim, v);
    rod_sim_get_forces(sim, n);
    for (int j = 0; j < 20; j++) {
      const double s = L * j / 19.0;
      ROD_ASSERT_NEAR(p[3 * j + 2], base[2] - s, 1e-8 * L);
      ROD_ASSERT_NEAR(p[3 * j + 0], 0, 1e-8 * L);
      ROD_ASSERT_NEAR(v[3 * j + 2], a * t, 1e-8 * a * t);
    }
    const double drag = 0.003 * L * (a * t) * (a * t);
    ROD_ASSERT_NEAR(n[2], rhoA * L * (g - a) - drag, 1e-8 * rhoA * L * (a - g));
  }
  rod_sim_free(sim);
}
END_TEST

/* Turning the clamp turns the static solution: clamp orientation R with
 * gravity g equals clamp along x with gravity R^T g, rotated by R; on both
 * backends (the RFEM chain in 3D, 29 segments: 30 points). */
START_TEST(turned_clamp_turns_the_solution) {
  const char *text =
      _i ? "[rod]\nlength = 0.3\n[solver]\nbackend = rfem\n[rfem]\n"
           "segments = 29\nlayout = uniform\nplanar = false\n"
           "[tip]\nforce = 0.02 0.01 0\n"
         : "[rod]\nlength = 0.3\n[space]\nnodes = 30\n"
           "[tip]\nforce = 0.02 0.01 0\n";
  /* R: 0.7 rad about the axis (1, 2, 2) / 3 */
  const double ang = 0.7, ax[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0};
  const double h[4] = {cos(ang / 2), sin(ang / 2) * ax[0], sin(ang / 2) * ax[1],
                       sin(ang / 2) * ax[2]};
  double R[9];
  { /* quaternion to rotation matrix, row-major */
    const double w = h[0], x = h[1], y = h[2], z = h[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),
                         2 * (x * z + w * y),     2 * (x * y + w * z),
                         1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y),     2 * (y * z + w * x),
                         1 - 2 * (x * x + y * y)};
    memcpy(R, r, sizeof r);
  }
  /* the clamp of the reference: base.direction = 1 0 0, so R(0) = the
   * shortest arc from e3 to x: a quarter turn about y */
  const double q0[4] = {sqrt(0.5), 0, sqrt(0.5), 0};
  double hq[4]; /* R R0 */
  hq[0] = h[0] * q0[0] - h[1] * q0[1] - h[2] * q0[2] - h[3] * q0[3];
  hq[1] = h[0] * q0[1] + h[1] * q0[0] + h[2] * q0[3] - h[3] * q0[2];
  hq[2] = h[0] * q0[2] - h[1] * q0[3] + h[2] * q0[0] + h[3] * q0[1];
  hq[3] = h[0] * q0[3] + h[1] * q0[2] - h[2] * q0[1] + h[3] * q0[0];
  const double g[3] = {0, 0, -9.81}, F[3] = {0.02, 0.01, 0};
  double gl[3], Fl[3], Fw[3];
  for (int i = 0; i < 3; i++) {
    gl[i] = R[i] * g[0] + R[3 + i] * g[1] + R[6 + i] * g[2]; /* R^T g */
    Fl[i] = R[i] * F[0] + R[3 + i] * F[1] + R[6 + i] * F[2];
    Fw[i] = F[i];
  }
  char ref_text[512];
  snprintf(ref_text, sizeof ref_text,
           "%s[environment]\ngravity = %.17g %.17g %.17g\n", text, gl[0], gl[1],
           gl[2]);
  rod_sim *ref, *turned;
  ck_assert_int_eq(rod_sim_create_string(ref_text, "ref", &ref, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_set_tip_load(ref, Fl, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_create_string(text, "turned", &turned, NULL),
                   ROD_OK);
  ck_assert_int_eq(rod_sim_set_tip_load(turned, Fw, NULL), ROD_OK);
  const double origin[3] = {0, 0, 0};
  ck_assert_int_eq(rod_sim_set_base(turned, origin, hq, origin, origin),
                   ROD_OK);
  ck_assert_int_eq(rod_sim_static(ref), ROD_OK);
  ck_assert_int_eq(rod_sim_static(turned), ROD_OK);
  double a[90], b[90];
  rod_sim_get_positions(ref, a);
  rod_sim_get_positions(turned, b);
  for (int j = 0; j < 30; j++)
    for (int i = 0; i < 3; i++) {
      double Ra = R[3 * i] * a[3 * j] + R[3 * i + 1] * a[3 * j + 1] +
                  R[3 * i + 2] * a[3 * j + 2];
      ROD_ASSERT_NEAR(b[3 * j + i], Ra, 10 * 1e-8 * 0.3);
    }
  rod_sim_free(ref);
  rod_sim_free(turned);
}
END_TEST

static Suite *api_suite(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("errors");
  tcase_add_test(tc, bad_values_as_the_loader);
  tcase_add_test(tc, errors_of_a_simulation);
  tcase_add_test(tc, no_steps_after_a_failure);
  suite_add_tcase(s, tc);
  tc = tcase_create("stepping");
  tcase_add_test(tc, stepping_matches_the_run);
  tcase_add_test(tc, recorder_grows_with_the_run);
  suite_add_tcase(s, tc);
  tc = tcase_create("loads");
  tcase_add_test(tc, tip_force_as_the_key);
  tcase_add_test(tc, tip_moment_bends_an_arc);
  tcase_add_test(tc, static_solved_again_before_steps);
  tcase_add_loop_test(tc, clamp_carried_up, 0, 2);
  tcase_add_loop_test(tc, turned_clamp_turns_the_solution, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(api_suite)
