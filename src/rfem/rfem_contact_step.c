/* Time stepping of the RFEM chain with contact under its explicit
 * integrators, RK45 and RK4 (docs/contact.md; generalized-alpha takes the
 * nonsmooth scheme of rfem_contact_nsga.c):
 *
 * - Persistent contacts (touching at the step's start, or pushing in the
 *   last step) carry forces that enter the smooth dynamics as joint
 *   torques J^T f, constant over the step, so the integrator keeps its
 *   order within the step and a resting rod is an exact equilibrium. f is
 *   the force whose end state meets the contact conditions,
 *   gap >= 0 _|_ f_n >= 0, and Coulomb's law on the step's slip; then a
 *   pushing contact neither enters nor leaves its body over the step. Its
 *   change comes from the contact problem with the step's linear response
 *   to f (rfem_contact_step_response) and the step is integrated again
 *   with it until the conditions hold to the contact tolerance.
 * - Impacts (a point that was apart at the start and would enter a body)
 *   are located in time by the Illinois method on the smallest gap,
 *   integrating to trial times from the step's start; there the velocities
 *   jump by the impulse of the contact problem in impulses,
 *   v+ = v- + M^-1 J^T p with J v+ >= -e J v- (Newton's restitution), the
 *   Delassus matrix J M^-1 J^T from the articulated-body factorisation
 *   (Carpentier et al., Pinocchio, "Dynamics: simulation and control"; the
 *   impact step of the course "Articulated body dynamics"); the integrator
 *   goes on from the new velocities (rfem_velocity_jump). With e = 0 and no
 *   friction the impulse projects v- on {J v >= 0} in the metric of M:
 *   the kinetic energy cannot grow. */
#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_contact_step.h"
#include "rfem/rfem_free_step.h"

enum { RFEM_MAX_CORRECTIONS = 200 };

/* The chain's kinematics at the state r->q, r->v, and its candidates. */
static void detect_here(rod_rfem *r) {
  rod_chain_update(r->chain, r->q, r->v);
  rfem_contact_detect(r, r->contact->margin);
}

static int in_list(const rfem_contact *list, int n, int obstacle, int slot) {
  for (int k = 0; k < n; k++)
    if (list[k].obstacle == obstacle && list[k].slot == slot)
      return k;
  return -1;
}

/* World forces (3 per contact) from unknowns l in the contacts' frames. */
static void forces_from(const rfem_contacts *c, const rfem_contact *list, int n,
                        const double *l, double *f) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 3; i++) {
      f[3 * k + i] = 0.0;
      for (int q = 0; q < c->rows; q++)
        f[3 * k + i] += l[c->rows * k + q] * list[k].frame[3 * q + i];
    }
}

/* ---- persistent contacts --------------------------------------------------
 */

/* The contacts of a step: touching at its start, or pushed on in the last
 * step, with the last step's forces (a prediction). */
static void begin_step(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  int n = 0;
  for (int k = 0; k < c->count; k++) {
    const rfem_contact *ct = &c->c[k];
    const double *last =
        c->slot_force + 3 * ((size_t)ct->obstacle * c->nslots + ct->slot);
    const bool pushed = last[0] != 0 || last[1] != 0 || last[2] != 0;
    if (ct->gap > c->tol && !pushed)
      continue;
    c->list[n] = *ct;
    v3_copy(c->fbuf + 3 * n, last);
    n++;
  }
  rfem_contact_set_forces(r, c->list, n, c->fbuf);
  rfem_contact_update_torque(r);
}

/* The joint torques of the applied forces with the kinematics of the
 * step's start: frozen over the step and through its corrections, so the
 * end state is a smooth function of the forces. */
static void torque_at_start(rod_rfem *r) {
  rod_chain_update(r->chain, r->saved_q, r->saved_v);
  rfem_contact_update_torque(r);
  rod_chain_update(r->chain, r->q, r->v);
}

/* Work of the contact torques over the step, from the saved start to the
 * current state. */
static double applied_work(rod_rfem *r) {
  const rfem_contacts *c = r->contact;
  double W = 0;
  /* every joint: a prescribed clamp's turn moves the contact points too,
   * and that part of their work is the motor's, not the contact's */
  for (int j = 0; j < r->nlinks; j++)
    W += c->torque[j] * (r->q[j] - r->saved_q[j]);
  return W;
}

/* New forces for the applied contacts from the end state (kinematics and
 * candidates current): the contact problem of the step's response. *done
 * when they would move the end state by less than the tolerance; the
 * forces that were integrated then stay. */
static int correct_forces(rod_rfem *r, double h, bool *done) {
  rfem_contacts *c = r->contact;
  /* the applied contacts as they are at the end */
  const int n = c->napplied;
  rfem_contact *list = c->list;
  for (int k = 0; k < n; k++) {
    rfem_contact_eval(r, c->applied[k].obstacle, c->applied[k].slot, &list[k]);
    v3_copy(c->fbuf + 3 * k, c->applied_force + 3 * k);
  }
  const int rows = rfem_contact_jacobian(r, list, n, c->rows);
  int st = n ? rfem_contact_step_response(r, rows, h) : ROD_OK;
  if (st != ROD_OK)
    return st;
  /* the model's error along the last correction: the gaps it moved
   * against the move G dl predicted (a secant on the scale of G, which
   * the linear model of an explicit integrator's step misses by ~20 %) */
  if (c->npred == n && n > 0) {
    double ap = 0, pp = 0;
    for (int k = 0; k < n; k++) {
      ap += (list[k].gap - c->gprev[k]) * c->pred[k];
      pp += c->pred[k] * c->pred[k];
    }
    const double ratio = pp > 0 ? ap / pp : 1.0;
    if (isfinite(ratio))
      c->gscale = fmin(fmax(c->gscale * fmin(fmax(ratio, 0.2), 5.0), 0.1), 10);
  }
  c->npred = 0;
  for (size_t i = 0; i < (size_t)rows * rows; i++)
    c->G[i] *= c->gscale;
  /* the forces in the end frames, and b = (gap, tangential displacement of
   * the point over the step) - G l: Coulomb's law on the step's slip */
  rod_chain_update(r->chain, r->saved_q, r->saved_v);
  for (int k = 0; k < n; k++)
    rod_chain_point(r->chain, list[k].link, list[k].r, c->xstart + 3 * k, NULL);
  rod_chain_update(r->chain, r->q, r->v);
  for (int k = 0; k < n; k++) {
    double slip[3];
    v3_sub(slip, list[k].x, c->xstart + 3 * k);
    for (int q = 0; q < c->rows; q++) {
      const int i = c->rows * k + q;
      c->l[i] = v3_dot(list[k].frame + 3 * q, c->fbuf + 3 * k);
      c->b[i] = q == 0 ? list[k].gap : v3_dot(list[k].frame + 3 * q, slip);
    }
  }
  for (int i = 0; i < rows; i++) {
    double s = 0;
    for (int j = 0; j < rows; j++)
      s += c->G[i + (size_t)j * rows] * c->l[j];
    c->b[i] -= s;
  }
  memcpy(c->l1, c->l, (size_t)rows * sizeof(double));
  if (n) {
    st = rfem_contact_solve(r, list, n);
    if (st != ROD_OK)
      return st;
  }
  /* the change moves the end's points by G dl */
  double move = 0;
  for (int i = 0; i < rows; i++) {
    double s = 0;
    for (int j = 0; j < rows; j++)
      s += c->G[i + (size_t)j * rows] * (c->l[j] - c->l1[j]);
    move = fmax(move, fabs(s));
  }
  *done = move <= c->tol;
  if (*done)
    return ROD_OK;
  for (int k = 0; k < n; k++) { /* the normal move predicted, for the secant */
    const int i = c->rows * k;
    double s = 0;
    for (int j = 0; j < rows; j++)
      s += c->G[i + (size_t)j * rows] * (c->l[j] - c->l1[j]);
    c->pred[k] = s;
    c->gprev[k] = list[k].gap;
  }
  c->npred = n;
  forces_from(c, list, n, c->l, c->fbuf);
  rfem_contact_set_forces(r, list, n, c->fbuf);
  torque_at_start(r);
  return ROD_OK;
}

/* ---- the step -------------------------------------------------------------
 */

/* Smallest gap at the current state of the candidates that carry no force
 * in this step (INFINITY if none). */
static double new_contact_gap(const rfem_contacts *c) {
  double g = INFINITY;
  for (int k = 0; k < c->count; k++)
    if (in_list(c->applied, c->napplied, c->c[k].obstacle, c->c[k].slot) < 0)
      g = fmin(g, c->c[k].gap);
  return g;
}

/* Integrate from the saved start to t with the applied forces and detect
 * there. */
static int integrate_to(rod_rfem *r, double t, rod_step_stats *st) {
  rfem_restore(r);
  int status = rfem_advance_free(r, t, st);
  if (status == ROD_OK)
    detect_here(r);
  return status;
}

/* A trial of locate_impact: integrate from the saved start to t and take
 * the smallest gap of the new contacts there. */
static int free_trial(rod_rfem *r, double t, void *user, double *gap) {
  int status = integrate_to(r, t, user);
  *gap = status == ROD_OK ? new_contact_gap(r->contact) : 0;
  return status;
}

/* The first time in (t0, t1] where a new contact's gap reaches zero (to the
 * tolerance); leaves the state there. */
static int locate_impact(rod_rfem *r, double t0, double g0, double t1,
                         double g1, rod_step_stats *st) {
  return rfem_locate_zero_gap(r, t0, g0, t1, g1, free_trial, st);
}

int rfem_contact_advance(rod_rfem *r, double t_end, rod_step_stats *st) {
  rfem_contacts *c = r->contact;
  const double eps = 1e-12 * r->sc.time.dt;
  while (r->t < t_end - eps) {
    const double t0 = r->t;
    const double te = t_end;
    detect_here(r);
    begin_step(r);
    c->npred = 0;
    const double g_start = fmin(new_contact_gap(c), c->margin);
    rfem_save(r);
    int status = integrate_to(r, te, st);
    if (status != ROD_OK)
      return status;
    /* the forces of the persistent contacts for the whole step */
    for (int it = 0;; it++) {
      bool done = false;
      status = correct_forces(r, te - t0, &done);
      if (status != ROD_OK)
        return status;
      if (done)
        break;
      if (it >= RFEM_MAX_CORRECTIONS)
        return ROD_ENOCONV;
      c->corrections++;
      status = integrate_to(r, te, st);
      if (status != ROD_OK)
        return status;
    }
    /* a point that was apart and entered a body: the impact's time, its
     * impulse, and the rest of the step anew from there */
    const double g_end = new_contact_gap(c);
    if (g_end < -c->tol) {
      status = locate_impact(r, t0, g_start, te, g_end, st);
      if (status != ROD_OK)
        return status;
      c->dissipated -= applied_work(r);
      status = rfem_contact_impulse(r);
      if (status == ROD_OK)
        status = rfem_velocity_jump(r);
      if (status != ROD_OK)
        return status;
      continue;
    }
    c->dissipated -= applied_work(r);
  }
  return ROD_OK;
}
