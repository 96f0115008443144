/* Synthetic video of a simulated rod (`rodsim render`, docs/tracking.md):
 * what a camera would record of the run, with the imperfections a tracker
 * has to survive, and the exact centreline to measure it against.
 *
 * The rod is a stroke of its apparent width along the centreline's image
 * (the world points through the camera: plane homography and lens
 * distortion), with flat ends at the clamp and at the tip, as a cut rod
 * seen from the side. Edge pixels are weighted by the area the rod covers
 * (straight-edge approximation across the pixel), so the silhouette is
 * symmetric about the centreline and its ends are where the rod's are.
 * Then, in this order: uneven lighting (a linear gradient of the
 * background level), Gaussian blur (defocus, motion), additive Gaussian
 * noise (drawn per pixel and frame from a seed, so a frame is
 * reproducible). */
#ifndef ROD_RENDER_H
#define ROD_RENDER_H

#include <stdint.h>

#include "rod/camera.h"
#include "rod/image.h"
#include "rod/video.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int width, height;       /* px */
  rod_camera_model camera; /* world (x, z) to pixel */
  double rod_width;        /* px, the rod's apparent diameter */
  double background;       /* luminance of the background at the image's
                              middle column */
  double rod;              /* luminance of the rod */
  double gradient;         /* background level change from the left edge to
                              the right, relative: 0.3 is -15 % to +15 % */
  double blur;             /* px, standard deviation of the Gaussian blur */
  double noise;            /* standard deviation of the noise, fraction of
                              full scale */
  uint64_t seed;           /* noise stream */
} rod_render_style;

/* 640 x 480, 1 mm per pixel with the origin at (64, 240), a 3 px rod of
 * luminance 0.15 on 0.85, no gradient, blur, noise; seed 1. */
rod_render_style rod_render_default(void);

typedef struct rod_renderer rod_renderer;

/* NULL if out of memory or the style is out of range (size < 1, rod width
 * <= 0, levels outside [0, 1], negative blur, noise or |gradient| >= 2). */
rod_renderer *rod_renderer_alloc(const rod_render_style *s);
void rod_renderer_free(rod_renderer *r);

/* Draw frame number `frame` (the noise's counter) of the rod through the
 * n >= 2 world points (n x 3, x y z in m; y is along the view and
 * ignored) into img, which must have the style's size. ROD_EINVAL for a
 * point that is not finite or does not map into the image plane. */
int rod_render_frame(rod_renderer *r, const double *points, int n,
                     uint64_t frame, rod_image *img);

/* The centreline the last rod_render_frame drew, in pixels: the points
 * through the camera, subdivided so that the lens's curvature is
 * followed (every piece under half a pixel). *xy is the renderer's,
 * valid until its next frame. */
int rod_render_centreline(const rod_renderer *r, const double **xy);

/* A video of a run: frames at start + k / fps up to end (s; end < start:
 * the run's last sample), the rod's points at each frame's time
 * interpolated linearly between the run's samples (exact where the two
 * coincide), the style's camera and imperfections, noise counter k. */
typedef struct {
  rod_render_style style;
  rod_video_writer_options video; /* codec, crf, fps; the size is the
                                     style's */
  double start, end;              /* s */
  void (*progress)(long done, long total, void *user); /* may be NULL */
  void *progress_user;
} rod_render_video_options;

/* Render the run (samples times t, increasing; positions: samples x
 * points x 3 m) into the video file path. Errors of the writer, or
 * ROD_EINVAL (err names path) for a frame that cannot be drawn. *frames
 * (may be NULL) counts the frames written. */
int rod_render_video(const double *t, int samples, const double *positions,
                     int points, const rod_render_video_options *o,
                     const char *path, long *frames, rod_error *err);

/* The camera of a tilted view: the orthographic camera `ortho` of a
 * width x height image turned into a pinhole camera at `distance` m from
 * the plane (focal length distance / scale px, principal point at the
 * image's centre) looking at the plane point the orthographic camera shows
 * there, then rotated about the image's horizontal axis by tilt_x and
 * about its vertical axis by tilt_y (rad). With no tilt it is `ortho`
 * exactly. */
int rod_camera_model_tilted(const rod_camera *ortho, int width, int height,
                            double distance, double tilt_x, double tilt_y,
                            rod_camera_model *out);

#ifdef __cplusplus
}
#endif

#endif
