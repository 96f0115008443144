/* The simulation: backends behind one ops table, and the time loop that
 * drives them (static initial state, then steps of time.dt), reporting
 * samples to a sink (the HDF5 logger, a tip recorder, nothing for bench).
 * `run`, `static`, `bench`, `compare` and `calibrate` all use this loop. */
#ifndef ROD_SIM_H
#define ROD_SIM_H

#include <stdbool.h>

#include "rod/scenario.h"
#include "rod/status.h"

/* Solver methods recorded per step (docs/hdf5.md, /solver/method). */
enum { ROD_METHOD_SIMPLE = 0, ROD_METHOD_MODIFIED = 1, ROD_METHOD_BDF2 = 2 };

/* State of the rod at one time, at the backend's points along s. Arrays are
 * owned by the backend and valid until its next call. */
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
} rod_step_stats;

typedef struct rod_backend_ops {
  const char *name;
  int (*create)(const rod_scenario *sc, void **self, rod_error *err);
  void (*destroy)(void *self);
  /* Static equilibrium: the t = 0 state (the static state, docs/scenario.md).
   */
  int (*solve_static)(void *self, rod_step_stats *st);
  /* Advance from the current time to time t. */
  int (*step)(void *self, double t, rod_step_stats *st);
  /* The current state. */
  int (*sample)(void *self, rod_sample *out);
} rod_backend_ops;

extern const rod_backend_ops rod_backend_kirchhoff;
extern const rod_backend_ops rod_backend_rfem;

/* The ops of the scenario's solver.backend. */
const rod_backend_ops *rod_backend_for(const rod_scenario *sc);

/* Sink for the time samples (time samples, docs/hdf5.md). stats are summed
 * (iterations, integrations, wall time) or maximal (residual, method) over the
 * steps since the previous sample. Return non-zero to stop the run. */
typedef struct {
  int (*sample)(void *user, double t, const rod_sample *s,
                const rod_step_stats *stats, double wall_time);
  /* Called after every step (may be NULL): for periodic flushing. */
  int (*tick)(void *user);
  /* Called about every 0.2 s of wall time (may be NULL). */
  void (*progress)(void *user, double t, double t_end, int steps, double wall);
  void *user;
} rod_sim_sink;

typedef struct {
  int status;          /* ROD_OK, or why the run stopped */
  int steps;           /* dynamic steps completed */
  int samples;         /* samples delivered */
  double time;         /* s, simulated time reached */
  double wall_time;    /* s, of the whole run (static included) */
  double step_wall;    /* s, of the dynamic steps only */
  long iterations;     /* summed over dynamic steps */
  double integrations; /* summed over dynamic steps */
  int fallbacks;       /* steps that needed a fallback method */
  double max_residual;
  /* The energy balance (energy_watch.h): with nothing working on the rod,
   * its mechanical energy grew by more than half the motion's largest
   * kinetic energy, from energy_before to energy_after (J) by
   * energy_time (s). Needs samples (a sink). */
  bool energy_grew;
  double energy_before, energy_after, energy_time;
  char message[256]; /* why the run stopped, when it did */
} rod_sim_result;

/* Static solve then time.duration / time.dt steps; samples to sink (may be
 * NULL). static_only stops after the t = 0 sample. */
int rod_sim_run(const rod_scenario *sc, const rod_sim_sink *sink,
                bool static_only, rod_sim_result *res, rod_error *err);

/* Number of steps of a run: round(duration / dt). */
int rod_sim_step_count(const rod_scenario *sc);

#endif
