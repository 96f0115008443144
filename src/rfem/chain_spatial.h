/* Spatial-vector algebra for the chain (Featherstone 2008, ch. 2), inlined
 * into the O(n) passes. Motion vectors m = (w, v), force vectors f = (n, f),
 * six doubles each. A transform X = (E, r) from frame A to frame B holds
 * the rotation E (row-major, x_B = E (x_A - r)) and B's origin r in A
 * coordinates; as a 6 x 6 matrix X = [E 0; -E rx E]. Spatial inertias and
 * articulated inertias are symmetric 6 x 6, row-major, in blocks
 * [A B; B^T C] (angular-angular, angular-linear, linear-linear). */
#ifndef ROD_CHAIN_SPATIAL_H
#define ROD_CHAIN_SPATIAL_H

#include "core/v3.h"

/* r = E a (3x3 row-major) and r = E^T a: m3_mul_v / m3_mul_tv of v3.h. */

/* Motion transform A -> B: out = X m (eq. 2.24). */
static inline void sp_xform_motion(double *out, const double *E,
                                   const double *r, const double *m) {
  double t[3];
  v3_cross(t, m, r); /* w x r */
  v3_add(t, t, m + 3);
  m3_mul_v(out, E, m);
  m3_mul_v(out + 3, E, t);
}

/* Force transform B -> A: out = X^T f (the transpose of the motion map). */
static inline void sp_xform_force_back(double *out, const double *E,
                                       const double *r, const double *f) {
  double n[3], F[3], rf[3];
  m3_mul_tv(n, E, f);
  m3_mul_tv(F, E, f + 3);
  v3_cross(rf, r, F);
  v3_add(out, n, rf);
  v3_copy(out + 3, F);
}

/* Motion cross product out = v x m (eq. 2.31). */
static inline void sp_cross_motion(double *out, const double *v,
                                   const double *m) {
  double t[3];
  v3_cross(out, v, m);
  v3_cross(out + 3, v, m + 3);
  v3_cross(t, v + 3, m);
  v3_add(out + 3, out + 3, t);
}

/* Force cross product out = v x* f (eq. 2.32). */
static inline void sp_cross_force(double *out, const double *v,
                                  const double *f) {
  double t[3];
  v3_cross(out, v, f);
  v3_cross(t, v + 3, f + 3);
  v3_add(out, out, t);
  v3_cross(out + 3, v, f + 3);
}

/* out = I m for a rigid body of mass m, centre of mass c and rotational
 * inertia Ic about c: h = m (v - c x w), n = Ic w + c x h (eq. 2.63). */
static inline void sp_body_apply(double *out, double mass, const double *c,
                                 const double *Ic, const double *m) {
  double cw[3], h[3], n[3];
  v3_cross(cw, c, m);
  v3_sub(h, m + 3, cw);
  v3_scale(h, mass, h);
  m3_mul_v(n, Ic, m);
  v3_cross(cw, c, h);
  v3_add(out, n, cw);
  v3_copy(out + 3, h);
}

/* The 6 x 6 spatial inertia of a rigid body (eq. 2.63):
 * [Ic - m cx cx, m cx; -m cx, m 1]. */
static inline void sp_body_matrix(double *Ib, double mass, const double *c,
                                  const double *Ic) {
  const double cx[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double cc = 0;
      for (int k = 0; k < 3; k++)
        cc += cx[3 * i + k] * cx[3 * k + j];
      Ib[6 * i + j] = Ic[3 * i + j] - mass * cc;
      Ib[6 * i + j + 3] = mass * cx[3 * i + j];
      Ib[6 * (i + 3) + j] = -mass * cx[3 * i + j];
      Ib[6 * (i + 3) + j + 3] = i == j ? mass : 0.0;
    }
}

/* out = I m for a 6 x 6 row-major matrix. */
static inline void sp_mat_apply(double *out, const double *Im,
                                const double *m) {
  for (int i = 0; i < 6; i++) {
    const double *row = Im + 6 * i;
    out[i] = row[0] * m[0] + row[1] * m[1] + row[2] * m[2] + row[3] * m[3] +
             row[4] * m[4] + row[5] * m[5];
  }
}

/* Iparent += X^T I X: an inertia of frame B seen from frame A (eq. 2.66).
 * In blocks, rotate by E, then shift by r with R = rx:
 * A' = A - B R + R B^T - R C R, B' = B + R C, C' = C. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sp_inertia_to_parent(double *Ip, const double *E, const double *r,
                     const double *Ic6) {
  double blk[3][9], rot[3][9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      blk[0][3 * i + j] = Ic6[6 * i + j];
      blk[1][3 * i + j] = Ic6[6 * i + j + 3];
      blk[2][3 * i + j] = Ic6[6 * (i + 3) + j + 3];
    }
  /* rot = E^T blk E */
  for (int b = 0; b < 3; b++) {
    double t[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        t[3 * i + j] = blk[b][3 * i] * E[j] + blk[b][3 * i + 1] * E[3 + j] +
                       blk[b][3 * i + 2] * E[6 + j];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        rot[b][3 * i + j] =
            E[i] * t[j] + E[3 + i] * t[3 + j] + E[6 + i] * t[6 + j];
  }
  const double *A = rot[0], *B = rot[1], *C = rot[2];
  const double R[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
  double RC[9], BR[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      RC[3 * i + j] =
          R[3 * i] * C[j] + R[3 * i + 1] * C[3 + j] + R[3 * i + 2] * C[6 + j];
      BR[3 * i + j] =
          B[3 * i] * R[j] + B[3 * i + 1] * R[3 + j] + B[3 * i + 2] * R[6 + j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      /* R B^T = -(B R)^T; R C R = (RC) R */
      double RCR = RC[3 * i] * R[j] + RC[3 * i + 1] * R[3 + j] +
                   RC[3 * i + 2] * R[6 + j];
      double a = A[3 * i + j] - BR[3 * i + j] - BR[3 * j + i] - RCR;
      double b = B[3 * i + j] + RC[3 * i + j];
      Ip[6 * i + j] += a;
      Ip[6 * i + j + 3] += b;
      Ip[6 * (j + 3) + i] += b;
      Ip[6 * (i + 3) + j + 3] += C[3 * i + j];
    }
}

/* Rotation matrix (row-major) of angle q about the unit axis a, mapping
 * the turned frame's coordinates to the original's (Rodrigues). */
static inline void sp_axis_rotation(double *Rm, const double *a, double q) {
  double c = cos(q), s = sin(q), t = 1.0 - c;
  Rm[0] = c + t * a[0] * a[0];
  Rm[1] = t * a[0] * a[1] - s * a[2];
  Rm[2] = t * a[0] * a[2] + s * a[1];
  Rm[3] = t * a[1] * a[0] + s * a[2];
  Rm[4] = c + t * a[1] * a[1];
  Rm[5] = t * a[1] * a[2] - s * a[0];
  Rm[6] = t * a[2] * a[0] - s * a[1];
  Rm[7] = t * a[2] * a[1] + s * a[0];
  Rm[8] = c + t * a[2] * a[2];
}

/* C = A B for row-major 3 x 3. */
static inline void m3_mul(double *C, const double *A, const double *B) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] =
          A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* C = A^T B for row-major 3 x 3. */
static inline void m3_mul_tn(double *C, const double *A, const double *B) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

#endif
