/* Fixed-size 3-vector and quaternion helpers, inlined into the hot loops.
 * Quaternions are stored w, x, y, z (the paper's h1..h4, Till & Rucker 2017,
 * II.A). */
#ifndef ROD_V3_H
#define ROD_V3_H

#include <math.h>
#include <string.h>

static inline void v3_set(double *r, double x, double y, double z) {
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void v3_copy(double *r, const double *a) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline double v3_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double v3_norm(const double *a) { return sqrt(v3_dot(a, a)); }
/* r = a x b (r may not alias a or b) */
static inline void v3_cross(double *r, const double *a, const double *b) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void v3_scale(double *r, double s, const double *a) {
  r[0] = s * a[0];
  r[1] = s * a[1];
  r[2] = s * a[2];
}
static inline void v3_add(double *r, const double *a, const double *b) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void v3_sub(double *r, const double *a, const double *b) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
/* r += s a */
static inline void v3_axpy(double *r, double s, const double *a) {
  r[0] += s * a[0];
  r[1] += s * a[1];
  r[2] += s * a[2];
}
static inline void v3_normalize(double *a) {
  double n = v3_norm(a);
  if (n > 0)
    v3_scale(a, 1.0 / n, a);
}

/* Row-major 3x3 matrices. r = M a */
static inline void m3_mul_v(double *r, const double *M, const double *a) {
  r[0] = M[0] * a[0] + M[1] * a[1] + M[2] * a[2];
  r[1] = M[3] * a[0] + M[4] * a[1] + M[5] * a[2];
  r[2] = M[6] * a[0] + M[7] * a[1] + M[8] * a[2];
}
/* r = M^T a */
static inline void m3_mul_tv(double *r, const double *M, const double *a) {
  r[0] = M[0] * a[0] + M[3] * a[1] + M[6] * a[2];
  r[1] = M[1] * a[0] + M[4] * a[1] + M[7] * a[2];
  r[2] = M[2] * a[0] + M[5] * a[1] + M[8] * a[2];
}

/* R = F2(h) of Till & Rucker 2017, II.A: the rotation of a quaternion of any
 * nonzero magnitude (no normalisation needed). Row-major. */
static inline void quat_to_R(double *R, const double *h) {
  double w = h[0], x = h[1], y = h[2], z = h[3];
  double s = 2.0 / (w * w + x * x + y * y + z * z);
  double xx = x * x, yy = y * y, zz = z * z;
  double xy = x * y, xz = x * z, yz = y * z;
  double wx = w * x, wy = w * y, wz = w * z;
  R[0] = 1.0 - s * (yy + zz);
  R[1] = s * (xy - wz);
  R[2] = s * (xz + wy);
  R[3] = s * (xy + wz);
  R[4] = 1.0 - s * (xx + zz);
  R[5] = s * (yz - wx);
  R[6] = s * (xz - wy);
  R[7] = s * (yz + wx);
  R[8] = 1.0 - s * (xx + yy);
}

/* Quaternion of a rotation matrix (row-major), unit, w >= 0. */
static inline void R_to_quat(double *h, const double *R) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2.0 * sqrt(tr + 1.0);
    h[0] = 0.25 * s;
    h[1] = (R[7] - R[5]) / s;
    h[2] = (R[2] - R[6]) / s;
    h[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
    h[0] = (R[7] - R[5]) / s;
    h[1] = 0.25 * s;
    h[2] = (R[1] + R[3]) / s;
    h[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
    h[0] = (R[2] - R[6]) / s;
    h[1] = (R[1] + R[3]) / s;
    h[2] = 0.25 * s;
    h[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
    h[0] = (R[3] - R[1]) / s;
    h[1] = (R[2] + R[6]) / s;
    h[2] = (R[5] + R[7]) / s;
    h[3] = 0.25 * s;
  }
  if (h[0] < 0)
    for (int i = 0; i < 4; i++)
      h[i] = -h[i];
}

/* r = a * b (Hamilton product) */
static inline void quat_mul(double *r, const double *a, const double *b) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  r[0] = w;
  r[1] = x;
  r[2] = y;
  r[3] = z;
}

/* Unit quaternion of a rotation by angle about a unit axis. */
static inline void quat_axis_angle(double *h, const double *axis,
                                   double angle) {
  double c = cos(0.5 * angle), s = sin(0.5 * angle);
  h[0] = c;
  h[1] = s * axis[0];
  h[2] = s * axis[1];
  h[3] = s * axis[2];
}

/* h_s = F1(h, u) of Till & Rucker 2017, II.A: h_s = h * (0, u) / 2. */
static inline void quat_deriv(double *hs, const double *h, const double *u) {
  hs[0] = 0.5 * (-u[0] * h[1] - u[1] * h[2] - u[2] * h[3]);
  hs[1] = 0.5 * (u[0] * h[0] + u[2] * h[2] - u[1] * h[3]);
  hs[2] = 0.5 * (u[1] * h[0] - u[2] * h[1] + u[0] * h[3]);
  hs[3] = 0.5 * (u[2] * h[0] + u[1] * h[1] - u[0] * h[2]);
}

#endif
