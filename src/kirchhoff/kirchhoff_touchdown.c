/* Grid nodes at the contact boundaries of the static state
 * (docs/contact.md). Where a rod lies on a plane over a stretch of nodes
 * and leaves it as a free span, the heavy elastica's touchdown a is where
 * the free span ends with the plane's curvature: the bending moment across
 * the plane, m . b with b = N x d3 (N the plane's normal, d3 the rod's
 * tangent), is zero there, and beyond it the rod lies flat (EI theta' = 0;
 * the table pushes with a point force at a and q per length beyond). On
 * the grid the free span ends at the first pressed node, so its clamp
 * moment and force take that node's place, within an interval of a; with
 * a node at a they are those of the span's own ODE (RK4).
 *
 * So after the contact solve each such boundary is located from the free
 * span's moment: the quadratic through m . b at the boundary node and the
 * two free nodes before it (exact in the small-deflection limit, where
 * m_ss = q), its zero nearest the node. A node moves there, the grid is
 * made uniform again between its fixed nodes (the clamp, the tip, the
 * point loads', the tendons' ends and the boundaries'; place_nodes), and
 * the contact problem
 * is solved again, until the zero lies within the contact tolerance of
 * its node (a fixed point contracting by 1e-2 to 4e-2 a solve; a secant
 * chased the contact solve's scatter). The node count is the grid's.
 *
 * A node pressed alone on any body (point_contact) moves the same way to
 * where the rod is tangent to the body (on a box, where the gap along the
 * rod is least: box_gap_minimum). */
#include <math.h>
#include <string.h>

#include "kirchhoff/kirchhoff_regrid.h"

/* Boundaries tracked at once, and the placement's iterations at most. */
enum { KR_BOUNDARIES = 8, KR_BOUNDARY_ITERATIONS = 30 };

typedef struct {
  int node;    /* the region's first (side -1) or last (side +1) pressed
                  node */
  int side;    /* the free span lies before (-1) or after (+1) it; 0: a
                  point contact, free on both sides */
  double zero; /* m: the zero of the free span's moment */
} kr_boundary;

/* The bending moment (N m) at node j about b. */
static double moment_about(const rod_kirchhoff *k, int j, const double b[3]) {
  return v3_dot(k->node_y + (size_t)j * KR_NODE + ROD_Y_M, b);
}

/* The zero nearest s0 of the quadratic through (s[i], m[i]), i < 3, and
 * false when it has none within the stencil's length of s0. */
static bool quadratic_zero(const double *s, const double *m, double s0,
                           double *z) {
  /* Newton form about s0 = s[0]: m = m0 + c1 (x) + c2 (x)(x - x1) */
  const double x1 = s[1] - s0, x2 = s[2] - s0;
  const double d01 = (m[1] - m[0]) / x1, d12 = (m[2] - m[1]) / (x2 - x1);
  const double c2 = (d12 - d01) / x2;
  /* m(x) = m0 + (d01 - c2 x1) x + c2 x^2 */
  const double A = c2, B = d01 - c2 * x1, C = m[0];
  double x;
  if (fabs(A) * fabs(x2) < 1e-12 * fabs(B)) {
    if (B == 0)
      return false;
    x = -C / B;
  } else {
    const double disc = B * B - 4 * A * C;
    if (disc < 0)
      return false;
    const double qq = -0.5 * (B + copysign(sqrt(disc), B));
    const double r1 = qq / A, r2 = qq != 0 ? C / qq : r1;
    x = fabs(r1) < fabs(r2) ? r1 : r2;
  }
  if (!(fabs(x) <= fabs(x2)))
    return false;
  *z = s0 + x;
  return true;
}

/* The gap (m) of node j to the body o and the body's outward normal
 * there. */
static double node_gap(const rod_kirchhoff *k, const rod_obstacle *o, int j,
                       double n[3]) {
  const double *p = k->node_y + (size_t)j * KR_NODE + ROD_NY + ROD_Q_P;
  return rod_obstacle_distance(o, p, n) - 0.5 * k->sc.rod.diameter;
}

/* The gap's second derivative along a straight line through p with the
 * direction d3 (1/m) at a sphere or capsule: (|d3 across the axis|^2 -
 * g'^2) / D, D the distance from the centre or axis; 0 for other bodies.
 * The rod's own curvature adds n . d3', negligible where the body is
 * thinner than the rod's intervals. */
static double body_curvature(const rod_obstacle *o, const double p[3],
                             const double d3[3], double slope) {
  if (o->kind != ROD_OBSTACLE_SPHERE && o->kind != ROD_OBSTACLE_CAPSULE)
    return 0;
  double r[3], across = 1.0;
  v3_sub(r, p, o->center);
  if (o->kind == ROD_OBSTACLE_CAPSULE) {
    const double along = v3_dot(r, o->axis);
    if (fabs(along) <= o->half_length) { /* the cylinder */
      v3_axpy(r, -along, o->axis);
      across = 1.0 - v3_dot(d3, o->axis) * v3_dot(d3, o->axis);
    } else { /* a cap: a sphere about the axis' end */
      v3_axpy(r, -copysign(o->half_length, along), o->axis);
    }
  }
  return (across - slope * slope) / v3_norm(r);
}

/* The rod's centreline at s in [s_j, s_{j+1}]: the cubic Hermite of the
 * nodes' positions and unit tangents d3 (ds = |dp|, the rod inextensible),
 * p and its slope dp/ds. */
static void centreline(const rod_kirchhoff *k, int j, double s, double p[3],
                       double dp[3]) {
  const double h = k->s[j + 1] - k->s[j], u = (s - k->s[j]) / h;
  const double *ya = k->node_y + (size_t)j * KR_NODE, *yb = ya + KR_NODE;
  double R[9], ta[3], tb[3];
  quat_to_R(R, ya + ROD_Y_H);
  v3_set(ta, R[2], R[5], R[8]);
  quat_to_R(R, yb + ROD_Y_H);
  v3_set(tb, R[2], R[5], R[8]);
  const double u2 = u * u, u3 = u2 * u;
  const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u,
               h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  const double e00 = (6 * u2 - 6 * u) / h, e10 = 3 * u2 - 4 * u + 1,
               e01 = (-6 * u2 + 6 * u) / h, e11 = 3 * u2 - 2 * u;
  for (int c = 0; c < 3; c++) {
    const double pa = ya[ROD_NY + ROD_Q_P + c], pb = yb[ROD_NY + ROD_Q_P + c];
    p[c] = h00 * pa + h10 * h * ta[c] + h01 * pb + h11 * h * tb[c];
    dp[c] = e00 * pa + e10 * ta[c] + e01 * pb + e11 * tb[c];
  }
}

/* The gap's slope g' = n . dp/ds (dimensionless) at s in interval j: the
 * distance to a convex body is C1 outside it, its gradient the outward normal
 * n. */
static double gap_slope(const rod_kirchhoff *k, const rod_obstacle *o, int j,
                        double s) {
  double p[3], dp[3], n[3];
  centreline(k, j, s, p, dp);
  rod_obstacle_distance(o, p, n);
  return v3_dot(n, dp);
}

/* A box's point contact: the gap's least value along the rod between node
 * i's neighbours. Over an edge the gap is the distance to the edge line,
 * curved by 1 / (the rod's radius) across a stretch of the rod's radius
 * around its least value, and straight (the face's) before it: no
 * parabola through the nodes' gaps finds it. Its slope g' changes sign
 * once in the interval beside node i on the side where g' at the node
 * points downhill; bisection on g' along the centreline's Hermite cubic
 * there (60 halvings: the interval to 1e-18 of itself). Where g' keeps its
 * sign to the neighbour, the neighbour. */
static double box_gap_minimum(const rod_kirchhoff *k, const rod_obstacle *o,
                              int i, double slope) {
  if (slope == 0)
    return k->s[i];
  const int j = slope < 0 ? i : i - 1; /* the interval holding it */
  const double far = slope < 0 ? k->s[i + 1] : k->s[i - 1];
  if ((gap_slope(k, o, j, far) > 0) != (slope < 0))
    return far;
  double lo = k->s[i], hi = far; /* g' has the node's sign at lo */
  for (int it = 0; it < 60; it++) {
    const double mid = 0.5 * (lo + hi);
    if ((gap_slope(k, o, j, mid) < 0) == (slope < 0))
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* A point contact: node i alone pressed against o, its neighbours free.
 * The rod touches the body where it is tangent to it, the gap's slope
 * g' = n . d3 zero (the point force leaves the rod's tangent and
 * curvature continuous, so the gap is smooth to second order across the
 * contact); a node off that point carries the force a fraction of an
 * interval away, an error of first order. Its place: one Newton step on
 * g' from the node, s - g' / g'', g'' from the neighbours' gaps. */
static bool point_contact(const rod_kirchhoff *k, const rod_obstacle *o, int i,
                          kr_boundary *B) {
  const int N = k->nodes;
  if (i < 1 || i + 1 >= N || k->loads.node_point[i] >= 0 ||
      kr_contact_pressing(k, i - 1) || kr_contact_pressing(k, i + 1))
    return false;
  double n[3], nn[3], R[9], d3[3];
  const double g0 = node_gap(k, o, i, n);
  quat_to_R(R, k->node_y + (size_t)i * KR_NODE + ROD_Y_H);
  v3_set(d3, R[2], R[5], R[8]);
  const double slope = v3_dot(n, d3);
  if (o->kind == ROD_OBSTACLE_BOX) {
    B->zero = box_gap_minimum(k, o, i, slope);
    B->node = i;
    B->side = 0;
    return true;
  }
  const double hm = k->s[i] - k->s[i - 1], hp = k->s[i + 1] - k->s[i];
  const double gm = node_gap(k, o, i - 1, nn), gp = node_gap(k, o, i + 1, nn);
  /* g(s +- h) = g0 +- g' h + g'' h^2 / 2: both sides averaged; on a
   * sphere or capsule thinner than the intervals the body's own curvature
   * (body_curvature) instead */
  double curv =
      (gp - g0 - slope * hp) / (hp * hp) + (gm - g0 + slope * hm) / (hm * hm);
  const double cb = body_curvature(
      o, k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P, d3, slope);
  if (cb > 0 && o->radius < fmax(hm, hp))
    curv = cb;
  if (!(curv > 0))
    return false;
  const double step = fmin(fmax(-slope / curv, -hm), hp);

  B->zero = k->s[i] + step;
  B->node = i;
  B->side = 0;
  return true;
}

/* The boundaries of the last sweep's contact regions on planes (at least
 * two pressed nodes against the same plane, single free nodes between
 * them included, two free nodes on the span's side, no point load in the
 * stencil) and the zeros of their spans'
 * moments; returns how many. */
static int find_boundaries(const rod_kirchhoff *k, kr_boundary *bd) {
  const int N = k->nodes;
  int nb = 0;
  for (int i0 = 1; i0 < N && nb < KR_BOUNDARIES;) {
    const rod_obstacle *o = kr_contact_pressing(k, i0);
    if (!o) {
      i0++;
      continue;
    }
    if (o->kind != ROD_OBSTACLE_PLANE) { /* curved: point contacts only */
      int i1 = i0;
      while (i1 + 1 < N && kr_contact_pressing(k, i1 + 1) == o)
        i1++;
      if (i1 == i0 && point_contact(k, o, i0, &bd[nb]))
        nb++;
      i0 = i1 + 1;
      continue;
    }
    /* the stretch lying on it: a free node between two pressed ones
     * belongs to it (a uniform grid's touchdown may press a node, free
     * the next and press the rest: rod_on_table.ini tilted up by 3 mrad
     * on 192 nodes) */
    int i1 = i0;
    for (;;) {
      if (i1 + 1 < N && kr_contact_pressing(k, i1 + 1) == o)
        i1++;
      else if (i1 + 2 < N && kr_contact_pressing(k, i1 + 2) == o)
        i1 += 2;
      else
        break;
    }
    for (int side = -1; side <= 1 && i1 > i0; side += 2) {
      const int j = side < 0 ? i0 : i1;
      const int f1 = j + side, f2 = j + 2 * side;
      if (f2 < 0 || f2 >= N || kr_contact_pressing(k, f1) ||
          kr_contact_pressing(k, f2) || k->loads.node_point[j] >= 0 ||
          k->loads.node_point[f1] >= 0 || k->loads.node_point[f2] >= 0 ||
          nb >= KR_BOUNDARIES)
        continue;
      double R[9], d3[3], b[3];
      quat_to_R(R, k->node_y + (size_t)j * KR_NODE + ROD_Y_H);
      v3_set(d3, R[2], R[5], R[8]);
      v3_cross(b, o->axis, d3);
      const double nrm = v3_norm(b);
      if (nrm < 0.5) /* the rod does not lie along the plane */
        continue;
      v3_scale(b, 1.0 / nrm, b);
      const double s[3] = {k->s[j], k->s[f1], k->s[f2]};
      const double m[3] = {moment_about(k, j, b), moment_about(k, f1, b),
                           moment_about(k, f2, b)};
      kr_boundary *B = &bd[nb];
      if (!quadratic_zero(s, m, k->s[j], &B->zero))
        continue;
      B->node = j;
      B->side = side;
      nb++;
    }
    if (i1 == i0 && nb < KR_BOUNDARIES && point_contact(k, o, i0, &bd[nb]))
      nb++;
    i0 = i1 + 1;
  }
  return nb;
}

int kr_contact_boundaries(const rod_kirchhoff *k, int *node, double *zero,
                          bool *point, int max) {
  kr_boundary bd[KR_BOUNDARIES];
  const int nb = find_boundaries(k, bd);
  int n = 0;
  for (int b = 0; b < nb && n < max; b++) {
    const bool pt = bd[b].side == 0;
    const rod_obstacle_kind kind = kr_contact_pressing(k, bd[b].node)->kind;
    /* a plane's point contact keeps its node in a run, and so does a
     * box's: the statics place it at the edge (box_gap_minimum), but
     * following it in time has not been shown to come to rest
     * (docs/contact.md) */
    if (pt && (!point ||
               (kind != ROD_OBSTACLE_SPHERE && kind != ROD_OBSTACLE_CAPSULE)))
      continue;
    node[n] = bd[b].node;
    zero[n] = bd[b].zero;
    if (point)
      point[n] = pt;
    n++;
  }
  return n;
}

/* A boundary keeps its node while it lies within this many intervals of
 * the node's place in proportion: near the middle of an interval it would
 * otherwise hop between its two nodes. */
static const double kr_keep_node = 0.75;

/* The grid with a node at each of the arclengths z[0 .. n - 1]
 * (ascending) and uniform between its fixed nodes: the clamp, the tip,
 * the point loads' nodes (as built) and the boundaries'. A boundary in the
 * stretch between fixed nodes A < B takes the node nearest to its place
 * in proportion, A + (z - s_A) / (s_B - s_A) (B - A), or the node used[b]
 * it had (b < keep) while within kr_keep_node of it; used receives the
 * nodes. So the free span and the lying stretch each get even intervals
 * (a node merely moved to the boundary leaves its neighbours' intervals
 * between 1/2 and 3/2 of the grid's, and the first lying interval's
 * length, cubed, sets the clamp's error). A boundary with own[b] (own may
 * be NULL) keeps used[b] wherever it lies in its stretch. False, the grid
 * untouched, when some boundary finds no node. */
static bool place_nodes(rod_kirchhoff *k, const double *z, int n, int *used,
                        int keep, const bool *own) {
  const int N = k->nodes;
  /* the fixed nodes, ascending: each one's index */
  int fix[KR_FIXED_NODES + KR_BOUNDARIES], nf = kr_fixed_nodes(k, fix);
  double fs[KR_FIXED_NODES + KR_BOUNDARIES];
  for (int f = 0; f < nf; f++)
    fs[f] = k->s_base[fix[f]];
  for (int b = 0; b < n; b++) {
    int f = 0; /* the stretch (fix[f], fix[f + 1]) holding z[b] */
    while (f + 2 < nf && fs[f + 1] <= z[b])
      f++;
    const int A = fix[f], B = fix[f + 1];
    if (B - A < 2 || !(z[b] > fs[f] && z[b] < fs[f + 1]))
      return false;
    const double at = A + (z[b] - fs[f]) / (fs[f + 1] - fs[f]) * (B - A);
    int j = (int)lround(at);
    if ((b < keep || (own && own[b])) && used[b] > A && used[b] < B &&
        (fabs(at - used[b]) <= kr_keep_node || (own && own[b])))
      j = used[b];
    j = j < A + 1 ? A + 1 : j > B - 1 ? B - 1 : j;
    used[b] = j;
    for (int g = nf; g > f + 1; g--) { /* insert (j, z) after f */
      fix[g] = fix[g - 1];
      fs[g] = fs[g - 1];
    }
    fix[f + 1] = j;
    fs[f + 1] = z[b];
    nf++;
  }
  /* the grid is left as it was unless every stretch is whole */
  for (int f = 0; f + 1 < nf; f++)
    if (!(fix[f + 1] > fix[f] && fs[f + 1] > fs[f]))
      return false;
  for (int f = 0; f + 1 < nf; f++) {
    const int A = fix[f], B = fix[f + 1];
    for (int j = A; j < B; j++)
      k->s[j] = fs[f] + (fs[f + 1] - fs[f]) * (j - A) / (B - A);
  }
  k->s[N - 1] = fs[nf - 1];
  return true;
}

int kr_contact_touchdown(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  kr_boundary bd[KR_BOUNDARIES];
  double z[KR_BOUNDARIES], zl[KR_BOUNDARIES], x0[6];
  int nl = 0, used[KR_BOUNDARIES]; /* the last grid's boundaries */
  const double tol = k->sc.solver.tolerance * k->model.length;
  double gl = INFINITY; /* m: the last iteration's largest distance */
  for (int it = 0; it < KR_BOUNDARY_ITERATIONS; it++) {
    const int nb = find_boundaries(k, bd);
    double g = 0;
    for (int b = 0; b < nb; b++) {
      z[b] = bd[b].zero;
      g = fmax(g, fabs(z[b] - k->s[bd[b].node]));
    }
    /* settled, or down to the contact solve's own scatter: the zero moves
     * by the gaps' tolerance over the rod's stiffness, 1e-7 m on 200
     * nodes of rod_on_table.ini, and the fixed point contracts by 1e-2 to
     * 4e-2 */
    if (nb == 0 || g <= tol || (nb == nl && g > 0.5 * gl))
      return ROD_OK;
    for (int b = 1; b < nb; b++) /* ascending */
      if (!(z[b] > z[b - 1]))
        return ROD_OK;
    /* a box's point contact keeps its pressed node, which carries the
     * force (a node moved onto an edge between two nodes may be the one
     * after the node nearest its place in proportion) */
    bool own[KR_BOUNDARIES];
    for (int b = 0; b < nb; b++) {
      own[b] = bd[b].side == 0 &&
               kr_contact_pressing(k, bd[b].node)->kind == ROD_OBSTACLE_BOX;
      if (own[b])
        used[b] = bd[b].node;
    }
    if (!place_nodes(k, z, nb, used, nb == nl ? nl : 0, own))
      return ROD_OK;
    kr_grid_changed(k);
    kr_contact_follow_normals(k);
    memcpy(x0, x, sizeof x0);
    if (kr_contact_static(k, x, st) != ROD_OK) { /* back to the last grid */
      place_nodes(k, zl, nl, used, 0, NULL);
      kr_grid_changed(k);
      memcpy(x, x0, sizeof x0);
      return kr_contact_static(k, x, st);
    }
    memcpy(zl, z, sizeof zl);
    nl = nb;
    gl = g;
  }
  return ROD_OK;
}

/* A node that may move: neither the clamp, the tip, a point load's node
 * nor a pressed one. */
static bool movable(const rod_kirchhoff *k, int i) {
  return i > 0 && i + 1 < k->nodes && k->loads.node_point[i] < 0 &&
         !kr_contact_pressing(k, i);
}

bool kr_contact_node_into(rod_kirchhoff *k, int j, double at) {
  const double z = k->s[j] + at * (k->s[j + 1] - k->s[j]);
  const int first = at < 0.5 ? j : j + 1, other = at < 0.5 ? j + 1 : j;
  const int i = movable(k, first) ? first : other;
  if (!movable(k, i) || !(z > k->s[i - 1] && z < k->s[i + 1]))
    return false;
  k->s[i] = z;
  kr_grid_changed(k);
  return true;
}
