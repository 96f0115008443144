/* The simulation object's fields, shared by the files that make it up:
 * sim.c (creation, the static state, the time loop, samples), sim_drive.c
 * (loads and the clamp's motion between steps), sim_state.c (the state
 * copied out, and the state kept from before a step). */
#ifndef ROD_SIM_OBJECT_H
#define ROD_SIM_OBJECT_H

#include "core/drive.h"
#include "core/model.h"
#include "rod/sim.h"
#include "sim/backend.h"
#include "sim/dense.h"
#include "sim/energy_watch.h"
#include "sim/error_estimate.h"
#include "sim/guard.h"

/* A copy of a sample in arrays of the simulation's own (allocated with the
 * static state, refilled before every step): what the getters give after
 * a step whose state was not finite, the state before it. */
typedef struct {
  rod_sample s;
  double *values;
  signed char *active;
  int capacity; /* points the arrays hold */
} rod_sim_kept;

struct rod_sim {
  rod_scenario sc;
  rod_model model; /* the clamp frame, for the base pose */
  const rod_backend_ops *ops;
  void *self;
  rod_drive drive;
  /* the clamp's pose at the current time, for backward differences */
  double base_p[3], base_h[4];
  bool solved; /* the static state is solved */
  bool failed; /* a solve failed: the backend is at its last converged
                  state and takes no more steps */
  int step;    /* dynamic steps taken */
  double t;    /* s */
  rod_sim_sink sink;
  bool has_sink;
  rod_step_stats acc; /* effort since the last sample */
  double acc_wall;    /* s, since the last sample */
  int pending;        /* converged steps not yet sampled */
  rod_sample cur;     /* the backend's sample of the current state */
  bool cur_valid;     /* cur is of the current state */
  rod_sim_kept kept;  /* the state before the step in progress */
  rod_energy_watch watch;
  rod_guard guard;
  rod_error_estimate est; /* the run's own error estimate */
  rod_sim_result res;
  /* step-size control (time.tolerance) */
  bool control;
  double h;         /* s: the next step */
  double err_prev;  /* the last accepted step's error / tolerance; < 0: none */
  double h_floor;   /* s: no smaller step solves (after a failure) */
  double t_stop;    /* s: steps end here (rod_sim_advance_to, duration) */
  double breaks[8]; /* s: corners of the loads, increasing */
  int nbreaks;
  /* output at the multiples of output.interval */
  bool use_dense;
  rod_dense dense;
  double next_out; /* s */
  long k_out;
  double t_created; /* monotonic s */
  double last_progress;
  rod_error err;
  char err_text[1024];
  char warning[1024]; /* rod_sim_warning: what the last output closed warns
                         about, or "" */
};

/* Record a failure: err, its text (rod_sim_error); returns status. */
int rod_sim_fail(rod_sim *sim, int status, const char *key, const char *fmt,
                 ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* sim->cur of the current state (the backend's sample, once per state);
 * ROD_EINVAL before the static state. */
int rod_sim_current_sample(rod_sim *sim);

/* Copy sim->cur (valid) into sim->kept: ROD_ENOMEM. */
int rod_sim_keep_state(rod_sim *sim);

/* sim->cur becomes the kept state (after a step whose state was not
 * finite: the backend's is lost). */
void rod_sim_restore_state(rod_sim *sim);

void rod_sim_kept_free(rod_sim_kept *k);

#endif
