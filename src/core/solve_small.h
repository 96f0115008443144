/* Dense linear systems of a few unknowns (up to about a dozen), solved in
 * place by Gaussian elimination with partial pivoting. At these sizes a
 * LAPACK call costs more than its arithmetic (the static state's
 * conjugate-point test solved 99 systems of 16 unknowns in 3.6 us each by
 * LAPACKE_dgesv with one OpenBLAS thread, 8.3 us with two), and a library
 * call that wakes OpenBLAS's threads leaves them spinning on the host's
 * cores. */
#ifndef ROD_SOLVE_SMALL_H
#define ROD_SOLVE_SMALL_H

#include <math.h>
#include <stdbool.h>

/* X = A^-1 B in place: A (n x n, row-major) is overwritten by its
 * elimination, B (n x nrhs, row-major) by the solution. False at a zero
 * or NaN pivot (A singular). */
static inline bool rod_solve_small(double *A, int n, double *B, int nrhs) {
  for (int c = 0; c < n; c++) {
    int piv = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[n * r + c]) > fabs(A[n * piv + c]))
        piv = r;
    if (!(fabs(A[n * piv + c]) > 0))
      return false;
    if (piv != c) {
      for (int q = 0; q < n; q++) {
        const double s = A[n * c + q];
        A[n * c + q] = A[n * piv + q];
        A[n * piv + q] = s;
      }
      for (int q = 0; q < nrhs; q++) {
        const double s = B[nrhs * c + q];
        B[nrhs * c + q] = B[nrhs * piv + q];
        B[nrhs * piv + q] = s;
      }
    }
    for (int r = c + 1; r < n; r++) {
      const double f = A[n * r + c] / A[n * c + c];
      for (int q = c; q < n; q++)
        A[n * r + q] -= f * A[n * c + q];
      for (int q = 0; q < nrhs; q++)
        B[nrhs * r + q] -= f * B[nrhs * c + q];
    }
  }
  for (int r = n - 1; r >= 0; r--)
    for (int q = 0; q < nrhs; q++) {
      double s = B[nrhs * r + q];
      for (int p = r + 1; p < n; p++)
        s -= A[n * r + p] * B[nrhs * p + q];
      B[nrhs * r + q] = s / A[n * r + r];
    }
  return true;
}

#endif
