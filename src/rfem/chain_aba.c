/* Featherstone's articulated-body algorithm (Featherstone 2008, ch. 7;
 * Featherstone 2008, table 7.1) for revolute joints: an inward pass of
 * articulated inertias IA and bias forces pA, then an outward pass of
 * accelerations. O(n), no allocation. The same passes with zero velocity,
 * gravity and external force solve (M + diag(extra)) x = b. */
#include <math.h>
#include <string.h>

#include "chain_internal.h"
#include "chain_spatial.h"
#include "rod/status.h"

/* Inward pass. dynamic: velocity products, fext and the prescribed joints'
 * accelerations enter; otherwise every bias is zero and prescribed joints
 * are locked. tau holds the joint forces (or b). */
static int inward(rod_chain *c, const double *tau, const double *fext,
                  const double *extra, const double *qdd, bool dynamic) {
  const int n = c->n;
  for (int i = 0; i < n; i++) {
    const rod_chain_link *l = &c->link[i];
    memcpy(c->IA + 36 * i, c->body_I + 36 * i, 36 * sizeof(double));
    double *pA = c->pA + 6 * i;
    if (dynamic) { /* pA = v x* I v - fext */
      double Iv[6];
      sp_body_apply(Iv, l->mass, l->com, l->inertia, c->v + 6 * i);
      sp_cross_force(pA, c->v + 6 * i, Iv);
      if (fext)
        for (int k = 0; k < 6; k++)
          pA[k] -= fext[6 * i + k];
    } else {
      memset(pA, 0, 6 * sizeof(double));
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    const rod_chain_link *l = &c->link[i];
    const double *a = l->axis;
    double *IA = c->IA + 36 * i, *pA = c->pA + 6 * i, *U = c->U + 6 * i;
    for (int k = 0; k < 6; k++)
      U[k] = IA[6 * k] * a[0] + IA[6 * k + 1] * a[1] + IA[6 * k + 2] * a[2];
    double D = v3_dot(a, U) + l->armature + (extra ? extra[i] : 0.0);
    c->D[i] = D;
    double Ia[36], pa[6];
    memcpy(Ia, IA, sizeof Ia);
    memcpy(pa, pA, sizeof pa);
    const double *ci = c->c + 6 * i;
    if (l->prescribed) {
      if (dynamic) { /* pa = pA + IA (c + S qdd) */
        double m[6], Im[6];
        for (int k = 0; k < 6; k++)
          m[k] = ci[k] + (k < 3 ? a[k] * qdd[i] : 0.0);
        sp_mat_apply(Im, IA, m);
        for (int k = 0; k < 6; k++)
          pa[k] += Im[k];
      }
    } else {
      if (!(D > 0) || !isfinite(D))
        return ROD_ESING;
      c->u[i] = tau[i] - v3_dot(a, pA);
      /* Ia = IA - U U^T / D; pa = pA + Ia c + U u / D (eq. 7.41-7.42) */
      for (int r = 0; r < 6; r++)
        for (int k = 0; k < 6; k++)
          Ia[6 * r + k] -= U[r] * U[k] / D;
      double Ic[6] = {0};
      if (dynamic)
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
 * accelerates at -g to account for gravity (dynamic only). */
static void outward(rod_chain *c, double *qdd, bool dynamic) {
  double a0[6] = {0, 0, 0, 0, 0, 0};
  if (dynamic)
    v3_scale(a0 + 3, -1.0, c->gravity);
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
  int st = inward(c, tau, fext, NULL, qdd, true);
  if (st != ROD_OK)
    return st;
  outward(c, qdd, true);
  return ROD_OK;
}

int rod_chain_solve_mass(rod_chain *c, const double *extra, const double *b,
                         double *x) {
  int st = inward(c, b, NULL, extra, x, false);
  if (st != ROD_OK)
    return st;
  outward(c, x, false);
  return ROD_OK;
}
