/* The calibration driver: Levenberg-Marquardt over log-parameters on the
 * stacked, weighted residuals of one or more data sets, with a
 * forward-difference Jacobian whose simulations (one per parameter and
 * data set) run in parallel, then the covariance and standard errors (see
 * rod/calibrate.h). */
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
  calib_problem prob[ROD_CALIB_MAX_SETS]; /* one per data set */
  int sets;
  int offset[ROD_CALIB_MAX_SETS + 1]; /* set e's residuals: offset[e] .. */
  double weight[ROD_CALIB_MAX_SETS];  /* its residuals' factor: 1 / noise */
  int m;                              /* residuals of every set */
  const rod_calib_options *o;
  const rod_scenario *user_sc;      /* the first set's: starts and messages */
  int n;                            /* fitted keys */
  double start[ROD_CALIB_MAX_KEYS]; /* p0 */
  double h;                         /* forward-difference step in x */
  int threads;
  /* run k * sets + e: set e's base point (k = 0), then its point with key
   * k - 1 moved */
  calib_run runs[(1 + ROD_CALIB_MAX_KEYS) * ROD_CALIB_MAX_SETS];
  double *r_base; /* (m) residuals at x_base */
  double x_base[ROD_CALIB_MAX_KEYS];
  bool have_base;
  bool column_ready[ROD_CALIB_MAX_KEYS]; /* runs 1 + j hold x_base + h e_j */
  double x_jacobian[ROD_CALIB_MAX_KEYS]; /* where J was last computed */
  bool have_jacobian;
  int simulations, evaluations;
  bool fatal;
  rod_error failure;
  /* the best base point simulated (the least sum of squares), which an
   * interrupted fit returns */
  double x_best[ROD_CALIB_MAX_KEYS], ss_best, rms_best; /* rms: m */
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

/* Queue the runs k of every set at x, parameter j moved by step (j < 0:
 * none). A value the scenario rejects (e.g. an overflow to inf) fails the
 * run unrun. */
static void queue_run(fit_context *c, int k, const double *x, int j,
                      double step) {
  double values[ROD_CALIB_MAX_KEYS];
  values_at(c, x, j, step, values);
  for (int e = 0; e < c->sets; e++) {
    calib_run *run = &c->runs[k * c->sets + e];
    run->sc = c->prob[e].sc;
    rod_error err = {{0}, {0}, {0}, 0};
    run->status = calib_apply(&run->sc, c->n, c->o->keys, values, &err);
    run->pending = run->status == ROD_OK;
    if (!run->pending)
      rod_error_format(&err, run->message, sizeof run->message);
  }
}

/* Run the queued runs; false when the options' stop ended them. */
static bool run_queued(fit_context *c) {
  c->simulations += calib_run_all(c->runs, (1 + c->n) * c->sets, c->threads,
                                  c->o->stop, c->o->stop_user);
  if (c->o->stop && c->o->stop(c->o->stop_user))
    c->interrupted = true;
  return !c->interrupted;
}

static double sum_squares(const double *r, int m) {
  double ss = 0;
  for (int i = 0; i < m; i++)
    ss += r[i] * r[i];
  return ss;
}

/* The rms of the residuals r in metres: each set's unweighted and
 * scaled by its objective's metres per unit. */
static double rms_metres(const fit_context *c, const double *r) {
  if (c->sets == 1)
    return sqrt(sum_squares(r, c->m) / c->m) * c->prob[0].rms_scale;
  double ss = 0;
  for (int e = 0; e < c->sets; e++) {
    const double f = c->prob[e].rms_scale / c->weight[e];
    ss += sum_squares(r + c->offset[e], c->prob[e].m) * f * f;
  }
  return sqrt(ss / c->m);
}

/* A base point's residuals r at x: the best so far kept. */
static void note_point(fit_context *c, const double *x, const double *r) {
  const double ss = sum_squares(r, c->m);
  if (isfinite(ss) && (!c->have_best || ss < c->ss_best)) {
    memcpy(c->x_best, x, (size_t)c->n * sizeof *x);
    c->ss_best = ss;
    c->rms_best = rms_metres(c, r);
    c->have_best = true;
  }
}

/* The weighted residuals r of the finished runs k of every set: 0, or > 0
 * if one failed or cannot be compared with its data (*bad: that run). */
static int run_residuals(fit_context *c, int k, double *r, calib_run **bad) {
  for (int e = 0; e < c->sets; e++) {
    calib_run *run = &c->runs[k * c->sets + e];
    calib_problem *p = &c->prob[e];
    *bad = run;
    if (run->status != ROD_OK)
      return 1;
    double *re = r + c->offset[e];
    if (p->objective->residuals(p, run->rec, re) != 0) {
      snprintf(run->message, sizeof run->message,
               "the run cannot be compared with the data (it ends before "
               "the data do, or a feature is missing)");
      return 1;
    }
    if (c->weight[e] != 1.0)
      for (int i = 0; i < p->m; i++)
        re[i] *= c->weight[e];
  }
  return 0;
}

/* A failure the LM cannot step around: keep the message, stop the fit. */
static int fail(fit_context *c, const double *x, int j, double step,
                const calib_run *run) {
  double values[ROD_CALIB_MAX_KEYS];
  char where[400];
  values_at(c, x, j, step, values);
  calib_describe(c->n, c->o->keys, values, where, sizeof where);
  c->fatal = true;
  const int e = (int)(run - c->runs) % c->sets;
  if (c->sets > 1)
    rod_error_set(&c->failure, ROD_ENOCONV, c->prob[e].name, NULL,
                  "simulation of %s failed at %s: %s", c->prob[e].sc.source,
                  where, run->message);
  else
    rod_error_set(&c->failure, ROD_ENOCONV, c->user_sc->source, NULL,
                  "simulation failed at %s: %s", where, run->message);
  return ROD_ENOCONV;
}

/* Jacobian columns (r(x + h e_j) - r) / h from the finished runs 1 + j;
 * a column whose run failed is taken backwards, (r - r(x - h e_j)) / h. */
static int jacobian_columns(fit_context *c, const double *x, const double *r,
                            double *J) {
  const int m = c->m;
  double sign[ROD_CALIB_MAX_KEYS];
  bool retry = false;
  calib_run *bad;
  for (int j = 0; j < c->n; j++) {
    sign[j] = 1.0;
    if (run_residuals(c, 1 + j, J + (size_t)j * m, &bad) != 0) {
      sign[j] = -1.0;
      queue_run(c, 1 + j, x, j, -c->h);
      retry = true;
    }
  }
  if (retry) {
    if (!run_queued(c))
      return ROD_EINTR;
    for (int j = 0; j < c->n; j++)
      if (sign[j] < 0 && run_residuals(c, 1 + j, J + (size_t)j * m, &bad) != 0)
        return fail(c, x, j, -c->h, bad);
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
  const int m = c->m;
  if (c->interrupted)
    return ROD_EINTR;
  calib_run *bad;
  bool cached = c->have_base && same_point(x, c->x_base, c->n);
  if (!cached) {
    queue_run(c, 0, x, -1, 0.0);
    /* the workers the base points leave idle run columns in advance */
    const int ahead = (c->threads - c->sets) / c->sets;
    for (int j = 0; j < c->n; j++) {
      c->column_ready[j] = !J && j < ahead;
      if (c->column_ready[j])
        queue_run(c, 1 + j, x, j, c->h);
    }
  }
  for (int j = 0; J && j < c->n; j++)
    if (!(cached && c->column_ready[j]))
      queue_run(c, 1 + j, x, j, c->h);
  if (!run_queued(c)) {
    /* a base point that ran whole still counts */
    if (!cached && run_residuals(c, 0, r, &bad) == 0)
      note_point(c, x, r);
    return ROD_EINTR;
  }
  if (!cached) {
    if (run_residuals(c, 0, r, &bad) != 0) {
      /* a trial point is rejected; the start or a Jacobian's base point
       * cannot be stepped around */
      if (c->evaluations == 0 || J)
        return fail(c, x, -1, 0.0, bad);
      return 1;
    }
    memcpy(c->r_base, r, (size_t)m * sizeof *r);
    memcpy(c->x_base, x, (size_t)c->n * sizeof *x);
    c->have_base = true;
    c->evaluations++;
    note_point(c, x, r);
    if (c->o->progress) {
      double values[ROD_CALIB_MAX_KEYS];
      values_at(c, x, -1, 0.0, values);
      c->o->progress(values, rms_metres(c, r), c->simulations,
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
  return calib_workers(t > runs ? runs : (int)t);
}

static void release(fit_context *c) {
  for (int k = 0; k < (1 + c->n) * c->sets; k++)
    rod_recorder_free(c->runs[k].rec);
  free(c->r_base);
  for (int e = 0; e < c->sets; e++) {
    calib_problem *p = &c->prob[e];
    free(p->slopes);
    if (p->objective && p->objective->release)
      p->objective->release(p);
  }
}

/* Set e's problem: the experiment's scenario sampled every step, its
 * data, the objective's residuals, and the weight of its residuals. */
static int setup_set(fit_context *c, int e, const rod_calib_experiment *ex,
                     const rod_shape_data *shape, rod_error *err) {
  const rod_calib_options *o = c->o;
  calib_problem *p = &c->prob[e];
  p->name = ex->name;
  p->sc = *ex->sc;
  p->sc.output.every = 1;            /* interpolate between every step */
  p->sc.time.error_estimate = false; /* a fit's runs need none */
  if (p->sc.time.has_tolerance && !p->sc.output.has_interval) {
    /* steps of unknown number: samples at time.dt, interpolated */
    p->sc.output.has_interval = true;
    p->sc.output.interval = p->sc.time.dt;
  }
  p->data = ex->data;
  p->shape = shape;
  p->objective = o->objective == ROD_CALIB_FEATURES ? &calib_features
                 : o->objective == ROD_CALIB_SHAPE  ? &calib_shape
                                                    : &calib_trajectory;
  if (o->objective == ROD_CALIB_SHAPE && !shape)
    return rod_error_set(err, ROD_EINVAL, ex->name, NULL,
                         "the shape objective needs a shape file (rodsim "
                         "track --shape), not a tip trajectory");
  if (ex->data->n < 1)
    return rod_error_set(err, ROD_EINVAL, ex->name, NULL, "no valid samples");
  int st = p->objective->init(p, ex->name, err);
  if (st != ROD_OK)
    return st;
  /* one set: the weight cancels from the values and errors, so it is 1
   * and the residuals stay in metres */
  c->weight[e] = 1.0;
  if (c->sets > 1 && o->objective != ROD_CALIB_FEATURES) {
    const double noise = rod_calib_noise(ex->data);
    if (!(noise > 0))
      return rod_error_set(err, ROD_EINVAL, ex->name, NULL,
                           "no noise to weight the data by: its noise "
                           "estimate is 0 (exact or constant data)");
    c->weight[e] = 1.0 / noise;
  }
  c->offset[e + 1] = c->offset[e] + p->m;
  p->slopes = malloc(3 * (size_t)calib_samples(p) * sizeof(double));
  if (!p->slopes)
    return rod_error_set(err, ROD_ENOMEM, ex->name, NULL, "out of memory");
  for (int k = 0; k <= c->n; k++)
    if (!(c->runs[k * c->sets + e].rec =
              rod_recorder_alloc(&p->sc, p->objective->keep_rod)))
      return rod_error_set(err, ROD_ENOMEM, ex->name, NULL, "out of memory");
  return ROD_OK;
}

/* Everything before the first simulation: the objectives, sizes, starts,
 * buffers. */
static int setup(fit_context *c, const rod_calib_experiment *ex, int sets,
                 const rod_shape_data *shape, rod_error *err) {
  const rod_calib_options *o = c->o;
  if (o->nkeys < 1 || o->nkeys > ROD_CALIB_MAX_KEYS)
    return rod_error_set(err, ROD_EINVAL, c->user_sc->source, NULL,
                         "no keys to fit");
  c->n = o->nkeys;
  c->sets = sets;
  for (int j = 0; j < c->n; j++) {
    int st = calib_start_value(c->user_sc, o->keys[j], &c->start[j], err);
    if (st != ROD_OK)
      return st;
  }
  for (int e = 0; e < sets; e++) {
    int st = setup_set(c, e, &ex[e], shape, err);
    if (st != ROD_OK)
      return st;
  }
  c->m = c->offset[sets];
  if (c->m <= c->n)
    return rod_error_set(err, ROD_EINVAL, ex[0].name, NULL,
                         "%d residuals are too few to fit %d parameters "
                         "and estimate their errors (need more than %d)",
                         c->m, c->n, c->n);
  c->h = fd_step(o, c->user_sc);
  c->threads = thread_count(o, (1 + c->n) * sets);
  c->r_base = malloc((size_t)c->m * sizeof *c->r_base);
  if (!c->r_base)
    return rod_error_set(err, ROD_ENOMEM, ex[0].name, NULL, "out of memory");
  return ROD_OK;
}

/* Each set's rms residual (m) from the weighted residuals r. */
static void set_results(const fit_context *c, const double *r,
                        rod_calib_result *res) {
  res->sets = c->sets;
  for (int e = 0; e < c->sets; e++) {
    const calib_problem *p = &c->prob[e];
    rod_calib_set *s = &res->set[e];
    s->residuals = p->m;
    s->weight = c->weight[e];
    s->noise = c->sets > 1 && c->weight[e] != 1.0 ? 1.0 / c->weight[e]
                                                  : rod_calib_noise(p->data);
    s->rms_residual = r ? sqrt(sum_squares(r + c->offset[e], p->m) / p->m) *
                              p->rms_scale / c->weight[e]
                        : NAN;
  }
}

/* Covariance and standard errors at the solution x: (J^T J)^-1 SSR / (m -
 * n) for the log-parameters (the weighted residuals: the Gauss-Newton
 * covariance scaled by the residual variance), times the value for the
 * parameters (d p = p d ln p). A stale Jacobian (the LM stopped right
 * after a step) is recomputed. */
static void standard_errors(fit_context *c, rod_lm_workspace *w,
                            const double *x, rod_calib_result *res) {
  const int m = c->m, n = c->n;
  double *J = rod_lm_jacobian(w), cov[ROD_CALIB_MAX_KEYS * ROD_CALIB_MAX_KEYS];
  for (int j = 0; j < n; j++)
    res->std_error[j] = INFINITY;
  for (int k = 0; k < n * n; k++)
    res->covariance[k] = NAN;
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
  const double variance = sum_squares(rod_lm_residual(w), m) / (m - n);
  for (int k = 0; k < n * n; k++)
    res->covariance[k] = cov[k] * variance;
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
  res->rms_residual = c->have_best ? c->rms_best : NAN;
  set_results(c, NULL, res);
  for (int j = 0; j < c->n; j++)
    res->std_error[j] = INFINITY;
  for (int k = 0; k < c->n * c->n; k++)
    res->covariance[k] = NAN;
  res->converged = false;
  res->stop = ROD_CALIB_STOP_INTERRUPTED;
  res->iterations += st ? st->iterations : 0;
}

static int solve(fit_context *c, rod_calib_result *res, rod_error *err) {
  const int n = c->n, m = c->m;
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
  res->rms_residual = rms_metres(c, rod_lm_residual(w));
  set_results(c, rod_lm_residual(w), res);
  standard_errors(c, w, x, res);
  rod_lm_free(w);
  return ROD_OK;
}

/* The features fit on the same keys: its optimum lies near the
 * trajectory's, and it has none of the trajectory's local minima where a
 * start off in frequency leaves the simulation whole periods out of phase
 * at the data's end. False if the data do not allow it or it fails. */
static int fit(const rod_calib_experiment *ex, int sets,
               const rod_shape_data *shape, const rod_calib_options *o,
               rod_scenario *fitted, rod_calib_result *res, rod_error *err);

static bool features_prefit(const rod_calib_experiment *ex, int sets,
                            const rod_calib_options *o, double *values,
                            rod_calib_result *res, bool *stopped) {
  rod_calib_options fo = *o;
  fo.objective = ROD_CALIB_FEATURES;
  fo.prefit = false;
  rod_calib_result fr;
  rod_scenario *unused = malloc((size_t)sets * sizeof *unused);
  rod_error ignored;
  if (!unused)
    return false;
  int st = fit(ex, sets, NULL, &fo, unused, &fr, &ignored);
  free(unused);
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
  const int m = c->m;
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
    calib_run *bad;
    ssr[k] =
        run_residuals(c, k, r[k], &bad) != 0 ? INFINITY : sum_squares(r[k], m);
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

/* The fit on the valid samples of each set (and the shape, for its
 * objective): fitted[e] is set e's scenario with the fitted values. */
static int fit(const rod_calib_experiment *ex, int sets,
               const rod_shape_data *shape, const rod_calib_options *o,
               rod_scenario *fitted, rod_calib_result *res, rod_error *err) {
  const double t0 = now();
  memset(res, 0, sizeof *res);
  double prefit[ROD_CALIB_MAX_KEYS];
  bool prefit_stopped = false;
  bool have_prefit = o->objective != ROD_CALIB_FEATURES && o->prefit &&
                     features_prefit(ex, sets, o, prefit, res, &prefit_stopped);
  fit_context *c = calloc(1, sizeof *c);
  if (!c)
    return rod_error_set(err, ROD_ENOMEM, ex[0].name, NULL, "out of memory");
  c->o = o;
  c->user_sc = ex[0].sc;
  int st = setup(c, ex, sets, shape, err);
  if (st == ROD_OK) {
    res->nkeys = c->n;
    res->residuals = c->m;
    res->threads = c->threads;
    memcpy(res->initial, c->start, sizeof res->initial);
    if (have_prefit && choose_start(c, prefit, res) != ROD_OK)
      st = rod_error_set(err, ROD_ENOMEM, ex[0].name, NULL, "out of memory");
  }
  if (st == ROD_OK && prefit_stopped) {
    /* stopped in the pre-fit: its best point, its residual on this
     * objective unknown */
    for (int j = 0; j < c->n; j++)
      c->x_best[j] = 1.0 + log(prefit[j] / c->start[j]);
    c->have_best = true;
    c->ss_best = c->rms_best = NAN;
    interrupted_result(c, NULL, res);
  } else if (st == ROD_OK)
    st = solve(c, res, err);
  for (int e = 0; e < sets && st == ROD_OK; e++) {
    fitted[e] = *ex[e].sc;
    st = calib_apply(&fitted[e], c->n, o->keys, res->value, err);
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

int rod_calib_fit_joint(const rod_calib_experiment *ex, int count,
                        const rod_calib_options *o, rod_scenario *fitted,
                        rod_calib_result *res, rod_error *err) {
  memset(res, 0, sizeof *res);
  if (count < 1 || count > ROD_CALIB_MAX_SETS)
    return rod_error_set(err, ROD_EINVAL, count > 0 ? ex[0].name : "calibrate",
                         NULL, "%d data sets: a fit takes 1 to %d", count,
                         ROD_CALIB_MAX_SETS);
  if (o->objective == ROD_CALIB_SHAPE && count > 1)
    return rod_error_set(err, ROD_EINVAL, ex[0].name, NULL,
                         "the shape objective takes one shape file "
                         "(rod_calib_fit_shape)");
  rod_calib_experiment valid[ROD_CALIB_MAX_SETS];
  int skipped[ROD_CALIB_MAX_SETS] = {0}, st = ROD_OK, made = 0;
  for (; made < count && st == ROD_OK; made++) {
    rod_tip_data *v = NULL;
    valid[made] = ex[made];
    st = valid_samples(ex[made].data, ex[made].name, &v, &skipped[made], err);
    valid[made].data = v;
  }
  if (st == ROD_OK)
    st = fit(valid, count, NULL, o, fitted, res, err);
  for (int e = 0; e < made; e++) {
    res->skipped += skipped[e];
    if (e < res->sets)
      res->set[e].skipped = skipped[e];
    rod_tip_data_free((rod_tip_data *)valid[e].data);
  }
  return st;
}

int rod_calib_fit(const rod_scenario *sc, const rod_tip_data *data,
                  const char *data_name, const rod_calib_options *o,
                  rod_scenario *fitted, rod_calib_result *res, rod_error *err) {
  const rod_calib_experiment ex = {sc, data, data_name};
  return rod_calib_fit_joint(&ex, 1, o, fitted, res, err);
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
  const rod_calib_experiment ex = {sc, valid, data_name};
  st = fit(&ex, 1, o->objective == ROD_CALIB_SHAPE ? data : NULL, o, fitted,
           res, err);
  res->skipped = skipped;
  res->set[0].skipped = skipped;
  rod_tip_data_free(valid);
  return st;
}
