/* Where frames come from: a directory of PNG files (in byte-wise name
 * order, as `rodsim track` always took them) or anything FFmpeg reads (a
 * video file, an image-sequence pattern). */
#ifndef ROD_TRACK_FRAME_SOURCE_H
#define ROD_TRACK_FRAME_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "rod/image.h"
#include "rod/video.h"

typedef struct frame_source frame_source;

/* A directory opens its PNG list (ROD_EINVAL "no *.png files" if empty,
 * ROD_EIO if unreadable); any other path opens as a video. */
int frame_source_open(const char *path, frame_source **out, rod_error *err);

/* The next frame into img (an empty image takes the first frame's size);
 * *t the video's time of the frame (s since the first; NAN without one);
 * *end after the last frame. Errors name the frame (its file, or the
 * video and "frame N"). */
int frame_source_next(frame_source *s, rod_image *img, double *t, bool *end,
                      rod_error *err);

/* Where the last frame read came from, for messages: its file (the PNG,
 * or the video) and key ("frame N" for a video, "" for a PNG). */
void frame_source_where(const frame_source *s, const char **file, char *key,
                        size_t size);

/* Frames expected in all: the count the file declares, else its declared
 * duration times its mean rate (Matroska); -1: unknown. */
long frame_source_expected(const frame_source *s);

/* A video (not a directory), and whether its frames carry real times. */
bool frame_source_is_video(const frame_source *s);
bool frame_source_has_times(const frame_source *s);

/* The video's description (NULL for a directory). */
const rod_video_info *frame_source_video(const frame_source *s);

void frame_source_close(frame_source *s);

#endif
