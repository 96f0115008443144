/* A run's rod positions from its HDF5 file (runfile.h). */
#include "io/runfile.h"

#include "io/h5read.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dataset of doubles, every one finite. */
static int read_doubles(hid_t f, const char *path, const char *name, int rank,
                        hsize_t rows, hsize_t *dims, double **out,
                        rod_error *err) {
  int st = rod_h5_read_rows(f, path, name, H5T_NATIVE_DOUBLE, sizeof **out,
                            rank, rows, dims, (void **)out, err);
  size_t count = 1;
  for (int k = 0; st == ROD_OK && k < rank; k++)
    count *= (size_t)dims[k];
  for (size_t i = 0; st == ROD_OK && i < count; i++)
    if (!isfinite((*out)[i]))
      st = rod_error_set(err, ROD_EINVAL, path, name + 1,
                         "value %zu is not finite", i);
  if (st != ROD_OK) {
    free(*out);
    *out = NULL;
  }
  return st;
}

int rod_run_positions_read(const char *path, rod_run_positions **out,
                           rod_error *err) {
  *out = NULL;
  hid_t f;
  int st0 = rod_h5_open(path, &f, err);
  if (st0 != ROD_OK)
    return st0;
  rod_run_positions *r = calloc(1, sizeof *r);
  hsize_t dt[1] = {0}, dp[3] = {0, 0, 0}, whole = 0;
  int st = r ? rod_h5_samples(f, path, &whole, err)
             : rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  if (st == ROD_OK)
    st = read_doubles(f, path, "/time", 1, whole, dt, &r->t, err);
  if (st == ROD_OK)
    st =
        read_doubles(f, path, "/rod/position", 3, whole, dp, &r->position, err);
  if (st == ROD_OK && (dp[0] != dt[0] || dp[2] != 3 || dp[1] < 2))
    st = rod_error_set(err, ROD_EINVAL, path, "rod/position",
                       "shape %llux%llux%llu does not fit %llu samples of "
                       "points in 3D",
                       (unsigned long long)dp[0], (unsigned long long)dp[1],
                       (unsigned long long)dp[2], (unsigned long long)dt[0]);
  if (st == ROD_OK) {
    r->samples = (int)dt[0];
    r->points = (int)dp[1];
    for (int i = 1; i < r->samples && st == ROD_OK; i++)
      if (!(r->t[i] > r->t[i - 1]))
        st = rod_error_set(err, ROD_EINVAL, path, "time",
                           "sample %d is not after the previous", i);
  }
  H5Fclose(f);
  if (st != ROD_OK) {
    rod_run_positions_free(r);
    return st;
  }
  *out = r;
  return ROD_OK;
}

void rod_run_positions_free(rod_run_positions *r) {
  if (!r)
    return;
  free(r->t);
  free(r->position);
  free(r);
}
