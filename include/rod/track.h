/* Rod-tip tracking in video frames (`rodsim track`, docs/files.md;
 * Till & Rucker 2017, Fig. 3).
 *
 * The rod is dark on a bright background. A pixel is dark when its
 * luminance is below the threshold: a given fraction of full scale, or
 * else Otsu's threshold computed for each frame separately, so that
 * flicker and drifting exposure over a high-speed sequence do not move the
 * rod's outline. The tip is the rightmost dark pixel, the topmost one when
 * several share that column, mapped to the world by the camera
 * (camera.h). */
#ifndef ROD_TRACK_H
#define ROD_TRACK_H

#include "rod/camera.h"
#include "rod/image.h"
#include "rod/status.h"
#include "rod/tipcsv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double fps; /* frames per second, > 0 */
  double t0;  /* s, time of the first frame */
  rod_camera camera;
  double threshold; /* dark below this fraction of full scale, in (0, 1);
                       0: Otsu's threshold of each frame */
} rod_track_options;

/* fps 0 and scale 0 (the caller must set them), origin (0, 0), t0 0, Otsu. */
rod_track_options rod_track_default(void);

/* ROD_EINVAL with err->key the option ("fps", "scale", "origin", "t0",
 * "threshold") when o is out of range. */
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

/* Track every frame of dir: sample i at t0 + i / fps with the tip's x and z
 * (m). Nothing is returned unless every frame succeeds; err names the
 * frame (or dir) that failed: ROD_EIO for an unreadable directory or file,
 * ROD_EINVAL for no PNG files, a non-PNG or corrupt frame, a frame whose
 * size differs from the first, or a frame with no dark pixel. */
int rod_track_dir(const char *dir, const rod_track_options *o,
                  rod_tip_data **out, rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
