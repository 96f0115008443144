/* The shape file: container, HDF5 writer and reader (rod/shape.h). */
#include "rod/shape.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "io/datafile.h"
#include "io/h5attr.h"
#include "io/h5read.h"
#include "io/writers.h"

static bool grow(void **p, size_t count, size_t size) {
  void *q = realloc(*p, count * size);
  if (q)
    *p = q;
  return q != NULL;
}

/* Room for cap frames. */
static bool reserve(rod_shape_data *d, int cap) {
  size_t pts = 2 * (size_t)cap * (size_t)d->points;
  if (!grow((void **)&d->t, (size_t)cap, sizeof *d->t) ||
      !grow((void **)&d->xz, pts, sizeof *d->xz) ||
      !grow((void **)&d->pixels, pts, sizeof *d->pixels) ||
      !grow((void **)&d->length, (size_t)cap, sizeof *d->length) ||
      !grow((void **)&d->valid, (size_t)cap, 1) ||
      !grow((void **)&d->flags, (size_t)cap, 1))
    return false;
  d->capacity = cap;
  return true;
}

rod_shape_data *rod_shape_alloc(int points, int capacity) {
  if (points < 2 || capacity < 0)
    return NULL;
  rod_shape_data *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->points = points;
  if (!reserve(d, capacity > 0 ? capacity : 1)) {
    rod_shape_free(d);
    return NULL;
  }
  return d;
}

void rod_shape_free(rod_shape_data *d) {
  if (!d)
    return;
  free(d->t);
  free(d->xz);
  free(d->pixels);
  free(d->length);
  free(d->valid);
  free(d->flags);
  free(d);
}

int rod_shape_append(rod_shape_data *d) {
  if (d->frames == d->capacity && !reserve(d, 2 * d->capacity))
    return -1;
  int i = d->frames++;
  size_t k = 2 * (size_t)d->points;
  d->t[i] = d->length[i] = 0;
  memset(d->xz + i * k, 0, k * sizeof *d->xz);
  memset(d->pixels + i * k, 0, k * sizeof *d->pixels);
  d->valid[i] = 1;
  d->flags[i] = 0;
  return i;
}

rod_tip_data *rod_shape_tip(const rod_shape_data *d) {
  rod_tip_data *tip = rod_tip_data_alloc(d->frames);
  if (!tip)
    return NULL;
  tip->has[0] = tip->has[2] = true;
  tip->has_valid = true;
  const size_t k = 2 * (size_t)d->points;
  for (int i = 0; i < d->frames; i++) {
    const double *end = d->xz + i * k + k - 2;
    tip->t[i] = d->t[i];
    tip->xyz[3 * i] = end[0];
    tip->xyz[3 * i + 2] = end[1];
    tip->valid[i] = d->valid[i];
  }
  return tip;
}

bool rod_shape_is_hdf5(const char *path) {
  static const unsigned char signature[8] = {0x89, 'H',  'D',  'F',
                                             '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  int fd;
  if (rod_datafile_open(path, false, 0, &fd, NULL) != ROD_OK)
    return false;
  bool yes = read(fd, head, 8) == 8 && memcmp(head, signature, 8) == 0;
  close(fd);
  return yes;
}

/* ---- writing -----------------------------------------------------------*/

static int check(const rod_shape_data *d, const char *path, rod_error *err) {
  const size_t k = 2 * (size_t)d->points;
  for (int i = 0; i < d->frames; i++) {
    if (!isfinite(d->t[i]) || (i > 0 && !(d->t[i] > d->t[i - 1])))
      return rod_error_set(err, ROD_EINVAL, path, "time",
                           "frame %d: t = %g is not finite or not after the "
                           "previous frame's",
                           i, d->t[i]);
    bool finite = isfinite(d->length[i]);
    for (size_t j = 0; j < k; j++)
      finite = finite && isfinite(d->xz[i * k + j]) &&
               isfinite(d->pixels[i * k + j]);
    if (!finite)
      return rod_error_set(err, ROD_EINVAL, path, "shape",
                           "frame %d: a value is not finite", i);
  }
  return ROD_OK;
}

static herr_t put(hid_t file, const char *name, hid_t type, int rank,
                  const hsize_t *dims, const void *data) {
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t file_type = type == H5T_NATIVE_DOUBLE ? H5T_IEEE_F64LE : H5T_STD_I8LE;
  hid_t ds = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  herr_t e =
      ds < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (ds >= 0)
    H5Dclose(ds);
  H5Sclose(space);
  return e;
}

int rod_shape_write(const char *path, const rod_shape_data *d,
                    const char *source, const char *camera, rod_error *err) {
  rod_out_rules rules = {.kind = ROD_OUT_HDF5};
  rod_out_add_input(&rules, source);
  return rod_shape_write_with(path, d, source, camera, &rules, err);
}

int rod_shape_write_with(const char *path, const rod_shape_data *d,
                         const char *source, const char *camera,
                         const rod_out_rules *rules, rod_error *err) {
  if (!d)
    return rod_error_set(err, ROD_EINVAL, path, NULL, "no shape to write");
  int st = check(d, path, err);
  if (st != ROD_OK)
    return st;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  rod_outfile *o;
  if ((st = rod_outfile_open(path, rules, &o, err)) != ROD_OK)
    return st;
  errno = 0;
  hid_t f = rod_outfile_create_hdf5(o, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) {
    const int e = errno;
    rod_outfile_close(o, true);
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot create (%s)",
                         strerror(e ? e : EIO));
  }
  const hsize_t T = (hsize_t)d->frames, K = (hsize_t)d->points;
  const hsize_t d1[1] = {T}, d3[3] = {T, K, 2};
  herr_t e = 0;
  e |= put(f, "/time", H5T_NATIVE_DOUBLE, 1, d1, d->t);
  e |= put(f, "/shape", H5T_NATIVE_DOUBLE, 3, d3, d->xz);
  e |= put(f, "/valid", H5T_NATIVE_UCHAR, 1, d1, d->valid);
  e |= put(f, "/flags", H5T_NATIVE_UCHAR, 1, d1, d->flags);
  e |= put(f, "/pixels", H5T_NATIVE_DOUBLE, 3, d3, d->pixels);
  e |= put(f, "/length", H5T_NATIVE_DOUBLE, 1, d1, d->length);
  e |= rod_h5_put_text(f, "rodsim_version", ROD_VERSION);
  e |= rod_h5_put_text(f, "source", source ? source : "");
  e |= rod_h5_put_text(f, "camera", camera ? camera : "");
  if (H5Fclose(f) < 0)
    e = -1;
  st = e < 0 ? rod_error_set(err, ROD_EIO, path, NULL, "write error")
             : rod_outfile_commit(o, err);
  rod_outfile_close(o, st != ROD_OK);
  return st;
}

/* ---- reading -----------------------------------------------------------*/

/* rod_h5_read where the dataset may be absent: then zeros. */
static int get_optional(hid_t f, const char *path, const char *name, hid_t type,
                        size_t elem, int rank, hsize_t *dims, void **out,
                        rod_error *err) {
  if (H5Lexists(f, name, H5P_DEFAULT) > 0)
    return rod_h5_read(f, path, name, type, elem, rank, dims, out, err);
  size_t count = 1;
  for (int k = 0; k < rank; k++)
    count *= (size_t)dims[k];
  if (!(*out = calloc(count, elem)))
    return rod_error_set(err, ROD_ENOMEM, path, name + 1, "out of memory");
  return ROD_OK;
}

static int validate(const rod_shape_data *d, const char *path, rod_error *err) {
  const size_t k = 2 * (size_t)d->points;
  for (int i = 0; i < d->frames; i++) {
    if (!isfinite(d->t[i]))
      return rod_error_set(err, ROD_EINVAL, path, "time",
                           "frame %d: not finite", i);
    if (i > 0 && !(d->t[i] > d->t[i - 1]))
      return rod_error_set(err, ROD_EINVAL, path, "time",
                           "frame %d: t = %.9g is not after the previous "
                           "frame's t = %.9g",
                           i, d->t[i], d->t[i - 1]);
    if (d->valid[i] > 1)
      return rod_error_set(err, ROD_EINVAL, path, "valid",
                           "frame %d: expected 0 or 1 (got %d)", i,
                           d->valid[i]);
    for (size_t j = 0; j < k; j++)
      if (!isfinite(d->xz[i * k + j]) || !isfinite(d->pixels[i * k + j]))
        return rod_error_set(err, ROD_EINVAL, path,
                             isfinite(d->xz[i * k + j]) ? "pixels" : "shape",
                             "frame %d: not finite", i);
    if (!isfinite(d->length[i]))
      return rod_error_set(err, ROD_EINVAL, path, "length",
                           "frame %d: not finite", i);
  }
  return ROD_OK;
}

int rod_shape_read(const char *path, rod_shape_data **out, rod_error *err) {
  *out = NULL;
  hid_t f;
  int st0 = rod_h5_open(path, &f, err);
  if (st0 != ROD_OK)
    return st0;
  rod_shape_data *d = calloc(1, sizeof *d);
  if (!d) {
    H5Fclose(f);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  hsize_t dt[1] = {0}, ds[3] = {0, 0, 2};
  int st = rod_h5_read(f, path, "/time", H5T_NATIVE_DOUBLE, sizeof(double), 1,
                       dt, (void **)&d->t, err);
  if (st == ROD_OK) {
    ds[0] = dt[0];
    st = rod_h5_read(f, path, "/shape", H5T_NATIVE_DOUBLE, sizeof(double), 3,
                     ds, (void **)&d->xz, err);
  }
  if (st == ROD_OK && ds[1] < 2)
    st = rod_error_set(err, ROD_EINVAL, path, "shape",
                       "needs 2 or more points per frame (got %llu)",
                       (unsigned long long)ds[1]);
  if (st == ROD_OK)
    st = rod_h5_read(f, path, "/valid", H5T_NATIVE_UCHAR, 1, 1, dt,
                     (void **)&d->valid, err);
  if (st == ROD_OK) {
    d->frames = d->capacity = (int)dt[0];
    d->points = (int)ds[1];
    /* what the tracker adds for its users: read when present */
    st = get_optional(f, path, "/flags", H5T_NATIVE_UCHAR, 1, 1, dt,
                      (void **)&d->flags, err);
    if (st == ROD_OK)
      st = get_optional(f, path, "/length", H5T_NATIVE_DOUBLE, sizeof(double),
                        1, dt, (void **)&d->length, err);
    if (st == ROD_OK)
      st = get_optional(f, path, "/pixels", H5T_NATIVE_DOUBLE, sizeof(double),
                        3, ds, (void **)&d->pixels, err);
  }
  if (st == ROD_OK)
    st = validate(d, path, err);
  H5Fclose(f);
  if (st != ROD_OK) {
    rod_shape_free(d);
    return st;
  }
  *out = d;
  return ROD_OK;
}
