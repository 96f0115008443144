/* The joint-space mass matrix by the composite-rigid-body algorithm
 * (Featherstone 2008, table 6.2), and forward dynamics through its
 * Cholesky factor: the O(n^3) cross-check of the articulated-body
 * algorithm. */
#include <lapacke.h>
#include <string.h>

#include "chain_internal.h"
#include "chain_spatial.h"
#include "rod/status.h"

void rod_chain_crba(rod_chain *c, double *M) {
  const int n = c->n;
  double *IC = c->IA; /* composite inertias, reusing the ABA workspace */
  memcpy(IC, c->body_I, 36 * (size_t)n * sizeof(double));
  for (int i = n - 1; i > 0; i--)
    sp_inertia_to_parent(IC + 36 * (i - 1), c->E + 9 * i, c->link[i].offset,
                         IC + 36 * i);
  for (int i = 0; i < n; i++) {
    const double *a = c->link[i].axis;
    double F[6];
    for (int k = 0; k < 6; k++) /* F = IC_i S_i */
      F[k] = IC[36 * i + 6 * k] * a[0] + IC[36 * i + 6 * k + 1] * a[1] +
             IC[36 * i + 6 * k + 2] * a[2];
    M[i + (size_t)i * n] = v3_dot(a, F) + c->link[i].armature;
    for (int j = i; j > 0; j--) { /* carry F to the ancestors */
      double back[6];
      sp_xform_force_back(back, c->E + 9 * j, c->link[j].offset, F);
      memcpy(F, back, sizeof F);
      double Mij = v3_dot(c->link[j - 1].axis, F);
      M[i + (size_t)(j - 1) * n] = Mij;
      M[(j - 1) + (size_t)i * n] = Mij;
    }
  }
}

int rod_chain_forward_crba(rod_chain *c, const double *tau, const double *fext,
                           double *work, double *qdd) {
  const int n = c->n;
  /* h = C dq + g - J^T fext, plus M_fp qdd_p of the prescribed joints */
  for (int i = 0; i < n; i++)
    c->rhs[i] = c->link[i].prescribed ? qdd[i] : 0.0;
  rod_chain_rnea(c, c->rhs, fext, c->h);
  rod_chain_crba(c, work);
  int nf = 0;
  for (int i = 0; i < n; i++)
    if (!c->link[i].prescribed)
      c->free_index[nf++] = i;
  if (nf == 0)
    return ROD_OK;
  /* pack M_ff in place: every source index >= its destination */
  for (int b = 0; b < nf; b++)
    for (int a = 0; a < nf; a++)
      work[a + (size_t)b * nf] =
          work[c->free_index[a] + (size_t)c->free_index[b] * n];
  for (int a = 0; a < nf; a++)
    c->rhs[a] = tau[c->free_index[a]] - c->h[c->free_index[a]];
  lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nf, work, nf);
  if (info > 0)
    return ROD_ESING;
  if (info < 0)
    return ROD_EINVAL;
  info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nf, 1, work, nf, c->rhs, nf);
  if (info != 0)
    return ROD_EINVAL;
  for (int a = 0; a < nf; a++)
    qdd[c->free_index[a]] = c->rhs[a];
  return ROD_OK;
}
