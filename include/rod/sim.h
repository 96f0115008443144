/* The simulation (docs/embedding.md): an opaque rod_sim made from a
 * scenario, solved for its static state (t = 0), then advanced in time
 * steps, with loads and the clamp's motion settable between steps and the
 * state copied out into the caller's arrays. The rodsim commands (run,
 * static, bench, compare, calibrate) drive the same object.
 *
 *   rod_sim *sim;
 *   if (rod_sim_create_file("rod.ini", &sim, &err) != ROD_OK) ...
 *   rod_sim_static(sim);
 *   while (rod_sim_time(sim) < 1.0) {
 *     rod_sim_set_tip_load(sim, force, NULL);
 *     if (rod_sim_step(sim) != ROD_OK) { puts(rod_sim_error(sim)); ... }
 *     rod_sim_get_positions(sim, xyz);     (points x 3 doubles)
 *   }
 *   rod_sim_free(sim);
 *
 * Functions that can fail return a rod_status; rod_sim_error gives the
 * one-line message of the last failure. The library never prints. Every
 * function checks its handle: a NULL sim gives ROD_EINVAL (rod_sim_time
 * NaN, rod_sim_points 0, rod_sim_error a message). The
 * samples, their effort and the sink that takes them are in rod/sample.h
 * (included here), with the sampling plan (rod_sim_step_count,
 * rod_sim_sample_count). */
#ifndef ROD_SIM_H
#define ROD_SIM_H

#include <stdbool.h>

#include "rod/sample.h"
#include "rod/scenario.h"
#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the static state was found and whether it is stable. */
typedef struct {
  int stable;     /* 1 stable, 0 unstable (no stable state found), -1 not
                     checked */
  int index;      /* directions in which the state is unstable */
  int path_steps; /* steps of load continuation (0: one direct solve) */
  int folds;      /* turning points of the load passed on the way */
  char note[224]; /* what the user should know (which of several states
                     was taken, a fold passed, why it is unstable), or "" */
} rod_static_report;

/* Statistics and status of a simulation so far. */
typedef struct {
  int status;          /* ROD_OK, or why the simulation stopped */
  int steps;           /* dynamic steps completed */
  int samples;         /* samples delivered to the sink */
  double time;         /* s, simulated time reached */
  double wall_time;    /* s, of the whole run (static included) */
  double step_wall;    /* s, of the dynamic steps only */
  long iterations;     /* summed over dynamic steps */
  double integrations; /* summed over dynamic steps */
  int fallbacks;       /* steps that needed a fallback method */
  int rejected;        /* step attempts the controller rejected
                          (time.tolerance) or retried smaller after a
                          failed solve */
  int over_tolerance;  /* steps accepted above time.tolerance because no
                          smaller step could be solved */
  double max_residual;
  rod_step_stats last; /* the last step (or the static solve) */
  /* The energy balance (a watch, docs/numerics.md): with nothing working
   * on the rod, its mechanical energy grew, from energy_before to
   * energy_after (J) by energy_time (s). Needs samples (a sink), and no
   * loads set between steps. */
  bool energy_grew;
  double energy_before, energy_after, energy_time;
  rod_static_report statics; /* the static solve's report */
  /* The first sampled dynamic state that cannot be (the rod passes
   * through itself, ...; docs/numerics.md, the guard), and its time (s);
   * "" if none. */
  char implausible[192];
  double implausible_time;
  /* The run's estimate of its largest tip error (time.error_estimate,
   * docs/numerics.md): m, -1 when the run makes none; the tip's motion,
   * the largest distance of the tip from its place at t = 0 (m); the time
   * up to which the estimate holds (s: the run's time, or earlier when
   * the companion solution failed); the time.dt that would bring the
   * estimate to 1% of the motion (s; time.dt itself when it is within, or
   * within a millionth of the rod's length, or under time.tolerance); under
   * time.tolerance the time.tolerance that would (m; the tolerance itself
   * when it is within; 0 without time.tolerance). */
  double error_estimate;
  double tip_motion;
  double error_estimate_until;
  double error_estimate_dt;
  double error_estimate_tolerance;
  char message[256]; /* why the simulation stopped, when it did */
} rod_sim_result;

typedef struct rod_sim rod_sim;

/* ---- creation ---------------------------------------------------------- */

/* A simulation of a copy of sc, after rod_scenario_validate; nothing is
 * solved yet. ROD_EINVAL (or ROD_EUNSUPPORTED) with err = {file, key, why}
 * as the loader gives it for a bad scenario; ROD_ENOMEM. err may be NULL;
 * on failure *out is NULL. */
int rod_sim_create(const rod_scenario *sc, rod_sim **out, rod_error *err);

/* The same from an INI file, or from INI text (name labels messages;
 * NULL: "scenario"). */
int rod_sim_create_file(const char *path, rod_sim **out, rod_error *err);
int rod_sim_create_string(const char *ini, const char *name, rod_sim **out,
                          rod_error *err);

/* Free sim; with an output file open, its last samples and status are
 * written first: "complete" when the run reached its end (time.duration),
 * else "interrupted at t = T s, before the end (time.duration = D s)" (or
 * the failure). NULL is a no-op. */
void rod_sim_free(rod_sim *sim);

/* The simulation's scenario (read only; the loads set between steps are
 * not written into it). */
const rod_scenario *rod_sim_scenario(const rod_sim *sim);

/* The backend's name: "kirchhoff" or "rfem" (solver.backend). */
const char *rod_sim_backend(const rod_sim *sim);

/* "FILE: KEY: MESSAGE" of the last failure of sim ("" when none). Valid
 * until the next call on sim. */
const char *rod_sim_error(const rod_sim *sim);

/* The same as a rod_error. */
void rod_sim_get_error(const rod_sim *sim, rod_error *err);

/* ---- where samples go -------------------------------------------------- */

/* Samples (t = 0, every output.every steps, the last step) go to sink as
 * they are taken; NULL removes it. Set before rod_sim_static to receive
 * the t = 0 sample. A sink replaced that has a close (an output opened by
 * rod_sim_open_output) is closed first, as by rod_sim_close_output(sim,
 * NULL). */
void rod_sim_set_sink(rod_sim *sim, const rod_sim_sink *sink);

/* Deliver the last step taken to the sink when it fell between output
 * samples (the run's last sample, docs/hdf5.md). */
int rod_sim_flush(rod_sim *sim);

/* output.every = auto (0) samples every step for a sink. For a file it
 * becomes the steps between samples that keep the file within 100 MB
 * before compression (rod_logger_every), fixed from this call on: returns
 * output.every. rod_sim_open_output calls it; a caller writing a file
 * through a sink of its own calls it before the first step. */
int rod_sim_output_every(rod_sim *sim);

/* Write the samples to an HDF5 file (docs/hdf5.md) at path (NULL: the
 * scenario's output.file), created now: ROD_EIO with the error naming the
 * file when it cannot be (also while another writer holds it: the error
 * names its pid), ROD_EINVAL when path holds a file rodsim did not write
 * (an empty one is replaced) or one the scenario reads (docs/files.md,
 * "Output files"). Replaces the sink (an open output is closed as by
 * rod_sim_free: interrupted before the end). output.every = auto: see
 * rod_sim_output_every. */
int rod_sim_open_output(rod_sim *sim, const char *path);

/* Write the pending last step and the file's status: "complete" when
 * status is NULL and the simulation has not failed, else status or the
 * failure (a caller that stops early says why: "interrupted", ...). Then
 * close the file. ROD_EIO if the file could not be written
 * completely (the error says so). No output open: ROD_OK. The same for
 * any sink with a close (rod/sample.h): it gets that status and is
 * removed. */
int rod_sim_close_output(rod_sim *sim, const char *status);

/* What the last output closed warns about without failing, or "": its
 * XDMF description (output.xdmf) was not written, e.g. a file of that
 * name that rodsim did not write is in the way (`rodsim export FILE.h5
 * --xdmf -o OTHER.xdmf` writes one later). Cleared when an output is
 * opened. The text stays valid until the next call on sim. */
const char *rod_sim_warning(const rod_sim *sim);

/* ---- solving ----------------------------------------------------------- */

/* The static equilibrium under the loads at t = 0 (docs/scenario.md, the
 * static state): the state at t = 0. ROD_ENOCONV if it does not converge,
 * or if its state is not finite (then nothing is written). Solved once,
 * before the first step: ROD_EINVAL after a step, and again once its
 * sample went to a sink (the clock would go back). Before that it may be
 * called again after loads or tensions were set, each time the state a
 * new simulation under them would have, bit for bit (a model a controller
 * asks: examples/tendon_circle.c). */
int rod_sim_static(rod_sim *sim);

/* How far rod_sim_static has come, for a progress line: called from
 * another thread while it runs, the share of the loads its loading path
 * has reached (0 to 1; the loads grow from the unloaded rod,
 * docs/numerics.md, Statics), -1 while it is on no path (the direct
 * solve, or the contact problem at the full loads) or when the backend
 * does not tell; 1 once solved. Safe to call from any thread while sim
 * exists. NULL: -1. */
double rod_sim_static_progress(const rod_sim *sim);

/* One time step of time.dt, or with time.tolerance one step of the size
 * the error estimate chooses (at most time.dt; rejected attempts are
 * retried inside), solving the static state first if it was not.
 * ROD_ENOCONV when it fails after every fallback, or converges to a state
 * that is not finite (loads or a step beyond what the solver resolves;
 * nothing of it is written): the state stays at the last converged step
 * and later steps are refused. */
int rod_sim_step(rod_sim *sim);

/* Steps until the time reaches t (s): the first step time at or after t
 * (within 1e-9 dt). Sink progress reports go from here. ROD_EINVAL for a
 * t that is not finite or needs more steps than an int counts. */
int rod_sim_advance_to(rod_sim *sim, double t);

/* Current simulated time (s): 0 at the static state. */
double rod_sim_time(const rod_sim *sim);

/* The largest magnitude of a value set between steps (loads, the clamp's
 * pose and velocities): its square and a sum of three squares stay
 * finite. Beyond it, and for values that are not finite, ROD_EINVAL. */
#define ROD_SIM_MAX_INPUT 1e150

/* The estimate of the largest tip error since t = 0 (m; -1 when the run
 * makes none: time.error_estimate off, time.tolerance, before the first
 * step). The same as rod_sim_result.error_estimate. */
double rod_sim_error_estimate(const rod_sim *sim);

/* ---- loads and the clamp's motion between steps -------------------------
 * Each setter replaces that load's scenario value (constant, ramp or
 * table) from the next solve on: the next step, or the static solve when
 * called before it. Dead loads, world frame. */

/* Tip force (N) and moment (N m); NULL for zero. Replaces tip.force; the
 * static state still adds tip.preload and the tip mass. */
int rod_sim_set_tip_load(rod_sim *sim, const double force[3],
                         const double moment[3]);

/* Force (N) and moment (N m) of the point load [load.NAME]; NULL for zero.
 * ROD_EINVAL when the scenario has no such section. */
int rod_sim_set_load(rod_sim *sim, const char *name, const double force[3],
                     const double moment[3]);

/* Tension (N, >= 0) of the tendon [tendon.NAME] (docs/tendons.md);
 * replaces its tension or tension_file. ROD_EINVAL when the scenario has
 * no such section, the tension is negative or not finite, or the tendon
 * is displacement-controlled (its tension follows from its motor's
 * displacement_file). */
int rod_sim_set_tendon(rod_sim *sim, const char *name, double tension);

/* The tendon [tendon.NAME] in the current state: its tension (N) and its
 * length along its routing from start to end (m); either may be NULL.
 * ROD_EINVAL when the scenario has no such section. */
int rod_sim_get_tendon(rod_sim *sim, const char *name, double *tension,
                       double *length);

/* The clamp (s = 0) at the end of the next step: position (m, world) and
 * orientation (unit quaternion w x y z of the material frame R(0), d3 the
 * tangent), with its velocity (m/s) and angular velocity (rad/s), world
 * frame. velocity or angular_velocity NULL: the change from the current
 * pose over time.dt (backward difference, first order in dt: give them
 * when known). Replaces base.position, base.direction and [motor]. The
 * rfem backend moves its chain's base over the step along the cubic
 * Hermite interpolation of the clamp's poses and velocities at the step's
 * ends; ROD_EUNSUPPORTED there with [motor] or contact bodies. */
int rod_sim_set_base(rod_sim *sim, const double position[3],
                     const double orientation[4], const double velocity[3],
                     const double angular_velocity[3]);

/* ---- the state, copied into the caller's arrays ------------------------ */

/* Points along the rod: Kirchhoff: space.nodes; RFEM: segments + 2 (the
 * clamp, the joints, the tip). Known from creation on. */
int rod_sim_points(const rod_sim *sim);

/* Arclength of each point (m, points); positions (m, points x 3) and
 * velocities (m/s, points x 3) in the world frame; orientations (unit
 * quaternions w x y z, points x 4); internal forces (N) and moments (N m)
 * (points x 3, world frame). Row-major: point i is out[3 i + 0..2]. Before
 * the static solve: ROD_EINVAL. */
int rod_sim_get_arclength(rod_sim *sim, double *out);
int rod_sim_get_positions(rod_sim *sim, double *out);
int rod_sim_get_orientations(rod_sim *sim, double *out);
int rod_sim_get_velocities(rod_sim *sim, double *out);
int rod_sim_get_forces(rod_sim *sim, double *out);
int rod_sim_get_moments(rod_sim *sim, double *out);

/* Kinetic, elastic and gravity energy of the rod (J): out[0..2]. */
int rod_sim_get_energies(rod_sim *sim, double out[3]);

/* Statistics so far (steps, iterations, the last step's, ...). */
void rod_sim_get_result(const rod_sim *sim, rod_sim_result *out);

/* One statistic by name, for bindings that do not see rod_sim_result's
 * layout: "time", "steps", "samples", "iterations", "integrations",
 * "fallbacks", "max_residual", "wall_time", "step_wall", the last step's
 * (or the static solve's) "last_iterations", "last_integrations",
 * "last_residual", "last_method", "status", and the run's error estimate:
 * "error_estimate", "tip_motion", "error_estimate_dt",
 * "error_estimate_tolerance" (rod_sim_result).
 * ROD_EINVAL for another name. */
int rod_sim_get_stat(const rod_sim *sim, const char *name, double *value);

/* ---- all in one -------------------------------------------------------- */

/* Static solve then time.duration / time.dt steps; samples to sink (may be
 * NULL). static_only stops after the t = 0 sample. res gets the statistics
 * and, when the run stopped early, why. */
int rod_sim_run(const rod_scenario *sc, const rod_sim_sink *sink,
                bool static_only, rod_sim_result *res, rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
