/* Internals of the calibration (rod/calibrate.h): the problem the LM
 * callback sees, the objectives behind one ops table, the parallel runs and
 * the key handling. */
#ifndef ROD_CALIBRATE_INTERNAL_H
#define ROD_CALIBRATE_INTERNAL_H

#include "rod/calibrate.h"
#include "rod/recorder.h"
#include "rod/sim.h"

/* One simulation of the fit: its scenario, its record and how it ended. */
typedef struct {
  rod_scenario sc;
  rod_recorder *rec; /* sized once for the fit's scenario */
  bool pending;      /* to be run by the next calib_run_all */
  int status;
  char message[400]; /* why it failed */
} calib_run;

/* Run every pending run on the sweep's pool (sweep/pool.h: at most
 * `threads` at a time, the caller's thread among them, or every rank of an
 * MPI job); each run's status and message tell how it went. stop (may be
 * NULL) is asked at every step: once it says so, the runs in progress end
 * with ROD_EINTR and the others are not started (ROD_EINTR too). Returns
 * the number of runs started. */
int calib_run_all(calib_run *runs, int count, int threads,
                  rod_calib_stop_fn stop, void *stop_user);

/* The simulations that run at once for `threads` threads: the ranks of an
 * MPI job when there are more than one, else threads. */
int calib_workers(int threads);

typedef struct calib_problem calib_problem;

/* An objective: prepared once from the data, then turning a run's record
 * into residuals. */
typedef struct {
  const char *name;
  bool keep_rod; /* the residuals need the whole rod of every sample */
  /* Set p->m, p->sc.time.duration (s to simulate) and p->rms_scale (m per
   * unit residual); keep what the residuals need in p->state. ROD_EINVAL
   * with err naming the data when the data cannot serve this objective. */
  int (*init)(calib_problem *p, const char *data_name, rod_error *err);
  /* p->m residuals of a run; > 0 when the run cannot be compared (e.g. it
   * ends before the data), which rejects the trial point. */
  int (*residuals)(calib_problem *p, const rod_recorder *rec, double *r);
  void (*release)(calib_problem *p);
} calib_objective;

extern const calib_objective calib_trajectory;
extern const calib_objective calib_features;
extern const calib_objective calib_shape;

struct calib_problem {
  const char *name; /* the data's, for messages */
  rod_scenario sc;  /* the fit's: output.every = 1; duration set by init */
  const rod_tip_data *data;    /* the tip, valid samples only */
  const rod_shape_data *shape; /* the shape objective's data, or NULL */
  const calib_objective *objective;
  void *state;      /* the objective's */
  int m;            /* residuals */
  double rms_scale; /* m per unit of residual */
  double *slopes;   /* (3 x calib_samples) scratch of calib_resample */
};

/* The most samples a run of p->sc delivers (rod_recorder_alloc's room). */
int calib_samples(const calib_problem *p);

/* Coordinate c (0 x, 1 y, 2 z) of a run's tip at the n increasing times t
 * into out[i * stride]: cubic Hermite interpolation of the samples with
 * rod_signal_slopes (slopes: scratch of 3 x rec->capacity); times before
 * the first sample see it, the static state. */
void calib_resample(const rod_recorder *rec, int c, const double *t, int n,
                    double *slopes, double *out, size_t stride);

/* The starting value of [rod] key of sc (see rod_calib_fit): its value;
 * E I when bending_stiffness is absent; the drag prior when drag is 0.
 * ROD_EINVAL (err names sc's file and the key) for another key at 0. */
int calib_start_value(const rod_scenario *sc, const char *key, double *value,
                      rod_error *err);

/* Set the keys of sc to values through the scenario's own parser (so the
 * range checks and the presence flag of bending_stiffness apply). */
int calib_apply(rod_scenario *sc, int nkeys, const char (*keys)[32],
                const double *values, rod_error *err);

/* "key=value, key=value" for messages. */
void calib_describe(int nkeys, const char (*keys)[32], const double *values,
                    char *buf, size_t size);

#endif
