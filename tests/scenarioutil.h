/* Test helpers around the shipped scenarios: load one by name and run it
 * into an in-memory recording. */
#ifndef ROD_SCENARIOUTIL_H
#define ROD_SCENARIOUTIL_H

#include <stdio.h>
#include <string.h>

#include "rod/recorder.h"
#include "rod/scenario.h"
#include "sim/backend.h"
#include "testutil.h"

/* data/scenarios/NAME (RODSIM_DATA overrides data/). */
static inline void rod_test_load(rod_scenario *sc, const char *name) {
  char path[1024];
  rod_error err;
  snprintf(path, sizeof path, "%s/scenarios/%s",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data", name);
  rod_scenario_default(sc);
  ck_assert_int_eq(rod_scenario_load(sc, path, &err), ROD_OK);
}

/* The impulse on a coarse Euler grid (40 nodes) for 0.2 s: a hard case
 * for modified shooting, and a discretisation that creates energy with the
 * scenario's alpha = -0.48. */
static inline void rod_test_coarse_euler_impulse(rod_scenario *sc) {
  rod_test_load(sc, "impulse.ini");
  sc->space.integrator = ROD_SPACE_EULER;
  sc->space.nodes = 40;
  sc->time.duration = 0.2;
}

/* A soft rod hanging under its own weight: L 0.3 m, d 5 mm, 1100 kg/m^3,
 * E 4 MPa (w L^3 / EI = 47), no tip mass. */
static inline void rod_test_soft_rod(rod_scenario *sc) {
  rod_scenario_default(sc);
  sc->rod.length = 0.3;
  sc->rod.diameter = 5e-3;
  sc->rod.density = 1100;
  sc->rod.youngs_modulus = 4e6;
  sc->rod.has_bending_stiffness = false;
}

/* A weightless rod along +z (the material frame the world's at the clamp)
 * for tendons, no gravity: L 0.5 m, d 2 mm, E 200 GPa, G 80 GPa, shear
 * stiffness G A (validation/tendon_rw.py's), solver.tolerance 1e-13. */
static inline void rod_test_tendon_rod(rod_scenario *sc, rod_model_kind model) {
  rod_scenario_default(sc);
  sc->rod.model = model;
  sc->rod.length = 0.5;
  sc->rod.diameter = 2e-3;
  sc->rod.density = 8000;
  sc->rod.youngs_modulus = 200e9;
  sc->rod.shear_modulus = 80e9;
  sc->environment.gravity[0] = sc->environment.gravity[1] = 0;
  sc->environment.gravity[2] = 0;
  sc->base.direction[0] = sc->base.direction[1] = 0;
  sc->base.direction[2] = 1;
  sc->rod.shear_coefficient = 1;
  sc->rod.has_shear_coefficient = true;
  sc->solver.tolerance = 1e-13;
}

/* A straight tendon t<count> at (x, y) with a tension, from the clamp to
 * the tip, added to sc. */
static inline rod_tendon_def *rod_test_add_tendon(rod_scenario *sc, double x,
                                                  double y, double tension) {
  rod_tendon_def *t = &sc->tendons.item[sc->tendons.count];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "t%d", sc->tendons.count);
  t->offset[0] = x;
  t->offset[1] = y;
  t->tension = tension;
  t->end.tip = true;
  sc->tendons.count++;
  return t;
}

/* `rodsim static` on the scenario text beside a data file (name and its
 * text; NULL: none) in a new directory: exit 2 and one line naming key. */
static inline void rod_test_refused(const char *data_name, const char *data,
                                    const char *scenario_text,
                                    const char *key) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "refused");
  if (data_name)
    rod_test_write(dir, data_name, data);
  rod_test_write(dir, "bad.ini", scenario_text);
  char args[600];
  snprintf(args, sizeof args, "static '%s/bad.ini' -o '%s/out.h5'", dir, dir);
  rod_cli_result r = rod_test_cli(dir, args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, key) != NULL, "no %s in: %s", key, r.err);
  ck_assert_msg(strchr(r.err, '\n') == strrchr(r.err, '\n'),
                "more than one line: %s", r.err);
  rod_test_rmdir(dir);
}

/* Run sc without HDF5; the caller frees the recording. */
static inline rod_recorder *rod_test_run(const rod_scenario *sc,
                                         rod_sim_result *res) {
  rod_recorder *r = rod_recorder_alloc(sc, false);
  rod_sim_sink sink = rod_recorder_sink(r);
  rod_error err;
  ck_assert_int_eq(rod_sim_run(sc, &sink, false, res, &err), ROD_OK);
  return r;
}

/* A Kirchhoff backend (its state, void * for the backend ops) at rest in
 * the static solution and then `steps` steps into the run. */
static inline void *rod_test_backend(const rod_scenario *sc, int steps) {
  void *self;
  rod_error err;
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.create(sc, &self, &err), ROD_OK);
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(self, &st), ROD_OK);
  for (int i = 1; i <= steps; i++)
    ck_assert_int_eq(rod_backend_kirchhoff.step(self, i * sc->time.dt, &st),
                     ROD_OK);
  return self;
}

/* One more step of such a backend, to time t (s). */
static inline void rod_test_step(void *self, double t) {
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.step(self, t, &st), ROD_OK);
}

/* A run of sc from rest through the times of ref's n rows {t (s), tip x,
 * tip z (m)}, increasing multiples of time.dt: the tip's largest distance
 * from them (m), the tip kept in the x-z plane (|y| < 1e-12 m). */
static inline double rod_test_planar_tip_error(const rod_scenario *sc,
                                               const double (*ref)[3], int n) {
  void *self = rod_test_backend(sc, 0);
  double worst = 0;
  int j = 0;
  for (int i = 1; j < n; i++) {
    const double t = i * sc->time.dt;
    rod_test_step(self, t);
    if (fabs(t - ref[j][0]) > 1e-9)
      continue;
    rod_sample s;
    rod_backend_kirchhoff.sample(self, &s);
    const double *tip = s.position + 3 * (s.points - 1);
    worst = fmax(worst, hypot(tip[0] - ref[j][1], tip[2] - ref[j][2]));
    ck_assert(fabs(tip[1]) < 1e-12);
    j++;
  }
  rod_backend_kirchhoff.destroy(self);
  return worst;
}

/* The block on an incline (friction tests): cantilever_table.ini without
 * drag, its table 5 mm below the clamp, the tip pulled sideways by a
 * string with Py = ROD_TEST_INCLINE_PY N (tip.preload) cut at t = 0. */
#define ROD_TEST_INCLINE_PY 0.003
static inline void rod_test_incline(rod_scenario *sc) {
  rod_test_load(sc, "cantilever_table.ini");
  sc->rod.drag = 0;
  sc->plane.point[2] = -0.005;
  sc->tip.preload[0] = 0;
  sc->tip.preload[1] = ROD_TEST_INCLINE_PY;
  sc->tip.preload[2] = 0;
}

/* Its frictionless static state s: the tip's node alone touches, with a
 * normal force N > 2 Py (returned), and the string bent the rod
 * sideways. */
static inline double rod_test_incline_normal(const rod_sample *s) {
  const int tip = s->points - 1;
  double N = 0;
  for (int i = 0; i < s->points; i++) {
    N += s->contact_force[3 * i + 2];
    if (i != tip)
      ck_assert(s->contact_force[3 * i + 2] == 0); /* the tip alone */
  }
  ck_assert(N > 2 * ROD_TEST_INCLINE_PY);
  ck_assert(s->position[3 * tip + 1] > 1e-4);
  return N;
}

/* The scenario's one body: a capsule "bar" centred at (x, 0, z) (m) along
 * world axis `axis` (0 x, 1 y), of radius R and half length h (m). */
static inline void rod_test_bar(rod_scenario *sc, double x, double z, int axis,
                                double R, double h) {
  sc->obstacles.count = 1;
  rod_obstacle_def *o = &sc->obstacles.item[0];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "bar");
  o->shape = ROD_SHAPE_CAPSULE;
  o->center[0] = x;
  o->center[2] = z;
  o->axis[axis] = 1;
  o->radius = R;
  o->half_length = h;
}

#endif
