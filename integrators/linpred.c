/* Linear prediction by a least-squares recurrence on differences (see
 * integrators/linpred.h). */
#include "integrators/linpred.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/vecops.h"
#include "integrators/workspace.h"

/* Tikhonov regularisation of the normal equations, relative to their
 * mean diagonal: keeps the fit defined when fewer modes are active than
 * the order, at no cost in accuracy (measured on the weight release:
 * prediction errors equal for 1e-12 to 1e-10, twice as large at 1e-8). */
static const double lp_regularisation = 1e-12;

struct rod_linpred {
  int n, order, window, depth; /* depth = order + window differences */
  int used;                    /* components in the fit */
  int *idx;                    /* their indices */
  double *w;                   /* square roots of their weights */
  double *z;                   /* (order + 1) x n newest vectors, ring */
  int zhead;                   /* slot of the newest vector */
  double *zfit;                /* used: weighted fit components of z */
  double *f;                   /* depth x used weighted differences, ring */
  int head;                    /* slot of the newest difference */
  double *gram;      /* depth x depth inner products of differences, by age */
  int count;         /* vectors pushed since reset */
  double *G, *a, *c; /* normal equations, coefficients a_k, weights c_k */
};

void rod_linpred_free(rod_linpred *lp) {
  if (!lp)
    return;
  rod_work_free(lp->idx);
  rod_work_free(lp->w);
  rod_work_free(lp->z);
  rod_work_free(lp->zfit);
  rod_work_free(lp->f);
  rod_work_free(lp->gram);
  rod_work_free(lp->G);
  rod_work_free(lp->a);
  rod_work_free(lp->c);
  rod_work_free(lp);
}

rod_linpred *rod_linpred_alloc(int n, int order, int window,
                               const double *weight) {
  if (n < 1 || order < 1 || window < 1)
    return NULL;
  rod_linpred *lp = rod_work_alloc(1, sizeof *lp);
  if (!lp)
    return NULL;
  lp->n = n;
  lp->order = order;
  lp->window = window;
  lp->depth = order + window;
  const size_t N = (size_t)n, D = (size_t)lp->depth, P = (size_t)order;
  lp->idx = malloc(N * sizeof *lp->idx);
  lp->w = malloc(N * sizeof *lp->w);
  lp->z = rod_work_alloc((P + 1) * N, sizeof *lp->z);
  lp->zfit = rod_work_alloc(N, sizeof *lp->zfit);
  lp->f = rod_work_alloc(D * N, sizeof *lp->f);
  lp->gram = rod_work_alloc(D * D, sizeof *lp->gram);
  lp->G = rod_work_alloc(P * P, sizeof *lp->G);
  lp->a = rod_work_alloc(P, sizeof *lp->a);
  lp->c = rod_work_alloc(P + 1, sizeof *lp->c);
  if (!lp->idx || !lp->w || !lp->z || !lp->zfit || !lp->f || !lp->gram ||
      !lp->G || !lp->a || !lp->c) {
    rod_linpred_free(lp);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    double wi = weight ? weight[i] : 1.0;
    if (wi > 0) {
      lp->idx[lp->used] = i;
      lp->w[lp->used++] = sqrt(wi);
    }
  }
  return lp;
}

void rod_linpred_reset(rod_linpred *lp) {
  lp->count = 0;
  lp->head = 0;
  lp->zhead = 0;
}

int rod_linpred_count(const rod_linpred *lp) { return lp->count; }

bool rod_linpred_ready(const rod_linpred *lp) {
  return lp->count >= lp->depth + 1;
}

const double *rod_linpred_coefficients(const rod_linpred *lp) { return lp->a; }

/* Ring slot `age` steps before `head` in a ring of `size`. */
static int ring(int head, int age, int size) {
  int s = head - age;
  return s < 0 ? s + size : s;
}

void rod_linpred_push(rod_linpred *lp, const double *z) {
  const size_t N = (size_t)lp->n, D = (size_t)lp->depth, U = (size_t)lp->used;
  const int Z = lp->order + 1;
  lp->zhead = lp->count == 0 ? 0 : (lp->zhead + 1) % Z;
  memcpy(lp->z + (size_t)lp->zhead * N, z, N * sizeof *z);
  if (lp->count > 0) {
    lp->head = lp->count == 1 ? 0 : (lp->head + 1) % lp->depth;
    double *f = lp->f + (size_t)lp->head * U;
    for (size_t i = 0; i < U; i++) {
      double zi = lp->w[i] * z[lp->idx[i]];
      f[i] = zi - lp->zfit[i];
    }
    /* gram is indexed by age: everything ages by one step */
    for (size_t a = D - 1; a > 0; a--)
      memcpy(lp->gram + a * D + 1, lp->gram + (a - 1) * D,
             (D - 1) * sizeof(double));
    int known = lp->count < lp->depth ? lp->count : lp->depth;
    for (int age = 0; age < known; age++) {
      const double *g = lp->f + (size_t)ring(lp->head, age, lp->depth) * U;
      double v = rod_dot(f, g, lp->used);
      lp->gram[age] = v;
      lp->gram[(size_t)age * D] = v;
    }
  }
  for (size_t i = 0; i < U; i++)
    lp->zfit[i] = lp->w[i] * z[lp->idx[i]];
  lp->count++;
}

/* Solve G a = a in place for symmetric positive definite G (p x p, lower
 * triangle used) by Cholesky; false if not positive definite. */
static bool cholesky_solve(double *G, double *a, int p) {
  for (int j = 0; j < p; j++) {
    double d = G[j * p + j];
    for (int k = 0; k < j; k++)
      d -= G[j * p + k] * G[j * p + k];
    if (!(d > 0))
      return false;
    d = sqrt(d);
    G[j * p + j] = d;
    for (int i = j + 1; i < p; i++) {
      double s = G[i * p + j];
      for (int k = 0; k < j; k++)
        s -= G[i * p + k] * G[j * p + k];
      G[i * p + j] = s / d;
    }
  }
  for (int i = 0; i < p; i++) { /* L y = a */
    double s = a[i];
    for (int k = 0; k < i; k++)
      s -= G[i * p + k] * a[k];
    a[i] = s / G[i * p + i];
  }
  for (int i = p - 1; i >= 0; i--) { /* L^T x = y */
    double s = a[i];
    for (int k = i + 1; k < p; k++)
      s -= G[k * p + i] * a[k];
    a[i] = s / G[i * p + i];
  }
  return true;
}

bool rod_linpred_fit(rod_linpred *lp) {
  if (!rod_linpred_ready(lp))
    return false;
  const int p = lp->order, W = lp->window;
  const size_t D = (size_t)lp->depth;
  const double *gram = lp->gram;
  /* Normal equations of min sum_t |d(t) - sum_k a_k d(t + k)|^2 over the
   * targets of age t = 0..W-1 (row-major lower triangle G[k][l], l <= k). */
  double trace = 0;
  for (int k = 1; k <= p; k++) {
    double rhs = 0;
    for (int t = 0; t < W; t++)
      rhs += gram[(size_t)(t + k) * D + t];
    lp->a[k - 1] = rhs;
    for (int l = 1; l <= k; l++) {
      double s = 0;
      for (int t = 0; t < W; t++)
        s += gram[(size_t)(t + k) * D + (t + l)];
      lp->G[(k - 1) * p + (l - 1)] = s;
    }
    trace += lp->G[(k - 1) * p + (k - 1)];
  }
  if (!(trace > 0))
    return false;
  double lambda = lp_regularisation * trace / p;
  for (int k = 0; k < p; k++)
    lp->G[k * p + k] += lambda;
  if (!cholesky_solve(lp->G, lp->a, p))
    return false;
  /* z(n+1) = z(n) + sum_k a_k (z(n+1-k) - z(n-k)) = sum_k c_k z(n-k) */
  lp->c[0] = 1.0 + lp->a[0];
  for (int k = 1; k < p; k++)
    lp->c[k] = lp->a[k] - lp->a[k - 1];
  lp->c[p] = -lp->a[p - 1];
  return true;
}

void rod_linpred_predict(const rod_linpred *lp, int first, int count,
                         double *out) {
  const size_t N = (size_t)lp->n;
  const int Z = lp->order + 1;
  memset(out, 0, (size_t)count * sizeof *out);
  for (int k = 0; k <= lp->order; k++) {
    const double *z = lp->z + (size_t)ring(lp->zhead, k, Z) * N + first;
    const double ck = lp->c[k];
    for (int i = 0; i < count; i++)
      out[i] += ck * z[i];
  }
}
