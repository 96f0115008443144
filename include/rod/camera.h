/* The cameras of `rodsim track` and `rodsim render` (docs/tracking.md).
 *
 * Pixel (px, py) is column px, row py (rows grow downward), with pixel
 * centres at integer coordinates, as in OpenCV. The rod moves in the x-z
 * plane of the world (the camera looks along +y).
 *
 * rod_camera is the orthographic camera of a square setup: image right is
 * +x, image up is +z, a fixed scale. rod_camera_model adds what a real
 * camera needs: lens distortion (OpenCV's model and coefficients) and a
 * perspective view of the plane (a homography from four or more marked
 * points), so a camera that is not square to the plane still measures
 * metres. */
#ifndef ROD_CAMERA_H
#define ROD_CAMERA_H

#include <stdbool.h>

#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double scale;     /* m per pixel, > 0 */
  double origin_px; /* column of the world origin, pixels */
  double origin_py; /* row of the world origin, pixels */
} rod_camera;

/* x = (px - PX) scale, z = (PY - py) scale (m). */
void rod_camera_to_world(const rod_camera *c, double px, double py, double *x,
                         double *z);

/* The inverse: the pixel coordinates of world point (x, z). */
void rod_camera_to_pixel(const rod_camera *c, double x, double z, double *px,
                         double *py);

/* A lens as OpenCV describes it (the camera matrix and distCoeffs of
 * cv::calibrateCamera, in the order k1, k2, p1, p2, k3): an ideal pinhole
 * image point (x, y) = ((u - cx) / fx, (v - cy) / fy) appears at
 *   x_d = x (1 + k1 r^2 + k2 r^4 + k3 r^6) + 2 p1 x y + p2 (r^2 + 2 x^2)
 *   y_d = y (1 + k1 r^2 + k2 r^4 + k3 r^6) + p1 (r^2 + 2 y^2) + 2 p2 x y
 * with r^2 = x^2 + y^2, i.e. at pixel (fx x_d + cx, fy y_d + cy). */
typedef struct {
  double fx, fy, cx, cy;     /* px */
  double k1, k2, p1, p2, k3; /* radial k, tangential p */
} rod_lens;

/* Ideal (undistorted) pixel to the pixel the lens shows it at. */
void rod_lens_distort(const rod_lens *l, double u, double v, double *ud,
                      double *vd);

/* The inverse, as cv::undistortPoints with P = the camera matrix: the
 * fixed-point iteration of OpenCV, run to convergence (1e-12 in
 * normalised coordinates). ROD_ENOCONV where the distortion does not
 * invert (far outside the calibrated field). */
int rod_lens_undistort(const rod_lens *l, double ud, double vd, double *u,
                       double *v);

typedef struct {
  rod_camera ortho; /* without a plane: scale and origin on the
                       undistorted pixels */
  bool has_lens;
  rod_lens lens;
  bool has_plane;
  double plane[9];    /* H, row-major: (x, z, 1) ~ H (u, v, 1) for the
                         undistorted pixel (u, v) and the world point (x, z)
                         in m (cv::findHomography from pixels to the plane,
                         scaled to H[8] = 1) */
  double to_image[9]; /* H^-1 */
} rod_camera_model;

/* The orthographic camera c, no lens. */
rod_camera_model rod_camera_model_from(rod_camera c);

/* Set m's plane to H (and its inverse). ROD_ESING if H is singular. */
int rod_camera_model_set_plane(rod_camera_model *m, const double H[9]);

/* Pixel to world (x, z) in m: undistort, then the plane or the
 * orthographic camera. ROD_ENOCONV where the lens does not invert,
 * ROD_EINVAL where the pixel looks at the plane's horizon or beyond. */
int rod_camera_model_to_world(const rod_camera_model *m, double px, double py,
                              double *x, double *z);

/* World (x, z) to the pixel that shows it. */
void rod_camera_model_to_pixel(const rod_camera_model *m, double x, double z,
                               double *px, double *py);

/* The homography H with (to_x, to_y, 1) ~ H (from_x, from_y, 1) for n >= 4
 * point pairs (from and to: n x 2, row-major), scaled to H[8] = 1: the
 * normalised direct linear transform (Hartley & Zisserman 2004, algorithm
 * 4.2), its null vector by LAPACKE's SVD; exact for four points in general
 * position, least squares in the algebraic error for more.
 * ROD_EINVAL (err names `key`) when fewer than four points are given, three
 * of four are collinear, or the points do not determine H. */
int rod_homography_fit(int n, const double *from, const double *to, double H[9],
                       const char *key, rod_error *err);

/* (x, y) ~ H (u, v, 1); false (x, y untouched) where the third
 * coordinate vanishes (the horizon: the point maps to infinity). */
bool rod_homography_apply(const double H[9], double u, double v, double *x,
                          double *y);

/* Hinv = H^-1 scaled to Hinv[8] = 1 (or unscaled if that entry is 0).
 * ROD_ESING when det H is 0 relative to H's size. */
int rod_homography_invert(const double H[9], double Hinv[9]);

#ifdef __cplusplus
}
#endif

#endif
