/* The run's own estimate of its tip error (time.error_estimate,
 * docs/numerics.md, "The run's error estimate"): a companion solution of
 * the same scenario on the same grid at twice the time step, advanced
 * beside the run; at every time both reach, the tips' distance d(t),
 * and the estimate of the largest tip error up to t
 *   E(t) = max over t' <= t of d(t') / (2^p - 1),
 * Richardson's extrapolation with the order p that the largest tip error
 * of a released or struck rod shows, lower than the scheme's (the modes
 * the steps do not follow, docs/validation.md): measured 1.4 for the
 * second-order schemes (BDF-alpha, generalized-alpha), 2 for the
 * fourth-order ones. Under time.tolerance the companion takes every two
 * of the run's steps as one (and ends a step wherever the run's step ends
 * at a corner of the loads), with the run's shooting tolerance. */
#ifndef ROD_ERROR_ESTIMATE_H
#define ROD_ERROR_ESTIMATE_H

#include <stdbool.h>

#include "core/drive.h"
#include "rod/scenario.h"
#include "rod/sim.h"
#include "sim/backend.h"

typedef struct {
  bool on;      /* the run makes an estimate */
  bool started; /* the companion solved its static state */
  bool failed;  /* the companion failed: the estimate stops at until */
  const rod_backend_ops *ops;
  void *self;      /* the companion's backend */
  rod_scenario sc; /* the companion's scenario: time.dt doubled */
  double tip0[3];  /* m, the tip at t = 0 */
  double motion;   /* m, largest distance of the tip from tip0 so far */
  double estimate; /* m, E(t) at the last time compared */
  double until;    /* s, the last time compared */
  double order;    /* p */
  int pending;     /* the run's steps since the companion's last */
  bool control;    /* the run's steps follow time.tolerance */
  double floor;    /* m, an estimate within it is never warned about: a
                      millionth of the rod's length (a rod at rest moves
                      by rounding alone) */
  double wall;     /* s, wall time spent on the companion */
} rod_error_estimate;

/* e for a run of sc (on when time.error_estimate is); nothing is
 * allocated. */
void rod_errest_init(rod_error_estimate *e, const rod_scenario *sc);

/* Start the companion after the run's first step: the run's scenario sc
 * at twice its time.dt on the run's grid of nodes points, given the run's
 * drive, its static state solved (the run's: the same grid and loads),
 * whose tip is the tip at t = 0. A companion that cannot be made or solved
 * leaves e failed (the estimate stays 0, until t = 0), never the run. */
void rod_errest_start(rod_error_estimate *e, const rod_backend_ops *ops,
                      int nodes, const rod_drive *drive,
                      const rod_scenario *sc);

/* After each of the run's steps, to time t with its tip: the motion, and
 * at every second step (or a step ending at a corner of the loads: corner,
 * under time.tolerance) the companion's step to t and E(t). */
void rod_errest_step(rod_error_estimate *e, double t, const double tip[3],
                     bool corner);

/* The loads and clamp motion set between the run's steps. */
void rod_errest_drive(rod_error_estimate *e, const rod_drive *drive);

/* The time step that would bring E to `fraction` of the tip's motion:
 * time.dt fraction motion / E (first order, which the largest error
 * reaches at least), rounded down to 1, 2 or 5 times a power of ten;
 * time.dt when E is within (or within e->floor); 0 when no estimate. */
double rod_errest_step_for(const rod_error_estimate *e, double dt,
                           double fraction);

/* The time.tolerance that would bring E to `fraction` of the tip's
 * motion: tolerance (fraction motion / E)^(5/4) (the largest error of the
 * fourth-order schemes falls like tolerance^0.8 or faster, the tolerance
 * proportionality of a p-th order local error control, p / (p + 1)),
 * rounded down to 1, 2 or 5 times a power of ten; tolerance when E is
 * within; 0 when no estimate. */
double rod_errest_tolerance_for(const rod_error_estimate *e, double tolerance,
                                double fraction);

/* The estimate into the result of a run of sc at time t: its
 * error_estimate (-1 when e makes none), tip_motion, error_estimate_until
 * (t, or the companion's last time when it failed), error_estimate_dt
 * (rod_errest_step_for at 1%; time.dt under time.tolerance) and
 * error_estimate_tolerance (rod_errest_tolerance_for at 1% under
 * time.tolerance, else 0). */
void rod_errest_note(const rod_error_estimate *e, const rod_scenario *sc,
                     double t, rod_sim_result *res);

void rod_errest_free(rod_error_estimate *e);

#endif
