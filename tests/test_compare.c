/* RFEM against the Kirchhoff rod: the frequency error of the chain falls
 * at second order in the segment count for the centered layout and at
 * first order for the uniform one (a fast subset of the validation
 * report's compare study), and the trajectory metrics are exact on known
 * inputs. */
#include <string.h>

#include "rod/compare.h"
#include "rod/recorder.h"
#include "rod/sim.h"
#include "testutil.h"

static rod_recorder *simulate(const rod_scenario *sc) {
  rod_recorder *r = rod_recorder_alloc(sc, false);
  rod_sim_sink sink = rod_recorder_sink(r);
  rod_sim_result res;
  rod_error err;
  ck_assert_msg(rod_sim_run(sc, &sink, false, &res, &err) == ROD_OK, "%s",
                res.message);
  return r;
}

/* Weight release, 0.6 s at dt = 1 ms (the time discretisation's own
 * frequency error, ~1e-4, stays below the chain's at these counts). */
static void scenario(rod_scenario *sc) {
  char path[1024];
  rod_error err;
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
  rod_scenario_default(sc);
  ck_assert_int_eq(rod_scenario_load(sc, path, &err), ROD_OK);
  sc->time.duration = 0.6;
  sc->time.dt = 1e-3;
  sc->space.nodes = 60;
}

static double frequency_error(const rod_scenario *base, double ref_hz,
                              int segments, rod_layout_kind layout) {
  rod_scenario sc = *base;
  sc.solver.backend = ROD_BACKEND_RFEM;
  sc.rfem.segments = segments;
  sc.rfem.layout = layout;
  rod_recorder *r = simulate(&sc);
  double hz;
  ck_assert_int_eq(rod_compare_frequency(r, &hz), ROD_OK);
  rod_recorder_free(r);
  return hz / ref_hz - 1.0;
}

START_TEST(chain_frequency_orders) {
  rod_scenario sc;
  scenario(&sc);
  rod_recorder *ref = simulate(&sc);
  double ref_hz;
  ck_assert_int_eq(rod_compare_frequency(ref, &ref_hz), ROD_OK);
  ROD_ASSERT_NEAR(ref_hz, 5.974, 0.01); /* 6.0 Hz weight release */
  double c[3], u[3];
  for (int i = 0; i < 3; i++) {
    c[i] = frequency_error(&sc, ref_hz, 4 << i, ROD_LAYOUT_CENTERED);
    u[i] = frequency_error(&sc, ref_hz, 4 << i, ROD_LAYOUT_UNIFORM);
  }
  /* centered: a stiffer chain, error +1.4e-2, 3.5e-3, 8.8e-4 */
  ck_assert(c[0] > 0);
  double pc = log(c[1] / c[2]) / log(2.0);
  ck_assert_msg(fabs(pc - 2.0) < 0.15, "centered order %.3f (%g %g %g)", pc,
                c[0], c[1], c[2]);
  /* uniform: too soft, error -0.20, -0.11, -0.059 */
  ck_assert(u[0] < 0);
  double pu = log(u[1] / u[2]) / log(2.0);
  ck_assert_msg(fabs(pu - 1.0) < 0.15, "uniform order %.3f (%g %g %g)", pu,
                u[0], u[1], u[2]);
  rod_recorder_free(ref);
}
END_TEST

/* Known trajectories: an offset of d in x gives rms = max = d; a run
 * sampled twice as often is compared by interpolation. */
START_TEST(tip_metrics) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  sc.time.duration = 1.0;
  sc.time.dt = 0.01;
  rod_recorder *a = rod_recorder_alloc(&sc, false);
  rod_recorder *b = rod_recorder_alloc(&sc, false);
  for (int i = 0; i <= 100; i++) {
    double t = 0.01 * i;
    a->t[i] = b->t[i] = t;
    for (int c = 0; c < 3; c++) {
      a->tip[3 * i + c] = sin(3 * t + c);
      b->tip[3 * i + c] = sin(3 * t + c) + (c == 0 ? 0.002 : 0.0);
    }
  }
  a->count = b->count = 101;
  rod_compare_result r;
  ck_assert_int_eq(rod_compare_tips(b, a, &r), ROD_OK);
  ck_assert_int_eq(r.common, 101);
  ROD_ASSERT_NEAR(r.rms_error, 0.002, 1e-12);
  ROD_ASSERT_NEAR(r.max_error, 0.002, 1e-12);
  /* a run at half-steps against the coarser reference: Hermite
   * interpolation of sin(3t) with h = 0.01 errs ~ h^4 */
  rod_scenario fine = sc;
  fine.time.dt = 0.005;
  rod_recorder *f = rod_recorder_alloc(&fine, false);
  for (int i = 0; i <= 200; i++) {
    double t = 0.005 * i;
    f->t[i] = t;
    for (int c = 0; c < 3; c++)
      f->tip[3 * i + c] = sin(3 * t + c);
  }
  f->count = 201;
  ck_assert_int_eq(rod_compare_tips(f, a, &r), ROD_OK);
  ck_assert_int_eq(r.common, 201);
  ck_assert_msg(r.max_error < 1e-8, "interpolation error %g", r.max_error);
  /* 30 rad/s over 1 s: 4.8 periods of z = sin(30 t + 2) */
  for (int i = 0; i <= 100; i++)
    a->tip[3 * i + 2] = sin(30 * a->t[i] + 2);
  double hz;
  ck_assert_int_eq(rod_compare_frequency(a, &hz), ROD_OK);
  ROD_ASSERT_NEAR(hz, 30 / (2 * M_PI), 1e-9);
  rod_recorder_free(a);
  rod_recorder_free(b);
  rod_recorder_free(f);
}
END_TEST

static Suite *compare_suite(void) {
  Suite *s = suite_create("compare");
  TCase *tc = tcase_create("rfem vs kirchhoff");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, chain_frequency_orders);
  tcase_add_test(tc, tip_metrics);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(compare_suite)
