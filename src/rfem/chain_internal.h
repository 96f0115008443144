/* Workspace of the rigid-body chain (rfem/chain.h), shared by the
 * chain_*.c files only. Every array is sized once in rod_chain_alloc. */
#ifndef ROD_CHAIN_INTERNAL_H
#define ROD_CHAIN_INTERNAL_H

#include <stdbool.h>

#include "core/v3.h"
#include "rfem/chain.h"

struct rod_chain {
  int n;
  rod_chain_link *link;
  double *body_I; /* n x 36: spatial inertia of each body (body frame) */
  double gravity[3];
  /* the base (link 0's parent), rod_chain_set_base; the world when !moving */
  bool moving;
  double base_R[9]; /* world <- base rotation */
  double base_p[3]; /* m, base origin in the world */
  double base_v[6]; /* spatial velocity, base coordinates */
  double base_a[6]; /* spatial acceleration, base coordinates */
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
  long factors;    /* passes that wrote U and D (rod_chain_factor_count) */
};

/* The root's spatial acceleration a0 (base coordinates) of a dynamics
 * pass: gravity as the base accelerating at -g (Featherstone 2008, sec.
 * 5.3), plus the moving base's own acceleration. */
static inline void chain_root_acceleration(const struct rod_chain *c,
                                           double a0[6]) {
  for (int k = 0; k < 6; k++)
    a0[k] = 0.0;
  if (!c->moving) {
    v3_scale(a0 + 3, -1.0, c->gravity);
    return;
  }
  double gb[3];
  m3_mul_tv(gb, c->base_R, c->gravity);
  for (int k = 0; k < 3; k++) {
    a0[k] = c->base_a[k];
    a0[3 + k] = c->base_a[3 + k] - gb[k];
  }
}

/* S = (axis, 0) of link i in body coordinates (the axis is fixed by the
 * turn about it). */
static inline const double *chain_axis(const struct rod_chain *c, int i) {
  return c->link[i].axis;
}

#endif
