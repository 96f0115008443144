/* Samples of a rod's state and where they go: the types the simulation
 * makes (rod/sim.h) and every sink takes (the HDF5 logger, rod/logger.h;
 * the in-memory recorder, rod/recorder.h; a caller's own callbacks). They
 * sit below both, so that the simulation knows no sink and no sink knows
 * the simulation. With them the sampling plan of a scenario: the steps of
 * a run and the samples a sink receives (time samples, docs/hdf5.md).
 *
 * A new sink is a rod_sim_sink whose callbacks take the samples; it
 * includes this header (and rod/scenario.h for the plan), not rod/sim.h. */
#ifndef ROD_SAMPLE_H
#define ROD_SAMPLE_H

#include "rod/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Solver methods recorded per step (docs/hdf5.md, /solver/method). */
enum { ROD_METHOD_SIMPLE = 0, ROD_METHOD_MODIFIED = 1, ROD_METHOD_BDF2 = 2 };

/* State of the rod at one time, at the backend's points along s. The arrays
 * belong to the simulation and are valid during a sink's call only. */
typedef struct {
  int points;
  const double *s;           /* m, (points) */
  const double *position;    /* m, world (points x 3) */
  const double *orientation; /* unit quaternion w x y z (points x 4) */
  const double *velocity;    /* m/s, world (points x 3) */
  const double *force;       /* N, internal force, world; NULL if none */
  const double *moment;      /* N m, internal moment, world; NULL if none */
  double kinetic;            /* J, the rod's kinetic energy */
  double elastic;            /* J, elastic energy */
  double gravity;            /* J, -integral of rhoA g . p ds */
  /* Contact with [plane] and [obstacle.NAME] (docs/contact.md); NULL and 0
   * when the scenario has none. */
  const double *contact_force; /* N, world (points x 3): the contact forces
                                  lumped at the points */
  const signed char *contact_active; /* (points): 1 where a contact acts */
  double contact_gap_min;    /* m, smallest gap between the rod's surface and
                                an obstacle (negative: penetration) */
  double dissipated_contact; /* J, energy the contacts took out since t = 0 */
  /* Tendons ([tendon.NAME], docs/tendons.md), in the scenario's order; 0
   * and NULL when the scenario has none. */
  int tendons;
  const double *tendon_tension; /* N (tendons): 0 when slack */
  const double *tendon_length;  /* m (tendons): along its routing from start
                                   to end, the integral of |p_i,s| ds */
  /* J, since t = 0 (0 when the scenario has none; docs/tendons.md,
   * "Energy"): the work of the tendons' tensions on the rod, -sum_i int
   * tau_i dL_i (positive while a tendon under tension is pulled in), and
   * of their friction loads on the rod, int int (f . v + l . omega) ds dt
   * (<= 0), each by the trapezoidal rule over the steps */
  double tendon_work;
  double tendon_friction_work;
  /* The run's estimate of its largest tip error from t = 0 to this sample
   * (m; time.error_estimate, docs/numerics.md) when has_error_estimate:
   * set by the simulation, not the backend. */
  bool has_error_estimate;
  double error_estimate;
} rod_sample;

/* Effort of one step (or of the static solve). */
typedef struct {
  int iterations;      /* nonlinear iterations */
  double integrations; /* spatial integrations (1 + k per sweep with k
                          tangents); RFEM: dynamics evaluations */
  double residual;     /* final scaled residual */
  int method;          /* ROD_METHOD_* */
  int fallback;        /* 1 when the step needed a method after the strategy's
                          first choice (Till & Rucker 2017, Fig. 2) */
  double error;        /* m: the step's local error estimate (schemes with
                          an embedded pair, time.tolerance); 0 without */
  int rejected;        /* 1: error above the tolerance set by
                          set_tolerance; the state stayed */
} rod_step_stats;

/* Sink for the time samples (time samples, docs/hdf5.md): t = 0, every
 * output.every steps or the multiples of output.interval (interpolated
 * between steps), and the last step taken. stats are summed
 * (iterations, integrations, wall time) or maximal (residual, method) over
 * the steps since the previous sample. A non-zero return stops the run
 * with that status. Every callback but sample may be NULL. */
typedef struct {
  int (*sample)(void *user, double t, const rod_sample *s,
                const rod_step_stats *stats, double wall_time);
  /* Called after every step: for periodic flushing, or to stop the run
   * (return ROD_EINTR after a signal, say). */
  int (*tick)(void *user);
  /* Called about every 0.2 s of wall time. */
  void (*progress)(void *user, double t, double t_end, int steps, double wall);
  void *user;
  /* The end of the samples, once, after the last: status is the run's
   * ("complete", or why and when it stopped). The simulation calls it from
   * rod_sim_close_output and rod_sim_free and then forgets the sink, so a
   * sink that owns a file writes the status, closes the file and frees
   * itself here. Non-zero: the output could not be completed. */
  int (*close)(void *user, const char *status);
} rod_sim_sink;

/* Number of steps of a run (fixed steps): duration / dt rounded up. */
int rod_sim_step_count(const rod_scenario *sc);

/* Samples a run delivers: t = 0, then every output.every-th step or the
 * multiples of output.interval, and the end. With time.tolerance and no
 * output.interval the steps are not known before the run: the count at
 * steps of time.dt, a lower bound. output.every = auto counts every step
 * (a sink's samples; a file's may be fewer, rod_sim_output_every). */
int rod_sim_sample_count(const rod_scenario *sc);

#ifdef __cplusplus
}
#endif

#endif
