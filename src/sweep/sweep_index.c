/* The sweep's index, DIR/index.h5 (docs/scale.md): the cases' keys, texts
 * and values, and per case its status, message, warning, wall time and
 * summary figures.
 *
 * Crash safety, as run files (docs/hdf5.md): HDF5's default file format,
 * no SWMR. Every dataset is made at creation at its final size,
 * contiguous and allocated at once with its fill value, and the file is
 * flushed and closed under DIR/index.h5.part (io/outfile.c: the writer's
 * lock, O_EXCL) before it is committed as DIR/index.h5: from then on the
 * metadata never changes. A case's record is a few raw writes in place (no
 * sieve buffer: only its own bytes), flushed; then its status byte, in a flush
 * of its own, so a status of complete or failed always counts a whole record. A
 * kill at any moment leaves a file that opens, each case's status with all it
 * counts. The file is never rewritten whole: a record writes about 700 bytes.
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "io/h5attr.h"
#include "io/outfile.h"
#include "sweep_internal.h"

enum {
  IX_KEYS,
  IX_TEXT,
  IX_VALUES,
  IX_FILE,
  IX_STATUS,
  IX_MESSAGE,
  IX_WARNING,
  IX_WALL,
  IX_TIME,
  IX_TIP_FINAL,
  IX_TIP_MIN,
  IX_TIP_MAX,
  IX_FREQUENCY,
  IX_DRIFT,
  IX_ERROR,
  IX_COUNT
};

/* How a dataset is laid out: by case (and key, or 3 coordinates), of
 * doubles, int8 or fixed-length strings. */
enum { IX_DOUBLE, IX_INT8, IX_STRING };

typedef struct {
  const char *path;
  int type;
  int width; /* 0: (cases); -1: (cases, keys); -2: (keys); k: (cases, k) */
  const char *units, *description;
} ix_def;

static const ix_def defs[IX_COUNT] = {
    [IX_KEYS] = {"/keys", IX_STRING, -2, "1",
                 "the varied scenario keys, SECTION.KEY"},
    [IX_TEXT] = {"/text", IX_STRING, -1, "1",
                 "each case's value of each key as set (--set "
                 "SECTION.KEY=TEXT)"},
    [IX_VALUES] = {"/values", IX_DOUBLE, -1, "1",
                   "each case's value of each key as a number (NaN where "
                   "the text is not one); units: the key's (rodsim keys)"},
    [IX_FILE] = {"/file", IX_STRING, 0, "1",
                 "each case's run file, relative to the index's folder"},
    [IX_STATUS] = {"/status", IX_INT8, 0, "1",
                   "each case's status: see the attribute enum_names"},
    [IX_MESSAGE] = {"/message", IX_STRING, 0, "1",
                    "why a case failed, was refused or stopped (one line)"},
    [IX_WARNING] = {"/warning", IX_STRING, 0, "1",
                    "what a case's run warned about (one line)"},
    [IX_WALL] = {"/wall_time", IX_DOUBLE, 0, "s",
                 "wall time of each case's run, set-up to its file closed"},
    [IX_TIME] = {"/summary/time", IX_DOUBLE, 0, "s",
                 "simulated time the case reached"},
    [IX_TIP_FINAL] = {"/summary/tip_final", IX_DOUBLE, 3, "m",
                      "the tip at the case's last sample, world frame"},
    [IX_TIP_MIN] = {"/summary/tip_min", IX_DOUBLE, 3, "m",
                    "each tip coordinate's least value over the samples"},
    [IX_TIP_MAX] = {"/summary/tip_max", IX_DOUBLE, 3, "m",
                    "each tip coordinate's greatest value over the samples"},
    [IX_FREQUENCY] = {"/summary/frequency", IX_DOUBLE, 0, "Hz",
                      "dominant frequency of the tip coordinate that moves "
                      "most after t = 0 (NaN: no oscillation)"},
    [IX_DRIFT] = {"/summary/energy_drift", IX_DOUBLE, 0, "J",
                  "mechanical energy (with what contacts took out) at the "
                  "end minus after the first step"},
    [IX_ERROR] = {"/summary/error_estimate", IX_DOUBLE, 0, "m",
                  "the run's estimate of its largest tip error "
                  "(time.error_estimate: rod_sim_error_estimate, the largest "
                  "value of the file's /error_estimate; NaN when the run "
                  "makes none)"},
};

static const char *const status_names[ROD_CASE_STATUSES] = {
    "pending", "running", "complete", "failed", "refused", "interrupted"};

const char *rod_case_status_name(int status) {
  return status >= 0 && status < ROD_CASE_STATUSES ? status_names[status]
                                                   : NULL;
}

struct sweep_index {
  hid_t file;
  hid_t ds[IX_COUNT];
  int cases, keys;
  signed char *status; /* as on disk */
  char path[1100];
};

/* The file access: our own lock guards the writer (sweep_lock.c), so
 * HDF5's is off and a reader may open the index while a sweep writes it;
 * no sieve buffer, so a record writes its own bytes only. */
static hid_t access_plist(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_file_locking(fapl, 0, 1);
  H5Pset_sieve_buf_size(fapl, 0);
  return fapl;
}

static hid_t string_type(size_t width) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, width);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

static int set_int_attr(hid_t obj, const char *name, int value) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  int32_t v = value;
  herr_t e = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_INT32, &v);
  if (a >= 0)
    H5Aclose(a);
  H5Sclose(sp);
  return e < 0 ? ROD_EIO : ROD_OK;
}

static int get_int_attr(hid_t obj, const char *name, int *value) {
  if (H5Aexists(obj, name) <= 0)
    return ROD_EINVAL;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  int32_t v = 0;
  herr_t e = H5Aread(a, H5T_NATIVE_INT32, &v);
  H5Aclose(a);
  *value = v;
  return e < 0 ? ROD_EINVAL : ROD_OK;
}

/* The longest of n texts, with its terminator (at least 8). */
static size_t text_width(char *const *texts, size_t n) {
  size_t w = 8;
  for (size_t i = 0; i < n; i++)
    if (strlen(texts[i]) + 1 > w)
      w = strlen(texts[i]) + 1;
  return w;
}

static hid_t file_type_of(const ix_def *df, size_t width) {
  return df->type == IX_DOUBLE ? H5Tcopy(H5T_IEEE_F64LE)
         : df->type == IX_INT8 ? H5Tcopy(H5T_STD_I8LE)
                               : string_type(width);
}

static hid_t mem_type_of(const ix_def *df, size_t width) {
  return df->type == IX_DOUBLE ? H5Tcopy(H5T_NATIVE_DOUBLE)
         : df->type == IX_INT8 ? H5Tcopy(H5T_NATIVE_SCHAR)
                               : string_type(width);
}

/* Make dataset i: contiguous, allocated now, filled (NaN, pending, ""). */
static hid_t make_dataset(hid_t file, int i, int cases, int keys,
                          size_t width) {
  const ix_def *df = &defs[i];
  hsize_t dims[2];
  int rank = 1;
  if (df->width == -2)
    dims[0] = (hsize_t)keys;
  else {
    dims[0] = (hsize_t)cases;
    if (df->width != 0)
      dims[rank++] = df->width == -1 ? (hsize_t)keys : (hsize_t)df->width;
  }
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
  const double nan = NAN;
  if (df->type == IX_DOUBLE)
    H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan);
  hid_t ft = file_type_of(df, width);
  hid_t ds =
      H5Dcreate2(file, df->path, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Tclose(ft);
  H5Pclose(dcpl);
  H5Sclose(space);
  if (ds >= 0 &&
      (rod_h5_put_text(ds, "units", df->units) != ROD_OK ||
       rod_h5_put_text(ds, "description", df->description) != ROD_OK)) {
    H5Dclose(ds);
    return -1;
  }
  return ds;
}

/* Rows [row, row + rows) of dataset i (their whole width) written from
 * buf, or read into it. */
static int rows_io(sweep_index *ix, int i, hsize_t row, hsize_t rows,
                   size_t width, void *buf, bool write) {
  hid_t ds = ix->ds[i];
  hid_t fs = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0}, start[2] = {row, 0}, count[2];
  const int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
  count[0] = rows;
  count[1] = dims[1];
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t ms = H5Screate_simple(rank, count, NULL);
  hid_t mt = mem_type_of(&defs[i], width);
  herr_t e = write ? H5Dwrite(ds, mt, ms, fs, H5P_DEFAULT, buf)
                   : H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf);
  H5Tclose(mt);
  H5Sclose(ms);
  H5Sclose(fs);
  return e < 0 ? ROD_EIO : ROD_OK;
}

static int write_rows(sweep_index *ix, int i, hsize_t row, hsize_t rows,
                      size_t width, const void *buf) {
  return rows_io(ix, i, row, rows, width, (void *)buf, true);
}

/* texts (n strings) packed into rows of width bytes. */
static char *pack(char *const *texts, size_t n, size_t width) {
  char *buf = calloc(n ? n : 1, width);
  for (size_t i = 0; buf && i < n; i++)
    memcpy(buf + i * width, texts[i], strlen(texts[i]) + 1);
  return buf;
}

/* The definition's tables: keys, texts, values, file names. */
static int write_tables(sweep_index *ix, const rod_sweep_def *d) {
  const size_t C = (size_t)d->ncases, K = (size_t)d->nkeys;
  const size_t wk = text_width(d->keys, K), wt = text_width(d->texts, C * K);
  char *keys = pack(d->keys, K, wk), *texts = pack(d->texts, C * K, wt);
  double *values = malloc(C * K * sizeof(double));
  char *files = calloc(C, 24);
  /* "case-NNNNN.h5": at most 10 million cases (sweep_def.c), 16 bytes */
  int st = keys && texts && values && files ? ROD_OK : ROD_ENOMEM;
  for (size_t i = 0; st == ROD_OK && i < C * K; i++) {
    char *end;
    values[i] = strtod(d->texts[i], &end);
    if (end == d->texts[i] || *end || !isfinite(values[i]))
      values[i] = NAN;
  }
  for (size_t c = 0; st == ROD_OK && c < C; c++)
    snprintf(files + 24 * c, 24, "case-%05u.h5", (unsigned)(c % 100000000));
  if (st == ROD_OK)
    st = write_rows(ix, IX_KEYS, 0, K, wk, keys);
  if (st == ROD_OK)
    st = write_rows(ix, IX_TEXT, 0, C, wt, texts);
  if (st == ROD_OK)
    st = write_rows(ix, IX_VALUES, 0, C, 0, values);
  if (st == ROD_OK)
    st = write_rows(ix, IX_FILE, 0, C, 24, files);
  free(keys);
  free(texts);
  free(values);
  free(files);
  return st;
}

static int root_attrs(hid_t file, const sweep_identity *id) {
  char created[32];
  time_t t = time(NULL);
  struct tm utc;
  gmtime_r(&t, &utc);
  strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc);
  int st = rod_h5_put_text(file, "format", "rodsim sweep index");
  if (st == ROD_OK)
    st = rod_h5_put_text(file, "rodsim_version", ROD_VERSION);
  if (st == ROD_OK)
    st = rod_h5_put_text(file, "revision", ROD_REVISION);
  if (st == ROD_OK)
    st = rod_h5_put_text(file, "created", created);
  if (st == ROD_OK)
    st = rod_h5_put_text(file, "scenario", id->scenario);
  if (st == ROD_OK)
    st = set_int_attr(file, "static", id->static_only);
  if (st == ROD_OK)
    st = set_int_attr(file, "cases", id->def->ncases);
  return st;
}

static void close_all(sweep_index *ix) {
  for (int i = 0; i < IX_COUNT; i++)
    if (ix->ds[i] > 0)
      H5Dclose(ix->ds[i]);
  if (ix->file > 0)
    H5Fclose(ix->file);
  free(ix->status);
  free(ix);
}

int sweep_index_create(const char *path, const sweep_identity *id,
                       sweep_index **out, rod_error *err) {
  const rod_sweep_def *d = id->def;
  sweep_index *ix = calloc(1, sizeof *ix);
  if (!ix)
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  /* under the writer's lock and the output rules of every rodsim file
   * (io/outfile.h): created as PATH.part with O_EXCL, committed whole */
  rod_out_rules rules = {.kind = ROD_OUT_HDF5, .key = "-o"};
  rod_outfile *o = NULL;
  int st0 = rod_outfile_open(path, &rules, &o, err);
  if (st0 != ROD_OK) {
    free(ix);
    return st0;
  }
  snprintf(ix->path, sizeof ix->path, "%s", path);
  hid_t fapl = access_plist();
  errno = 0;
  ix->file = rod_outfile_create_hdf5(o, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (ix->file < 0) {
    int e = errno;
    rod_outfile_close(o, true);
    free(ix);
    return rod_error_set(err, ROD_EIO, path, "", "cannot create the index%s%s",
                         e ? ": " : "", e ? strerror(e) : "");
  }
  ix->cases = d->ncases;
  ix->keys = d->nkeys;
  const size_t wk = text_width(d->keys, (size_t)d->nkeys);
  const size_t wt = text_width(d->texts, (size_t)d->ncases * (size_t)d->nkeys);
  hid_t g =
      H5Gcreate2(ix->file, "/summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int st = g < 0 ? ROD_EIO : root_attrs(ix->file, id);
  if (g >= 0)
    H5Gclose(g);
  for (int i = 0; i < IX_COUNT && st == ROD_OK; i++) {
    size_t w = i == IX_KEYS                ? wk
               : i == IX_TEXT              ? wt
               : i == IX_FILE              ? 24
               : defs[i].type == IX_STRING ? ROD_SWEEP_TEXT
                                           : 0;
    ix->ds[i] = make_dataset(ix->file, i, d->ncases, d->nkeys, w);
    if (ix->ds[i] < 0)
      st = ROD_EIO;
  }
  if (st == ROD_OK) {
    const char *names[ROD_CASE_STATUSES];
    for (int k = 0; k < ROD_CASE_STATUSES; k++)
      names[k] = status_names[k];
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hsize_t n = ROD_CASE_STATUSES;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(ix->ds[IX_STATUS], "enum_names", t, sp, H5P_DEFAULT,
                         H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, t, names) < 0)
      st = ROD_EIO;
    if (a >= 0)
      H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
  }
  if (st == ROD_OK)
    st = write_tables(ix, d);
  if (st == ROD_OK && H5Fflush(ix->file, H5F_SCOPE_LOCAL) < 0)
    st = ROD_EIO;
  for (int i = 0; i < IX_COUNT; i++)
    if (ix->ds[i] > 0)
      H5Dclose(ix->ds[i]);
  herr_t closed = H5Fclose(ix->file);
  free(ix);
  if (st == ROD_OK && closed < 0)
    st = ROD_EIO;
  rod_error cerr = {{0}, {0}, {0}, 0};
  if (st == ROD_OK && rod_outfile_commit(o, &cerr) != ROD_OK)
    st = ROD_EIO;
  rod_outfile_close(o, st != ROD_OK);
  if (st != ROD_OK)
    return rod_error_set(err, st, path, "", "cannot write the index%s%s",
                         cerr.message[0] ? ": " : "", cerr.message);
  return sweep_index_open(path, out, err);
}

int sweep_index_open(const char *path, sweep_index **out, rod_error *err) {
  sweep_index *ix = calloc(1, sizeof *ix);
  if (!ix)
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  snprintf(ix->path, sizeof ix->path, "%s", path);
  hid_t fapl = access_plist();
  H5E_BEGIN_TRY { ix->file = H5Fopen(path, H5F_ACC_RDWR, fapl); }
  H5E_END_TRY;
  H5Pclose(fapl);
  if (ix->file < 0) {
    free(ix);
    return rod_error_set(err, ROD_EIO, path, "",
                         "cannot open the index (not an HDF5 file?)");
  }
  char *format = rod_h5_get_text(ix->file, "format");
  bool ours = format && strcmp(format, "rodsim sweep index") == 0;
  free(format);
  int st = ours && get_int_attr(ix->file, "cases", &ix->cases) == ROD_OK
               ? ROD_OK
               : ROD_EINVAL;
  for (int i = 0; i < IX_COUNT && st == ROD_OK; i++) {
    H5E_BEGIN_TRY { ix->ds[i] = H5Dopen2(ix->file, defs[i].path, H5P_DEFAULT); }
    H5E_END_TRY;
    if (ix->ds[i] < 0)
      st = ROD_EINVAL;
  }
  if (st == ROD_OK) {
    hid_t sp = H5Dget_space(ix->ds[IX_KEYS]);
    hsize_t k = 0;
    H5Sget_simple_extent_dims(sp, &k, NULL);
    H5Sclose(sp);
    ix->keys = (int)k;
    ix->status = malloc((size_t)(ix->cases > 0 ? ix->cases : 1));
    if (!ix->status || H5Dread(ix->ds[IX_STATUS], H5T_NATIVE_SCHAR, H5S_ALL,
                               H5S_ALL, H5P_DEFAULT, ix->status) < 0)
      st = ROD_EINVAL;
  }
  if (st != ROD_OK) {
    close_all(ix);
    return rod_error_set(err, ROD_EINVAL, path, "",
                         "not a rodsim sweep index (or damaged)");
  }
  *out = ix;
  return ROD_OK;
}

/* The first case whose texts differ, or -1; key k too. */
static void first_difference(sweep_index *ix, const rod_sweep_def *d, int *c,
                             int *k) {
  *c = *k = -1;
  hid_t ft = H5Dget_type(ix->ds[IX_TEXT]);
  size_t w = H5Tget_size(ft);
  H5Tclose(ft);
  const size_t n = (size_t)ix->cases * (size_t)ix->keys;
  char *buf = malloc(n * w + 1);
  hid_t mt = string_type(w);
  if (buf &&
      H5Dread(ix->ds[IX_TEXT], mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
    for (size_t i = 0; i < n; i++)
      if (strncmp(buf + i * w, d->texts[i], w) != 0 ||
          strlen(d->texts[i]) >= w) {
        *c = (int)(i / (size_t)ix->keys);
        *k = (int)(i % (size_t)ix->keys);
        break;
      }
  } else {
    *c = 0;
  }
  H5Tclose(mt);
  free(buf);
}

/* The first line where two INI texts differ, for the message. */
static void first_line_differing(const char *a, const char *b, char *out,
                                 size_t size) {
  while (*a && *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a);
    size_t lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || strncmp(a, b, la) != 0) {
      snprintf(out, size, "'%.*s' where it held '%.*s'",
               (int)(lb < 80 ? lb : 80), b, (int)(la < 80 ? la : 80), a);
      return;
    }
    a += la + (ea ? 1 : 0);
    b += lb + (eb ? 1 : 0);
  }
  snprintf(out, size, "a scenario of another length");
}

void sweep_index_differs(sweep_index *ix, const sweep_identity *id, char *why,
                         size_t size) {
  const rod_sweep_def *d = id->def;
  why[0] = '\0';
  int is_static = 0;
  get_int_attr(ix->file, "static", &is_static);
  if (ix->cases != d->ncases || ix->keys != d->nkeys) {
    snprintf(why, size, "it holds %d cases of %d keys, this sweep has %d of %d",
             ix->cases, ix->keys, d->ncases, d->nkeys);
    return;
  }
  hid_t ft = H5Dget_type(ix->ds[IX_KEYS]);
  size_t w = H5Tget_size(ft);
  H5Tclose(ft);
  char *keys = malloc((size_t)ix->keys * w + 1);
  hid_t mt = string_type(w);
  bool read = keys && H5Dread(ix->ds[IX_KEYS], mt, H5S_ALL, H5S_ALL,
                              H5P_DEFAULT, keys) >= 0;
  H5Tclose(mt);
  for (int k = 0; k < ix->keys && !why[0]; k++)
    if (!read || strncmp(keys + (size_t)k * w, d->keys[k], w) != 0)
      snprintf(why, size, "it varies %s where this sweep varies %s",
               read ? keys + (size_t)k * w : "?", d->keys[k]);
  free(keys);
  if (why[0])
    return;
  int c, k;
  first_difference(ix, d, &c, &k);
  if (c >= 0) {
    snprintf(why, size, "case %d differs (%s = %s in this sweep)", c,
             d->keys[k < 0 ? 0 : k],
             d->texts[(size_t)c * (size_t)d->nkeys + (size_t)(k < 0 ? 0 : k)]);
    return;
  }
  if (is_static != (int)id->static_only) {
    snprintf(why, size, "it %s --static",
             is_static ? "ran with" : "ran without");
    return;
  }
  char *scenario = rod_h5_get_text(ix->file, "scenario");
  if (!scenario || strcmp(scenario, id->scenario) != 0) {
    char line[200];
    first_line_differing(scenario ? scenario : "", id->scenario, line,
                         sizeof line);
    snprintf(why, size, "its scenario differs: %s", line);
  }
  free(scenario);
}

int sweep_index_cases(const sweep_index *ix) { return ix->cases; }

int sweep_index_status(const sweep_index *ix, int c) { return ix->status[c]; }

static int flush(sweep_index *ix) {
  return H5Fflush(ix->file, H5F_SCOPE_LOCAL) < 0 ? ROD_EIO : ROD_OK;
}

int sweep_index_set_status(sweep_index *ix, int c, int status) {
  signed char s = (signed char)status;
  int st = write_rows(ix, IX_STATUS, (hsize_t)c, 1, 0, &s);
  if (st == ROD_OK)
    st = flush(ix);
  if (st == ROD_OK)
    ix->status[c] = s;
  return st;
}

/* Case c's record written from rec or read into it: texts and figures
 * (not the status). */
static int record_io(sweep_index *ix, int c, rod_case_record *rec, bool write) {
  const hsize_t row = (hsize_t)c;
  int st = rows_io(ix, IX_MESSAGE, row, 1, ROD_SWEEP_TEXT, rec->message, write);
  if (st == ROD_OK)
    st = rows_io(ix, IX_WARNING, row, 1, ROD_SWEEP_TEXT, rec->warning, write);
  const struct {
    int i;
    double *v;
  } figures[] = {
      {IX_WALL, &rec->wall_time},     {IX_TIME, &rec->time},
      {IX_TIP_FINAL, rec->tip_final}, {IX_TIP_MIN, rec->tip_min},
      {IX_TIP_MAX, rec->tip_max},     {IX_FREQUENCY, &rec->frequency},
      {IX_DRIFT, &rec->energy_drift}, {IX_ERROR, &rec->error_estimate}};
  for (size_t k = 0; k < sizeof figures / sizeof *figures && st == ROD_OK; k++)
    st = rows_io(ix, figures[k].i, row, 1, 0, figures[k].v, write);
  return st;
}

int sweep_index_record(sweep_index *ix, int c, const rod_case_record *rec) {
  int st = record_io(ix, c, (rod_case_record *)rec, true);
  if (st == ROD_OK)
    st = flush(ix);
  if (st == ROD_OK)
    st = sweep_index_set_status(ix, c, rec->status);
  return st;
}

int sweep_index_read(sweep_index *ix, int c, rod_case_record *rec) {
  rod_case_record_init(rec, ix->status[c]);
  int st = record_io(ix, c, rec, false);
  rec->message[ROD_SWEEP_TEXT - 1] = rec->warning[ROD_SWEEP_TEXT - 1] = '\0';
  return st;
}

int sweep_index_close(sweep_index *ix) {
  if (!ix)
    return ROD_OK;
  for (int i = 0; i < IX_COUNT; i++)
    if (ix->ds[i] > 0)
      H5Dclose(ix->ds[i]);
  herr_t e = H5Fclose(ix->file);
  free(ix->status);
  free(ix);
  return e < 0 ? ROD_EIO : ROD_OK;
}
