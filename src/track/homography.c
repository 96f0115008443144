/* Homographies: the normalised DLT fit, application and inverse
 * (rod/camera.h). */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "rod/camera.h"

bool rod_homography_apply(const double H[9], double u, double v, double *x,
                          double *y) {
  double w = H[6] * u + H[7] * v + H[8];
  double size = fabs(H[6] * u) + fabs(H[7] * v) + fabs(H[8]);
  if (!(fabs(w) > 1e-12 * size))
    return false;
  *x = (H[0] * u + H[1] * v + H[2]) / w;
  *y = (H[3] * u + H[4] * v + H[5]) / w;
  return true;
}

int rod_homography_invert(const double H[9], double Hinv[9]) {
  /* the adjugate: H^-1 = adj(H) / det H, and the scale is free */
  double a[9] = {H[4] * H[8] - H[5] * H[7], H[2] * H[7] - H[1] * H[8],
                 H[1] * H[5] - H[2] * H[4], H[5] * H[6] - H[3] * H[8],
                 H[0] * H[8] - H[2] * H[6], H[2] * H[3] - H[0] * H[5],
                 H[3] * H[7] - H[4] * H[6], H[1] * H[6] - H[0] * H[7],
                 H[0] * H[4] - H[1] * H[3]};
  double det = H[0] * a[0] + H[1] * a[3] + H[2] * a[6], norm = 0;
  for (int k = 0; k < 9; k++)
    norm = fmax(norm, fabs(H[k]));
  if (!isfinite(det) || !(fabs(det) > 1e-14 * norm * norm * norm))
    return ROD_ESING;
  double s = a[8] != 0 ? 1 / a[8] : 1 / det;
  for (int k = 0; k < 9; k++)
    Hinv[k] = a[k] * s;
  return ROD_OK;
}

/* The similarity T that moves the points' centroid to 0 and their mean
 * distance from it to sqrt 2 (Hartley's normalisation), row-major 3x3. */
static bool normaliser(int n, const double *p, double T[9]) {
  double cx = 0, cy = 0, d = 0;
  for (int i = 0; i < n; i++) {
    cx += p[2 * i];
    cy += p[2 * i + 1];
  }
  cx /= n;
  cy /= n;
  for (int i = 0; i < n; i++)
    d += hypot(p[2 * i] - cx, p[2 * i + 1] - cy);
  d /= n;
  if (!(d > 0) || !isfinite(d))
    return false;
  double s = sqrt(2.0) / d;
  double t[9] = {s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1};
  memcpy(T, t, sizeof t);
  return true;
}

static void multiply(const double A[9], const double B[9], double C[9]) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      C[3 * r + c] =
          A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

/* Twice the signed area of the triangle a b c. */
static double area2(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Three of four points on a line (relative to their spread): the four do
 * not determine a homography. */
static bool collinear_triple(int n, const double *p) {
  if (n != 4)
    return false;
  double spread = 0;
  for (int i = 1; i < 4; i++)
    spread = fmax(spread, hypot(p[2 * i] - p[0], p[2 * i + 1] - p[1]));
  for (int skip = 0; skip < 4; skip++) {
    const double *q[3];
    for (int i = 0, k = 0; i < 4; i++)
      if (i != skip)
        q[k++] = p + 2 * i;
    if (fabs(area2(q[0], q[1], q[2])) <= 1e-9 * spread * spread)
      return true;
  }
  return false;
}

enum { MAX_POINTS = 64 };

int rod_homography_fit(int n, const double *from, const double *to, double H[9],
                       const char *key, rod_error *err) {
  if (n < 4 || n > MAX_POINTS)
    return rod_error_set(err, ROD_EINVAL, NULL, key,
                         "needs 4 to %d point pairs (got %d)", MAX_POINTS, n);
  for (int i = 0; i < 4 * n; i++)
    if (!isfinite(i < 2 * n ? from[i] : to[i - 2 * n]))
      return rod_error_set(err, ROD_EINVAL, NULL, key, "a point is not finite");
  double Tf[9], Tt[9];
  if (collinear_triple(n, from) || collinear_triple(n, to) ||
      !normaliser(n, from, Tf) || !normaliser(n, to, Tt))
    return rod_error_set(err, ROD_EINVAL, NULL, key,
                         "the points are degenerate (three on a line)");
  /* A h = 0, two rows per pair, for the normalised points; row-major
   * 2n x 9 (Hartley & Zisserman 2004, eq. 4.1) */
  double A[2 * MAX_POINTS * 9];
  for (int i = 0; i < n; i++) {
    double u = Tf[0] * from[2 * i] + Tf[2], v = Tf[4] * from[2 * i + 1] + Tf[5];
    double x = Tt[0] * to[2 * i] + Tt[2], y = Tt[4] * to[2 * i + 1] + Tt[5];
    double r1[9] = {-u, -v, -1, 0, 0, 0, x * u, x * v, x};
    double r2[9] = {0, 0, 0, -u, -v, -1, y * u, y * v, y};
    memcpy(A + 18 * i, r1, sizeof r1);
    memcpy(A + 18 * i + 9, r2, sizeof r2);
  }
  /* with 4 points A is 8 x 9; pad with a zero row so that LAPACK returns
   * the full 9 x 9 V^T either way */
  int m = 2 * n < 9 ? 9 : 2 * n;
  for (int k = 2 * n * 9; k < m * 9; k++)
    A[k] = 0;
  double sv[9], VT[81], superb[8], U;
  int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, 9, A, 9, sv, &U, 1,
                            VT, 9, superb);
  /* the null vector is the last right singular vector; the second
   * smallest singular value must stand clear of zero, or a family of
   * homographies fits */
  if (info != 0 || !(sv[7] > 1e-10 * sv[0]))
    return rod_error_set(err, ROD_EINVAL, NULL, key,
                         "the points do not determine a homography");
  double Hn[9], tmp[9], Ttinv[9];
  memcpy(Hn, VT + 72, sizeof Hn);
  if (rod_homography_invert(Tt, Ttinv) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, NULL, key, "degenerate points");
  multiply(Ttinv, Hn, tmp);
  multiply(tmp, Tf, H);
  if (!(fabs(H[8]) > 1e-12 * fabs(H[0]) + 1e-300))
    return rod_error_set(err, ROD_EINVAL, NULL, key,
                         "the homography maps the image origin to infinity");
  double s = 1 / H[8];
  for (int k = 0; k < 9; k++)
    H[k] *= s;
  return ROD_OK;
}
