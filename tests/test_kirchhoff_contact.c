/* Static contact of the Kirchhoff/Cosserat rod (docs/contact.md): the rod
 * resting on a frictionless table against the heavy elastica (its own
 * shooting in the angle form, tests/elastica.h), small and large
 * deflection, the touchdown's node, lifting off, the table's forces
 * against the statics' balance, point contacts on bars and a box's edge,
 * and bars thinner than the grid. Impacts and persistent contact in time
 * are test_kirchhoff_impacts.c and test_kirchhoff_persistent.c. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastica.h"
#include "kirchhoff_contactutil.h"
#include "rod/sim.h"
#include "testutil.h"

/* The static state of sc against the heavy elastica of its rod and clamp
 * height (ref: a, clamp moment, clamp force): the larger relative error
 * of the clamp moment and force; first: the first pushed node (m). The
 * forces push, no node is deeper than the contact tolerance, and the
 * table and the clamp carry the weight q L (to 1e-9). */
static double against_elastica(const rod_scenario *sc, double ref[3],
                               double *first) {
  const double EI = sc->rod.bending_stiffness, d = sc->rod.diameter;
  const double q = sc->rod.density * M_PI * d * d / 4 * 9.81;
  const double h = sc->base.position[2] - d / 2, L = sc->rod.length;
  heavy_on_table(EI, q, h, ref);
  rod_sample s;
  void *k = at_static(sc, &s);
  double sum;
  table_forces(&s, sc->solver.tolerance * L, &sum, first);
  ck_assert_msg(fabs(sum - s.force[2] - q * L) < 1e-9 * q * L,
                "table %g + clamp %g != weight %g", sum, -s.force[2], q * L);
  const double e =
      fmax(fabs(s.moment[1] / ref[1] - 1), fabs(-s.force[2] / ref[2] - 1));
  fprintf(stderr,
          "%s, %d nodes, h = %g m: moment %.9g (%.9g), force %.9g (%.9g), "
          "error %.2e, first pushed node %.9g m (a = %.9g, %.2e off), table "
          "%.9g N\n",
          sc->rod.model == ROD_MODEL_COSSERAT ? "cosserat" : "kirchhoff",
          s.points, h, s.moment[1], ref[1], -s.force[2], ref[2], e, *first,
          ref[0], fabs(*first - ref[0]), sum);
  rod_backend_kirchhoff.destroy(k);
  return e;
}

/* The errors e (clamp) and td (touchdown, m) on n nodes each 6 times
 * below those on half the nodes (third order: 8; second: 4); kept. */
static void third_order(int n, double e, double td, double *e_prev,
                        double *t_prev) {
  ck_assert_msg(e < *e_prev / 6, "%d nodes: error %g after %g", n, e, *e_prev);
  ck_assert_msg(td < *t_prev / 6, "%d nodes: touchdown %g m off after %g", n,
                td, *t_prev);
  *e_prev = e;
  *t_prev = td;
}

/* The rod clamped h = 2 mm above the table. The static state has a grid
 * node at the touchdown (the free span's moment zero, found to the
 * contact tolerance) and even intervals on both sides of it, so the clamp
 * moment and force are those of the free span's ODE up to the first
 * lying interval's sag: third order in the interval (measured 1.19e-5,
 * 1.56e-6, 1.86e-7 on 50, 100, 200 nodes; on the uniform grid, with the
 * touchdown anywhere in its interval, 1.79e-4, 4.82e-5, 1.32e-5), the
 * touchdown's place too (5.5e-6, 6.9e-7, 9e-8 m; uniform: within an
 * interval, 6.6e-3, 3.1e-3, 1.4e-3 m). Each doubling must gain a factor
 * 6, which second order (4) does not. */
START_TEST(rod_on_table_heavy_elastica) {
  rod_scenario sc;
  double e_prev = INFINITY, t_prev = INFINITY, ref[3], first;
  for (int n = 50; n <= 200; n *= 2) {
    table_rod(&sc, n, false);
    const double e = against_elastica(&sc, ref, &first);
    third_order(n, e, fabs(first - ref[0]), &e_prev, &t_prev);
  }
  ck_assert(e_prev < 3e-7);
}
END_TEST

/* The static contact problem in time linear in the nodes: the rod on the
 * table on 401 points (190 pressed), in seconds where the dense
 * compliance took minutes under the suite's load (a sweep per pressed node
 * and an eigen-decomposition per update). Its clamp moment and force
 * within 3e-7 of the heavy elastica, as on 200 nodes (the touchdown's
 * place is then within the contact solve's scatter: measured 1.5e-7),
 * every force pushing and no node deeper than the tolerance
 * (against_elastica); its work in sweeps of the rod (rod_step_stats'
 * integrations, each linear in the nodes) at most 1.5 times that on 101
 * points (measured 119 against 139): the iterations do not grow with the nodes.
 */
static double integrations_on(int n) {
  rod_scenario sc;
  table_rod(&sc, n, false);
  void *k = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &k, &err), ROD_OK);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(k, &st), ROD_OK);
  rod_backend_kirchhoff.destroy(k);
  return st.integrations;
}

START_TEST(four_hundred_points) {
  rod_scenario sc;
  double ref[3], first;
  table_rod(&sc, 401, false);
  const double e = against_elastica(&sc, ref, &first);
  ck_assert_msg(e < 3e-7, "error %g", e);
  const double w101 = integrations_on(101), w401 = integrations_on(401);
  fprintf(stderr, "integrations: %g on 101 points, %g on 401\n", w101, w401);
  ck_assert_msg(w401 <= 1.5 * w101, "%g on 401 points, %g on 101", w401, w101);
}
END_TEST

/* The touchdown anywhere in its interval: on 56 and 68 nodes the uniform
 * grid presses the node before the touchdown, frees the next one (two on
 * 68) and presses the rest; with the node placed the error constant
 * e (n - 1)^3 is that of 50 nodes (measured 0.0014, 0.0015, 0.0015; e
 * 1.19e-5, 9.0e-6, 5.0e-6), to a factor 1.5. */
START_TEST(touchdown_anywhere) {
  rod_scenario sc;
  double ref[3], first, lo = INFINITY, hi = 0;
  const int nodes[] = {50, 56, 68};
  for (int i = 0; i < 3; i++) {
    table_rod(&sc, nodes[i], false);
    const double c = against_elastica(&sc, ref, &first) * pow(nodes[i] - 1, 3);
    lo = fmin(lo, c);
    hi = fmax(hi, c);
  }
  ck_assert_msg(hi < 1.5 * lo, "error constants %g to %g", lo, hi);
}
END_TEST

/* The other side of a stretch lying on the table: the rod clamped on the
 * table (its lowest fibre on it) and lifted at the tip by F = 0.01 N.
 * The lifted part's moment about the lift-off point vanishes: its length
 * is b = 2 F / q, and the tip rises by F b^3 / (3 EI) - q b^4 / (8 EI) =
 * (2/3) F^4 / (q^3 EI) = 0.1056 mm (small deflection; the slope, 6e-4,
 * puts the nonlinear terms at 4e-7). With the node at the lift-off: the
 * last pressed node 2.6e-8 m from L - b on 50 and 100 nodes, the tip's
 * rise 5.1e-4 and 6.2e-5 off (third order); the uniform grid: 5.7e-3 and
 * 7.8e-4 m, 4.5e-3 and 1.0e-3. */
START_TEST(lift_off_closed_form) {
  rod_scenario sc;
  double e_prev = INFINITY;
  for (int n = 50; n <= 100; n *= 2) {
    table_rod(&sc, n, false);
    const double d = sc.rod.diameter, EI = sc.rod.bending_stiffness;
    const double q = sc.rod.density * M_PI * d * d / 4 * 9.81, F = 0.01;
    sc.base.position[2] = d / 2;
    sc.tip.force[0] = sc.tip.force[1] = 0;
    sc.tip.force[2] = F;
    rod_sample s;
    void *k = at_static(&sc, &s);
    double sum, first;
    table_forces(&s, sc.solver.tolerance * sc.rod.length, &sum, &first);
    int last = 0;
    for (int i = 0; i < s.points; i++)
      if (s.contact_active[i])
        last = i;
    const double b = 2 * F / q, rise = 2.0 / 3 * pow(F, 4) / (q * q * q * EI);
    const double e =
        fabs((s.position[3 * (s.points - 1) + 2] - d / 2) / rise - 1);
    fprintf(stderr,
            "lifted at the tip, %d nodes: last pressed node %.9g m (%.9g), "
            "tip rise %.2e off\n",
            n, s.s[last], sc.rod.length - b, e);
    ck_assert_msg(fabs(s.s[last] - (sc.rod.length - b)) < 1e-6,
                  "%d nodes: lift-off at %g m, not %g", n, s.s[last],
                  sc.rod.length - b);
    ck_assert_msg(e < e_prev / 6, "%d nodes: tip rise %g off after %g", n, e,
                  e_prev);
    e_prev = e;
    rod_backend_kirchhoff.destroy(k);
  }
  ck_assert(e_prev < 1e-4);
}
END_TEST

/* A point contact on a curved body: the wire 100 times stiffer, clamped
 * horizontally over a bar (a capsule of radius R = 0.3 m across the rod,
 * its axis 0.6 m from the clamp, its top at the height of the clamped
 * wire's lowest fibre), no table. The rod sags onto the bar and touches it
 * at one point, where it is tangent to it. Small deflection (the slope
 * there 5e-5, the neglected terms its square): the cantilever under q and
 * the bar's force P at a, w(a) and w'(a) those of the circle of radius
 * R + r the axis keeps to, w = z0 - q x^2 (6 L^2 - 4 L x + x^2) / (24 EI)
 * + P x^2 (3 a - x) / (6 EI) for x <= a; the clamp moment q L^2 / 2 - P a.
 * With a node at the tangency (the gap's slope zero there) and the
 * contact tolerance at 8e-12 m (solver.tolerance = 1e-11; at 8e-9 m the
 * stiff rod's force moves by its stiffness times it, 4e-5 of the moment):
 * 1.2e-8 and 1.1e-8 off on 50 and 100 nodes, the contact point 8e-10 m
 * from a; the node nearest to it (the uniform grid) 0.24 and 0.038 off.
 * The test holds 1e-6 and 1e-7 m. */
/* The wire 100 times stiffer on n nodes over a bar of radius R whose top
 * lies `below` (m) under the clamped wire's lowest fibre, against the
 * propped cantilever's closed form: the clamp moment's relative error
 * within e_tol, the one pressed node within 1e-7 m of the contact. */
static void propped_by_bar_at(int n, double X, double R, double below,
                              double decoy, double e_tol) {
  rod_scenario sc;
  table_rod(&sc, n, false);
  sc.rod.bending_stiffness *= 100;
  sc.solver.tolerance = 1e-11;
  const double d = sc.rod.diameter, r = d / 2, EI = sc.rod.bending_stiffness;
  const double q = sc.rod.density * M_PI * d * d / 4 * 9.81;
  const double L = sc.rod.length, z0 = sc.base.position[2] - below;
  const double Zc = z0 - r - R, rho = R + r;
  sc.plane.enabled = false;
  rod_test_bar(&sc, X, Zc, 1, R, 0.05);
  if (decoy > 0) { /* a second bar as high, nearer the clamp: the rod, bent
                      up by the first, passes above it */
    sc.obstacles.count = 2;
    sc.obstacles.item[1] = sc.obstacles.item[0];
    snprintf(sc.obstacles.item[1].name, sizeof sc.obstacles.item[1].name,
             "decoy");
    sc.obstacles.item[1].center[0] = decoy;
  }
  /* the closed form: Newton on (P, a); the clamp at z0 + below */
  const double zc = z0 + below;
  double P = q * L, a = X;
  for (int it = 0; it < 50; it++) {
    double f[3][2];
    for (int v = 0; v < 3; v++) {
      const double Pv = P + (v == 1 ? 1e-9 : 0), av = a + (v == 2 ? 1e-9 : 0);
      const double c = sqrt(rho * rho - (av - X) * (av - X));
      f[v][0] = zc -
                q * av * av * (6 * L * L - 4 * L * av + av * av) / (24 * EI) +
                Pv * av * av * av / (3 * EI) - (Zc + c);
      f[v][1] = -q * av * (3 * L * L - 3 * L * av + av * av) / (6 * EI) +
                Pv * av * av / (2 * EI) + (av - X) / c;
    }
    const double J00 = (f[1][0] - f[0][0]) / 1e-9,
                 J01 = (f[2][0] - f[0][0]) / 1e-9;
    const double J10 = (f[1][1] - f[0][1]) / 1e-9,
                 J11 = (f[2][1] - f[0][1]) / 1e-9;
    const double det = J00 * J11 - J01 * J10;
    P -= (J11 * f[0][0] - J01 * f[0][1]) / det;
    a -= (-J10 * f[0][0] + J00 * f[0][1]) / det;
  }
  const double M = q * L * L / 2 - P * a;
  rod_sample s;
  void *k = at_static(&sc, &s);
  int pressed = -1, count = 0;
  for (int i = 0; i < s.points; i++)
    if (s.contact_active[i]) {
      pressed = i;
      count++;
    }
  ck_assert_msg(count == 1, "R = %g m, %d nodes: %d nodes pressed", R, n,
                count);
  const double e = fabs(s.moment[1] / M - 1);
  const double off = fabs(s.position[3 * pressed] - a);
  fprintf(stderr,
          "on a bar of radius %g m, %d nodes: contact at %.10f m (x, a = "
          "%.10f), clamp moment %.10e (%.10e), %.1e off\n",
          R, n, s.position[3 * pressed], a, s.moment[1], M, e);
  ck_assert_msg(e < e_tol, "%d nodes: clamp moment %g off", n, e);
  ck_assert_msg(off < 1e-7, "%d nodes: contact %g m from a", n, off);
  rod_backend_kirchhoff.destroy(k);
}

static void propped_by_bar(int n, double R, double below, double e_tol) {
  propped_by_bar_at(n, 0.6, R, below, 0, e_tol);
}

START_TEST(point_contact_on_a_bar) {
  for (int n = 50; n <= 100; n *= 2)
    propped_by_bar(n, 0.3, 0.0, 1e-6);
}
END_TEST

/* A bar thinner than the grid's interval (R = 0.2 mm, 50 nodes: 16 mm
 * apart) whose top lies 0.2 mm under the clamped wire: the free
 * cantilever sags 1.07 mm there, so its centreline ends beyond the bar,
 * no node inside it (main gave the free rod, no contact). The loading
 * path sees the chord between two nodes cross the bar, moves a node
 * there and finds the propped rod: clamp moment ERR off. */
/* The clamp moment (N m) of rod_on_table.ini's wire (no table) with its
 * clamp turned up 3 mrad on n nodes, solver.tolerance = 1e-11, over the
 * top edge of a box (R = 0: x from 0.55 to 0.6 m, its top 2 mm under
 * the clamped wire's lowest fibre) or over a bar of radius R > 0 whose top
 * is there, its axis along y at x = 0.6 m. */
static double over_an_edge(int n, double R) {
  rod_scenario sc;
  table_rod(&sc, n, false);
  sc.solver.tolerance = 1e-11;
  sc.plane.enabled = false;
  const double th = 0.003;
  sc.base.direction[0] = cos(th);
  sc.base.direction[2] = sin(th);
  const double top = sc.base.position[2] - 2e-3 - sc.rod.diameter / 2;
  if (R > 0) {
    rod_test_bar(&sc, 0.6, top - R, 1, R, 0.05);
  } else {
    rod_test_bar(&sc, 0.575, top - 0.05, 1, 0, 0);
    rod_obstacle_def *o = &sc.obstacles.item[0];
    snprintf(o->name, sizeof o->name, "box");
    o->shape = ROD_SHAPE_BOX;
    o->axis[1] = 0;
    o->half_extents[0] = 0.025;
    o->half_extents[1] = 0.05;
    o->half_extents[2] = 0.05;
  }
  rod_sample s;
  void *k = at_static(&sc, &s);
  int count = 0;
  for (int i = 0; i < s.points; i++)
    count += s.contact_active[i];
  ck_assert_msg(count == 1, "%d nodes: %d pressed", n, count);
  const double M = s.moment[1];
  rod_backend_kirchhoff.destroy(k);
  return M;
}

/* The wire over a box's edge touches it at one point, where the rod's
 * normal passes through the edge: the gap's least value along the rod
 * (its slope jumps from the face's to the edge's curvature 1 / r there,
 * which no parabola through the nodes' gaps finds). Reference: bars of
 * radius 1e-4 and 1e-5 m along the edge, linear in R to R = 0 (their
 * constraint differs from the edge's by about R theta^2 / 2); the bound
 * is that extrapolation's step from the thinner bar (the neglected R^2
 * term is smaller). Measured on 60 and 100 nodes: the box 5.34839674e-3
 * N m, the bars 5.34840166e-3 and 5.34839723e-3, the extrapolation
 * 5.34839674e-3 (box within 1e-11 of it, the bound 4.9e-10); before, the
 * node stayed on the face (6 % off on 50 nodes) or the statics failed. */
START_TEST(point_contact_on_a_box_edge) {
  for (int n = 60; n <= 100; n += 40) {
    const double M1 = over_an_edge(n, 1e-4), M2 = over_an_edge(n, 1e-5);
    const double M0 = M2 - (M1 - M2) / 9.0, M = over_an_edge(n, 0);
    fprintf(stderr,
            "over a box's edge, %d nodes: %.9e N m, bars to R = 0 "
            "%.9e (bound %.1e)\n",
            n, M, M0, fabs(M2 - M0));
    ck_assert_msg(fabs(M - M0) <= fabs(M2 - M0), "%d nodes: %g against %g", n,
                  M, M0);
  }
}
END_TEST

START_TEST(point_contact_on_a_thin_bar) {
  for (int n = 50; n <= 100; n *= 2)
    propped_by_bar(n, 2e-4, 2e-4, 1e-6);
}
END_TEST

/* Two such bars (R = 0.2 mm, tops 0.2 mm under the wire) at x = 0.55 and
 * 0.65 m on 3 and 5 nodes, both within one interval of the grid: the
 * loading path moves a node into the one the chord crosses and finds the
 * rod propped by the outer bar, above the inner one. Before, the path's
 * test of each load step's move compared the moved node's place with its
 * old one, a grid's move of up to 0.25 m against the 5 % of the length a
 * step may move, so every step was halved until the path gave up: "static
 * equilibrium did not converge". Now the node's accepted place is on its
 * chord: the clamp moment within 1e-6 of the closed form, as on the fine
 * grids above (measured 1.9e-7 and 6.1e-8). */
START_TEST(thin_bars_on_a_coarse_grid) {
  for (int n = 3; n <= 5; n += 2)
    propped_by_bar_at(n, 0.65, 2e-4, 2e-4, 0.55, 1e-6);
}
END_TEST

/* The same two bars under a grid of 2 nodes, the clamp and the tip: the
 * chord between them crosses the outer bar and neither node may move into
 * it, however small the load step. Refused as the input's (ROD_EINVAL,
 * the refusal naming the bar and space.nodes), where the path gave up
 * with "did not converge". */
START_TEST(thin_bar_between_fixed_nodes_refused) {
  rod_scenario sc;
  table_rod(&sc, 2, false);
  sc.rod.bending_stiffness *= 100;
  sc.plane.enabled = false;
  const double r = sc.rod.diameter / 2, R = 2e-4;
  rod_test_bar(&sc, 0.65, sc.base.position[2] - 2e-4 - r - R, 1, R, 0.05);
  void *k = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &k, &err), ROD_OK);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(k, &st), ROD_EINVAL);
  const char *why = rod_backend_kirchhoff.refusal(k);
  fprintf(stderr, "2 nodes over a thin bar: %s\n", why);
  ck_assert(strstr(why, "obstacle.bar between nodes 0 and 1") != NULL);
  ck_assert(strstr(why, "set space.nodes = 4001 or more") != NULL);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

/* The Cosserat rod of the same wire: its shear and extension change the
 * answer by about (d / a)^2, 1e-5; on 100 nodes as the Kirchhoff rod's
 * error. */
START_TEST(cosserat_on_table) {
  rod_scenario sc;
  double ref[3], first;
  table_rod(&sc, 100, true);
  ck_assert(against_elastica(&sc, ref, &first) < 1e-4);
}
END_TEST

/* Large deflection: the rod 2 m long, ten times softer, clamped 0.3 m
 * above the table (touchdown 2.9 % beyond the small-deflection one; the
 * statics load it in steps with contact, the free rod would hang through
 * the table): third order with the node at the touchdown as above
 * (measured 2.97e-5 on 50 nodes, 3.29e-6 on 100, touchdown 2.5e-5 and
 * 3.0e-6 m off; the uniform grid: 6.1e-5, 4.4e-5). */
START_TEST(rod_on_table_large_deflection) {
  rod_scenario sc;
  double ref[3], first, e_prev = INFINITY, t_prev = INFINITY;
  for (int n = 50; n <= 100; n *= 2) {
    table_rod(&sc, n, false);
    sc.rod.length = 2.0;
    sc.rod.bending_stiffness *= 0.1;
    sc.base.position[2] = 0.3 + sc.rod.diameter / 2;
    const double e = against_elastica(&sc, ref, &first);
    const double EI = sc.rod.bending_stiffness, d = sc.rod.diameter;
    const double q = sc.rod.density * M_PI * d * d / 4 * 9.81;
    ck_assert(ref[0] > 1.02 * pow(72 * EI * 0.3 / q, 0.25)); /* nonlinear */
    third_order(n, e, fabs(first - ref[0]), &e_prev, &t_prev);
  }
  ck_assert(e_prev < 5e-6);
}
END_TEST

static Suite *kirchhoff_contact_suite(void) {
  Suite *su = suite_create("kirchhoff_contact");
  TCase *s = tcase_create("statics");
  tcase_set_timeout(s, 120);
  tcase_add_test(s, rod_on_table_heavy_elastica);
  tcase_add_test(s, four_hundred_points);
  tcase_add_test(s, touchdown_anywhere);
  tcase_add_test(s, lift_off_closed_form);
  tcase_add_test(s, point_contact_on_a_bar);
  tcase_add_test(s, point_contact_on_a_thin_bar);
  tcase_add_test(s, point_contact_on_a_box_edge);
  tcase_add_test(s, thin_bars_on_a_coarse_grid);
  tcase_add_test(s, thin_bar_between_fixed_nodes_refused);
  tcase_add_test(s, cosserat_on_table);
  tcase_add_test(s, rod_on_table_large_deflection);
  suite_add_tcase(su, s);
  return su;
}

ROD_TEST_MAIN(kirchhoff_contact_suite)
