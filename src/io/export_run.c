/* The layout of a run's HDF5 file for the exporters (export_run.h): the
 * whole samples, the points, the rod's radius, and every dataset extended
 * along T, per point or per sample. */
#include "io/export_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5read.h"
#include "rod/scenario.h"

bool ex_stem(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  if (n == 0 || n >= size)
    return false;
  memcpy(out, base, n);
  out[n] = '\0';
  return true;
}

/* The root attribute `scenario` (a string, variable or fixed length, at
 * most 1 MiB) into a new buffer, or NULL. */
static char *read_scenario(hid_t f) {
  if (H5Aexists(f, "scenario") <= 0)
    return NULL;
  hid_t a = H5Aopen(f, "scenario", H5P_DEFAULT);
  hid_t ftype = a < 0 ? -1 : H5Aget_type(a);
  hid_t space = a < 0 ? -1 : H5Aget_space(a);
  char *text = NULL;
  if (ftype >= 0 && space >= 0 && H5Tget_class(ftype) == H5T_STRING &&
      H5Sget_simple_extent_npoints(space) == 1) {
    hid_t mtype = H5Tcopy(H5T_C_S1);
    H5Tset_cset(mtype, H5Tget_cset(ftype)); /* no conversion between sets */
    if (H5Tis_variable_str(ftype) > 0) {
      char *v = NULL;
      H5Tset_size(mtype, H5T_VARIABLE);
      if (H5Aread(a, mtype, &v) >= 0 && v) {
        text = strdup(v);
        H5free_memory(v);
      }
    } else {
      size_t n = H5Tget_size(ftype);
      if (n > 0 && n <= (1u << 20) && (text = calloc(n + 1, 1))) {
        H5Tset_size(mtype, n + 1);
        if (H5Aread(a, mtype, text) < 0) {
          free(text);
          text = NULL;
        }
      }
    }
    H5Tclose(mtype);
  }
  if (space >= 0)
    H5Sclose(space);
  if (ftype >= 0)
    H5Tclose(ftype);
  if (a >= 0)
    H5Aclose(a);
  return text;
}

/* The rod's radii from the scenario the file records. */
static int read_radius(ex_run *r, rod_error *err) {
  char *text = read_scenario(r->file);
  if (!text)
    return rod_error_set(err, ROD_EINVAL, r->path, "scenario",
                         "missing: the file records no scenario");
  rod_scenario *sc = rod_scenario_new();
  rod_error why = {{0}, {0}, {0}, 0};
  int st =
      sc ? rod_scenario_load_string(sc, text, "scenario", &why) : ROD_ENOMEM;
  free(text);
  if (st == ROD_OK) {
    r->radius = sc->rod.diameter / 2;
    r->inner_radius = sc->rod.inner_diameter / 2;
  }
  rod_scenario_free(sc);
  if (st == ROD_ENOMEM)
    return rod_error_set(err, st, r->path, NULL, "out of memory");
  if (st != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, r->path, "scenario",
                         "does not read (%s: %s)", why.key, why.message);
  return ROD_OK;
}

/* Groups whose datasets are per sample whatever their shape. */
static bool per_sample_group(const char *group) {
  return strcmp(group, "tip") == 0 || strcmp(group, "energy") == 0;
}

bool ex_array_of(const char *group, const char *name, int points, int rank,
                 const unsigned long long *dims, ex_array *a) {
  const ex_array none = {{0}, {0}, false, 1, 0, 0, false, false, 0};
  *a = none;
  if (strcmp(group, "solver") == 0 || rank < 1 || rank > 3 ||
      snprintf(a->path, sizeof a->path, "/%s/%s", group, name) >=
          (int)sizeof a->path ||
      snprintf(a->name, sizeof a->name, "%s%s%s",
               strcmp(group, "rod") ? group : "",
               strcmp(group, "rod") ? "_" : "", name) >= (int)sizeof a->name)
    return false;
  a->extent = dims[0];
  a->rank = rank;
  /* (T, N, k) and (T, N) per point, (T) and (T, k) per sample */
  a->per_point = !per_sample_group(group) && rank >= 2 &&
                 dims[1] == (unsigned long long)points;
  a->components = rank == 3                    ? (int)dims[2]
                  : rank == 2 && !a->per_point ? (int)dims[1]
                                               : 1;
  return (rank < 3 || a->per_point) && a->components >= 1 &&
         a->components <= 64;
}

/* Dataset group/name of the file, when it is extended along T: its entry
 * in r->array. */
static void take_dataset(ex_run *r, const char *group, const char *name) {
  if (r->narrays >= EX_MAX_ARRAYS || strcmp(group, "solver") == 0)
    return;
  char path[2 * EX_NAME_MAX];
  snprintf(path, sizeof path, "/%s/%s", group, name);
  hid_t ds = H5Dopen2(r->file, path, H5P_DEFAULT);
  if (ds < 0)
    return;
  hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
  hsize_t dims[4] = {0}, max[4] = {0};
  int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
  H5T_class_t cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
  size_t bytes = type < 0 ? 0 : H5Tget_size(type);
  ex_array a;
  bool ok = rank >= 1 && rank <= 3 &&
            H5Sget_simple_extent_dims(space, dims, max) == rank &&
            max[0] == H5S_UNLIMITED &&
            ((cls == H5T_FLOAT && (bytes == 4 || bytes == 8)) ||
             (cls == H5T_INTEGER &&
              (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)));
  if (ok) {
    unsigned long long d[3] = {dims[0], dims[1], dims[2]};
    ok = ex_array_of(group, name, r->points, rank, d, &a);
    a.integer = cls == H5T_INTEGER;
    a.is_signed = a.integer && H5Tget_sign(type) == H5T_SGN_2;
    a.bytes = (int)bytes;
  }
  if (type >= 0)
    H5Tclose(type);
  if (space >= 0)
    H5Sclose(space);
  H5Dclose(ds);
  if (ok)
    r->array[r->narrays++] = a;
}

/* The names of the links in group g, in name order (at most 256): each
 * passed to fn with its object's kind. */
static void each_link(hid_t g,
                      void (*fn)(ex_run *, hid_t, const char *, H5I_type_t),
                      ex_run *r) {
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0)
    return;
  for (hsize_t i = 0; i < info.nlinks && i < 256; i++) {
    char name[EX_NAME_MAX];
    ssize_t n = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                   sizeof name, H5P_DEFAULT);
    if (n <= 0 || n >= (ssize_t)sizeof name)
      continue;
    hid_t obj = H5Oopen(g, name, H5P_DEFAULT);
    if (obj < 0)
      continue;
    H5I_type_t kind = H5Iget_type(obj);
    H5Oclose(obj);
    fn(r, g, name, kind);
  }
}

/* A dataset of a group under the root. */
static void on_dataset(ex_run *r, hid_t g, const char *name, H5I_type_t kind) {
  char group[EX_NAME_MAX];
  if (kind != H5I_DATASET ||
      H5Iget_name(g, group, sizeof group) >= (ssize_t)sizeof group)
    return;
  take_dataset(r, group + 1, name);
}

/* A group under the root. */
static void on_group(ex_run *r, hid_t root, const char *name, H5I_type_t kind) {
  if (kind != H5I_GROUP)
    return;
  hid_t g = H5Gopen2(root, name, H5P_DEFAULT);
  if (g < 0)
    return;
  each_link(g, on_dataset, r);
  H5Gclose(g);
}

/* /rod/s: N points, from 2 to 2^28. */
static int read_points(ex_run *r, rod_error *err) {
  hsize_t dims[1] = {0};
  double *s = NULL;
  int st = rod_h5_read(r->file, r->path, "/rod/s", H5T_NATIVE_DOUBLE, sizeof *s,
                       1, dims, (void **)&s, err);
  free(s);
  if (st == ROD_OK && dims[0] < 2)
    st = rod_error_set(err, ROD_EINVAL, r->path, "rod/s",
                       "holds %llu point, a rod has 2 at least",
                       (unsigned long long)dims[0]);
  if (st == ROD_OK)
    r->points = (int)dims[0];
  return st;
}

/* The whole samples: /samples where the file has it, at most the extent
 * of every dataset, and their times, which must increase. */
static int read_samples(ex_run *r, rod_error *err) {
  hsize_t whole = 0, dims[1] = {0};
  int st = rod_h5_samples(r->file, r->path, &whole, err);
  if (st != ROD_OK)
    return st;
  /* only the rows the file counts: after a kill during a flush the rows
   * past them may be unwritten, or past the file's end */
  hsize_t extent = 0;
  hid_t ds = H5Lexists(r->file, "/time", H5P_DEFAULT) > 0
                 ? H5Dopen2(r->file, "/time", H5P_DEFAULT)
                 : -1;
  hid_t space = ds < 0 ? -1 : H5Dget_space(ds);
  if (space >= 0 && H5Sget_simple_extent_ndims(space) == 1)
    H5Sget_simple_extent_dims(space, &extent, NULL);
  if (space >= 0)
    H5Sclose(space);
  if (ds >= 0)
    H5Dclose(ds);
  double *t = NULL;
  st = rod_h5_read_rows(r->file, r->path, "/time", H5T_NATIVE_DOUBLE, sizeof *t,
                        1, whole && whole < extent ? whole : 0, dims,
                        (void **)&t, err);
  if (st != ROD_OK)
    return st;
  hsize_t n = whole ? whole : dims[0];
  for (int i = 0; i < r->narrays; i++)
    if (r->array[i].extent < n)
      n = r->array[i].extent;
  if (n > dims[0])
    n = dims[0];
  for (hsize_t i = 1; i < n && st == ROD_OK; i++)
    if (!(t[i] > t[i - 1]))
      st = rod_error_set(err, ROD_EINVAL, r->path, "time",
                         "sample %llu is not after the previous",
                         (unsigned long long)i);
  if (st != ROD_OK) {
    free(t);
    return st;
  }
  r->time = t;
  r->samples = (long)n;
  return ROD_OK;
}

int ex_run_open(const char *h5_path, ex_run *r, rod_error *err) {
  memset(r, 0, sizeof *r);
  r->path = h5_path;
  r->file = -1;
  r->position = -1;
  int st = rod_h5_open(h5_path, &r->file, err);
  if (st != ROD_OK)
    return st;
  st = read_points(r, err);
  if (st == ROD_OK) {
    each_link(r->file, on_group, r);
    for (int i = 0; i < r->narrays; i++)
      if (strcmp(r->array[i].path, "/rod/position") == 0 &&
          r->array[i].per_point && r->array[i].components == 3 &&
          !r->array[i].integer)
        r->position = i;
    if (r->position < 0)
      st =
          rod_error_set(err, ROD_EINVAL, h5_path, "rod/position",
                        "missing, or not (T, %d, 3) floating point", r->points);
  }
  if (st == ROD_OK)
    st = read_samples(r, err);
  if (st == ROD_OK && r->samples < 1)
    st = rod_error_set(err, ROD_EINVAL, h5_path, "samples",
                       "the file holds no whole sample");
  if (st == ROD_OK)
    st = read_radius(r, err);
  if (st != ROD_OK)
    ex_run_close(r);
  return st;
}

void ex_run_close(ex_run *r) {
  if (r->file >= 0)
    H5Fclose(r->file);
  r->file = -1;
  free(r->time);
  r->time = NULL;
}

int ex_run_read(const ex_run *r, const ex_array *a, long first, long count,
                double **out, rod_error *err) {
  hsize_t dims[3] = {0, 0, 0};
  return rod_h5_read_block(r->file, r->path, a->path, H5T_NATIVE_DOUBLE,
                           sizeof **out, a->rank, (hsize_t)first,
                           (hsize_t)count, dims, (void **)out, err);
}

void ex_run_count(const ex_run *r, rod_export_info *info) {
  info->samples = r->samples;
  info->points = r->points;
  info->point_arrays = r->inner_radius > 0 ? 3 : 2; /* radii, s */
  info->field_arrays = 0;
  for (int k = 0; k < r->narrays; k++) {
    if (k == r->position)
      continue;
    if (r->array[k].per_point)
      info->point_arrays++;
    else
      info->field_arrays++;
  }
}

void ex_format_double(char *text, size_t size, double x) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(text, size, "%.*g", digits, x);
    if (strtod(text, NULL) == x)
      break;
  }
}

void ex_put_double(FILE *out, double x) {
  char text[32];
  ex_format_double(text, sizeof text, x);
  fputs(text, out);
}

int ex_finish(FILE *out, const char *path, long long *bytes, rod_error *err) {
  *bytes += ftell(out);
  bool bad = ferror(out) != 0;
  errno = 0;
  if (fclose(out) != 0 || bad)
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot write (%s)",
                         strerror(errno ? errno : EIO));
  return ROD_OK;
}
