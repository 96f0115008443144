/* Tracking's options, their check and the rightmost rule's tip pixel
 * (track.h): the bottom of tracking, called by the loop over the frames
 * (track_run.c) and by the command line; it calls nothing of tracking's
 * own. */
#include <math.h>

#include "rod/track.h"

rod_track_options rod_track_default(void) {
  return (rod_track_options){.fps = 0,
                             .t0 = 0,
                             .camera = {0, 0, 0},
                             .threshold = 0,
                             .method = ROD_TRACK_AUTO,
                             .polarity = ROD_POLARITY_DARK,
                             .points = 50,
                             .length_tolerance = 0.02};
}

/* The options of the centreline and the camera beyond the original ones. */
static int check_more(const rod_track_options *o, rod_error *err) {
  if (!isfinite(o->direction[0]) || !isfinite(o->direction[1]))
    return rod_error_set(err, ROD_EINVAL, NULL, "direction", "must be finite");
  if (o->points != 0 && (o->points < 2 || o->points > 100000))
    return rod_error_set(err, ROD_EINVAL, NULL, "points",
                         "must be from 2 to 100000 (got %d)", o->points);
  if (!(o->rod_length >= 0) || !isfinite(o->rod_length))
    return rod_error_set(err, ROD_EINVAL, NULL, "rod-length",
                         "must be > 0 (got %g)", o->rod_length);
  if (!(o->length_tolerance >= 0 && o->length_tolerance < 1))
    return rod_error_set(err, ROD_EINVAL, NULL, "length-tolerance",
                         "must be between 0 and 1 (got %g)",
                         o->length_tolerance);
  if (o->background == ROD_BACKGROUND_FRAME && o->background_frame < 0)
    return rod_error_set(err, ROD_EINVAL, NULL, "background",
                         "frame index must be >= 0 (got %ld)",
                         o->background_frame);
  if (o->background == ROD_BACKGROUND_IMAGE && !o->background_path)
    return rod_error_set(err, ROD_EINVAL, NULL, "background", "no image");
  if (o->has_lens &&
      !(o->lens.fx > 0 && o->lens.fy > 0 && isfinite(o->lens.fx) &&
        isfinite(o->lens.fy) && isfinite(o->lens.cx) && isfinite(o->lens.cy) &&
        isfinite(o->lens.k1) && isfinite(o->lens.k2) && isfinite(o->lens.p1) &&
        isfinite(o->lens.p2) && isfinite(o->lens.k3)))
    return rod_error_set(err, ROD_EINVAL, NULL, "lens",
                         "focal lengths must be > 0 and every coefficient "
                         "finite");
  if (o->has_plane) {
    double inv[9];
    for (int k = 0; k < 9; k++)
      if (!isfinite(o->plane[k]))
        return rod_error_set(err, ROD_EINVAL, NULL, "plane",
                             "the homography is not finite");
    if (rod_homography_invert(o->plane, inv) != ROD_OK)
      return rod_error_set(err, ROD_EINVAL, NULL, "plane",
                           "the homography is singular");
  }
  return ROD_OK;
}

int rod_track_check(const rod_track_options *o, rod_error *err) {
  if (!o->timestamps && (!(o->fps > 0) || !isfinite(o->fps)))
    return rod_error_set(err, ROD_EINVAL, NULL, "fps", "must be > 0 (got %g)",
                         o->fps);
  /* a plane or the rod's length may stand in for the scale */
  bool scale_optional = o->has_plane || o->rod_length > 0;
  if (!(o->camera.scale > 0 || (scale_optional && o->camera.scale == 0)) ||
      !isfinite(o->camera.scale))
    return rod_error_set(err, ROD_EINVAL, NULL, "scale", "must be > 0 (got %g)",
                         o->camera.scale);
  if (!isfinite(o->camera.origin_px) || !isfinite(o->camera.origin_py))
    return rod_error_set(err, ROD_EINVAL, NULL, "origin", "must be finite");
  if (!isfinite(o->t0))
    return rod_error_set(err, ROD_EINVAL, NULL, "t0", "must be finite");
  if (!(o->threshold == 0 || (o->threshold > 0 && o->threshold < 1)))
    return rod_error_set(err, ROD_EINVAL, NULL, "threshold",
                         "must be between 0 and 1 (got %g)", o->threshold);
  return check_more(o, err);
}

int rod_track_tip_pixel(const rod_image *img, double threshold, int *px,
                        int *py) {
  /* rows top down, each scanned from the right edge only as far as the
   * best column so far: a later row must be strictly further right to win,
   * which keeps the topmost pixel of the rightmost column */
  int best_col = -1, best_row = -1;
  float thr = (float)threshold;
  for (int r = 0; r < img->height && best_col < img->width - 1; r++) {
    const float *row = img->lum + (size_t)r * (size_t)img->width;
    for (int c = img->width - 1; c > best_col; c--) {
      if (row[c] < thr) {
        best_col = c;
        best_row = r;
        break;
      }
    }
  }
  if (best_col < 0)
    return ROD_EINVAL;
  *px = best_col;
  *py = best_row;
  return ROD_OK;
}
