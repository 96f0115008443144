#include "core/loads.h"

#include <math.h>
#include <string.h>

#include "core/v3.h"

double rod_impulse_force(const rod_scenario *sc, double t) {
  if (!sc->impulse.enabled)
    return 0.0;
  double d = sc->impulse.duration, tau = t - sc->impulse.start;
  if (tau <= 0 || tau >= d)
    return 0.0;
  double half = 0.5 * d;
  return sc->impulse.peak * (tau < half ? tau / half : 2.0 - tau / half);
}

void rod_motor_reference(const rod_scenario *sc, double t, double *angle,
                         double *rate) {
  *angle = 0.0;
  *rate = 0.0;
  if (!sc->motor.enabled)
    return;
  double tau = t - sc->motor.start, T = sc->motor.ramp;
  if (tau <= 0)
    return;
  if (tau >= T) {
    *angle = sc->motor.angle;
    return;
  }
  /* theta = A (1 - cos(pi tau / T)) / 2 */
  *angle = sc->motor.angle * 0.5 * (1.0 - cos(M_PI * tau / T));
  *rate = sc->motor.angle * 0.5 * M_PI / T * sin(M_PI * tau / T);
}

void rod_base_motion(const rod_scenario *sc, const rod_model *m, double t,
                     double h[4], double w_local[3]) {
  double angle, rate;
  rod_motor_reference(sc, t, &angle, &rate);
  if (!sc->motor.enabled) {
    for (int i = 0; i < 4; i++)
      h[i] = m->base_quat[i];
    v3_set(w_local, 0, 0, 0);
    return;
  }
  double axis[3], turn[4];
  v3_copy(axis, sc->motor.axis);
  v3_normalize(axis);
  quat_axis_angle(turn, axis, angle);
  quat_mul(h, turn, m->base_quat);
  /* the world angular velocity axis * rate in the clamp frame; a rotation
   * about the axis leaves the axis fixed, so R(t)^T a = R(0)^T a */
  double wa[3];
  m3_mul_tv(wa, m->base_R, axis);
  v3_scale(w_local, rate, wa);
}

void rod_drive_clear(rod_drive *d) { memset(d, 0, sizeof *d); }

void rod_tip_loads(const rod_scenario *sc, const rod_drive *d,
                   bool static_state, double F[3], double M[3]) {
  const bool set = d && d->tip;
  for (int i = 0; i < 3; i++) {
    F[i] = set ? d->tip_force[i] : sc->tip.force[i];
    M[i] = set ? d->tip_moment[i] : sc->tip.moment[i];
    if (static_state)
      F[i] += sc->tip.preload[i] + sc->tip.mass * sc->environment.gravity[i];
  }
}

void rod_base_state(const rod_scenario *sc, const rod_model *m,
                    const rod_drive *d, double t, double p[3], double h[4],
                    double q_local[3], double w_local[3]) {
  if (!(d && d->base)) {
    v3_copy(p, m->base_position);
    rod_base_motion(sc, m, t, h, w_local);
    v3_set(q_local, 0, 0, 0);
    return;
  }
  double R[9], n = 0;
  for (int i = 0; i < 4; i++)
    n += d->base_orientation[i] * d->base_orientation[i];
  n = sqrt(n);
  for (int i = 0; i < 4; i++)
    h[i] = d->base_orientation[i] / n;
  quat_to_R(R, h);
  v3_copy(p, d->base_position);
  m3_mul_tv(q_local, R, d->base_velocity);
  m3_mul_tv(w_local, R, d->base_angular_velocity);
}
