/* Synthetic video frames of a rod, for tests of `rodsim track` and for
 * end-to-end calibration tests: the rod drawn dark on a bright background
 * as the camera of camera.h sees it, with optional Gaussian noise.
 *
 * The rod is a stroke of constant width with round caps along the polyline
 * of its points, so the rightmost point of the drawing lies line_width / 2
 * pixels to the right of the rightmost point, at that point's height: a
 * tracker taking the rightmost dark pixel sees the tip shifted by half the
 * rod's apparent width along +x, as it would in a real video. */
#ifndef ROD_FRAMES_H
#define ROD_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "rod/camera.h"
#include "rod/image.h"

typedef struct {
  rod_camera camera;
  double line_width; /* pixels, the rod's apparent diameter */
  double background; /* luminance of the background, [0, 1] */
  double rod;        /* luminance of the rod, [0, 1] */
  double noise;      /* standard deviation of additive Gaussian noise,
                        luminance (fraction of full scale); 0: none */
  uint64_t seed;     /* noise seed: the same seed draws the same frame */
  bool antialias;    /* edge pixels weighted by the area the rod covers;
                        false: a pixel is rod when its centre is */
} rod_frame_style;

/* Scale 1e-3 m/px, origin (0, 0), a 3-pixel rod of luminance 0.1 on 0.9,
 * anti-aliased, no noise, seed 1. */
rod_frame_style rod_frame_style_default(void);

/* Draw the rod through points (n >= 1 rows of x, y, z in m, world frame; y
 * is ignored: the view is along +y) into img, whose size is the frame's.
 * Luminance is not clamped: noise may take it outside [0, 1], and the PNG
 * writer clamps. ROD_EINVAL if the style or a point is out of range. */
int rod_frame_draw(rod_image *img, const rod_frame_style *s,
                   const double *points, int n);

#endif
