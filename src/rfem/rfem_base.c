/* The RFEM chain's moving clamp, along base.motion_file or set between
 * steps (rod_sim_set_base): the clamp's pose, velocity and acceleration at
 * time t become the chain's moving base (rod_chain_set_base), so the
 * articulated-body pass takes the clamp's spatial acceleration as the
 * root's prescribed motion (Featherstone 2008, sec. 5.3) and the joint
 * angles stay relative to the clamp. */
#include <math.h>
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem_base.h"

/* The base frame B of link 0 for a clamp at pc (m) turned by Rt (the
 * clamp's rotation R(t) = Rt R(0), row-major), with the clamp's velocity
 * vc (m/s) and acceleration ac (m/s^2), Rt's angular velocity w (1/s) and
 * acceleration wt (1/s^2), all world frame. Link 0's joint sits at
 * base.position of B, so B turns by Rt about the world origin and its
 * origin is pB = pc - Rt bp (bp = base.position): pB' = vc - w x rho and
 * pB'' = ac - wt x rho - w x (w x rho), rho = Rt bp. B's spatial velocity
 * and acceleration in its own coordinates are (Rt^T w, Rt^T pB') and
 * (Rt^T wt, Rt^T (pB'' - w x pB')) (Featherstone 2008, sec. 2.11). */
static void set_clamp(rod_rfem *r, const double pc[3], const double vc[3],
                      const double ac[3], const double Rt[9], const double w[3],
                      const double wt[3], double *sv_out) {
  double rho[3], pB[3], vB[3], aB[3], t1[3], t2[3], sv[6], sa[6];
  m3_mul_v(rho, Rt, r->model.base_position);
  v3_sub(pB, pc, rho);
  v3_cross(t1, w, rho);
  v3_sub(vB, vc, t1);
  v3_cross(t2, w, t1); /* w x (w x rho) */
  v3_cross(t1, wt, rho);
  v3_sub(aB, ac, t1);
  v3_sub(aB, aB, t2);
  v3_cross(t1, w, vB);
  v3_sub(aB, aB, t1);
  m3_mul_tv(sv, Rt, w);
  m3_mul_tv(sv + 3, Rt, vB);
  m3_mul_tv(sa, Rt, wt);
  m3_mul_tv(sa + 3, Rt, aB);
  if (sv_out)
    memcpy(sv_out, sv, sizeof sv);
  else
    rod_chain_set_base(r->chain, Rt, pB, sv, sa);
}

/* Rt = R R(0)^T, the turn of the clamp from its rest orientation. */
static void clamp_turn(const rod_rfem *r, const double R[9], double Rt[9]) {
  const double *R0 = r->model.base_R;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      Rt[3 * a + b] = R[3 * a] * R0[3 * b] + R[3 * a + 1] * R0[3 * b + 1] +
                      R[3 * a + 2] * R0[3 * b + 2];
}

/* The rotation exp([phi]x) (row-major). */
static void rotation_of(const double phi[3], double R[9]) {
  double h[4], axis[3] = {1, 0, 0};
  const double angle = v3_norm(phi);
  if (angle > 0)
    v3_scale(axis, 1.0 / angle, phi);
  quat_axis_angle(h, axis, angle);
  quat_to_R(R, h);
}

/* The clamp of base.motion_file at time t, or the fixed clamp. */
static void table_clamp(const rod_rfem *r, double t, rfem_clamp *c) {
  v3_copy(c->p, r->model.base_position);
  memcpy(c->R, r->model.base_R, sizeof c->R);
  v3_set(c->v, 0, 0, 0);
  v3_set(c->w, 0, 0, 0);
  if (!(r->inputs && r->inputs->base))
    return;
  double x[3], rv[3], r_t[3], Rt[9];
  rod_base_table(r->inputs, t, x, c->v, NULL, rv, r_t, NULL);
  v3_add(c->p, c->p, x);
  rod_rotation_rate(rv, r_t, c->w);
  rotation_of(rv, Rt);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      c->R[3 * a + b] = Rt[3 * a] * r->model.base_R[b] +
                        Rt[3 * a + 1] * r->model.base_R[3 + b] +
                        Rt[3 * a + 2] * r->model.base_R[6 + b];
}

/* The clamp the drive sets (its quaternion normalised by the setter). */
static void drive_clamp(const rod_drive *d, rfem_clamp *c) {
  v3_copy(c->p, d->base_position);
  quat_to_R(c->R, d->base_orientation);
  v3_copy(c->v, d->base_velocity);
  v3_copy(c->w, d->base_angular_velocity);
}

/* The rotation vector phi of R (angle in [0, pi]). */
static void rotation_vector(const double R[9], double phi[3]) {
  double h[4];
  R_to_quat(h, R);
  if (h[0] < 0)
    for (int i = 0; i < 4; i++)
      h[i] = -h[i];
  const double s = v3_norm(h + 1), angle = 2.0 * atan2(s, h[0]);
  v3_scale(phi, s > 0 ? angle / s : 2.0, h + 1);
}

/* T(phi)^-1 w: the rate of phi for the angular velocity w = T(phi) phi_t,
 * T^-1 = I - [phi]x / 2 + (1/a^2 - (1 + cos a) / (2 a sin a)) [phi]x^2. */
static void rotation_rate_inverse(const double phi[3], const double w[3],
                                  double phi_t[3]) {
  const double a = v3_norm(phi);
  const double c = a < 1e-2 ? 1.0 / 12.0 + a * a / 720.0
                            : 1.0 / (a * a) - (1 + cos(a)) / (2 * a * sin(a));
  double px[3], ppx[3];
  v3_cross(px, phi, w);
  v3_cross(ppx, phi, px);
  for (int k = 0; k < 3; k++)
    phi_t[k] = w[k] - 0.5 * px[k] + c * ppx[k];
}

/* Cubic Hermite y(tau) through y0, y1 with slopes m0, m1 (per unit of t,
 * over a step h), tau = (t - t0) / h: y, y_t, y_tt. */
static void hermite(const double y0[3], const double m0[3], const double y1[3],
                    const double m1[3], double h, double tau, double y[3],
                    double yt[3], double ytt[3]) {
  const double t2 = tau * tau, t3 = t2 * tau;
  for (int k = 0; k < 3; k++) {
    y[k] = (2 * t3 - 3 * t2 + 1) * y0[k] + (t3 - 2 * t2 + tau) * h * m0[k] +
           (3 * t2 - 2 * t3) * y1[k] + (t3 - t2) * h * m1[k];
    yt[k] = ((6 * t2 - 6 * tau) * (y0[k] - y1[k])) / h +
            (3 * t2 - 4 * tau + 1) * m0[k] + (3 * t2 - 2 * tau) * m1[k];
    ytt[k] = ((12 * tau - 6) * (y0[k] - y1[k])) / (h * h) +
             ((6 * tau - 4) * m0[k] + (6 * tau - 2) * m1[k]) / h;
  }
}

/* The clamp over the step [drive_t0, drive_t1] from clamp_from to
 * clamp_to: the position by cubic Hermite interpolation of the ends'
 * positions and velocities, the turn R = exp([phi]x) R_from with phi cubic
 * Hermite from 0 (rate w_from) to log(R_to R_from^T) (rate T^-1 w_to), so
 * both ends' poses and velocities are met and the acceleration is
 * continuous within the step. */
static void place_driven(rod_rfem *r, double t) {
  const rfem_clamp *c0 = &r->clamp_from, *c1 = &r->clamp_to;
  const double h = r->drive_t1 - r->drive_t0;
  const double tau = fmin(1.0, fmax(0.0, (t - r->drive_t0) / h));
  double Rrel[9], phi1[3], phi1_t[3], zero[3] = {0, 0, 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      Rrel[3 * a + b] = c1->R[3 * a] * c0->R[3 * b] +
                        c1->R[3 * a + 1] * c0->R[3 * b + 1] +
                        c1->R[3 * a + 2] * c0->R[3 * b + 2];
  rotation_vector(Rrel, phi1);
  rotation_rate_inverse(phi1, c1->w, phi1_t);
  double p[3], v[3], acc[3], phi[3], phi_t[3], phi_tt[3], w[3], wt[3];
  hermite(c0->p, c0->v, c1->p, c1->v, h, tau, p, v, acc);
  hermite(zero, c0->w, phi1, phi1_t, h, tau, phi, phi_t, phi_tt);
  rod_rotation_rate(phi, phi_t, w);
  rod_rotation_accel(phi, phi_t, phi_tt, wt);
  double E[9], R[9], Rt[9];
  rotation_of(phi, E);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      R[3 * a + b] = E[3 * a] * c0->R[b] + E[3 * a + 1] * c0->R[3 + b] +
                     E[3 * a + 2] * c0->R[6 + b];
  clamp_turn(r, R, Rt);
  set_clamp(r, p, v, acc, Rt, w, wt, NULL);
}

/* A clamp held at c, at rest or moving at its velocities (no
 * acceleration). */
static void place_clamp(rod_rfem *r, const rfem_clamp *c, bool at_rest) {
  const double zero[3] = {0, 0, 0};
  double Rt[9];
  clamp_turn(r, c->R, Rt);
  set_clamp(r, c->p, at_rest ? zero : c->v, zero, Rt, at_rest ? zero : c->w,
            zero, NULL);
}

void rfem_drive_step(rod_rfem *r, double t1) {
  if (!r->clamp_known)
    table_clamp(r, r->t, &r->clamp_from);
  else if (r->drive_t1 > r->drive_t0 && r->t >= r->drive_t1)
    r->clamp_from = r->clamp_to; /* the last step was taken */
  r->clamp_known = true;
  drive_clamp(&r->drive, &r->clamp_to);
  r->drive_t0 = r->t;
  r->drive_t1 = t1;
}

void rfem_drive_static(rod_rfem *r) {
  drive_clamp(&r->drive, &r->clamp_from);
  v3_set(r->clamp_from.v, 0, 0, 0);
  v3_set(r->clamp_from.w, 0, 0, 0);
  r->clamp_known = true;
  r->drive_t1 = r->drive_t0;
}

void rfem_drive_set(rod_rfem *r) {
  if (!r->clamp_known)
    table_clamp(r, r->t, &r->clamp_from);
  r->clamp_known = true;
}

/* The time at which the table's rates are taken for the state at t: t,
 * but where the held table's velocity jumps (its first and last time,
 * where rfem_step splits) the limit from inside the integration segment
 * [seg_lo, seg_hi]. */
static double rate_time(const rod_rfem *r, double t) {
  const rod_table *tab = r->inputs->base;
  const double first = rod_table_at(tab, 0, 0);
  const double last = rod_table_at(tab, tab->rows - 1, 0);
  const double nudge = 1e-9 * r->sc.time.dt;
  if (t >= last && r->seg_hi <= last)
    return last - nudge;
  if (t <= first && r->seg_lo >= first)
    return first + nudge;
  return t;
}

/* The base at the table's pose at t with its rates at tr (NAN: at rest);
 * the base's spatial velocity (base coordinates) into sv when not NULL,
 * which leaves the chain's base alone. */
static void place_table(rod_rfem *r, double t, double tr, double *sv) {
  double x[3], v[3] = {0}, a[3] = {0}, rv[3], r_t[3] = {0}, r_tt[3] = {0};
  rod_base_table(r->inputs, t, x, NULL, NULL, rv, NULL, NULL);
  if (!isnan(tr))
    rod_base_table(r->inputs, tr, NULL, v, a, NULL, r_t, r_tt);
  double w[3], wt[3], pc[3], Rt[9];
  rod_rotation_rate(rv, r_t, w);
  rod_rotation_accel(rv, r_t, r_tt, wt);
  rotation_of(rv, Rt);
  v3_add(pc, r->model.base_position, x);
  set_clamp(r, pc, v, a, Rt, w, wt, sv);
}

void rfem_place_base(rod_rfem *r, double t, bool at_rest) {
  if (r->drive.base) {
    if (at_rest) {
      rfem_clamp c;
      drive_clamp(&r->drive, &c);
      place_clamp(r, &c, true);
    } else if (r->drive_t1 > r->drive_t0) {
      place_driven(r, t);
    } else { /* no step yet: where the static state left it */
      place_clamp(r, &r->clamp_from, false);
    }
    return;
  }
  if (r->inputs && r->inputs->base)
    place_table(r, t, at_rest ? NAN : rate_time(r, t), NULL);
}

/* A jump dv of the base's spatial velocity (base coordinates) is an
 * impulse through the clamp: the free joints' generalized momentum is kept
 * (the springs, dampers and loads are finite), so their rates jump by x
 * with M_ff x = -tau, tau the inverse dynamics of the base accelerating at
 * dv with the joints held (no gravity, no velocity). */
static void velocity_impulse(rod_rfem *r, double t, const double dv[6]) {
  rod_chain *c = r->chain;
  const double zero[3] = {0, 0, 0};
  double x[3], rv[3], Rt[9], rho[3], pB[3]; /* the base's pose (set_clamp) */
  rod_base_table(r->inputs, t, x, NULL, NULL, rv, NULL, NULL);
  rotation_of(rv, Rt);
  m3_mul_v(rho, Rt, r->model.base_position);
  v3_add(pB, r->model.base_position, x);
  v3_sub(pB, pB, rho);
  rod_chain_set_gravity(c, zero);
  rod_chain_set_base(c, Rt, pB, NULL, dv);
  rod_chain_update(c, r->q, NULL);
  memset(r->full, 0, (size_t)r->nlinks * sizeof(double));
  rod_chain_rnea(c, r->full, NULL, r->tau2);
  for (int i = 0; i < r->nlinks; i++)
    r->tau2[i] = -r->tau2[i];
  rod_chain_solve_mass(c, NULL, r->tau2, r->full);
  for (int i = r->first_free; i < r->nlinks; i++)
    r->v[i] += r->full[i];
  rod_chain_set_gravity(c, r->sc.environment.gravity);
}

void rfem_base_jump(rod_rfem *r, double t, bool from_rest) {
  if (!(r->inputs && r->inputs->base) || r->drive.base)
    return;
  const double nudge = 1e-9 * r->sc.time.dt;
  double before[6] = {0}, after[6], dv[6];
  bool jump = false;
  if (!from_rest)
    place_table(r, t, t - nudge, before);
  place_table(r, t, t + nudge, after);
  for (int k = 0; k < 6; k++) {
    dv[k] = after[k] - before[k];
    jump = jump || dv[k] != 0;
  }
  if (jump)
    velocity_impulse(r, t, dv);
  place_table(r, t, t + nudge, NULL); /* the chain's base after it */
}
