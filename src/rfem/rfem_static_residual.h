/* The chain's static residual and its exact Jacobian
 * (rfem_static_residual.c), at loads scaled for a loading path. Above the
 * joints, loads, base and the contact room (the applied contact forces are
 * dead loads); below the statics (rfem_static.c) and the statics with
 * contact (rfem_contact_static.c). */
#ifndef ROD_RFEM_STATIC_RESIDUAL_H
#define ROD_RFEM_STATIC_RESIDUAL_H

#include "rfem/rfem_state.h"

/* The loads of a static solve: scale f of the scenario's (gravity, tip
 * and point loads, couples) and the imperfection e * extra at the tip. */
typedef struct {
  rod_rfem *r;
  double f, e;
  double extra[3]; /* N */
  bool release;    /* the path's lambda takes the imperfection away */
} rfem_static_loads;

/* The residual res (nfree, scaled by L / EI) of the free angles x under
 * the loads ld, and its Jacobian J (nfree^2, column-major; may be NULL);
 * leaves the chain's kinematics, r->q and the Maxwell torques r->Q at x.
 * Returns 0. */
int rfem_static_eval(const rfem_static_loads *ld, const double *x, double *res,
                     double *J);
/* The same under the scenario's loads: a rod_lm_residual, with user the
 * backend. The contact forces applied (rfem_contact_set_forces) count as
 * dead loads. */
int rfem_static_residual(const double *x, double *res, double *J, void *user);

#endif
