/* Test helpers of the RFEM chain's contact suites (test_rfem_contact_*.c):
 * the backend made under the integrator a test picks, its static state
 * sampled, and the mechanical energy of a sample. */
#ifndef ROD_TEST_RFEM_CONTACTUTIL_H
#define ROD_TEST_RFEM_CONTACTUTIL_H

#include "rfem/rfem_contact.h"
#include "scenarioutil.h"

/* The integrator of the dynamic tests (-1: the scenario's). */
static int integrator = -1;

static inline rod_rfem *make(const rod_scenario *sc0) {
  void *self = NULL;
  rod_error err;
  rod_scenario sc = *sc0;
  if (integrator >= 0)
    sc.rfem.integrator = integrator;
  ck_assert_msg(rod_scenario_validate(&sc, &err) == ROD_OK, "%s", err.message);
  ck_assert_int_eq(rod_backend_rfem.create(&sc, &self, &err), ROD_OK);
  return self;
}

/* The backend of sc in its static state, sampled into s. */
static inline rod_rfem *at_static(const rod_scenario *sc, rod_sample *s) {
  rod_rfem *r = make(sc);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_rfem.solve_static(r, &st), ROD_OK);
  ck_assert_int_eq(rod_backend_rfem.sample(r, s), ROD_OK);
  return r;
}

static inline double energy(const rod_sample *s) {
  return s->kinetic + s->elastic + s->gravity;
}

#endif
