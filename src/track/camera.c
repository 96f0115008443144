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
