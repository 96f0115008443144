/* The guard on converged states (src/sim/guard.h): a centreline that
 * passes through itself, a clamp reaction that does not balance the
 * loads, values that cannot be; a static state that fails is written but
 * the run stops with exit status 1. */
#include <string.h>

#include "core/v3.h"
#include "scenarioutil.h"
#include "sim/guard.h"

enum { N = 41 };

/* A sample of N points along a planar curve: straight along x, or a
 * hairpin of radius r (two legs joined by a half circle). */
typedef struct {
  double s[N], p[3 * N], q[4 * N], n[3 * N], m[3 * N];
  rod_sample smp;
} curve;

static void make_curve(curve *c, double L, double r) {
  memset(c, 0, sizeof *c);
  const double leg = 0.5 * (L - M_PI * r);
  for (int i = 0; i < N; i++) {
    double s = L * i / (N - 1), x, z, th; /* th: tangent angle from +x */
    c->s[i] = s;
    if (r <= 0 || s <= leg) {
      x = s, z = 0, th = 0;
    } else if (s <= leg + M_PI * r) {
      double a = (s - leg) / r;
      x = leg + r * sin(a), z = r - r * cos(a), th = a;
    } else {
      x = leg - (s - leg - M_PI * r), z = 2 * r, th = M_PI;
    }
    c->p[3 * i] = x;
    c->p[3 * i + 2] = z;
    /* R = rotation about -y by th applied to the frame with e3 = +x */
    double h0[4], rot[4], e[3] = {0, -1, 0};
    const double d[3] = {1, 0, 0};
    rod_frame_from_tangent(h0, d);
    quat_axis_angle(rot, e, th);
    quat_mul(c->q + 4 * i, rot, h0);
  }
  c->smp = (rod_sample){.points = N,
                        .s = c->s,
                        .position = c->p,
                        .orientation = c->q,
                        .force = c->n,
                        .moment = c->m};
}

START_TEST(self_intersection) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  sc.rod.diameter = 0.01;
  rod_guard g;
  rod_guard_init(&g, &sc);
  char msg[256];
  curve c;
  make_curve(&c, 1.0, 0.0);
  ck_assert(!rod_guard_crossing(&g, &c.smp, msg, sizeof msg));
  ck_assert(rod_guard_values(&c.smp, msg, sizeof msg));
  /* legs 2 r = 0.02 m apart: clear of each other */
  make_curve(&c, 1.0, 0.01);
  ck_assert(!rod_guard_crossing(&g, &c.smp, msg, sizeof msg));
  /* 0.008 m apart, less than the diameter */
  make_curve(&c, 1.0, 0.004);
  ck_assert(rod_guard_crossing(&g, &c.smp, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "passes through itself"));
  /* non-finite values and negative energies */
  make_curve(&c, 1.0, 0.0);
  c.p[7] = NAN;
  ck_assert(!rod_guard_values(&c.smp, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "not finite"));
  make_curve(&c, 1.0, 0.0);
  c.smp.kinetic = -1.0;
  ck_assert(!rod_guard_values(&c.smp, msg, sizeof msg));
  rod_guard_free(&g);
}
END_TEST

/* The guard keeps the sweep's order from one sample to the next: a rod
 * bending from straight into ever tighter hairpins and back, then on a
 * coarser grid, gets the verdict and the message a new guard gives each
 * sample, and crosses itself below r = 0.005 m (legs 2 r apart, less than
 * the diameter 0.01 m). */
START_TEST(self_intersection_over_a_motion) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  sc.rod.diameter = 0.01;
  rod_guard kept;
  rod_guard_init(&kept, &sc);
  char msg[256], fresh_msg[256];
  curve c;
  int crossed = 0;
  for (int k = 0; k <= 80; k++) {
    const int back = k > 40 ? 80 - k : k;
    const double r = back == 0 ? 0.0 : 0.3 / (1 << (back / 5)) / (1 + back % 5);
    make_curve(&c, 1.0, r);
    if (k > 70) /* a coarser grid: the order starts again */
      c.smp.points = 21;
    msg[0] = fresh_msg[0] = 0;
    const bool a = rod_guard_crossing(&kept, &c.smp, msg, sizeof msg);
    rod_guard fresh;
    rod_guard_init(&fresh, &sc);
    const bool b =
        rod_guard_crossing(&fresh, &c.smp, fresh_msg, sizeof fresh_msg);
    rod_guard_free(&fresh);
    ck_assert_int_eq(a, b);
    ck_assert_str_eq(msg, fresh_msg);
    ck_assert_int_eq(a, r > 0 && r < 0.005);
    crossed += a;
  }
  ck_assert_int_gt(crossed, 0);
  rod_guard_free(&kept);
}
END_TEST

/* A straight horizontal rod under its weight and a tip force: n(0) the
 * sum of the loads, m(0) their moment about the clamp; 1% off fails. */
START_TEST(clamp_balance) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  sc.tip.force[2] = -0.3;
  rod_model m;
  rod_model_init(&m, &sc);
  curve c;
  const double L = sc.rod.length, w = m.rho_area * 9.81, P = 0.3;
  make_curve(&c, L, 0.0);
  c.n[2] = -(P + w * L);
  c.m[1] = P * L + 0.5 * w * L * L;
  char msg[256];
  ck_assert_msg(rod_guard_balance(&sc, &m, NULL, &c.smp, msg, sizeof msg), "%s",
                msg);
  c.m[1] *= 1.01;
  ck_assert(!rod_guard_balance(&sc, &m, NULL, &c.smp, msg, sizeof msg));
  ck_assert_ptr_nonnull(strstr(msg, "does not balance"));
}
END_TEST

/* A rod whose unloaded shape (u* = 18.5 /m, a circle of 0.34 m) is longer
 * than a turn: its static state passes through itself, which the run
 * reports with the place. */
START_TEST(static_loop_reported) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.tip.mass = 0.0;
  sc.rod.precurvature[1] = 18.5;
  sc.time.duration = 0.01;
  rod_sim_result res;
  rod_recorder_free(rod_test_run(&sc, &res));
  ck_assert_ptr_nonnull(strstr(res.implausible, "passes through itself"));
  ck_assert_double_eq(res.implausible_time, 0.0);
  sc.rod.precurvature[1] = 12.0; /* a circle of 0.52 m: clear */
  rod_recorder_free(rod_test_run(&sc, &res));
  ck_assert_str_eq(res.implausible, "");
}
END_TEST

static Suite *guard_suite(void) {
  Suite *s = suite_create("guard");
  TCase *tc = tcase_create("plausibility");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, self_intersection);
  tcase_add_test(tc, self_intersection_over_a_motion);
  tcase_add_test(tc, clamp_balance);
  tcase_add_test(tc, static_loop_reported);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(guard_suite)
