/* Frames from a directory of PNG files or a video (frame_source.h). */
#include "track/frame_source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rod/track.h"

struct frame_source {
  const char *path;
  char **paths; /* PNG files, or NULL for a video */
  int count, next;
  rod_video *video;
};

/* A directory, or a missing path that looks like one (no extension, or a
 * trailing slash), which the directory listing then reports as missing. */
static bool is_directory(const char *path) {
  struct stat sb;
  if (stat(path, &sb) == 0)
    return S_ISDIR(sb.st_mode);
  size_t n = strlen(path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return n == 0 || path[n - 1] == '/' || !strchr(base, '.');
}

int frame_source_open(const char *path, frame_source **out, rod_error *err) {
  *out = NULL;
  frame_source *s = calloc(1, sizeof *s);
  if (!s)
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  s->path = path;
  int st;
  if (is_directory(path)) {
    st = rod_frame_list(path, &s->paths, &s->count, err);
    if (st == ROD_OK && s->count == 0)
      st = rod_error_set(err, ROD_EINVAL, path, NULL, "no *.png files");
  } else {
    st = rod_video_open(path, &s->video, err);
  }
  if (st != ROD_OK) {
    frame_source_close(s);
    return st;
  }
  *out = s;
  return ROD_OK;
}

int frame_source_next(frame_source *s, rod_image *img, double *t, bool *end,
                      rod_error *err) {
  if (s->video)
    return rod_video_read(s->video, img, t, end, err);
  *t = NAN;
  *end = s->next >= s->count;
  if (*end)
    return ROD_OK;
  return rod_image_read_png(img, s->paths[s->next++], err);
}

void frame_source_where(const frame_source *s, const char **file, char *key,
                        size_t size) {
  if (s->video) {
    *file = s->path;
    snprintf(key, size, "frame %ld", rod_video_frame_count(s->video) - 1);
  } else {
    *file = s->next > 0 ? s->paths[s->next - 1] : s->path;
    if (size)
      key[0] = '\0';
  }
}

long frame_source_expected(const frame_source *s) {
  if (!s->video)
    return s->count;
  /* a container without a frame count (Matroska): its duration at its
   * mean rate */
  const rod_video_info *in = rod_video_get_info(s->video);
  if (in->frames > 0)
    return in->frames;
  double n = in->duration * in->fps;
  return n >= 1 && n < 1e15 ? (long)llround(n) : -1;
}

bool frame_source_is_video(const frame_source *s) { return s->video; }

bool frame_source_has_times(const frame_source *s) {
  return s->video && rod_video_get_info(s->video)->timestamps;
}

const rod_video_info *frame_source_video(const frame_source *s) {
  return s->video ? rod_video_get_info(s->video) : NULL;
}

void frame_source_close(frame_source *s) {
  if (!s)
    return;
  rod_frame_list_free(s->paths, s->count);
  rod_video_close(s->video);
  free(s);
}
