/* Rod tracking in video (`rodsim track`, docs/tracking.md; Till & Rucker
 * 2017, Fig. 3): frames from a directory of PNG files or a video file
 * (video.h), two ways of measuring the rod, and the camera (camera.h)
 * that turns pixels into metres.
 *
 * The rightmost rule (the tip CSV of a PNG directory, as it always was):
 * a pixel is dark when its luminance is below the threshold, a given
 * fraction of full scale or else Otsu's threshold of each frame; the tip
 * is the rightmost dark pixel, the topmost one when several share that
 * column. It assumes a rod pointing right whose tip stays in view.
 *
 * The centreline (the default for video files): the rod traced from the
 * clamp (trace.h) in any orientation, resampled to K points at equal
 * arclength in the world plane, point K-1 the tip. A frame is flagged (not
 * valid) when nothing is found at the clamp, the rod runs into the image's
 * border, a traced point cannot be mapped by the camera, or the traced
 * length differs from the rod's by more than the tolerance (occlusion, a
 * lost trace); the flagged frames are kept, marked, and counted. */
#ifndef ROD_TRACK_H
#define ROD_TRACK_H

#include "rod/camera.h"
#include "rod/image.h"
#include "rod/shape.h"
#include "rod/status.h"
#include "rod/tipcsv.h"
#include "rod/trace.h"
#include "rod/video.h"

typedef enum {
  ROD_TRACK_AUTO = 0,  /* rightmost for a PNG directory, else centreline */
  ROD_TRACK_RIGHTMOST, /* the rightmost dark pixel */
  ROD_TRACK_CENTRELINE /* the centreline from the clamp */
} rod_track_method;

typedef enum {
  ROD_BACKGROUND_NONE = 0,
  ROD_BACKGROUND_FRAME,  /* frame background_frame of the input */
  ROD_BACKGROUND_MEDIAN, /* the median of frames spread over the input,
                            the rod's thin still parts closed over */
  ROD_BACKGROUND_IMAGE   /* the PNG file background_path */
} rod_background_kind;

/* Called after every frame: frames done, frames expected (-1: unknown;
 * for a container that declares only its duration, the duration times the
 * mean rate, which done may pass). */
typedef void (*rod_track_progress_fn)(long done, long expected, void *user);

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double fps;        /* frames per second, > 0 (unless timestamps) */
  double t0;         /* s, time of the first frame */
  bool timestamps;   /* a video's own frame times (fps ignored) */
  rod_camera camera; /* origin: the clamp's pixel as the image shows it
                        (and the world origin of an orthographic camera,
                        through the lens if there is one); scale 0 when a
                        plane or the rod's length gives it */
  double threshold;  /* dark below this fraction of full scale, in (0, 1);
                        0: Otsu's threshold of each frame (rightmost), half
                        the measured contrast (centreline) */
  rod_track_method method;
  bool has_lens;
  rod_lens lens;
  bool has_plane;
  double plane[9];     /* pixels (undistorted) to world x, z (camera.h) */
  double direction[2]; /* the rod's direction at the clamp, image axes;
                          (0, 0): found in the first frame */
  rod_polarity polarity;
  rod_background_kind background;
  long background_frame;
  const char *background_path;
  int points;              /* K; 0: 50 */
  double rod_length;       /* m, the rod's length in view; 0: unknown (the
                              first frames' median is the reference) */
  double length_tolerance; /* relative; 0: 0.02 */
  rod_track_progress_fn progress; /* may be NULL */
  void *progress_user;
} rod_track_options;

/* fps 0 and scale 0 (the caller must set them), origin (0, 0), t0 0, Otsu,
 * method auto, no lens, plane or background, a dark rod, 50 points, 2 %
 * length tolerance. */
rod_track_options rod_track_default(void);

/* ROD_EINVAL with err->key the option ("fps", "scale", "origin", "t0",
 * "threshold", "direction", "points", "rod-length", "length-tolerance",
 * "background") when o is out of range. */
int rod_track_check(const rod_track_options *o, rod_error *err);

/* Otsu's threshold of img (fraction of full scale): the level that
 * maximises the between-class variance of a 256-bin luminance histogram;
 * the middle of the plateau when several levels tie. 0 (nothing is dark)
 * when the image has a single level. */
double rod_track_otsu(const rod_image *img);

/* The tip pixel: the rightmost pixel with luminance < threshold, the
 * topmost of those in that column. ROD_EINVAL if no pixel is dark. */
int rod_track_tip_pixel(const rod_image *img, double threshold, int *px,
                        int *py);

/* The paths dir/NAME of the frames in dir, in byte-wise order of NAME:
 * every NAME ending in .png (any case) that is not a dot file or a
 * directory, as the shell's *.png would match. ROD_EIO if dir cannot be
 * read; an empty list is not an error here. Free with
 * rod_frame_list_free. */
int rod_frame_list(const char *dir, char ***paths, int *n, rod_error *err);
void rod_frame_list_free(char **paths, int n);

/* Track every frame of dir by the rightmost rule: sample i at t0 + i /
 * fps with the tip's x and z (m). Nothing is returned unless every frame
 * succeeds; err names the frame (or dir) that failed: ROD_EIO for an
 * unreadable directory or file, ROD_EINVAL for no PNG files, a non-PNG or
 * corrupt frame, a frame whose size differs from the first, or a frame
 * with no dark pixel. */
int rod_track_dir(const char *dir, const rod_track_options *o,
                  rod_tip_data **out, rod_error *err);

/* Bits of rod_track_result.flag_counts' index: the ROD_SHAPE_* reasons. */
enum { ROD_TRACK_REASONS = 4 };

typedef struct {
  rod_track_method method; /* the one used (never auto) */
  rod_tip_data *tip;       /* t, x, z; with valid for the centreline, and
                              for the rightmost rule when a frame's tip
                              pixel lies on the image's border */
  rod_shape_data *shape;   /* the centreline's; NULL for rightmost */
  long frames;
  long flagged;                        /* frames not valid */
  long flag_counts[ROD_TRACK_REASONS]; /* by reason: no rod, border,
                                          length, camera */
  double scale;            /* m/px of an orthographic camera (given or from
                              the rod's length); 0 with a plane */
  double reference_length; /* m, what lengths were checked against; 0:
                              none could be measured */
  double rod_width;        /* px, the rod's apparent width (centreline) */
  double seconds;          /* wall time of decoding and tracking */
  double decode_seconds;   /* of it, waiting for frames (decoding, the
                              luma, a median background's first pass) */
  double trace_seconds;    /* of it, tracking the frames */
  double cpu_seconds;      /* CPU time of the process over the same span,
                              all threads (the decoder's too) */
  bool is_video;
  rod_video_info video; /* when is_video */
} rod_track_result;

/* Track every frame of input (a PNG directory or a video). Sample i is at
 * t0 + i / fps, or t0 plus the video's time of the frame. ROD_OK with
 * flagged frames counted in res; errors as rod_track_dir's, and for
 * videos those of rod_video_read; ROD_EINVAL (key "fps") for a source
 * without frame times when o->timestamps is set, (key "background") for a
 * background that cannot be made. Free res with rod_track_result_free. */
int rod_track(const char *input, const rod_track_options *o,
              rod_track_result *res, rod_error *err);
void rod_track_result_free(rod_track_result *res);

/* The background image of o's kind for input (track.c's use; exposed for
 * tests): NULL *out for ROD_BACKGROUND_NONE. */
int rod_track_background(const char *input, const rod_track_options *o,
                         rod_image **out, rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
