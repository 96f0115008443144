/* The contact law's checks on the Kirchhoff/Cosserat rod (docs/contact.md):
 * Signorini's conditions, the velocity law of an impact and Coulomb's law
 * at the last sweep's nodes, the energy a contact step may not gain, and
 * the last check before a contact step is accepted (kr_contact_verify). */
#include <math.h>
#include <stdio.h>

#include "kirchhoff/kirchhoff_contact_data.h"

/* The first node whose force or gap breaks the contact conditions at the
 * last sweep, -1 when none (kirchhoff_contact_newton.c's complementary); why (n
 * bytes, or NULL) says how. */
int kr_contact_law_broken(const rod_kirchhoff *k, char *why, size_t n) {
  const kr_contact *c = k->contact;
  for (int i = 1; i < c->nodes; i++) {
    const double *f = c->f + 3 * i;
    if (!(c->gap[i] >= -c->tol)) { /* a NaN breaks it too */
      if (why)
        snprintf(why, n, "node %d lies %.3g m inside a body (tolerance %.3g m)",
                 i, -c->gap[i], c->tol);
      return i;
    }
    if (!(f[0] >= 0) && why) {
      if (why)
        snprintf(why, n, "node %d pulls on its body (%.3g N)", i, f[0]);
      return i;
    }
    if (c->vlaw[i]) { /* v_n+ >= -e v_n- _|_ F >= 0, to tol / dt */
      const double w = kr_contact_measured(k, i, 0);
      if (w < -c->tol || (f[0] > 0 && w > c->tol)) {
        if (why)
          snprintf(why, n,
                   "node %d misses its impact law by %.3g m/s (tolerance "
                   "%.3g m/s)",
                   i, fabs(w) / k->sc.time.dt, c->tol / k->sc.time.dt);
        return i;
      }
    } else if (f[0] > 0 && c->gap[i] > c->tol) {
      if (why)
        snprintf(why, n,
                 "node %d pushes with %.3g N from %.3g m off its body "
                 "(tolerance %.3g m)",
                 i, f[0], c->gap[i], c->tol);
      return i;
    }
    if (c->dim == 1 || f[0] == 0)
      continue;
    const double mu = c->world.item[kr_contact_body_of(k, i)].friction;
    const double s1 = kr_contact_measured(k, i, 1),
                 s2 = kr_contact_measured(k, i, 2);
    const double ft = hypot(f[1], f[2]), slip = hypot(s1, s2);
    if (ft > mu * f[0] * (1 + kr_contact_cone) ||
        (slip > c->tol &&
         (ft < mu * f[0] * (1 - kr_contact_cone) ||
          f[1] * s1 + f[2] * s2 > -(1 - kr_contact_cone) * ft * slip))) {
      if (why)
        snprintf(why, n,
                 "node %d's friction %.3g N (normal %.3g N, mu %.3g) breaks "
                 "Coulomb's law for its slip of %.3g m",
                 i, ft, f[0], mu, slip);
      return i;
    }
  }
  return -1;
}

/* The mechanical energy of the last sweep above the accepted state's plus
 * the work the forces may do while the nodes stay within the contact
 * tolerance of the bodies, 2 tol F at each (*bound, J); 0 where no force
 * pushes at the step's start or end (a free step: the scheme's own) or
 * something else works on the rod. */
static double energy_excess(const rod_kirchhoff *k, double *bound) {
  const kr_contact *c = k->contact;
  double work = 0;
  for (int i = 0; i < c->nodes; i++)
    work += 2.0 * c->tol * fmax(c->f[3 * i], c->fn_before[i]);
  *bound = work;
  if (!c->closed || work == 0)
    return 0;
  kr_energy e;
  kr_energies(k, &e);
  const double E = e.kinetic + e.elastic + e.gravity;
  const double limit =
      k->energy.kinetic + k->energy.elastic + k->energy.gravity + work;
  return E > limit || E != E ? E - limit : 0; /* a NaN stays */
}

bool kr_contact_energy_grew(const rod_kirchhoff *k) {
  double bound;
  return energy_excess(k, &bound) != 0;
}

bool kr_contact_verify(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  char why[160];
  double bound, excess = energy_excess(k, &bound);
  if (!(c->sweep_res <= k->sc.solver.tolerance))
    snprintf(why, sizeof why,
             "the rod's sweep misses its end conditions by %.3g (scaled, "
             "solver.tolerance %.3g)",
             c->sweep_res, k->sc.solver.tolerance);
  else if (kr_contact_law_broken(k, why, sizeof why) >= 0)
    ;
  else if (excess != 0)
    snprintf(why, sizeof why,
             "the mechanical energy rose by %.3g J beyond the %.3g J the "
             "contact forces may do within the tolerance",
             excess, bound);
  else
    return true;
  snprintf(c->refusal, sizeof c->refusal,
           "the contact step did not converge: %s", why);
  return false;
}
