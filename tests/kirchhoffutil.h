/* Test helpers that look inside the Kirchhoff backend
 * (src/kirchhoff/kirchhoff_rod.h). */
#ifndef ROD_TEST_KIRCHHOFFUTIL_H
#define ROD_TEST_KIRCHHOFFUTIL_H

#include "kirchhoff/kirchhoff_rod.h"
#include "scenarioutil.h"

/* A Kirchhoff backend `steps` steps into the run of sc, with the next
 * step's BDF-alpha coefficients and loads set. */
static inline rod_kirchhoff *rod_test_before_step(const rod_scenario *sc,
                                                  int steps) {
  rod_kirchhoff *k = rod_test_backend(sc, steps);
  rod_bdf_coeffs c = rod_bdf_alpha(sc->time.alpha, sc->time.dt);
  kr_set_coefficients(k, &c, true);
  kr_set_loads(k, (steps + 1) * sc->time.dt, false);
  return k;
}

#endif
