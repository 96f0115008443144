/* The time-discretised rod ODE in arclength (Till & Rucker 2017, eq. 4 in the
 * n-m form of docs/numerics.md) and its tangent (variational) equations.
 *
 * State y (16): quaternion h (4), internal force n (3, world, N), internal
 * moment m (3, world, N m), velocity q (3, local, m/s), angular velocity w *
 * (3, local, 1/s). Quadratures follow the states (rod/spatial.h): the position
 * p (3, world, m) from p_s = R v, the kinetic and elastic energies (J), and int
 * s g.p_s ds, from which the gravity energy follows by parts.
 *
 * With the history of the BDF-alpha formula folded into per-point data
 * (q_t = c0 q + Q, v_t = c0 v + V, w_t = c0 w + W, and for the curvature,
 * kept as its departure from the precurvature u* (constant in time),
 * u_t = c0 (u - u*) + U):
 *   u   = u* + (K + c0 B)^-1 (R^T m - B U)           = u* + ki .* R^T m + au
 *   v   = (Kse + c0 Bse)^-1 (R^T n + Kse e3 - Bse V) = kse .* R^T n + av
 *         (Kirchhoff: v = e3)
 *   h_s = F1(h, u)
 *   n_s = R [rhoA (w x q + c0 q + Q) + D(q)] - rhoA g - fbar
 *   m_s = -p_s x n + R [rhoJ .* (c0 w + W) + w x (rhoJ .* w)],  p_s = R v
 *   q_s = v_t - u x q + w x v
 *   w_s = c0 (u - u*) + U - u x w
 * with the drag D(q) = C q.*|q| (the paper's) or C_n |q_perp| q_perp +
 * C_t |q_3| q_3 (normal), and the cross-section's rotary inertia rhoJ =
 * rho (I, I, J) of d/dt(R rho J w), zero when it is neglected as in the
 * paper (II). u* enters per point (rod_rhs_point), so it may vary along s;
 * in this n-m form its derivative u*_s needs no term of its own (it is in
 * the history's s-derivatives of u - u*), and a precurved rod at rest is an
 * exact fixed point of the step (u - u* and its history vanish exactly).
 * Statics is the same system with c0 = 0 and zero history, q = w = 0. */
#ifndef ROD_RHS_H
#define ROD_RHS_H

#include "core/v3.h"
#include "kirchhoff/rod_loads.h"
#include "kirchhoff/rod_tendon.h"
#include "kirchhoff/rod_tendon_friction.h"

enum {
  ROD_Y_H = 0,
  ROD_Y_N = 4,
  ROD_Y_M = 7,
  ROD_Y_Q = 10,
  ROD_Y_W = 13,
  ROD_NY = 16 /* integrated states */
};

/* Quadratures carried after the states. */
enum {
  ROD_Q_P = 0,   /* position p (3), m */
  ROD_Q_KIN = 3, /* int 1/2 rhoA q.q ds, J */
  ROD_Q_EL = 4,  /* int 1/2 (u-u*).K(u-u*) (+ 1/2 (v-e3).Kse(v-e3)) ds, J */
  ROD_Q_GS = 5,  /* int s g.p_s ds, m^3/s^2 */
  ROD_NQ = 6
};

/* Constants of one step (one attempt's c0). */
typedef struct {
  double c0;       /* 1/s, BDF coefficient of the current step (0: statics) */
  double rho_area; /* kg/m */
  double rho_inertia[3]; /* kg m: rho (I, I, J), 0 when neglected */
  double ki[3];          /* 1/(N m^2): 1 / (K (1 + c0 tau)) */
  double kse[3];         /* 1/N: 1 / (Kse (1 + c0 tau)) */
  double av0[3];         /* e3 / (1 + c0 tau) (Cosserat) */
  double tau_fac;        /* s: tau / (1 + c0 tau) */
  double tau_fac_se;     /* s: the same of shear and extension's tau_se */
  int cosserat;
  int rotary; /* the cross-section's rotary inertia is kept */
  /* for the energy quadratures */
  double K[3];   /* N m^2 */
  double Kse[3]; /* N */
  /* the distributed loads (rod_loads.h): dead, drag, gravity */
  rod_loads_const loads;
  /* tendons (rod_tendon.h): their number and tensions (N); 0: none */
  int ntendons;
  double tension[ROD_TENDONS_MAX];
  /* their friction (rod_tendon_friction.h): on in a time step when some
   * tendon has beta > 0; beta (s/m) */
  int friction;
  double beta[ROD_TENDONS_MAX];
} rod_rhs_const;

/* Data of the equations at one evaluation point that depend on s, not on
 * the history: the precurvature. (A distributed force fbar(s), as
 * contact's, belongs here too.) */
typedef struct {
  double ustar[3];     /* 1/m: u*(s), material frame */
  const double *route; /* the tendons' routing here (rod_tendon.h) */
  double *tz; /* the tendons' share of the strains at the last solve here
                 (rod_tendon_strains' start; NULL: none) */
  const double *slide; /* m/s: the tendons' sliding rates here (friction,
                          rod_tendon_friction.h), NULL without */
} rod_rhs_point;

/* History data at one evaluation point (grid node or half-way): the
 * history terms themselves, so that a history kept at the evaluation
 * points writes them in place (rod_history_point_terms). With them
 *   u = ki .* R^T m + (u* - tau_fac U) = u* + (R^T m / K - tau U) / (1 + c0
 * tau) v = kse .* R^T n + av, av = av0 - tau_fac_se V = (e3 - tau_se V) / (1 +
 * c0 tau)
 */
typedef struct {
  double Q[3]; /* m/s^2: q_t = c0 q + Q */
  double U[3]; /* 1/(m s): u_t = c0 (u - u*) + U */
  double V[3]; /* 1/s: v_t = c0 v + V (Cosserat) */
  double W[3]; /* 1/s^2: w_t = c0 w + W (rotary inertia) */
} rod_hist_point;

/* Intermediate values of one evaluation, reused by the tangent equations. */
typedef struct {
  double R[9];
  double u[3], v[3];
  double Rtm[3], Rtn[3];
  double a[3]; /* local distributed inertia + drag force density */
  double ps[3];
  double qp;     /* m/s, |q_perp| = |(q1, q2)| (normal drag) */
  double b[3];   /* N m/m, local rate of the cross-section's angular
                    momentum (rotary inertia) */
  double tL[36]; /* with tendons: the Cholesky factor of K + A
                    (rod_tendon.h) */
  const double *route, *slide; /* with friction: the point's (rod_rhs_point) */
} rod_rhs_work;

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_eval(const rod_rhs_const *c, const rod_hist_point *hp,
             const rod_rhs_point *pt, const double *y, double *f,
             rod_rhs_work *wk, const bool general) {
  const double *h = y + ROD_Y_H, *n = y + ROD_Y_N, *m = y + ROD_Y_M;
  const double *q = y + ROD_Y_Q, *w = y + ROD_Y_W;
  double *R = wk->R, *u = wk->u, *v = wk->v, *a = wk->a, *ps = wk->ps;
  quat_to_R(R, h);
  m3_mul_tv(wk->Rtm, R, m);
  for (int i = 0; i < 3; i++)
    u[i] = c->ki[i] * wk->Rtm[i] +
           ((general ? pt->ustar[i] : 0.0) - c->tau_fac * hp->U[i]);
  /* with tendons n, m are the section's resultants n~, m~ and the strains
   * solve the constitutive law with the tendons' pull (rod_tendon.h) */
  const bool tendons = general && c->ntendons > 0;
  if (tendons) {
    if (c->cosserat) {
      m3_mul_tv(wk->Rtn, R, n);
      for (int i = 0; i < 3; i++)
        v[i] = c->kse[i] * wk->Rtn[i] + (c->av0[i] - c->tau_fac_se * hp->V[i]);
    } else {
      v3_set(v, 0, 0, 1);
    }
    rod_tendon_strains(c->ntendons, c->tension, pt->route, c->ki, c->kse,
                       c->cosserat, u, v, wk->tL, pt->tz);
  }
  quat_deriv(f + ROD_Y_H, h, u);

  double wxq[3];
  v3_cross(wxq, w, q);
  if (general && c->loads.drag_normal) {
    const double qp = sqrt(q[0] * q[0] + q[1] * q[1]);
    wk->qp = qp;
    for (int i = 0; i < 3; i++)
      a[i] = c->rho_area * (wxq[i] + c->c0 * q[i] + hp->Q[i]) +
             rod_loads_drag(&c->loads, q, qp, i, true);
  } else {
    for (int i = 0; i < 3; i++)
      a[i] = c->rho_area * (wxq[i] + c->c0 * q[i] + hp->Q[i]) +
             rod_loads_drag(&c->loads, q, 0.0, i, false);
  }
  double Ra[3];
  m3_mul_v(Ra, R, a);
  v3_add(f + ROD_Y_N, Ra, c->loads.ns_dead);

  double uxq[3], uxw[3];
  v3_cross(uxq, u, q);
  v3_cross(uxw, u, w);
  if (c->cosserat) {
    if (!tendons) {
      m3_mul_tv(wk->Rtn, R, n);
      for (int i = 0; i < 3; i++)
        v[i] = c->kse[i] * wk->Rtn[i] + (c->av0[i] - c->tau_fac_se * hp->V[i]);
    }
    m3_mul_v(ps, R, v);
    double wxv[3];
    v3_cross(wxv, w, v);
    for (int i = 0; i < 3; i++)
      f[ROD_Y_Q + i] = c->c0 * v[i] + hp->V[i] - uxq[i] + wxv[i];
  } else {
    v3_set(v, 0, 0, 1);
    v3_set(ps, R[2], R[5], R[8]);
    /* w x e3 = (w2, -w1, 0) */
    f[ROD_Y_Q + 0] = -uxq[0] + w[1];
    f[ROD_Y_Q + 1] = -uxq[1] - w[0];
    f[ROD_Y_Q + 2] = -uxq[2];
  }
  v3_cross(f + ROD_Y_M, n, ps); /* m_s = -p_s x n */
  if (general && c->rotary) {   /* + R [rhoJ .* w_t + w x (rhoJ .* w)] */
    double Jw[3], wxJw[3], Rb[3];
    for (int i = 0; i < 3; i++)
      Jw[i] = c->rho_inertia[i] * w[i];
    v3_cross(wxJw, w, Jw);
    for (int i = 0; i < 3; i++)
      wk->b[i] = c->rho_inertia[i] * (c->c0 * w[i] + hp->W[i]) + wxJw[i];
    m3_mul_v(Rb, R, wk->b);
    v3_add(f + ROD_Y_M, f + ROD_Y_M, Rb);
  }
  for (int i = 0; i < 3; i++)
    f[ROD_Y_W + i] =
        c->c0 * (u[i] - (general ? pt->ustar[i] : 0.0)) + hp->U[i] - uxw[i];
  if (tendons && c->friction) { /* the tendons' friction */
    wk->route = pt->route;
    wk->slide = pt->slide;
    rod_friction_eval(c->ntendons, c->beta, c->tension, pt->route, pt->slide, R,
                      u, v, f + ROD_Y_N, f + ROD_Y_M);
  }
}

/* rod_rhs_eval for a rod that moves in the x-z plane: the quaternion turns
 * about y (h1 = h3 = 0) and the odd components h1, h3, n_y, m_x, m_z, q_y,
 * w_x, w_z are zero, as are the matching history and loads (see
 * kr_planar_symmetric). The same arithmetic as rod_rhs_eval with the terms
 * that are exactly zero left out, so both give identical results on such a
 * state (tested), at about a third of the cost; the odd components of f are
 * zero. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_eval_planar(const rod_rhs_const *c, const rod_hist_point *hp,
                    const rod_rhs_point *pt, const double *y, double *f,
                    rod_rhs_work *wk, const bool general) {
  const double ustar1 = general ? pt->ustar[1] : 0.0;
  const double h0 = y[ROD_Y_H], h2 = y[ROD_Y_H + 2];
  const double n0 = y[ROD_Y_N], n2 = y[ROD_Y_N + 2], m1 = y[ROD_Y_M + 1];
  const double q0 = y[ROD_Y_Q], q2 = y[ROD_Y_Q + 2], w1 = y[ROD_Y_W + 1];
  double *R = wk->R, *u = wk->u, *v = wk->v, *a = wk->a, *ps = wk->ps;
  /* quat_to_R with x = z = 0 */
  const double s = 2.0 / (h0 * h0 + h2 * h2);
  const double yy = h2 * h2, wy = h0 * h2;
  R[0] = 1.0 - s * yy;
  R[1] = 0.0;
  R[2] = s * wy;
  R[3] = 0.0;
  R[4] = 1.0;
  R[5] = 0.0;
  R[6] = s * -wy;
  R[7] = 0.0;
  R[8] = 1.0 - s * yy;
  v3_set(wk->Rtm, 0.0, m1, 0.0);
  const double u1 = c->ki[1] * m1 + (ustar1 - c->tau_fac * hp->U[1]);
  v3_set(u, 0.0, u1, 0.0);
  f[ROD_Y_H + 0] = 0.5 * -(u1 * h2);
  f[ROD_Y_H + 1] = 0.0;
  f[ROD_Y_H + 2] = 0.5 * (u1 * h0);
  f[ROD_Y_H + 3] = 0.0;

  /* w x q = (w1 q2, 0, -w1 q0); the normal drag's |q_perp| is |q_1| (the
   * 3D path's arithmetic with q_2 = 0) */
  const double *q = y + ROD_Y_Q;
  wk->qp = general && c->loads.drag_normal ? sqrt(q0 * q0) : fabs(q0);
  a[0] = c->rho_area * (w1 * q2 + c->c0 * q0 + hp->Q[0]) +
         rod_loads_drag(&c->loads, q, wk->qp, 0, true);
  a[1] = 0.0;
  a[2] = c->rho_area * (-(w1 * q0) + c->c0 * q2 + hp->Q[2]) +
         rod_loads_drag(&c->loads, q, wk->qp, 2, true);
  f[ROD_Y_N + 0] = (R[0] * a[0] + R[2] * a[2]) + c->loads.ns_dead[0];
  f[ROD_Y_N + 1] = 0.0;
  f[ROD_Y_N + 2] = (R[6] * a[0] + R[8] * a[2]) + c->loads.ns_dead[2];

  /* u x q = (u1 q2, 0, -u1 q0), u x w = 0 */
  const double uxq0 = u1 * q2, uxq2 = -(u1 * q0);
  if (c->cosserat) {
    const double t0 = R[0] * n0 + R[6] * n2, t2 = R[2] * n0 + R[8] * n2;
    v3_set(wk->Rtn, t0, 0.0, t2);
    v3_set(v, c->kse[0] * t0 + (c->av0[0] - c->tau_fac_se * hp->V[0]), 0.0,
           c->kse[2] * t2 + (c->av0[2] - c->tau_fac_se * hp->V[2]));
    v3_set(ps, R[0] * v[0] + R[2] * v[2], 0.0, R[6] * v[0] + R[8] * v[2]);
    f[ROD_Y_Q + 0] = ((c->c0 * v[0] + hp->V[0]) - uxq0) + w1 * v[2];
    f[ROD_Y_Q + 1] = 0.0;
    f[ROD_Y_Q + 2] = ((c->c0 * v[2] + hp->V[2]) - uxq2) + -(w1 * v[0]);
  } else {
    v3_set(v, 0, 0, 1);
    v3_set(ps, R[2], 0.0, R[8]);
    f[ROD_Y_Q + 0] = -uxq0 + w1;
    f[ROD_Y_Q + 1] = 0.0;
    f[ROD_Y_Q + 2] = -uxq2;
  }
  f[ROD_Y_M + 0] = 0.0;
  f[ROD_Y_M + 1] = n2 * ps[0] - n0 * ps[2];
  f[ROD_Y_M + 2] = 0.0;
  if (general && c->rotary) { /* w x (rhoJ .* w) = 0; R leaves y */
    v3_set(wk->b, 0.0, c->rho_inertia[1] * (c->c0 * w1 + hp->W[1]), 0.0);
    f[ROD_Y_M + 1] += wk->b[1];
  }
  f[ROD_Y_W + 0] = 0.0;
  f[ROD_Y_W + 1] = c->c0 * (u1 - ustar1) + hp->U[1];
  f[ROD_Y_W + 2] = 0.0;
}

/* Derivatives of the quadratures at arclength s (m) from the velocity q,
 * angular velocity w (read when rotary: the kinetic energy of the
 * cross-section's rotation), the curvature's departure from the
 * precurvature du = u - u*, strain v and p_s = R v there. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_quadratures_at(const rod_rhs_const *c, const double *q, const double *w,
                       const double *du, const double *v, const double *ps,
                       double s, double *fq, const bool rotary) {
  v3_copy(fq + ROD_Q_P, ps);
  fq[ROD_Q_KIN] = 0.5 * c->rho_area * v3_dot(q, q);
  if (rotary)
    fq[ROD_Q_KIN] += 0.5 * (c->rho_inertia[0] * w[0] * w[0] +
                            c->rho_inertia[1] * w[1] * w[1] +
                            c->rho_inertia[2] * w[2] * w[2]);
  double e = 0;
  for (int i = 0; i < 3; i++)
    e += c->K[i] * du[i] * du[i];
  if (c->cosserat)
    for (int i = 0; i < 3; i++) {
      double dv = v[i] - (i == 2 ? 1.0 : 0.0);
      e += c->Kse[i] * dv * dv;
    }
  fq[ROD_Q_EL] = 0.5 * e;
  fq[ROD_Q_GS] = s * v3_dot(c->loads.gravity, ps);
}

/* The frame's rotation th (dR = R [th]x) and the strains' du (and dv,
 * Cosserat; Kirchhoff: 0) of the direction dy at the evaluation wk of
 * rod_rhs_eval (the start of rod_rhs_tangent). A perturbation dh of the
 * quaternion rotates the frame by dtheta = 2 vec(conj(h) dh) / |h|^2 (body
 * frame). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_strain_tangent(const rod_rhs_const *c, const double *y,
                       const rod_rhs_work *wk, const double *dy, double *th,
                       double *du, double *dv, const bool general) {
  const double *h = y + ROD_Y_H, *dh = dy + ROD_Y_H;
  const double *dn = dy + ROD_Y_N, *dm = dy + ROD_Y_M;
  const double *R = wk->R;
  double hh = h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3];
  double s = 2.0 / hh;
  /* vec(conj(h) * dh) */
  th[0] = s * (h[0] * dh[1] - h[1] * dh[0] - h[2] * dh[3] + h[3] * dh[2]);
  th[1] = s * (h[0] * dh[2] + h[1] * dh[3] - h[2] * dh[0] - h[3] * dh[1]);
  th[2] = s * (h[0] * dh[3] - h[1] * dh[2] + h[2] * dh[1] - h[3] * dh[0]);

  /* du = ki .* (Rtm x dtheta + R^T dm) */
  double t1[3], t2[3];
  v3_cross(t1, wk->Rtm, th);
  m3_mul_tv(t2, R, dm);
  v3_set(dv, 0, 0, 0);
  if (general && c->ntendons > 0) { /* du, dv = (K + A)^-1 (d(R^T n~),
                                       d(R^T m~)) */
    double bu[3], bv[3] = {0, 0, 0};
    v3_add(bu, t1, t2);
    if (c->cosserat) {
      v3_cross(t1, wk->Rtn, th);
      m3_mul_tv(t2, R, dn);
      v3_add(bv, t1, t2);
    }
    rod_tendon_tangent_strains(wk->tL, c->cosserat, bv, bu, du, dv);
    return;
  }
  for (int i = 0; i < 3; i++)
    du[i] = c->ki[i] * (t1[i] + t2[i]);
  if (c->cosserat) {
    v3_cross(t1, wk->Rtn, th);
    m3_mul_tv(t2, R, dn);
    for (int i = 0; i < 3; i++)
      dv[i] = c->kse[i] * (t1[i] + t2[i]);
  }
}

/* Directional derivative of the right-hand side: df = (df/dy) dy, using the
 * intermediate values of rod_rhs_eval at the same y. A perturbation dh of
 * the quaternion rotates the frame by dtheta = 2 vec(conj(h) dh) / |h|^2
 * (body frame), so dR = R [dtheta]x. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_tangent(const rod_rhs_const *c, const double *y, const rod_rhs_work *wk,
                const double *dy, double *df, const bool general) {
  const double *h = y + ROD_Y_H, *n = y + ROD_Y_N;
  const double *q = y + ROD_Y_Q, *w = y + ROD_Y_W;
  const double *dh = dy + ROD_Y_H, *dn = dy + ROD_Y_N;
  const double *dq = dy + ROD_Y_Q, *dw = dy + ROD_Y_W;
  const double *R = wk->R, *u = wk->u, *v = wk->v, *a = wk->a;
  double th[3], du[3], dv[3], t1[3], t2[3];
  rod_rhs_strain_tangent(c, y, wk, dy, th, du, dv, general);
  const bool tendons = general && c->ntendons > 0;
  /* dh_s = F1(dh, u) + F1(h, du) */
  double f1[4], f2[4];
  quat_deriv(f1, dh, u);
  quat_deriv(f2, h, du);
  for (int i = 0; i < 4; i++)
    df[ROD_Y_H + i] = f1[i] + f2[i];

  /* dn_s = R (dtheta x a + da) */
  double da[3], dwxq[3], wxdq[3];
  v3_cross(dwxq, dw, q);
  v3_cross(wxdq, w, dq);
  if (general && c->loads.drag_normal) {
    /* d(|q_perp| q_i) = |q_perp| dq_i + q_i q.dq/|q_perp| */
    const double qp = wk->qp;
    const double qdq = qp > 0 ? (q[0] * dq[0] + q[1] * dq[1]) / qp : 0.0;
    for (int i = 0; i < 3; i++)
      da[i] = c->rho_area * (dwxq[i] + wxdq[i] + c->c0 * dq[i]) +
              rod_loads_drag_tangent(&c->loads, q, qp, qdq, dq, i, true);
  } else {
    for (int i = 0; i < 3; i++)
      da[i] = c->rho_area * (dwxq[i] + wxdq[i] + c->c0 * dq[i]) +
              rod_loads_drag_tangent(&c->loads, q, 0.0, 0.0, dq, i, false);
  }
  v3_cross(t1, th, a);
  v3_add(t1, t1, da);
  m3_mul_v(df + ROD_Y_N, R, t1);

  double dps[3];
  double dqxu[3], qxdu[3];
  v3_cross(dqxu, dq, u);
  v3_cross(qxdu, q, du);
  if (c->cosserat) {
    v3_cross(t1, th, v);
    v3_add(t1, t1, dv);
    m3_mul_v(dps, R, t1);
    double dwxv[3], wxdv[3];
    v3_cross(dwxv, dw, v);
    v3_cross(wxdv, w, dv);
    for (int i = 0; i < 3; i++)
      df[ROD_Y_Q + i] = c->c0 * dv[i] + dqxu[i] + qxdu[i] + dwxv[i] + wxdv[i];
  } else {
    /* d(R e3) = R (dtheta x e3) = R (th2, -th1, 0) */
    double te[3] = {th[1], -th[0], 0.0};
    m3_mul_v(dps, R, te);
    df[ROD_Y_Q + 0] = dqxu[0] + qxdu[0] + dw[1];
    df[ROD_Y_Q + 1] = dqxu[1] + qxdu[1] - dw[0];
    df[ROD_Y_Q + 2] = dqxu[2] + qxdu[2];
  }
  /* dm_s = dn x p_s + n x dp_s */
  v3_cross(t1, dn, wk->ps);
  v3_cross(t2, n, dps);
  v3_add(df + ROD_Y_M, t1, t2);
  if (general && c->rotary) { /* + R (dtheta x b + db) */
    double Jw[3], Jdw[3], db[3], t3[3];
    for (int i = 0; i < 3; i++) {
      Jw[i] = c->rho_inertia[i] * w[i];
      Jdw[i] = c->rho_inertia[i] * dw[i];
    }
    v3_cross(t1, dw, Jw);
    v3_cross(t2, w, Jdw);
    v3_cross(t3, th, wk->b);
    for (int i = 0; i < 3; i++)
      db[i] = t3[i] + c->c0 * Jdw[i] + t1[i] + t2[i];
    m3_mul_v(t1, R, db);
    v3_add(df + ROD_Y_M, df + ROD_Y_M, t1);
  }
  /* dw_s = c0 du + dw x u + w x du */
  double dwxu[3], wxdu[3];
  v3_cross(dwxu, dw, u);
  v3_cross(wxdu, w, du);
  for (int i = 0; i < 3; i++)
    df[ROD_Y_W + i] = c->c0 * du[i] + dwxu[i] + wxdu[i];
  if (tendons && c->friction)
    rod_friction_tangent(c->ntendons, c->beta, c->tension, wk->route, wk->slide,
                         R, u, v, th, du, dv, df + ROD_Y_N, df + ROD_Y_M);
}

/* rod_rhs_tangent for an in-plane state (rod_rhs_eval_planar's work) and
 * an in-plane direction dy (odd components zero): the same arithmetic with
 * the exactly zero terms left out; the odd components of df are zero. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_rhs_tangent_planar(const rod_rhs_const *c, const double *y,
                       const rod_rhs_work *wk, const double *dy, double *df,
                       const bool general) {
  const double h0 = y[ROD_Y_H], h2 = y[ROD_Y_H + 2];
  const double n0 = y[ROD_Y_N], n2 = y[ROD_Y_N + 2];
  const double q0 = y[ROD_Y_Q], q2 = y[ROD_Y_Q + 2], w1 = y[ROD_Y_W + 1];
  const double dh0 = dy[ROD_Y_H], dh2 = dy[ROD_Y_H + 2];
  const double dn0 = dy[ROD_Y_N], dn2 = dy[ROD_Y_N + 2];
  const double dm1 = dy[ROD_Y_M + 1];
  const double dq0 = dy[ROD_Y_Q], dq2 = dy[ROD_Y_Q + 2];
  const double dw1 = dy[ROD_Y_W + 1];
  const double *R = wk->R, *a = wk->a, *v = wk->v, *ps = wk->ps;
  const double u1 = wk->u[1];

  /* the rotation dtheta = (0, th1, 0) */
  const double s = 2.0 / (h0 * h0 + h2 * h2);
  const double th1 = s * (h0 * dh2 - h2 * dh0);
  const double du1 = c->ki[1] * dm1;
  df[ROD_Y_H + 0] = 0.5 * -(u1 * dh2) + 0.5 * -(du1 * h2);
  df[ROD_Y_H + 1] = 0.0;
  df[ROD_Y_H + 2] = 0.5 * (u1 * dh0) + 0.5 * (du1 * h0);
  df[ROD_Y_H + 3] = 0.0;

  /* dn_s = R (dtheta x a + da) */
  const double qp = wk->qp, qdq = qp > 0 ? q0 * dq0 / qp : 0.0;
  const double *q = y + ROD_Y_Q, *dq = dy + ROD_Y_Q;
  const bool normal = general && c->loads.drag_normal;
  const double da0 =
      c->rho_area * ((dw1 * q2 + w1 * dq2) + c->c0 * dq0) +
      rod_loads_drag_tangent(&c->loads, q, qp, qdq, dq, 0, normal);
  const double da2 =
      c->rho_area * ((-(dw1 * q0) + -(w1 * dq0)) + c->c0 * dq2) +
      rod_loads_drag_tangent(&c->loads, q, qp, qdq, dq, 2, false);
  const double t0 = th1 * a[2] + da0, t2 = -(th1 * a[0]) + da2;
  df[ROD_Y_N + 0] = R[0] * t0 + R[2] * t2;
  df[ROD_Y_N + 1] = 0.0;
  df[ROD_Y_N + 2] = R[6] * t0 + R[8] * t2;

  /* dq x u = (-(dq2 u1), 0, dq0 u1), q x du = (-(q2 du1), 0, q0 du1) */
  const double a0 = -(dq2 * u1), b0 = -(q2 * du1);
  const double a2 = dq0 * u1, b2 = q0 * du1;
  double dps0, dps2;
  if (c->cosserat) {
    const double *Rtn = wk->Rtn;
    const double dv0 =
        c->kse[0] * (-(Rtn[2] * th1) + (R[0] * dn0 + R[6] * dn2));
    const double dv2 = c->kse[2] * (Rtn[0] * th1 + (R[2] * dn0 + R[8] * dn2));
    const double e0 = th1 * v[2] + dv0, e2 = -(th1 * v[0]) + dv2;
    dps0 = R[0] * e0 + R[2] * e2;
    dps2 = R[6] * e0 + R[8] * e2;
    df[ROD_Y_Q + 0] = c->c0 * dv0 + a0 + b0 + dw1 * v[2] + w1 * dv2;
    df[ROD_Y_Q + 2] = c->c0 * dv2 + a2 + b2 + -(dw1 * v[0]) + -(w1 * dv0);
  } else {
    dps0 = R[0] * th1; /* d(R e3) = R (th1, 0, 0) */
    dps2 = R[6] * th1;
    df[ROD_Y_Q + 0] = a0 + b0 + dw1;
    df[ROD_Y_Q + 2] = a2 + b2;
  }
  df[ROD_Y_Q + 1] = 0.0;
  /* dm_s = dn x p_s + n x dp_s */
  df[ROD_Y_M + 0] = 0.0;
  df[ROD_Y_M + 1] = (dn2 * ps[0] - dn0 * ps[2]) + (n2 * dps0 - n0 * dps2);
  df[ROD_Y_M + 2] = 0.0;
  if (general && c->rotary)
    df[ROD_Y_M + 1] += c->c0 * (c->rho_inertia[1] * dw1);
  df[ROD_Y_W + 0] = 0.0;
  df[ROD_Y_W + 1] = c->c0 * du1;
  df[ROD_Y_W + 2] = 0.0;
}

#endif
