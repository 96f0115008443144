/* Band LU of small bandwidth (bvp/band.h): dgbtf2's factorisation and
 * dgbtrs' solves, the same operations in the same order, as loops. */
#include "bvp/band.h"

#include <math.h>

int rod_band_factor(int n, int kl, int ku, double *ab, int ldab, int *ipiv) {
  const int kv = ku + kl; /* row of the diagonal */
  int info = 0;
  /* the fill-in rows of the first columns start at zero */
  for (int j = ku + 1; j < (kv < n ? kv : n); j++)
    for (int i = kv - j; i < kl; i++)
      ab[(long)j * ldab + i] = 0.0;
  int ju = 0; /* last column U reaches so far */
  for (int j = 0; j < n; j++) {
    double *col = ab + (long)j * ldab;
    if (j + kv < n)
      for (int i = 0; i < kl; i++)
        ab[(long)(j + kv) * ldab + i] = 0.0;
    const int km = kl < n - 1 - j ? kl : n - 1 - j;
    int p = 0; /* the pivot: first largest |entry| on or below the diagonal */
    for (int i = 1; i <= km; i++)
      if (fabs(col[kv + i]) > fabs(col[kv + p]))
        p = i;
    ipiv[j] = j + p;
    if (col[kv + p] == 0.0) {
      if (info == 0)
        info = j + 1;
      continue;
    }
    const int reach = j + ku + p < n - 1 ? j + ku + p : n - 1;
    ju = reach > ju ? reach : ju;
    if (p != 0) /* rows j and j + p, columns j to ju */
      for (int c = 0; c <= ju - j; c++) {
        double *a = ab + (long)(j + c) * ldab + kv - c;
        const double t = a[p];
        a[p] = a[0];
        a[0] = t;
      }
    if (km == 0)
      continue;
    const double r = 1.0 / col[kv];
    for (int i = 1; i <= km; i++)
      col[kv + i] *= r;
    for (int c = 1; c <= ju - j; c++) { /* the rank-1 update of dger */
      double *a = ab + (long)(j + c) * ldab + kv - c;
      const double y = a[0];
      if (y != 0.0)
        for (int i = 1; i <= km; i++)
          a[i] -= col[kv + i] * y;
    }
  }
  return info;
}

void rod_band_solve(int n, int kl, int ku, const double *ab, int ldab,
                    const int *ipiv, bool trans, double *b) {
  const int kv = ku + kl;
  if (!trans) {
    for (int j = 0; kl > 0 && j < n - 1; j++) { /* L, with the row swaps */
      const int lm = kl < n - 1 - j ? kl : n - 1 - j;
      const int l = ipiv[j];
      if (l != j) {
        const double t = b[l];
        b[l] = b[j];
        b[j] = t;
      }
      const double *m = ab + (long)j * ldab + kv + 1;
      const double bj = b[j];
      if (bj != 0.0)
        for (int i = 0; i < lm; i++)
          b[j + 1 + i] -= m[i] * bj;
    }
    for (int j = n - 1; j >= 0; j--) { /* U, kv superdiagonals */
      if (b[j] == 0.0)
        continue;
      const double *u = ab + (long)j * ldab + kv - j;
      b[j] /= u[j];
      const double t = b[j];
      for (int i = j - kv > 0 ? j - kv : 0; i < j; i++)
        b[i] -= t * u[i];
    }
    return;
  }
  for (int j = 0; j < n; j++) { /* U^T */
    const double *u = ab + (long)j * ldab + kv - j;
    double t = b[j];
    for (int i = j - kv > 0 ? j - kv : 0; i < j; i++)
      t -= u[i] * b[i];
    b[j] = t / u[j];
  }
  for (int j = n - 2; kl > 0 && j >= 0; j--) { /* L^T, the swaps undone */
    const int lm = kl < n - 1 - j ? kl : n - 1 - j;
    const double *m = ab + (long)j * ldab + kv + 1;
    double s = 0.0;
    for (int i = 0; i < lm; i++)
      s += m[i] * b[j + 1 + i];
    b[j] -= s;
    const int l = ipiv[j];
    if (l != j) {
      const double t = b[l];
      b[l] = b[j];
      b[j] = t;
    }
  }
}
