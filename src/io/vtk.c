/* A copy of a run's HDF5 file as VTK XML files (rod/export.h): one
 * PolyData file (.vtp) a whole sample, the rod as one polyline with its
 * point data and the sample's per-sample values as field data, binary in
 * raw appended form (UInt64 byte counts), and a ParaView data collection
 * (.pvd) naming them with their times (VTK's XML file formats, "VTK File
 * Formats", VTK User's Guide). The samples are read in blocks of about
 * 4 MB, so a file of any length is copied in bounded memory. Every file
 * is written under the output rules (io/outfile.h): the collection's
 * writer's lock is held from the first sample's file to the last, each
 * file replaces only one rodsim wrote (its mark, VTK_MARK) unless forced,
 * never the HDF5 input. */
#include "rod/export.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/export_run.h"
#include "io/h5read.h"
#include "io/writers.h"

/* The second line of every file written: how rodsim knows its own. */
#define VTK_MARK "<!-- rodsim: a sample of a run, VTK copy -->"

/* Bytes of the samples read at once (all arrays). */
#define VTK_BLOCK_BYTES (4.0 * 1024 * 1024)

static const char *byte_order(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one ? "LittleEndian" : "BigEndian";
}

/* One array of a sample's file: its name, components, values (tuples x
 * components doubles) and how it is stored. */
typedef struct {
  const char *name;
  int components;
  long tuples;
  const double *values;
  bool integer; /* stored as Int32, else Float64 */
} vtk_array;

/* Bytes of an array in the appended block: its byte count, then data. */
static uint64_t stored_bytes(const vtk_array *a) {
  return (uint64_t)a->tuples * (uint64_t)a->components * (a->integer ? 4 : 8);
}

static void put_header(FILE *out, const vtk_array *a, uint64_t *offset) {
  fprintf(out, "<DataArray type=\"%s\"", a->integer ? "Int32" : "Float64");
  if (a->name)
    fprintf(out, " Name=\"%s\"", a->name);
  fprintf(out, " NumberOfComponents=\"%d\"", a->components);
  if (a->tuples == 1)
    fputs(" NumberOfTuples=\"1\"", out);
  fprintf(out, " format=\"appended\" offset=\"%llu\"/>\n",
          (unsigned long long)*offset);
  *offset += 8 + stored_bytes(a);
}

static void put_data(FILE *out, const vtk_array *a) {
  const uint64_t n = stored_bytes(a);
  fwrite(&n, sizeof n, 1, out);
  const size_t count = (size_t)a->tuples * (size_t)a->components;
  if (!a->integer) {
    fwrite(a->values, sizeof(double), count, out);
    return;
  }
  for (size_t i = 0; i < count; i++) {
    int32_t v = (int32_t)a->values[i];
    fwrite(&v, sizeof v, 1, out);
  }
}

/* The polyline through points 0 .. N-1, as connectivity and offsets. */
typedef struct {
  int64_t *connectivity;
  int64_t offset;
} polyline;

/* One sample's file: field arrays fa[0 .. nf-1], point arrays pa[0 ..
 * np-1], points (N x 3). */
static void write_vtp(FILE *out, const char *byte_order_name, int points,
                      const polyline *line, const vtk_array *fa, int nf,
                      const vtk_array *pa, int np, const double *xyz) {
  uint64_t offset = 0;
  const vtk_array pts = {NULL, 3, points, xyz, false};
  fprintf(out,
          "<?xml version=\"1.0\"?>\n" VTK_MARK "\n<VTKFile type=\"PolyData\" "
          "version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
          "<PolyData>\n<FieldData>\n",
          byte_order_name);
  for (int i = 0; i < nf; i++)
    put_header(out, &fa[i], &offset);
  fprintf(out,
          "</FieldData>\n<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" "
          "NumberOfLines=\"1\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
          "<PointData Scalars=\"radius\">\n",
          points);
  for (int i = 0; i < np; i++)
    put_header(out, &pa[i], &offset);
  fputs("</PointData>\n<Points>\n", out);
  put_header(out, &pts, &offset);
  fprintf(out,
          "</Points>\n<Lines>\n<DataArray type=\"Int64\" "
          "Name=\"connectivity\" format=\"appended\" offset=\"%llu\"/>\n",
          (unsigned long long)offset);
  offset += 8 + 8 * (uint64_t)points;
  fprintf(out,
          "<DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
          "offset=\"%llu\"/>\n</Lines>\n</Piece>\n</PolyData>\n"
          "<AppendedData encoding=\"raw\">\n_",
          (unsigned long long)offset);
  for (int i = 0; i < nf; i++)
    put_data(out, &fa[i]);
  for (int i = 0; i < np; i++)
    put_data(out, &pa[i]);
  put_data(out, &pts);
  uint64_t n = 8 * (uint64_t)points;
  fwrite(&n, sizeof n, 1, out);
  fwrite(line->connectivity, sizeof(int64_t), (size_t)points, out);
  n = 8;
  fwrite(&n, sizeof n, 1, out);
  fwrite(&line->offset, sizeof line->offset, 1, out);
  fputs("\n</AppendedData>\n</VTKFile>\n", out);
}

/* The exporter's state: the run, the arrays of the current block. */
typedef struct {
  ex_run run;
  const char *dir;
  rod_out_rules rules; /* of every file written */
  char stem[256];
  int digits; /* of the sample numbers in file names */
  double *block[EX_MAX_ARRAYS];
  double *radius, *inner, *s;
  polyline line;
} vtk_export;

static int make_dir(const char *dir, rod_error *err) {
  struct stat st;
  if (stat(dir, &st) == 0)
    return S_ISDIR(st.st_mode) ? ROD_OK
                               : rod_error_set(err, ROD_EINVAL, dir, NULL,
                                               "exists and is not a folder");
  if (mkdir(dir, 0777) != 0)
    return rod_error_set(err, ROD_EIO, dir, NULL, "cannot create (%s)",
                         strerror(errno));
  return ROD_OK;
}

/* The constant point arrays: radius, inner radius, /rod/s; the polyline. */
static int prepare(vtk_export *v, rod_error *err) {
  const int n = v->run.points;
  v->radius = malloc(3 * sizeof(double) * (size_t)n);
  v->line.connectivity = malloc(sizeof(int64_t) * (size_t)n);
  if (!v->radius || !v->line.connectivity)
    return rod_error_set(err, ROD_ENOMEM, v->run.path, NULL, "out of memory");
  v->inner = v->radius + n;
  for (int j = 0; j < n; j++) {
    v->radius[j] = v->run.radius;
    v->inner[j] = v->run.inner_radius;
    v->line.connectivity[j] = j;
  }
  v->line.offset = n;
  hsize_t dims[1] = {(hsize_t)n};
  double *s = NULL;
  int st = rod_h5_read(v->run.file, v->run.path, "/rod/s", H5T_NATIVE_DOUBLE,
                       sizeof *s, 1, dims, (void **)&s, err);
  v->s = s;
  return st;
}

/* Sample i (the b-th of its block): its .vtp file. */
static int write_sample(vtk_export *v, long i, long b, long long *bytes,
                        rod_error *err) {
  const ex_run *r = &v->run;
  vtk_array fa[EX_MAX_ARRAYS + 1], pa[EX_MAX_ARRAYS + 3];
  int nf = 0, np = 0;
  fa[nf++] = (vtk_array){"TimeValue", 1, 1, &r->time[i], false};
  pa[np++] = (vtk_array){"radius", 1, r->points, v->radius, false};
  if (r->inner_radius > 0)
    pa[np++] = (vtk_array){"inner_radius", 1, r->points, v->inner, false};
  pa[np++] = (vtk_array){"s", 1, r->points, v->s, false};
  for (int k = 0; k < r->narrays; k++) {
    if (k == r->position)
      continue;
    const ex_array *a = &r->array[k];
    const long row = (a->per_point ? r->points : 1) * (long)a->components;
    vtk_array x = {a->name, a->components, a->per_point ? r->points : 1,
                   v->block[k] + b * row, a->integer};
    if (a->per_point)
      pa[np++] = x;
    else
      fa[nf++] = x;
  }
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s_%0*ld.vtp", v->dir, v->stem, v->digits,
               i) >= (int)sizeof path)
    return rod_error_set(err, ROD_EINVAL, v->dir, NULL, "name too long");
  rod_outfile *o;
  int st = rod_outfile_open(path, &v->rules, &o, err);
  if (st != ROD_OK)
    return st;
  FILE *out = rod_outfile_stream(o);
  if (!out)
    st = rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  else {
    write_vtp(out, byte_order(), r->points, &v->line, fa, nf, pa, np,
              v->block[r->position] + b * 3 * (long)r->points);
    st = ex_finish(out, path, bytes, err);
  }
  if (st == ROD_OK)
    st = rod_outfile_commit(o, err);
  rod_outfile_close(o, st != ROD_OK);
  return st;
}

/* The collection's name, DIR/STEM.pvd, into path. */
static int pvd_name(const vtk_export *v, char *path, size_t size,
                    rod_error *err) {
  if (snprintf(path, size, "%s/%s.pvd", v->dir, v->stem) >= (int)size)
    return rod_error_set(err, ROD_EINVAL, v->dir, NULL, "name too long");
  return ROD_OK;
}

/* The collection, to o (opened by its name): every sample's file and
 * time; committed. */
static int write_pvd(const vtk_export *v, rod_outfile *o, long long *bytes,
                     rod_error *err) {
  char path[4096];
  int st = pvd_name(v, path, sizeof path, err);
  if (st != ROD_OK)
    return st;
  FILE *out = rod_outfile_stream(o);
  if (!out)
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  fprintf(out,
          "<?xml version=\"1.0\"?>\n" VTK_MARK "\n<VTKFile type=\"Collection\" "
          "version=\"0.1\" byte_order=\"%s\">\n<Collection>\n",
          byte_order());
  for (long i = 0; i < v->run.samples; i++) {
    fputs("<DataSet timestep=\"", out);
    ex_put_double(out, v->run.time[i]);
    fprintf(out, "\" part=\"0\" file=\"%s_%0*ld.vtp\"/>\n", v->stem, v->digits,
            i);
  }
  fputs("</Collection>\n</VTKFile>\n", out);
  st = ex_finish(out, path, bytes, err);
  return st == ROD_OK ? rod_outfile_commit(o, err) : st;
}

/* Samples per block: about VTK_BLOCK_BYTES of all arrays. */
static long block_samples(const ex_run *r) {
  double row = 0;
  for (int k = 0; k < r->narrays; k++)
    row +=
        8.0 * r->array[k].components * (r->array[k].per_point ? r->points : 1);
  long b = (long)(VTK_BLOCK_BYTES / row);
  return b < 1 ? 1 : b > r->samples ? r->samples : b;
}

static void free_block(vtk_export *v) {
  for (int k = 0; k < v->run.narrays; k++) {
    free(v->block[k]);
    v->block[k] = NULL;
  }
}

/* The output rules of the files of a copy of h5_path (key: names the
 * output in messages). */
static rod_out_rules vtk_rules(const char *h5_path, bool force,
                               const char *key) {
  rod_out_rules rules = {
      .kind = ROD_OUT_TEXT, .mark = VTK_MARK, .key = key, .force = force};
  rod_out_add_input(&rules, h5_path);
  return rules;
}

int rod_export_vtk_check(const char *h5_path, const char *dir, bool force,
                         const char *key, rod_error *err) {
  vtk_export v = {.dir = dir};
  struct stat st;
  if (!ex_stem(h5_path, v.stem, sizeof v.stem) || stat(dir, &st) != 0)
    return ROD_OK; /* the export says so, or makes the folder */
  char pvd[4096];
  int c = pvd_name(&v, pvd, sizeof pvd, err);
  rod_out_rules rules = vtk_rules(h5_path, force, key);
  if (c == ROD_OK)
    c = rod_outfile_check(pvd, &rules, err);
  return c == ROD_EIO && rod_outfile_busy(pvd) ? ROD_EINVAL : c;
}

int rod_export_vtk(const char *h5_path, const char *dir, rod_export_info *info,
                   rod_error *err) {
  return rod_export_vtk_with(h5_path, dir, false, info, err);
}

int rod_export_vtk_with(const char *h5_path, const char *dir, bool force,
                        rod_export_info *info, rod_error *err) {
  rod_export_info scratch;
  info = info ? info : &scratch;
  memset(info, 0, sizeof *info);
  vtk_export v;
  memset(&v, 0, sizeof v);
  v.dir = dir;
  v.rules = vtk_rules(h5_path, force, NULL);
  if (!ex_stem(h5_path, v.stem, sizeof v.stem))
    return rod_error_set(err, ROD_EINVAL, h5_path, NULL,
                         "has no file name to name the VTK files by");
  int st = ex_run_open(h5_path, &v.run, err);
  if (st != ROD_OK)
    return st;
  const ex_run *r = &v.run;
  v.digits = 6;
  for (long t = 1000000; t < r->samples; t *= 10)
    v.digits++;
  st = make_dir(dir, err);
  /* the collection's lock first: one writer of the folder's files */
  char pvd[4096];
  rod_outfile *collection = NULL;
  if (st == ROD_OK && (st = pvd_name(&v, pvd, sizeof pvd, err)) == ROD_OK)
    st = rod_outfile_open(pvd, &v.rules, &collection, err);
  if (st == ROD_OK)
    st = prepare(&v, err);
  const long per_block = block_samples(r);
  for (long first = 0; st == ROD_OK && first < r->samples; first += per_block) {
    long count =
        first + per_block > r->samples ? r->samples - first : per_block;
    for (int k = 0; k < r->narrays && st == ROD_OK; k++)
      st = ex_run_read(r, &r->array[k], first, count, &v.block[k], err);
    for (long b = 0; b < count && st == ROD_OK; b++)
      st = write_sample(&v, first + b, b, &info->bytes, err);
    free_block(&v);
  }
  if (st == ROD_OK)
    st = write_pvd(&v, collection, &info->bytes, err);
  rod_outfile_close(collection, st != ROD_OK);
  if (st == ROD_OK)
    ex_run_count(r, info);
  free(v.radius);
  free(v.s);
  free(v.line.connectivity);
  ex_run_close(&v.run);
  return st;
}
