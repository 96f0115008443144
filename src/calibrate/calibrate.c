/* The calibration driver: Levenberg-Marquardt over log-parameters with a
 * forward-difference Jacobian whose simulations run in parallel, then the
 * standard errors (see rod/calibrate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bvp/lm.h"
#include "calibrate_internal.h"

_Static_assert((int)ROD_CALIB_STOP_CONVERGED == (int)ROD_LM_CONVERGED &&
                   (int)ROD_CALIB_STOP_SMALL_STEP == (int)ROD_LM_SMALL_STEP &&
                   (int)ROD_CALIB_STOP_SMALL_GRADIENT ==
                       (int)ROD_LM_SMALL_GRADIENT &&
                   (int)ROD_CALIB_STOP_MAX_ITERATIONS ==
                       (int)ROD_LM_MAX_ITERATIONS &&
                   (int)ROD_CALIB_STOP_NO_PROGRESS == (int)ROD_LM_NO_PROGRESS &&
                   (int)ROD_CALIB_STOP_FAILED == (int)ROD_LM_FAILED,
               "rod_calib_stop follows rod_lm_stop");

/* The unknowns are x_j = 1 + ln(p_j / p0_j), p0 the start: ln keeps p_j >
 * 0 and makes a step in x a relative change of p whatever p's units. The
 * offset 1 keeps ||x|| ~ sqrt(n) throughout, so the LM's relative step
 * test (||dx|| <= tol ||x||) means "every parameter changed by less than
 * about tol" instead of depending on the units through ln p. */
typedef struct {
  calib_problem prob;
  const rod_calib_options *o;
  const rod_scenario *user_sc;
  int n;                            /* fitted keys */
  double start[ROD_CALIB_MAX_KEYS]; /* p0 */
  double h;                         /* forward-difference step in x */
  int threads;
  calib_run runs[1 + ROD_CALIB_MAX_KEYS]; /* base, then one per key */
  double *r_base;                         /* (m) residuals at x_base */
  double x_base[ROD_CALIB_MAX_KEYS];
  bool have_base;
  bool column_ready[ROD_CALIB_MAX_KEYS]; /* run 1 + j holds x_base + h e_j */
  double x_jacobian[ROD_CALIB_MAX_KEYS]; /* where J was last computed */
  bool have_jacobian;
  int simulations, evaluations;
  bool fatal;
  rod_error failure;
  /* the best base point simulated (the least sum of squares), which an
   * interrupted fit returns */
  double x_best[ROD_CALIB_MAX_KEYS], ss_best;
  bool have_best;
  bool interrupted; /* the options' stop said so */
} fit_context;

int calib_samples(const calib_problem *p) {
  return rod_sim_sample_count(&p->sc);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void values_at(const fit_context *c, const double *x, int j, double step,
                      double *values) {
  for (int i = 0; i < c->n; i++)
    values[i] = c->start[i] * exp(x[i] - 1.0 + (i == j ? step : 0.0));
}

static bool same_point(const double *a, const double *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Queue run k at x, parameter j moved by step (j < 0: none). A value the
 * scenario rejects (e.g. an overflow to inf) fails the run unrun. */
static void queue_run(fit_context *c, int k, const double *x, int j,
                      double step) {
  calib_run *run = &c->runs[k];
  double values[ROD_CALIB_MAX_KEYS];
  values_at(c, x, j, step, values);
  run->sc = c->prob.sc;
  rod_error err = {{0}, {0}, {0}, 0};
  run->status = calib_apply(&run->sc, c->n, c->o->keys, values, &err);
  run->pending = run->status == ROD_OK;
  if (!run->pending)
    rod_error_format(&err, run->message, sizeof run->message);
}

/* Run the queued runs; false when the options' stop ended them. */
static bool run_queued(fit_context *c) {
  c->simulations +=
      calib_run_all(c->runs, 1 + c->n, c->threads, c->o->stop, c->o->stop_user);
  if (c->o->stop && c->o->stop(c->o->stop_user))
    c->interrupted = true;
  return !c->interrupted;
}

/* A base point's residuals r at x: the best so far kept. */
static void note_point(fit_context *c, const double *x, const double *r) {
  double ss = 0;
  for (int i = 0; i < c->prob.m; i++)
    ss += r[i] * r[i];
  if (isfinite(ss) && (!c->have_best || ss < c->ss_best)) {
    memcpy(c->x_best, x, (size_t)c->n * sizeof *x);
    c->ss_best = ss;
    c->have_best = true;
  }
}

/* Residuals of a finished run: 0, or > 0 if it failed or cannot be
 * compared with the data. */
static int run_residuals(fit_context *c, calib_run *run, double *r) {
  if (run->status != ROD_OK)
    return 1;
  int st = c->prob.objective->residuals(&c->prob, run->rec, r);
  if (st != 0)
    snprintf(run->message, sizeof run->message,
             "the run cannot be compared with the data (it ends before "
             "the data do, or a feature is missing)");
  return st;
}

/* A failure the LM cannot step around: keep the message, stop the fit. */
static int fail(fit_context *c, const double *x, int j, double step,
                const calib_run *run) {
  double values[ROD_CALIB_MAX_KEYS];
  char where[400];
  values_at(c, x, j, step, values);
  calib_describe(c->n, c->o->keys, values, where, sizeof where);
  c->fatal = true;
  rod_error_set(&c->failure, ROD_ENOCONV, c->user_sc->source, NULL,
                "simulation failed at %s: %s", where, run->message);
  return ROD_ENOCONV;
}

/* Jacobian columns (r(x + h e_j) - r) / h from the finished runs 1 + j;
 * a column whose run failed is taken backwards, (r - r(x - h e_j)) / h. */
static int jacobian_columns(fit_context *c, const double *x, const double *r,
                            double *J) {
  const int m = c->prob.m;
  double sign[ROD_CALIB_MAX_KEYS];
  bool retry = false;
  for (int j = 0; j < c->n; j++) {
    sign[j] = 1.0;
    if (run_residuals(c, &c->runs[1 + j], J + (size_t)j * m) != 0) {
      sign[j] = -1.0;
      queue_run(c, 1 + j, x, j, -c->h);
      retry = true;
    }
  }
  if (retry) {
    if (!run_queued(c))
      return ROD_EINTR;
    for (int j = 0; j < c->n; j++)
      if (sign[j] < 0 &&
          run_residuals(c, &c->runs[1 + j], J + (size_t)j * m) != 0)
        return fail(c, x, j, -c->h, &c->runs[1 + j]);
  }
  for (int j = 0; j < c->n; j++) {
    double *col = J + (size_t)j * m, inv = sign[j] / c->h;
    for (int i = 0; i < m; i++)
      col[i] = (col[i] - r[i]) * inv;
  }
  memcpy(c->x_jacobian, x, (size_t)c->n * sizeof *x);
  c->have_jacobian = true;
  return 0;
}

/* The LM callback (rod_lm_fn). The base point is simulated unless it is
 * the last one simulated: the LM asks for the Jacobian at the point of the
 * trial step it just accepted, so that saves one run per iteration. And
 * while a trial point runs, the cores it leaves idle run the first
 * Jacobian columns there in advance: if the LM accepts the point they are
 * ready (on two cores an accepted step then costs two rounds of runs
 * instead of three for three keys); if it rejects it, they cost no time. */
static int evaluate(const double *x, double *r, double *J, void *user) {
  fit_context *c = user;
  const int m = c->prob.m;
  if (c->interrupted)
    return ROD_EINTR;
  bool cached = c->have_base && same_point(x, c->x_base, c->n);
  if (!cached) {
    queue_run(c, 0, x, -1, 0.0);
    for (int j = 0; j < c->n; j++) {
      c->column_ready[j] = !J && j < c->threads - 1;
      if (c->column_ready[j])
        queue_run(c, 1 + j, x, j, c->h);
    }
  }
  for (int j = 0; J && j < c->n; j++)
    if (!(cached && c->column_ready[j]))
      queue_run(c, 1 + j, x, j, c->h);
  if (!run_queued(c)) {
    /* a base point that ran whole still counts */
    if (!cached && c->runs[0].status == ROD_OK &&
        run_residuals(c, &c->runs[0], r) == 0)
      note_point(c, x, r);
    return ROD_EINTR;
  }
  if (!cached) {
    if (run_residuals(c, &c->runs[0], r) != 0) {
      /* a trial point is rejected; the start or a Jacobian's base point
       * cannot be stepped around */
      if (c->evaluations == 0 || J)
        return fail(c, x, -1, 0.0, &c->runs[0]);
      return 1;
    }
    memcpy(c->r_base, r, (size_t)m * sizeof *r);
    memcpy(c->x_base, x, (size_t)c->n * sizeof *x);
    c->have_base = true;
    c->evaluations++;
    note_point(c, x, r);
    if (c->o->progress) {
      double values[ROD_CALIB_MAX_KEYS], ss = 0;
      values_at(c, x, -1, 0.0, values);
      for (int i = 0; i < m; i++)
        ss += r[i] * r[i];
      c->o->progress(values, sqrt(ss / m) * c->prob.rms_scale, c->simulations,
                     c->o->progress_user);
    }
  } else {
    memcpy(r, c->r_base, (size_t)m * sizeof *r);
  }
  return J ? jacobian_columns(c, x, r, J) : 0;
}

/* Forward-difference step in log-parameters. Each time step solves the
 * rod to a scaled residual below solver.tolerance, so a simulated
 * trajectory is accurate to about that fraction; a forward difference
 * then errs by ~h |r''| (truncation) plus ~tol / h (the solver's error
 * over the step), smallest at h ~ sqrt(tol): 1e-4 for the default 1e-8.
 * Measured on the weight release (1.5 s): at h = 1e-4 the columns of EI
 * and density are within 1e-3 of the h -> 0 limit and drag's within
 * 5e-5, while solver noise shows only below h = 1e-6, so the step is on
 * the safe side of the noise. */
static double fd_step(const rod_calib_options *o, const rod_scenario *sc) {
  if (o->fd_step > 0)
    return o->fd_step;
  double h = sqrt(sc->solver.tolerance);
  return h < 1e-6 ? 1e-6 : h > 1e-2 ? 1e-2 : h;
}

static int thread_count(const rod_calib_options *o, int runs) {
  long t = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1)
    t = 1;
  return t > runs ? runs : (int)t;
}

static void release(fit_context *c) {
  for (int k = 0; k <= c->n; k++)
    rod_recorder_free(c->runs[k].rec);
  free(c->r_base);
  free(c->prob.slopes);
  if (c->prob.objective && c->prob.objective->release)
    c->prob.objective->release(&c->prob);
}

/* Everything before the first simulation: the objective, sizes, starts,
 * buffers. */
static int setup(fit_context *c, const rod_tip_data *data,
                 const rod_shape_data *shape, const char *name,
                 rod_error *err) {
  const rod_calib_options *o = c->o;
  if (o->nkeys < 1 || o->nkeys > ROD_CALIB_MAX_KEYS)
    return rod_error_set(err, ROD_EINVAL, c->user_sc->source, NULL,
                         "no keys to fit");
  c->n = o->nkeys;
  for (int j = 0; j < c->n; j++) {
    int st = calib_start_value(c->user_sc, o->keys[j], &c->start[j], err);
    if (st != ROD_OK)
      return st;
  }
  c->prob.sc = *c->user_sc;
  c->prob.sc.output.every = 1; /* interpolate between every step */
  if (c->prob.sc.time.has_tolerance && !c->prob.sc.output.has_interval) {
    /* steps of unknown number: samples at time.dt, interpolated */
    c->prob.sc.output.has_interval = true;
    c->prob.sc.output.interval = c->prob.sc.time.dt;
  }
  c->prob.data = data;
  c->prob.shape = shape;
  c->prob.objective = o->objective == ROD_CALIB_FEATURES ? &calib_features
                      : o->objective == ROD_CALIB_SHAPE  ? &calib_shape
                                                         : &calib_trajectory;
  if (o->objective == ROD_CALIB_SHAPE && !shape)
    return rod_error_set(err, ROD_EINVAL, name, NULL,
                         "the shape objective needs a shape file (rodsim "
                         "track --shape), not a tip trajectory");
  if (data->n < 1)
    return rod_error_set(err, ROD_EINVAL, name, NULL, "no valid samples");
  int st = c->prob.objective->init(&c->prob, name, err);
  if (st != ROD_OK)
    return st;
  if (c->prob.m <= c->n)
    return rod_error_set(err, ROD_EINVAL, name, NULL,
                         "%d residuals are too few to fit %d parameters "
                         "and estimate their errors (need more than %d)",
                         c->prob.m, c->n, c->n);
  c->h = fd_step(o, c->user_sc);
  c->threads = thread_count(o, 1 + c->n);
  c->r_base = malloc((size_t)c->prob.m * sizeof *c->r_base);
  c->prob.slopes = malloc(3 * (size_t)calib_samples(&c->prob) * sizeof(double));
  if (!c->r_base || !c->prob.slopes)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  const bool keep_rod = c->prob.objective->keep_rod;
  for (int k = 0; k <= c->n; k++)
    if (!(c->runs[k].rec = rod_recorder_alloc(&c->prob.sc, keep_rod)))
      return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  return ROD_OK;
}

/* Standard errors at the solution x: (J^T J)^-1 SSR / (m - n) for the
 * log-parameters, times the value for the parameters (d p = p d ln p).
 * A stale Jacobian (the LM stopped right after a step) is recomputed. */
static void standard_errors(fit_context *c, rod_lm_workspace *w,
                            const double *x, rod_calib_result *res) {
  const int m = c->prob.m, n = c->n;
  double *J = rod_lm_jacobian(w), cov[ROD_CALIB_MAX_KEYS * ROD_CALIB_MAX_KEYS];
  for (int j = 0; j < n; j++)
    res->std_error[j] = INFINITY;
  if (!c->have_jacobian || !same_point(c->x_jacobian, x, n)) {
    double *r = malloc((size_t)m * sizeof *r);
    int st = r ? evaluate(x, r, J, c) : ROD_ENOMEM;
    free(r);
    c->fatal = false; /* the fit itself stands; the errors stay unknown */
    if (st != 0)
      return;
  }
  if (rod_lm_covariance(w, cov) != ROD_OK)
    return;
  const double *r = rod_lm_residual(w);
  double ssr = 0;
  for (int i = 0; i < m; i++)
    ssr += r[i] * r[i];
  const double variance = ssr / (m - n);
  for (int j = 0; j < n; j++)
    res->std_error[j] = res->value[j] * sqrt(cov[j * n + j] * variance);
}

/* The result of a fit its stop ended: the best point simulated (or the
 * start), not converged, its errors unknown. */
static void interrupted_result(fit_context *c, const rod_lm_stats *st,
                               rod_calib_result *res) {
  double ones[ROD_CALIB_MAX_KEYS];
  for (int j = 0; j < c->n; j++)
    ones[j] = 1.0;
  values_at(c, c->have_best ? c->x_best : ones, -1, 0.0, res->value);
  res->rms_residual =
      c->have_best ? sqrt(c->ss_best / c->prob.m) * c->prob.rms_scale : NAN;
  for (int j = 0; j < c->n; j++)
    res->std_error[j] = INFINITY;
  res->converged = false;
  res->stop = ROD_CALIB_STOP_INTERRUPTED;
  res->iterations += st ? st->iterations : 0;
}

static int solve(fit_context *c, rod_calib_result *res, rod_error *err) {
  const int n = c->n, m = c->prob.m;
  rod_lm_workspace *w = rod_lm_alloc(n, m);
  if (!w)
    return rod_error_set(err, ROD_ENOMEM, c->user_sc->source, NULL,
                         "out of memory");
  rod_lm_options lm = rod_lm_default_options();
  lm.least_squares = true;
  lm.tolerance = 0; /* noisy data never fit exactly: stop on the step */
  lm.step_tolerance = c->o->step_tolerance;
  lm.max_iterations = c->o->max_iterations;
  double x[ROD_CALIB_MAX_KEYS];
  for (int j = 0; j < n; j++)
    x[j] = 1.0;
  rod_lm_stats st;
  int status = rod_lm_solve(w, evaluate, x, &lm, &st, c);
  if (c->interrupted) {
    interrupted_result(c, &st, res);
    rod_lm_free(w);
    return ROD_OK;
  }
  if (c->fatal) {
    *err = c->failure;
    rod_lm_free(w);
    return ROD_ENOCONV;
  }
  if (status != ROD_OK && st.stop != ROD_LM_MAX_ITERATIONS) {
    rod_lm_free(w);
    return rod_error_set(err, ROD_ENOCONV, c->user_sc->source, NULL,
                         "the fit failed (%s)", rod_strerror(status));
  }
  res->converged = status == ROD_OK;
  res->stop = (rod_calib_stop)st.stop;
  res->iterations += st.iterations;
  values_at(c, x, -1, 0.0, res->value);
  const double *r = rod_lm_residual(w);
  double ssr = 0;
  for (int i = 0; i < m; i++)
    ssr += r[i] * r[i];
  res->rms_residual = sqrt(ssr / m) * c->prob.rms_scale;
  standard_errors(c, w, x, res);
  rod_lm_free(w);
  return ROD_OK;
}

/* The features fit on the same keys: its optimum lies near the
 * trajectory's, and it has none of the trajectory's local minima where a
 * start off in frequency leaves the simulation whole periods out of phase
 * at the data's end. False if the data do not allow it or it fails. */
static int fit(const rod_scenario *sc, const rod_tip_data *data,
               const rod_shape_data *shape, const char *data_name,
               const rod_calib_options *o, rod_scenario *fitted,
               rod_calib_result *res, rod_error *err);

static bool features_prefit(const rod_scenario *sc, const rod_tip_data *data,
                            const char *name, const rod_calib_options *o,
                            double *values, rod_calib_result *res,
                            bool *stopped) {
  rod_calib_options fo = *o;
  fo.objective = ROD_CALIB_FEATURES;
  fo.prefit = false;
  rod_calib_result fr;
  rod_scenario unused;
  rod_error ignored;
  int st = fit(sc, data, NULL, name, &fo, &unused, &fr, &ignored);
  res->prefit_simulations = fr.simulations;
  res->iterations = fr.iterations;
  memcpy(values, fr.value, sizeof fr.value);
  *stopped = st == ROD_OK && fr.stop == ROD_CALIB_STOP_INTERRUPTED;
  return st == ROD_OK && fr.converged;
}

/* Simulate the scenario's start and the pre-fit side by side and start
 * the LM from the one with the smaller sum of squares; its residuals
 * become the cached base point. */
static int choose_start(fit_context *c, const double *prefit,
                        rod_calib_result *res) {
  const int m = c->prob.m;
  double x[ROD_CALIB_MAX_KEYS], ones[ROD_CALIB_MAX_KEYS], ssr[2] = {0, 0};
  for (int j = 0; j < c->n; j++) {
    ones[j] = 1.0;
    x[j] = 1.0 + log(prefit[j] / c->start[j]);
  }
  double *r[2] = {c->r_base, malloc((size_t)m * sizeof(double))};
  if (!r[1])
    return ROD_ENOMEM;
  queue_run(c, 0, ones, -1, 0.0);
  queue_run(c, 1, x, -1, 0.0);
  run_queued(c);
  for (int k = 0; k < 2; k++) {
    if (run_residuals(c, &c->runs[k], r[k]) != 0)
      ssr[k] = INFINITY;
    for (int i = 0; i < m && isfinite(ssr[k]); i++)
      ssr[k] += r[k][i] * r[k][i];
  }
  res->from_prefit = ssr[1] < ssr[0];
  if (res->from_prefit) {
    memcpy(c->start, prefit, (size_t)c->n * sizeof *prefit);
    memcpy(c->r_base, r[1], (size_t)m * sizeof(double));
  }
  if (isfinite(fmin(ssr[0], ssr[1]))) /* the start taken: x = 1 */
    note_point(c, ones, c->r_base);
  free(r[1]);
  /* a failed start is left to the LM's first call, which reports it */
  c->have_base = isfinite(fmin(ssr[0], ssr[1]));
  memcpy(c->x_base, ones, (size_t)c->n * sizeof *ones);
  c->evaluations += c->have_base;
  return ROD_OK;
}

/* The fit on the valid samples `data` (and the shape, for its objective). */
static int fit(const rod_scenario *sc, const rod_tip_data *data,
               const rod_shape_data *shape, const char *data_name,
               const rod_calib_options *o, rod_scenario *fitted,
               rod_calib_result *res, rod_error *err) {
  const double t0 = now();
  memset(res, 0, sizeof *res);
  double prefit[ROD_CALIB_MAX_KEYS];
  bool prefit_stopped = false;
  bool have_prefit =
      o->objective != ROD_CALIB_FEATURES && o->prefit &&
      features_prefit(sc, data, data_name, o, prefit, res, &prefit_stopped);
  fit_context *c = calloc(1, sizeof *c);
  if (!c)
    return rod_error_set(err, ROD_ENOMEM, data_name, NULL, "out of memory");
  c->o = o;
  c->user_sc = sc;
  int st = setup(c, data, shape, data_name, err);
  if (st == ROD_OK) {
    res->nkeys = c->n;
    res->residuals = c->prob.m;
    res->threads = c->threads;
    memcpy(res->initial, c->start, sizeof res->initial);
    if (have_prefit && choose_start(c, prefit, res) != ROD_OK)
      st = rod_error_set(err, ROD_ENOMEM, data_name, NULL, "out of memory");
  }
  if (st == ROD_OK && prefit_stopped) {
    /* stopped in the pre-fit: its best point, its residual on this
     * objective unknown */
    for (int j = 0; j < c->n; j++)
      c->x_best[j] = 1.0 + log(prefit[j] / c->start[j]);
    c->have_best = true;
    c->ss_best = NAN;
    interrupted_result(c, NULL, res);
  } else if (st == ROD_OK)
    st = solve(c, res, err);
  if (st == ROD_OK) {
    *fitted = *sc;
    st = calib_apply(fitted, c->n, o->keys, res->value, err);
  }
  res->simulations = c->simulations + res->prefit_simulations;
  release(c);
  free(c);
  res->wall_time = now() - t0;
  return st;
}

/* The data's valid samples into *out, the flagged ones counted. */
static int valid_samples(const rod_tip_data *d, const char *name,
                         rod_tip_data **out, int *skipped, rod_error *err) {
  *out = rod_tip_data_valid(d, skipped);
  if (!*out)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  if ((*out)->n == 0 && d->n > 0) {
    rod_tip_data_free(*out);
    *out = NULL;
    return rod_error_set(err, ROD_EINVAL, name, NULL,
                         "every one of the %d samples is flagged (valid = 0)",
                         d->n);
  }
  return ROD_OK;
}

int rod_calib_fit(const rod_scenario *sc, const rod_tip_data *data,
                  const char *data_name, const rod_calib_options *o,
                  rod_scenario *fitted, rod_calib_result *res, rod_error *err) {
  memset(res, 0, sizeof *res);
  int skipped = 0;
  rod_tip_data *valid;
  int st = valid_samples(data, data_name, &valid, &skipped, err);
  if (st != ROD_OK)
    return st;
  st = fit(sc, valid, NULL, data_name, o, fitted, res, err);
  res->skipped = skipped;
  rod_tip_data_free(valid);
  return st;
}

int rod_calib_fit_shape(const rod_scenario *sc, const rod_shape_data *data,
                        const char *data_name, const rod_calib_options *o,
                        rod_scenario *fitted, rod_calib_result *res,
                        rod_error *err) {
  memset(res, 0, sizeof *res);
  rod_tip_data *tip = rod_shape_tip(data), *valid = NULL;
  int skipped = 0;
  int st =
      tip ? valid_samples(tip, data_name, &valid, &skipped, err)
          : rod_error_set(err, ROD_ENOMEM, data_name, NULL, "out of memory");
  rod_tip_data_free(tip);
  if (st != ROD_OK)
    return st;
  st = fit(sc, valid, o->objective == ROD_CALIB_SHAPE ? data : NULL, data_name,
           o, fitted, res, err);
  res->skipped = skipped;
  rod_tip_data_free(valid);
  return st;
}
