/* The time loop shared by every command: static state, then fixed steps,
 * samples at t = 0, every output.every steps and the last step
 * (time samples, docs/hdf5.md). */
#include "rod/sim.h"

#include "sim/energy_watch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int rod_sim_step_count(const rod_scenario *sc) {
  double n = sc->time.duration / sc->time.dt;
  return (int)ceil(n - 1e-9);
}

/* Sum effort over the steps since the last sample. */
static void accumulate(rod_step_stats *acc, const rod_step_stats *st) {
  acc->iterations += st->iterations;
  acc->integrations += st->integrations;
  if (st->residual > acc->residual)
    acc->residual = st->residual;
  if (st->method > acc->method)
    acc->method = st->method;
}

static int emit(const rod_backend_ops *ops, void *self,
                const rod_sim_sink *sink, double t, const rod_step_stats *acc,
                double wall, rod_energy_watch *watch, rod_sim_result *res) {
  if (!sink || !sink->sample)
    return ROD_OK;
  rod_sample s;
  memset(&s, 0, sizeof s);
  int st = ops->sample(self, &s);
  if (st == ROD_OK) {
    rod_energy_watch_add(watch, t, &s, res);
    st = sink->sample(sink->user, t, &s, acc, wall);
  }
  if (st == ROD_OK)
    res->samples++;
  return st;
}

int rod_sim_run(const rod_scenario *sc, const rod_sim_sink *sink,
                bool static_only, rod_sim_result *res, rod_error *err) {
  memset(res, 0, sizeof *res);
  const rod_backend_ops *ops = rod_backend_for(sc);
  if (!ops)
    return rod_error_set(err, ROD_EUNSUPPORTED, sc->source, "solver.backend",
                         "backend not available in this build");
  const double t_start = now();
  void *self = NULL;
  int status = ops->create(sc, &self, err);
  if (status != ROD_OK)
    return status;
  rod_step_stats st, acc;
  rod_energy_watch watch;
  rod_energy_watch_init(&watch, sc);
  double w0 = now();
  status = ops->solve_static(self, &st);
  double wall = now() - w0;
  if (status != ROD_OK) {
    snprintf(res->message, sizeof res->message,
             "static equilibrium did not converge (%s)", rod_strerror(status));
    res->status = status;
    ops->destroy(self);
    res->wall_time = now() - t_start;
    return status;
  }
  status = emit(ops, self, sink, 0.0, &st, wall, &watch, res);
  const int nsteps = static_only ? 0 : rod_sim_step_count(sc);
  const int every = sc->output.every;
  const double dt = sc->time.dt;
  memset(&acc, 0, sizeof acc);
  double acc_wall = 0, last_progress = now();
  int pending = 0; /* converged steps not yet sampled */
  for (int i = 1; i <= nsteps && status == ROD_OK; i++) {
    double t = i * dt;
    w0 = now();
    status = ops->step(self, t, &st);
    double w1 = now();
    if (status != ROD_OK) {
      snprintf(res->message, sizeof res->message,
               "step %d (t = %.6g s) did not converge after every fallback "
               "(%s)",
               i, t, rod_strerror(status));
      break;
    }
    res->steps = i;
    res->time = t;
    res->step_wall += w1 - w0;
    res->iterations += st.iterations;
    res->integrations += st.integrations;
    if (st.fallback)
      res->fallbacks++;
    if (st.residual > res->max_residual)
      res->max_residual = st.residual;
    accumulate(&acc, &st);
    acc_wall += w1 - w0;
    pending++;
    if (i % every == 0 || i == nsteps) {
      status = emit(ops, self, sink, t, &acc, acc_wall, &watch, res);
      memset(&acc, 0, sizeof acc);
      acc_wall = 0;
      pending = 0;
    }
    if (status == ROD_OK && sink && sink->tick)
      status = sink->tick(sink->user);
    if (sink && sink->progress && w1 - last_progress > 0.2) {
      sink->progress(sink->user, t, nsteps * dt, i, w1 - t_start);
      last_progress = w1;
    }
  }
  res->status = status;
  if (status != ROD_OK && pending > 0 && res->steps > 0) {
    /* keep the last converged step even off the sampling grid */
    emit(ops, self, sink, res->time, &acc, acc_wall, &watch, res);
  }
  if (status != ROD_OK && !res->message[0])
    snprintf(res->message, sizeof res->message, "stopped at t = %.6g s (%s)",
             res->time, rod_strerror(status));
  ops->destroy(self);
  res->wall_time = now() - t_start;
  return status;
}
