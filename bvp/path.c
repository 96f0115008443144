/* Pseudo-arclength continuation from lambda = 0 to 1 (see bvp/path.h). */
#include "bvp/path.h"

#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rod/status.h"

struct rod_path {
  int n;
  double *z, *zp, *zn, *t, *tn; /* (n + 1): the point, the prediction, the
                                  corrected point, tangents */
  double *r, *r2, *rl;          /* n: residuals, r_lambda */
  double *J;                    /* n x n */
  double *A, *b, *d;            /* (n + 1)^2, (n + 1), (n + 1) */
  lapack_int *ipiv;
};

rod_path_options rod_path_default_options(void) {
  rod_path_options o = {
      .tolerance = 1e-8,
      .max_iterations = 8,
      .contraction = 0.5,
      .step0 = 0.25,
      .step_min = 1e-9,
      .step_max = INFINITY,
      .max_steps = 2000,
      .fd_lambda = 1e-7,
      .bifurcation_step = 1e-3,
      .symmetric = false,
  };
  return o;
}

void rod_path_free(rod_path *p) {
  if (!p)
    return;
  free(p->z);
  free(p->zp);
  free(p->zn);
  free(p->t);
  free(p->tn);
  free(p->r);
  free(p->r2);
  free(p->rl);
  free(p->J);
  free(p->A);
  free(p->b);
  free(p->d);
  free(p->ipiv);
  free(p);
}

rod_path *rod_path_alloc(int n) {
  if (n <= 0)
    return NULL;
  rod_path *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  const size_t m = (size_t)n + 1;
  p->n = n;
  p->z = calloc(m, sizeof(double));
  p->zp = calloc(m, sizeof(double));
  p->zn = calloc(m, sizeof(double));
  p->t = calloc(m, sizeof(double));
  p->tn = calloc(m, sizeof(double));
  p->r = calloc((size_t)n, sizeof(double));
  p->r2 = calloc((size_t)n, sizeof(double));
  p->rl = calloc((size_t)n, sizeof(double));
  p->J = calloc((size_t)n * n, sizeof(double));
  p->A = calloc(m * m, sizeof(double));
  p->b = calloc(m, sizeof(double));
  p->d = calloc(m, sizeof(double));
  p->ipiv = calloc(m, sizeof(lapack_int));
  if (!p->z || !p->zp || !p->zn || !p->t || !p->tn || !p->r || !p->r2 ||
      !p->rl || !p->J || !p->A || !p->b || !p->d || !p->ipiv) {
    rod_path_free(p);
    return NULL;
  }
  return p;
}

static double norm_inf(const double *v, int n) {
  double a = 0;
  for (int i = 0; i < n; i++)
    if (!(fabs(v[i]) <= a))
      a = fabs(v[i]);
  return a;
}

static double norm2(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

static int eval(const rod_path_problem *pb, const double *z, double *r,
                double *J, rod_path_stats *st) {
  st->evaluations++;
  if (J)
    st->jacobians++;
  int s = pb->residual(pb->user, z, z[pb->n], r, J);
  if (s == 0 && !(norm_inf(r, pb->n) < INFINITY))
    s = 1;
  return s;
}

/* r_lambda at z (whose residual is p->r) by a forward difference. */
static int r_lambda(rod_path *p, const rod_path_problem *pb, const double *z,
                    const rod_path_options *o, rod_path_stats *st) {
  const int n = p->n;
  memcpy(p->d, z, (size_t)n * sizeof(double));
  p->d[n] = z[n] + o->fd_lambda;
  double h = p->d[n] - z[n];
  int s = eval(pb, p->d, p->r2, NULL, st);
  if (s != 0)
    return s;
  for (int i = 0; i < n; i++)
    p->rl[i] = (p->r2[i] - p->r[i]) / h;
  return 0;
}

/* Solve A d = b for the (n + 1) or n unknowns (m of them); false if
 * singular. */
static bool solve(rod_path *p, int m) {
  memcpy(p->d, p->b, (size_t)m * sizeof(double));
  lapack_int info =
      LAPACKE_dgesv(LAPACK_COL_MAJOR, m, 1, p->A, m, p->ipiv, p->d, m);
  return info == 0 && norm_inf(p->d, m) < INFINITY;
}

/* The index watched along the path: the number of negative eigenvalues
 * of J when it is symmetric (Sylvester's inertia of its LDL^T
 * factorisation), else 1 where det J < 0 and 0 where det J >= 0 (its
 * parity: det J's sign). */
static int path_index(rod_path *p, bool symmetric) {
  const int n = p->n;
  memcpy(p->A, p->J, (size_t)n * n * sizeof(double));
  int neg = 0;
  if (symmetric) {
    LAPACKE_dsytrf(LAPACK_COL_MAJOR, 'L', n, p->A, n, p->ipiv);
    for (int i = 0; i < n; i++) {
      const double a = p->A[(size_t)i * n + i];
      if (p->ipiv[i] > 0 || i + 1 == n) {
        neg += a < 0;
        continue;
      }
      /* a 2 x 2 block [a b; b c]: one negative eigenvalue when its
       * determinant is negative, two when it is positive and a < 0 */
      const double b = p->A[(size_t)i * n + i + 1];
      const double c = p->A[(size_t)(i + 1) * n + i + 1];
      const double det = a * c - b * b;
      neg += det < 0 ? 1 : a < 0 ? 2 : 0;
      i++;
    }
    return neg;
  }
  lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, p->A, n, p->ipiv);
  if (info > 0)
    return 0;
  for (int i = 0; i < n; i++) {
    if (p->A[(size_t)i * n + i] < 0)
      neg = !neg;
    if (p->ipiv[i] != i + 1)
      neg = !neg;
  }
  return neg;
}

/* The augmented matrix [J r_lambda; c^T] into A ((n + 1) square). */
static void augmented(rod_path *p, const double *c) {
  const int n = p->n, m = n + 1;
  for (int j = 0; j < n; j++) {
    memcpy(p->A + (size_t)j * m, p->J + (size_t)j * n,
           (size_t)n * sizeof(double));
    p->A[(size_t)j * m + n] = c[j];
  }
  memcpy(p->A + (size_t)n * m, p->rl, (size_t)n * sizeof(double));
  p->A[(size_t)n * m + n] = c[n];
}

/* Unit tangent tn at the point of J and r_lambda, oriented along t. */
static bool tangent(rod_path *p) {
  const int n = p->n;
  augmented(p, p->t);
  memset(p->b, 0, (size_t)n * sizeof(double));
  p->b[n] = 1.0;
  if (!solve(p, n + 1))
    return false;
  double s = norm2(p->d, n + 1);
  for (int i = 0; i <= n; i++)
    p->tn[i] = p->d[i] / s;
  return true;
}

/* Newton from z: on r = 0 and t . (z - zp) = 0 (arc), or on r = 0 at the
 * fixed lambda of z. On success p->r, p->J (and, for arc, p->rl) belong to
 * the converged z. Returns 0, > 0 (retry shorter) or < 0 (fatal). */
static int correct(rod_path *p, const rod_path_problem *pb, double *z, bool arc,
                   const rod_path_options *o, rod_path_stats *st) {
  const int n = p->n, m = arc ? n + 1 : n;
  double prev = INFINITY;
  for (int it = 0;; it++) {
    int s = eval(pb, z, p->r, p->J, st);
    if (s != 0)
      return s;
    if (arc && (s = r_lambda(p, pb, z, o, st)) != 0)
      return s;
    if (norm_inf(p->r, n) <= o->tolerance)
      return 0;
    if (it == o->max_iterations)
      return 1;
    if (arc) {
      augmented(p, p->t);
      double g = 0;
      for (int i = 0; i <= n; i++)
        g += p->t[i] * (z[i] - p->zp[i]);
      p->b[n] = -g;
    } else {
      memcpy(p->A, p->J, (size_t)n * n * sizeof(double));
    }
    for (int i = 0; i < n; i++)
      p->b[i] = -p->r[i];
    if (!solve(p, m))
      return 1;
    double dn = norm2(p->d, m);
    if (it > 0 && dn > o->contraction * prev)
      return 1; /* Newton does not contract: too far from the path */
    prev = dn;
    for (int i = 0; i < m; i++)
      z[i] += p->d[i];
    st->iterations++;
  }
}

/* The index watched at the point z just corrected: the problem's own, or
 * det J's sign (the symmetric J's inertia). */
static int watched_index(rod_path *p, const rod_path_problem *pb,
                         const double *z, bool symmetric) {
  if (pb->index) {
    int i = pb->index(pb->user, z, z[p->n]);
    if (i >= 0)
      return i;
  }
  return path_index(p, symmetric);
}

int rod_path_solve(rod_path *p, const rod_path_problem *pb, double *x,
                   const rod_path_options *o, rod_path_stats *stats) {
  const int n = p->n;
  rod_path_stats st = {0};
  memcpy(p->z, x, (size_t)n * sizeof(double));
  p->z[n] = 0.0;
  int s = correct(p, pb, p->z, false, o, &st);
  if (s == 0)
    s = r_lambda(p, pb, p->z, o, &st);
  if (s != 0)
    goto done;
  /* the first tangent: increasing lambda */
  memset(p->t, 0, (size_t)(n + 1) * sizeof(double));
  p->t[n] = 1.0;
  if (!tangent(p)) {
    s = ROD_ESING;
    goto done;
  }
  memcpy(p->t, p->tn, (size_t)(n + 1) * sizeof(double));
  int index = watched_index(p, pb, p->z, o->symmetric);
  double ds = fmin(o->step0 / fabs(p->t[n]), o->step_max);
  for (int tries = 0;; tries++) {
    if (tries >= o->max_steps || ds < o->step_min || p->z[n] < -1.0) {
      s = ROD_ENOCONV;
      goto done;
    }
    const double lam = p->z[n];
    const bool land = p->t[n] > 0 && lam + ds * p->t[n] >= 1.0;
    const double step = land ? (1.0 - lam) / p->t[n] : ds;
    for (int i = 0; i <= n; i++)
      p->zp[i] = p->z[i] + step * p->t[i];
    if (land)
      p->zp[n] = 1.0;
    memcpy(p->zn, p->zp, (size_t)(n + 1) * sizeof(double));
    const int it0 = st.iterations;
    s = correct(p, pb, p->zn, !land, o, &st);
    if (s < 0)
      goto done;
    bool fold = false;
    const int ix = s == 0 ? watched_index(p, pb, p->zn, o->symmetric) : index;
    if (s == 0 && !land) {
      if (!tangent(p)) {
        s = ROD_ESING;
        goto done;
      }
      fold = (p->tn[n] > 0) != (p->t[n] > 0);
    }
    /* The index changes by one at a fold (with lambda's direction), and
     * at a bifurcation point; anywhere else the corrector has jumped to
     * another branch. A change that no fold explains is accepted only
     * over a short step (a bifurcation the path passes). */
    if (s == 0 && ix != index && !(fold && abs(ix - index) == 1) &&
        step > o->bifurcation_step * (1.0 + norm2(p->z, n + 1)))
      s = 1;
    if (s > 0) {
      st.rejected++;
      ds = 0.5 * step;
      continue;
    }
    memcpy(p->z, p->zn, (size_t)(n + 1) * sizeof(double));
    st.steps++;
    if (ix != index)
      st.det_changes++;
    index = ix;
    if (land) {
      s = ROD_OK;
      goto done;
    }
    if (fold && st.folds++ == 0)
      st.fold_lambda = p->z[n];
    memcpy(p->t, p->tn, (size_t)(n + 1) * sizeof(double));
    const int its = st.iterations - it0;
    if (its <= 3)
      ds = fmin(2.0 * step, o->step_max);
    else if (its >= 6)
      ds = 0.5 * step;
    else
      ds = step;
  }
done:
  if (s == ROD_OK)
    memcpy(x, p->z, (size_t)n * sizeof(double));
  if (stats)
    *stats = st;
  return s > 0 ? ROD_ENOCONV : s;
}
