/* Calibration (rod/calibrate.h; docs/commands.md, docs/files.md): known
 * parameters come back from noisy synthetic trajectories within their
 * standard errors, which match an independent Cramer-Rao computation; both
 * drag coefficients; threads that do not change the result; the features
 * objective; samples before the release; the shape objective and flagged
 * samples. */
#include <string.h>

#include "calibrateutil.h"

/* ---- recovery from noisy trajectories -----------------------------------*/

/* sd of the estimates of the [rod] keys by (J^T J)^-1 sigma^2 with the
 * true sigma and a central-difference J in ln p at the truth: the
 * Cramer-Rao bound of the trajectory fit, computed without the library's
 * fit machinery (the inverse by Gauss-Jordan on the small normal
 * matrix). */
static void cramer_rao_keys(const rod_scenario *truth, const rod_tip_data *d,
                            double sigma, int P, const char *const *keys,
                            double *sd) {
  enum { PMAX = 3 };
  const int n = d->n, m = 2 * n;
  double *J = calloc((size_t)m * P, sizeof *J);
  const double h = 1e-3;
  double tv[PMAX];
  for (int j = 0; j < P; j++) {
    rod_tip_data *side[2];
    rod_scenario t = *truth;
    tv[j] = *rod_scenario_double_key(&t, "rod", keys[j]);
    for (int k = 0; k < 2; k++) {
      rod_scenario s = *truth;
      *rod_scenario_double_key(&s, "rod", keys[j]) *= exp(k ? -h : h);
      rod_error err;
      ck_assert_int_eq(rod_calib_synthesize(&s, 1000, 0, 0, XZ, &side[k], &err),
                       ROD_OK);
    }
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 2; c++)
        J[(size_t)j * m + 2 * i + c] =
            (side[0]->xyz[3 * i + 2 * c] - side[1]->xyz[3 * i + 2 * c]) /
            (2 * h);
    rod_tip_data_free(side[0]);
    rod_tip_data_free(side[1]);
  }
  double A[PMAX][2 * PMAX] = {{0}}; /* [J^T J | I] -> [I | (J^T J)^-1] */
  for (int a = 0; a < P; a++) {
    for (int b = 0; b < P; b++)
      for (int i = 0; i < m; i++)
        A[a][b] += J[(size_t)a * m + i] * J[(size_t)b * m + i];
    A[a][P + a] = 1;
  }
  for (int c = 0; c < P; c++) { /* symmetric positive definite: no pivots */
    const double piv = A[c][c];
    for (int b = 0; b < 2 * P; b++)
      A[c][b] /= piv;
    for (int a = 0; a < P; a++)
      if (a != c) {
        const double f = A[a][c];
        for (int b = 0; b < 2 * P; b++)
          A[a][b] -= f * A[c][b];
      }
  }
  for (int j = 0; j < P; j++)
    sd[j] = tv[j] * sigma * sqrt(A[j][P + j]);
  free(J);
}

static void cramer_rao(const rod_scenario *truth, const rod_tip_data *d,
                       double sigma, double sd[3]) {
  const char *const keys[3] = {"bending_stiffness", "density", "drag"};
  cramer_rao_keys(truth, d, sigma, 3, keys, sd);
}

/* Three noise levels, fixed seeds, starts 10-15 % off (the drag's start
 * from 0, i.e. the cylinder-in-air prior, at the middle level), through
 * the features pre-fit, which must give the better start: the truth
 * within 3 standard errors; the rms residual the noise (its sampling sd
 * for 1002 residuals is 2 %, allow 10 %); the standard errors within 15 %
 * of the Cramer-Rao values (the library's use the estimated sigma, +-2 %,
 * and a forward-difference J at the fit, not the truth). */
START_TEST(recovers_parameters_from_noisy_trajectories) {
  const rod_scenario truth = test_rod(0.5);
  double tv[3], crb[3];
  truth_of(&truth, tv);
  const double sigma[3] = {1e-5, 1e-4, 1e-3};
  for (int level = 0; level < 3; level++) {
    rod_tip_data *d;
    rod_error err;
    ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, sigma[level],
                                          11 + level, XZ, &d, &err),
                     ROD_OK);
    rod_scenario start = moved(&truth, 1.12, 0.88, level == 1 ? 0 : 1.15);
    rod_calib_options o = rod_calib_default_options();
    rod_calib_result r;
    rod_scenario fitted;
    fit(&start, d, &o, &r, &fitted);
    cramer_rao(&truth, d, sigma[level], crb);
    for (int j = 0; j < 3; j++) {
      ck_assert_msg(fabs(r.value[j] - tv[j]) <= 3 * r.std_error[j],
                    "noise %g: %s = %.8g +- %.3g, truth %.8g", sigma[level],
                    o.keys[j], r.value[j], r.std_error[j], tv[j]);
      ROD_ASSERT_NEAR(r.std_error[j], crb[j], 0.15 * crb[j]);
    }
    ROD_ASSERT_NEAR(r.rms_residual, sigma[level], 0.1 * sigma[level]);
    ck_assert(r.from_prefit && r.prefit_simulations > 0);
    ck_assert_double_eq(fitted.rod.bending_stiffness, r.value[0]);
    ck_assert(fitted.rod.has_bending_stiffness);
    ck_assert_int_eq(r.residuals, 2 * d->n);
    rod_tip_data_free(d);
  }
}
END_TEST

/* Both coefficients of drag_model = normal, C_n (rod.drag) and C_t
 * (rod.drag_tangential), from a tip trajectory. Tangential drag needs
 * motion along a curved rod (an inextensible rod's tangential speed is the
 * integral of kappa q . n), which a weight release barely has (there C_t
 * comes out +- inf): the test rod precurved into a quarter circle (u2 =
 * 3.85 1/m, its tip 0.26 m below the clamp, no tip mass) with its clamp
 * shaken along x (base.motion_file: 3 cm at 3 Hz, brought in over 0.2 s),
 * 1.2 s at 1 kHz, 1e-5 m of noise, EI and density held. From starts 12 %
 * and 30 % off: the truth within 3 standard errors, C_t determined to a
 * few per cent (measured C_n 0.0035450 +- 6.6e-6 and C_t 0.002119 +-
 * 7.7e-5 for 0.003556 and 0.002: 1.7 and 1.5 standard errors off;
 * Cramer-Rao 6.7e-6 and 7.8e-5; 12 iterations), the standard errors
 * within 15 % of the Cramer-Rao values and the rms residual the noise
 * (9.9e-6 m), as the default keys' test above. */
START_TEST(recovers_normal_and_tangential_drag) {
  rod_scenario truth = test_rod(1.2);
  char dir[256], csv[64 * 130] = "t,x,y,z,rx,ry,rz\n";
  rod_test_dir(dir, sizeof dir, "rodsim_calib");
  for (int i = 0; i <= 120; i++) {
    const double t = 0.01 * i, ramp = fmin(1.0, t / 0.2);
    const double x = 0.03 * sin(2 * M_PI * 3 * t) * ramp * ramp;
    size_t len = strlen(csv);
    snprintf(csv + len, sizeof csv - len, "%.17g,%.17g,0,0,0,0,0\n", t, x);
  }
  rod_test_write(dir, "shake.csv", csv);
  snprintf(truth.base.motion_file, sizeof truth.base.motion_file,
           "%s/shake.csv", dir);
  truth.tip.mass = 0;
  truth.rod.precurvature[1] = 3.85;
  truth.rod.drag_model = ROD_DRAG_NORMAL;
  truth.rod.drag_tangential = 0.002;
  rod_error err;
  ck_assert_msg(rod_scenario_validate(&truth, &err) == ROD_OK, "%s",
                err.message);
  const double sigma = 1e-5;
  rod_tip_data *d;
  ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, sigma, 5, XZ, &d, &err),
                   ROD_OK);
  rod_calib_options o = rod_calib_default_options();
  ck_assert_int_eq(rod_calib_set_keys(&o, "drag,drag_tangential", "t", &err),
                   ROD_OK);
  rod_scenario start = truth, fitted;
  start.rod.drag *= 1.12;
  start.rod.drag_tangential *= 1.3;
  rod_calib_result r;
  fit(&start, d, &o, &r, &fitted);
  const char *const keys[2] = {"drag", "drag_tangential"};
  const double tv[2] = {truth.rod.drag, truth.rod.drag_tangential};
  double crb[2];
  cramer_rao_keys(&truth, d, sigma, 2, keys, crb);
  rod_test_rmdir(dir);
  for (int j = 0; j < 2; j++) {
    ck_assert_msg(fabs(r.value[j] - tv[j]) <= 3 * r.std_error[j],
                  "%s = %.8g +- %.3g, truth %.8g", o.keys[j], r.value[j],
                  r.std_error[j], tv[j]);
    ROD_ASSERT_NEAR(r.std_error[j], crb[j], 0.15 * crb[j]);
  }
  ck_assert(r.std_error[1] < 0.1 * tv[1]);
  ROD_ASSERT_NEAR(r.rms_residual, sigma, 0.1 * sigma);
  ck_assert(fitted.rod.drag_model == ROD_DRAG_NORMAL);
  rod_tip_data_free(d);
}
END_TEST

/* The simulations are deterministic and independent, so the fit must not
 * depend on how many threads ran them or which runs were speculative;
 * with the LM's iteration cap hit,
 * the result says so and still carries standard errors. */
START_TEST(threads_do_not_change_the_result) {
  const rod_scenario truth = test_rod(0.3);
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, 1e-4, 5, XZ, &d, &err),
                   ROD_OK);
  rod_scenario start = moved(&truth, 1.1, 0.9, 1.1), fitted;
  rod_calib_result r1, r2;
  rod_calib_options o = rod_calib_default_options();
  o.prefit = false; /* the trajectory LM alone, from the start */
  o.threads = 1;
  fit(&start, d, &o, &r1, &fitted);
  o.threads = 3;
  fit(&start, d, &o, &r2, &fitted);
  ck_assert_int_eq(r1.threads, 1);
  ck_assert_int_eq(r2.threads, 3);
  for (int j = 0; j < 3; j++) {
    ck_assert_double_eq(r1.value[j], r2.value[j]);
    ck_assert_double_eq(r1.std_error[j], r2.std_error[j]);
  }
  /* the same LM path; more threads run Jacobian columns in advance, which
   * rejected steps waste */
  ck_assert_int_eq(r1.iterations, r2.iterations);
  ck_assert_int_ge(r2.simulations, r1.simulations);
  o.max_iterations = 2;
  ck_assert_int_eq(rod_calib_fit(&start, d, "d", &o, &fitted, &r1, &err),
                   ROD_OK);
  ck_assert(!r1.converged);
  ck_assert_int_eq(r1.iterations, 2);
  for (int j = 0; j < 3; j++)
    ck_assert(isfinite(r1.std_error[j]) && r1.std_error[j] > 0);
  rod_tip_data_free(d);
}
END_TEST

/* The features of a clean trajectory pin EI alone from 15 % off (exact
 * data: only the LM's step tolerance 1e-6 and rounding remain), and with
 * EI, density and drag together all three. */
START_TEST(features_recover_bending_stiffness) {
  const rod_scenario truth = test_rod(0.5);
  double tv[3];
  truth_of(&truth, tv);
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, 0, 0, XZ, &d, &err),
                   ROD_OK);
  rod_calib_options o = rod_calib_default_options();
  o.objective = ROD_CALIB_FEATURES;
  ck_assert_int_eq(rod_calib_set_keys(&o, "bending_stiffness", "t", &err),
                   ROD_OK);
  rod_scenario start = moved(&truth, 0.85, 1, 1), fitted;
  rod_calib_result r;
  fit(&start, d, &o, &r, &fitted);
  ck_assert_int_eq(r.residuals, 4);
  ROD_ASSERT_NEAR(r.value[0], tv[0], 1e-5 * tv[0]);
  ck_assert_int_eq(
      rod_calib_set_keys(&o, "bending_stiffness,density,drag", "t", &err),
      ROD_OK);
  start = moved(&truth, 1.1, 0.9, 1.2);
  fit(&start, d, &o, &r, &fitted);
  for (int j = 0; j < 3; j++)
    ROD_ASSERT_NEAR(r.value[j], tv[j], 1e-4 * tv[j]);
  rod_tip_data_free(d);
}
END_TEST

/* Rows before the release (t < 0) are the static state: they compare with
 * the run's t = 0 sample, and the fit still returns EI. */
START_TEST(samples_before_release_are_static) {
  const rod_scenario truth = test_rod(0.3);
  rod_tip_data *d, *longer;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&truth, 1000, 1e-4, 9, XZ, &d, &err),
                   ROD_OK);
  const int before = 20;
  longer = rod_tip_data_alloc(d->n + before);
  for (int c = 0; c < 3; c++)
    longer->has[c] = d->has[c];
  for (int i = 0; i < longer->n; i++) {
    int k = i < before ? 0 : i - before; /* the static rows repeat t = 0 */
    longer->t[i] = i < before ? -1e-3 * (before - i) : d->t[k];
    for (int c = 0; c < 3; c++)
      longer->xyz[3 * i + c] =
          d->xyz[3 * k + c] +
          (i < before && d->has[c] ? 1e-4 * (i % 3 - 1) : 0.0);
  }
  rod_calib_options o = rod_calib_default_options();
  ck_assert_int_eq(rod_calib_set_keys(&o, "bending_stiffness", "t", &err),
                   ROD_OK);
  rod_scenario start = moved(&truth, 1.1, 1, 1), fitted;
  rod_calib_result r;
  fit(&start, longer, &o, &r, &fitted);
  ck_assert_int_eq(r.residuals, 2 * longer->n);
  ck_assert_msg(fabs(r.value[0] - truth.rod.bending_stiffness) <=
                    3 * r.std_error[0],
                "EI %.8g +- %.3g", r.value[0], r.std_error[0]);
  ROD_ASSERT_NEAR(r.rms_residual, 1e-4, 1e-5);
  rod_tip_data_free(d);
  rod_tip_data_free(longer);
}
END_TEST

/* ---- shapes and flagged samples -----------------------------------------*/

/* Eleven points per frame at 500 frames/s, 1e-4 m of independent noise on
 * each: the shape objective returns the truth within 3 of its standard
 * errors, its rms residual is the noise, and its errors are smaller than
 * the trajectory objective's on the same frames' tips (point 10). The
 * motion is mostly the first mode, so each point's sensitivity is the
 * tip's times the mode shape there, and the errors shrink by about
 * sqrt(sum of the points' squared mode shape / the tip's): 1.76 for each
 * key here (asserted above 1.5). */
START_TEST(shape_objective_recovers_parameters) {
  const rod_scenario truth = test_rod(0.3);
  double tv[3];
  truth_of(&truth, tv);
  rod_shape_data *d;
  rod_error err;
  ck_assert_int_eq(
      rod_calib_synthesize_shape(&truth, 500, 11, 1e-4, 21, &d, &err), ROD_OK);
  ck_assert_int_eq(d->frames, 151);
  rod_scenario start = moved(&truth, 1.1, 0.9, 1.15);
  rod_calib_options o = rod_calib_default_options();
  o.objective = ROD_CALIB_SHAPE;
  rod_calib_result shape, tip;
  fit_shape(&start, d, &o, &shape);
  ck_assert_int_eq(shape.residuals, 2 * 10 * 151);
  ROD_ASSERT_NEAR(shape.rms_residual, 1e-4, 5e-6);
  o.objective = ROD_CALIB_TRAJECTORY;
  fit_shape(&start, d, &o, &tip);
  ck_assert_int_eq(tip.residuals, 2 * 151);
  for (int j = 0; j < 3; j++) {
    ck_assert_msg(fabs(shape.value[j] - tv[j]) <= 3 * shape.std_error[j],
                  "%s = %.8g +- %.3g, truth %.8g", o.keys[j], shape.value[j],
                  shape.std_error[j], tv[j]);
    ck_assert_msg(tip.std_error[j] > 1.5 * shape.std_error[j],
                  "%s: tip +- %.3g, shape +- %.3g", o.keys[j], tip.std_error[j],
                  shape.std_error[j]);
  }
  rod_shape_free(d);
}
END_TEST

/* Frames and samples flagged invalid are left out: wrecking them changes
 * nothing, to the last bit; they are counted. */
START_TEST(flagged_samples_are_skipped) {
  const rod_scenario truth = test_rod(0.2);
  rod_shape_data *d;
  rod_error err;
  ck_assert_int_eq(
      rod_calib_synthesize_shape(&truth, 500, 6, 1e-4, 3, &d, &err), ROD_OK);
  rod_scenario start = moved(&truth, 1.05, 0.95, 1.1);
  rod_calib_options o = rod_calib_default_options();
  o.objective = ROD_CALIB_SHAPE;
  o.prefit = false;
  rod_calib_result clean, flagged;
  for (int i = 0; i < d->frames; i += 7)
    d->valid[i] = 0;
  fit_shape(&start, d, &o, &clean);
  for (int i = 0; i < d->frames; i += 7)
    for (int k = 0; k < 12; k++)
      d->xz[12 * i + k] += 0.05; /* a lost trace */
  fit_shape(&start, d, &o, &flagged);
  ck_assert_int_eq(flagged.skipped, 15);
  for (int j = 0; j < 3; j++)
    ck_assert_double_eq(clean.value[j], flagged.value[j]);
  /* the same through the tip CSV's valid column */
  rod_tip_data *tip = rod_shape_tip(d);
  o.objective = ROD_CALIB_TRAJECTORY;
  rod_scenario fitted;
  ck_assert_int_eq(
      rod_calib_fit(&start, tip, "tip", &o, &fitted, &flagged, &err), ROD_OK);
  ck_assert_int_eq(flagged.skipped, 15);
  ck_assert_int_eq(flagged.residuals, 2 * (d->frames - 15));
  for (int i = 0; i < tip->n; i++)
    tip->valid[i] = 0;
  ck_assert_int_eq(
      rod_calib_fit(&start, tip, "tip", &o, &fitted, &flagged, &err),
      ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "flagged"));
  /* the shape objective needs a shape */
  o.objective = ROD_CALIB_SHAPE;
  tip->valid[3] = 1;
  ck_assert_int_eq(
      rod_calib_fit(&start, tip, "tip", &o, &fitted, &flagged, &err),
      ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "shape file"));
  rod_tip_data_free(tip);
  rod_shape_free(d);
}
END_TEST

static Suite *calibrate_recovery_suite(void) {
  Suite *s = suite_create("calibrate_recovery");
  TCase *tc = tcase_create("recovery");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, recovers_parameters_from_noisy_trajectories);
  tcase_add_test(tc, recovers_normal_and_tangential_drag);
  tcase_add_test(tc, threads_do_not_change_the_result);
  tcase_add_test(tc, features_recover_bending_stiffness);
  tcase_add_test(tc, samples_before_release_are_static);
  tcase_add_test(tc, shape_objective_recovers_parameters);
  tcase_add_test(tc, flagged_samples_are_skipped);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(calibrate_recovery_suite)
