/* The scenario's loads at a time, shared by both backends
 * (docs/scenario.md): the point loads on the rod (tip loads, the impulse,
 * each [load.NAME] from its table, ramp or the drive), which each backend
 * puts on its own discretisation (the Kirchhoff rod's grid nodes,
 * kirchhoff_loads.c; the chain's elements, rfem_loads.c), and the clamp's
 * prescribed motion. The distributed loads (gravity, drag) are the
 * model's (core/model.h). */
#ifndef ROD_LOADS_H
#define ROD_LOADS_H

#include <stdbool.h>

#include "core/drive.h"
#include "core/model.h"
#include "core/tables.h"
#include "rod/scenario.h"

/* Magnitude (N) of the hat-shaped impulse at time t (Till & Rucker 2017,
 * III.B): rises linearly to the peak over duration/2, falls to 0 over
 * duration/2; 0 when [impulse] is off. */
double rod_impulse_force(const rod_scenario *sc, double t);

/* Reference angle (rad) and its rate (rad/s) of the motor at time t: 0 before
 * start, a cosine ramp to motor.angle over motor.ramp, then constant. Zero
 * when [motor] is off. */
void rod_motor_reference(const rod_scenario *sc, double t, double *angle,
                         double *rate);

/* Clamp orientation (quaternion w x y z) and angular velocity in the local
 * frame (1/s) at time t for a prescribed motor (or the fixed clamp). */
void rod_base_motion(const rod_scenario *sc, const rod_model *m, double t,
                     double h[4], double w_local[3]);

/* Tip force F (N) and moment M (N m), world frame, dead loads, at a
 * solve: the drive's when set, else tip.force and tip.moment; the static
 * state adds tip.preload and the weight of a tip.mass released at t = 0+
 * (an attached tip body's weight and inertia are the backend's: they act
 * at its centre). d may be NULL. */
void rod_tip_loads(const rod_scenario *sc, const rod_drive *d,
                   bool static_state, double F[3], double M[3]);

/* The clamp at time t: position p(0) (m, world), orientation h (quaternion
 * w x y z of R(0)), and its velocity q(0) (m/s) and angular velocity w(0)
 * (1/s), both in the clamp's own frame (R(0)^T times the world vectors):
 * the drive's pose when set, else base.motion_file's (in; may be NULL),
 * else base.position and the motor's motion of rod_base_motion. d may be
 * NULL. */
void rod_base_state(const rod_scenario *sc, const rod_model *m,
                    const rod_drive *d, const rod_inputs *in, double t,
                    double p[3], double h[4], double q_local[3],
                    double w_local[3]);

/* The clamp's motion of base.motion_file at time t (s), world frame:
 * displacement x (m) from base.position, velocity v (m/s) and acceleration
 * a (m/s^2) of the cubic splines, and the rotation vector r (rad) with its
 * rate r_t (rad/s) and second derivative r_tt (rad/s^2); held (rates zero)
 * before the first and after the last time. Any output may be NULL. */
void rod_base_table(const rod_inputs *in, double t, double x[3], double v[3],
                    double a[3], double r[3], double r_t[3], double r_tt[3]);

/* The world angular velocity w (1/s) of the rotation exp([r]x) whose
 * rotation vector r changes at the rate r_t: w = T(r) r_t, T = I + (1 -
 * cos a) / a^2 [r]x + (a - sin a) / a^3 [r]x^2, a = |r|. */
void rod_rotation_rate(const double r[3], const double r_t[3], double w[3]);

/* The world angular acceleration w_t (1/s^2) of that rotation when r also
 * changes at the second rate r_tt: w_t = T(r) r_tt + (dT/dt) r_t, dT/dt r_t
 * = c1' (r x r_t) + c2' r x (r x r_t) + c2 r_t x (r x r_t), c1 = (1 - cos
 * a) / a^2, c2 = (a - sin a) / a^3 and their rates c' = (dc/da / a) (r .
 * r_t). */
void rod_rotation_accel(const double r[3], const double r_t[3],
                        const double r_tt[3], double w_t[3]);

/* Force F (N) and moment M (N m), world frame, of [load.NAME] number i at
 * time t: the drive's when set, else its table (force_file, moment_file:
 * linear between samples, times from start, zero outside) or its constant
 * force and moment times the ramp (zero before start, linear to full over
 * ramp). in may be NULL when the load has no table. */
/* The tension of tendon i at time t (N): what d sets, else its table
 * (linear between samples, held beyond its ends), else its constant. */
double rod_tendon_tension(const rod_scenario *sc, const rod_inputs *in,
                          const rod_drive *d, int i, double t);
/* The length tendon i's motor has pulled in at time t (m, its
 * displacement_file: linear between samples, held beyond its ends; 0
 * without one). */
double rod_tendon_displacement(const rod_inputs *in, int i, double t);

void rod_load_values(const rod_scenario *sc, const rod_inputs *in,
                     const rod_drive *d, int i, double t, double F[3],
                     double M[3]);

/* One point load on the rod at a time: where it acts and its force and
 * moment, world frame. */
typedef struct {
  int source;       /* ROD_POINT_TIP, ROD_POINT_IMPULSE, or the index of
                       its [load.NAME] (0, 1, ..) */
  double s;         /* m: the arclength it acts at (the tip's: L) */
  bool tip;         /* it acts at the tip (s >= L or the load's "tip") */
  double force[3];  /* N */
  double moment[3]; /* N m */
} rod_point_load;

enum { ROD_POINT_TIP = -1, ROD_POINT_IMPULSE = -2 };
enum { ROD_MAX_POINT_LOADS = ROD_MAX_LOADS + 2 };

/* The point loads at time t into out (at most ROD_MAX_POINT_LOADS), in
 * this order: the tip loads (rod_tip_loads), the impulse (when [impulse]
 * is on: rod_impulse_force along its unit direction, zero outside its
 * duration), each [load.NAME] (rod_load_values); returns how many. A
 * backend adds them up in this order. in and d may be NULL as in
 * rod_load_values and rod_tip_loads. */
int rod_point_loads(const rod_scenario *sc, const rod_inputs *in,
                    const rod_drive *d, double t, bool static_state,
                    rod_point_load *out);

#endif
