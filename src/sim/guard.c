/* Plausibility checks of a converged state (guard.h). */
#include "sim/guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/loads.h"
#include "core/v3.h"

/* A segment's extent along the sweep axis, for sweep and prune. */
struct rod_guard_box {
  double lo, hi;
  int seg;
};

void rod_guard_init(rod_guard *g, const rod_scenario *sc) {
  g->diameter = sc->rod.diameter;
  g->gap = 0.5 * M_PI * sc->rod.diameter;
  g->capacity = 0;
  g->segments = 0;
  g->box = NULL;
}

void rod_guard_free(rod_guard *g) {
  free(g->box);
  g->box = NULL;
  g->capacity = 0;
  g->segments = 0;
}

/* Squared distance between the segments [p1, q1] and [p2, q2]
 * (Ericson, Real-Time Collision Detection, 5.1.9); s, t the parameters of
 * the closest points. */
static double segment_distance2(const double *p1, const double *q1,
                                const double *p2, const double *q2, double *s,
                                double *t) {
  double d1[3], d2[3], r[3];
  v3_sub(d1, q1, p1);
  v3_sub(d2, q2, p2);
  v3_sub(r, p1, p2);
  const double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
  const double eps = 1e-300;
  if (a <= eps && e <= eps) {
    *s = *t = 0;
  } else if (a <= eps) {
    *s = 0;
    *t = fmin(fmax(f / e, 0.0), 1.0);
  } else {
    const double c = v3_dot(d1, r);
    if (e <= eps) {
      *t = 0;
      *s = fmin(fmax(-c / a, 0.0), 1.0);
    } else {
      const double b = v3_dot(d1, d2), den = a * e - b * b;
      *s = den > 0 ? fmin(fmax((b * f - c * e) / den, 0.0), 1.0) : 0.0;
      *t = (b * *s + f) / e;
      if (*t < 0) {
        *t = 0;
        *s = fmin(fmax(-c / a, 0.0), 1.0);
      } else if (*t > 1) {
        *t = 1;
        *s = fmin(fmax((b - c) / a, 0.0), 1.0);
      }
    }
  }
  double c1[3], c2[3], d[3];
  for (int i = 0; i < 3; i++) {
    c1[i] = p1[i] + d1[i] * *s;
    c2[i] = p2[i] + d2[i] * *t;
  }
  v3_sub(d, c1, c2);
  return v3_dot(d, d);
}

/* Sort the boxes by lo in place by insertion: they come in the last
 * sample's order, which a step changes little (a few swaps: linear time),
 * where qsort took a buffer from malloc and n log n comparisons at every
 * step. */
static void sort_boxes(struct rod_guard_box *box, int n) {
  for (int i = 1; i < n; i++) {
    const struct rod_guard_box b = box[i];
    int j = i;
    for (; j > 0 && box[j - 1].lo > b.lo; j--)
      box[j] = box[j - 1];
    box[j] = b;
  }
}

/* Every value of v[0..n) finite: x - x is +0 for a finite x and NaN for
 * an infinite or NaN one, and a sum of +0 stays +0 while a NaN stays. Four
 * sums, with no branch in the loop, so the compiler pairs them in vector
 * registers: it runs after every step on about 20 values a point
 * (isfinite with an early exit cost 5 % of a Cosserat run's
 * instructions). */
static bool finite_array(const double *v, int n) {
  if (!v)
    return true;
  double sum[4] = {0, 0, 0, 0};
  int i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++)
      sum[k] += v[i + k] - v[i + k];
  for (; i < n; i++)
    sum[0] += v[i] - v[i];
  return (sum[0] + sum[1]) + (sum[2] + sum[3]) == 0;
}

/* The centreline passes within the diameter of itself: the segments are
 * swept along the axis of the rod's largest extent (sort and prune), and
 * pairs whose arclength gap is at least pi d / 2 are measured. */
static bool intersects(rod_guard *g, const rod_sample *s, char *msg,
                       size_t size) {
  const int n = s->points - 1; /* segments */
  if (n < 2 || !(g->diameter > 0))
    return false;
  if (n > g->capacity) {
    struct rod_guard_box *b = realloc(g->box, (size_t)n * sizeof *b);
    if (!b)
      return false; /* no room to check: not a verdict */
    g->box = b;
    g->capacity = n;
  }
  if (n != g->segments) { /* the first sample, or a new grid */
    for (int i = 0; i < n; i++)
      g->box[i].seg = i;
    g->segments = n;
  }
  const double *p = s->position;
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  /* the positions are finite (rod_guard_values): plain comparisons, which
   * the compiler keeps inline where fmin and fmax are calls */
  for (int i = 0; i <= n; i++)
    for (int c = 0; c < 3; c++) {
      const double x = p[3 * i + c];
      lo[c] = x < lo[c] ? x : lo[c];
      hi[c] = x > hi[c] ? x : hi[c];
    }
  int ax = 0;
  for (int c = 1; c < 3; c++)
    if (hi[c] - lo[c] > hi[ax] - lo[ax])
      ax = c;
  const double r = g->diameter;
  for (int k = 0; k < n; k++) { /* in the last sample's order */
    const int i = g->box[k].seg;
    double a = p[3 * i + ax], b = p[3 * (i + 1) + ax];
    g->box[k].lo = a < b ? a : b;
    g->box[k].hi = (a < b ? b : a) + r;
  }
  sort_boxes(g->box, n);
  double best = INFINITY, sa = 0, sb = 0;
  for (int x = 0; x < n; x++) {
    for (int y = x + 1; y < n && g->box[y].lo <= g->box[x].hi; y++) {
      int i = g->box[x].seg, j = g->box[y].seg;
      if (i > j) {
        int t = i;
        i = j;
        j = t;
      }
      if (s->s[j] - s->s[i + 1] < g->gap)
        continue; /* neighbours along the rod */
      double u, v;
      double d2 = segment_distance2(p + 3 * i, p + 3 * (i + 1), p + 3 * j,
                                    p + 3 * (j + 1), &u, &v);
      if (d2 < best) {
        best = d2;
        sa = s->s[i] + u * (s->s[i + 1] - s->s[i]);
        sb = s->s[j] + v * (s->s[j + 1] - s->s[j]);
      }
    }
  }
  if (!(best < r * r))
    return false;
  snprintf(msg, size,
           "the rod passes through itself: s = %.4g m and s = %.4g m are "
           "%.3g m apart, less than the diameter %.3g m (rodsim has no "
           "self-contact)",
           sa, sb, sqrt(best), r);
  return true;
}

bool rod_guard_finite(const rod_sample *s, char *msg, size_t size) {
  const int n = s->points;
  const char *what =
      !finite_array(s->position, 3 * n)        ? "position"
      : !finite_array(s->orientation, 4 * n)   ? "orientation"
      : !finite_array(s->velocity, 3 * n)      ? "velocity"
      : !finite_array(s->force, 3 * n)         ? "internal force"
      : !finite_array(s->moment, 3 * n)        ? "internal moment"
      : !finite_array(s->contact_force, 3 * n) ? "contact force"
      : !(isfinite(s->kinetic) && isfinite(s->elastic) && isfinite(s->gravity))
          ? "energy"
          : NULL;
  if (what)
    snprintf(msg, size, "a value of the state is not finite (%s)", what);
  return !what;
}

bool rod_guard_values(const rod_sample *s, char *msg, size_t size) {
  if (!rod_guard_finite(s, msg, size))
    return false;
  if (s->kinetic < 0 || s->elastic < 0) {
    snprintf(msg, size,
             "an energy that cannot be: kinetic %.3g J, elastic %.3g J",
             s->kinetic, s->elastic);
    return false;
  }
  return true;
}

bool rod_guard_crossing(rod_guard *g, const rod_sample *s, char *msg,
                        size_t size) {
  return intersects(g, s, msg, size);
}

/* int_a^b (p - p0) ds over the sample by the trapezoid rule corrected with
 * the tangents d3 = R e3 at the points (the integral of the cubic Hermite
 * interpolant: fourth order), into I (m^2). */
static void position_integral(const rod_sample *s, const double *p0,
                              double *I) {
  v3_set(I, 0, 0, 0);
  for (int i = 0; i + 1 < s->points; i++) {
    const double h = s->s[i + 1] - s->s[i];
    double ta[3], tb[3], R[9];
    quat_to_R(R, s->orientation + 4 * i);
    v3_set(ta, R[2], R[5], R[8]);
    quat_to_R(R, s->orientation + 4 * (i + 1));
    v3_set(tb, R[2], R[5], R[8]);
    for (int c = 0; c < 3; c++)
      I[c] += 0.5 * h *
                  (s->position[3 * i + c] + s->position[3 * (i + 1) + c] -
                   2.0 * p0[c]) +
              h * h / 12.0 * (ta[c] - tb[c]);
  }
}

/* The point of the sample at arclength a (linear between points). */
static void point_at(const rod_sample *s, double a, double *p) {
  int i = 0;
  while (i + 2 < s->points && s->s[i + 1] < a)
    i++;
  double h = s->s[i + 1] - s->s[i], x = h > 0 ? (a - s->s[i]) / h : 0;
  for (int c = 0; c < 3; c++)
    p[c] = s->position[3 * i + c] +
           x * (s->position[3 * (i + 1) + c] - s->position[3 * i + c]);
}

/* Largest mismatch allowed, relative to the loads and their moments: the
 * moment's quadrature errs like (kappa h)^4 / 720 (5e-6 at auto's
 * kappa h = 0.25) and the shooting leaves solver.tolerance in the scaled
 * residual; the check is for gross failures (a state that balances other
 * loads), measured below 1e-10 of the moments on the shipped RK4
 * scenarios and the soft rod. */
static const double balance_rel = 1e-4;

/* On an Euler grid the moment is first order: a mismatch of this times
 * kappa h, kappa the curvature bound (the Cosserat anchor on 40 nodes:
 * 0.47 kappa h). */
static const double euler_rel = 2.0;

bool rod_guard_balance(const rod_scenario *sc, const rod_model *m,
                       const rod_drive *d, const rod_sample *s, char *msg,
                       size_t size) {
  if (!s->force || !s->moment || s->points < 2 || sc->loads.count > 0 ||
      !sc->tip.release || sc->tendons.count > 0)
    return true; /* loads this check does not know (the tendons pull the
                    backbone at the clamp too: its n(0), m(0) are not the
                    clamp's whole reaction) */
  const double *p0 = s->position;
  double F[3], M[3], w[3], F_tip[3], M_tip[3], arm[3], t[3], I[3];
  rod_tip_loads(sc, d, true, F_tip, M_tip);
  v3_scale(w, m->rho_area, m->gravity); /* N/m */
  double L = s->s[s->points - 1];
  /* n(0) = F_tip + w L + F_impulse; m(0) = the moments about p(0) */
  v3_copy(F, F_tip);
  v3_axpy(F, L, w);
  v3_copy(M, M_tip);
  v3_sub(arm, s->position + 3 * (s->points - 1), p0);
  v3_cross(t, arm, F_tip);
  v3_add(M, M, t);
  double scale_F = v3_norm(F_tip) + v3_norm(w) * L;
  double scale_M = v3_norm(M_tip) + v3_norm(t);
  position_integral(s, p0, I);
  v3_cross(t, I, w);
  v3_add(M, M, t);
  scale_M += v3_norm(w) * L * L;
  if (sc->impulse.enabled) {
    double f = rod_impulse_force(sc, 0.0), Fi[3], pi[3];
    double dir[3];
    v3_copy(dir, sc->impulse.direction);
    v3_normalize(dir);
    v3_scale(Fi, f, dir);
    if (sc->impulse.position > 0) { /* at the clamp it holds it directly */
      v3_add(F, F, Fi);
      point_at(s, sc->impulse.position, pi);
      v3_sub(arm, pi, p0);
      v3_cross(t, arm, Fi);
      v3_add(M, M, t);
      scale_F += fabs(f);
      scale_M += fabs(f) * sc->impulse.position;
    }
  }
  if (s->contact_force) /* the bodies' forces at the points */
    for (int i = 0; i < s->points; i++) {
      const double *f = s->contact_force + 3 * i;
      v3_add(F, F, f);
      v3_sub(arm, s->position + 3 * i, p0);
      v3_cross(t, arm, f);
      v3_add(M, M, t);
      scale_F += v3_norm(f);
      scale_M += v3_norm(t);
    }
  double dF[3], dM[3];
  v3_sub(dF, s->force, F);
  v3_sub(dM, s->moment, M);
  const double EI = m->K[0], tol = sc->solver.tolerance;
  double rel = balance_rel;
  if (sc->space.integrator == ROD_SPACE_EULER) {
    /* Euler's positions and moments are first order: kappa h */
    double h = 0;
    for (int i = 0; i + 1 < s->points; i++)
      h = fmax(h, s->s[i + 1] - s->s[i]);
    rel = fmax(rel, euler_rel * rod_model_curvature_bound(m, sc) * h);
  }
  const double lim_F = rel * scale_F + 10 * tol * EI / (L * L);
  const double lim_M = rel * scale_M + 10 * tol * EI / L;
  if (v3_norm(dF) <= lim_F && v3_norm(dM) <= lim_M)
    return true;
  snprintf(msg, size,
           "the clamp reaction does not balance the loads: n(0) is off by "
           "%.3g N, m(0) by %.3g N m (loads %.3g N, moments %.3g N m)",
           v3_norm(dF), v3_norm(dM), scale_F, scale_M);
  return false;
}
