/* rod_track and rod_track_dir (track.h): the loop over the frames, the
 * rightmost rule per frame; the top of tracking, calling down into the
 * options and the tip pixel (track.c), the frame source, the background
 * and the centreline (track_shape.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "track/frame_source.h"
#include "track/track_internal.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* CPU seconds of the whole process, every thread's (user and system). */
static double cpu_now(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return NAN;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* ---- the rightmost rule ------------------------------------------------*/

int track_rightmost_frame(track_run *run, rod_image *img, double t,
                          const char *file, const char *key, rod_error *err) {
  const rod_track_options *o = run->o;
  if (o->polarity == ROD_POLARITY_BRIGHT) /* the rule looks for dark */
    for (size_t p = 0, n = (size_t)img->width * (size_t)img->height; p < n; p++)
      img->lum[p] = 1.0f - img->lum[p];
  double thr = o->threshold > 0
                   ? (o->polarity == ROD_POLARITY_BRIGHT ? 1.0 - o->threshold
                                                         : o->threshold)
                   : rod_track_otsu(img);
  int px, py;
  if (rod_track_tip_pixel(img, thr, &px, &py) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, file, key,
                         "no dark pixel (threshold %.3g of full scale)", thr);
  if (run->samples == run->capacity) {
    long cap = run->capacity ? 2 * run->capacity : 1024;
    double *tt = realloc(run->t, (size_t)cap * sizeof *tt);
    if (tt)
      run->t = tt;
    double *xz = realloc(run->xz, 2 * (size_t)cap * sizeof *xz);
    if (xz)
      run->xz = xz;
    unsigned char *edge = realloc(run->edge, (size_t)cap);
    if (edge)
      run->edge = edge;
    if (!tt || !xz || !edge)
      return rod_error_set(err, ROD_ENOMEM, file, NULL, "out of memory");
    run->capacity = cap;
  }
  /* a tip pixel on the border: the rod may go on outside the image, and
   * the rule cannot see how far */
  run->edge[run->samples] =
      px == img->width - 1 || py == 0 || py == img->height - 1;
  double *xz = run->xz + 2 * run->samples;
  if (rod_camera_model_to_world(&run->camera, px, py, &xz[0], &xz[1]) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, file, key,
                         "the camera cannot map the tip pixel (%d, %d)", px,
                         py);
  run->t[run->samples++] = t;
  return ROD_OK;
}

static int rightmost_finish(track_run *run, rod_error *err) {
  rod_tip_data *d = rod_tip_data_alloc((int)run->samples);
  if (!d)
    return rod_error_set(err, ROD_ENOMEM, NULL, NULL, "out of memory");
  for (long i = 0; i < run->samples; i++) {
    d->t[i] = run->t[i];
    d->xyz[3 * i] = run->xz[2 * i];
    d->xyz[3 * i + 2] = run->xz[2 * i + 1];
    d->valid[i] = !run->edge[i];
    run->res->flagged += run->edge[i];
  }
  d->has[0] = d->has[2] = true;
  /* the valid column only when a frame is flagged: t,x,z otherwise */
  d->has_valid = run->res->flagged > 0;
  run->res->flag_counts[1] = run->res->flagged; /* the border's reason */
  run->res->tip = d;
  return ROD_OK;
}

/* ---- the loop ----------------------------------------------------------*/

void track_run_release(track_run *run) {
  rod_tracer_free(run->tracer);
  free(run->world);
  free(run->arc);
  free(run->traced);
  free(run->t);
  free(run->xz);
  free(run->edge);
}

void rod_track_result_free(rod_track_result *res) {
  if (!res)
    return;
  rod_tip_data_free(res->tip);
  rod_shape_free(res->shape);
  res->tip = NULL;
  res->shape = NULL;
}

static int camera_of(const rod_track_options *o, rod_camera_model *cam) {
  rod_camera ortho = o->camera;
  if (!(ortho.scale > 0))
    ortho.scale = 1.0; /* until the rod's length sets it */
  /* the clamp's pixel is where the image shows it; the orthographic
   * camera maps undistorted pixels, so its origin is the clamp's
   * undistorted pixel, and the clamp stays at the world origin */
  if (o->has_lens && !o->has_plane &&
      rod_lens_undistort(&o->lens, o->camera.origin_px, o->camera.origin_py,
                         &ortho.origin_px, &ortho.origin_py) != ROD_OK)
    return ROD_ENOCONV;
  *cam = rod_camera_model_from(ortho);
  cam->has_lens = o->has_lens;
  cam->lens = o->lens;
  return o->has_plane ? rod_camera_model_set_plane(cam, o->plane) : ROD_OK;
}

/* The time of frame i: the video's or i / fps after t0. */
static double frame_time(const rod_track_options *o, long i, double video_t) {
  return o->t0 + (o->timestamps ? video_t : (double)i / o->fps);
}

static int run_frames(track_run *run, frame_source *src, const char *input,
                      const rod_image *bg, rod_error *err) {
  const rod_track_options *o = run->o;
  rod_image *img = rod_image_alloc(0, 0);
  if (!img)
    return rod_error_set(err, ROD_ENOMEM, input, NULL, "out of memory");
  int st = ROD_OK;
  const long expected = frame_source_expected(src);
  for (long i = 0; st == ROD_OK; i++) {
    double vt;
    bool end;
    const double asked = now();
    st = frame_source_next(src, img, &vt, &end, err);
    const double got = now();
    run->res->decode_seconds += got - asked;
    if (st != ROD_OK || end)
      break;
    double t = frame_time(o, i, vt);
    if (run->res->method == ROD_TRACK_RIGHTMOST) {
      const char *file;
      char key[32];
      frame_source_where(src, &file, key, sizeof key);
      st = track_rightmost_frame(run, img, t, file, key, err);
    } else
      st = track_centreline_frame(run, img, bg, t, err);
    run->res->trace_seconds += now() - got;
    run->res->frames = i + 1;
    if (st == ROD_OK && o->progress)
      o->progress(i + 1, expected, o->progress_user);
  }
  rod_image_free(img);
  return st;
}

int rod_track(const char *input, const rod_track_options *o,
              rod_track_result *res, rod_error *err) {
  const double start = now(), cpu_start = cpu_now();
  memset(res, 0, sizeof *res);
  int st = rod_track_check(o, err);
  if (st != ROD_OK)
    return st;
  frame_source *src;
  if ((st = frame_source_open(input, &src, err)) != ROD_OK)
    return st;
  res->is_video = frame_source_is_video(src);
  if (res->is_video)
    res->video = *frame_source_video(src);
  res->method = o->method != ROD_TRACK_AUTO ? o->method
                : res->is_video             ? ROD_TRACK_CENTRELINE
                                            : ROD_TRACK_RIGHTMOST;
  track_run run = {.o = o, .res = res};
  rod_image *bg = NULL;
  if (o->timestamps && !frame_source_has_times(src))
    st = rod_error_set(err, ROD_EINVAL, input, "fps",
                       "no frame times in this input (PNG frames, an image "
                       "sequence or a raw stream): give the frame rate");
  else if ((st = camera_of(o, &run.camera)) != ROD_OK)
    st = st == ROD_ENOCONV
             ? rod_error_set(err, ROD_EINVAL, NULL, "origin",
                             "the lens does not undistort the clamp's pixel")
             : rod_error_set(err, ROD_EINVAL, NULL, "plane",
                             "the homography is singular");
  if (st == ROD_OK && res->method == ROD_TRACK_CENTRELINE) {
    const double before = now();
    st = rod_track_background(input, o, &bg, err);
    res->decode_seconds += now() - before;
  }
  if (st == ROD_OK)
    st = run_frames(&run, src, input, bg, err);
  frame_source_close(src);
  if (st == ROD_OK)
    st = res->method == ROD_TRACK_RIGHTMOST
             ? rightmost_finish(&run, err)
             : track_centreline_finish(&run, input, err);
  track_run_release(&run);
  rod_image_free(bg);
  res->seconds = now() - start;
  res->cpu_seconds = cpu_now() - cpu_start;
  if (st != ROD_OK)
    rod_track_result_free(res);
  return st;
}

int rod_track_dir(const char *dir, const rod_track_options *o,
                  rod_tip_data **out, rod_error *err) {
  *out = NULL;
  rod_track_options rightmost = *o;
  rightmost.method = ROD_TRACK_RIGHTMOST;
  rightmost.timestamps = false;
  rod_track_result res;
  int st = rod_track(dir, &rightmost, &res, err);
  if (st != ROD_OK)
    return st;
  *out = res.tip;
  res.tip = NULL;
  rod_track_result_free(&res);
  return ROD_OK;
}
