/* Reading a dataset of an HDF5 file that a user brought (shape files, run
 * files): every check a hostile file needs before its data is trusted. */
#ifndef ROD_IO_H5READ_H
#define ROD_IO_H5READ_H

#include <hdf5.h>
#include <stddef.h>

#include "rod/status.h"

/* Dataset name ("/group/set") of f into a new buffer (*out, free() it) of
 * native type `type` (elem bytes each: H5T_NATIVE_DOUBLE accepts float and
 * integer data, an integer type integer data). It must have `rank`
 * dimensions, each from 1 to 2^28, and those of dims that are not 0 on
 * entry; dims gets them all (rank 0: a scalar). ROD_EINVAL with err = {path,
 * the dataset's name, what is wrong}, ROD_ENOMEM. Rank 0: a scalar. */
int rod_h5_read(hid_t f, const char *path, const char *name, hid_t type,
                size_t elem, int rank, hsize_t *dims, void **out,
                rod_error *err);

/* rod_h5_read of the first `rows` along the first dimension only (all of
 * it when rows is 0); an extent shorter than rows is an error. */
int rod_h5_read_rows(hid_t f, const char *path, const char *name, hid_t type,
                     size_t elem, int rank, hsize_t rows, hsize_t *dims,
                     void **out, rod_error *err);

/* rod_h5_read_rows of rows first .. first + rows - 1 along the first
 * dimension (rows > 0, rank > 0). */
int rod_h5_read_block(hid_t f, const char *path, const char *name, hid_t type,
                      size_t elem, int rank, hsize_t first, hsize_t rows,
                      hsize_t *dims, void **out, rod_error *err);

/* The whole samples of a run's file, its dataset /samples (a run killed
 * during a flush may leave datasets extended past their data): *n = 0
 * when the file has none (then every sample of the extents is whole);
 * ROD_EINVAL when it is not a count from 1 to 2^28. */
int rod_h5_samples(hid_t f, const char *path, hsize_t *n, rod_error *err);

/* Open path read-only, HDF5's own error printing off: ROD_EIO if the file
 * cannot be opened at all, ROD_EINVAL if it is not HDF5. */
int rod_h5_open(const char *path, hid_t *f, rod_error *err);

#endif
