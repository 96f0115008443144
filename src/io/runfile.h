/* A run's rod positions read back from its HDF5 file (docs/hdf5.md), for
 * `rodsim render`. */
#ifndef ROD_IO_RUNFILE_H
#define ROD_IO_RUNFILE_H

#include "rod/status.h"

typedef struct {
  int samples, points; /* T, N */
  double *t;           /* (T) s */
  double *position;    /* (T x N x 3) m, world frame */
} rod_run_positions;

/* /time and /rod/position of path. ROD_EIO if it cannot be opened;
 * ROD_EINVAL if either is missing, of another shape, or not finite, or
 * the times do not increase; err names the file and the dataset. */
int rod_run_positions_read(const char *path, rod_run_positions **out,
                           rod_error *err);
void rod_run_positions_free(rod_run_positions *r);

#endif
