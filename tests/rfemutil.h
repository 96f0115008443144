/* Test helpers of the RFEM backend's suites (test_rfem_*.c): a weightless
 * cantilever chain, the backend made and solved through its table of
 * operations, its tip, and the check of a layout's order of convergence. */
#ifndef ROD_TEST_RFEMUTIL_H
#define ROD_TEST_RFEMUTIL_H

#include <string.h>

#include "rfem/rfem_state.h"
#include "sim/backend.h"
#include "testutil.h"

/* A cantilever along +x, L = 1 m, EI = 1 N m^2, d = 1 mm, weightless. */
static inline void cantilever(rod_scenario *sc, int n, rod_layout_kind layout,
                              bool planar) {
  rod_scenario_default(sc);
  sc->rod.length = 1.0;
  sc->rod.diameter = 1e-3;
  sc->rod.has_bending_stiffness = true;
  sc->rod.bending_stiffness = 1.0;
  sc->environment.gravity[2] = 0.0;
  sc->rfem.segments = n;
  sc->rfem.layout = layout;
  sc->rfem.planar = planar;
  sc->solver.tolerance = 1e-13;
  sc->solver.backend = ROD_BACKEND_RFEM;
}

static inline rod_rfem *make(const rod_scenario *sc) {
  void *self = NULL;
  rod_error err;
  ck_assert_int_eq(rod_backend_rfem.create(sc, &self, &err), ROD_OK);
  return self;
}

static inline void solve_static(rod_rfem *r) {
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_rfem.solve_static(r, &st), ROD_OK);
}

static inline void tip_of(rod_rfem *r, double tip[3]) {
  rod_sample s;
  ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
  memcpy(tip, s.position + 3 * (s.points - 1), 3 * sizeof(double));
}

/* Static tip of a scenario. */
static inline void static_tip(const rod_scenario *sc, double tip[3]) {
  rod_rfem *r = make(sc);
  solve_static(r);
  tip_of(r, tip);
  rod_backend_rfem.destroy(r);
}

/* Errors at n, 2n, 4n segments fall at second order for the centered
 * layout and at first order for the uniform one (observed orders within
 * 0.1 of that). */
static inline void check_layout_order(int layout, const double err[3]) {
  double order = layout == ROD_LAYOUT_CENTERED ? 2.0 : 1.0;
  double p1 = rod_observed_order(err[0], err[1]);
  double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(fabs(p1 - order) < 0.1 && fabs(p2 - order) < 0.1,
                "layout %d: orders %.3f %.3f (errors %.3g %.3g %.3g)", layout,
                p1, p2, err[0], err[1], err[2]);
}

#endif
