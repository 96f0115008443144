/* Rod-tip tracking: the tip rule and the loop over a directory of frames
 * (track.h). */
#include <math.h>

#include "rod/track.h"

rod_track_options rod_track_default(void) {
  return (rod_track_options){
      .fps = 0, .t0 = 0, .camera = {0, 0, 0}, .threshold = 0};
}

int rod_track_check(const rod_track_options *o, rod_error *err) {
  if (!(o->fps > 0) || !isfinite(o->fps))
    return rod_error_set(err, ROD_EINVAL, NULL, "fps", "must be > 0 (got %g)",
                         o->fps);
  if (!(o->camera.scale > 0) || !isfinite(o->camera.scale))
    return rod_error_set(err, ROD_EINVAL, NULL, "scale", "must be > 0 (got %g)",
                         o->camera.scale);
  if (!isfinite(o->camera.origin_px) || !isfinite(o->camera.origin_py))
    return rod_error_set(err, ROD_EINVAL, NULL, "origin", "must be finite");
  if (!isfinite(o->t0))
    return rod_error_set(err, ROD_EINVAL, NULL, "t0", "must be finite");
  if (!(o->threshold == 0 || (o->threshold > 0 && o->threshold < 1)))
    return rod_error_set(err, ROD_EINVAL, NULL, "threshold",
                         "must be between 0 and 1 (got %g)", o->threshold);
  return ROD_OK;
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

/* Track one frame already read into img into sample i of d. */
static int track_frame(const rod_image *img, const rod_track_options *o, int i,
                       rod_tip_data *d, const char *path, rod_error *err) {
  double thr = o->threshold > 0 ? o->threshold : rod_track_otsu(img);
  int px, py;
  if (rod_track_tip_pixel(img, thr, &px, &py) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "no dark pixel (threshold %.3g of full scale)", thr);
  d->t[i] = o->t0 + i / o->fps;
  double *xyz = d->xyz + 3 * i;
  rod_camera_to_world(&o->camera, px, py, &xyz[0], &xyz[2]);
  return ROD_OK;
}

/* Track the listed frames into d, through one image whose buffers the
 * first frame sizes and every later frame reuses. */
static int track_paths(char **paths, int n, const rod_track_options *o,
                       rod_tip_data *d, rod_error *err) {
  rod_image *img = rod_image_alloc(0, 0);
  if (!img)
    return rod_error_set(err, ROD_ENOMEM, paths[0], NULL, "out of memory");
  int st = ROD_OK;
  for (int i = 0; i < n && st == ROD_OK; i++) {
    st = rod_image_read_png(img, paths[i], err);
    if (st == ROD_OK)
      st = track_frame(img, o, i, d, paths[i], err);
  }
  rod_image_free(img);
  return st;
}

int rod_track_dir(const char *dir, const rod_track_options *o,
                  rod_tip_data **out, rod_error *err) {
  *out = NULL;
  int st = rod_track_check(o, err);
  if (st != ROD_OK)
    return st;
  char **paths;
  int n;
  if ((st = rod_frame_list(dir, &paths, &n, err)) != ROD_OK)
    return st;
  if (n == 0) {
    rod_frame_list_free(paths, n);
    return rod_error_set(err, ROD_EINVAL, dir, NULL, "no *.png files");
  }
  rod_tip_data *d = rod_tip_data_alloc(n);
  if (!d)
    st = rod_error_set(err, ROD_ENOMEM, dir, NULL, "out of memory");
  else
    st = track_paths(paths, n, o, d, err);
  rod_frame_list_free(paths, n);
  if (st != ROD_OK) {
    rod_tip_data_free(d);
    return st;
  }
  d->has[0] = d->has[2] = true;
  *out = d;
  return ROD_OK;
}
