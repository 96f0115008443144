/* The stepping room of the RFEM chain: one output step from r->t to t,
 * split at the jumps of the forcing (the prescribed motor's ramp, the ends
 * of base.motion_file) with a restart of the integrator at each, every
 * smooth segment taken by the free step (rfem_free_step.h) or, with
 * contact, by the contact step of the scenario's integrator
 * (rfem_contact_step.h): the nonsmooth generalized-alpha scheme, or the
 * explicit integrators with persistent forces and located impacts. */
#include <math.h>
#include <string.h>

#include "rfem/rfem_base.h"
#include "rfem/rfem_contact_step.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_step.h"

/* Times in [t0, t1) where the forcing jumps (the acceleration of the
 * prescribed or computed-torque motor's reference at the ramp's start and
 * end; the velocity of the clamp of
 * base.motion_file at its first and last time after 0), ascending;
 * returns how many (at most 2). */
static int breakpoints(const rod_rfem *r, double t0, double t1, double *out) {
  const rod_scenario *sc = &r->sc;
  double jumps[2];
  int nj = 0;
  if (sc->motor.enabled &&
      (r->prescribed || sc->motor.control == ROD_MOTOR_COMPUTED_TORQUE)) {
    jumps[nj++] = sc->motor.start;
    jumps[nj++] = sc->motor.start + sc->motor.ramp;
  } else if (r->inputs && r->inputs->base && !r->drive.base) {
    /* the table's ends, after the release (rfem_start_dynamics takes the
     * clamp's velocity at t = 0) */
    const rod_table *tab = r->inputs->base;
    const double first = rod_table_at(tab, 0, 0);
    const double last = rod_table_at(tab, tab->rows - 1, 0);
    if (first > 0)
      jumps[nj++] = first;
    if (last > 0 && last > first)
      jumps[nj++] = last;
  }
  /* times within 1e-9 of the step of t1 belong to the next step */
  const double slack = 1e-9 * (t1 - t0);
  int n = 0;
  for (int i = 0; i < nj; i++)
    if (jumps[i] >= t0 - slack && jumps[i] < t1 - slack)
      out[n++] = jumps[i] < t0 + slack ? t0 : jumps[i];
  return n;
}

int rfem_step(rod_rfem *r, double t, rod_step_stats *st) {
  memset(st, 0, sizeof *st);
  r->ga_substeps = 1;
  st->method = ROD_METHOD_SIMPLE;
  const long ev0 = r->evaluations;
  int status = ROD_OK;
  /* split at jumps of the forcing and restart there (a step across a jump
   * would see it as a ramp: a first-order error in the response) */
  double jumps[2];
  const int nj = breakpoints(r, r->t, t, jumps);
  for (int i = 0; i <= nj && status == ROD_OK; i++) {
    const double b = i < nj ? jumps[i] : t;
    if (b > r->t) {
      r->seg_lo = r->t;
      r->seg_hi = b;
      if (!r->contact)
        status = rfem_advance_free(r, b, st);
      else if (r->sc.rfem.integrator == ROD_RFEM_GENALPHA)
        status = rfem_contact_nsga_advance(r, b, st);
      else
        status = rfem_contact_advance(r, b, st);
    }
    if (status == ROD_OK && i < nj) {
      rfem_base_jump(r, b, false);
      status = rfem_restart(r);
    }
    if (st->rejected)
      break;
  }
  st->integrations = (int)(r->evaluations - ev0);
  if (status != ROD_OK)
    return status;
  for (int i = 0; i < r->nlinks; i++)
    if (!isfinite(r->q[i]) || !isfinite(r->v[i]))
      return ROD_ENONFINITE;
  return ROD_OK;
}
