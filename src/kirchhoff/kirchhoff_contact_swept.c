/* Bodies the Kirchhoff/Cosserat rod passes through (docs/contact.md): a
 * node's path or an interval's chord crossing a body in a move, a body
 * between two nodes that no node sees, and the refusals that name the
 * space.nodes and time.dt resolving them. */
#include <math.h>
#include <stdio.h>

#include "kirchhoff/kirchhoff_contact_data.h"

/* The chord a-b crosses the body o deeper than the tolerance while the
 * body's normals at a and b lie more than a right angle apart: a body
 * between the two points (a node sliding over a curved body turns its
 * normal by the small angle of its move; its chord dips below the surface
 * by the sagitta, which is no crossing). *at the chord's point nearest
 * the body. */
static bool crosses(const kr_contact *c, const rod_obstacle *o,
                    const double a[3], const double b[3], double *at) {
  double na[3], nb[3], n[3];
  rod_obstacle_distance(o, a, na);
  rod_obstacle_distance(o, b, nb);
  if (o->kind == ROD_OBSTACLE_BOX) {
    /* flat faces: a chord between two nodes outside enters a box only
     * across an edge or corner, whatever the normals; one deeper than
     * the tolerance farther than the rod's radius from both nodes (a node
     * at the edge holds it; the chord off the curved rod beside it dips
     * by its sagitta) */
    double ab[3];
    v3_sub(ab, b, a);
    const double len = v3_norm(ab), r = c->world.rod_radius;
    return rod_obstacle_segment(o, a, b, at, n) - r<-c->tol && * at * len> r &&
           (1 - *at) * len > r;
  }
  return v3_dot(na, nb) < 0 &&
         rod_obstacle_segment(o, a, b, at, n) - c->world.rod_radius < -c->tol;
}

/* The body's thickness scale (m): its radius, half a box's smallest
 * extent; a plane's is infinite. */
double kr_contact_body_size(const rod_obstacle *o) {
  switch (o->kind) {
  case ROD_OBSTACLE_PLANE:
    return INFINITY;
  case ROD_OBSTACLE_BOX:
    return fmin(o->half[0], fmin(o->half[1], o->half[2]));
  default:
    return o->radius;
  }
}

/* The body the rod passed through between the positions from (m, nodes x
 * 3) and the last sweep's: a node whose straight path crosses it, or an
 * interval whose chord, moved straight from its first to its last place,
 * crosses it at some stage (the stages closer than the body's radius plus
 * the rod's, so that a chord cannot jump over it). NULL when none
 * crossed; *node the node or the interval's first node, *interval which. */
const rod_obstacle *kr_contact_swept(const rod_kirchhoff *k, const double *from,
                                     int *node, bool *interval) {
  const kr_contact *c = k->contact;
  double at;
  for (int b = 0; b < c->world.count; b++) {
    const rod_obstacle *o = &c->world.item[b];
    if (o->kind == ROD_OBSTACLE_PLANE) /* its normal never turns */
      continue;
    const double reach = kr_contact_body_size(o) + c->world.rod_radius;
    for (int i = 0; i < c->nodes; i++) {
      const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
      *node = i;
      *interval = false;
      if (i > 0 && crosses(c, o, from + 3 * i, p, &at))
        return o;
      if (i + 1 == c->nodes)
        break;
      const double *q = p + KR_NODE, *f0 = from + 3 * i, *f1 = f0 + 3;
      double d0[3], d1[3];
      v3_sub(d0, p, f0);
      v3_sub(d1, q, f1);
      const int m = (int)ceil(fmax(v3_norm(d0), v3_norm(d1)) / reach);
      *interval = true;
      for (int st = 1; st <= m && m < 1000000; st++) {
        const double tau = (double)st / m;
        double a[3], e[3];
        for (int j = 0; j < 3; j++) {
          a[j] = f0[j] + tau * d0[j];
          e[j] = f1[j] + tau * d1[j];
        }
        if (crosses(c, o, a, e, &at))
          return o;
      }
    }
  }
  return NULL;
}

/* The body the last sweep's centreline passes through between two nodes
 * (the interval's chord crossing it deeper than the tolerance, the body's
 * normals at the two nodes more than a right angle apart: a body thinner
 * than the interval, straddled). NULL when none; *node the interval's
 * first node, *at the chord's point nearest the body (0 to 1 along it). */
const rod_obstacle *kr_contact_straddled(const rod_kirchhoff *k, int *node,
                                         double *at) {
  const kr_contact *c = k->contact;
  for (int i = 0; i + 1 < c->nodes; i++) {
    const double *a = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    for (int b = 0; b < c->world.count; b++) {
      const rod_obstacle *o = &c->world.item[b];
      if (o->kind != ROD_OBSTACLE_PLANE && crosses(c, o, a, a + KR_NODE, at)) {
        *node = i;
        return o;
      }
    }
  }
  return NULL;
}

bool kr_contact_straddle_note(const rod_kirchhoff *k, char *note, size_t n) {
  int j;
  double t;
  const rod_obstacle *o = kr_contact_straddled(k, &j, &t);
  if (!o)
    return false;
  /* a spacing of at most the body's radius */
  int nodes = (int)ceil(k->model.length / kr_contact_body_size(o)) + 1;
  nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
  snprintf(note, n,
           "the rod passes through %s between nodes %d and %d (s = %.6g to "
           "%.6g m), which no node sees: set space.nodes = %d or more",
           o->label, j, j + 1, k->s[j], k->s[j + 1], nodes);
  return true;
}

bool kr_contact_passed_through(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  int i;
  bool interval;
  const rod_obstacle *o = kr_contact_swept(k, c->pos_before, &i, &interval);
  if (o) {
    double d[3];
    v3_sub(d, k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P,
           c->pos_before + 3 * i);
    /* a move of at most the body's radius in a step */
    const double dt = k->sc.time.dt * kr_contact_body_size(o) / v3_norm(d);
    if (interval) {
      int nodes = (int)ceil(k->model.length / kr_contact_body_size(o)) + 1;
      nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
      snprintf(c->refusal, sizeof c->refusal,
               "the rod passed through %s between nodes %d and %d in one "
               "step: set space.nodes = %d or more and time.dt = %.3g or "
               "less",
               o->label, i, i + 1, nodes, dt);
    } else {
      snprintf(c->refusal, sizeof c->refusal,
               "node %d passed through %s in one step (it moved %.3g m, the "
               "body's radius is %.3g m): set time.dt = %.3g or less",
               i, o->label, v3_norm(d), kr_contact_body_size(o), dt);
    }
    return true;
  }
  return kr_contact_straddle_note(k, c->refusal, sizeof c->refusal);
}

void kr_contact_refuse_crossing(rod_kirchhoff *k, const rod_obstacle *o,
                                int node, bool interval) {
  /* a spacing of at most the body's radius */
  int nodes = (int)ceil(k->model.length / kr_contact_body_size(o)) + 1;
  nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
  if (interval)
    snprintf(k->contact->refusal, sizeof k->contact->refusal,
             "the way to it passes through %s between nodes %d and %d (s = "
             "%.6g to %.6g m), where no node can hold it: set space.nodes = "
             "%d or more",
             o->label, node, node + 1, k->s[node], k->s[node + 1], nodes);
  else
    snprintf(k->contact->refusal, sizeof k->contact->refusal,
             "the way to it takes node %d (s = %.6g m) through %s: set "
             "space.nodes = %d or more",
             node, k->s[node], o->label, nodes);
}

void kr_contact_saved_between(rod_kirchhoff *k, int i, int j, double at) {
  double *p = k->contact->saved_pos, q[3];
  for (int d = 0; d < 3; d++)
    q[d] = p[3 * j + d] + at * (p[3 * (j + 1) + d] - p[3 * j + d]);
  v3_copy(p + 3 * i, q);
}

bool kr_contact_straddle_refused(rod_kirchhoff *k) {
  return kr_contact_straddle_note(k, k->contact->refusal,
                                  sizeof k->contact->refusal);
}
