/* Static equilibrium of the RFEM chain (the static state, docs/scenario.md):
 * the joint angles at which the springs balance gravity and the static tip
 * loads, by Levenberg-Marquardt (bvp/lm.h) on the free joint angles
 * with the exact Jacobian. Residual (scaled by L / EI, the moment scale of
 * solver.tolerance): r_i = (K q - G(q))_i,  G = -RNEA(q, 0, 0) the generalised
 * loads, Jacobian K - dG/dq (rod_chain_load_stiffness). The motor joint of a PD
 * drive adds kp (q - ref(0)); a prescribed one sits at ref(0). Maxwell
 * joints carry the whole load in their springs at t = 0 (Q = k q). */
#include <string.h>

#include "core/loads.h"
#include "rfem/rfem.h"
#include "rfem/rfem_contact.h"

int rfem_static_residual(const double *x, double *res, double *J, void *user) {
  rod_rfem *r = user;
  const int f0 = r->first_free, nf = r->nfree, n = r->nlinks;
  const double scale = r->L / r->EI;
  memcpy(r->q + f0, x, (size_t)nf * sizeof(double));
  memset(r->v, 0, (size_t)n * sizeof(double));
  rod_chain_update(r->chain, r->q, NULL);
  /* the static loads, and the contact forces as dead loads */
  rod_chain_load point_loads[RFEM_MAX_LOADS];
  rod_chain_load *loads = r->contact ? rfem_contact_loads(r) : point_loads;
  int nl = rfem_point_loads(r, 0.0, true, loads);
  if (r->contact)
    nl += rfem_contact_applied_loads(r, loads + nl);
  memset(r->fext, 0, 6 * (size_t)n * sizeof(double));
  for (int i = 0; i < nl; i++)
    rod_chain_add_point_force(r->chain, loads[i].body, loads[i].point,
                              loads[i].force, r->fext);
  rfem_couple couples[RFEM_MAX_LOADS];
  const int nc = rfem_couples(r, 0.0, true, couples);
  rfem_add_couples(r, nc, couples, r->fext);
  memset(r->full, 0, (size_t)n * sizeof(double));
  rod_chain_rnea(r->chain, r->full, r->fext, r->tau2); /* = -G */
  /* joint torques at rest; Maxwell springs hold Q = k q */
  for (int i = 0; i < n; i++)
    r->Q[i] = r->role[i] == RFEM_MOTOR ? 0.0 : r->k[i] * (r->q[i] - r->q0[i]);
  rfem_joint_torques(r, 0.0, r->q, r->v, r->Q, r->tau);
  r->evaluations++;
  for (int a = 0; a < nf; a++)
    res[a] = scale * (r->tau2[f0 + a] - r->tau[f0 + a]);
  if (!J)
    return 0;
  rod_chain_load_stiffness(r->chain, nl, loads, r->kbuf, n);
  rfem_couple_stiffness(r, nc, couples, r->kbuf, n);
  for (int b = 0; b < nf; b++)
    for (int a = 0; a < nf; a++) {
      double Kab = -r->kbuf[(f0 + a) + (size_t)(f0 + b) * n];
      if (a == b)
        Kab += r->k[f0 + a];
      J[a + (size_t)b * nf] = scale * Kab;
    }
  return 0;
}

int rfem_solve_static(rod_rfem *r, rod_step_stats *st) {
  memset(st, 0, sizeof *st);
  const int n = r->nlinks;
  memset(r->q, 0, (size_t)n * sizeof(double));
  memset(r->v, 0, (size_t)n * sizeof(double));
  memset(r->qdd, 0, (size_t)n * sizeof(double));
  if (r->prescribed)
    rod_motor_reference(&r->sc, 0.0, &r->q[0], &r->v[0]);
  r->v[0] = 0.0; /* the static state is at rest */
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = r->sc.solver.tolerance;
  o.max_iterations = r->sc.solver.max_iterations;
  o.lambda0 = 0.0; /* Newton steps first, damping only when they fail */
  rod_lm_stats ls;
  double *x = r->xs; /* the free angles, from the unloaded shape */
  memcpy(x, r->q0 + r->first_free, (size_t)r->nfree * sizeof(double));
  long ev0 = r->evaluations;
  int status = rod_lm_solve(r->lm, rfem_static_residual, x, &o, &ls, r);
  st->iterations = ls.iterations;
  st->integrations = (int)(r->evaluations - ev0);
  st->residual = ls.residual;
  st->method = ROD_METHOD_SIMPLE;
  r->t = 0.0;
  if (r->contact) { /* the rod on the bodies it would enter; a rod that
                       finds no equilibrium in the air may find one on them */
    if (status == ROD_OK)
      rfem_static_residual(x, r->rs, NULL, r); /* q, Q at the solution */
    status = rfem_contact_static(r, status == ROD_OK, st);
    st->integrations = (int)(r->evaluations - ev0);
    return status;
  }
  if (status != ROD_OK)
    return status;
  rfem_static_residual(x, r->rs, NULL, r); /* q, Q at the solution */
  return ROD_OK;
}
