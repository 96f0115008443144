/* Contact points of the RFEM chain (rfem_contact.h): detection against the
 * world's bodies, contact frames, the Jacobian rows of the contact
 * velocities, the Delassus matrix by the articulated-body factorisation,
 * the forces of a step and the output (Carpentier et al., Pinocchio,
 * "Dynamics: simulation and control"; Featherstone 2008, ch. 7). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_joints.h"

void rfem_contact_free(rfem_contacts *c) {
  if (!c)
    return;
  free(c->c);
  free(c->applied);
  free(c->list);
  free(c->applied_force);
  free(c->torque);
  free(c->slot_force);
  free(c->J);
  free(c->Jp);
  free(c->Y);
  free(c->G);
  free(c->b);
  free(c->l);
  free(c->l0);
  free(c->l1);
  free(c->fbuf);
  free(c->xstart);
  free(c->index);
  free(c->mu);
  free(c->full_b);
  free(c->full_x);
  rod_contact_solver_free(c->solver);
  free(c->M);
  free(c->vbuf);
  free(c->loads);
  free(c->H);
  free(c->dq);
  free(c->out_force);
  free(c->out_active);
  free(c->pred);
  free(c->gprev);
  free(c->nu);
  free(c->lam);
  free(c->dnu);
  free(c->u0);
  free(c->U);
  free(c->W);
  free(c->slot_pos);
  free(c->ilist);
  free(c->fresh_q);
  free(c->Gn);
  free(c->bn);
  free(c->ln);
  free(c->qdd_last);
  free(c->qdd_now);
  free(c);
}

int rfem_contact_create(rod_rfem *r) {
  rod_contact_world w;
  rod_contact_world_init(&w, &r->sc);
  r->contact = NULL;
  if (w.count == 0)
    return ROD_OK;
  rfem_contacts *c = calloc(1, sizeof *c);
  if (!c)
    return ROD_ENOMEM;
  c->world = w;
  c->tol = r->sc.solver.tolerance * r->L;
  c->margin = 2.0 * w.rod_radius;
  const rod_scenario *sc = &r->sc;
  c->rho = sc->rfem.spectral_radius;
  c->closed = !sc->motor.enabled && sc->loads.count == 0 &&
              !sc->impulse.enabled && sc->base.motion_file[0] == '\0' &&
              v3_norm(sc->tip.force) == 0 && v3_norm(sc->tip.moment) == 0 &&
              sc->tendons.count == 0;
  c->nslots = 1 + 2 * r->nelements;
  c->rows = w.friction ? 3 : 1;
  int curved = 0;
  for (int i = 0; i < w.count; i++)
    curved += w.item[i].kind != ROD_OBSTACLE_PLANE;
  /* every node against every body, every element against curved ones */
  c->capacity = w.count * r->nelements + curved * r->nelements;
  const size_t cap = (size_t)c->capacity, rows = cap * c->rows;
  const size_t nf = (size_t)r->nfree, nl = (size_t)r->nlinks;
  c->c = calloc(cap, sizeof *c->c);
  c->applied = calloc(cap, sizeof *c->applied);
  c->list = calloc(cap, sizeof *c->list);
  c->applied_force = calloc(3 * cap, sizeof(double));
  c->torque = calloc(nl, sizeof(double));
  c->slot_force = calloc(3 * (size_t)w.count * c->nslots, sizeof(double));
  c->J = calloc(rows * nf, sizeof(double));
  c->Jp = calloc(rows, sizeof(double));
  c->Y = calloc(rows * nf, sizeof(double));
  c->G = calloc(rows * rows, sizeof(double));
  c->b = calloc(rows, sizeof(double));
  c->l = calloc(rows, sizeof(double));
  c->l0 = calloc(rows, sizeof(double));
  c->l1 = calloc(rows, sizeof(double));
  c->fbuf = calloc(6 * cap, sizeof(double));
  c->xstart = calloc(3 * cap, sizeof(double));
  c->index = calloc(cap, sizeof(int));
  c->mu = calloc(cap, sizeof(double));
  c->full_b = calloc(nl, sizeof(double));
  c->full_x = calloc(nl, sizeof(double));
  c->solver = rod_contact_solver_alloc((int)rows, 0);
  c->loads = calloc(RFEM_MAX_LOADS + cap, sizeof *c->loads);
  c->H = calloc(nf * nf, sizeof(double));
  c->dq = calloc(nf, sizeof(double));
  c->out_force = calloc(3 * (size_t)r->npoints, sizeof(double));
  c->out_active = calloc((size_t)r->npoints, 1);
  c->pred = calloc(cap, sizeof(double));
  c->gprev = calloc(cap, sizeof(double));
  c->nu = calloc(rows, sizeof(double));
  c->lam = calloc(rows, sizeof(double));
  c->dnu = calloc(rows, sizeof(double));
  c->u0 = calloc(rows, sizeof(double));
  c->U = calloc(nf, sizeof(double));
  c->W = calloc(nf, sizeof(double));
  c->slot_pos = calloc(3 * (size_t)w.count * c->nslots, sizeof(double));
  c->ilist = calloc(cap, sizeof *c->ilist);
  c->fresh_q = calloc(nl, sizeof(double));
  c->Gn = calloc(cap * cap, sizeof(double));
  c->bn = calloc(cap, sizeof(double));
  c->ln = calloc(cap, sizeof(double));
  c->qdd_last = calloc(nf, sizeof(double));
  c->qdd_now = calloc(nf, sizeof(double));
  c->gscale = 1.0;
  r->contact = c;
  r->contact_torque = c->torque; /* the joints add it (rfem_joints.c) */
  if (!c->c || !c->applied || !c->list || !c->applied_force || !c->torque ||
      !c->slot_force || !c->J || !c->Jp || !c->Y || !c->G || !c->b || !c->l ||
      !c->l0 || !c->l1 || !c->fbuf || !c->xstart || !c->index || !c->mu ||
      !c->full_b || !c->full_x || !c->solver || !c->loads || !c->H || !c->dq ||
      !c->out_force || !c->out_active || !c->pred || !c->gprev || !c->nu ||
      !c->lam || !c->dnu || !c->u0 || !c->U || !c->W || !c->slot_pos ||
      !c->ilist || !c->fresh_q || !c->qdd_last || !c->qdd_now)
    return ROD_ENOMEM;
  return ROD_OK;
}

/* World position of a point at z along element e's axis. */
static void element_point(const rod_rfem *r, int e, double z, double x[3]) {
  const double local[3] = {0, 0, z};
  rod_chain_point(r->chain, r->el[e].link, local, x, NULL);
}

/* True when some free joint turns the body of link (the links before
 * first_free are the prescribed clamp). A node moves when the element
 * before it does: the joints at the node itself only turn the elements
 * about it. */
static bool link_moves(const rod_rfem *r, int link) {
  return link >= r->first_free;
}

/* The contact of a slot with body o at the current kinematics: its gap,
 * the point of the rod's surface nearest the body (world and body
 * coordinates) and the frame there. *inner: an element's nearest point
 * lies inside it (not at an end, where a node's contact is). Returns
 * whether a free joint moves the point. */
static bool slot_contact(const rod_rfem *r, int o, int slot, rfem_contact *k,
                         bool *inner) {
  const rfem_contacts *c = r->contact;
  const rod_obstacle *ob = &c->world.item[o];
  const int ne = r->nelements;
  double x[3], n[3];
  bool moves;
  if (slot <= ne) { /* node p: the start of element p, or the tip */
    const int e = slot < ne ? slot : ne - 1;
    element_point(r, e, slot < ne ? 0.0 : r->el[e].length, x);
    k->gap = rod_obstacle_distance(ob, x, n) - c->world.rod_radius;
    k->link = r->el[e].link;
    moves = link_moves(r, r->el[slot - 1].link);
    *inner = false;
  } else {
    const int e = slot - ne - 1;
    double a[3], b[3], t;
    element_point(r, e, 0.0, a);
    element_point(r, e, r->el[e].length, b);
    k->gap = rod_obstacle_segment(ob, a, b, &t, n) - c->world.rod_radius;
    for (int i = 0; i < 3; i++)
      x[i] = a[i] + t * (b[i] - a[i]);
    k->link = r->el[e].link;
    moves = link_moves(r, k->link);
    *inner = t > 1e-9 && t < 1.0 - 1e-9;
  }
  k->obstacle = o;
  k->slot = slot;
  k->mu = ob->friction;
  k->e = ob->restitution;
  /* the force acts at the axis point, the cross-section's centre, as in a
   * rod theory without the cross-section's rotary inertia (the moment of a
   * friction force about the axis, r x f_t, is left out: it would drive
   * the chain's stiff, nearly massless torsion) */
  v3_copy(k->x, x);
  double R[9], p[3], d[3];
  rod_chain_pose(r->chain, k->link, R, p);
  v3_sub(d, k->x, p);
  m3_mul_tv(k->r, R, d);
  v3_copy(k->frame, n);
  rod_contact_tangents(n, k->frame + 3, k->frame + 6);
  return moves;
}

void rfem_contact_eval(const rod_rfem *r, int obstacle, int slot,
                       rfem_contact *out) {
  bool inner;
  slot_contact(r, obstacle, slot, out, &inner);
}

void rfem_contact_detect(rod_rfem *r, double margin) {
  rfem_contacts *c = r->contact;
  const double rad = c->world.rod_radius;
  const int ne = r->nelements;
  c->count = 0;
  c->gap_min = INFINITY;
  for (int o = 0; o < c->world.count; o++) {
    const rod_obstacle *ob = &c->world.item[o];
    for (int slot = 1; slot <= 2 * ne; slot++) {
      if (slot > ne) { /* an element against a curved body */
        if (ob->kind == ROD_OBSTACLE_PLANE)
          break; /* a segment is nearest a plane at an end */
        const int e = slot - ne - 1;
        double mid[3], dc[3];
        element_point(r, e, 0.5 * r->el[e].length, mid);
        v3_sub(dc, mid, ob->center);
        if (v3_norm(dc) - 0.5 * r->el[e].length - rad > ob->bound + margin)
          continue;
      }
      rfem_contact *k = &c->c[c->count];
      bool inner;
      const bool moves = slot_contact(r, o, slot, k, &inner);
      if (slot > ne && !inner)
        continue;
      c->gap_min = fmin(c->gap_min, k->gap);
      if (k->gap <= margin && moves && c->count < c->capacity)
        c->count++;
    }
  }
}

bool rfem_contact_current(const rod_rfem *r) {
  const rfem_contacts *c = r->contact;
  return c->fresh && c->fresh_t == r->t &&
         memcmp(c->fresh_q, r->q, (size_t)r->nlinks * sizeof(double)) == 0;
}

rfem_contact *rfem_contact_find(rfem_contacts *c, int obstacle, int slot) {
  for (int k = 0; k < c->count; k++)
    if (c->c[k].obstacle == obstacle && c->c[k].slot == slot)
      return &c->c[k];
  return NULL;
}

/* The velocity of the world point x per unit rate of joint j: a_j x
 * (x - o_j), a_j its world axis through the joint origin o_j. */
static void joint_motion(const rod_rfem *r, int j, const double x[3],
                         double col[3]) {
  double R[9], o[3], a[3], arm[3];
  rod_chain_pose(r->chain, j, R, o);
  m3_mul_v(a, R, rod_chain_get_link(r->chain, j)->axis);
  v3_sub(arm, x, o);
  v3_cross(col, a, arm);
}

int rfem_contact_jacobian(rod_rfem *r, const rfem_contact *list, int n,
                          int rows_per) {
  rfem_contacts *c = r->contact;
  const int rows = n * rows_per, ld = rows, f0 = r->first_free;
  memset(c->J, 0, (size_t)rows * r->nfree * sizeof(double));
  for (int k = 0; k < n; k++) {
    const rfem_contact *ct = &list[k];
    double x[3];
    rod_chain_point(r->chain, ct->link, ct->r, x, NULL);
    /* a row d picks d . (a_j x (x - o_j)) */
    for (int j = f0; j <= ct->link; j++) {
      double col[3];
      joint_motion(r, j, x, col);
      for (int q = 0; q < rows_per; q++)
        c->J[(k * rows_per + q) + (size_t)(j - f0) * ld] =
            v3_dot(ct->frame + 3 * q, col);
    }
    double col[3] = {0, 0, 0}; /* a prescribed joint 0 moves every point */
    if (f0 > 0)
      joint_motion(r, 0, x, col);
    for (int q = 0; q < rows_per; q++)
      c->Jp[k * rows_per + q] = v3_dot(ct->frame + 3 * q, col);
  }
  return rows;
}

int rfem_contact_delassus(rod_rfem *r, int rows, const double *extra) {
  rfem_contacts *c = r->contact;
  const int nf = r->nfree, f0 = r->first_free;
  int st = rod_chain_mass_factor(r->chain, extra);
  r->evaluations++;
  if (st != ROD_OK)
    return st;
  memset(c->full_b, 0, (size_t)r->nlinks * sizeof(double));
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < nf; j++)
      c->full_b[f0 + j] = c->J[i + (size_t)j * rows];
    rod_chain_mass_solve(r->chain, c->full_b, c->full_x);
    memcpy(c->Y + (size_t)i * nf, c->full_x + f0, (size_t)nf * sizeof(double));
  }
  for (int i = 0; i < rows; i++)
    for (int k = 0; k <= i; k++) {
      double s = 0;
      for (int j = 0; j < nf; j++)
        s += c->J[i + (size_t)j * rows] * c->Y[j + (size_t)k * nf];
      c->G[i + (size_t)k * rows] = s;
      c->G[k + (size_t)i * rows] = s;
    }
  return ROD_OK;
}

int rfem_contact_step_response(rod_rfem *r, int rows, double h) {
  rfem_contacts *c = r->contact;
  /* a constant force: h^2/2 M^-1 on a free mass, K^-1 on a stiff mode */
  const double cq = 0.5 * h * h;
  rfem_iteration_extras(r, h, cq, 0.5 * h, r->extra);
  int st = rfem_contact_delassus(r, rows, r->extra);
  if (st != ROD_OK)
    return st;
  const size_t nY = (size_t)rows * r->nfree, nG = (size_t)rows * rows;
  for (size_t i = 0; i < nY; i++)
    c->Y[i] *= cq;
  for (size_t i = 0; i < nG; i++)
    c->G[i] *= cq;
  return ROD_OK;
}

void rfem_contact_update_torque(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  memset(c->torque, 0, (size_t)r->nlinks * sizeof(double));
  for (int k = 0; k < c->napplied; k++) {
    const double *f = c->applied_force + 3 * k;
    if (f[0] == 0 && f[1] == 0 && f[2] == 0)
      continue;
    double x[3];
    rod_chain_point(r->chain, c->applied[k].link, c->applied[k].r, x, NULL);
    for (int j = 0; j <= c->applied[k].link; j++) {
      double col[3];
      joint_motion(r, j, x, col);
      c->torque[j] += v3_dot(col, f);
    }
  }
}

void rfem_contact_add_forces(const rod_rfem *r, double *fext) {
  const rfem_contacts *c = r->contact;
  for (int k = 0; k < c->napplied; k++)
    rod_chain_add_point_force(r->chain, c->applied[k].link, c->applied[k].r,
                              c->applied_force + 3 * k, fext);
}

void rfem_contact_set_forces(rod_rfem *r, const rfem_contact *list, int n,
                             const double *f) {
  rfem_contacts *c = r->contact;
  memset(c->slot_force, 0,
         3 * (size_t)c->world.count * c->nslots * sizeof(double));
  for (int k = 0; k < n; k++) {
    c->applied[k] = list[k];
    v3_copy(c->applied_force + 3 * k, f + 3 * k);
    v3_copy(c->slot_force +
                3 * ((size_t)list[k].obstacle * c->nslots + list[k].slot),
            f + 3 * k);
  }
  c->napplied = n;
}

void rfem_contact_output(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  const int np = r->npoints, ne = r->nelements;
  memset(c->out_force, 0, 3 * (size_t)np * sizeof(double));
  memset(c->out_active, 0, (size_t)np);
  for (int k = 0; k < c->napplied; k++) {
    const rfem_contact *ct = &c->applied[k];
    const double *f = c->applied_force + 3 * k;
    if (!(v3_dot(f, ct->frame) > 0)) /* a candidate that does not push */
      continue;
    if (ct->slot <= ne) {
      v3_add(c->out_force + 3 * ct->slot, c->out_force + 3 * ct->slot, f);
      c->out_active[ct->slot] = 1;
      continue;
    }
    /* an element's inner point: shared by its two ends by the lever rule */
    const int e = ct->slot - ne - 1;
    const double t = ct->r[2] / r->el[e].length;
    v3_axpy(c->out_force + 3 * e, 1.0 - t, f);
    v3_axpy(c->out_force + 3 * (e + 1), t, f);
    c->out_active[e] = c->out_active[e + 1] = 1;
  }
}

rod_chain_load *rfem_contact_loads(rod_rfem *r) { return r->contact->loads; }

int rfem_contact_applied_loads(const rod_rfem *r, rod_chain_load *out) {
  const rfem_contacts *c = r->contact;
  for (int k = 0; k < c->napplied; k++) {
    out[k].body = c->applied[k].link;
    v3_copy(out[k].point, c->applied[k].r);
    v3_copy(out[k].force, c->applied_force + 3 * k);
  }
  return c->napplied;
}

int rfem_contact_set_primal(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  const size_t nl = (size_t)r->nlinks;
  rod_contact_solver_free(c->solver);
  free(c->M);
  free(c->vbuf);
  c->solver = rod_contact_solver_alloc(c->capacity * c->rows, r->nfree);
  c->M = calloc(nl * nl, sizeof(double));
  c->vbuf = calloc(nl, sizeof(double));
  if (!c->solver || !c->M || !c->vbuf)
    return ROD_ENOMEM;
  c->use_primal = true;
  return ROD_OK;
}
