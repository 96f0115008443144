/* The simulation object of include/rod/sim.h and the time loop shared by
 * every command: the static state, then fixed steps or steps chosen by the
 * error estimate (time.tolerance), samples at t = 0, every output.every
 * steps or at the multiples of output.interval, and the last step (time
 * samples, docs/hdf5.md). */
#include "rod/sim.h"

#include "core/drive.h"
#include "core/loads.h"
#include "core/model.h"
#include "core/v3.h"
#include "integrators/dirk.h"
#include "io/scenario_contact.h"
#include "sim/sim_internal.h"
#include "sim/sim_object.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int rod_sim_fail(rod_sim *sim, int status, const char *key, const char *fmt,
                 ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof sim->err.message];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  rod_error_set(&sim->err, status, sim->sc.source, key, "%s", msg);
  return status;
}

const char *rod_sim_error(const rod_sim *sim) {
  if (!sim)
    return "no simulation (NULL)";
  rod_sim *s = (rod_sim *)sim; /* the text is a cache of err */
  rod_error_format(&s->err, s->err_text, sizeof s->err_text);
  return s->err_text;
}

const char *rod_sim_warning(const rod_sim *sim) {
  return sim ? sim->warning : "";
}

void rod_sim_set_warning(rod_sim *sim, const char *text) {
  snprintf(sim->warning, sizeof sim->warning, "%s", text);
}

void rod_sim_get_error(const rod_sim *sim, rod_error *err) {
  if (err && sim)
    *err = sim->err;
  else if (err)
    rod_error_set(err, ROD_EINVAL, "", "", "no simulation (NULL)");
}

const rod_scenario *rod_sim_scenario(const rod_sim *sim) {
  return sim ? &sim->sc : NULL;
}

void rod_sim_fix_every(rod_sim *sim, int every) {
  sim->sc.output.every = every;
}

int rod_sim_set_failure(rod_sim *sim, int status, const rod_error *err) {
  sim->err = *err;
  return status;
}

const char *rod_sim_backend(const rod_sim *sim) {
  return sim ? sim->ops->name : "";
}

/* The simulation stopped after a converged step (a sink's status): the
 * result says why; later steps stay possible. */
static int stopped(rod_sim *sim, int status) {
  sim->res.status = status;
  snprintf(sim->res.message, sizeof sim->res.message, "%.*s",
           (int)sizeof sim->res.message - 1, sim->err.message);
  return status;
}

static int close_sink(rod_sim *sim, const char *status, bool implicit);

/* ---- creation ---------------------------------------------------------- */

/* k h beyond which the shooting's sweeps stop resolving a step's length
 * scale (the grid warning of rodsim run, docs/numerics.md): RK4, Euler. */
static const double kh_limit_rk4 = 1.0, kh_limit_euler = 0.5;

/* The smallest step the controller may take on the Kirchhoff rod's grid:
 * a step of h makes the rod vary along s on the length 1/k, k^4 = rhoA
 * c0^2 / EI with c0 = 1 / (a_ii h), and its sweeps fail once k exceeds
 * the limit over the grid spacing. 0 for the RFEM chain. */
static double smallest_step(const rod_scenario *sc, const rod_model *m) {
  const rod_dirk_table *t = rod_dirk_for(sc->time.scheme);
  if (!t || sc->solver.backend != ROD_BACKEND_KIRCHHOFF)
    return 0;
  const double limit =
      sc->space.integrator == ROD_SPACE_EULER ? kh_limit_euler : kh_limit_rk4;
  const double hg = sc->rod.length / (rod_model_nodes(m, sc) - 1);
  const double k = limit / hg; /* 1/m */
  const double c0 = k * k * sqrt(m->K[0] / m->rho_area);
  /* the first step may take sdirk4 (kirchhoff_dirk.c) */
  return fmax(rod_dirk_c0(t, 1.0), rod_dirk_c0(&rod_dirk_sdirk4, 1.0)) / c0;
}

/* The steps per octave below time.dt that the scheme keeps to
 * (rod_dirk_table.step_levels; 0: any step). */
static int step_levels(const rod_scenario *sc) {
  const rod_dirk_table *t = rod_dirk_for(sc->time.scheme);
  return t && sc->solver.backend == ROD_BACKEND_KIRCHHOFF ? t->step_levels : 0;
}

/* h put on the levels time.dt 2^(-k / n), k >= 0, n = step_levels: the
 * level at or below h, or (up) at or above it; h itself without levels. */
static double on_level(const rod_scenario *sc, double h, bool up) {
  const int n = step_levels(sc);
  if (n <= 0 || !(h > 0))
    return h;
  const double dt = sc->time.dt, x = n * log2(h / dt);
  const double k = up ? ceil(x - 1e-9) : floor(x + 1e-9);
  return dt * exp2(fmin(k, 0.0) / n);
}

/* The next step after a proposal of h: on a level below it, never below
 * the floor. */
static double next_step(const rod_sim *sim, double h) {
  return fmax(on_level(&sim->sc, h, false), sim->h_floor);
}

/* Times in (0, duration) where a load has a corner, increasing: the
 * controller ends steps there, where the solution is not smooth. */
static int breakpoints(const rod_scenario *sc, double *b) {
  double c[5];
  int n = 0, m = 0;
  if (sc->impulse.enabled) {
    c[n++] = sc->impulse.start;
    c[n++] = sc->impulse.start + 0.5 * sc->impulse.duration;
    c[n++] = sc->impulse.start + sc->impulse.duration;
  }
  if (sc->motor.enabled) {
    c[n++] = sc->motor.start;
    c[n++] = sc->motor.start + sc->motor.ramp;
  }
  for (int i = 0; i < n; i++)
    if (c[i] > 0 && c[i] < sc->time.duration)
      b[m++] = c[i];
  for (int i = 1; i < m; i++) /* insertion sort */
    for (int j = i; j > 0 && b[j] < b[j - 1]; j--) {
      double x = b[j];
      b[j] = b[j - 1];
      b[j - 1] = x;
    }
  return m;
}

int rod_sim_create(const rod_scenario *sc, rod_sim **out, rod_error *err) {
  if (!out || !sc)
    return rod_error_set(err, ROD_EINVAL, "", "", "no %s (NULL)",
                         out ? "scenario" : "place for the simulation");
  *out = NULL;
  int st = rod_scenario_validate(sc, err);
  if (st != ROD_OK)
    return st;
  const char *file = sc->source[0] ? sc->source : "scenario";
  const rod_backend_ops *ops = rod_backend_for(sc);
  if (!ops)
    return rod_error_set(err, ROD_EUNSUPPORTED, file, "solver.backend",
                         "backend not available in this build");
  rod_sim *sim = calloc(1, sizeof *sim);
  if (!sim)
    return rod_error_set(err, ROD_ENOMEM, file, "", "out of memory");
  sim->t_created = now();
  sim->sc = *sc;
  sim->ops = ops;
  rod_model_init(&sim->model, sc);
  rod_drive_clear(&sim->drive);
  rod_energy_watch_init(&sim->watch, sc);
  rod_guard_init(&sim->guard, sc);
  rod_errest_init(&sim->est, sc);
  rod_errest_note(&sim->est, sc, 0, &sim->res);
  st = ops->create(&sim->sc, &sim->self, err);
  if (st != ROD_OK) {
    free(sim);
    return st;
  }
  double q[3], w[3];
  rod_base_state(&sim->sc, &sim->model, NULL, NULL, 0.0, sim->base_p,
                 sim->base_h, q, w);
  sim->control = sc->time.has_tolerance;
  if (sim->control && !ops->set_tolerance) {
    ops->destroy(sim->self);
    free(sim);
    return rod_error_set(err, ROD_EUNSUPPORTED, file, "time.tolerance",
                         "the %s backend has no error estimate", ops->name);
  }
  sim->h = sc->time.dt;
  /* the floor on a level too: every step a level (on_level) */
  sim->h_floor = on_level(sc, smallest_step(sc, &sim->model), true);
  sim->err_prev = -1;
  sim->t_stop = sc->time.duration;
  sim->nbreaks = breakpoints(sc, sim->breaks);
  sim->use_dense = sc->output.has_interval;
  sim->k_out = 1;
  sim->next_out = sc->output.interval;
  *out = sim;
  return ROD_OK;
}

int rod_sim_create_file(const char *path, rod_sim **out, rod_error *err) {
  if (!out || !path)
    return rod_error_set(err, ROD_EINVAL, "", "", "no %s (NULL)",
                         out ? "file name" : "place for the simulation");
  *out = NULL;
  rod_scenario *sc = rod_scenario_new();
  if (!sc)
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  int st = rod_scenario_load(sc, path, err);
  if (st == ROD_OK)
    st = rod_sim_create(sc, out, err);
  rod_scenario_free(sc);
  return st;
}

int rod_sim_create_string(const char *ini, const char *name, rod_sim **out,
                          rod_error *err) {
  if (!out || !ini)
    return rod_error_set(err, ROD_EINVAL, "", "", "no %s (NULL)",
                         out ? "scenario text" : "place for the simulation");
  *out = NULL;
  rod_scenario *sc = rod_scenario_new();
  if (!sc)
    return rod_error_set(err, ROD_ENOMEM, name, "", "out of memory");
  int st = rod_scenario_load_string(sc, ini, name, err);
  if (st == ROD_OK)
    st = rod_sim_create(sc, out, err);
  rod_scenario_free(sc);
  return st;
}

void rod_sim_free(rod_sim *sim) {
  if (!sim)
    return;
  close_sink(sim, NULL, true);
  sim->ops->destroy(sim->self);
  rod_sim_kept_free(&sim->kept);
  rod_errest_free(&sim->est);
  rod_dense_free(&sim->dense);
  rod_guard_free(&sim->guard);
  free(sim);
}

/* ---- samples ----------------------------------------------------------- */

int rod_sim_current_sample(rod_sim *sim) {
  if (!sim->solved)
    return rod_sim_fail(sim, ROD_EINVAL, "",
                        "no state yet: call rod_sim_static");
  if (sim->cur_valid)
    return ROD_OK;
  memset(&sim->cur, 0, sizeof sim->cur); /* fields a backend leaves out */
  int st = sim->ops->sample(sim->self, &sim->cur);
  if (st != ROD_OK)
    return rod_sim_fail(sim, st, "", "cannot sample the state (%s)",
                        rod_strerror(st));
  sim->cur_valid = true;
  return ROD_OK;
}

/* Deliver sample s at time t with the effort since the last sample; a
 * dynamic state that cannot be is noted (guard.h) */
static int deliver(rod_sim *sim, double t, const rod_sample *sample) {
  rod_sample copy = *sample;
  const rod_sample *s = &copy;
  copy.has_error_estimate = sim->est.on;
  copy.error_estimate = sim->est.estimate;
  rod_energy_watch_add(&sim->watch, t, s, &sim->res);
  if (sim->step > 0 && !sim->res.implausible[0] &&
      (!rod_guard_values(s, sim->res.implausible,
                         sizeof sim->res.implausible) ||
       rod_guard_crossing(&sim->guard, s, sim->res.implausible,
                          sizeof sim->res.implausible)))
    sim->res.implausible_time = t;
  int st = sim->sink.sample(sim->sink.user, t, s, &sim->acc, sim->acc_wall);
  memset(&sim->acc, 0, sizeof sim->acc);
  sim->acc_wall = 0;
  if (st != ROD_OK)
    return rod_sim_fail(sim, st, "output.file",
                        "cannot write the sample at t = %.6g s"
                        " (%s)",
                        t, rod_strerror(st));
  sim->res.samples++;
  return ROD_OK;
}

/* Deliver the current state. */
static int emit(rod_sim *sim) {
  sim->pending = 0;
  if (!sim->has_sink || !sim->sink.sample)
    return ROD_OK;
  int st = rod_sim_current_sample(sim);
  return st != ROD_OK ? st : deliver(sim, sim->t, &sim->cur);
}

/* output.interval, after a step to sim->t: the multiples of the interval
 * up to it, interpolated between the last steps (sim/dense.h); at a
 * multiple that is the step's time, the step itself. The t = 0 sample
 * starts the interpolation (first is true). */
static int dense_output(rod_sim *sim, bool first) {
  if (!sim->has_sink || !sim->sink.sample)
    return ROD_OK;
  int st = rod_sim_current_sample(sim);
  if (st == ROD_OK && !sim->dense.field[0])
    st = rod_dense_init(&sim->dense, sim->cur.points);
  if (st != ROD_OK)
    return st;
  rod_dense_push(&sim->dense, sim->t, &sim->cur);
  if (first)
    return emit(sim);
  const double eps = 1e-9 * sim->sc.time.dt;
  while (st == ROD_OK && sim->next_out < sim->t - eps) {
    rod_sample d;
    memset(&d, 0, sizeof d); /* no contact: output.interval has none */
    rod_dense_eval(&sim->dense, sim->next_out, &d);
    st = deliver(sim, sim->next_out, &d);
    sim->next_out = (double)(++sim->k_out) * sim->sc.output.interval;
  }
  if (st == ROD_OK && sim->next_out <= sim->t + eps) {
    st = emit(sim);
    sim->next_out = (double)(++sim->k_out) * sim->sc.output.interval;
  }
  return st;
}

int rod_sim_flush(rod_sim *sim) {
  if (!sim)
    return ROD_EINVAL;
  return sim->pending > 0 ? emit(sim) : ROD_OK;
}

/* The run reached its end: time.duration (within 1e-9 of a step). */
static bool at_end(const rod_sim *sim) {
  return sim->solved &&
         sim->t >= sim->sc.time.duration - 1e-9 * sim->sc.time.dt;
}

/* Close the sink when it has a close: with status, or else the
 * simulation's failure, or "complete" when the caller closes it
 * (implicit false) or the run reached its end; a sink freed or replaced
 * before the end says it was interrupted and when. */
static int close_sink(rod_sim *sim, const char *status, bool implicit) {
  if (!sim->has_sink || !sim->sink.close)
    return ROD_OK;
  int st = rod_sim_flush(sim);
  char early[160];
  snprintf(early, sizeof early,
           "interrupted at t = %.6g s, before the end (time.duration = "
           "%.6g s)",
           sim->t, sim->sc.time.duration);
  const char *text = status                      ? status
                     : sim->res.status != ROD_OK ? sim->res.message
                     : !implicit || at_end(sim)  ? "complete"
                                                 : early;
  const rod_sim_sink sink = sim->sink; /* forgotten before it is closed */
  sim->has_sink = false;
  memset(&sim->sink, 0, sizeof sim->sink);
  int cst = sink.close(sink.user, text);
  if (st == ROD_OK && cst != ROD_OK)
    st = rod_sim_fail(sim, cst, "output.file", "cannot write the file (%s)",
                      rod_strerror(cst));
  return st;
}

int rod_sim_close_output(rod_sim *sim, const char *status) {
  return sim ? close_sink(sim, status, false) : ROD_EINVAL;
}

int rod_sim_close_replaced(rod_sim *sim) { return close_sink(sim, NULL, true); }

void rod_sim_set_sink(rod_sim *sim, const rod_sim_sink *sink) {
  if (!sim)
    return;
  close_sink(sim, NULL, true);
  sim->has_sink = sink != NULL;
  if (sink)
    sim->sink = *sink;
  else
    memset(&sim->sink, 0, sizeof sim->sink);
}

/* ---- solving ----------------------------------------------------------- */

/* After a converged solve: the clamp's pose now, for backward
 * differences of the next rod_sim_set_base. */
static void note_base(rod_sim *sim) {
  double q[3], w[3];
  rod_base_state(&sim->sc, &sim->model, &sim->drive, NULL, sim->t, sim->base_p,
                 sim->base_h, q, w);
}

/* A static failure beyond what the solver resolves says so: loads whose
 * tension or compression makes the static solutions grow by more than
 * exp(150) along the rod (rod_model_static_growth). Simple shooting
 * resolves exp(15) (the robustness study, docs/validation.md: a rod
 * sideways under w L^3 / EI = 500, exp(14.9), solved; 1000, exp(21),
 * not); the Kirchhoff rod's statics beyond it go by segments, at most 48
 * (docs/numerics.md, Soft rods: 50000, exp(149), solved; 1e5, exp(211),
 * not). */
static void static_reach(rod_sim *sim) {
  const double growth = rod_model_static_growth(&sim->model, &sim->sc);
  size_t len = strlen(sim->res.message);
  if (growth > 150.0)
    snprintf(sim->res.message + len, sizeof sim->res.message - len,
             "; the loads grow its static solutions by exp(%.0f), past the "
             "solver's exp(150): use a stiffer or shorter rod",
             growth);
}

double rod_sim_static_progress(const rod_sim *sim) {
  if (!sim || !sim->ops->static_progress)
    return -1.0;
  return sim->ops->static_progress(sim->self);
}

int rod_sim_static(rod_sim *sim) {
  if (!sim)
    return ROD_EINVAL;
  if (sim->failed)
    return sim->res.status;
  /* once, before the first step: again after steps the clock would go
   * back and a file's times with it; again at t = 0 a sink would get a
   * second first sample */
  if (sim->step > 0 || (sim->solved && sim->res.samples > 0))
    return rod_sim_fail(sim, ROD_EINVAL, "",
                        "the static state is solved once, before the first "
                        "step (this simulation is at t = %.6g s): create "
                        "another",
                        sim->t);
  rod_step_stats st;
  double w0 = now();
  int status = sim->ops->solve_static(sim->self, &st);
  double wall = now() - w0;
  sim->cur_valid = false;
  const char *why_refused = status == ROD_EINVAL && sim->ops->refusal
                                ? sim->ops->refusal(sim->self)
                                : "";
  if (why_refused[0]) { /* the grid cannot hold the state: bad input */
    sim->failed = true;
    sim->res.status = status;
    snprintf(sim->res.message, sizeof sim->res.message, "static state: %s",
             why_refused);
    rod_sim_fail(sim, status, "space.nodes", "%s", sim->res.message);
    sim->res.wall_time = now() - sim->t_created;
    return status;
  }
  if (status != ROD_OK) {
    sim->failed = true;
    sim->res.status = status;
    snprintf(sim->res.message, sizeof sim->res.message,
             status == ROD_ENOMEM ? "static equilibrium: %s"
                                  : "static equilibrium did not converge (%s)",
             rod_strerror(status));
    static_reach(sim);
    rod_sim_fail(sim, status, "", "%s", sim->res.message);
    sim->res.wall_time = now() - sim->t_created;
    return status;
  }
  sim->solved = true;
  sim->step = 0;
  sim->t = 0.0;
  sim->res.last = st;
  sim->acc = st;
  sim->acc_wall = wall;
  sim->res.statics.stable = -1;
  if (sim->ops->static_report)
    sim->ops->static_report(sim->self, &sim->res.statics);
  note_base(sim);
  /* the guard (guard.h): a state that cannot be is no result; one that
   * passes through itself is reported */
  char why[sizeof sim->res.message - 24] = "";
  bool finite = true; /* a state that is not finite is never written */
  if (sim->res.statics.stable == 0) {
    snprintf(why, sizeof why, "%s", sim->res.statics.note);
  } else if (rod_sim_current_sample(sim) == ROD_OK) {
    finite = rod_guard_finite(&sim->cur, why, sizeof why);
    if (!rod_guard_values(&sim->cur, why, sizeof why) ||
        (sim->sc.solver.backend == ROD_BACKEND_KIRCHHOFF &&
         !rod_guard_balance(&sim->sc, &sim->model, &sim->drive, &sim->cur, why,
                            sizeof why)))
      sim->res.statics.stable = 0;
    else if (rod_guard_crossing(&sim->guard, &sim->cur, sim->res.implausible,
                                sizeof sim->res.implausible))
      sim->res.implausible_time = 0.0;
  }
  if (finite && rod_sim_current_sample(sim) == ROD_OK)
    status = rod_sim_keep_state(sim); /* for the getters, should a step fail */
  if (status == ROD_OK && finite)
    status = sim->use_dense ? dense_output(sim, true) : emit(sim);
  if (status == ROD_OK && why[0]) {
    /* written for inspection, but no result: the run stops here */
    sim->failed = true;
    sim->res.status = status = ROD_ENOCONV;
    snprintf(sim->res.message, sizeof sim->res.message,
             "static equilibrium: %s", why);
    static_reach(sim);
    rod_sim_fail(sim, status, "", "%s", sim->res.message);
  }
  sim->res.wall_time = now() - sim->t_created;
  return status;
}

static void accumulate(rod_step_stats *acc, const rod_step_stats *st) {
  acc->iterations += st->iterations;
  acc->integrations += st->integrations;
  if (st->residual > acc->residual)
    acc->residual = st->residual;
  if (st->method > acc->method)
    acc->method = st->method;
  if (st->error > acc->error)
    acc->error = st->error;
  acc->fallback |= st->fallback;
}

/* Controller constants: a smooth PI controller of log h (Soderlind 2003:
 * k1 = 0.4 on the error, k2 = 0.2 on its change, safety 0.96) and
 * ARKODE's growth limits; after a rejection at most 0.9 of the step,
 * after a solve that failed a quarter (as CVODE after a convergence
 * failure), at most ctl_max_fails of those in a row. ARKODE's k1 = 0.8,
 * k2 = 0.31 chase the embedded estimate of a rod whose unresolved modes
 * make it jump from step to step: esdirk4 rejected 15 to 19 % of its
 * steps on the weight release (3e-6 m, 30 nodes) and the impulse (1e-5 m,
 * 44 nodes), 1.9 to 3.5 % with these, for the same error and no more
 * spatial sweeps (validation/workprec.py). */
static const double ctl_safety = 0.96, ctl_k1 = 0.4, ctl_k2 = 0.2;
static const double ctl_growth = 20.0, ctl_shrink = 0.2;
static const double ctl_reject_max = 0.9, ctl_fail_factor = 0.25;
static const int ctl_max_fails = 10;

static double clamp(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

/* Order of the local error estimate: it falls like h^order. */
static double estimate_order(const rod_scenario *sc) {
  const rod_dirk_table *t = rod_dirk_for(sc->time.scheme);
  if (sc->solver.backend == ROD_BACKEND_KIRCHHOFF && t)
    return t->embedded_order + 1;
  return 3; /* generalized-alpha: second order, local error h^3 */
}

/* The step from sim->t of size sim->h (within h_floor and time.dt), to
 * end at the next corner of the loads or at t_stop: stretched by up to 1%
 * to reach it, or, within two steps of it, half the way there, so that no
 * sliver is left. */
static double next_step_end(const rod_sim *sim) {
  double stop = sim->t_stop > sim->t ? sim->t_stop : INFINITY;
  for (int i = 0; i < sim->nbreaks; i++)
    if (sim->breaks[i] > sim->t * (1 + 1e-12) + 1e-15) {
      stop = fmin(stop, sim->breaks[i]);
      break;
    }
  const double h = fmin(fmax(sim->h, sim->h_floor), sim->sc.time.dt);
  const double gap = stop - sim->t;
  if (gap <= 1.01 * h)
    return stop;
  return gap < 2 * h ? sim->t + 0.5 * gap : sim->t + h;
}

/* One accepted step under time.tolerance (the backend keeps its state on
 * a rejection): the step's end into *t, the effort of every attempt into
 * total. The error estimate asks for steps the shooting cannot always
 * solve (the first steps after a release, whose acceleration is singular
 * at the tip): after a failed solve below a step that solved, no step
 * smaller than that one, accepted whatever its error. */
static int controlled_step(rod_sim *sim, double *t, rod_step_stats *total) {
  const double tol = sim->sc.time.tolerance, p = estimate_order(&sim->sc);
  double h_solved = 0; /* the last attempt that solved, rejected */
  int fails = 0, rejects = 0;
  memset(total, 0, sizeof *total);
  for (;;) {
    const bool floored = sim->h <= sim->h_floor;
    const double t1 = next_step_end(sim), h = t1 - sim->t;
    sim->ops->set_tolerance(sim->self, floored ? INFINITY : tol);
    rod_step_stats st;
    int status = sim->ops->step(sim->self, t1, &st);
    accumulate(total, &st);
    total->error = st.error;
    *t = t1;
    if (status == ROD_ENOMEM) /* no smaller step helps */
      return status;
    if (status != ROD_OK) {
      if (h_solved > 0) {
        sim->res.rejected++;
        sim->h = sim->h_floor = h_solved;
        continue;
      }
      if (++fails > ctl_max_fails || h <= sim->h_floor * (1 + 1e-12))
        return status;
      sim->res.rejected++;
      sim->h = next_step(sim, h * ctl_fail_factor);
      continue;
    }
    if (st.rejected) {
      sim->res.rejected++;
      rejects++;
      h_solved = h;
      double f = ctl_safety * pow(tol / st.error, 1.0 / p);
      if (rejects > 2)
        f = fmin(f, ctl_fail_factor);
      sim->h = next_step(sim, h * clamp(f, ctl_shrink / 2, ctl_reject_max));
      continue;
    }
    if (st.error > tol)
      sim->res.over_tolerance++;
    /* PI control of log h: k1 on this error, k2 on its change */
    double e = fmax(st.error / tol, 1e-10);
    double f = ctl_safety * pow(e, -ctl_k1 / p);
    if (sim->err_prev > 0)
      f *= pow(sim->err_prev, ctl_k2 / p);
    sim->h = next_step(sim, h * clamp(f, ctl_shrink, ctl_growth));
    sim->err_prev = e;
    total->rejected = 0;
    return ROD_OK;
  }
}

/* After a step that converged to a state that is not finite (loads or a
 * step beyond what the solver resolves): the step failed, the state
 * before it is the simulation's (kept), nothing is written. */
static int not_finite(rod_sim *sim, const char *why, int i, double t) {
  rod_sim_restore_state(sim);
  snprintf(sim->res.message, sizeof sim->res.message,
           "step %d (t = %.6g s): %s; the state before it is kept", i, t, why);
  return ROD_ENOCONV;
}

/* The run's error estimate (sim/error_estimate.h) after each step: the
 * companion started after the first. */
static void estimate_step(rod_sim *sim) {
  if (!sim->est.on || rod_sim_current_sample(sim) != ROD_OK)
    return;
  if (sim->step == 1)
    rod_errest_start(&sim->est, sim->ops, sim->cur.points, &sim->drive,
                     &sim->sc);
  bool corner = false; /* the step ended at a corner of the loads */
  for (int i = 0; i < sim->nbreaks; i++)
    corner |= fabs(sim->t - sim->breaks[i]) <= 1e-12 * sim->breaks[i];
  rod_errest_step(&sim->est, sim->t,
                  sim->cur.position + 3 * (sim->cur.points - 1), corner);
  rod_errest_note(&sim->est, &sim->sc, sim->t, &sim->res);
}

int rod_sim_step(rod_sim *sim) {
  if (!sim)
    return ROD_EINVAL;
  if (sim->failed)
    return rod_sim_fail(sim, sim->res.status, "",
                        "%s; the simulation takes no more steps",
                        sim->res.message);
  if (!sim->solved) {
    int st = rod_sim_static(sim);
    if (st != ROD_OK)
      return st;
  }
  if (rod_scenario_check_contact_motion(&sim->sc, sim->sc.source, &sim->err) !=
      ROD_OK)
    return rod_sim_fail(sim, ROD_EUNSUPPORTED, "solver.backend", "%s",
                        sim->err.message);
  if (sim->step == INT_MAX)
    return rod_sim_fail(sim, ROD_EINVAL, "", "%d steps taken: no more",
                        INT_MAX);
  /* the state before the step (kept, should it fail) */
  int status = rod_sim_current_sample(sim);
  if (status == ROD_OK)
    status = rod_sim_keep_state(sim);
  if (status != ROD_OK)
    return status;
  const int i = sim->step + 1;
  double t = i * sim->sc.time.dt;
  rod_step_stats st;
  double w0 = now();
  status = sim->control ? controlled_step(sim, &t, &st)
                        : sim->ops->step(sim->self, t, &st);
  double w1 = now();
  sim->cur_valid = false;
  rod_sim_result *res = &sim->res;
  char why_not[160] = "";
  if (status == ROD_OK &&
      (rod_sim_current_sample(sim) != ROD_OK ||
       !rod_guard_finite(&sim->cur, why_not, sizeof why_not)))
    status = not_finite(sim, why_not[0] ? why_not : "no state", i, t);
  if (status != ROD_OK) {
    sim->failed = true;
    res->status = status;
    const char *why = sim->ops->refusal ? sim->ops->refusal(sim->self) : "";
    if (why_not[0])
      ;                            /* not_finite said it */
    else if (status == ROD_ENOMEM) /* the first step's workspaces */
      snprintf(res->message, sizeof res->message, "step %d (t = %.6g s): %s", i,
               t, rod_strerror(status));
    else if (why[0])
      snprintf(res->message, sizeof res->message, "step %d (t = %.6g s): %s", i,
               t, why);
    else
      snprintf(res->message, sizeof res->message,
               "step %d (t = %.6g s) did not converge after every fallback "
               "(%s)",
               i, t, rod_strerror(status));
    rod_sim_fail(sim, status, "", "%s", res->message);
    /* keep the last converged step even off the sampling grid */
    if (sim->pending > 0)
      emit(sim);
    res->wall_time = now() - sim->t_created;
    return status;
  }
  sim->step = i;
  sim->t = t;
  res->steps = i;
  res->time = t;
  res->step_wall += w1 - w0;
  res->iterations += st.iterations;
  res->integrations += st.integrations;
  res->last = st;
  if (st.fallback)
    res->fallbacks++;
  if (st.residual > res->max_residual)
    res->max_residual = st.residual;
  accumulate(&sim->acc, &st);
  sim->acc_wall += w1 - w0;
  sim->pending++;
  note_base(sim);
  status = ROD_OK;
  estimate_step(sim);
  if (sim->use_dense)
    status = dense_output(sim, false);
  else if (i % (sim->sc.output.every > 0 ? sim->sc.output.every : 1) == 0)
    status = emit(sim);
  if (status == ROD_OK && sim->has_sink && sim->sink.tick) {
    status = sim->sink.tick(sim->sink.user);
    if (status == ROD_EINTR)
      rod_sim_fail(sim, status, "", "interrupted at t = %.6g s", t);
    else if (status != ROD_OK)
      rod_sim_fail(sim, status, "output.file", "cannot write the output (%s)",
                   rod_strerror(status));
  }
  res->wall_time = now() - sim->t_created;
  return status == ROD_OK ? ROD_OK : stopped(sim, status);
}

int rod_sim_advance_to(rod_sim *sim, double t_end) {
  if (!sim)
    return ROD_EINVAL;
  const double dt = sim->sc.time.dt;
  if (!isfinite(t_end))
    return rod_sim_fail(sim, ROD_EINVAL, "", "t = %g s is not a finite time",
                        t_end);
  if (t_end / dt > INT_MAX - 1.0)
    return rod_sim_fail(sim, ROD_EINVAL, "",
                        "t = %g s needs more than %d steps of time.dt = %g s",
                        t_end, INT_MAX, dt);
  if (!sim->solved) {
    int st = rod_sim_static(sim);
    if (st != ROD_OK)
      return st;
  }
  const int last = (int)ceil(t_end / dt - 1e-9);
  int status = ROD_OK;
  sim->t_stop = t_end;
  while (status == ROD_OK &&
         (sim->control ? sim->t < t_end - 1e-9 * dt : sim->step < last)) {
    status = rod_sim_step(sim);
    double w = now();
    if (sim->has_sink && sim->sink.progress && w - sim->last_progress > 0.2) {
      sim->sink.progress(sim->sink.user, sim->t,
                         sim->control ? t_end : last * dt, sim->step,
                         w - sim->t_created);
      sim->last_progress = w;
    }
  }
  return status;
}

double rod_sim_time(const rod_sim *sim) { return sim ? sim->t : NAN; }

double rod_sim_error_estimate(const rod_sim *sim) {
  return sim ? sim->res.error_estimate : NAN;
}

/* ---- all in one -------------------------------------------------------- */

int rod_sim_run(const rod_scenario *sc, const rod_sim_sink *sink,
                bool static_only, rod_sim_result *res, rod_error *err) {
  memset(res, 0, sizeof *res);
  rod_sim *sim;
  int status = rod_sim_create(sc, &sim, err);
  if (status != ROD_OK) {
    res->status = status;
    return status;
  }
  rod_sim_set_sink(sim, sink);
  status = rod_sim_static(sim);
  if (status == ROD_OK && !static_only)
    status = rod_sim_advance_to(sim, sc->time.duration);
  /* the last step taken, also when a sink stopped the run after it */
  int fst = rod_sim_flush(sim);
  if (status == ROD_OK)
    status = fst;
  rod_sim_result *r = &sim->res;
  if (status != ROD_OK) {
    r->status = status;
    if (!r->message[0])
      snprintf(r->message, sizeof r->message, "%.*s",
               (int)sizeof r->message - 1, sim->err.message);
  }
  r->wall_time = now() - sim->t_created;
  *res = *r;
  rod_sim_free(sim);
  return status;
}
