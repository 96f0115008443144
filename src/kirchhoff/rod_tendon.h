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
 * matrix a (row-major, stride 6, lower triangle read and written). */
static inline void rod_tendon_chol(double *a, int n) {
  for (int j = 0; j < n; j++) {
    double d = a[6 * j + j];
    for (int k = 0; k < j; k++)
      d -= a[6 * j + k] * a[6 * j + k];
    d = sqrt(d);
    a[6 * j + j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = a[6 * i + j];
      for (int k = 0; k < j; k++)
        s -= a[6 * i + k] * a[6 * j + k];
      a[6 * i + j] = s / d;
    }
  }
}

/* x = (L L^T)^-1 b in place, L from rod_tendon_chol. */
static inline void rod_tendon_chol_solve(const double *l, int n, double *x) {
  for (int i = 0; i < n; i++) {
    double s = x[i];
    for (int k = 0; k < i; k++)
      s -= l[6 * i + k] * x[k];
    x[i] = s / l[6 * i + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int k = i + 1; k < n; k++)
      s -= l[6 * k + i] * x[k];
    x[i] = s / l[6 * i + i];
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

/* The strains u (and v, Cosserat) at a point where tendons run, from the
 * tendon-free u0, v0 in u, v (rod_rhs_eval), by Newton's method on the
 * constitutive law above; kd, ksd the diagonal stiffnesses K (1 + c0 tau)
 * (Kse ...). The Cholesky factor of its Jacobian (K + A) at the solution
 * is left in Lf for the tangent equations (rod_tendon_tangent_strains).
 * Newton converges quadratically from u0 (the tendons' share is a
 * perturbation of size tau |r|^2 / (EI |pb|)); it stops when a correction
 * is below 1e-10 of the strains (the next one would be below rounding),
 * at most 30 iterations. */
static inline void rod_tendon_strains(int ntendons, const double *tension,
                                      const double *route, const double *kd,
                                      const double *ksd, bool cosserat,
                                      double *u, double *v, double *Lf) {
  const int n = cosserat ? 6 : 3;
  double u0[3], v0[3];
  v3_copy(u0, u);
  v3_copy(v0, v);
  for (int it = 0; it < 30; it++) {
    double g[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 36; i++)
      Lf[i] = 0.0;
    rod_tendon_terms(ntendons, tension, route, u, v, cosserat, g, Lf);
    const int o = cosserat ? 3 : 0;
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
      du = fmax(du, fabs(g[o + a]));
      su = fmax(su, fabs(u[a]));
      if (cosserat) {
        v[a] -= g[a];
        dv = fmax(dv, fabs(g[a]));
        sv = fmax(sv, fabs(v[a]));
      }
    }
    if (!(du > 1e-10 * su) && !(dv > 1e-10 * sv))
      break;
  }
}

/* The tangent of the strains: dz = (K + A)^-1 b with b = d(R^T n~) and
 * d(R^T m~) (Cosserat: b = (bv, bu), else bu alone), from the factor Lf of
 * rod_tendon_strains; into du (and dv). */
static inline void rod_tendon_tangent_strains(const double *Lf, bool cosserat,
                                              const double *bv,
                                              const double *bu, double *du,
                                              double *dv) {
  double z[6];
  if (cosserat) {
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
