/* Workspace of the rigid-body chain (include/rod/chain.h), shared by the
 * chain_*.c files only. Every array is sized once in rod_chain_alloc. */
#ifndef ROD_CHAIN_INTERNAL_H
#define ROD_CHAIN_INTERNAL_H

#include "rfem/chain.h"

struct rod_chain {
  int n;
  rod_chain_link *link;
  double *body_I; /* n x 36: spatial inertia of each body (body frame) */
  double gravity[3];
  /* rod_chain_update */
  double *q, *dq; /* n, the state of the last update */
  double *E;      /* n x 9: rotation parent -> body coordinates */
  double *R;      /* n x 9: world <- body rotation */
  double *p;      /* n x 3: body origin in the world, m */
  double *v;      /* n x 6: body spatial velocity, body frame */
  double *c;      /* n x 6: velocity-product acceleration v x S dq */
  /* dynamics passes */
  double *IA;      /* n x 36: articulated (ABA) or composite (CRBA) inertia */
  double *pA;      /* n x 6: articulated bias force */
  double *U;       /* n x 6: IA S */
  double *D;       /* n: S^T IA S + armature */
  double *u;       /* n: tau - S^T pA */
  double *acc;     /* n x 6: body spatial acceleration */
  double *f;       /* n x 6: RNEA body force */
  double *h;       /* n: bias torques (forward_crba) */
  double *rhs;     /* n: packed right-hand side (forward_crba) */
  int *free_index; /* n: free joints in order (forward_crba) */
};

/* S = (axis, 0) of link i in body coordinates (the axis is fixed by the
 * turn about it). */
static inline const double *chain_axis(const struct rod_chain *c, int i) {
  return c->link[i].axis;
}

#endif
