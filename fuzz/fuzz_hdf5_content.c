/* libFuzzer target: the HDF5 readers on well-formed files with hostile
 * content. The input does not hold the file's bytes (fuzz_hdf5 fuzzes
 * those, and meets faults of libhdf5's own parser): it drives the writing,
 * through the HDF5 API (in memory: the core driver, then one write), of
 * a file that libhdf5 parses, whose datasets are present or missing, of
 * other ranks, extents (0, 1, huge in sparse chunks), types (integers,
 * float32, big-endian, strings, compounds, enums, arrays), layouts
 * (contiguous, compact, chunked, deflated), fill values and values (NaN,
 * infinities, denormals, unsorted and repeated times), with groups and
 * links where datasets belong, a /samples count above or below the
 * extents and attributes of any type. Then the readers fuzz_hdf5 calls
 * read it: rod_shape_read and rod_run_positions_read. What they accept
 * holds finite values and increasing times; what they refuse is one error
 * with a message; no HDF5 object stays open. Then the exporters, which
 * read a run's file their own way (/rod/s, the datasets of its groups, the
 * scenario the file records: drawn too): rod_export_xdmf and
 * rod_export_vtk write their files or refuse with a message, leaving no
 * .part or .lock file and no HDF5 object open. */
#include <dirent.h>
#include <float.h>
#include <hdf5.h>
#include <math.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "io/runfile.h"
#include "rod/export.h"
#include "rod/shape.h"

/* The input as a stream of choices; 0 once it is used up. */
typedef struct {
  const uint8_t *p;
  size_t n;
} choices;

static unsigned take(choices *c, unsigned range) {
  if (!c->n || range <= 1)
    return 0;
  c->n--;
  return *c->p++ % range;
}

/* T, the samples every dataset nominally has, and N, the points a frame */
static hsize_t T, N;

/* A value: mostly the i-th of an increasing sequence, else one a reader
 * must refuse or survive (NaN, infinities, denormals, a repeat, extremes)
 * or eight bytes of the input. */
static double value(choices *c, hsize_t i, double prev) {
  unsigned k = take(c, 24);
  switch (k) {
  case 0:
    return NAN;
  case 1:
    return INFINITY;
  case 2:
    return -INFINITY;
  case 3:
    return 4.9406564584124654e-324; /* smallest denormal */
  case 4:
    return -0.0;
  case 5:
    return prev; /* a repeated time */
  case 6:
    return prev - 1; /* an earlier one */
  case 7:
    return DBL_MAX;
  case 8:
    return -DBL_MAX;
  case 9:
    return 0x1p53;
  case 10:
    return DBL_MIN / 3;
  case 11: {
    double d = 0;
    for (int b = 0; b < 8; b++)
      ((uint8_t *)&d)[b] = (uint8_t)take(c, 256);
    return d;
  }
  case 12:
    return (double)T;
  case 13:
    return (double)T - 1;
  case 14:
    return (double)T + 1;
  case 15:
    return 1;
  default:
    return 0.01 * (double)i;
  }
}

/* A file type: the right one (nominal) most of the time. */
static hid_t file_type(choices *c, hid_t nominal, bool *numeric) {
  static const hid_t *simple[] = {
      &H5T_IEEE_F64LE_g, &H5T_IEEE_F64BE_g, &H5T_IEEE_F32LE_g, &H5T_STD_I8LE_g,
      &H5T_STD_U8LE_g,   &H5T_STD_I16BE_g,  &H5T_STD_I32LE_g,  &H5T_STD_I64LE_g,
      &H5T_STD_U64BE_g,  &H5T_STD_B8LE_g,
  };
  const unsigned nsimple = sizeof simple / sizeof *simple;
  unsigned k = take(c, 2 * nsimple + 5);
  *numeric = true;
  if (k < nsimple)
    return H5Tcopy(nominal);
  k -= nsimple;
  if (k < nsimple) {
    *numeric = k < 9; /* H5T_STD_B8LE: a bitfield */
    return H5Tcopy(*simple[k]);
  }
  k -= nsimple;
  *numeric = false;
  hid_t t = -1;
  switch (k) {
  case 0: /* a string of 8 bytes */
    t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 8);
    return t;
  case 1: /* a string of any length */
    t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    return t;
  case 2: /* a compound holding a double */
    t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "x", 0, H5T_IEEE_F64LE);
    H5Tinsert(t, "n", 8, H5T_STD_I64LE);
    return t;
  case 3: { /* an enum */
    t = H5Tenum_create(H5T_NATIVE_INT);
    int v = 0;
    H5Tenum_insert(t, "no", &v);
    v = 1;
    H5Tenum_insert(t, "yes", &v);
    return t;
  }
  default: { /* an array of two doubles */
    hsize_t two = 2;
    return H5Tarray_create2(H5T_IEEE_F64LE, 1, &two);
  }
  }
}

/* An extent for a nominal one: mostly itself, else 0, 1, one off, or huge
 * (then chunked: HDF5 stores only the chunks written). */
static hsize_t extent(choices *c, hsize_t nominal, bool *huge) {
  static const hsize_t big[] = {1u << 20,       1u << 27,   1u << 28,
                                (1u << 28) + 1, 1ull << 32, 1ull << 40};
  unsigned k = take(c, 16);
  switch (k) {
  case 0:
    return 0;
  case 1:
    return 1;
  case 2:
    return nominal + 1;
  case 3:
    return nominal ? nominal - 1 : 2;
  case 4:
    return 3;
  case 5:
  case 6:
    *huge = true;
    return big[take(c, 6)];
  default:
    return nominal;
  }
}

/* Dataset name with nominal rank and extent: write what the input says
 * there (nothing, a group, a link, a dataset). */
static void put(choices *c, hid_t f, const char *name, hid_t nominal_type,
                int rank, const hsize_t *nominal) {
  const int nominal_rank = rank;
  unsigned what = take(c, 12);
  if (what == 0)
    return;
  if (what == 1) {
    hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
      H5Gclose(g);
    return;
  }
  if (what == 2) {
    H5Lcreate_soft(take(c, 2) ? "/nowhere" : "/time", f, name, H5P_DEFAULT,
                   H5P_DEFAULT);
    return;
  }
  if (what == 3) {
    H5Lcreate_external("rodsim-fuzz-absent.h5", "/time", f, name, H5P_DEFAULT,
                       H5P_DEFAULT);
    return;
  }
  if (take(c, 4) == 0)
    rank = (int)take(c, 5);
  hsize_t dims[4], maxdims[4], chunk[4];
  bool huge = false;
  hsize_t count = 1;
  for (int k = 0; k < rank; k++) {
    const hsize_t nom = k < nominal_rank ? nominal[k] : 2;
    dims[k] = extent(c, nom, &huge);
    /* libhdf5 1.10.8 itself fails writing to extents of 2^64 values and
     * more (a SEGV in H5F__accum_read under H5Dwrite's chunk lookup) */
    if (dims[k] > 1 && count > (1ull << 62) / dims[k])
      dims[k] = nom;
    maxdims[k] = H5S_UNLIMITED;
    chunk[k] = 1 + take(c, 8);
    count =
        dims[k] && count > UINT64_MAX / dims[k] ? UINT64_MAX : count * dims[k];
  }
  bool numeric;
  hid_t type = file_type(c, nominal_type, &numeric);
  unsigned layout = huge ? 2 + take(c, 2) : take(c, 4);
  if (layout == 1 && (count > 1000 || rank == 0))
    layout = 0;
  if (rank == 0 && layout > 1)
    layout = 0; /* a scalar is not chunked */
  hid_t space = rank
                    ? H5Screate_simple(rank, dims, layout >= 2 ? maxdims : NULL)
                    : H5Screate(H5S_SCALAR);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (layout == 1)
    H5Pset_layout(dcpl, H5D_COMPACT);
  if (layout >= 2)
    H5Pset_chunk(dcpl, rank, chunk);
  if (layout == 3) {
    if (take(c, 2))
      H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, take(c, 10));
  }
  if (numeric && take(c, 3) == 0) { /* what unwritten chunks read as */
    double fill = value(c, 0, 0);
    hid_t t =
        H5Tget_class(type) == H5T_FLOAT ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
    long long n = isfinite(fill) && fabs(fill) < 0x1p62 ? (long long)fill : 7;
    if (H5Tget_class(type) != H5T_BITFIELD)
      H5Pset_fill_value(dcpl, t,
                        t == H5T_NATIVE_DOUBLE ? (void *)&fill : (void *)&n);
  }
  hid_t ds = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  /* the values: all of a small extent, the first of a huge one */
  const hsize_t most = 4096;
  if (ds >= 0 && numeric && H5Tget_class(type) != H5T_BITFIELD && count) {
    hsize_t n = count < most ? count : most;
    double *v = malloc(n * sizeof *v);
    if (!v)
      abort();
    for (hsize_t i = 0; i < n; i++)
      v[i] = value(c, i, i ? v[i - 1] : 0);
    hsize_t start[4] = {0}, one[4] = {1, 1, 1, 1};
    hid_t mem = H5Screate_simple(1, &n, NULL);
    if (count > n) /* the first n along the last dimension, or one */
      for (int k = 0; k < rank; k++)
        one[k] = k == rank - 1 && dims[k] >= n ? n : 1;
    hsize_t sel = 1;
    for (int k = 0; k < rank; k++)
      sel *= count > n ? one[k] : dims[k];
    if (count > n) {
      H5Sclose(mem);
      mem = H5Screate_simple(1, &sel, NULL);
      H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, one, NULL);
    }
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, v);
    H5Sclose(mem);
    free(v);
  }
  if (ds >= 0 && take(c, 4) == 0) { /* an attribute of some type */
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(ds, take(c, 2) ? "units" : "samples", type, as,
                         H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0)
      H5Aclose(a);
    H5Sclose(as);
  }
  if (ds >= 0)
    H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Tclose(type);
}

/* The root attribute `scenario`: none, a scenario that reads (hollow or
 * not), text of the input's bytes, or a number. */
static void put_scenario(choices *c, hid_t f) {
  unsigned k = take(c, 5);
  if (k == 0)
    return;
  char text[80] = "";
  if (k == 1)
    snprintf(text, sizeof text, "[rod]\ndiameter = 0.004\n");
  else if (k == 2)
    snprintf(text, sizeof text,
             "[rod]\ndiameter = 0.004\ninner_diameter = 0.002\n");
  else
    for (size_t i = 0, n = take(c, sizeof text); i < n; i++)
      text[i] = (char)(1 + take(c, 255));
  hid_t as = H5Screate(H5S_SCALAR);
  hid_t type = H5Tcopy(k == 4 ? H5T_STD_I32LE : H5T_C_S1);
  if (k != 4)
    H5Tset_size(type, take(c, 2) ? H5T_VARIABLE : strlen(text) + 1);
  hid_t a = H5Acreate2(f, "scenario", type, as, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) {
    const char *v = text;
    int one = 1;
    H5Awrite(a, type,
             k == 4                         ? (const void *)&one
             : H5Tis_variable_str(type) > 0 ? (const void *)&v
                                            : (const void *)text);
    H5Aclose(a);
  }
  H5Tclose(type);
  H5Sclose(as);
}

/* The file the input describes, as fuzz_file's scratch file: built in
 * memory (the core driver), written out at its close. (An image taken
 * while the file is open is marked open for writing in the latest
 * format's superblock, and H5Fopen refuses it.) */
static const char *write_file(choices *c) {
  T = 1 + take(c, 9);
  N = take(c, 6);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 1);
  if (take(c, 2))
    H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  const char *path = fuzz_file((const uint8_t *)"", 0, ".h5");
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (f < 0)
    abort();
  const hsize_t t1[1] = {T}, shape[3] = {T, N, 2}, pos[3] = {T, N, 3};
  const hsize_t none[1] = {0};
  unsigned rod = take(c, 8); /* /rod: a group but when 0 or 1 */
  if (rod == 1)
    put(c, f, "/rod", H5T_IEEE_F64LE, 1, t1);
  else if (rod > 1) {
    hid_t g = H5Gcreate2(f, "/rod", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
      H5Gclose(g);
  }
  put(c, f, "/samples", H5T_STD_I64LE, 0, none);
  put(c, f, "/time", H5T_IEEE_F64LE, 1, t1);
  put(c, f, "/rod/position", H5T_IEEE_F64LE, 3, pos);
  put(c, f, "/shape", H5T_IEEE_F64LE, 3, shape);
  put(c, f, "/valid", H5T_STD_I8LE, 1, t1);
  put(c, f, "/flags", H5T_STD_I8LE, 1, t1);
  put(c, f, "/length", H5T_IEEE_F64LE, 1, t1);
  put(c, f, "/pixels", H5T_IEEE_F64LE, 3, shape);
  if (take(c, 2)) { /* the file's old count, an attribute of any type */
    bool numeric;
    hid_t type = file_type(c, H5T_STD_I64LE, &numeric);
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "samples", type, as, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0)
      H5Aclose(a);
    H5Sclose(as);
    H5Tclose(type);
  }
  /* what the exporters read besides (drawn last: the earlier choices of
   * the corpus's inputs keep their meaning) */
  const hsize_t n1[1] = {N}, tip[2] = {T, 3};
  const char *groups[] = {"/tip", "/energy"};
  for (int i = 0; i < 2; i++) {
    hid_t g = H5Gcreate2(f, groups[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
      H5Gclose(g);
  }
  put(c, f, "/rod/s", H5T_IEEE_F64LE, 1, n1);
  put(c, f, "/tip/position", H5T_IEEE_F64LE, 2, tip);
  put(c, f, "/energy/kinetic", H5T_IEEE_F64LE, 1, t1);
  put(c, f, "/rod/velocity", H5T_IEEE_F64LE, 3, pos);
  put_scenario(c, f);
  if (H5Fclose(f) < 0)
    abort();
  return path;
}

/* A refusal: one error with a message, naming the file (printed when
 * FUZZ_VERBOSE is set, to see what an input tests). */
static void refused(int st, const rod_error *err, const char *path) {
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "refused: %s: %s\n", err->key, err->message);
  FUZZ_CHECK(st == ROD_EINVAL || st == ROD_ENOMEM);
  FUZZ_CHECK(err->message[0] && strcmp(err->file, path) == 0);
}

/* An export's outcome: written (its counts) or refused with a message. */
static void exported(int st, const rod_export_info *info, const rod_error *err,
                     const char *what) {
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "%s: %s\n", what, st == ROD_OK ? "written" : err->message);
  if (st == ROD_OK)
    FUZZ_CHECK(info->samples >= 1 && info->points >= 2);
  else
    FUZZ_CHECK((st == ROD_EINVAL || st == ROD_ENOMEM) && err->message[0]);
}

/* Remove the files of folder dir (and it): each a .vtp or .pvd, none a
 * .part or .lock left behind. */
static void remove_copy(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  char path[1200];
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    const char *dot = strrchr(e->d_name, '.');
    FUZZ_CHECK(dot && (strcmp(dot, ".vtp") == 0 || strcmp(dot, ".pvd") == 0));
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

/* The exporters on the file at path. */
static void export_both(const char *path) {
  char xdmf[600], dir[600], part[700], lock[700];
  snprintf(xdmf, sizeof xdmf, "%s.xdmf", path);
  snprintf(dir, sizeof dir, "%s_vtk", path);
  rod_export_info info;
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_export_xdmf(path, xdmf, &info, &err);
  exported(st, &info, &err, "xdmf");
  FUZZ_CHECK((access(xdmf, F_OK) == 0) == (st == ROD_OK));
  snprintf(part, sizeof part, "%s.part", xdmf);
  snprintf(lock, sizeof lock, "%s.lock", xdmf);
  FUZZ_CHECK(access(part, F_OK) != 0 && access(lock, F_OK) != 0);
  unlink(xdmf);
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
  memset(&err, 0, sizeof err);
  st = rod_export_vtk(path, dir, &info, &err);
  exported(st, &info, &err, "vtk");
  remove_copy(dir);
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  choices c = {data, size};
  const char *path = write_file(&c);
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);

  rod_error err = {{0}, {0}, {0}, 0};
  rod_shape_data *d = NULL;
  int st = rod_shape_read(path, &d, &err);
  if (st == ROD_OK) {
    FUZZ_CHECK(d && d->frames >= 1 && d->points >= 2);
    const size_t k = 2 * (size_t)d->points;
    for (int i = 0; i < d->frames; i++) {
      FUZZ_CHECK(isfinite(d->t[i]) && (i == 0 || d->t[i] > d->t[i - 1]));
      FUZZ_CHECK(d->valid[i] <= 1 && isfinite(d->length[i]));
      for (size_t j = 0; j < k; j++)
        FUZZ_CHECK(isfinite(d->xz[i * k + j]) &&
                   isfinite(d->pixels[i * k + j]));
    }
    if (getenv("FUZZ_VERBOSE"))
      fprintf(stderr, "shape: %d frames of %d points\n", d->frames, d->points);
    rod_shape_free(d);
  } else {
    FUZZ_CHECK(d == NULL);
    refused(st, &err, path);
  }
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);

  memset(&err, 0, sizeof err);
  rod_run_positions *r = NULL;
  st = rod_run_positions_read(path, &r, &err);
  if (st == ROD_OK) {
    FUZZ_CHECK(r && r->samples >= 1 && r->points >= 2);
    for (int i = 0; i < r->samples; i++)
      FUZZ_CHECK(isfinite(r->t[i]) && (i == 0 || r->t[i] > r->t[i - 1]));
    for (size_t i = 0; i < 3 * (size_t)r->samples * (size_t)r->points; i++)
      FUZZ_CHECK(isfinite(r->position[i]));
    if (getenv("FUZZ_VERBOSE"))
      fprintf(stderr, "run: %d samples of %d points\n", r->samples, r->points);
    rod_run_positions_free(r);
  } else {
    FUZZ_CHECK(r == NULL);
    refused(st, &err, path);
  }
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
  export_both(path);
  return 0;
}
