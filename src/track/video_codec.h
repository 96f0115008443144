/* Inside the video module (video_module.h): the functions of its reader
 * (video_read.c) and writer (video_write.c) that its table (video_entry.c)
 * hands to librod; each does what rod/video.h says of the function of the
 * same name with rod_ in front. Hidden in the module: only the table is
 * exported. */
#ifndef ROD_TRACK_VIDEO_CODEC_H
#define ROD_TRACK_VIDEO_CODEC_H

#include "rod/video.h"

int video_open(const char *path, rod_video **out, rod_error *err);
const rod_video_info *video_get_info(const rod_video *v);
int video_read(rod_video *v, rod_image *img, double *t, bool *end,
               rod_error *err);
long video_frame_count(const rod_video *v);
void video_close(rod_video *v);

int video_writer_open(const char *path, const rod_video_writer_options *o,
                      rod_video_writer **out, rod_error *err);
int video_writer_add(rod_video_writer *w, const rod_image *img, double t,
                     rod_error *err);
int video_writer_close(rod_video_writer *w, rod_error *err);
const char *video_default_codec(void);

#endif
