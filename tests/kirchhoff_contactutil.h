/* Test helpers of the Kirchhoff rod's contact suites (kirchhoff_contact,
 * kirchhoff_impacts, kirchhoff_persistent): the falling rod, the rod on
 * the table, the static state of a scenario, the table's forces. */
#ifndef ROD_TEST_KIRCHHOFF_CONTACTUTIL_H
#define ROD_TEST_KIRCHHOFF_CONTACTUTIL_H

#include <check.h>

#include "rod/scenario.h"
#include "scenarioutil.h"
#include "sim/backend.h"

/* cantilever_table.ini on the Kirchhoff rod without drag: the falling
 * rod of the impact tests */
static inline void falling_rod(rod_scenario *sc) {
  rod_test_load(sc, "cantilever_table.ini");
  sc->solver.backend = ROD_BACKEND_KIRCHHOFF;
  sc->rod.drag = 0;
}

/* The Kirchhoff backend of sc in its static state, sampled into s. */
static inline void *at_static(const rod_scenario *sc, rod_sample *s) {
  void *k = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_backend_kirchhoff.create(sc, &k, &err), ROD_OK);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(k, &st), ROD_OK);
  ck_assert_int_eq(rod_backend_kirchhoff.sample(k, s), ROD_OK);
  return k;
}

/* The contact forces of s: each pushes (along +z, the table's normal),
 * no point deeper than tol; their sum (N, z) and the first pushed point's
 * arclength (m). */
static inline void table_forces(const rod_sample *s, double tol, double *sum,
                                double *first) {
  ck_assert(s->contact_force != NULL);
  ck_assert_msg(s->contact_gap_min >= -tol, "gap %g below -%g",
                s->contact_gap_min, tol);
  *sum = 0;
  *first = -1;
  for (int i = 0; i < s->points; i++) {
    const double *f = s->contact_force + 3 * i;
    ck_assert(f[0] == 0 && f[1] == 0 && f[2] >= 0);
    ck_assert_int_eq(s->contact_active[i], f[2] > 0);
    *sum += f[2];
    if (f[2] > 0 && *first < 0)
      *first = s->s[i];
  }
}

/* rod_on_table.ini as a Kirchhoff (or Cosserat) rod on n nodes. */
static inline void table_rod(rod_scenario *sc, int n, bool cosserat) {
  rod_test_load(sc, "rod_on_table.ini");
  sc->solver.backend = ROD_BACKEND_KIRCHHOFF;
  sc->rod.model = cosserat ? ROD_MODEL_COSSERAT : ROD_MODEL_KIRCHHOFF;
  sc->space.nodes = n;
}

#endif
