/* rod/video.h in librod: the writer's defaults, and every other call
 * passed to the video module (video_module.h), which is opened here on
 * the first call that reads or writes a video, found as every module is
 * (core/module.h). Opened once, never closed. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "core/module.h"
#include "track/video_module.h"

static const rod_video_module *module;
static char why[3 * PATH_MAX]; /* why the module did not open */

static void load(void) {
  module = rod_module_open(ROD_VIDEO_MODULE_FILE, ROD_VIDEO_MODULE_SYMBOL,
                           ROD_VIDEO_MODULE_VERSION, sizeof *module, why,
                           sizeof why);
}

/* ROD_OK once the module is open, else ROD_EIO naming path and why. */
static int need_module(const char *path, rod_error *err) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, load);
  if (module)
    return ROD_OK;
  return rod_error_set(err, ROD_EIO, path, NULL,
                       "no video support: the video module (%s, built with "
                       "FFmpeg) does not load: %s",
                       ROD_VIDEO_MODULE_FILE, why);
}

int rod_video_open(const char *path, rod_video **out, rod_error *err) {
  *out = NULL;
  int st = need_module(path, err);
  return st == ROD_OK ? module->open(path, out, err) : st;
}

/* A video exists only once the module is open. */
const rod_video_info *rod_video_get_info(const rod_video *v) {
  return module->info(v);
}

int rod_video_read(rod_video *v, rod_image *img, double *t, bool *end,
                   rod_error *err) {
  return module->read(v, img, t, end, err);
}

long rod_video_frame_count(const rod_video *v) {
  return module->frame_count(v);
}

void rod_video_close(rod_video *v) {
  if (v)
    module->close(v);
}

rod_video_writer_options rod_video_writer_default(void) {
  return (rod_video_writer_options){
      .width = 640, .height = 480, .fps = 1000, .crf = -1};
}

int rod_video_writer_open(const char *path, const rod_video_writer_options *o,
                          rod_video_writer **out, rod_error *err) {
  *out = NULL;
  int st = need_module(path, err);
  return st == ROD_OK ? module->writer_open(path, o, out, err) : st;
}

int rod_video_writer_add(rod_video_writer *w, const rod_image *img, double t,
                         rod_error *err) {
  return module->writer_add(w, img, t, err);
}

int rod_video_writer_close(rod_video_writer *w, rod_error *err) {
  return w ? module->writer_close(w, err) : ROD_OK;
}

const char *rod_video_default_codec(void) {
  return need_module(NULL, NULL) == ROD_OK ? module->default_codec() : "";
}
