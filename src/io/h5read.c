/* Checked reads from users' HDF5 files (h5read.h). */
#include "io/h5read.h"

#include "io/datafile.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rod_h5_open(const char *path, hid_t *f, rod_error *err) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  int probe; /* a regular file: H5Fopen would wait on a FIFO */
  int st = rod_datafile_open(path, false, 0, &probe, err);
  if (st != ROD_OK)
    return st;
  close(probe);
  *f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*f < 0)
    return rod_error_set(err, ROD_EINVAL, path, NULL, "not an HDF5 file");
  return ROD_OK;
}

/* Every group on the way to name exists (H5Lexists needs that). */
static bool exists(hid_t f, const char *name) {
  char part[256];
  for (const char *s = strchr(name + 1, '/');; s = strchr(s + 1, '/')) {
    size_t n = s ? (size_t)(s - name) : strlen(name);
    if (n >= sizeof part)
      return false;
    memcpy(part, name, n);
    part[n] = '\0';
    if (H5Lexists(f, part, H5P_DEFAULT) <= 0)
      return false;
    if (!s)
      return true;
  }
}

static int check_dims(hid_t space, const char *path, const char *key, int rank,
                      hsize_t first, hsize_t rows, hsize_t *dims, size_t *count,
                      rod_error *err) {
  hsize_t got[8] = {0};
  H5Sget_simple_extent_dims(space, got, NULL);
  if (first + rows > got[0])
    return rod_error_set(
        err, ROD_EINVAL, path, key, "holds %llu samples, the file says %llu",
        (unsigned long long)got[0], (unsigned long long)(first + rows));
  got[0] = rows ? rows : got[0] - first;
  *count = 1;
  for (int k = 0; k < rank; k++) {
    if (dims[k] && got[k] != dims[k])
      return rod_error_set(
          err, ROD_EINVAL, path, key, "dimension %d is %llu, expected %llu",
          k + 1, (unsigned long long)got[k], (unsigned long long)dims[k]);
    /* count * 8 bytes stays below SIZE_MAX */
    if (got[k] == 0 || got[k] > (1u << 28) || got[k] > (SIZE_MAX / 8) / *count)
      return rod_error_set(err, ROD_EINVAL, path, key, "dimension %d is %llu",
                           k + 1, (unsigned long long)got[k]);
    *count *= (size_t)got[k];
    dims[k] = got[k];
  }
  return ROD_OK;
}

int rod_h5_samples(hid_t f, const char *path, hsize_t *n, rod_error *err) {
  *n = 0;
  if (H5Lexists(f, "/samples", H5P_DEFAULT) <= 0)
    return ROD_OK;
  hsize_t dims[1] = {0};
  long long *v = NULL;
  int st = rod_h5_read_rows(f, path, "/samples", H5T_NATIVE_LLONG, sizeof *v, 0,
                            0, dims, (void **)&v, err);
  if (st == ROD_OK && (*v < 1 || *v > (1ll << 28)))
    st = rod_error_set(err, ROD_EINVAL, path, "samples",
                       "%lld is not a count of samples from 1 to 2^28", *v);
  if (st == ROD_OK)
    *n = (hsize_t)*v;
  free(v);
  return st;
}

/* Deflate's greatest compression ratio (zlib's technical details: 1032
 * to 1): a filtered chunk holds at most this many times its stored bytes. */
#define ROD_H5_MAX_RATIO 1032.0

/* Why the storage of dataset ds (dataspace `space`, all selected;
 * elements of tsize bytes, npoints of them
 * in its extent, `count` of them to be read: the first dims[k] along each
 * dimension) cannot be read safely, or NULL. libhdf5 1.10.8 trusts the
 * layout message: a contiguous or compact block smaller than the extent is
 * read past its end (H5D__select_read, H5VM_memcpyvv). Raw data in other files
 * (external, virtual) is not followed; chunks must have the dataset's rank and
 * a size, filters must be ones this libhdf5 has, and the chunks written must
 * hold what is read (as many chunks as the read touches, bytes enough
 * uncompressed): chunks never written read as the fill value, so a file of a
 * few kB could otherwise claim 2^28 values a dimension and make the reader (and
 * libhdf5's map of the chunks a read touches) take gigabytes. */
static const char *storage_problem(hid_t ds, hid_t space, size_t tsize,
                                   hssize_t npoints, size_t count, int rank,
                                   const hsize_t *dims) {
  hid_t dcpl = H5Dget_create_plist(ds);
  if (dcpl < 0)
    return "has no readable layout";
  const char *why = NULL;
  const H5D_layout_t layout = H5Pget_layout(dcpl);
  const double need = (double)tsize * (double)npoints;
  if (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT) {
    if (H5Pget_external_count(dcpl) != 0)
      why = "is stored in another file";
    else if ((double)H5Dget_storage_size(ds) < need)
      why = "stores fewer bytes than its extent needs";
  } else if (layout == H5D_CHUNKED) {
    hsize_t chunk[8] = {0};
    if (H5Pget_chunk(dcpl, 8, chunk) != rank)
      why = "has chunks of another rank";
    for (int k = 0; k < rank && !why; k++)
      if (chunk[k] == 0)
        why = "has empty chunks";
    const int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf && !why; i++) {
      unsigned flags = 0;
      size_t nv = 0;
      H5Z_filter_t id =
          H5Pget_filter2(dcpl, (unsigned)i, &flags, &nv, NULL, 0, NULL, NULL);
      if (id < 0 || H5Zfilter_avail(id) <= 0)
        why = "needs a filter this build lacks";
    }
    /* the chunks the read touches, against those written */
    double touched = 1;
    for (int k = 0; k < rank && !why; k++)
      touched *= (double)((dims[k] + chunk[k] - 1) / chunk[k]);
    hsize_t written = 0;
    const double stored = (double)H5Dget_storage_size(ds);
    if (!why && (H5Dget_num_chunks(ds, space, &written) < 0 ||
                 (double)written < touched ||
                 stored * (nf > 0 ? ROD_H5_MAX_RATIO : 1.0) <
                     (double)tsize * (double)count))
      why = "has chunks never written where it is read";
  } else
    why = "has a layout other than contiguous, compact or chunked";
  H5Pclose(dcpl);
  return why;
}

int rod_h5_read(hid_t f, const char *path, const char *name, hid_t type,
                size_t elem, int rank, hsize_t *dims, void **out,
                rod_error *err) {
  return rod_h5_read_rows(f, path, name, type, elem, rank, 0, dims, out, err);
}

int rod_h5_read_rows(hid_t f, const char *path, const char *name, hid_t type,
                     size_t elem, int rank, hsize_t rows, hsize_t *dims,
                     void **out, rod_error *err) {
  return rod_h5_read_block(f, path, name, type, elem, rank, 0, rows, dims, out,
                           err);
}

int rod_h5_read_block(hid_t f, const char *path, const char *name, hid_t type,
                      size_t elem, int rank, hsize_t first, hsize_t rows,
                      hsize_t *dims, void **out, rod_error *err) {
  *out = NULL;
  const char *key = name + 1;
  if (rank < 0 || rank > 8 || !exists(f, name))
    return rod_error_set(err, ROD_EINVAL, path, key, "missing");
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t space = ds < 0 ? -1 : H5Dget_space(ds);
  hid_t dtype = ds < 0 ? -1 : H5Dget_type(ds);
  H5T_class_t cls = dtype < 0 ? H5T_NO_CLASS : H5Tget_class(dtype);
  bool want_float = H5Tequal(type, H5T_NATIVE_DOUBLE) > 0;
  /* a type's size from the file, up to 8 bytes: a corrupt one (a
   * 4294967295-byte float) made H5Dread allocate 4 GB for conversion */
  const size_t tsize = dtype < 0 ? 0 : H5Tget_size(dtype);
  bool numeric = (cls == H5T_INTEGER || (want_float && cls == H5T_FLOAT)) &&
                 tsize >= 1 && tsize <= 8;
  int st = ROD_OK;
  size_t count = 0;
  if (space < 0 || H5Sget_simple_extent_ndims(space) != rank || !numeric)
    st = rod_error_set(err, ROD_EINVAL, path, key,
                       "expected a %d-dimensional %s dataset", rank,
                       want_float ? "numeric" : "integer");
  if (st == ROD_OK)
    st = check_dims(space, path, key, rank, first, rows, dims, &count, err);
  const char *why = st == ROD_OK
                        ? storage_problem(ds, space, tsize,
                                          H5Sget_simple_extent_npoints(space),
                                          count, rank, dims)
                        : NULL;
  if (why)
    st = rod_error_set(err, ROD_EINVAL, path, key, "%s", why);
  if (st == ROD_OK && !(*out = malloc(count * elem)))
    st = rod_error_set(err, ROD_ENOMEM, path, key, "out of memory");
  /* dims[0] along the first dimension from first (all of it but when
   * rows is less than the extent) */
  hsize_t start[8] = {first};
  hid_t mem = st != ROD_OK ? -1
              : rank       ? H5Screate_simple(rank, dims, NULL)
                           : H5Screate(H5S_SCALAR);
  if (st == ROD_OK &&
      (mem < 0 ||
       (rank && H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, dims,
                                    NULL) < 0) ||
       H5Dread(ds, type, mem, space, H5P_DEFAULT, *out) < 0))
    st = rod_error_set(err, ROD_EINVAL, path, key, "unreadable");
  if (mem >= 0)
    H5Sclose(mem);
  if (dtype >= 0)
    H5Tclose(dtype);
  if (space >= 0)
    H5Sclose(space);
  if (ds >= 0)
    H5Dclose(ds);
  if (st != ROD_OK) {
    free(*out);
    *out = NULL;
  }
  return st;
}
