/* The band LU of bvp/band.h against LAPACK's dgbtrf and dgbtrs, whose
 * storage, pivots and operations it repeats: on random band matrices of
 * several shapes (pivoting on, by small diagonals) and on the
 * block-bidiagonal matrices of modified shooting the solves of A x = b
 * and A^T x = b agree with LAPACK's to rounding (forward error below a
 * small multiple of cond(A) eps), the pivots are LAPACK's, the residual
 * is at rounding level, and a singular matrix is reported at the same
 * column. */
#include <lapacke.h>
#include <string.h>

#include "bvp/band.h"
#include "testutil.h"

enum { NMAX = 120, KMAX = 24, LDMAX = 3 * KMAX + 1 };

static unsigned long long seed = 12345;
static double uniform(void) { /* [-1, 1) */
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

static double A[NMAX * NMAX];                      /* dense copy */
static double ab[LDMAX * NMAX], ab2[LDMAX * NMAX]; /* band storage */

/* Modified shooting's Jacobian on nx start unknowns and m nodes of ny
 * states (bvp/mshoot.c): row block k (ny rows; the last nx rows for the
 * end) holds the sweep's tangents in column block k (nx columns for
 * k = 0) and -1 on the diagonal of column block k + 1. Nonzero at (i, j)? */
static bool shooting_entry(int nx, int ny, int i, int j) {
  const int block = i / ny; /* row block */
  const int c0 = block == 0 ? 0 : nx + (block - 1) * ny;
  const int c1 = block == 0 ? nx : c0 + ny;  /* tangents: [c0, c1) */
  const int diag = nx + block * ny + i % ny; /* the -1 */
  return (j >= c0 && j < c1) || j == diag;
}

/* A random band matrix, diagonal scaled by diag (small: pivoting); with
 * ny > 0 only modified shooting's entries (kl, ku its band). */
static void make(int n, int kl, int ku, int ld, double diag, int nx, int ny) {
  memset(A, 0, sizeof A);
  memset(ab, 0, sizeof ab);
  for (int j = 0; j < n; j++)
    for (int i = j - ku > 0 ? j - ku : 0; i <= j + kl && i < n; i++) {
      if (ny > 0 && !shooting_entry(nx, ny, i, j))
        continue;
      double v = ny > 0 && j == nx + (i / ny) * ny + i % ny
                     ? -1.0
                     : uniform() * (i == j ? diag : 1.0);
      A[(size_t)j * n + i] = v;
      ab[(size_t)j * ld + kl + ku + i - j] = v;
    }
  memcpy(ab2, ab, sizeof ab);
}

/* 1-norm condition number estimate by LAPACK (of the factorised ab2). */
static double condition(int n, int kl, int ku, int ld, const int *ipiv) {
  double anorm = 0;
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += fabs(A[(size_t)j * n + i]);
    anorm = s > anorm ? s : anorm;
  }
  double rcond = 0;
  LAPACKE_dgbcon(LAPACK_COL_MAJOR, '1', n, kl, ku, ab2, ld, ipiv, anorm,
                 &rcond);
  return 1.0 / rcond;
}

static void check_shape(int n, int kl, int ku, double diag, int nx, int ny) {
  const int ld = 2 * kl + ku + 1;
  make(n, kl, ku, ld, diag, nx, ny);
  int ipiv[NMAX];
  lapack_int lpiv[NMAX];
  ck_assert_int_eq(rod_band_factor(n, kl, ku, ab, ld, ipiv), 0);
  ck_assert_int_eq(
      LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, ab2, ld, lpiv), 0);
  for (int j = 0; j < n; j++)
    ck_assert_msg(ipiv[j] + 1 == lpiv[j], "n %d kl %d ku %d: pivot %d", n, kl,
                  ku, j);
  const double kappa = condition(n, kl, ku, ld, lpiv);
  for (int trans = 0; trans < 2; trans++) {
    double b[NMAX], x[NMAX], y[NMAX];
    for (int i = 0; i < n; i++)
      b[i] = uniform();
    memcpy(x, b, (size_t)n * sizeof *b);
    memcpy(y, b, (size_t)n * sizeof *b);
    rod_band_solve(n, kl, ku, ab, ld, ipiv, trans, x);
    LAPACKE_dgbtrs(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, kl, ku, 1, ab2, ld,
                   lpiv, y, n);
    double xmax = 0, diff = 0, res = 0, amax = 0;
    for (int i = 0; i < n; i++) {
      xmax = fmax(xmax, fabs(y[i]));
      diff = fmax(diff, fabs(x[i] - y[i]));
      double r = -b[i];
      for (int k = 0; k < n; k++) {
        double a = trans ? A[(size_t)i * n + k] : A[(size_t)k * n + i];
        r += a * x[k];
        amax = fmax(amax, fabs(a));
      }
      res = fmax(res, fabs(r));
    }
    /* both are backward stable: their difference is bounded by the
     * condition number times a modest multiple of the unit roundoff */
    const double eps = 2.220446049250313e-16;
    ck_assert_msg(diff <= 100.0 * n * kappa * eps * xmax,
                  "n %d kl %d ku %d trans %d: |x - x_lapack| %.3g, cond %.3g",
                  n, kl, ku, trans, diff, kappa);
    ck_assert_msg(res <= 100.0 * n * eps * amax * xmax,
                  "n %d kl %d ku %d trans %d: residual %.3g", n, kl, ku, trans,
                  res);
  }
}

START_TEST(solves_as_lapack) {
  const int shapes[][3] = {{1, 0, 0},    {5, 0, 0},    {7, 2, 0},
                           {7, 0, 3},    {30, 1, 1},   {51, 12, 10},
                           {99, 12, 10}, {120, 7, 12}, {40, 24, 24}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int d = 0; d < 2; d++) /* dominant diagonal, then small: pivots */
      check_shape(shapes[s][0], shapes[s][1], shapes[s][2], d ? 1e-3 : 10.0, 0,
                  0);
}
END_TEST

/* Planar modified shooting: 3 start unknowns, 8 states a node, band
 * kl = 12, ku = 10; 3D: 6 and 16, band 25 and 21. */
START_TEST(shooting_jacobians_as_lapack) {
  const int cases[][4] = {{3, 8, 12, 10}, {6, 16, 25, 21}};
  for (int c = 0; c < 2; c++) {
    const int nx = cases[c][0], ny = cases[c][1];
    for (int m = 1; m <= 14 && nx + m * ny <= NMAX; m += 3)
      check_shape(nx + m * ny, cases[c][2], cases[c][3], 1.0, nx, ny);
  }
}
END_TEST

START_TEST(singular_column_as_lapack) {
  const int n = 20, kl = 3, ku = 2, ld = 2 * kl + ku + 1;
  make(n, kl, ku, ld, 1.0, 0, 0);
  /* column 7 zero on and below the diagonal after nothing else: zero it
   * whole, so that no elimination can fill it */
  for (int i = 0; i < ld; i++)
    ab[7 * ld + i] = ab2[7 * ld + i] = 0.0;
  int ipiv[NMAX];
  lapack_int lpiv[NMAX];
  int info = rod_band_factor(n, kl, ku, ab, ld, ipiv);
  lapack_int linfo =
      LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, kl, ku, ab2, ld, lpiv);
  ck_assert_int_eq(info, 8);
  ck_assert_int_eq(info, linfo);
}
END_TEST

static Suite *band_suite(void) {
  Suite *s = suite_create("band");
  TCase *tc = tcase_create("lu");
  tcase_add_test(tc, solves_as_lapack);
  tcase_add_test(tc, shooting_jacobians_as_lapack);
  tcase_add_test(tc, singular_column_as_lapack);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(band_suite)
