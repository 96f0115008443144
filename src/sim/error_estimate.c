/* The run's own estimate of its tip error: the companion solution at twice
 * the time step and the estimate E(t) from the tips' distance
 * (sim/error_estimate.h, docs/numerics.md). */
#include "sim/error_estimate.h"

#include <math.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The order of the largest tip error over a run (measured on the weight
 * release, the impulse and the heavy release: the study of
 * validation/error_estimate.py, docs/validation.md): BDF-alpha's
 * distance to the companion is 1.0 to 2.2 times its error (p = 1.4 makes
 * that 0.62 to 1.37), esdirk4's 2.9 to 3.2 times (p = 2); esdirk3 between
 * (not measured). */
static double error_order(const rod_scenario *sc) {
  if (sc->solver.backend != ROD_BACKEND_KIRCHHOFF)
    return 1.4; /* generalized-alpha, RK4: second order or an RK45 */
  switch (sc->time.scheme) {
  case ROD_SCHEME_ESDIRK3:
    return 1.7;
  case ROD_SCHEME_ESDIRK4:
  case ROD_SCHEME_SDIRK4:
  case ROD_SCHEME_ESDIRK5:
    return 2.0;
  default:
    return 1.4;
  }
}

void rod_errest_init(rod_error_estimate *e, const rod_scenario *sc) {
  memset(e, 0, sizeof *e);
  e->on = sc->time.error_estimate && sc->time.duration > 0;
  e->control = sc->time.has_tolerance;
  e->order = error_order(sc);
  e->floor = 1e-6 * sc->rod.length;
}

/* The companion's tip (m) into tip: ROD_OK, or why not. */
static int companion_tip(rod_error_estimate *e, double tip[3]) {
  rod_sample s;
  memset(&s, 0, sizeof s);
  int st = e->ops->sample(e->self, &s);
  if (st != ROD_OK)
    return st;
  const double *p = s.position + 3 * (s.points - 1);
  for (int i = 0; i < 3; i++) {
    if (!isfinite(p[i]))
      return ROD_ENOCONV;
    tip[i] = p[i];
  }
  return ROD_OK;
}

void rod_errest_start(rod_error_estimate *e, const rod_backend_ops *ops,
                      int nodes, const rod_drive *drive,
                      const rod_scenario *sc) {
  if (!e->on || e->started || e->failed)
    return;
  const double w0 = now();
  e->ops = ops;
  e->sc = *sc;
  e->sc.time.dt = 2 * sc->time.dt;
  if (sc->solver.backend == ROD_BACKEND_KIRCHHOFF && nodes >= 2)
    e->sc.space.nodes = nodes; /* the run's grid: the error in time alone */
  e->sc.time.error_estimate = false;
  rod_error err;
  rod_step_stats st;
  if (ops->create(&e->sc, &e->self, &err) != ROD_OK) {
    e->self = NULL;
    e->failed = true;
  } else if (ops->set_drive(e->self, drive, &err) != ROD_OK ||
             ops->solve_static(e->self, &st) != ROD_OK ||
             companion_tip(e, e->tip0) != ROD_OK) {
    e->failed = true;
  } else {
    e->started = true;
  }
  e->wall += now() - w0;
}

void rod_errest_step(rod_error_estimate *e, double t, const double tip[3],
                     bool corner) {
  if (!e->started) /* no tip at t = 0 either */
    return;
  double d = 0;
  for (int i = 0; i < 3; i++)
    d += (tip[i] - e->tip0[i]) * (tip[i] - e->tip0[i]);
  e->motion = fmax(e->motion, sqrt(d));
  e->pending++;
  if (e->failed || (e->pending < 2 && !(corner && e->control)))
    return;
  e->pending = 0;
  const double w0 = now();
  rod_step_stats st;
  double c[3];
  if (e->ops->step(e->self, t, &st) != ROD_OK ||
      companion_tip(e, c) != ROD_OK) {
    e->failed = true;
  } else {
    double d2 = 0;
    for (int i = 0; i < 3; i++)
      d2 += (tip[i] - c[i]) * (tip[i] - c[i]);
    e->estimate = fmax(e->estimate, sqrt(d2) / (pow(2.0, e->order) - 1.0));
    e->until = t;
  }
  e->wall += now() - w0;
}

void rod_errest_drive(rod_error_estimate *e, const rod_drive *drive) {
  rod_error err;
  if (e->started && !e->failed &&
      e->ops->set_drive(e->self, drive, &err) != ROD_OK)
    e->failed = true;
}

/* x rounded down to 1, 2 or 5 times a power of ten. */
static double round_down_125(double x) {
  const double decade = pow(10.0, floor(log10(x)));
  const double steps[3] = {5, 2, 1};
  for (int i = 0; i < 3; i++)
    if (steps[i] * decade <= x * (1 + 1e-12))
      return steps[i] * decade;
  return decade;
}

/* The setting (time.dt or time.tolerance, now `value`) that brings E to
 * `fraction` of the motion when E falls like the setting^(1 / exponent):
 * value itself when E is within; 0 when no estimate. */
static double setting_for(const rod_error_estimate *e, double value,
                          double fraction, double exponent) {
  if (!e->started)
    return 0;
  const double want = fraction * e->motion;
  if (e->estimate <= fmax(want, e->floor))
    return value;
  return round_down_125(value * pow(want / e->estimate, exponent));
}

double rod_errest_step_for(const rod_error_estimate *e, double dt,
                           double fraction) {
  /* first order, below e->order: between steps at which the modes'
   * phase errors are not small the largest error falls more slowly than
   * at its order (BDF-alpha on the weight release: 4.9, 3.2, 1.3 mm at 2,
   * 1, 0.5 ms), and the step named must meet the fraction */
  return setting_for(e, dt, fraction, 1.0);
}

double rod_errest_tolerance_for(const rod_error_estimate *e, double tolerance,
                                double fraction) {
  return setting_for(e, tolerance, fraction, 1.25);
}

void rod_errest_note(const rod_error_estimate *e, const rod_scenario *sc,
                     double t, rod_sim_result *res) {
  const double dt = sc->time.dt;
  res->error_estimate = e->on ? e->estimate : -1;
  res->tip_motion = e->motion;
  res->error_estimate_until = e->failed ? e->until : t;
  res->error_estimate_dt =
      e->started && !e->control ? rod_errest_step_for(e, dt, 0.01) : dt;
  res->error_estimate_tolerance =
      e->started && e->control
          ? rod_errest_tolerance_for(e, sc->time.tolerance, 0.01)
          : 0;
}

void rod_errest_free(rod_error_estimate *e) {
  if (e->self)
    e->ops->destroy(e->self);
  e->self = NULL;
  e->started = false;
}
