/* Shared helpers of the Check test suites. */
#ifndef ROD_TESTUTIL_H
#define ROD_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* main() for a test program made of one suite. */
void openblas_set_num_threads(int num_threads);

#define ROD_TEST_MAIN(make_suite)                                              \
  int main(void) {                                                             \
    openblas_set_num_threads(1);                                               \
    SRunner *sr = srunner_create(make_suite());                                \
    srunner_run_all(sr, CK_NORMAL);                                            \
    int failed = srunner_ntests_failed(sr);                                    \
    srunner_free(sr);                                                          \
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;                               \
  }

/* |a - b| <= tol with a readable message. */
#define ROD_ASSERT_NEAR(a, b, tol)                                             \
  do {                                                                         \
    double a_ = (a), b_ = (b), t_ = (tol);                                     \
    ck_assert_msg(fabs(a_ - b_) <= t_, "%s = %.12g, expected %.12g +- %.3g",   \
                  #a, a_, b_, t_);                                             \
  } while (0)

/* A scratch directory for one test: rod_test_dir creates it under /tmp
 * (path in dir), rod_test_write puts a text file in it, rod_test_rmdir
 * removes it with its contents. */
/* The process's address space (bytes), from /proc/self/statm; 0 when
 * unknown. */
static inline size_t rod_test_address_space(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f)
    return 0;
  if (fscanf(f, "%lu", &pages) != 1)
    pages = 0;
  fclose(f);
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static inline void rod_test_dir(char *dir, size_t size, const char *prefix) {
  snprintf(dir, size, "/tmp/%s_XXXXXX", prefix);
  ck_assert_ptr_nonnull(mkdtemp(dir));
}
static inline void rod_test_write(const char *dir, const char *name,
                                  const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}
static inline void rod_test_rmdir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (dir[0] && system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
}

/* `$RODSIM args` (args already shell-quoted) run with its standard output
 * and error captured through files in dir. */
typedef struct {
  int status;
  char out[8192], err[4096];
} rod_cli_result;

static inline void rod_test_slurp(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, size - 1, f) : 0;
  buf[n] = '\0';
  if (f)
    fclose(f);
}

static inline rod_cli_result rod_test_cli(const char *dir, const char *args) {
  const char *rodsim = getenv("RODSIM");
  ck_assert_msg(rodsim != NULL, "RODSIM is not set (tests/meson.build)");
  char cmd[8192], out[600], err[600];
  snprintf(out, sizeof out, "%s/stdout.txt", dir);
  snprintf(err, sizeof err, "%s/stderr.txt", dir);
  snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", rodsim, args, out, err);
  rod_cli_result r;
  int w = system(cmd);
  ck_assert(WIFEXITED(w));
  r.status = WEXITSTATUS(w);
  rod_test_slurp(out, r.out, sizeof r.out);
  rod_test_slurp(err, r.err, sizeof r.err);
  return r;
}

/* Observed order of convergence from errors at step h and h/2. */
static inline double rod_observed_order(double err_h, double err_h2) {
  return log(err_h / err_h2) / log(2.0);
}

/* ||A - B||_F / ||B||_F over n values (matrices as arrays). */
static inline double rod_test_relative_difference(int n, const double *A,
                                                  const double *B) {
  double num = 0, den = 0;
  for (int i = 0; i < n; i++) {
    num += (A[i] - B[i]) * (A[i] - B[i]);
    den += B[i] * B[i];
  }
  return sqrt(num / den);
}

#endif
