/* The video module's table: FFmpeg's side of rod/video.h is built as a
 * module of its own (rod_video.so: av_log.c, video_read.c, video_write.c,
 * video_entry.c) that librod opens at run time (video.c) on the first
 * call that reads or writes a video, so that a program that touches no
 * video (every command but `track` and `render` of a video, the Python
 * module) loads none of FFmpeg's libraries. The module exports one
 * symbol, this table; librod and the module are built together, and the
 * table's version and size tell a module of another build. */
#ifndef ROD_TRACK_VIDEO_MODULE_H
#define ROD_TRACK_VIDEO_MODULE_H

#include "rod/video.h"

/* the module's file name, and its one exported symbol */
#define ROD_VIDEO_MODULE_FILE "rod_video.so"
#define ROD_VIDEO_MODULE_SYMBOL "rod_video_module_table"
/* raised whenever a member below changes */
#define ROD_VIDEO_MODULE_VERSION 1

typedef struct {
  /* rod_module_head (core/module.h): ROD_VIDEO_MODULE_VERSION, sizeof
   * (rod_video_module), ROD_VERSION of the build */
  int version;
  unsigned size;
  const char *library_version;
  int (*open)(const char *path, rod_video **out, rod_error *err);
  const rod_video_info *(*info)(const rod_video *v);
  int (*read)(rod_video *v, rod_image *img, double *t, bool *end,
              rod_error *err);
  long (*frame_count)(const rod_video *v);
  void (*close)(rod_video *v);
  int (*writer_open)(const char *path, const rod_video_writer_options *o,
                     rod_video_writer **out, rod_error *err);
  int (*writer_add)(rod_video_writer *w, const rod_image *img, double t,
                    rod_error *err);
  int (*writer_close)(rod_video_writer *w, rod_error *err);
  const char *(*default_codec)(void);
} rod_video_module;

#endif
