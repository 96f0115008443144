/* The fitted rod's ensemble (rod_calib_draws, rod_calib_ensemble,
 * rod/calibrate.h): the draws' empirical covariance against the fit's
 * within its sampling error; the draws run as an ordinary sweep (index
 * and case files), the band of their tips, the same directory continued
 * without running a case again. */
#include <hdf5.h>
#include <string.h>

#include "calibrateutil.h"
#include "h5util.h"

/* A result of three keys with the covariance of ln p given (correlated,
 * as EI and density are in a release). */
static rod_calib_result fake_result(void) {
  rod_calib_result r;
  memset(&r, 0, sizeof r);
  r.nkeys = 3;
  const double v[3] = {0.0335, 8600, 0.003}, sd[3] = {1e-3, 2e-3, 5e-2};
  const double rho[3][3] = {{1, 0.9, -0.3}, {0.9, 1, -0.2}, {-0.3, -0.2, 1}};
  for (int i = 0; i < 3; i++) {
    r.value[i] = v[i];
    r.std_error[i] = v[i] * sd[i];
    for (int j = 0; j < 3; j++)
      r.covariance[i * 3 + j] = rho[i][j] * sd[i] * sd[j];
  }
  return r;
}

/* N = 4000 draws: the mean of ln p within 4 standard errors of the
 * fitted value (sd / sqrt(N)), each variance within 4 sqrt(2 / N) = 8.9 %
 * of the covariance's (the relative sampling error of a variance of N
 * normal draws is sqrt(2 / (N - 1))), each correlation within 4 (1 -
 * rho^2) / sqrt(N); the same seed gives the same draws, another seed
 * others. */
START_TEST(draws_follow_the_covariance) {
  const rod_calib_result r = fake_result();
  enum { N = 4000, P = 3 };
  double *v = malloc(sizeof(double) * N * P), *w = malloc(sizeof *w * N * P);
  rod_error err;
  ck_assert_int_eq(rod_calib_draws(&r, N, 7, v, &err), ROD_OK);
  double mean[P] = {0}, cov[P][P] = {{0}};
  for (int i = 0; i < N; i++)
    for (int j = 0; j < P; j++)
      mean[j] += log(v[i * P + j]) / N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < P; j++)
      for (int k = 0; k < P; k++)
        cov[j][k] += (log(v[i * P + j]) - mean[j]) *
                     (log(v[i * P + k]) - mean[k]) / (N - 1);
  for (int j = 0; j < P; j++) {
    const double var = r.covariance[j * P + j];
    printf("draws: %d of ln p_%d: mean off by %.2f standard errors, "
           "variance %.4g against %.4g (%+.1f %%; sampling error %.1f %%)\n",
           N, j, (mean[j] - log(r.value[j])) / sqrt(var / N), cov[j][j], var,
           100 * (cov[j][j] / var - 1), 100 * sqrt(2.0 / (N - 1)));
    ck_assert(fabs(mean[j] - log(r.value[j])) < 4 * sqrt(var / N));
    ck_assert(fabs(cov[j][j] / var - 1) < 4 * sqrt(2.0 / (N - 1)));
    for (int k = 0; k < j; k++) {
      const double rho =
          r.covariance[j * P + k] / sqrt(var * r.covariance[k * P + k]);
      const double got = cov[j][k] / sqrt(cov[j][j] * cov[k][k]);
      ck_assert_msg(fabs(got - rho) < 4 * (1 - rho * rho) / sqrt(N),
                    "correlation %d %d: %.4f against %.4f", j, k, got, rho);
    }
  }
  ck_assert_int_eq(rod_calib_draws(&r, N, 7, w, &err), ROD_OK);
  ck_assert(memcmp(v, w, sizeof(double) * N * P) == 0);
  ck_assert_int_eq(rod_calib_draws(&r, N, 8, w, &err), ROD_OK);
  ck_assert(memcmp(v, w, sizeof(double) * P) != 0);
  rod_calib_result bad = r;
  bad.covariance[0] = NAN;
  ck_assert_int_eq(rod_calib_draws(&bad, N, 7, w, &err), ROD_EINVAL);
  free(v);
  free(w);
}
END_TEST

/* Column k of dataset /values of DIR/index.h5. */
static void index_values(const char *dir, int cases, int keys, double *out) {
  char path[600];
  snprintf(path, sizeof path, "%s/index.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  hid_t ds = H5Dopen2(f, "/values", H5P_DEFAULT);
  ck_assert(ds >= 0);
  ck_assert(
      H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
  (void)cases;
  (void)keys;
  H5Dclose(ds);
  H5Fclose(f);
}

/* 12 draws of a fit of the test rod run as a sweep on 2 threads: every
 * case complete, the index holding the draws' values, the band ordered
 * (5 % <= mean <= 95 %) and wider where the tip moves; the same call
 * again runs no case and gives the same band bit for bit. */
START_TEST(ensemble_runs_as_a_sweep) {
  const rod_scenario truth = test_rod(0.2);
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, 1e-4, 3, XZ, &d, &err),
                   ROD_OK);
  rod_scenario start = moved(&truth, 1.05, 0.95, 1.05), fitted;
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result r;
  fit(&start, d, &o, &r, &fitted);
  char dir[256], sub[300];
  rod_test_dir(dir, sizeof dir, "rodsim_ensemble");
  snprintf(sub, sizeof sub, "%s/draws", dir);
  rod_sweep_options so = {.threads = 2};
  rod_sweep_report rep;
  rod_calib_band *band[2];
  enum { N = 12 };
  for (int k = 0; k < 2; k++) {
    int st = rod_calib_ensemble(&fitted, &o, &r, N, 5, sub, &so, &rep, &band[k],
                                &err);
    ck_assert_msg(st == ROD_OK, "%s", err.message);
    ck_assert_int_eq(rep.cases, N);
    ck_assert_int_eq(rep.ran, k ? 0 : N);
    ck_assert_int_eq(rep.counts[ROD_CASE_COMPLETE], N);
    ck_assert_int_eq(band[k]->cases, N);
    ck_assert_int_eq(band[k]->failed, 0);
  }
  const rod_calib_band *b = band[0];
  ck_assert_int_eq(b->samples, band[1]->samples);
  ck_assert(memcmp(b->q95, band[1]->q95, sizeof(double) * 3 * b->samples) == 0);
  double values[N * 3], draws[N * 3];
  index_values(sub, N, 3, values);
  ck_assert_int_eq(rod_calib_draws(&r, N, 5, draws, &err), ROD_OK);
  for (int i = 0; i < N * 3; i++)
    ck_assert_double_eq(values[i], draws[i]);
  double widest = 0;
  for (int i = 0; i < b->samples; i++)
    for (int c = 0; c < 3; c++) {
      const int k = 3 * i + c;
      ck_assert(b->q05[k] <= b->mean[k] + 1e-15 &&
                b->mean[k] <= b->q95[k] + 1e-15);
      widest = fmax(widest, b->q95[k] - b->q05[k]);
    }
  ck_assert(widest > 0);
  /* the tip's static z is the first sample's: spread too (EI varies) */
  ck_assert(b->q95[2] - b->q05[2] > 0);
  char *text = malloc(rod_calib_band_lines(b, 1, NULL, 0) + 1);
  rod_calib_band_lines(b, 1, text, rod_calib_band_lines(b, 1, NULL, 0) + 1);
  ck_assert_ptr_nonnull(strstr(text, "band_1_columns = t x_mean"));
  ck_assert_ptr_nonnull(strstr(text, "\nband_1.00000 = 0 "));
  free(text);
  rod_calib_band_free(band[0]);
  rod_calib_band_free(band[1]);
  rod_tip_data_free(d);
  rod_test_rmdir(dir);
}
END_TEST

static Suite *calibrate_ensemble_suite(void) {
  Suite *s = suite_create("calibrate_ensemble");
  TCase *tc = tcase_create("ensemble");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, draws_follow_the_covariance);
  tcase_add_test(tc, ensemble_runs_as_a_sweep);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(calibrate_ensemble_suite)
