/* The static residual of the RFEM chain (docs/numerics.md, Statics) and its
 * exact Jacobian, shared by the contact-free statics (rfem_static.c) and the
 * statics with contact (rfem_contact_static.c). Residual (scaled by L / EI,
 * the moment scale of solver.tolerance): r_i = (K (q - q0) - G(q))_i
 * (a 3D element's springs on its turn, rfem_joints.c),
 * G = -RNEA(q, 0, 0) the generalised loads (gravity, the static point loads
 * and couples, the applied contact forces as dead loads, the tendons);
 * Jacobian H = K - dG/dq (rfem_spring_stiffness, rod_chain_load_stiffness,
 * rfem_couple_stiffness, rfem_tendon_stiffness), for dead
 * loads the Hessian of the potential energy. Maxwell joints carry the whole
 * load in their springs (Q = k q). */
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_base.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_loads.h"
#include "rfem/rfem_static_residual.h"
#include "rfem/rfem_tendon.h"

int rfem_static_eval(const rfem_static_loads *ld, const double *x, double *res,
                     double *J) {
  rod_rfem *r = ld->r;
  const int f0 = r->first_free, nf = r->nfree, n = r->nlinks;
  const double scale = r->L / r->EI;
  memcpy(r->q + f0, x, (size_t)nf * sizeof(double));
  memset(r->v, 0, (size_t)n * sizeof(double));
  double g[3];
  v3_scale(g, ld->f, r->sc.environment.gravity);
  rod_chain_set_gravity(r->chain, g);
  rfem_place_base(r, 0.0, true);
  rod_chain_update(r->chain, r->q, NULL);
  /* the static loads, and the contact forces as dead loads */
  rod_chain_load point_loads[RFEM_MAX_LOADS];
  rod_chain_load *loads = r->contact ? rfem_contact_loads(r) : point_loads;
  int nl = rfem_point_loads(r, 0.0, true, loads);
  for (int i = 0; i < nl; i++)
    v3_scale(loads[i].force, ld->f, loads[i].force);
  v3_axpy(loads[0].force, ld->e, ld->extra); /* loads[0]: the tip */
  if (r->contact)
    nl += rfem_contact_applied_loads(r, loads + nl);
  memset(r->fext, 0, 6 * (size_t)n * sizeof(double));
  for (int i = 0; i < nl; i++)
    rod_chain_add_point_force(r->chain, loads[i].body, loads[i].point,
                              loads[i].force, r->fext);
  rfem_couple couples[RFEM_MAX_LOADS];
  const int nc = rfem_couples(r, 0.0, true, couples);
  for (int i = 0; i < nc; i++)
    v3_scale(couples[i].moment, ld->f, couples[i].moment);
  rfem_add_couples(r, nc, couples, r->fext);
  if (r->tendons) /* the tensions grow with the loads */
    rfem_tendon_forces(r, 0.0, ld->f, r->fext);
  memset(r->full, 0, (size_t)n * sizeof(double));
  rod_chain_rnea(r->chain, r->full, r->fext, r->tau2); /* = -G */
  /* joint torques at rest; Maxwell springs hold Q = k q */
  for (int i = 0; i < n; i++)
    r->Q[i] = r->role[i] == RFEM_MOTOR ? 0.0 : r->k[i] * (r->q[i] - r->q0[i]);
  rfem_joint_torques(r, 0.0, r->q, r->v, r->Q, r->tau);
  r->evaluations++;
  for (int a = 0; a < nf; a++)
    res[a] = scale * (r->tau2[f0 + a] - r->tau[f0 + a]);
  if (J) {
    rod_chain_load_stiffness(r->chain, nl, loads, r->kbuf, n);
    rfem_couple_stiffness(r, nc, couples, r->kbuf, n);
    if (r->tendons)
      rfem_tendon_stiffness(r, r->kbuf, n);
    if (!r->prescribed && r->sc.motor.control == ROD_MOTOR_COMPUTED_TORQUE)
      for (int b = 0; b < n; b++) /* its model term cancels the loads' */
        r->kbuf[(size_t)b * n] = 0.0;
    for (size_t i = 0; i < (size_t)n * n; i++)
      r->kbuf[i] = -r->kbuf[i];
    rfem_spring_stiffness(r, r->kbuf, n);
    for (int b = 0; b < nf; b++)
      for (int a = 0; a < nf; a++)
        J[a + (size_t)b * nf] =
            scale * r->kbuf[(f0 + a) + (size_t)(f0 + b) * n];
  }
  rod_chain_set_gravity(r->chain, r->sc.environment.gravity);
  return 0;
}

int rfem_static_residual(const double *x, double *res, double *J, void *user) {
  rfem_static_loads full = {.r = user, .f = 1.0};
  return rfem_static_eval(&full, x, res, J);
}
