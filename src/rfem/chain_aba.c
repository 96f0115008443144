/* Featherstone's articulated-body algorithm (Featherstone 2008, ch. 7;
 * Featherstone 2008, table 7.1) for revolute joints: an inward pass of
 * articulated inertias IA and bias forces pA, then an outward pass of
 * accelerations. O(n), no allocation. The same passes with zero velocity,
 * gravity and external force solve (M + diag(extra)) x = b, split into the
 * inertia pass (a factorisation) and the bias and acceleration passes (a
 * back-solve per right-hand side). */
#include <math.h>
#include <string.h>

#include "chain_internal.h"
#include "chain_spatial.h"
#include "rod/status.h"

/* Link i's U = IA S and D = S^T IA S + armature + extra from its
 * articulated inertia IA, and the inertia Ia it passes to its parent:
 * IA - U U^T / D (eq. 7.41), or IA itself for a prescribed (locked) joint.
 * ROD_ESING if a free joint sees no inertia. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
articulate(rod_chain *c, int i, const double *extra, double *Ia) {
  const rod_chain_link *l = &c->link[i];
  const double *a = l->axis;
  const double *IA = c->IA + 36 * i;
  double *U = c->U + 6 * i;
  for (int k = 0; k < 6; k++)
    U[k] = IA[6 * k] * a[0] + IA[6 * k + 1] * a[1] + IA[6 * k + 2] * a[2];
  const double D = v3_dot(a, U) + l->armature + (extra ? extra[i] : 0.0);
  c->D[i] = D;
  memcpy(Ia, IA, 36 * sizeof(double));
  if (l->prescribed)
    return ROD_OK;
  if (!(D > 0) || !isfinite(D))
    return ROD_ESING;
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < 6; k++)
      Ia[6 * r + k] -= U[r] * U[k] / D;
  return ROD_OK;
}

/* Inward pass of the dynamics: velocity products, fext and the prescribed
 * joints' accelerations enter the bias forces; tau holds the joint
 * forces. */
static int inward(rod_chain *c, const double *tau, const double *fext,
                  const double *qdd) {
  const int n = c->n;
  c->factors++;
  for (int i = 0; i < n; i++) {
    const rod_chain_link *l = &c->link[i];
    memcpy(c->IA + 36 * i, c->body_I + 36 * i, 36 * sizeof(double));
    double *pA = c->pA + 6 * i; /* pA = v x* I v - fext */
    double Iv[6];
    sp_body_apply(Iv, l->mass, l->com, l->inertia, c->v + 6 * i);
    sp_cross_force(pA, c->v + 6 * i, Iv);
    if (fext)
      for (int k = 0; k < 6; k++)
        pA[k] -= fext[6 * i + k];
  }
  for (int i = n - 1; i >= 0; i--) {
    const rod_chain_link *l = &c->link[i];
    const double *a = l->axis;
    double *IA = c->IA + 36 * i, *pA = c->pA + 6 * i, *U = c->U + 6 * i;
    double Ia[36], pa[6];
    int st = articulate(c, i, NULL, Ia);
    if (st != ROD_OK)
      return st;
    memcpy(pa, pA, sizeof pa);
    const double *ci = c->c + 6 * i;
    if (l->prescribed) { /* pa = pA + IA (c + S qdd) */
      double m[6], Im[6];
      for (int k = 0; k < 6; k++)
        m[k] = ci[k] + (k < 3 ? a[k] * qdd[i] : 0.0);
      sp_mat_apply(Im, IA, m);
      for (int k = 0; k < 6; k++)
        pa[k] += Im[k];
    } else { /* pa = pA + Ia c + U u / D (eq. 7.42) */
      const double D = c->D[i];
      c->u[i] = tau[i] - v3_dot(a, pA);
      double Ic[6] = {0};
      sp_mat_apply(Ic, Ia, ci);
      for (int k = 0; k < 6; k++)
        pa[k] += Ic[k] + U[k] * c->u[i] / D;
    }
    if (i > 0) {
      sp_inertia_to_parent(c->IA + 36 * (i - 1), c->E + 9 * i, l->offset, Ia);
      double back[6];
      sp_xform_force_back(back, c->E + 9 * i, l->offset, pa);
      for (int k = 0; k < 6; k++)
        c->pA[6 * (i - 1) + k] += back[k];
    }
  }
  return ROD_OK;
}

/* Outward pass: a_i = X_i a_parent + c_i + S qdd_i (eq. 7.43). The base
 * accelerates at -g to account for gravity, plus its own prescribed
 * acceleration when it moves (dynamic only). */
static void outward(rod_chain *c, double *qdd, bool dynamic) {
  double a0[6] = {0, 0, 0, 0, 0, 0};
  if (dynamic)
    chain_root_acceleration(c, a0);
  for (int i = 0; i < c->n; i++) {
    const rod_chain_link *l = &c->link[i];
    const double *ap = i ? c->acc + 6 * (i - 1) : a0;
    double *ai = c->acc + 6 * i;
    sp_xform_motion(ai, c->E + 9 * i, l->offset, ap);
    if (dynamic)
      for (int k = 0; k < 6; k++)
        ai[k] += c->c[6 * i + k];
    if (!l->prescribed)
      qdd[i] = (c->u[i] - v3_dot(c->U + 6 * i, ai) -
                v3_dot(c->U + 6 * i + 3, ai + 3)) /
               c->D[i];
    else if (!dynamic)
      qdd[i] = 0.0;
    v3_axpy(ai, qdd[i], l->axis);
  }
}

int rod_chain_aba(rod_chain *c, const double *tau, const double *fext,
                  double *qdd) {
  int st = inward(c, tau, fext, qdd);
  if (st != ROD_OK)
    return st;
  outward(c, qdd, true);
  return ROD_OK;
}

int rod_chain_solve_mass(rod_chain *c, const double *extra, const double *b,
                         double *x) {
  int st = rod_chain_mass_factor(c, extra);
  if (st != ROD_OK)
    return st;
  rod_chain_mass_solve(c, b, x);
  return ROD_OK;
}

int rod_chain_mass_factor(rod_chain *c, const double *extra) {
  const int n = c->n;
  c->factors++;
  /* Each link's own inertia copied as the pass reaches it (288 bytes, moved
   * inline), not all 288 n bytes up front by the C library's string copy:
   * 9 % of flexible_pendulum_pd's step instructions on 61 links. */
  if (n > 0)
    memcpy(c->IA + 36 * (n - 1), c->body_I + 36 * (n - 1), 36 * sizeof(double));
  for (int i = n - 1; i >= 0; i--) {
    double Ia[36];
    int st = articulate(c, i, extra, Ia);
    if (st != ROD_OK)
      return st;
    if (i > 0) {
      double *Ip = c->IA + 36 * (i - 1);
      memcpy(Ip, c->body_I + 36 * (i - 1), 36 * sizeof(double));
      sp_inertia_to_parent(Ip, c->E + 9 * i, c->link[i].offset, Ia);
    }
  }
  return ROD_OK;
}

long rod_chain_factor_count(const rod_chain *c) { return c->factors; }

void rod_chain_mass_solve(rod_chain *c, const double *b, double *x) {
  const int n = c->n;
  if (n > 0) /* zeroed link by link, as in the factorisation */
    memset(c->pA + 6 * (n - 1), 0, 6 * sizeof(double));
  for (int i = n - 1; i >= 0; i--) { /* bias forces of the load b alone */
    const rod_chain_link *l = &c->link[i];
    double *pA = c->pA + 6 * i, pa[6];
    memcpy(pa, pA, sizeof pa);
    if (!l->prescribed) {
      c->u[i] = b[i] - v3_dot(l->axis, pA);
      for (int k = 0; k < 6; k++)
        pa[k] += c->U[6 * i + k] * c->u[i] / c->D[i];
    }
    if (i > 0) {
      double back[6], *pp = c->pA + 6 * (i - 1);
      sp_xform_force_back(back, c->E + 9 * i, l->offset, pa);
      memset(pp, 0, 6 * sizeof(double));
      for (int k = 0; k < 6; k++)
        pp[k] += back[k];
    }
  }
  outward(c, x, false);
}
