/* The frictionless contact problem in velocities (Carpentier et al.,
 * Pinocchio, "Dynamics: simulation and control"): the post-impact velocity
 * closest to the free one in the metric of A (the mass matrix),
 *   min 1/2 (v - vf)^T A (v - vf)  subject to  J v >= lo,
 * with A (v - vf) = J^T l, l >= 0 the contact impulses.
 *
 * The dual active-set method of Goldfarb & Idnani (1983): start at the
 * unconstrained minimum vf, add the most violated constraint and move
 * along the direction that keeps the active ones satisfied, dropping an
 * active constraint whose multiplier would turn negative. Each direction
 * comes from the KKT system of the active set,
 *   [A  J_a^T; J_a  0] [z; -r] = [J_p^T; 0],
 * solved densely (LAPACKE dsysv_work): a path independent of the dual's
 * Delassus matrix, which is what the cross-check needs. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "contact/contact_solver.h"
#include "rod/status.h"

/* Row i of J (m x n, column-major) times x. */
static double row_dot(int m, int n, const double *J, int i, const double *x) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += J[i + (size_t)k * m] * x[k];
  return s;
}

/* Solve the KKT system of the na active constraints for the direction of
 * constraint p: z (n) into kkt_rhs[0..n), r (na) into kkt_rhs[n..). */
static int kkt_direction(rod_contact_solver *s, int n, int m, int na,
                         const double *A, const double *J, int p) {
  const int K = n + na;
  double *Kk = s->kkt, *y = s->kkt_rhs;
  memset(Kk, 0, (size_t)K * K * sizeof(double));
  for (int c = 0; c < n; c++)
    for (int r = 0; r < n; r++)
      Kk[r + (size_t)c * K] = A[r + (size_t)c * n];
  for (int a = 0; a < na; a++)
    for (int k = 0; k < n; k++) {
      double v = J[s->active[a] + (size_t)k * m];
      Kk[(n + a) + (size_t)k * K] = v;
      Kk[k + (size_t)(n + a) * K] = v;
    }
  for (int k = 0; k < n; k++)
    y[k] = J[p + (size_t)k * m];
  for (int a = 0; a < na; a++)
    y[n + a] = 0.0;
  lapack_int info =
      LAPACKE_dsysv_work(LAPACK_COL_MAJOR, 'L', K, 1, Kk, K, s->ipiv, y, K,
                         s->kkt_work, s->kkt_lwork);
  if (info > 0)
    return ROD_ESING;
  if (info < 0)
    return ROD_EINVAL;
  for (int a = 0; a < na; a++)
    y[n + a] = -y[n + a]; /* r */
  return ROD_OK;
}

int rod_contact_primal(rod_contact_solver *s, int n, int m, const double *A,
                       const double *vf, const double *J, const double *lo,
                       double *v, double *l, rod_contact_stats *st) {
  if (n < 1 || n > s->nmax || m < 0 || m > s->mmax)
    return ROD_EINVAL;
  memcpy(v, vf, (size_t)n * sizeof(double));
  double scale = 0;
  for (int i = 0; i < m; i++) {
    l[i] = 0.0;
    scale = fmax(scale, fabs(lo[i]) + fabs(row_dot(m, n, J, i, vf)));
  }
  const double tol = 1e-13 * scale;
  int na = 0, changes = 0, status = ROD_ENOCONV;
  const int max_changes = 10 * m + 10;
  while (changes < max_changes) {
    int p = -1;
    double worst = -tol;
    for (int i = 0; i < m; i++) {
      bool in = false;
      for (int a = 0; a < na && !in; a++)
        in = s->active[a] == i;
      double slack = row_dot(m, n, J, i, v) - lo[i];
      if (!in && slack < worst) {
        worst = slack;
        p = i;
      }
    }
    if (p < 0) {
      status = ROD_OK;
      break;
    }
    double slack_p = worst;
    for (;;) { /* raise l_p until constraint p holds */
      int e = kkt_direction(s, n, m, na, A, J, p);
      if (e != ROD_OK)
        return e;
      const double *z = s->kkt_rhs, *r = s->kkt_rhs + n;
      double Jz = row_dot(m, n, J, p, z);
      double t1 = Jz > 1e-300 ? -slack_p / Jz : INFINITY;
      double t2 = INFINITY;
      int block = -1;
      for (int a = 0; a < na; a++)
        if (r[a] < 0) {
          double t = -l[s->active[a]] / r[a];
          if (t < t2) {
            t2 = t;
            block = a;
          }
        }
      if (!isfinite(t1) && !isfinite(t2))
        return ROD_EINVAL; /* the constraints cannot all hold */
      double t = fmin(t1, t2);
      for (int k = 0; k < n; k++)
        v[k] += t * z[k];
      for (int a = 0; a < na; a++)
        l[s->active[a]] += t * r[a];
      l[p] += t;
      slack_p += t * Jz;
      changes++;
      if (t2 < t1) { /* drop the blocking constraint, keep raising l_p */
        l[s->active[block]] = 0.0;
        s->active[block] = s->active[--na];
        if (changes >= max_changes)
          break;
        continue;
      }
      s->active[na++] = p;
      break;
    }
  }
  if (st) {
    double res = 0;
    for (int i = 0; i < m; i++) {
      double slack = row_dot(m, n, J, i, v) - lo[i];
      res = fmax(res, -slack);
      if (l[i] > 0)
        res = fmax(res, fabs(slack));
    }
    st->iterations = changes;
    st->residual = res;
  }
  return status;
}
