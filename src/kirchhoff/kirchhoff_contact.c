/* Contact of the Kirchhoff/Cosserat rod with the scenario's bodies
 * (docs/contact.md): the contact room's data and the forces' records. The
 * distributed contact force fbar(s) of the rod's equations (Till & Rucker
 * 2017, eq. 4: n_s = ... - f) is lumped at the grid nodes, a force F_i n_i
 * >= 0 at node i along the outward normal n_i of the body it touches (the
 * trapezoidal rule of fbar; n jumps by -F_i n_i there, as at a point load).
 * The conditions are Signorini's at the nodes, gap_i >= 0 _|_ F_i >= 0: an
 * exact active set, no penalty, so a pressed node lies on the body to the
 * contact tolerance solver.tolerance x rod.length. This file owns the
 * forces (creation, the nodes' jumps, save and restore, the accepted step's
 * work, samples), the gaps and measured values at the last sweep, and the
 * impacts' state; the Newton on the forces is kirchhoff_contact_newton.c,
 * the law's checks kirchhoff_contact_law.c, the bodies passed through
 * kirchhoff_contact_swept.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_contact_data.h"

void kr_contact_free(kr_contact *c) {
  if (!c)
    return;
  free(c->f);
  free(c->mu);
  free(c->saved);
  free(c->saved_pos);
  free(c->pos_before);
  free(c->normal);
  free(c->gap);
  free(c->gnorm);
  free(c->cand);
  free(c->C);
  free(c->b);
  free(c->l);
  free(c->g0);
  free(c->V);
  free(c->ev);
  free(c->work);
  rod_contact_solver_free(c->solver);
  free(c->out_force);
  free(c->out_active);
  free(c->fn_before);
  free(c->vlaw);
  free(c->vn_before);
  free(c->e_node);
  free(c->vnorm);
  free(c->w_before);
  free(c->dw);
  free(c->band0);
  free(c->brhs0);
  free(c->band);
  free(c->brhs);
  free(c->ipm);
  free(c->bgrad);
  free(c->bpiv);
  free(c->bact);
  free(c);
}

int kr_contact_create(rod_kirchhoff *k) {
  k->contact = NULL;
  rod_contact_world w;
  rod_contact_world_init(&w, &k->sc);
  if (w.count == 0)
    return ROD_OK;
  kr_contact *c = calloc(1, sizeof *c);
  if (!c)
    return ROD_ENOMEM;
  const size_t N = (size_t)k->nodes;
  /* the unknowns: one per node, three with friction */
  const size_t U = (w.friction ? 3 : 1) * N;
  c->world = w;
  c->nodes = k->nodes;
  c->tol = k->sc.solver.tolerance * k->sc.rod.length;
  c->margin = 2.0 * w.rod_radius;
  c->f = calloc(3 * N, sizeof(double));
  c->mu = calloc(N, sizeof(double));
  c->saved = calloc(3 * N, sizeof(double));
  c->saved_pos = calloc(3 * N, sizeof(double));
  c->pos_before = calloc(3 * N, sizeof(double));
  c->normal = calloc(3 * N, sizeof(double));
  c->gap = calloc(N, sizeof(double));
  c->gnorm = calloc(3 * N, sizeof(double));
  c->cand = calloc(N, sizeof(int));
  c->C = calloc(U * U, sizeof(double));
  c->b = calloc(U, sizeof(double));
  c->l = calloc(U, sizeof(double));
  c->g0 = calloc(U, sizeof(double));
  c->V = calloc(U * U, sizeof(double));
  c->ev = calloc(U, sizeof(double));
  c->lwork = 34 * (int)U; /* dsyev: (nb + 2) N, nb the block size */
  c->work = calloc((size_t)c->lwork, sizeof(double));
  c->solver = rod_contact_solver_alloc((int)U, 1);
  c->out_force = calloc(3 * N, sizeof(double));
  c->out_active = calloc(N, sizeof(signed char));
  c->fn_before = calloc(N, sizeof(double));
  c->vlaw = calloc(N, sizeof(signed char));
  c->vn_before = calloc(N, sizeof(double));
  c->e_node = calloc(N, sizeof(double));
  c->vnorm = calloc(3 * N, sizeof(double));
  c->w_before = calloc(U, sizeof(double));
  c->dw = calloc(U, sizeof(double));
  const size_t nz = (size_t)KR_BAND_UNKNOWNS * N;
  const size_t band = (size_t)KR_BAND_LDAB * nz;
  c->band0 = malloc(band * sizeof(double));
  c->band = malloc(band * sizeof(double));
  c->brhs0 = malloc(nz * sizeof(double));
  c->brhs = malloc(nz * sizeof(double));
  c->ipm = calloc(7 * N, sizeof(double));
  c->bgrad = calloc(3 * N, sizeof(double));
  c->bpiv = malloc(nz * sizeof(int));
  c->bact = calloc(N, 1);
  c->since_impact = KR_CONTACT_RESTART;
  c->impulse_time = k->sc.time.dt;
  const rod_scenario *sc = &k->sc;
  c->closed = !sc->motor.enabled && sc->loads.count == 0 &&
              !sc->impulse.enabled && v3_norm(sc->tip.force) == 0 &&
              v3_norm(sc->tip.moment) == 0 && sc->tendons.count == 0;
  c->dim = 1;
  for (int b = 0; b < w.count; b++)
    c->restitution = c->restitution || w.item[b].restitution > 0;
  k->contact = c;
  if (kr_loads_contact_alloc(k) != ROD_OK || !c->f || !c->mu || !c->saved ||
      !c->saved_pos || !c->pos_before || !c->normal || !c->gap || !c->gnorm ||
      !c->cand || !c->C || !c->b || !c->l || !c->g0 || !c->V || !c->ev ||
      !c->work || !c->solver || !c->out_force || !c->out_active ||
      !c->fn_before || !c->vlaw || !c->vn_before || !c->e_node || !c->vnorm ||
      !c->w_before || !c->dw || !c->band0 || !c->band || !c->brhs0 ||
      !c->brhs || !c->ipm || !c->bgrad || !c->bpiv || !c->bact)
    return ROD_ENOMEM;
  return ROD_OK;
}

/* The world force of node i. */
static void node_force(const kr_contact *c, int i, double F[3]) {
  double t1[3], t2[3];
  const double *n = c->normal + 3 * i, *f = c->f + 3 * i;
  if (f[0] == 0 && f[1] == 0 && f[2] == 0) { /* also where no normal is set */
    v3_set(F, 0, 0, 0);
    return;
  }
  rod_contact_tangents(n, t1, t2);
  for (int j = 0; j < 3; j++)
    F[j] = f[0] * n[j] + f[1] * t1[j] + f[2] * t2[j];
}

/* The nodes' forces into the sweeps' jumps. */
void kr_contact_apply_forces(rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < k->nodes; i++)
    node_force(c, i, k->loads.contact + 3 * i);
}

/* The gaps of the last sweep's nodes (its quadratures integrated): the
 * smallest over the bodies, its normal, and the smallest of all. */
void kr_contact_gaps(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  kr_quadratures(k);
  c->gap_min = INFINITY;
  for (int i = 0; i < k->nodes; i++) {
    const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    c->gap[i] = INFINITY;
    for (int b = 0; b < c->world.count; b++) {
      double n[3];
      const double d =
          rod_obstacle_distance(&c->world.item[b], p, n) - c->world.rod_radius;
      if (d < c->gap[i]) {
        c->gap[i] = d;
        v3_copy(c->gnorm + 3 * i, n);
      }
    }
    c->gap_min = fmin(c->gap_min, c->gap[i]);
  }
}

/* The body nearest to node i at the last sweep. */
int kr_contact_body_of(const rod_kirchhoff *k, int i) {
  const kr_contact *c = k->contact;
  const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
  int best = 0;
  double dmin = INFINITY, n[3];
  for (int bo = 0; bo < c->world.count; bo++) {
    const double d = rod_obstacle_distance(&c->world.item[bo], p, n);
    if (d < dmin) {
      dmin = d;
      best = bo;
    }
  }
  return best;
}

/* The world velocity of the node states y along n (m/s). */
double kr_contact_normal_speed(const double *y, const double n[3]) {
  double R[9], v[3];
  quat_to_R(R, y + ROD_Y_H);
  m3_mul_v(v, R, y + ROD_Y_Q);
  return v3_dot(n, v);
}

/* The measured value of unknown (node i, direction j) at the last sweep:
 * the gap along the normal (j = 0), the slip since the accepted state
 * along tangent j (1, 2); at a node under the velocity law (an impact with
 * restitution e) dt (v_n+ + e v_n-) instead of the gap, v_n+ and v_n- its
 * normal velocity at the step's end and start. */
double kr_contact_measured(const rod_kirchhoff *k, int i, int j) {
  const kr_contact *c = k->contact;
  const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
  if (j == 0 && c->vlaw[i]) /* dt (v_n+ + e v_n-): m, as the gaps */
    return k->sc.time.dt *
           (kr_contact_normal_speed(k->node_y + (size_t)i * KR_NODE,
                                    c->vnorm + 3 * i) +
            c->e_node[i] * c->vn_before[i]);
  if (j == 0) {
    double n[3], best = INFINITY;
    for (int bo = 0; bo < c->world.count; bo++)
      best = fmin(best, rod_obstacle_distance(&c->world.item[bo], p, n) -
                            c->world.rod_radius);
    return best;
  }
  double t[2][3], d[3];
  rod_contact_tangents(c->normal + 3 * i, t[0], t[1]);
  v3_sub(d, p, c->pos_before + 3 * i);
  return v3_dot(d, t[j - 1]);
}

bool kr_contact_pressed(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0)
      return true;
  return false;
}

bool kr_contact_struck(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0 && !(c->fn_before[i] > 0))
      return true;
  return false;
}

void kr_contact_scale_restitution(rod_kirchhoff *k, double scale) {
  k->contact->e_scale = scale;
}

bool kr_contact_rebounds(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->vlaw[i] && c->f[3 * i] > 0)
      return true;
  return false;
}

bool kr_contact_struck_rebounding(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  if (!c->restitution || !(c->e_scale > 0))
    return false;
  for (int i = 1; i < c->nodes; i++)
    if (c->f[3 * i] > 0 && !(c->fn_before[i] > 0) && !c->vlaw[i] &&
        c->world.item[kr_contact_body_of(k, i)].restitution > 0)
      return true;
  return false;
}

void kr_contact_impulse_time(rod_kirchhoff *k, double T) {
  k->contact->impulse_time = T;
}

void kr_contact_hold_euler(rod_kirchhoff *k, int steps) {
  k->contact->euler_hold = steps;
}

bool kr_contact_restart(const rod_kirchhoff *k) {
  return k->contact->since_impact < KR_CONTACT_RESTART ||
         k->contact->euler_hold > 0;
}

void kr_contact_accept(rod_kirchhoff *k, bool work) {
  kr_contact *c = k->contact;
  /* the static state is at rest: its pressed nodes struck nothing */
  c->since_impact = work && kr_contact_struck(k) ? 0 : c->since_impact + 1;
  if (c->euler_hold > 0)
    c->euler_hold--;
  /* the forces' work over the step, F n . (p - p_before): a loss */
  for (int i = 0; i < k->nodes; i++) {
    const double *p = k->sol_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    double d[3];
    v3_sub(d, p, c->pos_before + 3 * i);
    if (work && c->vlaw[i]) /* an impulse F T: its work is F T times
                               the mean of v_n- and v_n+ */
      c->dissipated -= c->f[3 * i] * c->impulse_time * 0.5 *
                       (c->vn_before[i] +
                        kr_contact_normal_speed(k->sol_y + (size_t)i * KR_NODE,
                                                c->vnorm + 3 * i));
    else if (work) /* F T times the mean velocity d / dt */
      c->dissipated -= v3_dot(k->loads.contact + 3 * i, d) *
                       (c->impulse_time / k->sc.time.dt);
    v3_copy(c->pos_before + 3 * i, p);
    c->fn_before[i] = c->f[3 * i];
  }
}

const rod_obstacle *kr_contact_pressing(const rod_kirchhoff *k, int i) {
  const kr_contact *c = k->contact;
  return c->f[3 * i] > 0 ? &c->world.item[kr_contact_body_of(k, i)] : NULL;
}

void kr_contact_follow_normals(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0)
      v3_copy(c->normal + 3 * i, c->gnorm + 3 * i);
  kr_contact_apply_forces(k);
}

void kr_contact_regridded(rod_kirchhoff *k, const double *scale) {
  kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++) {
    if (scale) {
      v3_scale(c->f + 3 * i, scale[i], c->f + 3 * i);
      v3_scale(c->saved + 3 * i, scale[i], c->saved + 3 * i);
      c->fn_before[i] *= scale[i];
    }
    const double *p = k->sol_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    v3_copy(c->pos_before + 3 * i, p);
    v3_copy(c->saved_pos + 3 * i, p);
  }
  kr_contact_apply_forces(k);
}

void kr_contact_reset(rod_kirchhoff *k) {
  memset(k->contact->f, 0, 3 * (size_t)k->nodes * sizeof(double));
  kr_contact_apply_forces(k);
}

void kr_contact_save(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  memcpy(c->saved, c->f, 3 * (size_t)k->nodes * sizeof(double));
  for (int i = 0; i < k->nodes; i++)
    v3_copy(c->saved_pos + 3 * i,
            k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P);
}

double kr_contact_moved(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  double m = 0;
  for (int i = 0; i < k->nodes; i++) {
    double d[3];
    v3_sub(d, k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P,
           c->saved_pos + 3 * i);
    m = fmax(m, v3_norm(d));
  }
  return m;
}

void kr_contact_restore(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  memcpy(c->f, c->saved, 3 * (size_t)k->nodes * sizeof(double));
  kr_contact_apply_forces(k);
}

void kr_contact_sample(rod_kirchhoff *k, rod_sample *out) {
  kr_contact *c = k->contact;
  for (int i = 0; i < k->nodes; i++) {
    v3_copy(c->out_force + 3 * i, k->loads.contact + 3 * i);
    c->out_active[i] = c->f[3 * i] > 0;
  }
  out->contact_force = c->out_force;
  out->contact_active = c->out_active;
  out->contact_gap_min = c->gap_min;
  out->dissipated_contact = c->dissipated;
}

const char *kr_contact_refusal(const rod_kirchhoff *k) {
  return k->contact->refusal;
}

const double *kr_contact_saved_positions(const rod_kirchhoff *k) {
  return k->contact->saved_pos;
}

const double *kr_contact_accepted_positions(const rod_kirchhoff *k) {
  return k->contact->pos_before;
}

void kr_contact_refusal_clear(rod_kirchhoff *k) { k->contact->refusal[0] = 0; }
