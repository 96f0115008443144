/* The frictionless contact problem in impulses (or forces), the dual of the
 * velocity problem (Carpentier et al., Pinocchio, "Dynamics: simulation and
 * control"): min 1/2 l^T G l + b^T l over l >= 0, G the Delassus matrix.
 * Its optimality conditions are the linear complementarity problem
 * w = G l + b >= 0, l >= 0, l^T w = 0: w is the post-impact normal
 * velocity, the end gap or the normal acceleration of each contact.
 *
 * The active-set method of Lawson & Hanson (1974, ch. 23) for
 * nonnegativity constraints: a contact joins the free set when it would
 * lower the objective (w_j < 0), the free block G_PP l_P = -b_P is solved
 * by Cholesky, and a step that would turn a force negative stops where it
 * reaches zero and releases that contact. Finite for G positive definite;
 * a semidefinite G (more contacts than the chain can tell apart) gets a
 * proximal term of 1e-14 of its diagonal on the free block. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact_solver.h"
#include "rod/status.h"

void rod_contact_solver_free(rod_contact_solver *s) {
  if (!s)
    return;
  free(s->free_set);
  free(s->index);
  free(s->z);
  free(s->w);
  free(s->Gpp);
  free(s->kkt);
  free(s->kkt_rhs);
  free(s->kkt_work);
  free(s->ipiv);
  free(s->active);
  free(s->slack);
  free(s);
}

rod_contact_solver *rod_contact_solver_alloc(int m, int n) {
  if (m < 1 || n < 0)
    return NULL;
  rod_contact_solver *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  const size_t M = (size_t)m, K = (size_t)(n + m);
  s->mmax = m;
  s->nmax = n;
  s->free_set = calloc(M, sizeof(int));
  s->index = calloc(M, sizeof(int));
  s->z = calloc(M, sizeof(double));
  s->w = calloc(M, sizeof(double));
  s->Gpp = calloc(M * M, sizeof(double));
  s->kkt = calloc(K * K, sizeof(double));
  s->kkt_rhs = calloc(K, sizeof(double));
  s->kkt_lwork = (int)(64 * K);
  s->kkt_work = calloc((size_t)s->kkt_lwork, sizeof(double));
  s->ipiv = calloc(K, sizeof(lapack_int));
  s->active = calloc(M, sizeof(int));
  s->slack = calloc(M, sizeof(double));
  if (!s->free_set || !s->index || !s->z || !s->w || !s->Gpp || !s->kkt ||
      !s->kkt_rhs || !s->kkt_work || !s->ipiv || !s->active || !s->slack) {
    rod_contact_solver_free(s);
    return NULL;
  }
  return s;
}

/* w = -(G l + b), the negative gradient. */
static void negative_gradient(int m, const double *G, const double *b,
                              const double *l, double *w) {
  for (int i = 0; i < m; i++)
    w[i] = -b[i];
  for (int j = 0; j < m; j++)
    if (l[j] != 0)
      for (int i = 0; i < m; i++)
        w[i] -= G[i + (size_t)j * m] * l[j];
}

/* z_P solving G_PP z_P = -b_P for the np contacts in s->index (Cholesky,
 * with a proximal term when G_PP is singular). */
static int solve_free(rod_contact_solver *s, int m, int np, const double *G,
                      const double *b) {
  for (int attempt = 0; attempt < 2; attempt++) {
    double dmax = 0;
    for (int a = 0; a < np; a++) {
      for (int c = 0; c < np; c++)
        s->Gpp[a + (size_t)c * np] = G[s->index[a] + (size_t)s->index[c] * m];
      dmax = fmax(dmax, s->Gpp[a + (size_t)a * np]);
      s->z[a] = -b[s->index[a]];
    }
    if (attempt)
      for (int a = 0; a < np; a++)
        s->Gpp[a + (size_t)a * np] += 1e-14 * dmax;
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', np, s->Gpp, np);
    if (info == 0) {
      info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', np, 1, s->Gpp, np, s->z, np);
      return info == 0 ? ROD_OK : ROD_EINVAL;
    }
    if (info < 0)
      return ROD_EINVAL;
  }
  return ROD_ESING;
}

/* Largest violation of the complementarity conditions, in units of b. */
static double lcp_residual(int m, const double *l, const double *w) {
  double r = 0;
  for (int i = 0; i < m; i++) {
    /* w here is -(G l + b): the condition is w <= 0, and w = 0 where l > 0 */
    r = fmax(r, w[i]);
    if (l[i] > 0)
      r = fmax(r, fabs(w[i]));
  }
  return r;
}

int rod_contact_dual(rod_contact_solver *s, int m, const double *G,
                     const double *b, double *l, rod_contact_stats *st) {
  if (m < 0 || m > s->mmax)
    return ROD_EINVAL;
  double scale = 0;
  for (int i = 0; i < m; i++) {
    l[i] = 0.0;
    s->free_set[i] = 0;
    scale = fmax(scale, fabs(b[i]));
  }
  const double tol = 1e-13 * scale;
  int changes = 0, status = ROD_ENOCONV;
  const int max_changes = 10 * m + 10;
  while (changes < max_changes) {
    negative_gradient(m, G, b, l, s->w);
    int j = -1;
    double best = tol;
    for (int i = 0; i < m; i++)
      if (!s->free_set[i] && s->w[i] > best) {
        best = s->w[i];
        j = i;
      }
    if (j < 0) {
      status = ROD_OK;
      break;
    }
    s->free_set[j] = 1;
    changes++;
    for (;;) { /* the inner loop of Lawson & Hanson */
      int np = 0;
      for (int i = 0; i < m; i++)
        if (s->free_set[i])
          s->index[np++] = i;
      int e = solve_free(s, m, np, G, b);
      if (e != ROD_OK)
        return e;
      double alpha = 1.0;
      int blocking = -1;
      for (int a = 0; a < np; a++) {
        const int i = s->index[a];
        if (s->z[a] <= 0) {
          double t = l[i] / (l[i] - s->z[a]);
          if (t < alpha) {
            alpha = t;
            blocking = i;
          }
        }
      }
      for (int a = 0; a < np; a++) {
        const int i = s->index[a];
        l[i] += alpha * (s->z[a] - l[i]);
      }
      if (blocking < 0)
        break;
      /* release the contacts whose force reached zero */
      for (int a = 0; a < np; a++) {
        const int i = s->index[a];
        if (i == blocking || l[i] <= 0) {
          l[i] = 0.0;
          s->free_set[i] = 0;
        }
      }
      if (++changes >= max_changes)
        break;
    }
  }
  if (st) {
    negative_gradient(m, G, b, l, s->w);
    st->iterations = changes;
    st->residual = lcp_residual(m, l, s->w);
  }
  return status;
}
