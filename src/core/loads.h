/* Time-dependent loads and base motion shared by both backends
 * (docs/scenario.md). */
#ifndef ROD_LOADS_H
#define ROD_LOADS_H

#include <stdbool.h>

#include "core/drive.h"
#include "core/model.h"
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
 * state adds
 * tip.preload and the weight of tip.mass (released at t = 0+). d may be
 * NULL. */
void rod_tip_loads(const rod_scenario *sc, const rod_drive *d,
                   bool static_state, double F[3], double M[3]);

/* The clamp at time t: position p(0) (m, world), orientation h (quaternion
 * w x y z of R(0)), and its velocity q(0) (m/s) and angular velocity w(0)
 * (1/s), both in the clamp's own frame (R(0)^T times the world vectors):
 * the drive's pose when set, else base.position and the motor's motion of
 * rod_base_motion. d may be NULL. */
void rod_base_state(const rod_scenario *sc, const rod_model *m,
                    const rod_drive *d, double t, double p[3], double h[4],
                    double q_local[3], double w_local[3]);

#endif
