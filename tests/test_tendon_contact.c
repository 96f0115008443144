/* Tendons on a rod pressed on a plane (docs/tendons.md, docs/contact.md):
 * the rod of rod_on_table.ini on the Kirchhoff backend with a tendon that
 * bends it down onto the table. The static state's balance against the
 * table's reaction; a tendon that ends inside the rod keeps its node at
 * its end when the touchdown's node is placed (statics) and followed
 * (space.follow_contact, a run), so the clamp moment converges at the
 * third order of the placed touchdown. */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "kirchhoff/kirchhoff_regrid.h"
#include "kirchhoff_contactutil.h"
#include "rod/sim.h"
#include "scenarioutil.h"
#include "sim/backend.h"
#include "testutil.h"

/* rod_on_table.ini (the wire clamped along +x 2 mm above the table) on n
 * nodes with the tendon t0 of tension T at 5 mm below its axis (the
 * material frame's d1 is -z there) from the clamp to end (m; < 0: the
 * tip). */
static void pressed_rod(rod_scenario *sc, int n, double T, double end) {
  table_rod(sc, n, false);
  rod_tendon_def *t = &sc->tendons.item[0];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "t0");
  t->offset[0] = 5e-3;
  t->tension = T;
  t->end.tip = end < 0;
  t->end.s = end < 0 ? 0 : end;
  sc->tendons.count = 1;
}

/* The rod and its tendon as one body: the section's resultant at the
 * clamp, n(0) + T t(0), balances the table's forces and the weight
 * (n~(L) = 0 at the free tip; t(0) = d3(0) = x, the tendon's tangent at
 * the clamp, since pb = e3 + u x r is along e3 for a torsion-free rod).
 * The tendon presses the rod down: the touchdown comes nearer the clamp
 * than without it (0.4638 m). */
START_TEST(tendon_presses_the_rod_on_the_table) {
  rod_scenario sc;
  pressed_rod(&sc, 60, 1.0, -1);
  rod_sample s;
  void *k = at_static(&sc, &s);
  const double q = sc.rod.density * M_PI / 4 * sc.rod.diameter *
                   sc.rod.diameter * 9.81; /* N/m */
  const double L = sc.rod.length, T = sc.tendons.item[0].tension;
  double sum, first;
  table_forces(&s, sc.solver.tolerance * L, &sum, &first);
  const double n0[3] = {s.force[0] + T, s.force[1], s.force[2]};
  ck_assert_msg(fabs(n0[0]) < 1e-9 * (q * L + T) && fabs(n0[1]) == 0 &&
                    fabs(sum - n0[2] - q * L) < 1e-9 * q * L,
                "n~(0) = (%g, %g, %g), table %g, weight %g", n0[0], n0[1],
                n0[2], sum, q * L);
  ck_assert_msg(first < 0.46, "touchdown at %g m", first);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* The node at the tendon's end (0.3 m, in the lifted span) stays there
 * while the touchdown's node is placed; the clamp moment then converges
 * at the third order of the placed touchdown (rod_on_table_heavy_elastica):
 * against 200 nodes, doubling 50 nodes gains a factor 6 or more (measured
 * 9.3; against 400 nodes 7.7 and 6.2 for 50, 100, 200), where an interval
 * straddling the tendon's end errs at first order. */
START_TEST(tendon_end_stays_a_node_in_statics) {
  const double end = 0.3;
  double m[3];
  const int nodes[3] = {50, 100, 200};
  for (int c = 0; c < 3; c++) {
    rod_scenario sc;
    pressed_rod(&sc, nodes[c], 1.0, end);
    rod_sample s;
    void *k = at_static(&sc, &s);
    const rod_kirchhoff *kr = k;
    bool at_end = false;
    for (int j = 0; j < kr->nodes; j++)
      at_end = at_end || kr->s[j] == end;
    ck_assert_msg(at_end, "%d nodes: no node at the tendon's end", nodes[c]);
    m[c] = s.moment[1];
    rod_backend_kirchhoff.destroy(k);
  }
  ck_assert_msg(fabs(m[1] - m[2]) * 6 < fabs(m[0] - m[2]),
                "clamp moment off by %g and %g N m on 50 and 100 nodes",
                fabs(m[0] - m[2]), fabs(m[1] - m[2]));
}
END_TEST

/* In a run the tension grows from 1 to 3 N over 0.2 s and the touchdown
 * moves towards the clamp by several intervals; the node that follows it
 * (space.follow_contact) moves, the tendon's end node stays at 0.3 m. */
START_TEST(tendon_end_stays_a_node_in_a_run) {
  rod_scenario sc;
  pressed_rod(&sc, 60, 1.0, 0.3);
  sc.rod.bending_damping = 1e-4;
  rod_sample s;
  rod_kirchhoff *k = at_static(&sc, &s);
  rod_step_stats st;
  rod_drive d;
  memset(&d, 0, sizeof d);
  d.tendon[0] = true;
  const double dt = 2e-3;
  int regrids = 0;
  for (int i = 1; i <= 150; i++) {
    d.tendon_tension[0] = 1.0 + 2.0 * fmin(i * dt / 0.2, 1.0);
    ck_assert_int_eq(rod_backend_kirchhoff.set_drive(k, &d, NULL), ROD_OK);
    ck_assert_int_eq(rod_backend_kirchhoff.step(k, i * dt, &st), ROD_OK);
    bool at_end = false;
    for (int j = 0; j < k->nodes; j++)
      at_end = at_end || k->s[j] == 0.3;
    ck_assert_msg(at_end, "step %d: no node at the tendon's end", i);
    regrids = k->regrids;
  }
  ck_assert_msg(regrids > 0, "the touchdown's node never moved");
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

static Suite *tendon_contact_suite(void) {
  Suite *s = suite_create("tendon_contact");
  TCase *tc = tcase_create("table");
  tcase_add_test(tc, tendon_presses_the_rod_on_the_table);
  tcase_add_test(tc, tendon_end_stays_a_node_in_statics);
  tcase_add_test(tc, tendon_end_stays_a_node_in_a_run);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_contact_suite)
