/* Time-dependent loads and base motion shared by both backends
 * (docs/scenario.md). */
#ifndef ROD_LOADS_H
#define ROD_LOADS_H

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

#endif
