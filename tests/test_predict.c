/* Linear prediction (integrators/linpred.h): exact on sums of damped modes and
 * on polynomials, weights, readiness; and the Kirchhoff backend's choice
 * between it and polynomial extrapolation. */
#include <string.h>

#include "integrators/linpred.h"
#include "kirchhoff/kirchhoff_state.h"
#include "scenarioutil.h"

enum { N = 40 };

/* z_i (N components): a constant, a drift and three damped modes with
 * per-component amplitudes; 7 modes of the recurrence on differences. */
static void modal_series(int i, double *z) {
  const double r[3] = {0.999, 0.99, 0.97}, w[3] = {0.05, 0.9, 2.4};
  for (int c = 0; c < N; c++) {
    double v = 1.0 + 0.1 * c + 1e-3 * (c % 7) * i;
    for (int m = 0; m < 3; m++)
      v += sin(1.0 + c * (m + 1)) * pow(r[m], i) * cos(w[m] * i + 0.3 * c);
    z[c] = v;
  }
}

/* Exact but for round-off and the fit's regularisation (1e-12 of the mean
 * diagonal, which biases the slow, nearly polynomial mode by ~1e-7); a
 * polynomial extrapolation errs by O(1) on the mode with omega dt = 2.4. */
START_TEST(modes_predicted_exactly) {
  rod_linpred *lp = rod_linpred_alloc(N, 8, 8, NULL);
  ck_assert_ptr_nonnull(lp);
  double z[N], p[N];
  for (int i = 0; i < 60; i++) {
    if (rod_linpred_ready(lp)) {
      ck_assert(rod_linpred_fit(lp));
      rod_linpred_predict(lp, 0, N, p);
      modal_series(i, z);
      for (int c = 0; c < N; c++)
        ck_assert_msg(fabs(p[c] - z[c]) < 1e-6, "step %d component %d: %g", i,
                      c, p[c] - z[c]);
    } else {
      ck_assert(!rod_linpred_fit(lp));
    }
    modal_series(i, z);
    rod_linpred_push(lp, z);
  }
  ck_assert_int_eq(rod_linpred_count(lp), 60);
  rod_linpred_free(lp);
}
END_TEST

/* A quadratic is predicted exactly (the unique recurrence of order 2, d(i+1) =
 * 2 d(i) - d(i-1)), here from a fit over only part of the components: the
 * others (weight 0) carry noise that must not matter, and are predicted too. */
START_TEST(quadratic_and_weights) {
  double wgt[N];
  for (int c = 0; c < N; c++)
    wgt[c] = c < N / 2 ? 1.0 + c : 0.0;
  rod_linpred *lp = rod_linpred_alloc(N, 2, 4, wgt);
  double z[N], p[N];
  for (int i = 0; i < 20; i++) {
    for (int c = 0; c < N; c++)
      z[c] = c < N / 2 ? 2.0 - 0.5 * c * i + 0.01 * c * i * i
                       : sin(37.0 * i * c); /* not a recurrence */
    if (rod_linpred_ready(lp)) {
      ck_assert(rod_linpred_fit(lp));
      rod_linpred_predict(lp, 0, N / 2, p);
      for (int c = 0; c < N / 2; c++)
        ck_assert_msg(fabs(p[c] - z[c]) < 1e-9 * (1 + fabs(z[c])),
                      "step %d component %d: %g", i, c, p[c] - z[c]);
      const double *a = rod_linpred_coefficients(lp);
      ck_assert(fabs(a[0] - 2.0) < 1e-6 && fabs(a[1] + 1.0) < 1e-6);
    }
    rod_linpred_push(lp, z);
  }
  rod_linpred_free(lp);
}
END_TEST

/* Readiness after order + window + 1 vectors, reset, a series at rest (no
 * differences to fit), bad sizes. */
START_TEST(readiness_and_degenerate_input) {
  rod_linpred *lp = rod_linpred_alloc(3, 2, 3, NULL);
  double z[3] = {1, 2, 3};
  for (int i = 0; i < 6; i++) {
    ck_assert(!rod_linpred_ready(lp));
    rod_linpred_push(lp, z);
  }
  ck_assert(rod_linpred_ready(lp));
  ck_assert(!rod_linpred_fit(lp)); /* at rest */
  rod_linpred_reset(lp);
  ck_assert_int_eq(rod_linpred_count(lp), 0);
  ck_assert(!rod_linpred_ready(lp));
  rod_linpred_free(lp);
  ck_assert_ptr_null(rod_linpred_alloc(0, 2, 3, NULL));
  ck_assert_ptr_null(rod_linpred_alloc(3, 0, 3, NULL));
  ck_assert_ptr_null(rod_linpred_alloc(3, 2, 0, NULL));
}
END_TEST

/* On the weight release the weakly damped modes with omega dt near 1 defeat
 * polynomial extrapolation; the backend measures both predictors and
 * starts from the linear recurrence, which errs far less. */
START_TEST(backend_prefers_linear_prediction) {
  rod_scenario sc;
  rod_test_load(&sc, "weight_release.ini");
  sc.space.nodes = 50;
  rod_kirchhoff *k = rod_test_backend(&sc, 250);
  ck_assert(k->use_linear);
  ck_assert_msg(k->err_linear < 0.1 * k->err_poly,
                "prediction errors: linear %g, polynomial %g", k->err_linear,
                k->err_poly);
  rod_backend_kirchhoff.destroy(k);
}
END_TEST

static Suite *predict_suite(void) {
  Suite *s = suite_create("predict");
  TCase *t = tcase_create("linpred");
  tcase_add_test(t, modes_predicted_exactly);
  tcase_add_test(t, quadratic_and_weights);
  tcase_add_test(t, readiness_and_degenerate_input);
  suite_add_tcase(s, t);
  TCase *b = tcase_create("backend");
  tcase_set_timeout(b, 60);
  tcase_add_test(b, backend_prefers_linear_prediction);
  suite_add_tcase(s, b);
  return s;
}

ROD_TEST_MAIN(predict_suite)
