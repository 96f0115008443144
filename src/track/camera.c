/* Cameras: orthographic, lens distortion and the perspective plane
 * (rod/camera.h). */
#include <math.h>

#include "rod/camera.h"

void rod_camera_to_world(const rod_camera *c, double px, double py, double *x,
                         double *z) {
  *x = (px - c->origin_px) * c->scale;
  *z = (c->origin_py - py) * c->scale; /* rows grow downward, z upward */
}

void rod_camera_to_pixel(const rod_camera *c, double x, double z, double *px,
                         double *py) {
  *px = c->origin_px + x / c->scale;
  *py = c->origin_py - z / c->scale;
}

/* OpenCV's distortion of normalised coordinates (x, y). */
static void distort_normalised(const rod_lens *l, double x, double y,
                               double *xd, double *yd) {
  double r2 = x * x + y * y;
  double radial = 1 + r2 * (l->k1 + r2 * (l->k2 + r2 * l->k3));
  *xd = x * radial + 2 * l->p1 * x * y + l->p2 * (r2 + 2 * x * x);
  *yd = y * radial + l->p1 * (r2 + 2 * y * y) + 2 * l->p2 * x * y;
}

void rod_lens_distort(const rod_lens *l, double u, double v, double *ud,
                      double *vd) {
  double xd, yd;
  distort_normalised(l, (u - l->cx) / l->fx, (v - l->cy) / l->fy, &xd, &yd);
  *ud = l->fx * xd + l->cx;
  *vd = l->fy * yd + l->cy;
}

enum { UNDISTORT_ITERATIONS = 100 };

int rod_lens_undistort(const rod_lens *l, double ud, double vd, double *u,
                       double *v) {
  const double x0 = (ud - l->cx) / l->fx, y0 = (vd - l->cy) / l->fy;
  double x = x0, y = y0;
  /* cv::undistortPoints' iteration: x = (x_d - tangential(x, y)) /
   * radial(x, y), which contracts where the distortion is mild */
  for (int k = 0; k < UNDISTORT_ITERATIONS; k++) {
    double r2 = x * x + y * y;
    double radial = 1 + r2 * (l->k1 + r2 * (l->k2 + r2 * l->k3));
    double dx = 2 * l->p1 * x * y + l->p2 * (r2 + 2 * x * x);
    double dy = l->p1 * (r2 + 2 * y * y) + 2 * l->p2 * x * y;
    double xn = (x0 - dx) / radial, yn = (y0 - dy) / radial;
    bool settled = fabs(xn - x) + fabs(yn - y) < 1e-12;
    x = xn;
    y = yn;
    if (!isfinite(x) || !isfinite(y))
      break;
    if (settled) {
      *u = l->fx * x + l->cx;
      *v = l->fy * y + l->cy;
      return ROD_OK;
    }
  }
  return ROD_ENOCONV;
}

rod_camera_model rod_camera_model_from(rod_camera c) {
  return (rod_camera_model){.ortho = c};
}

int rod_camera_model_set_plane(rod_camera_model *m, const double H[9]) {
  double inv[9];
  int st = rod_homography_invert(H, inv);
  if (st != ROD_OK)
    return st;
  for (int k = 0; k < 9; k++) {
    m->plane[k] = H[k];
    m->to_image[k] = inv[k];
  }
  m->has_plane = true;
  return ROD_OK;
}

int rod_camera_model_to_world(const rod_camera_model *m, double px, double py,
                              double *x, double *z) {
  double u = px, v = py;
  if (m->has_lens && rod_lens_undistort(&m->lens, px, py, &u, &v) != ROD_OK)
    return ROD_ENOCONV;
  if (!m->has_plane) {
    rod_camera_to_world(&m->ortho, u, v, x, z);
    return ROD_OK;
  }
  return rod_homography_apply(m->plane, u, v, x, z) ? ROD_OK : ROD_EINVAL;
}

void rod_camera_model_to_pixel(const rod_camera_model *m, double x, double z,
                               double *px, double *py) {
  double u, v;
  if (!m->has_plane)
    rod_camera_to_pixel(&m->ortho, x, z, &u, &v);
  else if (!rod_homography_apply(m->to_image, x, z, &u, &v))
    u = v = NAN;
  if (m->has_lens)
    rod_lens_distort(&m->lens, u, v, px, py);
  else {
    *px = u;
    *py = v;
  }
}
