/* The centreline method of rod_track (track.h): each frame's trace
 * resampled at equal arclength in the world plane, then the checks that
 * need every frame (scale from the rod's length, the reference length). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/trace_sample.h"
#include "track/track_internal.h"

/* Frames whose lengths set the reference (and the scale from the rod's
 * length): the first few whose trace ended well, before the rod moves
 * much in a typical release. */
enum { REFERENCE_FRAMES = 5 };

static int grow_scratch(track_run *run, int n) {
  if (n <= run->scratch_size)
    return ROD_OK;
  double *w = realloc(run->world, 2 * (size_t)n * sizeof *w);
  if (w)
    run->world = w;
  double *a = realloc(run->arc, (size_t)n * sizeof *a);
  if (a)
    run->arc = a;
  if (!w || !a)
    return ROD_ENOMEM;
  run->scratch_size = n;
  return ROD_OK;
}

static int grow_frames(track_run *run, long i) {
  if (i < run->room)
    return ROD_OK;
  long cap = run->room ? 2 * run->room : 1024;
  unsigned char *t = realloc(run->traced, (size_t)cap);
  if (!t)
    return ROD_ENOMEM;
  run->traced = t;
  run->room = cap;
  return ROD_OK;
}

/* Points at equal spacing along the polyline (x of n points, cumulative
 * length arc) into out (K points), and the same parameters along y. */
static void resample(const double *x, const double *y, const double *arc, int n,
                     int K, double *out_x, double *out_y) {
  const double total = arc[n - 1];
  int seg = 1;
  for (int k = 0; k < K; k++) {
    double s = total * k / (K - 1);
    while (seg < n - 1 && arc[seg] < s)
      seg++;
    double span = arc[seg] - arc[seg - 1];
    double f = span > 0 ? (s - arc[seg - 1]) / span : 1;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    if (k == K - 1)
      f = 1, seg = n - 1;
    for (int c = 0; c < 2; c++) {
      out_x[2 * k + c] =
          x[2 * (seg - 1) + c] + f * (x[2 * seg + c] - x[2 * (seg - 1) + c]);
      out_y[2 * k + c] =
          y[2 * (seg - 1) + c] + f * (y[2 * seg + c] - y[2 * (seg - 1) + c]);
    }
  }
}

int track_centreline_frame(track_run *run, const rod_image *img,
                           const rod_image *background, double t,
                           rod_error *err) {
  const rod_track_options *o = run->o;
  if (background &&
      (background->width != img->width || background->height != img->height))
    return rod_error_set(err, ROD_EINVAL, o->background_path, "background",
                         "%dx%d pixels, the frames are %dx%d",
                         background->width, background->height, img->width,
                         img->height);
  if (!run->tracer) {
    rod_trace_options to = {
        .origin = {o->camera.origin_px, o->camera.origin_py},
        .direction = {o->direction[0], o->direction[1]},
        .polarity = o->polarity,
        .threshold = o->threshold};
    run->points = o->points > 0 ? o->points : 50;
    run->tracer = rod_tracer_alloc(&to, img->width, img->height);
    run->res->shape = rod_shape_alloc(run->points, 1024);
    if (!run->tracer || !run->res->shape)
      return rod_error_set(err, ROD_ENOMEM, NULL, NULL, "out of memory");
  }
  rod_trace tr;
  if (rod_tracer_run(run->tracer, img, background, &tr) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, NULL, NULL, "frame of another size");
  rod_shape_data *d = run->res->shape;
  const int i = rod_shape_append(d);
  if (i < 0 || grow_scratch(run, tr.n) != ROD_OK ||
      grow_frames(run, i) != ROD_OK)
    return rod_error_set(err, ROD_ENOMEM, NULL, NULL, "out of memory");
  d->t[i] = t;
  unsigned char flags = 0;
  if (tr.status & ROD_TRACE_NO_ROD)
    flags |= ROD_SHAPE_NO_ROD;
  if (tr.status & (ROD_TRACE_EDGE | ROD_TRACE_TOO_LONG))
    flags |= ROD_SHAPE_EDGE;
  /* the trace in the world; a point the camera cannot map is flagged and
   * stands in by its orthographic position, so every value is finite */
  double *w = run->world;
  for (int k = 0; k < tr.n; k++) {
    const double *p = tr.xy + 2 * k;
    if (rod_camera_model_to_world(&run->camera, p[0], p[1], &w[2 * k],
                                  &w[2 * k + 1]) != ROD_OK ||
        !isfinite(w[2 * k]) || !isfinite(w[2 * k + 1])) {
      flags |= ROD_SHAPE_CAMERA;
      rod_camera_to_world(&run->camera.ortho, p[0], p[1], &w[2 * k],
                          &w[2 * k + 1]);
    }
  }
  run->arc[0] = 0;
  for (int k = 1; k < tr.n; k++)
    run->arc[k] = run->arc[k - 1] +
                  hypot(w[2 * k] - w[2 * k - 2], w[2 * k + 1] - w[2 * k - 1]);
  const size_t K2 = 2 * (size_t)d->points;
  if (tr.n >= 2 && run->arc[tr.n - 1] > 0) {
    resample(w, tr.xy, run->arc, tr.n, d->points, d->xz + i * K2,
             d->pixels + i * K2);
  } else { /* nothing traced: the clamp, K times */
    for (int k = 0; k < d->points; k++) {
      memcpy(d->xz + i * K2 + 2 * k, w, 2 * sizeof *w);
      memcpy(d->pixels + i * K2 + 2 * k, tr.xy, 2 * sizeof *w);
    }
  }
  d->length[i] = run->arc[tr.n - 1];
  d->flags[i] = flags;
  run->traced[i] = flags == 0;
  run->res->rod_width = rod_tracer_width(run->tracer);
  return ROD_OK;
}

/* The median of v over the first REFERENCE_FRAMES frames that traced
 * well; NAN if none did. */
static double early_median(const track_run *run, const double *v) {
  double pick[REFERENCE_FRAMES], scratch[REFERENCE_FRAMES];
  int m = 0;
  for (int i = 0; i < run->res->shape->frames && m < REFERENCE_FRAMES; i++)
    if (run->traced[i])
      pick[m++] = v[i];
  return trace_median(pick, m, scratch);
}

int track_centreline_finish(track_run *run, const char *input, rod_error *err) {
  const rod_track_options *o = run->o;
  rod_track_result *res = run->res;
  rod_shape_data *d = res->shape;
  if (!d)
    return rod_error_set(err, ROD_EINVAL, input, NULL, "no frames");
  const size_t K2 = 2 * (size_t)d->points;
  /* an orthographic camera without a scale takes it from the rod's
   * length: world coordinates so far are at scale 1 (linear in it) */
  res->scale = o->has_plane ? 0 : o->camera.scale;
  if (!o->has_plane && !(o->camera.scale > 0)) {
    double unscaled = early_median(run, d->length);
    if (!(unscaled > 0))
      return rod_error_set(err, ROD_EINVAL, input, "rod-length",
                           "no frame among the first shows the whole rod, "
                           "so its length cannot set the scale");
    res->scale = o->rod_length / unscaled;
    for (int i = 0; i < d->frames; i++) {
      d->length[i] *= res->scale;
      for (size_t j = 0; j < K2; j++)
        d->xz[i * K2 + j] *= res->scale;
    }
  }
  double ref = o->rod_length > 0 ? o->rod_length : early_median(run, d->length);
  res->reference_length = isfinite(ref) ? ref : 0;
  const double tol = o->length_tolerance > 0 ? o->length_tolerance : 0.02;
  for (int i = 0; i < d->frames; i++) {
    if (res->reference_length > 0 && !(d->flags[i] & ROD_SHAPE_NO_ROD) &&
        fabs(d->length[i] - ref) > tol * ref)
      d->flags[i] |= ROD_SHAPE_LENGTH;
    d->valid[i] = d->flags[i] == 0;
    res->flagged += !d->valid[i];
    for (int r = 0; r < ROD_TRACK_REASONS; r++)
      res->flag_counts[r] += (d->flags[i] >> r) & 1;
  }
  if (!(res->tip = rod_shape_tip(d)))
    return rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  return ROD_OK;
}
