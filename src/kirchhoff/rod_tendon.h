/* Tendons in the rod's equations (Rucker & Webster 2011), in the n-m form
 * of rod_rhs.h: the strains at an evaluation point from the section's
 * resultants, and their derivative for the tangent equations.
 *
 * A tendon i runs at r_i(s) in the cross-section (material frame) with the
 * tension tau_i and is anchored at the tip. Along it the tendon presses on
 * the rod with f_i = tau_i t_i,s and l_i = (R r_i) x f_i, t_i the tendon's
 * unit tangent, t_i = R pb_i / |pb_i|, pb_i = v + u x r_i + r_i' (the
 * paper's eq. 9-13); at the tip it pulls with -tau_i t_i(L). With the
 * section's resultants, the backbone's n, m and the tendons' pull,
 *   n~ = n + sum tau_i t_i,   m~ = m + sum tau_i (R r_i) x t_i,
 * the balance laws are those of the rod without tendons (n~_s = n_s +
 * sum tau_i t_i,s, and (R r_i)_s x t_i = -p_s x t_i), and the tip's
 * condition too (n~(L) and m~(L) are the external tip loads: the
 * terminations are inside the resultants). The states n, m of rod_rhs.h
 * are then n~, m~, and only the constitutive law changes: with u0, v0
 * the tendon-free strains of the resultants (rod_rhs.h: u0 = u* + ki .*
 * R^T m~ + au, v0 = kse .* R^T n~ + av; Kirchhoff: v = e3),
 *   Kd (u - u0) + sum tau_i r_i x t^b_i(u, v) = 0,
 *   Kse_d (v - v0) + sum tau_i t^b_i(u, v) = 0     (Cosserat),
 * Kd = K (1 + c0 tau) (and Kse_d), solved by Newton's method at each
 * point. Its Jacobian is the paper's K + A (their eq. 18, the matrix
 * multiplying [v_s; u_s]): A_i = tau_i (I - t t^T) / |pb_i|, G_i = -A_i
 * [r_i]x, H_i = [r_i]x G_i, symmetric positive definite for tau_i >= 0.
 * The paper integrates u and v by that matrix; here it relates u, v to
 * n~, m~ algebraically, so the history terms of the time step keep their
 * n-m form (no s-derivative of the history is needed) and the tangent
 * equations take du, dv = (K + A)^-1 [d(R^T n~); d(R^T m~)].
 *
 * A tendon that runs on [start, end] only (entering from a sheath that
 * takes its pull before start, anchored at end) leaves n~, m~ continuous
 * at both (its anchor's point load -tau t jumps the backbone's n by what
 * the tendon's pull stops carrying), so outside it only drops out of the
 * law; the grid has nodes at start and end.
 *
 * The routing at each evaluation point: r, r', r'' (x, y each), m, 1, 1/m,
 * and 1 where the tendon runs, 0 where not (ROD_ROUTE doubles per
 * tendon). */
#ifndef ROD_TENDON_H
#define ROD_TENDON_H

#include <math.h>

#include "core/v3.h"

enum {
  ROD_TENDONS_MAX = 8, /* ROD_MAX_TENDONS of rod/scenario.h */
  ROD_ROUTE = 7        /* r_x, r_y, r'_x, r'_y, r''_x, r''_y, runs here */
};

/* Cholesky factorisation in place of the symmetric positive definite n x n
 * matrix a (row-major, stride 6, lower triangle read and written; n a
 * constant where it is inlined, so the loops unroll). The diagonal keeps
 * the reciprocals 1 / L_jj: the solves multiply where they would divide. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_tendon_chol(double *a, int n) {
  for (int j = 0; j < n; j++) {
    double d = a[6 * j + j];
    for (int k = 0; k < j; k++)
      d -= a[6 * j + k] * a[6 * j + k];
    const double id = 1.0 / sqrt(d);
    a[6 * j + j] = id;
    for (int i = j + 1; i < n; i++) {
      double s = a[6 * i + j];
      for (int k = 0; k < j; k++)
        s -= a[6 * i + k] * a[6 * j + k];
      a[6 * i + j] = s * id;
    }
  }
}

/* x = (L L^T)^-1 b in place, L from rod_tendon_chol. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rod_tendon_chol_solve(const double *l, int n, double *x) {
  for (int i = 0; i < n; i++) {
    double s = x[i];
    for (int k = 0; k < i; k++)
      s -= l[6 * i + k] * x[k];
    x[i] = s * l[6 * i + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++)
      s -= l[6 * k + i] * x[k];
    x[i] = s * l[6 * i + i];
  }
}

/* One tendon's share at (u, v): its tangent t (material frame) and |pb|,
 * for the routing rt (ROD_ROUTE doubles). */
static inline double rod_tendon_tangent(const double *rt, const double *u,
                                        const double *v, double t[3]) {
  const double r[3] = {rt[0], rt[1], 0.0};
  double pb[3];
  v3_cross(pb, u, r);
  pb[0] += v[0] + rt[2];
  pb[1] += v[1] + rt[3];
  pb[2] += v[2];
  const double np = sqrt(v3_dot(pb, pb));
  v3_scale(t, 1.0 / np, pb);
  return np;
}

/* Add the tendons' residual and Jacobian at (u, v) (the unknowns z = (v,
 * u), Cosserat, or u alone): g += sum tau (t; r x t), J += sum (A, G; G^T,
 * H) (row-major, stride 6; Kirchhoff: H alone). */
static inline void rod_tendon_terms(int ntendons, const double *tension,
                                    const double *route, const double *u,
                                    const double *v, bool cosserat, double *g,
                                    double *J) {
  for (int i = 0; i < ntendons; i++) {
    const double tau = tension[i];
    const double *rt = route + ROD_ROUTE * i;
    if (!(tau > 0) || rt[6] == 0)
      continue;
    const double r[3] = {rt[0], rt[1], 0.0};
    double t[3], rxt[3], txr[3];
    const double c = tau / rod_tendon_tangent(rt, u, v, t);
    v3_cross(rxt, r, t);
    v3_scale(txr, -1.0, rxt);
    const double rr = v3_dot(r, r);
    const int o = cosserat ? 3 : 0; /* where u's rows and columns start */
    for (int a = 0; a < 3; a++) {
      g[o + a] += tau * rxt[a];
      /* H = c ([r]x^T (I - t t^T) [r]x) = c (|r|^2 I - r r^T - (t x r)
       * (t x r)^T) */
      for (int b = 0; b < 3; b++)
        J[6 * (o + a) + o + b] +=
            c * ((a == b ? rr : 0.0) - r[a] * r[b] - txr[a] * txr[b]);
    }
    if (!cosserat)
      continue;
    /* A = c (I - t t^T); G = -A [r]x = -c ([r]x - t (t x r)^T) */
    const double hr[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
    for (int a = 0; a < 3; a++) {
      g[a] += tau * t[a];
      for (int b = 0; b < 3; b++) {
        J[6 * a + b] += c * ((a == b ? 1.0 : 0.0) - t[a] * t[b]);
        const double G = -c * (hr[3 * a + b] - t[a] * txr[b]);
        J[6 * a + 3 + b] += G; /* v row, u column */
        J[6 * (3 + b) + a] += G;
      }
    }
  }
}

/* Newton's method for the constitutive law above from the strains in u, v
 * (u0, v0 the tendon-free ones), n = 3 or 6 unknowns (a constant where it
 * is inlined); the factor of the last Jacobian in Lf. It stops when a
 * correction is below 1e-10 of the strains (the next one would be below
 * rounding): true then, false after `iterations` or at a non-finite one. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
rod_tendon_newton(int ntendons, const double *tension, const double *route,
                  const double *kd, const double *ksd, int n, const double *u0,
                  const double *v0, double *u, double *v, double *Lf,
                  int iterations) {
  const bool cosserat = n == 6;
  const int o = cosserat ? 3 : 0; /* where u's rows start */
  for (int it = 0; it < iterations; it++) {
    double g[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 36; i++)
      Lf[i] = 0.0;
    rod_tendon_terms(ntendons, tension, route, u, v, cosserat, g, Lf);
    for (int a = 0; a < 3; a++) {
      g[o + a] += kd[a] * (u[a] - u0[a]);
      Lf[6 * (o + a) + o + a] += kd[a];
      if (cosserat) {
        g[a] += ksd[a] * (v[a] - v0[a]);
        Lf[6 * a + a] += ksd[a];
      }
    }
    rod_tendon_chol(Lf, n);
    rod_tendon_chol_solve(Lf, n, g);
    double du = 0, dv = 0, su = 0, sv = 0;
    for (int a = 0; a < 3; a++) {
      u[a] -= g[o + a];
      du = du > fabs(g[o + a]) ? du : fabs(g[o + a]);
      su = su > fabs(u[a]) ? su : fabs(u[a]);
      if (cosserat) {
        v[a] -= g[a];
        dv = dv > fabs(g[a]) ? dv : fabs(g[a]);
        sv = sv > fabs(v[a]) ? sv : fabs(v[a]);
      }
    }
    if (!(du > 1e-10 * su) && !(dv > 1e-10 * sv))
      return isfinite(du + dv);
  }
  return false;
}

/* One taut tendon on the Cosserat rod (the examples' case): the law above
 * in the tendon's pull f = tau t alone. With f, v = v0 - kse .* f and u =
 * u0 - ki .* (r x f) (ki, kse the compliances 1 / Kd, 1 / Kse_d), so pb =
 * v + u x r + r' = pb0 - M f, pb0 = v0 + u0 x r + r' and
 *   M = diag(kse) + [r]x^T diag(ki) [r]x
 *     = diag(kse) + ki_3 (b^2, -a b, 0; -a b, a^2, 0; 0, 0, 0)
 *       + (ki_1 b^2 + ki_2 a^2) e3 e3^T        (r = (a, b, 0)),
 * and the law is F(p) = p - pb0 + M tau p / |p| = 0 in p = pb, three
 * unknowns where (v, u) has six. Its Jacobian is I + M C, C = c (I - t
 * t^T), c = tau / |p| (C is the paper's A of this tendon, K + A = K + B^T
 * C B with B z = v - r x u), inverted in closed form (adjugate). Newton's
 * step dp moves the strains by dz = K^-1 B^T C dp (dv = kse .* C dp, du =
 * ki .* (r x C dp)); it stops as rod_tendon_newton does, on dz. Left in Lf
 * for rod_tendon_tangent_strains (Woodbury's identity, no factor of K + A):
 * (I + M C)^-1 of the last iterate (0..8), c (9), t (10..12), a, b
 * (13, 14), ki (15..17), kse (18..20), and -1 at 35 (a Cholesky factor's
 * reciprocal diagonal is positive there). */
static inline bool rod_tendon_single(double tau, const double *rt,
                                     const double *ki, const double *kse,
                                     const double *u0, const double *v0,
                                     double *u, double *v, double *Lf,
                                     int iterations) {
  const double ra = rt[0], rb = rt[1];
  const double r[3] = {ra, rb, 0.0};
  /* M, symmetric */
  const double m00 = kse[0] + ki[2] * rb * rb, m01 = -ki[2] * ra * rb;
  const double m11 = kse[1] + ki[2] * ra * ra;
  const double m22 = kse[2] + ki[0] * rb * rb + ki[1] * ra * ra;
  double pb0[3], p[3];
  v3_cross(pb0, u0, r);
  pb0[0] += v0[0] + rt[2];
  pb0[1] += v0[1] + rt[3];
  pb0[2] += v0[2];
  v3_cross(p, u, r); /* p from the start's strains */
  p[0] += v[0] + rt[2];
  p[1] += v[1] + rt[3];
  p[2] += v[2];
  double *Ji = Lf, *t = Lf + 10;
  for (int it = 0; it < iterations; it++) {
    const double np = sqrt(v3_dot(p, p)), inp = 1.0 / np;
    const double c = tau * inp;
    v3_scale(t, inp, p);
    double f[3], rxf[3];
    v3_scale(f, tau, t);
    v3_cross(rxf, r, f);
    for (int i = 0; i < 3; i++) { /* the strains of this p */
      v[i] = v0[i] - kse[i] * f[i];
      u[i] = u0[i] - ki[i] * rxf[i];
    }
    /* F = p - pb0 + M f; J = I + c (M - (M t) t^T) */
    const double Mt[3] = {m00 * t[0] + m01 * t[1], m01 * t[0] + m11 * t[1],
                          m22 * t[2]};
    double F[3];
    for (int i = 0; i < 3; i++)
      F[i] = p[i] - pb0[i] + tau * Mt[i];
    const double J[9] = {1.0 + c * (m00 - Mt[0] * t[0]),
                         c * (m01 - Mt[0] * t[1]),
                         c * -(Mt[0] * t[2]),
                         c * (m01 - Mt[1] * t[0]),
                         1.0 + c * (m11 - Mt[1] * t[1]),
                         c * -(Mt[1] * t[2]),
                         c * -(Mt[2] * t[0]),
                         c * -(Mt[2] * t[1]),
                         1.0 + c * (m22 - Mt[2] * t[2])};
    Ji[0] = J[4] * J[8] - J[5] * J[7];
    Ji[1] = J[2] * J[7] - J[1] * J[8];
    Ji[2] = J[1] * J[5] - J[2] * J[4];
    Ji[3] = J[5] * J[6] - J[3] * J[8];
    Ji[4] = J[0] * J[8] - J[2] * J[6];
    Ji[5] = J[2] * J[3] - J[0] * J[5];
    Ji[6] = J[3] * J[7] - J[4] * J[6];
    Ji[7] = J[1] * J[6] - J[0] * J[7];
    Ji[8] = J[0] * J[4] - J[1] * J[3];
    const double idet = 1.0 / (J[0] * Ji[0] + J[1] * Ji[3] + J[2] * Ji[6]);
    for (int i = 0; i < 9; i++)
      Ji[i] *= idet;
    Lf[9] = c;
    double dp[3], Cdp[3], rxC[3];
    m3_mul_v(dp, Ji, F);
    v3_sub(p, p, dp);
    v3_copy(Cdp, dp);
    v3_axpy(Cdp, -v3_dot(t, dp), t);
    v3_scale(Cdp, c, Cdp);
    v3_cross(rxC, r, Cdp);
    double du = 0, dv = 0, su = 0, sv = 0;
    for (int i = 0; i < 3; i++) {
      const double dvi = kse[i] * Cdp[i], dui = ki[i] * rxC[i];
      v[i] += dvi;
      u[i] += dui;
      du = du > fabs(dui) ? du : fabs(dui);
      su = su > fabs(u[i]) ? su : fabs(u[i]);
      dv = dv > fabs(dvi) ? dv : fabs(dvi);
      sv = sv > fabs(v[i]) ? sv : fabs(v[i]);
    }
    if (!(du > 1e-10 * su) && !(dv > 1e-10 * sv)) {
      Lf[13] = ra;
      Lf[14] = rb;
      v3_copy(Lf + 15, ki);
      v3_copy(Lf + 18, kse);
      Lf[35] = -1.0;
      return isfinite(du + dv);
    }
  }
  return false;
}

/* The strains u (and v, Cosserat) at a point where tendons run, from the
 * tendon-free u0, v0 in u, v (rod_rhs_eval), by Newton's method on the
 * constitutive law above; ki, kse the diagonal compliances 1 / (K (1 + c0
 * tau)) (1 / (Kse ...)). What the tangent equations need of its Jacobian
 * (K + A) at the solution is left in Lf (rod_tendon_tangent_strains): its
 * Cholesky factor, or with one taut tendon on the Cosserat rod the
 * inverse of rod_tendon_single. Newton converges quadratically from u0
 * (the tendons' share is a perturbation of size tau |r|^2 / (EI |pb|)),
 * in two to four iterations. The tendons' share dz = (v - v0, u - u0)
 * changes little from one evaluation at a point to the next (sweep to
 * sweep, step to step), so with `last` (6 doubles kept per point, NULL:
 * none) Newton starts from u0 + du, v0 + dv of the last solve there and
 * leaves this one's share in it: one iteration where the state moved
 * little. A start from there that does not converge in 8 iterations is
 * dropped for u0, v0. */
static inline void rod_tendon_strains(int ntendons, const double *tension,
                                      const double *route, const double *ki,
                                      const double *kse, bool cosserat,
                                      double *u, double *v, double *Lf,
                                      double *last) {
  double u0[3], v0[3], kd[3], ksd[3];
  v3_copy(u0, u);
  v3_copy(v0, v);
  int taut = 0, one = 0;
  for (int i = 0; i < ntendons; i++)
    if (tension[i] > 0 && route[ROD_ROUTE * i + 6] != 0) {
      taut++;
      one = i;
    }
  const bool single = cosserat && taut == 1;
  if (!single)
    for (int a = 0; a < 3; a++) {
      kd[a] = 1.0 / ki[a];
      ksd[a] = 1.0 / kse[a];
    }
  const bool warm = last && isfinite(last[0]);
  bool ok = false;
  for (int attempt = warm ? 0 : 1; attempt < 2 && !ok; attempt++) {
    const int iterations = attempt == 0 ? 8 : 30;
    for (int a = 0; a < 3; a++) { /* the last share, then none */
      v[a] = v0[a] + (attempt == 0 && cosserat ? last[a] : 0.0);
      u[a] = u0[a] + (attempt == 0 ? last[3 + a] : 0.0);
    }
    if (single)
      ok = rod_tendon_single(tension[one], route + ROD_ROUTE * one, ki, kse, u0,
                             v0, u, v, Lf, iterations);
    else if (cosserat)
      ok = rod_tendon_newton(ntendons, tension, route, kd, ksd, 6, u0, v0, u, v,
                             Lf, iterations);
    else
      ok = rod_tendon_newton(ntendons, tension, route, kd, ksd, 3, u0, v0, u, v,
                             Lf, iterations);
  }
  if (last)
    for (int a = 0; a < 3; a++) {
      last[a] = ok ? v[a] - v0[a] : NAN;
      last[3 + a] = ok ? u[a] - u0[a] : NAN;
    }
}

/* The tangent of the strains: dz = (K + A)^-1 b with b = d(R^T n~) and
 * d(R^T m~) (Cosserat: b = (bv, bu), else bu alone), from what
 * rod_tendon_strains left in Lf; into du (and dv). With one taut tendon by
 * Woodbury's identity, (K + B^T C B)^-1 = K^-1 - K^-1 B^T C (I + M C)^-1
 * B K^-1 (rod_tendon_single). */
static inline void rod_tendon_tangent_strains(const double *Lf, bool cosserat,
                                              const double *bv,
                                              const double *bu, double *du,
                                              double *dv) {
  double z[6];
  if (cosserat && Lf[35] < 0) {
    const double r[3] = {Lf[13], Lf[14], 0.0}, *t = Lf + 10;
    const double *ki = Lf + 15, *kse = Lf + 18;
    double yv[3], yu[3], w[3], q[3], rxs[3];
    for (int i = 0; i < 3; i++) {
      yv[i] = kse[i] * bv[i];
      yu[i] = ki[i] * bu[i];
    }
    v3_cross(w, r, yu); /* w = B y = yv - r x yu */
    v3_sub(w, yv, w);
    m3_mul_v(q, Lf, w); /* s = C (I + M C)^-1 w */
    v3_axpy(q, -v3_dot(t, q), t);
    v3_scale(q, Lf[9], q);
    v3_cross(rxs, r, q);
    for (int i = 0; i < 3; i++) {
      dv[i] = yv[i] - kse[i] * q[i];
      du[i] = yu[i] - ki[i] * rxs[i];
    }
  } else if (cosserat) {
    v3_copy(z, bv);
    v3_copy(z + 3, bu);
    rod_tendon_chol_solve(Lf, 6, z);
    v3_copy(dv, z);
    v3_copy(du, z + 3);
  } else {
    v3_copy(z, bu);
    rod_tendon_chol_solve(Lf, 3, z);
    v3_copy(du, z);
  }
}

#endif
