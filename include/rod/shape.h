/* A rod's shape over time as measured from video (`rodsim track --shape`,
 * the input of `rodsim calibrate --data`; docs/files.md).
 *
 * The HDF5 shape file, T frames of K points:
 *   /time    (T) float64       s, frame times (time since release)
 *   /shape   (T, K, 2) float64 m, world x and z of K points at equal
 *                              arclength along the traced centreline,
 *                              point 0 at the clamp, point K-1 the tip
 *   /valid   (T) int8          1, or 0 for a frame the tracker flagged
 *   /flags   (T) int8          why (bits): 1 no rod at the clamp, 2 the rod
 *                              runs into the image's border, 4 the traced
 *                              length is off, 8 a point the camera cannot
 *                              map to the plane
 *   /pixels  (T, K, 2) float64 px, the same points in the frame (column,
 *                              row)
 *   /length  (T) float64       m, the traced length
 * and root attributes rodsim_version, source (the video) and camera (how
 * pixels became metres). Every value is finite: a frame in which nothing
 * was traced holds the clamp's point K times, flagged. */
#ifndef ROD_SHAPE_H
#define ROD_SHAPE_H

#include <stdbool.h>

#include "rod/status.h"
#include "rod/tipcsv.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  ROD_SHAPE_NO_ROD = 1, /* the flags of /flags */
  ROD_SHAPE_EDGE = 2,
  ROD_SHAPE_LENGTH = 4,
  ROD_SHAPE_CAMERA = 8
};

typedef struct {
  int frames, points;           /* T, K */
  int capacity;                 /* frames allocated */
  double *t;                    /* (T) s */
  double *xz;                   /* (T x K x 2) m */
  double *pixels;               /* (T x K x 2) px */
  double *length;               /* (T) m */
  unsigned char *valid, *flags; /* (T) */
} rod_shape_data;

/* No frames yet, room for `capacity`, K = points >= 2. NULL if out of
 * memory or points < 2. */
rod_shape_data *rod_shape_alloc(int points, int capacity);
void rod_shape_free(rod_shape_data *d);

/* Add a frame (zeroed, valid) and return its index; -1 if out of memory. */
int rod_shape_append(rod_shape_data *d);

/* The tip trajectory of d: t, x, z of point K-1 and the valid flags. NULL
 * if out of memory. */
rod_tip_data *rod_shape_tip(const rod_shape_data *d);

/* Write d to path (replacing it). source and camera (may be NULL) become
 * attributes. ROD_EIO if the file cannot be written; ROD_EINVAL (nothing
 * written) for times that do not increase or a value that is not
 * finite. */
int rod_shape_write(const char *path, const rod_shape_data *d,
                    const char *source, const char *camera, rod_error *err);

/* Read a shape file. ROD_EIO if it cannot be opened; ROD_EINVAL if it is
 * not a shape file (a dataset missing or of the wrong type or shape,
 * times that do not increase, a value that is not finite, a valid flag
 * other than 0 or 1), err naming the file and the dataset. */
int rod_shape_read(const char *path, rod_shape_data **out, rod_error *err);

/* True when path starts with the HDF5 signature. */
bool rod_shape_is_hdf5(const char *path);

#ifdef __cplusplus
}
#endif

#endif
