/* The fitted rod's predicted spread (rod/calibrate.h): draws of the
 * fitted keys from the fit's covariance, run as the cases of a sweep
 * (rod/sweep.h: an ordinary sweep directory with its index and case
 * files, continued when run again), and the band of their tips: at every
 * sample, the mean and the 5 % and 95 % quantiles of x, y and z over the
 * complete cases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/random.h"
#include "io/h5read.h"

/* The lower Cholesky factor L of the n x n matrix a (L L^T = a); false
 * when a is not positive definite or not finite. */
static bool cholesky(int n, const double *a, double *L) {
  memset(L, 0, (size_t)(n * n) * sizeof *L);
  for (int j = 0; j < n; j++) {
    double d = a[j * n + j];
    for (int k = 0; k < j; k++)
      d -= L[j * n + k] * L[j * n + k];
    if (!(d > 0) || !isfinite(d))
      return false;
    L[j * n + j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double s = a[i * n + j];
      for (int k = 0; k < j; k++)
        s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / L[j * n + j];
    }
  }
  return true;
}

int rod_calib_draws(const rod_calib_result *res, int n, uint64_t seed,
                    double *values, rod_error *err) {
  const int p = res->nkeys;
  double L[ROD_CALIB_MAX_KEYS * ROD_CALIB_MAX_KEYS];
  if (p < 1 || p > ROD_CALIB_MAX_KEYS || !cholesky(p, res->covariance, L))
    return rod_error_set(err, ROD_EINVAL, "calibrate", "--ensemble",
                         "the fit's covariance is unknown or not positive "
                         "definite (a key the data do not determine)");
  for (int i = 0; i < n; i++) {
    double z[ROD_CALIB_MAX_KEYS];
    for (int j = 0; j < p; j++)
      z[j] = rod_random_gaussian(seed, (uint64_t)i * (uint64_t)p + j);
    for (int j = 0; j < p; j++) {
      double d = 0;
      for (int k = 0; k <= j; k++)
        d += L[j * p + k] * z[k];
      values[(size_t)i * p + j] = res->value[j] * exp(d);
    }
  }
  return ROD_OK;
}

void rod_calib_band_free(rod_calib_band *b) {
  if (!b)
    return;
  free(b->t);
  free(b->mean);
  free(b->q05);
  free(b->q95);
  free(b);
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q quantile of the n sorted values v: linear between the order
 * statistics at (n - 1) q. */
static double quantile(const double *v, int n, double q) {
  const double h = (n - 1) * q;
  const int k = (int)floor(h);
  return k + 1 < n ? v[k] + (h - k) * (v[k + 1] - v[k]) : v[n - 1];
}

/* Case c's /time and /tip/position (its whole samples) into new buffers;
 * its sample count, or 0 when it cannot be read. */
static int read_case(const char *path, double **t, double **tip) {
  hid_t f;
  rod_error err;
  *t = *tip = NULL;
  if (rod_h5_open(path, &f, &err) != ROD_OK)
    return 0;
  hsize_t n = 0, d1[1] = {0}, d2[2] = {0, 3};
  int st = rod_h5_samples(f, path, &n, &err);
  if (st == ROD_OK)
    st = rod_h5_read_rows(f, path, "/time", H5T_NATIVE_DOUBLE, sizeof(double),
                          1, n, d1, (void **)t, &err);
  if (st == ROD_OK)
    st = rod_h5_read_rows(f, path, "/tip/position", H5T_NATIVE_DOUBLE,
                          sizeof(double), 2, n, d2, (void **)tip, &err);
  H5Fclose(f);
  if (st != ROD_OK || d1[0] != d2[0] || d1[0] < 1) {
    free(*t);
    free(*tip);
    *t = *tip = NULL;
    return 0;
  }
  return (int)d1[0];
}

/* The band of the complete cases of s (their times must be those of the
 * first). */
static int make_band(const rod_sweep *s, const char *dir, rod_calib_band **out,
                     rod_error *err) {
  const int cases = rod_sweep_cases(s);
  rod_calib_band *b = calloc(1, sizeof *b);
  double **tips = calloc((size_t)cases, sizeof *tips);
  int st = b && tips ? ROD_OK : ROD_ENOMEM;
  for (int c = 0; c < cases && st == ROD_OK; c++) {
    char path[ROD_PATH_MAX + 32];
    double *t = NULL;
    snprintf(path, sizeof path, "%s/case-%05d.h5", dir, c);
    const int n = rod_sweep_status(s, c) == ROD_CASE_COMPLETE
                      ? read_case(path, &t, &tips[b->cases])
                      : 0;
    if (n > 0 && b->cases == 0) {
      b->samples = n;
      b->t = t;
      t = NULL;
    }
    if (n > 0 && n == b->samples &&
        (b->cases == 0 || memcmp(t, b->t, (size_t)n * sizeof *t) == 0))
      b->cases++;
    else {
      free(tips[b->cases]);
      tips[b->cases] = NULL;
      b->failed++;
    }
    free(t);
  }
  const size_t m = 3 * (size_t)b->samples;
  double *v = st == ROD_OK ? malloc(((size_t)b->cases + 1) * sizeof *v) : NULL;
  if (st == ROD_OK && b->cases > 0) {
    b->mean = malloc(m * sizeof *b->mean);
    b->q05 = malloc(m * sizeof *b->q05);
    b->q95 = malloc(m * sizeof *b->q95);
    if (!v || !b->mean || !b->q05 || !b->q95)
      st = ROD_ENOMEM;
  }
  for (size_t k = 0; st == ROD_OK && b->cases > 0 && k < m; k++) {
    double sum = 0;
    for (int c = 0; c < b->cases; c++)
      sum += v[c] = tips[c][k];
    qsort(v, (size_t)b->cases, sizeof *v, by_value);
    b->mean[k] = sum / b->cases;
    b->q05[k] = quantile(v, b->cases, 0.05);
    b->q95[k] = quantile(v, b->cases, 0.95);
  }
  free(v);
  for (int c = 0; tips && c < cases; c++)
    free(tips[c]);
  free(tips);
  if (st == ROD_OK && b->cases == 0)
    st = rod_error_set(err, ROD_ENOCONV, dir, NULL,
                       "no case of the ensemble is complete");
  else if (st != ROD_OK)
    rod_error_set(err, st, dir, NULL, "out of memory");
  if (st != ROD_OK) {
    rod_calib_band_free(b);
    b = NULL;
  }
  *out = b;
  return st;
}

int rod_calib_ensemble(const rod_scenario *fitted, const rod_calib_options *o,
                       const rod_calib_result *res, int n, uint64_t seed,
                       const char *dir, const rod_sweep_options *so,
                       rod_sweep_report *rep, rod_calib_band **band,
                       rod_error *err) {
  *band = NULL;
  memset(rep, 0, sizeof *rep);
  const int p = o->nkeys;
  if (n < 2)
    return rod_error_set(err, ROD_EINVAL, "calibrate", "--ensemble",
                         "expected 2 draws or more (got %d)", n);
  double *values = malloc((size_t)n * p * sizeof *values);
  char *texts = malloc((size_t)n * p * 32);
  const char **cells = malloc((size_t)n * p * sizeof *cells);
  char names[ROD_CALIB_MAX_KEYS][40];
  const char *keys[ROD_CALIB_MAX_KEYS];
  int st = values && texts && cells
               ? ROD_OK
               : rod_error_set(err, ROD_ENOMEM, dir, NULL, "out of memory");
  if (st == ROD_OK)
    st = rod_calib_draws(res, n, seed, values, err);
  for (int j = 0; j < p; j++) {
    snprintf(names[j], sizeof names[j], "rod.%s", o->keys[j]);
    keys[j] = names[j];
  }
  for (size_t i = 0; st == ROD_OK && i < (size_t)n * p; i++) {
    snprintf(texts + 32 * i, 32, "%.17g", values[i]);
    cells[i] = texts + 32 * i;
  }
  rod_sweep_def *d = st == ROD_OK ? rod_sweep_def_new() : NULL;
  if (st == ROD_OK && !d)
    st = rod_error_set(err, ROD_ENOMEM, dir, NULL, "out of memory");
  if (st == ROD_OK)
    st = rod_sweep_def_table(d, p, keys, n, cells, err);
  if (st == ROD_OK)
    st = rod_sweep_def_build(d, fitted, err);
  rod_sweep *s = NULL;
  if (st == ROD_OK)
    st = rod_sweep_open(&s, dir, fitted, d, so, err);
  if (st == ROD_OK)
    st = rod_sweep_run(s, rep, err);
  if (st == ROD_OK)
    st = make_band(s, dir, band, err);
  rod_sweep_close(s);
  rod_sweep_def_free(d);
  free(values);
  free(texts);
  free(cells);
  return st;
}

size_t rod_calib_band_lines(const rod_calib_band *b, int set, char *buf,
                            size_t size) {
  size_t n = 0;
  char scratch[1];
#define PUT(...)                                                               \
  n += (size_t)snprintf(n < size ? buf + n : scratch, n < size ? size - n : 0, \
                        __VA_ARGS__)
  PUT("band_%d_columns = t x_mean x_q05 x_q95 y_mean y_q05 y_q95 z_mean "
      "z_q05 z_q95 ; s, then m: the tip over %d cases\n",
      set, b->cases);
  for (int i = 0; i < b->samples; i++) {
    PUT("band_%d.%05d = %.9g", set, i, b->t[i]);
    for (int c = 0; c < 3; c++)
      PUT(" %.9g %.9g %.9g", b->mean[3 * i + c], b->q05[3 * i + c],
          b->q95[3 * i + c]);
    PUT("\n");
  }
#undef PUT
  return n;
}
