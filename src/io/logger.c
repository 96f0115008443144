/* HDF5 logger: the layout of docs/hdf5.md. */
#include "rod/logger.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"

enum {
  DS_TIME,
  DS_TIP,
  DS_POS,
  DS_QUAT,
  DS_VEL,
  DS_FORCE,
  DS_MOMENT,
  DS_KIN,
  DS_ELA,
  DS_GRAV,
  DS_ITER,
  DS_RES,
  DS_METHOD,
  DS_INTEG,
  DS_WALL,
  DS_CFORCE,
  DS_CACTIVE,
  DS_GAPMIN,
  DS_DISSIPATED,
  DS_COUNT
};

typedef struct {
  const char *path;
  int per_point; /* 0: per sample; k: N x k per sample (or 3 for tip) */
  bool by_points;
  int type;     /* 0 double, 1 int32, 2 int8 */
  bool contact; /* written only when the run has contact */
} ds_def;

static const ds_def defs[DS_COUNT] = {
    [DS_TIME] = {"/time", 1, false, 0},
    [DS_TIP] = {"/tip/position", 3, false, 0},
    [DS_POS] = {"/rod/position", 3, true, 0},
    [DS_QUAT] = {"/rod/orientation", 4, true, 0},
    [DS_VEL] = {"/rod/velocity", 3, true, 0},
    [DS_FORCE] = {"/rod/force", 3, true, 0},
    [DS_MOMENT] = {"/rod/moment", 3, true, 0},
    [DS_KIN] = {"/energy/kinetic", 1, false, 0},
    [DS_ELA] = {"/energy/elastic", 1, false, 0},
    [DS_GRAV] = {"/energy/gravity", 1, false, 0},
    [DS_ITER] = {"/solver/iterations", 1, false, 1},
    [DS_RES] = {"/solver/residual", 1, false, 0},
    [DS_METHOD] = {"/solver/method", 1, false, 2},
    [DS_INTEG] = {"/solver/integrations", 1, false, 1},
    [DS_WALL] = {"/solver/wall_time", 1, false, 0},
    [DS_CFORCE] = {"/contact/force", 3, true, 0, true},
    [DS_CACTIVE] = {"/contact/active", 1, true, 2, true},
    [DS_GAPMIN] = {"/contact/gap_min", 1, false, 0, true},
    [DS_DISSIPATED] = {"/energy/dissipated_contact", 1, false, 0, true},
};

/* Rank of a dataset: T, then N (by points), then the values per point or
 * per sample when more than one. */
static int ds_rank(const ds_def *df) {
  return 1 + (df->by_points ? 1 : 0) + (df->per_point > 1 ? 1 : 0);
}

/* Extent of a dataset after T: (N, k), (N), (k) or none. */
static void ds_dims(const ds_def *df, int points, hsize_t *dims) {
  int r = 1;
  if (df->by_points)
    dims[r++] = (hsize_t)points;
  if (df->per_point > 1)
    dims[r++] = (hsize_t)df->per_point;
}

struct rod_logger {
  hid_t file;
  hid_t ds[DS_COUNT];
  bool present[DS_COUNT];
  void *buf[DS_COUNT];
  size_t width[DS_COUNT]; /* values per sample */
  int points;
  int block;     /* samples per chunk and per write */
  int buffered;  /* samples in the buffer */
  hsize_t total; /* samples in the file */
  bool datasets_made;
  double last_flush; /* monotonic s */
  char path[1024];
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static hid_t mem_type(int t) {
  return t == 0   ? H5T_NATIVE_DOUBLE
         : t == 1 ? H5T_NATIVE_INT32
                  : H5T_NATIVE_INT8;
}
static hid_t file_type(int t) {
  return t == 0 ? H5T_IEEE_F64LE : t == 1 ? H5T_STD_I32LE : H5T_STD_I8LE;
}
static size_t type_size(int t) { return t == 0 ? 8 : t == 1 ? 4 : 1; }

/* Write or overwrite a variable-length UTF-8 string attribute on the root. */
static int write_string_attr(hid_t file, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hid_t space = H5Screate(H5S_SCALAR);
  if (H5Aexists(file, name) > 0)
    H5Adelete(file, name);
  hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = attr < 0 ? -1 : H5Awrite(attr, type, &value);
  if (attr >= 0)
    H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return e < 0 ? ROD_EIO : ROD_OK;
}

int rod_logger_open(rod_logger **out, const char *path, const rod_scenario *sc,
                    const char *backend, rod_error *err) {
  *out = NULL;
  rod_logger *lg = calloc(1, sizeof *lg);
  if (!lg)
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  snprintf(lg->path, sizeof lg->path, "%s", path);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  lg->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (lg->file < 0) {
    free(lg);
    return rod_error_set(err, ROD_EIO, path, "output.file",
                         "cannot create the HDF5 file");
  }
  size_t need = rod_scenario_to_ini(sc, NULL, 0) + 1;
  char *text = malloc(need);
  if (!text) {
    H5Fclose(lg->file);
    free(lg);
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  }
  rod_scenario_to_ini(sc, text, need);
  int st = write_string_attr(lg->file, "backend", backend);
  if (st == ROD_OK)
    st = write_string_attr(lg->file, "rodsim_version", ROD_VERSION);
  if (st == ROD_OK)
    st = write_string_attr(lg->file, "scenario", text);
  if (st == ROD_OK)
    st = write_string_attr(lg->file, "status", "running");
  free(text);
  const char *groups[] = {"/tip", "/rod", "/energy", "/solver"};
  for (int i = 0; i < 4 && st == ROD_OK; i++) {
    hid_t g =
        H5Gcreate2(lg->file, groups[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
      st = ROD_EIO;
    else
      H5Gclose(g);
  }
  if (st == ROD_OK && H5Fflush(lg->file, H5F_SCOPE_GLOBAL) < 0)
    st = ROD_EIO;
  if (st != ROD_OK) {
    H5Fclose(lg->file);
    free(lg);
    return rod_error_set(err, st, path, "output.file",
                         "cannot write the HDF5 file");
  }
  lg->last_flush = now();
  *out = lg;
  return ROD_OK;
}

static int make_datasets(rod_logger *lg, const rod_sample *s) {
  int N = s->points;
  lg->points = N;
  /* about 1 MiB of samples per block */
  size_t per_sample = (size_t)N * 16 * sizeof(double) + 128;
  size_t block = (1u << 20) / per_sample;
  lg->block = block < 1 ? 1 : block > 1024 ? 1024 : (int)block;
  hsize_t dims_s = (hsize_t)N;
  hid_t sp = H5Screate_simple(1, &dims_s, NULL);
  hid_t d = H5Dcreate2(lg->file, "/rod/s", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                       H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = d < 0 ? -1
                   : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                              H5P_DEFAULT, s->s);
  if (d >= 0)
    H5Dclose(d);
  H5Sclose(sp);
  if (e < 0)
    return ROD_EIO;
  if (s->contact_force) {
    hid_t g =
        H5Gcreate2(lg->file, "/contact", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
      return ROD_EIO;
    H5Gclose(g);
  }
  for (int i = 0; i < DS_COUNT; i++) {
    const ds_def *df = &defs[i];
    lg->present[i] =
        !((i == DS_FORCE && !s->force) || (i == DS_MOMENT && !s->moment) ||
          (df->contact && !s->contact_force));
    if (!lg->present[i])
      continue;
    int rank = ds_rank(df);
    hsize_t dims[3] = {0, 0, 0}, maxd[3], chunk[3];
    ds_dims(df, N, dims);
    for (int r = 0; r < rank; r++) {
      maxd[r] = r == 0 ? H5S_UNLIMITED : dims[r];
      chunk[r] = r == 0 ? (hsize_t)lg->block : dims[r];
    }
    lg->width[i] = (size_t)(df->by_points ? N * df->per_point : df->per_point);
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    lg->ds[i] = H5Dcreate2(lg->file, df->path, file_type(df->type), space,
                           H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    lg->buf[i] = calloc((size_t)lg->block * lg->width[i], type_size(df->type));
    if (lg->ds[i] < 0 || !lg->buf[i])
      return lg->ds[i] < 0 ? ROD_EIO : ROD_ENOMEM;
  }
  lg->datasets_made = true;
  return ROD_OK;
}

/* Write the buffered samples: extend every dataset, then write the block. */
static int write_buffer(rod_logger *lg) {
  if (lg->buffered == 0)
    return ROD_OK;
  hsize_t n = (hsize_t)lg->buffered;
  for (int i = 0; i < DS_COUNT; i++) {
    if (!lg->present[i])
      continue;
    const ds_def *df = &defs[i];
    int rank = ds_rank(df);
    hsize_t size[3] = {lg->total + n, 0, 0};
    ds_dims(df, lg->points, size);
    if (H5Dset_extent(lg->ds[i], size) < 0)
      return ROD_EIO;
    hid_t fs = H5Dget_space(lg->ds[i]);
    hsize_t start[3] = {lg->total, 0, 0}, count[3] = {n, size[1], size[2]};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    herr_t e = H5Dwrite(lg->ds[i], mem_type(df->type), ms, fs, H5P_DEFAULT,
                        lg->buf[i]);
    H5Sclose(ms);
    H5Sclose(fs);
    if (e < 0)
      return ROD_EIO;
  }
  lg->total += n;
  lg->buffered = 0;
  return ROD_OK;
}

static int flush(rod_logger *lg) {
  int st = write_buffer(lg);
  if (st != ROD_OK)
    return st;
  if (H5Fflush(lg->file, H5F_SCOPE_GLOBAL) < 0)
    return ROD_EIO;
  lg->last_flush = now();
  return ROD_OK;
}

int rod_logger_append(rod_logger *lg, double t, const rod_sample *s,
                      const rod_step_stats *st, double wall_time) {
  if (!lg->datasets_made) {
    int e = make_datasets(lg, s);
    if (e != ROD_OK)
      return e;
  }
  if (s->points != lg->points)
    return ROD_EINVAL;
  size_t b = (size_t)lg->buffered, N = (size_t)lg->points;
  const double *tip = s->position + 3 * (N - 1);
  ((double *)lg->buf[DS_TIME])[b] = t;
  memcpy((double *)lg->buf[DS_TIP] + 3 * b, tip, 3 * sizeof(double));
  memcpy((double *)lg->buf[DS_POS] + 3 * N * b, s->position,
         3 * N * sizeof(double));
  memcpy((double *)lg->buf[DS_QUAT] + 4 * N * b, s->orientation,
         4 * N * sizeof(double));
  memcpy((double *)lg->buf[DS_VEL] + 3 * N * b, s->velocity,
         3 * N * sizeof(double));
  if (lg->present[DS_FORCE])
    memcpy((double *)lg->buf[DS_FORCE] + 3 * N * b, s->force,
           3 * N * sizeof(double));
  if (lg->present[DS_MOMENT])
    memcpy((double *)lg->buf[DS_MOMENT] + 3 * N * b, s->moment,
           3 * N * sizeof(double));
  ((double *)lg->buf[DS_KIN])[b] = s->kinetic;
  ((double *)lg->buf[DS_ELA])[b] = s->elastic;
  ((double *)lg->buf[DS_GRAV])[b] = s->gravity;
  ((int32_t *)lg->buf[DS_ITER])[b] = st->iterations;
  ((double *)lg->buf[DS_RES])[b] = st->residual;
  ((int8_t *)lg->buf[DS_METHOD])[b] = (int8_t)st->method;
  ((int32_t *)lg->buf[DS_INTEG])[b] = (int32_t)lround(st->integrations);
  ((double *)lg->buf[DS_WALL])[b] = wall_time;
  if (lg->present[DS_CFORCE]) {
    if (!s->contact_force || !s->contact_active)
      return ROD_EINVAL;
    memcpy((double *)lg->buf[DS_CFORCE] + 3 * N * b, s->contact_force,
           3 * N * sizeof(double));
    memcpy((int8_t *)lg->buf[DS_CACTIVE] + N * b, s->contact_active, N);
    ((double *)lg->buf[DS_GAPMIN])[b] = s->contact_gap_min;
    ((double *)lg->buf[DS_DISSIPATED])[b] = s->dissipated_contact;
  }
  lg->buffered++;
  if (lg->buffered == lg->block)
    return flush(lg);
  return ROD_OK;
}

int rod_logger_flush_if_older(rod_logger *lg, double max_age) {
  if (now() - lg->last_flush < max_age)
    return ROD_OK;
  return flush(lg);
}

int rod_logger_close(rod_logger *lg, const char *status) {
  if (!lg)
    return ROD_OK;
  int st = write_buffer(lg);
  int st2 = write_string_attr(lg->file, "status", status ? status : "");
  for (int i = 0; i < DS_COUNT; i++) {
    if (lg->ds[i] > 0)
      H5Dclose(lg->ds[i]);
    free(lg->buf[i]);
  }
  herr_t e = H5Fclose(lg->file);
  free(lg);
  if (st != ROD_OK)
    return st;
  if (st2 != ROD_OK || e < 0)
    return ROD_EIO;
  return ROD_OK;
}

static int sink_sample(void *user, double t, const rod_sample *s,
                       const rod_step_stats *st, double wall) {
  return rod_logger_append(user, t, s, st, wall);
}

static int sink_tick(void *user) {
  return rod_logger_flush_if_older(user, 1.0);
}

rod_sim_sink rod_logger_sink(rod_logger *lg) {
  rod_sim_sink s = {.sample = sink_sample, .tick = sink_tick, .user = lg};
  return s;
}
