/* The tendons' friction against their guides in the rod's equations: the
 * simple friction model of Till, Aloi & Rucker 2019 (their public dynamics
 * example's friction variant), a distributed load on the backbone from
 * each tendon sliding through its guides, and its tangent.
 *
 * Tendon i slides at the rate s_t (m/s, rod_rhs_point.slide: the rate of
 * the tendon's unstretched arclength from its motor to the point,
 * kirchhoff_tendon_friction.c), and with its tension tau (N), the
 * curvature's (u_x, u_y) (1/m, material frame, u the whole curvature) and
 * its unit tangent t = pb / |pb| (rod_tendon.h) the reference's
 *   f_i = beta_i |tau_i (u_x, u_y)| (-s_t) t      (N/m, beta in s/m)
 * enters the material frame's balance laws as the reference's active
 * code has it: the force row's right-hand side gains +f_i and the moment
 * row's -r_i x f_i, i.e. the backbone carries the distributed force -f_i
 * and the distributed moment +r_i x f_i (material frame; the reference's
 * commented-out variant, which made its paper's figure, applied R^T f_i
 * and R^T (r_i x f_i) instead). In the world frame of rod_rhs.h, with
 * phi = beta tau |u_xy| s_t:
 *   n_s += -phi R t,   m_s += phi R (r x t).
 * Its tangent at fixed s_t (rod_friction_tangent; the sweeps add the
 * share of s_t's own change, rod_friction_eval of it): with dR = R
 * [dtheta]x, dt = (I - t t^T)(du x r + dv) / |pb| and dphi = beta tau s_t
 * (u_x du_x + u_y du_y) / |u_xy| (0 on a straight section),
 *   dn_s = -R (dtheta x phi t + dphi t + phi dt),
 *   dm_s = R (dtheta x phi (r x t) + dphi (r x t) + phi r x dt). */
#ifndef ROD_TENDON_FRICTION_H
#define ROD_TENDON_FRICTION_H

#include <math.h>

#include "core/v3.h"
#include "kirchhoff/rod_tendon.h"

/* Add the tendons' friction loads at (R, u, v) to fn (n_s) and fm (m_s):
 * beta (s/m), tension (N), the routing and the sliding rates (m/s) of
 * ntendons tendons. The loads are linear in the rates: the same with
 * their changes gives the loads' derivative by them. */
static inline void rod_friction_eval(int ntendons, const double *beta,
                                     const double *tension, const double *route,
                                     const double *slide, const double *R,
                                     const double *u, const double *v,
                                     double *fn, double *fm) {
  const double a = sqrt(u[0] * u[0] + u[1] * u[1]);
  for (int i = 0; i < ntendons; i++) {
    const double *rt = route + ROD_ROUTE * i;
    if (!(beta[i] > 0) || !(tension[i] > 0) || rt[6] == 0)
      continue;
    const double r[3] = {rt[0], rt[1], 0.0};
    const double phi = beta[i] * tension[i] * a * slide[i];
    double t[3], rxt[3], w[3];
    rod_tendon_tangent(rt, u, v, t);
    v3_cross(rxt, r, t);
    m3_mul_v(w, R, t);
    v3_axpy(fn, -phi, w);
    m3_mul_v(w, R, rxt);
    v3_axpy(fm, phi, w);
  }
}

/* The directional derivative of rod_friction_eval's loads for the frame's
 * rotation th (dR = R [th]x) and the strains' du, dv, added to dfn, dfm. */
static inline void
rod_friction_tangent(int ntendons, const double *beta, const double *tension,
                     const double *route, const double *slide, const double *R,
                     const double *u, const double *v, const double *th,
                     const double *du, const double *dv, double *dfn,
                     double *dfm) {
  const double a = sqrt(u[0] * u[0] + u[1] * u[1]);
  const double da = a > 0 ? (u[0] * du[0] + u[1] * du[1]) / a : 0.0;
  for (int i = 0; i < ntendons; i++) {
    const double *rt = route + ROD_ROUTE * i;
    if (!(beta[i] > 0) || !(tension[i] > 0) || rt[6] == 0)
      continue;
    const double r[3] = {rt[0], rt[1], 0.0};
    const double g = beta[i] * tension[i] * slide[i];
    const double phi = g * a, dphi = g * da;
    double t[3], dpb[3], dt[3], x[3], dx[3], c[3], w[3];
    const double np = rod_tendon_tangent(rt, u, v, t);
    v3_cross(dpb, du, r);
    v3_add(dpb, dpb, dv);
    v3_copy(dt, dpb);
    v3_axpy(dt, -v3_dot(t, dpb), t);
    v3_scale(dt, 1.0 / np, dt);
    /* force: x = -phi t */
    v3_scale(x, -phi, t);
    v3_cross(c, th, x);
    for (int k = 0; k < 3; k++)
      dx[k] = c[k] - dphi * t[k] - phi * dt[k];
    m3_mul_v(w, R, dx);
    v3_add(dfn, dfn, w);
    /* moment: x = phi (r x t) */
    double rxt[3], rxdt[3];
    v3_cross(rxt, r, t);
    v3_cross(rxdt, r, dt);
    v3_scale(x, phi, rxt);
    v3_cross(c, th, x);
    for (int k = 0; k < 3; k++)
      dx[k] = c[k] + dphi * rxt[k] + phi * rxdt[k];
    m3_mul_v(w, R, dx);
    v3_add(dfm, dfm, w);
  }
}

#endif
