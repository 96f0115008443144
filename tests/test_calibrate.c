/* Calibration (rod/calibrate.h; docs/commands.md, docs/files.md): known
 * parameters come back from noisy synthetic trajectories within their
 * standard errors, which match an independent Cramer-Rao computation; the
 * features objective; frames drawn from a simulation, tracked and
 * calibrated; and `rodsim calibrate`'s output and exit statuses.
 *
 * The test rod is the weight release of Till & Rucker 2017 on a coarse grid (30
 * nodes, dt = 2 ms, 0.5 s: three periods, 35 ms a run) so the whole suite
 * stays well under a minute on two cores. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rod/calibrate.h"
#include "rod/recorder.h"
#include "rod/render.h"
#include "rod/sim.h"
#include "rod/track.h"
#include "testutil.h"
#include "track/frames.h"

/* ---- the test rod -------------------------------------------------------*/

static rod_scenario test_rod(double duration) {
  const char *data = getenv("RODSIM_DATA");
  ck_assert_msg(data != NULL, "RODSIM_DATA not set");
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini", data);
  rod_scenario sc;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  sc.space.nodes = 30;
  sc.time.dt = 2e-3;
  sc.time.duration = duration;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  return sc;
}

static const bool XZ[3] = {true, false, true};

/* The truth as a vector in the order of the default keys. */
static void truth_of(const rod_scenario *sc, double v[3]) {
  v[0] = sc->rod.bending_stiffness;
  v[1] = sc->rod.density;
  v[2] = sc->rod.drag;
}

/* The start of a fit: each default key scaled. */
static rod_scenario moved(const rod_scenario *sc, double ei, double rho,
                          double drag) {
  rod_scenario s = *sc;
  s.rod.bending_stiffness *= ei;
  s.rod.density *= rho;
  s.rod.drag *= drag;
  return s;
}

static void fit(const rod_scenario *start, const rod_tip_data *d,
                const rod_calib_options *o, rod_calib_result *r,
                rod_scenario *fitted) {
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_calib_fit(start, d, "synthetic", o, fitted, r, &err);
  ck_assert_msg(st == ROD_OK, "fit: %s: %s", rod_strerror(st), err.message);
  ck_assert(r->converged);
}

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

static void fit_shape(const rod_scenario *start, const rod_shape_data *d,
                      const rod_calib_options *o, rod_calib_result *r) {
  rod_error err = {{0}, {0}, {0}, 0};
  rod_scenario fitted;
  int st = rod_calib_fit_shape(start, d, "shape", o, &fitted, r, &err);
  ck_assert_msg(st == ROD_OK, "fit: %s: %s", rod_strerror(st), err.message);
  ck_assert(r->converged);
}

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

/* ---- keys and bad input -------------------------------------------------*/

START_TEST(keys_are_checked) {
  rod_calib_options o = rod_calib_default_options();
  rod_error err;
  ck_assert_int_eq(rod_calib_set_keys(&o, " rod.drag , density", "s.ini", &err),
                   ROD_OK);
  ck_assert_int_eq(o.nkeys, 2);
  ck_assert_str_eq(o.keys[0], "drag");
  ck_assert_str_eq(o.keys[1], "density");
  const char *bad[][3] = {
      {"stiffness", "rod.stiffness", "unknown [rod] key"},
      {"model", "rod.model", "not a number"},
      {"time.dt", "time.dt", "only [rod] keys"},
      {"drag,drag", "rod.drag", "twice"},
      {"drag,", "", "comma-separated"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ck_assert_int_eq(rod_calib_set_keys(&o, bad[k][0], "s.ini", &err),
                     ROD_EINVAL);
    ck_assert_str_eq(err.file, "s.ini");
    ck_assert_str_eq(err.key, bad[k][1]);
    ck_assert_msg(strstr(err.message, bad[k][2]), "%s: %s", bad[k][0],
                  err.message);
  }
}
END_TEST

START_TEST(unusable_input_is_rejected) {
  rod_scenario sc = test_rod(0.1), fitted;
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result r;
  rod_error err;
  /* a key at 0 without a prior cannot start in log space */
  rod_tip_data *d = rod_tip_data_alloc(5);
  for (int i = 0; i < 5; i++) {
    d->t[i] = 1e-3 * i;
    d->xyz[3 * i] = 0.4;
  }
  d->has[0] = true;
  ck_assert_int_eq(rod_calib_set_keys(&o, "bending_damping", "t", &err),
                   ROD_OK);
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.key, "rod.bending_damping");
  /* 5 residuals for 3 parameters are enough; 3 are not */
  o = rod_calib_default_options();
  d->n = 3;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.file, "d.csv");
  ck_assert_ptr_nonnull(strstr(err.message, "too few"));
  /* no coordinate; features without z */
  d->has[0] = false;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "no x, y or z"));
  d->has[0] = true;
  o.objective = ROD_CALIB_FEATURES;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "z column"));
  rod_tip_data_free(d);
}
END_TEST

/* ---- frames -> track -> calibrate ---------------------------------------*/

enum { WIDTH = 320, HEIGHT = 240 };

/* The camera: 1.5 mm per pixel, the clamp at column 10, row 100 (the rod
 * spans x in [0, 0.41] m and z in about [-0.13, 0.09] m). */
static const rod_camera CAMERA = {1.5e-3, 10, 100};
static const double LINE_WIDTH = 2.0;

static void frame_path(const char *dir, int i, char *path, size_t size) {
  snprintf(path, size, "%s/frame%04d.png", dir, i);
}

/* Draw every sample of a run of sc (one frame per time step) into dir;
 * returns the number of frames. */
static int draw_frames(const rod_scenario *sc, const char *dir) {
  rod_recorder *rec = rod_recorder_alloc(sc, true);
  rod_sim_sink sink = rod_recorder_sink(rec);
  rod_sim_result res;
  rod_error err;
  ck_assert_int_eq(rod_sim_run(sc, &sink, false, &res, &err), ROD_OK);
  rod_image *img = rod_image_alloc(WIDTH, HEIGHT);
  rod_frame_style style = rod_frame_style_default();
  style.camera = CAMERA;
  style.line_width = LINE_WIDTH;
  style.noise = 0.03;
  for (int i = 0; i < rec->count; i++) {
    char path[600];
    frame_path(dir, i, path, sizeof path);
    style.seed = (uint64_t)i + 1;
    ck_assert_int_eq(rod_frame_draw(img, &style,
                                    rec->rod + (size_t)i * rec->points * 3,
                                    rec->points),
                     ROD_OK);
    ck_assert_int_eq(rod_image_write_png(img, path, ROD_PNG_GRAY, 8, &err),
                     ROD_OK);
  }
  int frames = rec->count;
  rod_image_free(img);
  rod_recorder_free(rec);
  return frames;
}

/* EI and density within `rel` of the truth tv, drag within 5 %, the rms
 * residual below a pixel of `scale` m; the fit printed. */
static void expect_recovered(const char *what, const rod_calib_result *r,
                             const double tv[3], double rel, double scale) {
  fprintf(stderr, "%s: %.6g %.6g %.6g (+- %.2g %.2g %.2g) rms %.3g\n", what,
          r->value[0], r->value[1], r->value[2], r->std_error[0],
          r->std_error[1], r->std_error[2], r->rms_residual);
  ROD_ASSERT_NEAR(r->value[0], tv[0], rel * tv[0]);
  ROD_ASSERT_NEAR(r->value[1], tv[1], rel * tv[1]);
  ROD_ASSERT_NEAR(r->value[2], tv[2], 0.05 * tv[2]);
  ck_assert_double_lt(r->rms_residual, scale);
}

/* The experiment of Till and Rucker (2017) end to end: frames of a known rod,
 * tracked, calibrated. The tracked tip lies half the line width beyond the
 * rod's end in x (the round cap), which the test removes as one would for a
 * real camera; what remains is pixel quantization (1.5 mm / sqrt(12) = 0.43 mm
 * rms) and up to a pixel (1.5 mm) too high in z from the topmost rule. Against
 * the static deflection of 0.117 m that EI answers to, a pixel is 1.3 %: EI and
 * density must come back within 1 %, and the drag, whose standard error here is
 * 2 %, within 5 %. */
START_TEST(tracked_frames_return_the_parameters) {
  const rod_scenario truth = test_rod(0.4);
  double tv[3];
  truth_of(&truth, tv);
  char dir[] = "/tmp/rodsim-calib-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const int frames = draw_frames(&truth, dir);
  rod_track_options to = rod_track_default();
  to.fps = 1.0 / truth.time.dt;
  to.camera = CAMERA;
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_track_dir(dir, &to, &d, &err), ROD_OK);
  for (int i = 0; i < frames; i++) {
    char path[600];
    frame_path(dir, i, path, sizeof path);
    remove(path);
  }
  rmdir(dir);
  ck_assert_int_eq(d->n, frames);
  for (int i = 0; i < d->n; i++)
    d->xyz[3 * i] -= 0.5 * LINE_WIDTH * CAMERA.scale;
  rod_scenario start = moved(&truth, 1.1, 0.9, 1.15), fitted;
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result r;
  fit(&start, d, &o, &r, &fitted);
  expect_recovered("tracked", &r, tv, 0.01, CAMERA.scale);
  rod_tip_data_free(d);
}
END_TEST

/* The same experiment through a video: the run rendered as H.264 (320 x
 * 240, 500 frames/s, 3 % noise) by a camera tilted 5 degrees, tracked from
 * the clamp with the plane's homography (four marks of a target), and
 * fitted to every point of the shape. Centreline errors of 0.05-0.2 px
 * (docs/tracking.md) of 1.4 mm are 0.06-0.24 % of the static deflection
 * (0.117 m) that EI answers to, and they average over 49 points and 201
 * frames: EI and density must come back within the 0.5 % asked of a
 * video, drag within 5 %, and the rms residual below a pixel. */
START_TEST(video_returns_the_parameters) {
  const rod_scenario truth = test_rod(0.4);
  double tv[3];
  truth_of(&truth, tv);
  rod_recorder *rec = rod_recorder_alloc(&truth, true);
  rod_sim_sink sink = rod_recorder_sink(rec);
  rod_sim_result res;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_sim_run(&truth, &sink, false, &res, &err), ROD_OK);
  const rod_camera nominal = {1.4e-3, 10, 110};
  rod_render_video_options vo = {.style = rod_render_default(),
                                 .video = rod_video_writer_default(),
                                 .start = 0,
                                 .end = -1};
  vo.style.width = WIDTH;
  vo.style.height = HEIGHT;
  vo.style.noise = 0.03;
  vo.video.fps = 1.0 / truth.time.dt;
  ck_assert_int_eq(rod_camera_model_tilted(&nominal, WIDTH, HEIGHT, 1.0, 0,
                                           5 * M_PI / 180, &vo.style.camera),
                   ROD_OK);
  char dir[] = "/tmp/rodsim-calib-XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/run.mp4", dir);
  long frames;
  ck_assert_int_eq(rod_render_video(rec->t, rec->count, rec->rod, rec->points,
                                    &vo, path, &frames, &err),
                   ROD_OK);
  ck_assert_int_eq(frames, rec->count);
  rod_recorder_free(rec);
  /* four marks of a target in the rod's plane, as the camera shows them */
  double from[8], to[8] = {0, 0.1, 0.4, 0.1, 0.4, -0.15, 0, -0.15};
  for (int k = 0; k < 4; k++)
    rod_camera_model_to_pixel(&vo.style.camera, to[2 * k], to[2 * k + 1],
                              &from[2 * k], &from[2 * k + 1]);
  rod_track_options to_ = rod_track_default();
  to_.timestamps = true;
  to_.method = ROD_TRACK_CENTRELINE;
  ck_assert_int_eq(rod_homography_fit(4, from, to, to_.plane, "p", NULL),
                   ROD_OK);
  to_.has_plane = true;
  rod_camera_model_to_pixel(&vo.style.camera, 0, 0, &to_.camera.origin_px,
                            &to_.camera.origin_py);
  rod_track_result tr;
  int st = rod_track(path, &to_, &tr, &err);
  remove(path);
  rmdir(dir);
  ck_assert_msg(st == ROD_OK, "track: %s", err.message);
  ck_assert_int_eq(tr.flagged, 0);
  rod_scenario start = moved(&truth, 1.1, 0.9, 1.15);
  rod_calib_options o = rod_calib_default_options();
  o.objective = ROD_CALIB_SHAPE;
  rod_calib_result r;
  fit_shape(&start, tr.shape, &o, &r);
  expect_recovered("video", &r, tv, 0.005, nominal.scale);
  rod_track_result_free(&tr);
}
END_TEST

/* ---- rodsim calibrate ---------------------------------------------------*/

static char cli_dir[64];

static const char *in_dir(const char *name) {
  static char path[2][256];
  static int which;
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/%s", cli_dir, name);
  return path[which];
}

static void write_text(const char *name, const char *text) {
  FILE *f = fopen(in_dir(name), "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static char *read_text(const char *name) {
  static char text[65536];
  FILE *f = fopen(in_dir(name), "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f)
    fclose(f);
  return text;
}

/* A 0.2 s weight release (rod.ini) and its tip at 1 kHz with 0.1 mm of
 * noise (tip.csv) in a fresh directory. */
static void cli_setup(void) {
  snprintf(cli_dir, sizeof cli_dir, "/tmp/rodsim-calibrate-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(cli_dir));
  rod_scenario sc = test_rod(0.2);
  char ini[8192];
  rod_scenario_to_ini(&sc, ini, sizeof ini);
  write_text("rod.ini", ini);
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&sc, 1000, 1e-4, 3, XZ, &d, &err),
                   ROD_OK);
  ck_assert_int_eq(rod_tip_write(in_dir("tip.csv"), d, &err), ROD_OK);
  rod_tip_data_free(d);
}

/* Every file the command-line tests write. */
static const char *const cli_files[] = {
    "rod.ini",    "tip.csv",  "fitted.ini",  "out.txt",
    "err.txt",    "few.csv",  "letters.csv", "no_t.csv",
    "no_xyz.csv", "shape.h5", "flagged.csv"};

static void cli_teardown(void) {
  for (size_t i = 0; i < sizeof cli_files / sizeof cli_files[0]; i++)
    remove(in_dir(cli_files[i]));
  rmdir(cli_dir);
}

/* Run "rodsim calibrate ARGS" in the directory; the exit status, stderr in
 * err.txt and stdout in out.txt. */
static int calibrate(const char *args) {
  const char *exe = getenv("RODSIM");
  ck_assert_msg(exe != NULL, "RODSIM not set");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && %s calibrate %s >out.txt 2>err.txt",
           cli_dir, exe, args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Exit `status` with exactly one line on stderr holding both needles. */
static void expect_failure(int status, const char *args, const char *needle1,
                           const char *needle2) {
  int st = calibrate(args);
  const char *err = read_text("err.txt");
  ck_assert_msg(st == status, "'%s': exit %d, expected %d: %s", args, st,
                status, err);
  const char *nl = strchr(err, '\n');
  ck_assert_msg(nl && !nl[1], "'%s': not one line: %s", args, err);
  ck_assert_msg(strncmp(err, "rodsim: ", 8) == 0, "'%s': %s", args, err);
  ck_assert_msg(strstr(err, needle1) && (!needle2 || strstr(err, needle2)),
                "'%s': no '%s' / '%s' in: %s", args, needle1,
                needle2 ? needle2 : "", err);
}

/* A shape file as --data: the shape objective by default, flagged frames
 * left out and counted; the trajectory objective on its tips; and the
 * tip CSV's valid column. */
START_TEST(cli_fits_a_shape_file) {
  rod_scenario sc = test_rod(0.2);
  rod_shape_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize_shape(&sc, 500, 8, 1e-4, 5, &d, &err),
                   ROD_OK);
  d->valid[4] = d->valid[40] = 0;
  d->xz[2 * 8 * 4 + 15] += 0.1;
  ck_assert_int_eq(rod_shape_write(in_dir("shape.h5"), d, "test", NULL, &err),
                   ROD_OK);
  rod_tip_data *tip = rod_shape_tip(d);
  ck_assert_int_eq(rod_tip_write(in_dir("flagged.csv"), tip, &err), ROD_OK);
  rod_tip_data_free(tip);
  rod_shape_free(d);
  const char *args[] = {
      "rod.ini --data shape.h5 --fit bending_stiffness "
      "--set rod.bending_stiffness=0.04",
      "rod.ini --data shape.h5 --fit bending_stiffness --objective trajectory",
      "rod.ini --data flagged.csv --fit bending_stiffness"};
  const char *objective[] = {"shape objective", "trajectory objective",
                             "trajectory objective"};
  const char *left_out[] = {"2 flagged frames", "2 flagged frames",
                            "2 flagged samples"};
  for (int k = 0; k < 3; k++) {
    int st = calibrate(args[k]);
    const char *summary = read_text("err.txt");
    ck_assert_msg(st == 0, "%s: exit %d: %s", args[k], st, summary);
    ck_assert_msg(strstr(summary, objective[k]) && strstr(summary, left_out[k]),
                  "%s: %s", args[k], summary);
    const char *fit = strstr(read_text("out.txt"), "\n[fit]\n");
    ck_assert_ptr_nonnull(fit);
    ck_assert(k > 0 || strstr(fit, "shape objective"));
  }
  expect_failure(2, "rod.ini --data tip.csv --objective shape",
                 "--objective: shape needs a shape file", NULL);
}
END_TEST

/* The fitted scenario: the input with the fitted [rod] values, readable by
 * every command (the loader skips [fit]), and the [fit] section of
 * docs/files.md with one standard error per key. */
START_TEST(cli_writes_the_fitted_scenario) {
  int st = calibrate("rod.ini --data tip.csv --fit bending_stiffness,drag "
                     "--set rod.bending_stiffness=0.042 -o fitted.ini");
  ck_assert_msg(st == 0, "exit %d: %s", st, read_text("err.txt"));
  const char *summary = read_text("err.txt");
  ck_assert_ptr_nonnull(strstr(summary, "bending_stiffness"));
  ck_assert_ptr_nonnull(strstr(summary, "simulations"));
  rod_scenario fitted, truth = test_rod(0.2);
  rod_error err;
  rod_scenario_default(&fitted);
  ck_assert_int_eq(rod_scenario_load(&fitted, in_dir("fitted.ini"), &err),
                   ROD_OK);
  ROD_ASSERT_NEAR(fitted.rod.bending_stiffness, truth.rod.bending_stiffness,
                  1e-3 * truth.rod.bending_stiffness);
  ck_assert_double_eq(fitted.rod.density, truth.rod.density);
  ck_assert_int_eq(fitted.space.nodes, 30);
  const char *text = read_text("fitted.ini");
  const char *fit = strstr(text, "\n[fit]\n");
  ck_assert_ptr_nonnull(fit);
  ck_assert_ptr_nonnull(strstr(fit, "\nkeys = bending_stiffness,drag\n"));
  double se[3], rms;
  int iterations, simulations, consumed = 0;
  const char *p = strstr(fit, "\nstd_error = ");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(
      sscanf(p, "\nstd_error = %lf %lf%n", &se[0], &se[1], &consumed), 2);
  ck_assert(p[consumed] == '\n'); /* exactly one per key */
  ck_assert(se[0] > 0 && se[0] < 1e-3 * truth.rod.bending_stiffness);
  /* where the fit started: the --set value, to the 10 digits written */
  double start[2];
  p = strstr(fit, "\nstart = ");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(
      sscanf(p, "\nstart = %lf %lf%n", &start[0], &start[1], &consumed), 2);
  ck_assert(p[consumed] == '\n');
  ck_assert_double_eq(start[0], 0.042);
  ck_assert(start[1] > 0);
  ck_assert_int_eq(
      sscanf(strstr(fit, "\nrms_residual = "), "\nrms_residual = %lf", &rms),
      1);
  ROD_ASSERT_NEAR(rms, 1e-4, 1e-5);
  ck_assert_int_eq(
      sscanf(strstr(fit, "\niterations = "), "\niterations = %d", &iterations),
      1);
  ck_assert_int_eq(sscanf(strstr(fit, "\nsimulations = "), "\nsimulations = %d",
                          &simulations),
                   1);
  ck_assert(iterations >= 1 && simulations >= 3 + iterations);
  /* without -o: the scenario on stdout; --quiet: nothing on stderr */
  ck_assert_int_eq(calibrate("rod.ini --data tip.csv --fit drag --quiet"), 0);
  ck_assert_str_eq(read_text("err.txt"), "");
  ck_assert_ptr_nonnull(strstr(read_text("out.txt"), "\nkeys = drag\n"));
}
END_TEST

START_TEST(cli_bad_input_exits_2) {
  write_text("letters.csv", "t,z\n0,0.1\n# comment\n0.001,abc\n");
  write_text("no_t.csv", "x,z\n0.4,0.1\n");
  write_text("no_xyz.csv", "t\n0\n0.001\n");
  write_text("few.csv", "t,z\n0,-0.1\n0.001,-0.1\n");
  expect_failure(2, "rod.ini --data tip.csv --fit stiffness", "rod.ini",
                 "rod.stiffness: unknown [rod] key");
  expect_failure(2, "rod.ini --data tip.csv --fit model", "rod.model",
                 "not a number");
  expect_failure(2, "rod.ini --data tip.csv --fit time.dt", "time.dt",
                 "only [rod] keys");
  expect_failure(2, "rod.ini --data missing.csv", "missing.csv", "cannot open");
  expect_failure(2, "rod.ini --data letters.csv", "letters.csv: line 4",
                 "not a number");
  expect_failure(2, "rod.ini --data no_t.csv", "no_t.csv", "'t'");
  expect_failure(2, "rod.ini --data no_xyz.csv", "no_xyz.csv", "no x, y or z");
  expect_failure(2, "rod.ini --data few.csv", "few.csv", "too few");
  expect_failure(2, "rod.ini --data tip.csv --objective best", "--objective",
                 "trajectory, features or shape");
  expect_failure(2, "rod.ini --data tip.csv --set rod.drag=-1", "rod.drag",
                 ">= 0");
  expect_failure(2, "rod.ini", "--data", NULL);
  expect_failure(2, "rod.ini --data tip.csv --fit bending_damping",
                 "rod.bending_damping", "positive start value");
}
END_TEST

/* A simulation that cannot converge at the start: exit 1, one line with
 * the parameter values and the simulation's reason. */
START_TEST(cli_simulation_failure_exits_1) {
  expect_failure(1, "rod.ini --data tip.csv --set solver.max_iterations=1",
                 "simulation failed at bending_stiffness=", "did not converge");
}
END_TEST

static Suite *calibrate_suite(void) {
  Suite *s = suite_create("calibrate");
  TCase *tc = tcase_create("recovery");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, recovers_parameters_from_noisy_trajectories);
  tcase_add_test(tc, recovers_normal_and_tangential_drag);
  tcase_add_test(tc, threads_do_not_change_the_result);
  tcase_add_test(tc, features_recover_bending_stiffness);
  tcase_add_test(tc, samples_before_release_are_static);
  tcase_add_test(tc, shape_objective_recovers_parameters);
  tcase_add_test(tc, flagged_samples_are_skipped);
  tcase_add_test(tc, tracked_frames_return_the_parameters);
  tcase_add_test(tc, video_returns_the_parameters);
  suite_add_tcase(s, tc);
  tc = tcase_create("input");
  tcase_add_test(tc, keys_are_checked);
  tcase_add_test(tc, unusable_input_is_rejected);
  suite_add_tcase(s, tc);
  tc = tcase_create("command line");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, cli_setup, cli_teardown);
  tcase_add_test(tc, cli_writes_the_fitted_scenario);
  tcase_add_test(tc, cli_fits_a_shape_file);
  tcase_add_test(tc, cli_bad_input_exits_2);
  tcase_add_test(tc, cli_simulation_failure_exits_1);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(calibrate_suite)
