/* A run rendered into a video file (rod_render_video, render.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rod/render.h"

/* The run's points at time tq, linearly between the samples around it;
 * *hint is the sample interval of the last call. */
static void points_at(const double *t, int samples, const double *positions,
                      int points, double tq, int *hint, double *out) {
  const size_t n = 3 * (size_t)points;
  int i = *hint;
  while (i + 1 < samples - 1 && t[i + 1] <= tq)
    i++;
  *hint = i;
  if (samples == 1 || tq <= t[0]) {
    memcpy(out, positions, n * sizeof *out);
    return;
  }
  double f = (tq - t[i]) / (t[i + 1] - t[i]);
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  const double *a = positions + (size_t)i * n, *b = a + n;
  for (size_t k = 0; k < n; k++)
    out[k] = f == 0 ? a[k] : f == 1 ? b[k] : a[k] + f * (b[k] - a[k]);
}

int rod_render_video(const double *t, int samples, const double *positions,
                     int points, const rod_render_video_options *o,
                     const char *path, long *frames, rod_error *err) {
  if (frames)
    *frames = 0;
  const double fps = o->video.fps;
  if (samples < 1 || points < 2 || !(fps > 0) || !isfinite(fps))
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "nothing to render (%d samples of %d points at %g "
                         "fps)",
                         samples, points, fps);
  const double start = o->start,
               end = o->end >= o->start ? o->end : t[samples - 1];
  /* frames whose time is within a millionth of a frame of the end count */
  const long total = (long)floor((end - start) * fps + 1e-6) + 1;
  rod_render_style style = o->style;
  rod_video_writer_options vo = o->video;
  vo.width = style.width;
  vo.height = style.height;
  rod_renderer *r = rod_renderer_alloc(&style);
  rod_image *img = rod_image_alloc(style.width, style.height);
  double *at = malloc(3 * (size_t)points * sizeof *at);
  if (!r || !img || !at) {
    rod_renderer_free(r);
    rod_image_free(img);
    free(at);
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "out of memory, or the style is out of range");
  }
  rod_video_writer *w = NULL;
  int st = rod_video_writer_open(path, &vo, &w, err);
  int hint = 0;
  for (long k = 0; st == ROD_OK && k < total; k++) {
    double tk = start + (double)k / fps;
    points_at(t, samples, positions, points, tk, &hint, at);
    if (rod_render_frame(r, at, points, (uint64_t)k, img) != ROD_OK)
      st = rod_error_set(err, ROD_EINVAL, path, NULL,
                         "frame %ld (t = %g s): the rod does not map into "
                         "the image",
                         k, tk);
    if (st == ROD_OK)
      st = rod_video_writer_add(w, img, tk - start, err);
    if (st == ROD_OK && frames)
      *frames = k + 1;
    if (st == ROD_OK && o->progress)
      o->progress(k + 1, total, o->progress_user);
  }
  /* w is NULL if it did not open; a later failure keeps its message */
  int closed = rod_video_writer_close(w, st == ROD_OK ? err : NULL);
  if (st == ROD_OK)
    st = closed;
  rod_renderer_free(r);
  rod_image_free(img);
  free(at);
  return st;
}
