/* The loads and the clamp's motion at a time, from the scenario, its data
 * files and the drive set between steps (core/loads.h): the impulse's
 * force, the motor's reference, the tip loads, each [load.NAME] from its
 * table or ramp, and the clamp's pose, velocity and acceleration (its
 * motion table by a natural cubic spline, rotation rates from the
 * rotation vector). */
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
    if (static_state && sc->tip.release)
      F[i] += sc->tip.preload[i] + sc->tip.mass * sc->environment.gravity[i];
    else if (static_state)
      F[i] += sc->tip.preload[i];
  }
}

/* The first nc (<= 3) columns after the key of a table at time t, linear
 * between samples, zero outside [t_0, t_n]. */
static void table_lerp_cols(const rod_table *tab, double t, int nc,
                            double out[3]) {
  v3_set(out, 0, 0, 0);
  const int n = tab->rows;
  if (!(t >= rod_table_at(tab, 0, 0) && t <= rod_table_at(tab, n - 1, 0)))
    return;
  if (n == 1) {
    for (int c = 0; c < nc; c++)
      out[c] = rod_table_at(tab, 0, 1 + c);
    return;
  }
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (rod_table_at(tab, mid, 0) <= t)
      lo = mid;
    else
      hi = mid;
  }
  const double t0 = rod_table_at(tab, lo, 0), t1 = rod_table_at(tab, hi, 0);
  const double x = (t - t0) / (t1 - t0);
  for (int c = 0; c < nc; c++) {
    const double a = rod_table_at(tab, lo, 1 + c),
                 b = rod_table_at(tab, hi, 1 + c);
    out[c] = a + x * (b - a);
  }
}

/* Force and moment tables: three columns. */
static void table_lerp(const rod_table *tab, double t, double out[3]) {
  table_lerp_cols(tab, t, 3, out);
}

double rod_tendon_tension(const rod_scenario *sc, const rod_inputs *in,
                          const rod_drive *d, int i, double t) {
  if (d && d->tendon[i])
    return d->tendon_tension[i];
  const rod_table *tab = in ? in->tendon_tension[i] : NULL;
  if (!tab)
    return sc->tendons.item[i].tension;
  const int n = tab->rows;
  const double first = rod_table_at(tab, 0, 0);
  const double last = rod_table_at(tab, n - 1, 0);
  const double tc = fmin(fmax(t, first), last); /* held beyond the ends */
  double out[3];
  table_lerp_cols(tab, tc, 1, out);
  return out[0];
}

double rod_tendon_displacement(const rod_inputs *in, int i, double t) {
  const rod_table *tab = in ? in->tendon_displacement[i] : NULL;
  if (!tab)
    return 0.0;
  const double first = rod_table_at(tab, 0, 0);
  const double last = rod_table_at(tab, tab->rows - 1, 0);
  double out[3];
  table_lerp_cols(tab, fmin(fmax(t, first), last), 1, out);
  return out[0];
}

void rod_load_values(const rod_scenario *sc, const rod_inputs *in,
                     const rod_drive *d, int i, double t, double F[3],
                     double M[3]) {
  if (d && d->load[i]) {
    v3_copy(F, d->load_force[i]);
    v3_copy(M, d->load_moment[i]);
    return;
  }
  const rod_load_def *l = &sc->loads.item[i];
  const double tau = t - l->start;
  double ramp = tau < 0 ? 0.0 : 1.0;
  if (tau >= 0 && tau < l->ramp)
    ramp = tau / l->ramp;
  if (in && in->force[i])
    table_lerp(in->force[i], tau, F);
  else
    v3_scale(F, ramp, l->force);
  if (in && in->moment[i])
    table_lerp(in->moment[i], tau, M);
  else
    v3_scale(M, ramp, l->moment);
}

int rod_point_loads(const rod_scenario *sc, const rod_inputs *in,
                    const rod_drive *d, double t, bool static_state,
                    rod_point_load *out) {
  const double L = sc->rod.length;
  int n = 0;
  rod_point_load *p = &out[n++];
  p->source = ROD_POINT_TIP;
  p->s = L;
  p->tip = true;
  rod_tip_loads(sc, d, static_state, p->force, p->moment);
  if (sc->impulse.enabled) {
    p = &out[n++];
    p->source = ROD_POINT_IMPULSE;
    p->s = sc->impulse.position;
    p->tip = sc->impulse.position >= L;
    double dir[3];
    v3_copy(dir, sc->impulse.direction);
    v3_normalize(dir);
    v3_scale(p->force, rod_impulse_force(sc, t), dir);
    v3_set(p->moment, 0, 0, 0);
  }
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    p = &out[n++];
    p->source = i;
    p->s = a->tip ? L : a->s;
    p->tip = a->tip || a->s >= L;
    rod_load_values(sc, in, d, i, t, p->force, p->moment);
  }
  return n;
}

void rod_rotation_rate(const double r[3], const double r_t[3], double w[3]) {
  const double a = v3_norm(r);
  double c1, c2;  /* (1 - cos a) / a^2, (a - sin a) / a^3 */
  if (a < 1e-4) { /* their series: 1/2 - a^2/24, 1/6 - a^2/120 */
    c1 = 0.5 - a * a / 24.0;
    c2 = 1.0 / 6.0 - a * a / 120.0;
  } else {
    c1 = (1.0 - cos(a)) / (a * a);
    c2 = (a - sin(a)) / (a * a * a);
  }
  double rx[3], rrx[3];
  v3_cross(rx, r, r_t);
  v3_cross(rrx, r, rx);
  for (int k = 0; k < 3; k++)
    w[k] = r_t[k] + c1 * rx[k] + c2 * rrx[k];
}

void rod_rotation_accel(const double r[3], const double r_t[3],
                        const double r_tt[3], double w_t[3]) {
  const double a = v3_norm(r), a2 = a * a;
  double c2, d1, d2; /* c2 as above; dc1/da / a, dc2/da / a */
  if (a < 1e-2) {    /* their series, to a^4 */
    c2 = 1.0 / 6.0 - a2 / 120.0 + a2 * a2 / 5040.0;
    d1 = -1.0 / 12.0 + a2 / 180.0 - a2 * a2 / 6720.0;
    d2 = -1.0 / 60.0 + a2 / 1260.0 - a2 * a2 / 60480.0;
  } else {
    const double s = sin(a), c = cos(a);
    c2 = (a - s) / (a2 * a);
    d1 = (a * s - 2.0 * (1.0 - c)) / (a2 * a2);
    d2 = ((1.0 - c) * a - 3.0 * (a - s)) / (a2 * a2 * a);
  }
  const double rate = v3_dot(r, r_t);
  double rx[3], rrx[3], trx[3];
  v3_cross(rx, r, r_t);
  v3_cross(rrx, r, rx);
  v3_cross(trx, r_t, rx);
  rod_rotation_rate(r, r_tt, w_t);
  for (int k = 0; k < 3; k++)
    w_t[k] += d1 * rate * rx[k] + d2 * rate * rrx[k] + c2 * trx[k];
}

void rod_base_table(const rod_inputs *in, double t, double x[3], double v[3],
                    double a[3], double r[3], double r_t[3], double r_tt[3]) {
  const rod_table *tab = in->base;
  const int n = tab->rows;
  double val[6], d1[6] = {0}, d2[6] = {0};
  const double t_first = rod_table_at(tab, 0, 0);
  const double t_last = rod_table_at(tab, n - 1, 0);
  if (n == 1 || t <= t_first || t >= t_last) { /* held */
    const int row = n == 1 || t <= t_first ? 0 : n - 1;
    for (int c = 0; c < 6; c++)
      val[c] = rod_table_at(tab, row, 1 + c);
  } else {
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (rod_table_at(tab, mid, 0) <= t)
        lo = mid;
      else
        hi = mid;
    }
    const double t0 = rod_table_at(tab, lo, 0), t1 = rod_table_at(tab, hi, 0);
    const double h = t1 - t0, A = (t1 - t) / h, B = (t - t0) / h;
    for (int c = 0; c < 6; c++) {
      const double y0 = rod_table_at(tab, lo, 1 + c);
      const double y1 = rod_table_at(tab, hi, 1 + c);
      const double m0 = in->base_m[6 * lo + c], m1 = in->base_m[6 * hi + c];
      /* the cubic spline y = A y0 + B y1 + ((A^3 - A) m0 + (B^3 - B) m1)
       * h^2 / 6 and its derivatives */
      val[c] = A * y0 + B * y1 +
               ((A * A * A - A) * m0 + (B * B * B - B) * m1) * h * h / 6.0;
      d1[c] = (y1 - y0) / h - (3 * A * A - 1) * h / 6.0 * m0 +
              (3 * B * B - 1) * h / 6.0 * m1;
      d2[c] = A * m0 + B * m1;
    }
  }
  if (x)
    v3_copy(x, val);
  if (v)
    v3_copy(v, d1);
  if (a)
    v3_copy(a, d2);
  if (r)
    v3_copy(r, val + 3);
  if (r_t)
    v3_copy(r_t, d1 + 3);
  if (r_tt)
    v3_copy(r_tt, d2 + 3);
}

void rod_base_state(const rod_scenario *sc, const rod_model *m,
                    const rod_drive *d, const rod_inputs *in, double t,
                    double p[3], double h[4], double q_local[3],
                    double w_local[3]) {
  if (!(d && d->base) && in && in->base) {
    /* base.position + x(t); the rotation exp([r(t)]x) applied to R(0) in
     * the world frame, turning at w = T(r) r_t */
    double x[3], v[3], r[3], r_t[3], w[3], turn[4], R[9];
    rod_base_table(in, t, x, v, NULL, r, r_t, NULL);
    v3_add(p, m->base_position, x);
    const double angle = v3_norm(r);
    double axis[3] = {1, 0, 0};
    if (angle > 0)
      v3_scale(axis, 1.0 / angle, r);
    quat_axis_angle(turn, axis, angle);
    quat_mul(h, turn, m->base_quat);
    quat_to_R(R, h);
    rod_rotation_rate(r, r_t, w);
    m3_mul_tv(q_local, R, v);
    m3_mul_tv(w_local, R, w);
    return;
  }
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
