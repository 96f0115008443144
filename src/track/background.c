/* The background for the centreline's subtraction (rod_track_background,
 * track.h): a PNG of the empty scene, one frame of the input, or the
 * median of frames spread over the input. */
#include <stdlib.h>
#include <string.h>

#include "rod/track.h"
#include "track/frame_source.h"
#include "track/trace_sample.h"

/* Frames the median keeps: every stride-th frame, the stride doubling
 * whenever the buffer fills, so that between HALF and MEDIAN_FRAMES
 * frames spread evenly over an input of any length are kept. */
enum { MEDIAN_FRAMES = 24, HALF = MEDIAN_FRAMES / 2 };

static int copy_image(const rod_image *from, rod_image **to) {
  *to = rod_image_alloc(from->width, from->height);
  if (!*to)
    return ROD_ENOMEM;
  memcpy((*to)->lum, from->lum,
         (size_t)from->width * (size_t)from->height * sizeof *from->lum);
  return ROD_OK;
}

static int one_frame(const char *input, long index, rod_image **out,
                     rod_error *err) {
  frame_source *src;
  int st = frame_source_open(input, &src, err);
  if (st != ROD_OK)
    return st;
  rod_image *img = rod_image_alloc(0, 0);
  long i = 0;
  bool end = false;
  for (; st == ROD_OK && img && i <= index; i++) {
    double t;
    st = frame_source_next(src, img, &t, &end, err);
    if (end)
      break;
  }
  frame_source_close(src);
  if (st == ROD_OK && !img)
    st = rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  if (st == ROD_OK && end)
    st = rod_error_set(err, ROD_EINVAL, input, "background",
                       "frame %ld is beyond the last frame (%ld frames)", index,
                       i);
  if (st == ROD_OK && copy_image(img, out) != ROD_OK)
    st = rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  rod_image_free(img);
  return st;
}

/* Grey-level dilation (max) or erosion (min) over a (2r+1)^2 square, in
 * two separable passes through scratch. */
static void rank_filter(rod_image *img, int r, bool max, float *scratch) {
  const int w = img->width, h = img->height;
  for (int pass = 0; pass < 2; pass++) {
    const float *in = pass ? scratch : img->lum;
    float *out = pass ? img->lum : scratch;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float best = in[(size_t)y * w + x];
        for (int k = -r; k <= r; k++) {
          int xx = pass ? x : x + k, yy = pass ? y + k : y;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h)
            continue;
          float v = in[(size_t)yy * w + xx];
          best = max ? (v > best ? v : best) : (v < best ? v : best);
        }
        out[(size_t)y * w + x] = best;
      }
  }
}

/* The rod's apparent width in frame img, by the tracer; 0 if the trace
 * fails. */
static double rod_width_in(const rod_image *img, const rod_track_options *o) {
  rod_trace_options to = {.origin = {o->camera.origin_px, o->camera.origin_py},
                          .direction = {o->direction[0], o->direction[1]},
                          .polarity = o->polarity,
                          .threshold = o->threshold};
  rod_tracer *t = rod_tracer_alloc(&to, img->width, img->height);
  if (!t)
    return 0;
  rod_trace tr;
  rod_tracer_run(t, img, NULL, &tr);
  double w = rod_tracer_width(t);
  rod_tracer_free(t);
  return w;
}

/* Per pixel, the median of the kept frames; then the parts of the rod
 * that hardly move (near the clamp) and so survive the median are closed
 * over: a dark rod by a dilation and an erosion (a bright one the other
 * way round) over a square wider than the rod, which leaves the lighting
 * and anything wider than the rod. */
static int median_of(rod_image **keep, int m, const rod_track_options *o,
                     rod_image **out) {
  const int w = keep[0]->width, h = keep[0]->height;
  rod_image *bg = rod_image_alloc(w, h);
  float *scratch = malloc((size_t)w * (size_t)h * sizeof *scratch);
  if (!bg || !scratch) {
    rod_image_free(bg);
    free(scratch);
    return ROD_ENOMEM;
  }
  double v[MEDIAN_FRAMES], sorted[MEDIAN_FRAMES];
  for (size_t p = 0, n = (size_t)w * (size_t)h; p < n; p++) {
    for (int k = 0; k < m; k++)
      v[k] = keep[k]->lum[p];
    bg->lum[p] = (float)trace_median(v, m, sorted);
  }
  double width = rod_width_in(keep[0], o);
  int r = width > 0 ? (int)ceil(width) + 1 : 4;
  bool dark = o->polarity == ROD_POLARITY_DARK;
  rank_filter(bg, r, dark, scratch);
  rank_filter(bg, r, !dark, scratch);
  free(scratch);
  *out = bg;
  return ROD_OK;
}

static int median_frames(const char *input, const rod_track_options *o,
                         rod_image **out, rod_error *err) {
  frame_source *src;
  int st = frame_source_open(input, &src, err);
  if (st != ROD_OK)
    return st;
  rod_image *keep[MEDIAN_FRAMES] = {NULL}, *img = rod_image_alloc(0, 0);
  int m = 0;
  long stride = 1;
  if (!img)
    st = rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  for (long i = 0; st == ROD_OK; i++) {
    double t;
    bool end;
    st = frame_source_next(src, img, &t, &end, err);
    if (st != ROD_OK || end)
      break;
    if (i % stride)
      continue;
    if (m == MEDIAN_FRAMES) { /* keep every other, double the stride */
      for (int k = 0; k < HALF; k++) {
        rod_image *tmp = keep[k];
        keep[k] = keep[2 * k];
        keep[2 * k] = tmp;
      }
      m = HALF;
      stride *= 2;
      if (i % stride)
        continue;
    }
    if (!keep[m] && !(keep[m] = rod_image_alloc(img->width, img->height)))
      st = rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
    else
      memcpy(keep[m++]->lum, img->lum,
             (size_t)img->width * (size_t)img->height * sizeof *img->lum);
  }
  frame_source_close(src);
  rod_image_free(img);
  if (st == ROD_OK && median_of(keep, m, o, out) != ROD_OK)
    st = rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  for (int k = 0; k < MEDIAN_FRAMES; k++)
    rod_image_free(keep[k]);
  return st;
}

int rod_track_background(const char *input, const rod_track_options *o,
                         rod_image **out, rod_error *err) {
  *out = NULL;
  switch (o->background) {
  case ROD_BACKGROUND_IMAGE: {
    rod_image *img = rod_image_alloc(0, 0);
    if (!img)
      return rod_error_set(err, ROD_ENOMEM, o->background_path, NULL,
                           "out of memory");
    int st = rod_image_read_png(img, o->background_path, err);
    if (st != ROD_OK) {
      rod_image_free(img);
      return st;
    }
    *out = img;
    return ROD_OK;
  }
  case ROD_BACKGROUND_FRAME:
    return one_frame(input, o->background_frame, out, err);
  case ROD_BACKGROUND_MEDIAN:
    return median_frames(input, o, out, err);
  default:
    return ROD_OK;
  }
}
