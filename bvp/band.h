/* Band LU of small bandwidth: the factorisation and solves of LAPACK's
 * dgbtf2 and dgbtrs (Anderson et al. 1999, LAPACK Users' Guide, section
 * 5.1.3: the same storage, pivots and results), written as plain loops.
 * LAPACK's own routines call a BLAS kernel per column; at the 10 to 30
 * entries of a column of modified shooting's Jacobian those calls cost
 * more than the arithmetic. */
#ifndef ROD_BVP_BAND_H
#define ROD_BVP_BAND_H

#include <stdbool.h>

/* LU with partial pivoting of the n x n band matrix with kl sub- and ku
 * superdiagonals in ab (column-major, leading dimension ldab >=
 * 2 kl + ku + 1, element (i, j) at ab[j ldab + kl + ku + i - j], the
 * first kl rows free for the fill-in), in place. ipiv[j] (0-based) is the
 * row swapped with row j. 0, or j + 1 when U's diagonal j is zero. */
int rod_band_factor(int n, int kl, int ku, double *ab, int ldab, int *ipiv);

/* b := A^-1 b (trans: A^-T b) with A factorised by rod_band_factor. */
void rod_band_solve(int n, int kl, int ku, const double *ab, int ldab,
                    const int *ipiv, bool trans, double *b);

#endif
