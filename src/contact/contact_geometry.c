/* Signed distances between the rod and the rigid bodies: a point (a node of
 * the rod's axis) and a segment (a rigid element's axis) against a plane,
 * a sphere, a capsule and a box. The rod is a capsule of its outer radius
 * around its axis, so its gap is the axis' distance minus that radius. The
 * nearest pair of points is the pair of witness points and the normal
 * points from the body to the rod (Carpentier et al., Pinocchio,
 * "Dynamics: simulation and control"; Ericson, "Real-Time Collision
 * Detection", 2005, 5.1). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/contact.h"
#include "core/v3.h"

/* Rotation matrix (row-major, world <- body) of the rotation vector r
 * (axis times angle, rad), by Rodrigues' formula. */
static void rotation_from_vector(double R[9], const double r[3]) {
  double angle = v3_norm(r);
  if (!(angle > 0)) {
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(R, I, sizeof I);
    return;
  }
  double a[3], h[4];
  v3_scale(a, 1.0 / angle, r);
  quat_axis_angle(h, a, angle);
  quat_to_R(R, h);
}

void rod_contact_world_init(rod_contact_world *w, const rod_scenario *sc) {
  memset(w, 0, sizeof *w);
  w->rod_radius = 0.5 * sc->rod.diameter;
  if (sc->plane.enabled) {
    rod_obstacle *o = &w->item[w->count++];
    o->kind = ROD_OBSTACLE_PLANE;
    snprintf(o->label, sizeof o->label, "plane");
    v3_copy(o->center, sc->plane.point);
    v3_copy(o->axis, sc->plane.normal);
    v3_normalize(o->axis);
    o->bound = INFINITY;
    o->friction = sc->plane.friction;
    o->restitution = sc->plane.restitution;
  }
  for (int i = 0; i < sc->obstacles.count; i++) {
    const rod_obstacle_def *d = &sc->obstacles.item[i];
    rod_obstacle *o = &w->item[w->count++];
    snprintf(o->label, sizeof o->label, "obstacle.%s", d->name);
    v3_copy(o->center, d->center);
    o->friction = d->friction;
    o->restitution = d->restitution;
    switch (d->shape) {
    case ROD_SHAPE_SPHERE:
      o->kind = ROD_OBSTACLE_SPHERE;
      o->radius = d->radius;
      o->bound = d->radius;
      break;
    case ROD_SHAPE_CAPSULE:
      o->kind = ROD_OBSTACLE_CAPSULE;
      o->radius = d->radius;
      o->half_length = d->half_length;
      v3_copy(o->axis, d->axis);
      v3_normalize(o->axis);
      o->bound = d->half_length + d->radius;
      break;
    case ROD_SHAPE_BOX:
      o->kind = ROD_OBSTACLE_BOX;
      v3_copy(o->half, d->half_extents);
      rotation_from_vector(o->R, d->rotation);
      o->bound = v3_norm(d->half_extents);
      break;
    }
  }
  for (int i = 0; i < w->count; i++)
    if (w->item[i].friction > 0)
      w->friction = true;
}

void rod_contact_tangents(const double n[3], double t1[3], double t2[3]) {
  /* t1 = the normalised component of the world axis least aligned with n */
  double e[3] = {0, 0, 0};
  const double ax = fabs(n[0]), ay = fabs(n[1]), az = fabs(n[2]);
  e[ax <= ay && ax <= az ? 0 : (ay <= az ? 1 : 2)] = 1.0;
  v3_axpy(e, -v3_dot(e, n), n);
  v3_normalize(e);
  v3_copy(t1, e);
  v3_cross(t2, n, t1);
}

/* Distance from x to the sphere of radius rad about c; the normal along
 * x - c (any unit vector perpendicular to fallback when x = c). */
static double sphere_distance(const double c[3], double rad, const double x[3],
                              const double fallback[3], double n[3]) {
  double d[3];
  v3_sub(d, x, c);
  double len = v3_norm(d);
  if (len > 0) {
    v3_scale(n, 1.0 / len, d);
  } else {
    double t2[3];
    rod_contact_tangents(fallback, n, t2);
  }
  return len - rad;
}

/* The capsule's axis point nearest to x. */
static void capsule_axis_point(const rod_obstacle *o, const double x[3],
                               double p[3]) {
  double d[3];
  v3_sub(d, x, o->center);
  double s = v3_dot(d, o->axis);
  s = s < -o->half_length ? -o->half_length
                          : (s > o->half_length ? o->half_length : s);
  v3_copy(p, o->center);
  v3_axpy(p, s, o->axis);
}

/* Box: outside, the Euclidean distance to the nearest surface point;
 * inside, minus the distance to the nearest face (its normal). */
static double box_distance(const rod_obstacle *o, const double x[3],
                           double n[3]) {
  double d[3], y[3], q[3];
  v3_sub(d, x, o->center);
  m3_mul_tv(y, o->R, d);
  bool outside = false;
  for (int i = 0; i < 3; i++) {
    q[i] = fabs(y[i]) - o->half[i];
    outside = outside || q[i] > 0;
  }
  double nl[3] = {0, 0, 0}, dist;
  if (outside) {
    double s = 0;
    for (int i = 0; i < 3; i++)
      if (q[i] > 0) {
        nl[i] = (y[i] < 0 ? -1.0 : 1.0) * q[i];
        s += q[i] * q[i];
      }
    dist = sqrt(s);
    v3_scale(nl, 1.0 / dist, nl);
  } else {
    int k = q[0] >= q[1] && q[0] >= q[2] ? 0 : (q[1] >= q[2] ? 1 : 2);
    dist = q[k];
    nl[k] = y[k] < 0 ? -1.0 : 1.0;
  }
  m3_mul_v(n, o->R, nl);
  return dist;
}

double rod_obstacle_distance(const rod_obstacle *o, const double x[3],
                             double n[3]) {
  switch (o->kind) {
  case ROD_OBSTACLE_PLANE: {
    double d[3];
    v3_sub(d, x, o->center);
    v3_copy(n, o->axis);
    return v3_dot(d, o->axis);
  }
  case ROD_OBSTACLE_SPHERE: {
    const double up[3] = {0, 0, 1};
    return sphere_distance(o->center, o->radius, x, up, n);
  }
  case ROD_OBSTACLE_CAPSULE: {
    double p[3];
    capsule_axis_point(o, x, p);
    return sphere_distance(p, o->radius, x, o->axis, n);
  }
  case ROD_OBSTACLE_BOX:
    return box_distance(o, x, n);
  }
  return INFINITY;
}

static double clamp01(double t) { return t < 0 ? 0 : (t > 1 ? 1 : t); }

/* Parameters s on a-b and u on c-d of the nearest pair of points of two
 * segments (Ericson 2005, 5.1.9), both in [0, 1]. */
static void segment_segment(const double a[3], const double b[3],
                            const double c[3], const double d[3], double *s,
                            double *u) {
  double d1[3], d2[3], r[3];
  v3_sub(d1, b, a);
  v3_sub(d2, d, c);
  v3_sub(r, a, c);
  const double A = v3_dot(d1, d1), E = v3_dot(d2, d2), F = v3_dot(d2, r);
  const double tiny = 1e-300;
  if (A <= tiny && E <= tiny) {
    *s = *u = 0;
    return;
  }
  if (A <= tiny) {
    *s = 0;
    *u = clamp01(F / E);
    return;
  }
  const double C = v3_dot(d1, r);
  if (E <= tiny) {
    *u = 0;
    *s = clamp01(-C / A);
    return;
  }
  const double B = v3_dot(d1, d2), den = A * E - B * B;
  double ss = den > 1e-14 * A * E ? clamp01((B * F - C * E) / den) : 0.0;
  double uu = (B * ss + F) / E;
  if (uu < 0) {
    uu = 0;
    ss = clamp01(-C / A);
  } else if (uu > 1) {
    uu = 1;
    ss = clamp01((B - C) / A);
  }
  *s = ss;
  *u = uu;
}

static void lerp(double p[3], const double a[3], const double b[3], double t) {
  for (int i = 0; i < 3; i++)
    p[i] = a[i] + t * (b[i] - a[i]);
}

/* Minimum over t in [0, 1] of the (convex) box distance along a-b by golden
 * section: 58 reductions by 0.618 leave 1e-12 of the segment. */
static double box_segment(const rod_obstacle *o, const double a[3],
                          const double b[3], double *t) {
  const double g = 0.5 * (sqrt(5.0) - 1.0);
  double lo = 0, hi = 1, n[3], p[3];
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  lerp(p, a, b, x1);
  double f1 = box_distance(o, p, n);
  lerp(p, a, b, x2);
  double f2 = box_distance(o, p, n);
  for (int it = 0; it < 58; it++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      lerp(p, a, b, x1);
      f1 = box_distance(o, p, n);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      lerp(p, a, b, x2);
      f2 = box_distance(o, p, n);
    }
  }
  /* the ends, where the minimum of a monotone stretch lies */
  double best = 0.5 * (lo + hi), fb = f1 <= f2 ? f1 : f2;
  for (int e = 0; e < 2; e++) {
    double fe = box_distance(o, e ? b : a, n);
    if (fe < fb) {
      fb = fe;
      best = e;
    }
  }
  *t = best;
  return fb;
}

double rod_obstacle_segment(const rod_obstacle *o, const double a[3],
                            const double b[3], double *t, double n[3]) {
  double p[3];
  switch (o->kind) {
  case ROD_OBSTACLE_PLANE: {
    double na[3];
    double da = rod_obstacle_distance(o, a, na);
    double db = rod_obstacle_distance(o, b, n);
    *t = db < da ? 1.0 : 0.0;
    return db < da ? db : da;
  }
  case ROD_OBSTACLE_SPHERE: {
    double ab[3], ac[3];
    v3_sub(ab, b, a);
    v3_sub(ac, o->center, a);
    double len2 = v3_dot(ab, ab);
    *t = len2 > 0 ? clamp01(v3_dot(ac, ab) / len2) : 0.0;
    break;
  }
  case ROD_OBSTACLE_CAPSULE: {
    double c[3], d[3], u;
    v3_copy(c, o->center);
    v3_axpy(c, -o->half_length, o->axis);
    v3_copy(d, o->center);
    v3_axpy(d, o->half_length, o->axis);
    segment_segment(a, b, c, d, t, &u);
    break;
  }
  case ROD_OBSTACLE_BOX:
    box_segment(o, a, b, t);
    break;
  }
  lerp(p, a, b, *t);
  return rod_obstacle_distance(o, p, n);
}
