/* Sampled signals: Hermite interpolation order, the frequency estimator on
 * synthetic (damped, offset, noisy) sines, local extrema; the random
 * numbers behind the synthetic data. */
#include <stdbool.h>
#include <string.h>

#include "core/random.h"
#include "rod/status.h"
#include "signal/signal.h"
#include "testutil.h"

#define MAXN 4096

static double t[MAXN], y[3 * MAXN], dy[3 * MAXN];

/* Max interpolation error of sin(w t) on [0, 1] sampled at n points
 * (jittered by up to +-30 % of the step when jitter), checked halfway
 * between nodes. */
static double interpolation_error(int n, bool jitter, double w) {
  double h = 1.0 / (n - 1);
  for (int i = 0; i < n; i++) {
    double j = jitter && i > 0 && i < n - 1
                   ? 0.3 * (2 * rod_random_uniform(7, i) - 1)
                   : 0.0;
    t[i] = (i + j) * h;
    y[3 * i + 2] = sin(w * t[i]);
  }
  rod_signal_slopes(t, n, y + 2, 3, dy + 2);
  double err = 0;
  int hint = 0;
  for (int i = 0; i + 1 < n; i++) {
    double tq = 0.5 * (t[i] + t[i + 1]);
    double v = rod_signal_hermite(t, n, y + 2, dy + 2, 3, tq, &hint);
    err = fmax(err, fabs(v - sin(w * tq)));
  }
  return err;
}

START_TEST(hermite_is_fourth_order) {
  /* O(h^4): halving the step divides the error by 16 (order 4 +- 0.3, from
   * 16 points per period on); on an even grid the error is the Hermite
   * cubic's own max|f''''| h^4 / 384 (slope errors add O(h^5)) */
  for (int jitter = 0; jitter < 2; jitter++) {
    double e1 = interpolation_error(161, jitter, 10.0);
    double e2 = interpolation_error(321, jitter, 10.0);
    double e3 = interpolation_error(641, jitter, 10.0);
    ck_assert_msg(fabs(rod_observed_order(e1, e2) - 4) < 0.3 &&
                      fabs(rod_observed_order(e2, e3) - 4) < 0.3,
                  "jitter %d: errors %g %g %g", jitter, e1, e2, e3);
    if (!jitter)
      ck_assert_double_le(e2, 1.01 * 1e4 * pow(1.0 / 320, 4) / 384);
  }
}
END_TEST

START_TEST(hermite_exact_for_cubics_and_clamped_outside) {
  /* the quartic stencil differentiates cubics exactly, so the Hermite
   * cubic reproduces them; uneven steps on purpose */
  int n = 9;
  for (int i = 0; i < n; i++) {
    t[i] = 0.1 * i + 0.013 * (i % 3);
    y[i] = 2 - t[i] + 3 * t[i] * t[i] - 4 * t[i] * t[i] * t[i];
  }
  rod_signal_slopes(t, n, y, 1, dy);
  for (double tq = t[0]; tq < t[n - 1]; tq += 0.0123) {
    double exact = 2 - tq + 3 * tq * tq - 4 * tq * tq * tq;
    ROD_ASSERT_NEAR(rod_signal_hermite(t, n, y, dy, 1, tq, NULL), exact, 1e-13);
  }
  ROD_ASSERT_NEAR(rod_signal_hermite(t, n, y, dy, 1, -1.0, NULL), y[0], 0);
  ROD_ASSERT_NEAR(rod_signal_hermite(t, n, y, dy, 1, 9.0, NULL), y[n - 1], 0);
  /* a hint from another query still finds the right interval */
  int hint = n - 2;
  double tq = 0.5 * (t[1] + t[2]);
  ROD_ASSERT_NEAR(rod_signal_hermite(t, n, y, dy, 1, tq, &hint),
                  2 - tq + 3 * tq * tq - 4 * tq * tq * tq, 1e-13);
  ck_assert_int_eq(hint, 1);
}
END_TEST

/* y = offset + A e^(-decay t) sin(2 pi f t + phase) + noise on n samples
 * at 1 kHz; coordinate z of a tip array (stride 3). */
static void damped_sine(int n, double f, double decay, double offset,
                        double noise, uint64_t seed) {
  for (int i = 0; i < n; i++) {
    t[i] = 1e-3 * i;
    y[3 * i + 2] = offset +
                   0.1 * exp(-decay * t[i]) * sin(2 * M_PI * f * t[i] + 0.7) +
                   noise * rod_random_gaussian(seed, i);
  }
}

START_TEST(frequency_exact_on_clean_sines) {
  const double f = 5.9;
  rod_signal_sine fit;
  /* plain, offset, damped (the decay term removes the ~0.1 % bias a plain
   * sine fit has here), and all with 1.5 s or 0.4 s of signal */
  const double decays[] = {0, 0, 1.5, 4.0};
  const double offsets[] = {0, -0.15, 0.02, -0.3};
  for (int k = 0; k < 4; k++) {
    for (int len = 0; len < 2; len++) {
      int n = len ? 1501 : 401;
      damped_sine(n, f, decays[k], offsets[k], 0.0, 0);
      ck_assert_int_eq(rod_signal_frequency(t, y + 2, 3, n, &fit), ROD_OK);
      ROD_ASSERT_NEAR(fit.frequency, f, 1e-9 * f);
      ROD_ASSERT_NEAR(fit.decay, decays[k], 1e-8);
      ROD_ASSERT_NEAR(fit.offset, offsets[k], 1e-10);
      ROD_ASSERT_NEAR(fit.rms, 0.0, 1e-10);
    }
  }
}
END_TEST

START_TEST(frequency_with_noise_within_cramer_rao) {
  /* A real sine of amplitude A in white noise sigma, N samples at step h:
   * sd(omega) >= sqrt(24 sigma^2 / (A^2 h^2 N^3)) (Rife & Boorstyn 1974,
   * halved SNR for a real signal). 1 % noise, 1.5 s: sd(f) ~ 1.3e-4 Hz;
   * the damped fit adds two parameters, so allow 5 x the bound over five
   * seeds. The crossings must not multiply with the noise. */
  const int n = 1501;
  const double f = 5.9, sigma = 1e-3, A = 0.1;
  const double bound =
      sqrt(24 * sigma * sigma / (A * A * 1e-6 * n * n * n)) / (2 * M_PI);
  for (uint64_t seed = 1; seed <= 5; seed++) {
    damped_sine(n, f, seed % 2 ? 0.0 : 0.8, 0.05, sigma, seed);
    rod_signal_sine fit;
    ck_assert_int_eq(rod_signal_frequency(t, y + 2, 3, n, &fit), ROD_OK);
    ROD_ASSERT_NEAR(fit.frequency, f, 5 * bound);
    /* 5.9 Hz from phase 0.7: upward crossings at (k - 0.111) / 5.9 s */
    ck_assert_int_eq(fit.crossings, 8);
    ROD_ASSERT_NEAR(fit.rms, sigma, 0.1 * sigma);
  }
}
END_TEST

START_TEST(frequency_needs_two_crossings) {
  rod_signal_sine fit;
  damped_sine(100, 5.9, 0, 0, 0, 0); /* 0.1 s: half a period */
  ck_assert_int_eq(rod_signal_frequency(t, y + 2, 3, 100, &fit), ROD_EINVAL);
  ck_assert_int_eq(rod_signal_frequency(t, y + 2, 3, 5, &fit), ROD_EINVAL);
}
END_TEST

START_TEST(extremum_of_parabola_is_exact) {
  int n = 201;
  for (int i = 0; i < n; i++) {
    t[i] = 1e-3 * i;
    y[i] = 3 - 2 * (t[i] - 0.0937) * (t[i] - 0.0937);
  }
  double te, ye;
  ck_assert_int_eq(rod_signal_extremum(t, y, 1, n, 0.08, 0.03, 1, &te, &ye),
                   ROD_OK);
  ROD_ASSERT_NEAR(te, 0.0937, 1e-12);
  ROD_ASSERT_NEAR(ye, 3.0, 1e-12);
  /* a maximum is not a minimum */
  ck_assert_int_eq(rod_signal_extremum(t, y, 1, n, 0.08, 0.03, -1, &te, &ye),
                   ROD_EINVAL);
}
END_TEST

START_TEST(extremum_of_cosine_smooth_in_shift) {
  /* Peak of A cos(w (t - t0)) over a window of w a = pi/4: the biweight
   * parabola underestimates the peak by A (w a)^4 / 24 * 0.0303 (the
   * weighted least-squares intercept of u^4 on {1, u^2}), 4.8e-4 A; the
   * next term is below 2e-5 A. As t0 slides across two samples the
   * estimate must vary smoothly: it ripples with the grid (period h = 1
   * ms, amplitude < 1e-6 A), whose second differences at steps of 1e-5 s
   * are below (2 pi 1e-5 / h)^2 1e-6 A = 4e-9 A, while a sample entering a
   * hard-edged window would make it jump by ~1e-4 A. */
  const int n = 1001;
  const double A = 0.1, w = 2 * M_PI * 5.9, a = M_PI / 4 / w;
  const double bias = A * pow(w * a, 4) / 24 * 0.0303;
  double prev[2] = {0, 0};
  for (int k = 0; k <= 200; k++) {
    double t0 = 0.5 + 1e-5 * k;
    for (int i = 0; i < n; i++) {
      t[i] = 1e-3 * i;
      y[i] = A * cos(w * (t[i] - t0));
    }
    double te, ye;
    ck_assert_int_eq(rod_signal_extremum(t, y, 1, n, 0.51, a, 1, &te, &ye),
                     ROD_OK);
    ROD_ASSERT_NEAR(ye, A - bias, 2e-5 * A);
    ROD_ASSERT_NEAR(te, t0, 1e-8); /* symmetric peak: no bias in time */
    if (k >= 2)
      ROD_ASSERT_NEAR(ye - 2 * prev[1] + prev[0], 0.0, 4e-9 * A);
    prev[0] = prev[1];
    prev[1] = ye;
  }
}
END_TEST

START_TEST(random_numbers_are_standard_normal) {
  /* mean 0 and variance 1 within 5 standard errors of 1e5 draws; a
   * different seed gives different numbers */
  const int n = 100000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n; i++) {
    double g = rod_random_gaussian(42, i);
    s += g;
    s2 += g * g;
  }
  ROD_ASSERT_NEAR(s / n, 0.0, 5 / sqrt(n));
  ROD_ASSERT_NEAR(s2 / n, 1.0, 5 * sqrt(2.0 / n));
  ck_assert(rod_random_gaussian(1, 0) != rod_random_gaussian(2, 0));
  ck_assert(rod_random_gaussian(1, 0) == rod_random_gaussian(1, 0));
}
END_TEST

static Suite *signal_suite(void) {
  Suite *s = suite_create("signal");
  TCase *tc = tcase_create("interpolation");
  tcase_add_test(tc, hermite_is_fourth_order);
  tcase_add_test(tc, hermite_exact_for_cubics_and_clamped_outside);
  suite_add_tcase(s, tc);
  tc = tcase_create("frequency");
  tcase_add_test(tc, frequency_exact_on_clean_sines);
  tcase_add_test(tc, frequency_with_noise_within_cramer_rao);
  tcase_add_test(tc, frequency_needs_two_crossings);
  suite_add_tcase(s, tc);
  tc = tcase_create("extrema");
  tcase_add_test(tc, extremum_of_parabola_is_exact);
  tcase_add_test(tc, extremum_of_cosine_smooth_in_shift);
  suite_add_tcase(s, tc);
  tc = tcase_create("random");
  tcase_add_test(tc, random_numbers_are_standard_normal);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(signal_suite)
