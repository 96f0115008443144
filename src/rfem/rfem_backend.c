/* The RFEM backend behind rod_backend_ops (sim/backend.h): a chain of
 * rigid cylinders joined by spring-damper elements (Wittbrodt et al. 2006;
 * Featherstone 2008; Iwamura et al.), sampled at s = 0, the joints and L
 * (docs/hdf5.md), internal forces and moments included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem_base.h"
#include "rfem/rfem_build.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_loads.h"
#include "rfem/rfem_static.h"
#include "rfem/rfem_step.h"
#include "rfem/rfem_tendon.h"
#include "sim/backend.h"

static void destroy(void *self) {
  rod_rfem *r = self;
  if (!r)
    return;
  rod_chain_free(r->chain);
  rod_inputs_free(r->inputs);
  rod_genalpha_free(r->ga);
  rod_rk45_free(r->rk45);
  rod_lm_free(r->lm);
  free(r->role);
  free(r->k);
  free(r->c);
  free(r->q0);
  free(r->el);
  free(r->q);
  free(r->v);
  free(r->qdd);
  free(r->Q);
  free(r->Q_new);
  free(r->v_start);
  free(r->fext);
  free(r->tau);
  free(r->tau2);
  free(r->extra);
  free(r->full);
  free(r->xs);
  free(r->rs);
  free(r->kbuf);
  free(r->ct_acc);
  free(r->ct_tau);
  free(r->ga_save);
  free(r->y);
  free(r->ode_work);
  free(r->atol);
  free(r->s_out);
  free(r->out_pos);
  free(r->out_quat);
  free(r->out_vel);
  free(r->out_force);
  free(r->out_moment);
  free(r->saved_q);
  free(r->saved_v);
  free(r->saved_qdd);
  free(r->saved_Q);
  free(r->saved_ga);
  free(r->saved_y);
  rfem_contact_free(r->contact);
  rfem_tendon_free(r->tendons);
  free(r);
}

/* Absolute tolerances of rk45 for y = (q, v, Q): a joint angle error of
 * rtol / n rad moves the tip by about rtol L; rates scale with the first
 * cantilever frequency 3.516 sqrt(EI / (rho A L^4)), torques with k. */
static void set_tolerances(rod_rfem *r) {
  const int nf = r->nfree;
  const double aq = r->sc.rfem.rtol / r->sc.rfem.segments;
  const double L = r->L;
  const double w1 = 3.516 * sqrt(r->EI / (r->model.rho_area * L * L * L * L));
  for (int a = 0; a < nf; a++) {
    r->atol[a] = aq;
    r->atol[nf + a] = aq * w1;
  }
  for (int i = 1; r->maxwell && i < r->nlinks; i++)
    r->atol[2 * nf + i - 1] = aq * r->k[i];
}

static int create(const rod_scenario *sc, void **self, rod_error *err) {
  if (sc->rfem.joint == ROD_JOINT_MAXWELL && !(sc->rfem.maxwell_time > 0))
    return rod_error_set(err, ROD_EINVAL, sc->source, "rfem.maxwell_time",
                         "must be > 0 for maxwell joints");
  rod_rfem *r = calloc(1, sizeof *r);
  if (!r)
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  r->sc = *sc;
  atomic_init(&r->static_progress, -1.0);
  rod_model_init(&r->model, sc);
  int st = rod_inputs_load(sc, &r->inputs, err);
  if (st != ROD_OK) {
    free(r);
    return st;
  }
  if (r->inputs->precurvature)
    rod_model_set_precurvature_table(&r->model, r->inputs->precurvature->data,
                                     r->inputs->precurvature->rows);
  r->EI = rod_model_bending_stiffness(sc);
  r->L = sc->rod.length;
  st = rfem_build(r);
  if (st == ROD_OK) {
    const size_t nf = (size_t)r->nfree;
    r->ny = 2 * r->nfree + (r->maxwell ? r->nlinks - 1 : 0);
    r->ga = rod_genalpha_alloc(r->nfree);
    r->ga_save = calloc(4 * nf + (size_t)r->nlinks, sizeof(double));
    r->rk45 = rod_rk45_alloc(r->ny);
    r->y = calloc((size_t)r->ny, sizeof(double));
    r->atol = calloc((size_t)r->ny, sizeof(double));
    r->ode_work = calloc(rod_rk4_work_size(r->ny), sizeof(double));
    r->lm = rod_lm_alloc(r->nfree, r->nfree);
    if (!r->ga || !r->ga_save || !r->rk45 || !r->y || !r->atol ||
        !r->ode_work || !r->lm)
      st = ROD_ENOMEM;
  }
  if (st == ROD_EINVAL) {
    destroy(r);
    return rod_error_set(err, st, sc->source, "rfem.planar",
                         "the precurvature turns the rod out of the chain's "
                         "bending plane (set rfem.planar = false)");
  }
  if (st == ROD_OK)
    st = rfem_contact_create(r);
  if (st == ROD_OK)
    st = rfem_tendon_create(r);

  if (st == ROD_OK && r->contact) { /* the contact stepper's re-integrations */
    const size_t nl = (size_t)r->nlinks;
    r->saved_q = calloc(nl, sizeof(double));
    r->saved_v = calloc(nl, sizeof(double));
    r->saved_qdd = calloc(nl, sizeof(double));
    r->saved_Q = calloc(nl, sizeof(double));
    r->saved_ga = calloc(4 * (size_t)r->nfree + nl, sizeof(double));
    r->saved_y = calloc((size_t)r->ny, sizeof(double));
    if (!r->saved_q || !r->saved_v || !r->saved_qdd || !r->saved_Q ||
        !r->saved_ga || !r->saved_y)
      st = ROD_ENOMEM;
  }
  if (st != ROD_OK) {
    destroy(r);
    return rod_error_set(err, st, sc->source, "rfem.segments",
                         "out of memory for %d segments", sc->rfem.segments);
  }
  rod_genalpha_params gp =
      rod_genalpha_params_from_radius(sc->rfem.spectral_radius);
  rod_genalpha_set_params(r->ga, gp);
  r->ga_beta = gp.beta;
  r->ga_keep = true;
  r->step_tolerance = INFINITY;
  if (sc->time.has_tolerance) /* Newton follows the step's error: a scaled
                                 residual x turns a joint by about x rad */
    r->sc.solver.tolerance = fmax(0.1 * sc->time.tolerance / r->L, 1e-12);
  set_tolerances(r);
  *self = r;
  return ROD_OK;
}

/* The tendons' forces and friction at the current state, as sample
 * evaluates them (r->fext its scratch), for their works. */
static void tendon_loads_now(rod_rfem *r) {
  rfem_place_base(r, r->t, r->at_static);
  rod_chain_update(r->chain, r->q, r->v);
  rfem_external_forces(r, r->t, r->at_static, r->fext);
}

static int solve_static(void *self, rod_step_stats *st) {
  rod_rfem *r = self;
  if (r->drive.base)
    rfem_drive_static(r);
  int status = rfem_solve_static(r, st);
  if (status != ROD_OK)
    return status;
  r->at_static = true;
  if (r->contact && r->sc.rfem.integrator != ROD_RFEM_GENALPHA)
    /* the static contact forces act at 0+ until the first step changes
       them */
    rfem_contact_update_torque(r);
  else if (r->contact) /* the nonsmooth scheme's first multipliers: the
                          statics' forces at both levels */
    memcpy(r->contact->slot_pos, r->contact->slot_force,
           3 * (size_t)r->contact->world.count * r->contact->nslots *
               sizeof(double));
  status = rfem_start_dynamics(r);
  if (status == ROD_OK && r->tendons) {
    tendon_loads_now(r);
    rfem_tendon_work_start(r->tendons);
  }
  return status;
}

static double static_progress(void *self) {
  rod_rfem *r = self;
  return atomic_load_explicit(&r->static_progress, memory_order_relaxed);
}

static void static_report(void *self, rod_static_report *rep) {
  *rep = ((rod_rfem *)self)->static_report;
}

static int step(void *self, double t, rod_step_stats *st) {
  rod_rfem *r = self;
  r->at_static = false;
  if (r->drive.base)
    rfem_drive_step(r, t);
  const double t0 = r->t;
  const int status = rfem_step(r, t, st);
  if (status == ROD_OK && !st->rejected && r->tendons) {
    tendon_loads_now(r);
    rfem_tendon_work_step(r->tendons, r->t - t0);
  }
  return status;
}

/* Internal force n and moment m (world frame) at the points, in the
 * sense of docs/hdf5.md: what the part beyond the point exerts on the part
 * before it. At a joint that is minus the force the RNEA transmits across
 * it to the distal element (the chain's kinematics are current); at the
 * tip, the tip loads; the backbone's own, without the pull of the tendons
 * crossing the clamp or anchored at the tip. */
static void internal_forces(rod_rfem *r) {
  const int n = r->nlinks;
  rfem_external_forces(r, r->t, r->at_static, r->fext);
  if (r->contact) /* the contact forces where they act */
    rfem_contact_add_forces(r, r->fext);
  if (r->at_static)
    memset(r->full, 0, (size_t)n * sizeof(double));
  else
    memcpy(r->full, r->qdd, (size_t)n * sizeof(double));
  rod_chain_rnea(r->chain, r->full, r->fext, r->tau2);
  for (int p = 0; p < r->nelements; p++) {
    const int link = r->el[p].link;
    const double *f = rod_chain_joint_force(r->chain, link);
    double R[9];
    rod_chain_pose(r->chain, link, R, NULL);
    m3_mul_v(r->out_moment + 3 * p, R, f);
    m3_mul_v(r->out_force + 3 * p, R, f + 3);
    v3_scale(r->out_moment + 3 * p, -1.0, r->out_moment + 3 * p);
    v3_scale(r->out_force + 3 * p, -1.0, r->out_force + 3 * p);
  }
  double *nL = r->out_force + 3 * r->nelements;
  double *mL = r->out_moment + 3 * r->nelements;
  v3_set(nL, 0, 0, 0);
  v3_set(mL, 0, 0, 0);
  rfem_couple couples[RFEM_MAX_LOADS];
  const int nc = rfem_couples(r, r->t, r->at_static, couples);
  for (int c = 0; c < nc; c++)
    if (couples[c].tip)
      v3_add(mL, mL, couples[c].moment);
  rod_chain_load loads[RFEM_MAX_LOADS];
  const int nl = rfem_point_loads(r, r->t, r->at_static, loads);
  const rfem_element *tip = &r->el[r->tip_element];
  for (int i = 0; i < nl; i++)
    if (loads[i].body == tip->link && loads[i].point[2] >= tip->length)
      v3_add(nL, nL, loads[i].force);
  if (r->tendons) /* the backbone's own, as the rod's */
    rfem_tendon_ends(r, r->out_pos, r->out_force, r->out_moment,
                     r->out_pos + 3 * r->nelements, nL, mL);
}

/* Points: the proximal end of every element (s = 0 and the joints), then
 * the tip; orientation of the element distal to the point. */
static int sample(void *self, rod_sample *out) {
  rod_rfem *r = self;
  rfem_place_base(r, r->t, r->at_static);
  rod_chain_update(r->chain, r->q, r->v);
  const double origin[3] = {0, 0, 0};
  for (int p = 0; p < r->npoints; p++) {
    const bool tip = p == r->nelements;
    const rfem_element *e = &r->el[tip ? r->nelements - 1 : p];
    double end[3] = {0, 0, tip ? e->length : 0.0}, R[9];
    rod_chain_point(r->chain, e->link, tip ? end : origin, r->out_pos + 3 * p,
                    r->out_vel + 3 * p);
    rod_chain_pose(r->chain, e->link, R, NULL);
    R_to_quat(r->out_quat + 4 * p, R);
  }
  out->points = r->npoints;
  out->s = r->s_out;
  out->position = r->out_pos;
  out->orientation = r->out_quat;
  out->velocity = r->out_vel;
  internal_forces(r);
  out->force = r->out_force;
  out->moment = r->out_moment;
  if (r->contact) {
    rfem_contacts *c = r->contact;
    if (!rfem_contact_current(r))
      rfem_contact_detect(r, r->contact->margin);
    rfem_contact_output(r);
    out->contact_force = c->out_force;
    out->contact_active = c->out_active;
    out->contact_gap_min = c->gap_min;
    out->dissipated_contact = c->dissipated;
  }
  out->tendons = r->tendons ? r->tendons->count : 0;
  out->tendon_tension = r->tendons ? r->tendons->tension : NULL;
  out->tendon_length = r->tendons ? r->tendons->length : NULL;
  out->tendon_work = r->tendons ? r->tendons->work : 0.0;
  out->tendon_friction_work = r->tendons ? r->tendons->friction_work : 0.0;
  out->kinetic = rod_chain_kinetic_energy(r->chain);
  out->elastic = rfem_elastic_energy(r);
  out->gravity = rod_chain_gravity_energy(r->chain);
  return ROD_OK;
}

/* Loads take effect at the next solve; a clamp set between steps moves
 * the chain's base (rfem_base.c), but not the motor joint's clamp nor
 * with contact (whose stepper goes back to a step's start). */
static int set_drive(void *self, const rod_drive *d, rod_error *err) {
  rod_rfem *r = self;
  if (d->base && (r->sc.motor.enabled || r->contact))
    return rod_error_set(err, ROD_EUNSUPPORTED, r->sc.source, "base",
                         "the rfem backend cannot move its clamp between "
                         "steps with %s (use solver.backend = kirchhoff)",
                         r->sc.motor.enabled ? "[motor]" : "contact bodies");
  if (d->base)
    rfem_drive_set(r);
  r->drive = *d;
  return ROD_OK;
}

static void set_tolerance(void *self, double tol) {
  rod_rfem *r = self;
  r->step_tolerance = tol;
}

const rod_backend_ops rod_backend_rfem = {
    .name = "rfem",
    .create = create,
    .destroy = destroy,
    .solve_static = solve_static,
    .static_report = static_report,
    .static_progress = static_progress,
    .step = step,
    .sample = sample,
    .set_drive = set_drive,
    .set_tolerance = set_tolerance,
};
