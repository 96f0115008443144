/* Shared helpers of the Check test suites. */
#ifndef ROD_TESTUTIL_H
#define ROD_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/* Observed order of convergence from errors at step h and h/2. */
static inline double rod_observed_order(double err_h, double err_h2) {
  return log(err_h / err_h2) / log(2.0);
}

#endif
