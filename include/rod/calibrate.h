/* Calibration: fit numeric [rod] keys of a scenario (default EI, density
 * and drag) to a measured tip trajectory or shape (Till & Rucker 2017,
 * section III.A; docs/commands.md), or to several experiments' tip
 * trajectories at once (rod_calib_fit_joint: the keys shared, each
 * experiment with its own scenario, its residuals weighted by its data's
 * noise).
 *
 * Levenberg-Marquardt over log-parameters, so every fitted
 * value stays positive and the parameters are scaled alike whatever their
 * units. The Jacobian is taken by forward differences, its 1 + p
 * simulations (base point and one per parameter) run concurrently on the
 * available cores. Standard errors come from (J^T J)^-1 times the
 * residual variance SSR / (m - p).
 *
 * Objectives:
 * - trajectory: the simulated tip minus the measured one at every data
 *   sample (the coordinates the data has), the static state at t <= 0
 *   included: with a known tip mass the static deflection pins EI. The
 *   simulation is interpolated to the data's times (src/signal/signal.h), so
 * its time step need not match the camera's.
 * - features: the paper's first peak, first valley and final peak of the
 *   tip's z after release and the oscillation frequency (4 residuals, so
 *   with 3 keys the residual variance rests on one degree of freedom and
 *   the standard errors are rough; see calibrate_features.c).
 * - shape: the simulated centreline minus the measured one at every point
 *   of every frame of a shape file (rod/shape.h; x and z of points 1 to
 *   K-1, point k compared with the simulated rod at arclength k L / (K -
 *   1)), the static state included as for the trajectory.
 * Samples and frames the tracker flagged (valid = 0) are left out.
 *
 * The library never prints; an optional callback reports progress. */
#ifndef ROD_CALIBRATE_H
#define ROD_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "rod/scenario.h"
#include "rod/shape.h"
#include "rod/status.h"
#include "rod/sweep.h"
#include "rod/tipcsv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROD_CALIB_MAX_KEYS 8 /* every numeric [rod] key at most once */
#define ROD_CALIB_MAX_SETS 8 /* data sets of a joint fit */

typedef enum {
  ROD_CALIB_TRAJECTORY = 0,
  ROD_CALIB_FEATURES,
  ROD_CALIB_SHAPE /* shape data only (rod_calib_fit_shape) */
} rod_calib_objective;

/* Why the Levenberg-Marquardt iteration of a fit stopped. */
typedef enum {
  ROD_CALIB_STOP_CONVERGED = 0,  /* the residual met the tolerance */
  ROD_CALIB_STOP_SMALL_STEP,     /* a step changed every parameter by less
                                    than step_tolerance: a minimum */
  ROD_CALIB_STOP_SMALL_GRADIENT, /* the gradient vanished: a minimum */
  ROD_CALIB_STOP_MAX_ITERATIONS,
  ROD_CALIB_STOP_NO_PROGRESS, /* damping exhausted without decrease */
  ROD_CALIB_STOP_FAILED,      /* a simulation failed where it mattered */
  ROD_CALIB_STOP_INTERRUPTED  /* the options' stop asked for it: the best
                                 point so far */
} rod_calib_stop;

/* Called after every simulation of the base point (a trial step or the
 * start): values of the fitted keys, rms residual (m), simulations so far. */
typedef void (*rod_calib_progress_fn)(const double *values, double rms,
                                      int simulations, void *user);

/* Asked at every time step of every simulation of the fit and between
 * them, from the fit's threads (so it must be safe to call from any
 * thread, e.g. reading an atomic flag a signal handler sets): non-zero
 * stops the fit within a step of each simulation running. */
typedef int (*rod_calib_stop_fn)(void *user);

typedef struct {
  rod_calib_objective objective;
  int nkeys;
  char keys[ROD_CALIB_MAX_KEYS][32]; /* [rod] key names, e.g. "drag" */
  int threads;           /* concurrent simulations; 0: the online cores */
  double fd_step;        /* forward-difference step in log-parameters; 0:
                            sqrt(solver.tolerance), see calibrate.c */
  int max_iterations;    /* LM steps tried */
  double step_tolerance; /* stop when a step changes every parameter by
                            less than this fraction */
  bool prefit;           /* trajectory: fit the features first (when the
                            data allow) and start from whichever of that
                            and the scenario fits the trajectory better */
  rod_calib_progress_fn progress; /* may be NULL */
  void *progress_user;
  rod_calib_stop_fn stop; /* may be NULL */
  void *stop_user;
} rod_calib_options;

/* What a fit found for one of its data sets. */
typedef struct {
  int residuals;       /* of this set */
  int skipped;         /* its samples left out as flagged */
  double noise;        /* m: the noise of its data, estimated from the data
                          alone (rod_calib_noise) */
  double weight;       /* 1/m: the factor of its residuals in the sum of
                          squares, 1 / noise in a joint fit of the
                          trajectories; 1 for one set (where it cancels)
                          and for the features objective */
  double rms_residual; /* m: its own rms residual at the fit (NAN when
                          the fit was stopped) */
} rod_calib_set;

typedef struct {
  int nkeys;
  double initial[ROD_CALIB_MAX_KEYS];   /* start values (units of the key) */
  double value[ROD_CALIB_MAX_KEYS];     /* fitted values */
  double std_error[ROD_CALIB_MAX_KEYS]; /* INFINITY when not identifiable */
  double rms_residual;    /* m: sqrt(SSR / m); features: see calibrate.c */
  int residuals;          /* m */
  int skipped;            /* samples (frames) left out as flagged */
  int iterations;         /* LM steps tried, pre-fit included */
  int simulations;        /* runs of the simulation, all threads, pre-fit
                             included */
  int prefit_simulations; /* of the features pre-fit; 0: none */
  bool from_prefit;       /* the trajectory fit started from the pre-fit */
  int threads;            /* threads used */
  double wall_time;       /* s */
  bool converged;         /* false: stopped at max_iterations, or by the
                             options' stop (then value holds the best
                             point simulated so far, the start if none,
                             std_error is INFINITY, and rms_residual NAN
                             when no point of the objective was simulated:
                             none yet, or stopped in the features pre-fit,
                             whose best point value then holds) */
  rod_calib_stop stop;
  int sets;                              /* data sets fitted */
  rod_calib_set set[ROD_CALIB_MAX_SETS]; /* each one's figures */
  /* The covariance of ln p at the fit, nkeys x nkeys row-major: the
   * Gauss-Newton (J^T J)^-1 of the weighted residuals times their
   * variance SSR / (m - p); std_error[j] = value[j] sqrt(cov[j][j]).
   * NAN where the errors are unknown. */
  double covariance[ROD_CALIB_MAX_KEYS * ROD_CALIB_MAX_KEYS];
} rod_calib_result;

/* One experiment of a joint fit: its scenario (its own keys set), its
 * measured tip trajectory and the data's name for messages. */
typedef struct {
  const rod_scenario *sc;
  const rod_tip_data *data;
  const char *name;
} rod_calib_experiment;

/* Trajectory objective; bending_stiffness, density, drag; threads 0;
 * fd_step 0; 100 iterations; step tolerance 1e-6; pre-fit on. */
rod_calib_options rod_calib_default_options(void);

/* Set o's keys from a comma-separated list ("bending_stiffness,drag";
 * "rod." prefixes allowed). ROD_EINVAL if a key is unknown, not a numeric
 * [rod] key, or repeated: err = {file, the key, why}. */
int rod_calib_set_keys(rod_calib_options *o, const char *list, const char *file,
                       rod_error *err);

/* Fit o's keys of sc to data; fitted = sc with the fitted values (and
 * has_bending_stiffness when it is fitted). A key whose value is 0 in sc
 * starts from a physical prior where there is one (drag: a circular
 * cylinder in still air, 0.5 rho_air C_D d) and is ROD_EINVAL otherwise:
 * a log-parameter cannot start at 0.
 * Returns ROD_OK (also when the LM stopped at max_iterations or was
 * stopped by o->stop: see res->converged and res->stop); ROD_EINVAL for
 * unusable keys or data (err names the data file, or the scenario for keys);
 * ROD_ENOCONV when a simulation fails where the fit cannot avoid it (the start
 * point, or a Jacobian column in both directions), err then holding the
 * parameter values and the simulation's message; ROD_ENOMEM. */
int rod_calib_fit(const rod_scenario *sc, const rod_tip_data *data,
                  const char *data_name, const rod_calib_options *o,
                  rod_scenario *fitted, rod_calib_result *res, rod_error *err);

/* Fit o's keys to `count` experiments at once (1 to ROD_CALIB_MAX_SETS):
 * the residuals of each (its objective's, on its own scenario) stacked,
 * each set's multiplied by its weight 1 / noise, its noise estimated from
 * its data (rod_calib_noise), so that a set is heard in proportion to
 * its accuracy and every residual of the sum has about unit variance. The
 * keys are shared: each experiment's scenario gets the same values; the
 * start is the first experiment's. fitted[e] (count scenarios) is
 * experiment e's scenario with the fitted values; res->set[e] its
 * figures. One experiment is rod_calib_fit. The shape objective takes one
 * set (rod_calib_fit_shape). Returns as rod_calib_fit; err names the data
 * set at fault. */
int rod_calib_fit_joint(const rod_calib_experiment *ex, int count,
                        const rod_calib_options *o, rod_scenario *fitted,
                        rod_calib_result *res, rod_error *err);

/* The noise of the valid samples of d (m): the standard deviation of
 * independent noise of one variance on every coordinate, estimated from
 * the data alone by their fourth differences, d_i = y_i - 4 y_(i+1) + 6
 * y_(i+2) - 4 y_(i+3) + y_(i+4) of each coordinate (of consecutive
 * samples), which take a smooth motion sampled fast away (by (omega
 * dt)^4) and leave noise of variance 70 sigma^2: sigma = 1.4826
 * median|d| / sqrt(70), the median so that the few differences a sudden
 * event (a release, a strike) spoils do not count. 0 with fewer than 5
 * samples. */
double rod_calib_noise(const rod_tip_data *d);

/* The same for a measured shape: the shape objective, or the
 * trajectory and features objectives on its tip (point K-1). Flagged
 * frames are left out (res->skipped). ROD_EINVAL as rod_calib_fit, and
 * for the shape objective with fewer than 2 points per frame. */
int rod_calib_fit_shape(const rod_scenario *sc, const rod_shape_data *data,
                        const char *data_name, const rod_calib_options *o,
                        rod_scenario *fitted, rod_calib_result *res,
                        rod_error *err);

/* The [fit] section of docs/files.md for res (keys of o), like
 * snprintf: returns the length the text needs. */
size_t rod_calib_fit_section(const rod_calib_options *o,
                             const rod_calib_result *res, char *buf,
                             size_t size);

/* ---- the ensemble: the fitted rod's predicted spread --------------------
 * (docs/commands.md, rodsim calibrate --ensemble) */

/* n draws of the fitted keys from the fit's uncertainty, ln p ~ N(ln
 * res->value, res->covariance): p_i = value exp(L z_i), L the Cholesky
 * factor of the covariance, z_i Gaussian numbers of rod_random stream
 * seed (draw i, key j: number i nkeys + j), so the same on any machine.
 * values: n x nkeys, row-major. ROD_EINVAL when the covariance is unknown
 * or not positive definite. */
int rod_calib_draws(const rod_calib_result *res, int n, uint64_t seed,
                    double *values, rod_error *err);

/* The spread of the tip over an ensemble: at each sample time, the mean
 * and the 5 % and 95 % quantiles (linear between order statistics) of
 * the tip's x, y and z over the complete cases. */
typedef struct {
  int samples;  /* times */
  int cases;    /* complete cases it is made of */
  int failed;   /* cases left out: not complete, or other times */
  double *t;    /* (samples) s */
  double *mean; /* (samples x 3) m, world frame */
  double *q05;  /* (samples x 3) m */
  double *q95;  /* (samples x 3) m */
} rod_calib_band;

/* Run n draws (rod_calib_draws, stream seed) as the cases of a sweep in
 * dir (rod/sweep.h): the base scenario fitted (an experiment's, with the
 * fitted values), the keys rod.KEY of o set to each draw's values; an
 * ordinary sweep directory (index.h5, case-NNNNN.h5), which continues
 * where it stopped when opened again with the same fit and draws. Then
 * *band of its complete cases. so: the sweep's options (threads, stop);
 * rep its report. ROD_EINVAL (n < 2, the covariance unknown, dir unusable
 * or holding another sweep), ROD_EINTR after so->stop, ROD_ENOCONV when no
 * case is complete, ROD_EIO, ROD_ENOMEM. */
int rod_calib_ensemble(const rod_scenario *fitted, const rod_calib_options *o,
                       const rod_calib_result *res, int n, uint64_t seed,
                       const char *dir, const rod_sweep_options *so,
                       rod_sweep_report *rep, rod_calib_band **band,
                       rod_error *err);

void rod_calib_band_free(rod_calib_band *b);

/* The [fit] section's lines of band b of data set `set` (1, 2, ...), like
 * snprintf: band_SET_columns naming the columns (t in s, then the mean,
 * 5 % and 95 % quantiles of x, y and z in m) and a line band_SET.NNNNN
 * per sample. */
size_t rod_calib_band_lines(const rod_calib_band *b, int set, char *buf,
                            size_t size);

/* Synthetic tip data: run sc and sample its tip at rate Hz from t = 0 to
 * time.duration (interpolated as the trajectory objective interpolates),
 * adding Gaussian noise of standard deviation `noise` (m) to each of the
 * coordinates in `coords` (x, y, z) from rod_random stream `seed`.
 * ROD_ENOCONV (err: the simulation's message) if the run fails. */
int rod_calib_synthesize(const rod_scenario *sc, double rate, double noise,
                         uint64_t seed, const bool coords[3],
                         rod_tip_data **out, rod_error *err);

/* Synthetic shape data: run sc and take its centreline at `points`
 * points of equal arclength (as the shape objective reads a run) at rate
 * Hz from t = 0 to time.duration, every frame valid, with Gaussian noise
 * of standard deviation `noise` (m) on x and z of every point but the
 * clamp's, from rod_random stream `seed`. ROD_ENOCONV if the run fails. */
int rod_calib_synthesize_shape(const rod_scenario *sc, double rate, int points,
                               double noise, uint64_t seed,
                               rod_shape_data **out, rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
