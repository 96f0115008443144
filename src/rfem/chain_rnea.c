/* Recursive Newton-Euler inverse dynamics (Featherstone 2008, ch. 5;
 * Featherstone 2008, table 5.1): accelerations outward, body forces inward.
 * O(n). */
#include "chain_internal.h"
#include "chain_spatial.h"

void rod_chain_rnea(rod_chain *c, const double *qdd, const double *fext,
                    double *tau) {
  double a0[6]; /* gravity as a base acceleration, and the base's own */
  chain_root_acceleration(c, a0);
  for (int i = 0; i < c->n; i++) {
    const rod_chain_link *l = &c->link[i];
    const double *ap = i ? c->acc + 6 * (i - 1) : a0;
    double *ai = c->acc + 6 * i, *fi = c->f + 6 * i;
    const double *vi = c->v + 6 * i;
    /* a_i = X_i a_parent + c_i + S qdd_i */
    sp_xform_motion(ai, c->E + 9 * i, l->offset, ap);
    for (int k = 0; k < 6; k++)
      ai[k] += c->c[6 * i + k];
    v3_axpy(ai, qdd[i], l->axis);
    /* f_i = I a_i + v_i x* I v_i - fext_i */
    double Iv[6], vIv[6];
    sp_body_apply(fi, l->mass, l->com, l->inertia, ai);
    sp_body_apply(Iv, l->mass, l->com, l->inertia, vi);
    sp_cross_force(vIv, vi, Iv);
    for (int k = 0; k < 6; k++)
      fi[k] += vIv[k] - (fext ? fext[6 * i + k] : 0.0);
  }
  for (int i = c->n - 1; i >= 0; i--) {
    const rod_chain_link *l = &c->link[i];
    tau[i] = v3_dot(l->axis, c->f + 6 * i) + l->armature * qdd[i];
    if (i > 0) {
      double back[6];
      sp_xform_force_back(back, c->E + 9 * i, l->offset, c->f + 6 * i);
      for (int k = 0; k < 6; k++)
        c->f[6 * (i - 1) + k] += back[k];
    }
  }
}

const double *rod_chain_joint_force(const rod_chain *c, int i) {
  return c->f + 6 * i;
}
