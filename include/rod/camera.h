/* The camera of `rodsim track` and of the synthetic frames (docs/files.md): it
 * looks along +y at the x-z plane, orthographically; image right is +x, image
 * up is +z. Pixel (px, py) is column px, row py (rows grow downward), with
 * pixel centres at integer coordinates. */
#ifndef ROD_CAMERA_H
#define ROD_CAMERA_H

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

#ifdef __cplusplus
}
#endif

#endif
