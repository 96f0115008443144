/* Frames of a recorded video, decoded by FFmpeg's libraries (libavformat,
 * libavcodec, libswscale): any container and codec they read (mp4, avi,
 * mkv, mov; H.264, MJPEG, FFV1, raw ...) and image sequences given as a
 * printf pattern (frames/img%04d.png).
 *
 * Each frame becomes a luminance image (image.h): Rec. 709 luma, like PNG
 * frames. YUV video gives its luma plane, mapped from the stream's range
 * (limited, 16-235 at 8 bits, unless the stream says full) to [0, 1], plus
 * its chroma weighted to turn the stream's matrix (BT.601, BT.2020, ...,
 * by its tag; untagged: BT.601 below 1280x720, BT.709 from there) into
 * Rec. 709's; gray video its plane; RGB and palette frames go through
 * libswscale. Frame times come
 * from the container's timestamps, relative to the first frame, so a
 * variable frame rate is kept.
 *
 * Hostile files are refused, never guessed at: a file FFmpeg cannot parse,
 * a stream without video, a frame the decoder flags as corrupt, a frame of
 * zero size or of another size than the first, timestamps that do not
 * increase, a file that ends before the frame count its container
 * declares. Only local files are read (no network protocols). The library
 * never prints: FFmpeg's own log lines are kept for the error message.
 *
 * FFmpeg's code is a module of its own (rod_video.so, installed in
 * LIBDIR/rodsim/), which librod opens on the first call that opens a
 * video for reading or writing: a program that reads and writes no video
 * loads none of FFmpeg's libraries. Without the module those calls return
 * ROD_EIO, err saying why it did not load. */
#ifndef ROD_VIDEO_H
#define ROD_VIDEO_H

#include <stdbool.h>

#include "rod/image.h"
#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rod_video rod_video;

typedef struct {
  int width, height; /* pixels */
  double fps;        /* the container's average frame rate, else the base
                        rate of the first frames' times; 0: unknown */
  long frames;       /* frames the container declares; -1: unknown */
  double duration;   /* s the container declares (its header, not a guess
                        from the bit rate); 0: unknown */
  bool timestamps;   /* frames carry real times (not an image sequence or
                        a raw stream, whose times FFmpeg invents) */
  char format[32];   /* demuxer, e.g. "mov,mp4,m4a,3gp,3g2,mj2" */
  char codec[32];    /* decoder, e.g. "h264" */
  char pixel_format[32];
} rod_video_info;

/* Open path and its best video stream. ROD_EIO if the file cannot be
 * read, ROD_EINVAL if it is not a video FFmpeg can decode; err names
 * path. */
int rod_video_open(const char *path, rod_video **out, rod_error *err);

const rod_video_info *rod_video_get_info(const rod_video *v);

/* Decode the next frame into img: an empty image (rod_image_alloc(0, 0))
 * takes the video's size, otherwise it must have it. *t is the frame's
 * time in s since the first frame (NAN when the stream has none); *end is
 * set, and nothing read, after the last frame. Errors (ROD_EINVAL, or
 * ROD_ENOMEM) name the file and the frame: err = {path, "frame N", what}
 * with N counted from 0. */
int rod_video_read(rod_video *v, rod_image *img, double *t, bool *end,
                   rod_error *err);

/* Frames decoded so far. */
long rod_video_frame_count(const rod_video *v);

void rod_video_close(rod_video *v);

/* ---- writing ------------------------------------------------------------
 * Luminance frames into a video file (`rodsim render`, tests): the
 * container from the file name's extension, gray stored as the luma of
 * 8-bit YUV 4:2:0 (limited range, Rec. 709 tags) or as 8-bit gray where the
 * codec takes no YUV. */

typedef struct rod_video_writer rod_video_writer;

typedef struct {
  int width, height; /* pixels, even for YUV 4:2:0 codecs */
  double fps;        /* nominal frame rate, > 0 */
  int timescale;     /* timestamp ticks per second; 0: fps when it is a
                        whole number, else 1000000 */
  char codec[32];    /* encoder name; "": libx264 when FFmpeg has it, else
                        mpeg4 */
  int crf;           /* libx264's constant rate factor, 0 (lossless) to 51;
                        < 0: 18 (visually lossless) */
} rod_video_writer_options;

/* 640 x 480 at 1000 fps, libx264 (or mpeg4), crf 18. */
rod_video_writer_options rod_video_writer_default(void);

/* ROD_EINVAL (err names path) for a bad size, rate, codec or extension;
 * ROD_EIO if the file cannot be created. */
int rod_video_writer_open(const char *path, const rod_video_writer_options *o,
                          rod_video_writer **out, rod_error *err);

/* Encode img (the writer's size; luminance clamped to [0, 1]) as the frame
 * at t s; times must increase by at least one tick. */
int rod_video_writer_add(rod_video_writer *w, const rod_image *img, double t,
                         rod_error *err);

/* Flush the encoder, finish the file and free w (also after an error;
 * NULL is a no-op). ROD_EIO on a write error. */
int rod_video_writer_close(rod_video_writer *w, rod_error *err);

/* The encoder's name that "" selects ("" without the video module). */
const char *rod_video_default_codec(void);

#ifdef __cplusplus
}
#endif

#endif
