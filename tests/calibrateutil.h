/* Test helpers of the calibration suites (test_calibrate_*.c): the test
 * rod, the weight release of Till & Rucker 2017 on a coarse grid (30 nodes,
 * dt = 2 ms: 35 ms a run of 0.5 s), its true parameters, a start moved off
 * them, and fits that must converge. */
#ifndef ROD_TEST_CALIBRATEUTIL_H
#define ROD_TEST_CALIBRATEUTIL_H

#include "rod/calibrate.h"
#include "testutil.h"

static inline rod_scenario test_rod(double duration) {
  const char *data = getenv("RODSIM_DATA");
  ck_assert_msg(data != NULL, "RODSIM_DATA not set");
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini", data);
  rod_scenario sc;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  sc.space.nodes = 30;
  sc.time.dt = 2e-3;
  sc.time.duration = duration;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  return sc;
}

/* The coordinates a synthetic tip trajectory holds: x and z. */
static const bool XZ[3] = {true, false, true};

/* The truth as a vector in the order of the default keys. */
static inline void truth_of(const rod_scenario *sc, double v[3]) {
  v[0] = sc->rod.bending_stiffness;
  v[1] = sc->rod.density;
  v[2] = sc->rod.drag;
}

/* The start of a fit: each default key scaled. */
static inline rod_scenario moved(const rod_scenario *sc, double ei, double rho,
                                 double drag) {
  rod_scenario s = *sc;
  s.rod.bending_stiffness *= ei;
  s.rod.density *= rho;
  s.rod.drag *= drag;
  return s;
}

static inline void fit(const rod_scenario *start, const rod_tip_data *d,
                       const rod_calib_options *o, rod_calib_result *r,
                       rod_scenario *fitted) {
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_calib_fit(start, d, "synthetic", o, fitted, r, &err);
  ck_assert_msg(st == ROD_OK, "fit: %s: %s", rod_strerror(st), err.message);
  ck_assert(r->converged);
}

static inline void fit_shape(const rod_scenario *start, const rod_shape_data *d,
                             const rod_calib_options *o, rod_calib_result *r) {
  rod_error err = {{0}, {0}, {0}, 0};
  rod_scenario fitted;
  int st = rod_calib_fit_shape(start, d, "shape", o, &fitted, r, &err);
  ck_assert_msg(st == ROD_OK, "fit: %s: %s", rod_strerror(st), err.message);
  ck_assert(r->converged);
}

#endif
