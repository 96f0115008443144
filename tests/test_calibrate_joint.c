/* Joint calibration over several experiments (rod_calib_fit_joint,
 * rod/calibrate.h): the noise estimate of a data set; two experiments
 * fitted at once recover the truth and pin it better than either alone;
 * a noisy set is weighted down to what it knows (the information-weighted
 * answer of the single fits); the pool's threads do not change a joint
 * fit. */
#include <string.h>

#include "calibrateutil.h"
#include "core/random.h"

/* Experiment B: the test rod without its tip mass, struck near the clamp
 * (the impulse of Till & Rucker 2017, section III.B, on the shorter rod). */
static rod_scenario struck_rod(double duration) {
  rod_scenario sc = test_rod(duration);
  rod_error err;
  const char *sets[] = {"tip.mass=0", "impulse.peak=5",
                        "impulse.duration=0.016", "impulse.position=0.0458",
                        "impulse.direction=0 0 1"};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++)
    ck_assert_msg(rod_scenario_set(&sc, sets[k], &err) == ROD_OK, "%s: %s",
                  sets[k], err.message);
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  return sc;
}

static rod_tip_data *synth(const rod_scenario *sc, double noise,
                           uint64_t seed) {
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(sc, 1000, noise, seed, XZ, &d, &err),
                   ROD_OK);
  return d;
}

static void fit_sets(const rod_calib_experiment *ex, int count,
                     const rod_calib_options *o, rod_calib_result *r) {
  rod_scenario fitted[2];
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_calib_fit_joint(ex, count, o, fitted, r, &err);
  ck_assert_msg(st == ROD_OK, "fit: %s: %s", rod_strerror(st), err.message);
  ck_assert(r->converged);
  printf("  fit of %d sets: %d iterations, %d simulations, %.1f s\n", count,
         r->iterations, r->simulations, r->wall_time);
  for (int e = 0; e < count; e++)
    ck_assert_double_eq(fitted[e].rod.density, r->value[1]);
}

/* The released and the struck rod (duration s), their tips with noise
 * na and nb (m), the fits' starts each key scaled by 1 + off or 1 - off. */
typedef struct {
  rod_scenario a, b, sa, sb;
  rod_tip_data *da, *db;
  rod_calib_experiment ex[2];
} two_rods;

static void two_rods_make(two_rods *t, double duration, double na, double nb,
                          uint64_t seed, double off) {
  t->a = test_rod(duration);
  t->b = struck_rod(duration);
  t->da = synth(&t->a, na, seed);
  t->db = synth(&t->b, nb, seed + 1);
  t->sa = moved(&t->a, 1 + off, 1 - off, 1 + off);
  t->sb = moved(&t->b, 1 + off, 1 - off, 1 + off);
  t->ex[0] = (rod_calib_experiment){&t->sa, t->da, "released"};
  t->ex[1] = (rod_calib_experiment){&t->sb, t->db, "struck"};
}

static void two_rods_free(two_rods *t) {
  rod_tip_data_free(t->da);
  rod_tip_data_free(t->db);
}

/* Each rod alone (ra, rb) and both at once (rj). */
static void fit_three(const two_rods *t, const rod_calib_options *o,
                      rod_calib_result *ra, rod_calib_result *rb,
                      rod_calib_result *rj) {
  fit_sets(&t->ex[0], 1, o, ra);
  fit_sets(&t->ex[1], 1, o, rb);
  fit_sets(t->ex, 2, o, rj);
}

/* The noise of white Gaussian noise alone and of a noisy trajectory,
 * 0.1 mm: within 5 % (the estimate's sampling error on 1000 samples of
 * two coordinates is about 2.5 %: the median's efficiency is 0.64 and
 * neighbouring fourth differences are correlated). */
START_TEST(noise_is_estimated_from_the_data) {
  rod_tip_data *d = rod_tip_data_alloc(1000);
  for (int i = 0; i < d->n; i++) {
    d->t[i] = 1e-3 * i;
    for (int c = 0; c < 3; c += 2)
      d->xyz[3 * i + c] = 0.3 + 1e-4 * rod_random_gaussian(7, 3 * i + c);
  }
  d->has[0] = d->has[2] = true;
  printf("noise estimate of noise alone: %.4g m (0.1 mm)\n",
         rod_calib_noise(d));
  ROD_ASSERT_NEAR(rod_calib_noise(d), 1e-4, 5e-6);
  rod_tip_data_free(d);
  const rod_scenario a = test_rod(1.0), b = struck_rod(1.0);
  for (int k = 0; k < 2; k++) {
    d = synth(k ? &b : &a, 1e-4, 21 + k);
    printf("noise estimate of the %s rod: %.4g m (0.1 mm)\n",
           k ? "struck" : "released", rod_calib_noise(d));
    ROD_ASSERT_NEAR(rod_calib_noise(d), 1e-4, 5e-6);
    rod_tip_data_free(d);
  }
}
END_TEST

/* The standard errors of ln p from a result's covariance. */
static void log_errors(const rod_calib_result *r, double *sd) {
  for (int j = 0; j < r->nkeys; j++)
    sd[j] = sqrt(r->covariance[j * r->nkeys + j]);
}

/* The released and the struck rod, 0.1 mm of noise each, from 12 % off:
 * each alone and both at once. The joint fit finds the truth within 3 of
 * its standard errors, each set's noise and rms residual within 10 % of
 * the noise, and pins every key better than either experiment alone. */
START_TEST(joint_fit_recovers_and_narrows) {
  two_rods t;
  two_rods_make(&t, 0.5, 1e-4, 1e-4, 31, 0.12);
  double tv[3];
  truth_of(&t.a, tv);
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result ra, rb, rj;
  fit_three(&t, &o, &ra, &rb, &rj);
  ck_assert_int_eq(rj.sets, 2);
  ck_assert_int_eq(rj.residuals, 2 * t.da->n + 2 * t.db->n);
  for (int e = 0; e < 2; e++) {
    ROD_ASSERT_NEAR(rj.set[e].noise, 1e-4, 1e-5);
    ROD_ASSERT_NEAR(rj.set[e].rms_residual, 1e-4, 1e-5);
    ck_assert_double_eq(rj.set[e].weight, 1.0 / rj.set[e].noise);
  }
  for (int j = 0; j < 3; j++)
    printf("joint: %s %.8g +- %.3g (truth %.8g); alone: released +- %.3g, "
           "struck +- %.3g\n",
           o.keys[j], rj.value[j], rj.std_error[j], tv[j], ra.std_error[j],
           rb.std_error[j]);
  printf("joint: noise %.4g %.4g m, rms %.4g %.4g m\n", rj.set[0].noise,
         rj.set[1].noise, rj.set[0].rms_residual, rj.set[1].rms_residual);
  for (int j = 0; j < 3; j++) {
    ck_assert_msg(fabs(rj.value[j] - tv[j]) <= 3 * rj.std_error[j],
                  "%s = %.8g +- %.3g, truth %.8g", o.keys[j], rj.value[j],
                  rj.std_error[j], tv[j]);
    ck_assert_msg(rj.std_error[j] < ra.std_error[j] &&
                      rj.std_error[j] < rb.std_error[j],
                  "%s: joint +- %.3g, released alone +- %.3g, struck alone "
                  "+- %.3g",
                  o.keys[j], rj.std_error[j], ra.std_error[j], rb.std_error[j]);
  }
  two_rods_free(&t);
}
END_TEST

/* Solve the n x n system A x = b in place (Gauss-Jordan, A symmetric
 * positive definite: no pivots). */
static void solve_spd(int n, double *A, double *b) {
  for (int c = 0; c < n; c++) {
    const double piv = A[c * n + c];
    for (int k = 0; k < n; k++)
      A[c * n + k] /= piv;
    b[c] /= piv;
    for (int r = 0; r < n; r++)
      if (r != c) {
        const double f = A[r * n + c];
        for (int k = 0; k < n; k++)
          A[r * n + k] -= f * A[c * n + k];
        b[r] -= f * b[c];
      }
  }
}

/* The inverse of an n x n symmetric positive definite matrix. */
static void invert_spd(int n, const double *A, double *inv) {
  double a[9], col[3];
  for (int j = 0; j < n; j++) {
    memcpy(a, A, (size_t)(n * n) * sizeof *a);
    for (int k = 0; k < n; k++)
      col[k] = k == j;
    solve_spd(n, a, col);
    for (int k = 0; k < n; k++)
      inv[k * n + j] = col[k];
  }
}

/* The released rod measured to 0.01 mm and the struck rod to 1 mm: the
 * joint fit must take from each what it knows, the answer of
 * information-weighted least squares on the two single fits: covariance
 * C = (C_a^-1 + C_b^-1)^-1 and ln p = C (C_a^-1 ln p_a + C_b^-1 ln p_b),
 * each single fit's covariance its own (the linearisation about each
 * optimum, so agreement to a tenth of a standard error is asked). The
 * noisy set does not pull the fit: its values stay within 0.1 of a joint
 * standard error of that answer, where the struck rod alone lies several
 * standard errors away, and the joint errors are within 10 % of C's. */
START_TEST(noisy_set_does_not_pull_the_fit) {
  two_rods t;
  two_rods_make(&t, 0.5, 1e-5, 1e-3, 41, 0.05);
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result ra, rb, rj;
  fit_three(&t, &o, &ra, &rb, &rj);
  printf("weighting: noise %.4g %.4g m\n", rj.set[0].noise, rj.set[1].noise);
  ROD_ASSERT_NEAR(rj.set[0].noise, 1e-5, 1e-6);
  ROD_ASSERT_NEAR(rj.set[1].noise, 1e-3, 1e-4);
  const int n = 3;
  double ia[9], ib[9], info[9], cov[9], mean[3], sd[3];
  invert_spd(n, ra.covariance, ia);
  invert_spd(n, rb.covariance, ib);
  for (int k = 0; k < n * n; k++)
    info[k] = ia[k] + ib[k];
  invert_spd(n, info, cov);
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < n; k++)
      s += ia[i * n + k] * log(ra.value[k]) + ib[i * n + k] * log(rb.value[k]);
    mean[i] = s;
  }
  double weighted[3];
  for (int i = 0; i < n; i++) {
    weighted[i] = 0;
    for (int k = 0; k < n; k++)
      weighted[i] += cov[i * n + k] * mean[k];
  }
  log_errors(&rj, sd);
  bool far = false;
  for (int j = 0; j < n; j++) {
    const double off = (log(rj.value[j]) - weighted[j]) / sd[j];
    printf("weighting: %s joint %.8g +- %.3g, weighted answer %.8g +- %.3g "
           "(%.3f sd apart); released alone %.8g, struck alone %.8g (%.1f "
           "sd)\n",
           o.keys[j], rj.value[j], rj.std_error[j], exp(weighted[j]),
           exp(weighted[j]) * sqrt(cov[j * n + j]), off, ra.value[j],
           rb.value[j], (log(rb.value[j]) - weighted[j]) / sd[j]);
    ck_assert_msg(fabs(off) < 0.1,
                  "%s: joint %.8g, weighted answer %.8g: %.2f sd apart",
                  o.keys[j], rj.value[j], exp(weighted[j]), off);
    ROD_ASSERT_NEAR(sd[j], sqrt(cov[j * n + j]), 0.1 * sd[j]);
    far = far || fabs(log(rb.value[j]) - weighted[j]) > 3 * sd[j];
  }
  ck_assert_msg(far, "the struck rod alone should lie several standard "
                     "errors from the joint answer");
  two_rods_free(&t);
}
END_TEST

/* The Jacobian's simulations (one per key and data set) run on the pool:
 * 1 and 2 threads give the same fit bit for bit. */
START_TEST(threads_do_not_change_a_joint_fit) {
  two_rods t;
  two_rods_make(&t, 0.3, 1e-4, 1e-4, 51, 0.1);
  rod_calib_options o = rod_calib_default_options();
  o.prefit = false;
  rod_calib_result r[2];
  for (int k = 0; k < 2; k++) {
    o.threads = 1 + k;
    fit_sets(t.ex, 2, &o, &r[k]);
    ck_assert_int_eq(r[k].threads, 1 + k);
  }
  for (int j = 0; j < 3; j++) {
    ck_assert_double_eq(r[0].value[j], r[1].value[j]);
    ck_assert_double_eq(r[0].std_error[j], r[1].std_error[j]);
  }
  for (int k = 0; k < 9; k++)
    ck_assert_double_eq(r[0].covariance[k], r[1].covariance[k]);
  ck_assert_int_eq(r[0].iterations, r[1].iterations);
  two_rods_free(&t);
}
END_TEST

static Suite *calibrate_joint_suite(void) {
  Suite *s = suite_create("calibrate_joint");
  TCase *tc = tcase_create("joint");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, noise_is_estimated_from_the_data);
  tcase_add_test(tc, joint_fit_recovers_and_narrows);
  tcase_add_test(tc, noisy_set_does_not_pull_the_fit);
  tcase_add_test(tc, threads_do_not_change_a_joint_fit);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(calibrate_joint_suite)
