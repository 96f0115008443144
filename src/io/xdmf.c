/* The XDMF description of a run's HDF5 file (rod/export.h, docs/hdf5.md
 * "ParaView and VisIt"): XDMF 2 (Xdmf Model and Format, version 2), a
 * temporal collection of polyline grids whose geometry and attributes are
 * HyperSlabs of the file's datasets, one sample each; the data stays in the
 * HDF5 file.
 *
 * The Domain first lists what every grid shares, as DataItems that the
 * grids take in by XInclude (xpointer element(/1/1/k): the k-th element of
 * the Domain): the polyline's point order, the radius (and a tube's inner
 * radius), /rod/s, and one DataItem for each dataset extended along T. Each
 * geometry's HyperSlab starts with a comment naming its sample: ParaView's
 * Xdmf reader keys the geometry it caches by the text before the first
 * element, which therefore differs from grid to grid. */
#include "rod/export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/datafile.h"
#include "io/export_run.h"
#include "io/outfile.h"
#include "io/writers.h"

/* The comment that opens every file this writer makes. */
#define XDMF_MARK ROD_XDMF_MARK

/* Characters of path escaped for an XML text or attribute. */
static void put_escaped(FILE *out, const char *text) {
  for (const char *c = text; *c; c++)
    switch (*c) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    default:
      fputc(*c, out);
    }
}

/* How the XDMF file names the HDF5 file: its file name when both lie in
 * one folder, else its absolute path. */
static int heavy_name(const char *h5_path, const char *xdmf_path, char *out,
                      size_t size, rod_error *err) {
  char h5_abs[PATH_MAX], dir_h5[PATH_MAX], dir_x[PATH_MAX];
  if (!realpath(h5_path, h5_abs))
    return rod_error_set(err, ROD_EIO, h5_path, NULL, "cannot open (%s)",
                         strerror(errno));
  snprintf(dir_h5, sizeof dir_h5, "%s", h5_abs);
  char *slash = strrchr(dir_h5, '/');
  const char *base = slash ? slash + 1 : dir_h5;
  if (slash)
    *slash = '\0';
  /* the XDMF file's folder: it may not exist yet, its folder must */
  char xdir[PATH_MAX];
  snprintf(xdir, sizeof xdir, "%s", xdmf_path);
  char *xs = strrchr(xdir, '/');
  if (xs)
    *(xs == xdir ? xs + 1 : xs) = '\0';
  else
    snprintf(xdir, sizeof xdir, ".");
  bool same = realpath(xdir, dir_x) && strcmp(dir_x, dir_h5) == 0;
  const char *name = same ? base : h5_abs;
  if (strchr(name, ':'))
    return rod_error_set(err, ROD_EINVAL, h5_path, NULL,
                         "an XDMF file cannot name a file whose name holds "
                         "':' (it separates the file from the dataset)");
  if (snprintf(out, size, "%s", name) >= (int)size)
    return rod_error_set(err, ROD_EINVAL, h5_path, NULL, "name too long");
  return ROD_OK;
}

/* NumberType and Precision of an array's values. */
static void put_number_type(FILE *out, const ex_array *a) {
  const char *type = !a->integer     ? "Float"
                     : a->bytes == 1 ? (a->is_signed ? "Char" : "UChar")
                     : a->is_signed  ? "Int"
                                     : "UInt";
  fprintf(out, "NumberType=\"%s\" Precision=\"%d\"", type, a->bytes);
}

/* Where each shared item stands among the Domain's elements (1 = the
 * first): the grids take them in by xpointer element(/1/1/k). */
typedef struct {
  int polyline, radius, inner_radius, s; /* inner_radius 0: a solid rod */
  int array[EX_MAX_ARRAYS];              /* 0: not in the XDMF file */
} xdmf_layout;

/* Per-point array a's values at one sample: the last dimensions of its
 * dataset, N [k]. */
static void put_point_dims(FILE *out, const ex_run *r, const ex_array *a) {
  fprintf(out, a->rank == 3 ? "%d %d" : "%d", r->points, a->components);
}

/* Sample `index` of per-point array a (Domain element `element`) as a
 * HyperSlab: start, stride and count along each dimension of its dataset
 * (T, N [, k]). */
static void put_slab(FILE *out, const ex_run *r, const ex_array *a,
                     const char *index, int element, bool comment) {
  fputs("<DataItem ItemType=\"HyperSlab\" Dimensions=\"", out);
  put_point_dims(out, r, a);
  fputs("\">", out);
  if (comment)
    fprintf(out, "<!--%s-->", index);
  fprintf(out, "<DataItem Dimensions=\"3 %d\">%s 0%s 1 1%s 1 ", a->rank, index,
          a->rank == 3 ? " 0" : "", a->rank == 3 ? " 1" : "");
  put_point_dims(out, r, a);
  fprintf(out,
          "</DataItem><xi:include xpointer=\"element(/1/1/%d)\"/>"
          "</DataItem>",
          element);
}

static const char *attribute_type(int components) {
  return components == 1 ? "Scalar" : components == 3 ? "Vector" : "Matrix";
}

/* A DataItem of N numbers given in the XDMF file. */
static void put_points(FILE *out, const char *name, int points,
                       const char *type, double value, bool count) {
  fprintf(out, "<DataItem Name=\"%s\" Dimensions=\"%d\" %s Format=\"XML\">",
          name, points, type);
  for (int j = 0; j < points; j++) {
    if (j)
      fputc(' ', out);
    if (count)
      fprintf(out, "%d", j);
    else
      ex_put_double(out, value);
  }
  fputs("</DataItem>\n", out);
}

/* The shared items: the polyline's point order, the radii, /rod/s and
 * every per-point dataset (its extent on disk, T N [k]). */
static void put_domain(FILE *out, const ex_run *r, const char *heavy,
                       xdmf_layout *l) {
  int element = 0;
  memset(l, 0, sizeof *l);
  put_points(out, "polyline", r->points, "NumberType=\"Int\" Precision=\"4\"",
             0, true);
  l->polyline = ++element;
  const char *f64 = "NumberType=\"Float\" Precision=\"8\"";
  put_points(out, "radius", r->points, f64, r->radius, false);
  l->radius = ++element;
  if (r->inner_radius > 0) {
    put_points(out, "inner_radius", r->points, f64, r->inner_radius, false);
    l->inner_radius = ++element;
  }
  fprintf(out, "<DataItem Name=\"s\" Dimensions=\"%d\" %s Format=\"HDF\">",
          r->points, f64);
  put_escaped(out, heavy);
  fputs(":/rod/s</DataItem>\n", out);
  l->s = ++element;
  for (int k = 0; k < r->narrays; k++) {
    const ex_array *a = &r->array[k];
    if (!a->per_point)
      continue;
    fprintf(out, "<DataItem Name=\"%s\" Dimensions=\"%llu ", a->path,
            (unsigned long long)a->extent);
    put_point_dims(out, r, a);
    fputs("\" ", out);
    put_number_type(out, a);
    fputs(" Format=\"HDF\">", out);
    put_escaped(out, heavy);
    fprintf(out, ":%s</DataItem>\n", a->path);
    l->array[k] = ++element;
  }
}

/* A point attribute taken whole from a Domain element. */
static void put_shared(FILE *out, const char *name, int element) {
  fprintf(out,
          "<Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">"
          "<xi:include xpointer=\"element(/1/1/%d)\"/></Attribute>\n",
          name, element);
}

/* A sample as a polyline grid: its number `index`, its time `time`. */
static void put_grid(FILE *out, const ex_run *r, const char *index,
                     const char *time, const xdmf_layout *l) {
  fprintf(out,
          "<Grid Name=\"%s\" GridType=\"Uniform\"><Time Value=\"%s\"/>\n"
          "<Topology TopologyType=\"Polyline\" NumberOfElements=\"1\" "
          "NodesPerElement=\"%d\"><xi:include xpointer=\"element(/1/1/%d)\"/>"
          "</Topology>\n<Geometry GeometryType=\"XYZ\">",
          index, time, r->points, l->polyline);
  put_slab(out, r, &r->array[r->position], index, l->array[r->position], true);
  fputs("</Geometry>\n", out);
  put_shared(out, "radius", l->radius);
  if (l->inner_radius)
    put_shared(out, "inner_radius", l->inner_radius);
  put_shared(out, "s", l->s);
  for (int k = 0; k < r->narrays; k++) {
    const ex_array *a = &r->array[k];
    if (k == r->position || !l->array[k])
      continue;
    fprintf(out, "<Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">",
            a->name, attribute_type(a->components));
    put_slab(out, r, a, index, l->array[k], false);
    fputs("</Attribute>\n", out);
  }
  fputs("</Grid>\n", out);
}

/* Every grid is one text with the sample's number and time put in: made
 * once by put_grid with the marks below in their places, then copied a
 * grid at a time (the weight release's 1001 samples: 1.5 to 2 ms for
 * the whole description, 11 ms when each grid was formatted anew and 8 ms
 * when each piece went through stdio into a 1 MB buffer). */
#define MARK_INDEX "\001"
#define MARK_TIME "\002"

/* B of the buffer the grids are made in: small enough that its pages
 * stay few (a page fault costs microseconds on a virtual machine; the
 * weight release's 0.8 MB description took 192 of them through a 1 MB
 * buffer), large enough that a write(2) carries about 40 grids. */
enum { XDMF_BUFFER = 1 << 16 };

enum { MAX_PIECES = 4 * EX_MAX_ARRAYS + 8 };

/* The template cut at its marks: piece k is text[start[k] .. start[k] +
 * length[k]), followed by the mark mark[k] (0: none, the last). */
typedef struct {
  char *text;
  size_t size;
  int pieces;
  size_t start[MAX_PIECES], length[MAX_PIECES];
  char mark[MAX_PIECES];
} grid_template;

static int make_template(const ex_run *r, const xdmf_layout *l,
                         grid_template *g) {
  FILE *out = open_memstream(&g->text, &g->size);
  if (!out)
    return ROD_ENOMEM;
  put_grid(out, r, MARK_INDEX, MARK_TIME, l);
  if (fclose(out) != 0)
    return ROD_ENOMEM;
  g->pieces = 0;
  size_t from = 0;
  for (size_t j = 0; j <= g->size && g->pieces < MAX_PIECES; j++) {
    const char c = j < g->size ? g->text[j] : 0;
    if (c != MARK_INDEX[0] && c != MARK_TIME[0] && j < g->size)
      continue;
    g->start[g->pieces] = from;
    g->length[g->pieces] = j - from;
    g->mark[g->pieces++] = c;
    from = j + 1;
  }
  return ROD_OK;
}

/* Longest text of a grid: the template with its marks replaced by a
 * sample's number and time (at most 24 and 32 characters). */
static size_t grid_room(const grid_template *g) {
  return g->size + (size_t)g->pieces * (24 + 32);
}

/* Sample i's grid, the template with its number and time, appended to
 * buf (size B) at *used, which is written out first when the grid may
 * not fit. False when a write failed. */
static bool put_sample(FILE *out, const grid_template *g, long i, double t,
                       char *buf, size_t size, size_t *used) {
  char index[24], time[32];
  const size_t n = (size_t)snprintf(index, sizeof index, "%ld", i);
  ex_format_double(time, sizeof time, t);
  const size_t time_length = strlen(time);
  if (*used + grid_room(g) > size) {
    if (fwrite(buf, 1, *used, out) != *used)
      return false;
    *used = 0;
  }
  char *c = buf + *used;
  for (int k = 0; k < g->pieces; k++) {
    memcpy(c, g->text + g->start[k], g->length[k]);
    c += g->length[k];
    if (g->mark[k] == MARK_INDEX[0]) {
      memcpy(c, index, n);
      c += n;
    } else if (g->mark[k] == MARK_TIME[0]) {
      memcpy(c, time, time_length);
      c += time_length;
    }
  }
  *used = (size_t)(c - buf);
  return true;
}

/* Every sample's grid. A grid is about 1.5 kB: they are made in a buffer
 * of XDMF_BUFFER (or two grids, if larger) and written whenever it is
 * nearly full, where stdio's 4 kB buffer made a write(2) of every three
 * samples. A failed write shows in the stream's error (ex_finish). */
static int put_grids(FILE *out, const ex_run *r, const xdmf_layout *l) {
  grid_template g = {.text = NULL};
  if (make_template(r, l, &g) != ROD_OK)
    return ROD_ENOMEM;
  const size_t size =
      2 * grid_room(&g) > XDMF_BUFFER ? 2 * grid_room(&g) : XDMF_BUFFER;
  char *buffer = malloc(size);
  if (!buffer) {
    free(g.text);
    return ROD_ENOMEM;
  }
  size_t used = 0;
  bool ok = true;
  for (long i = 0; ok && i < r->samples; i++)
    ok = put_sample(out, &g, i, r->time[i], buffer, size, &used);
  if (ok && used)
    fwrite(buffer, 1, used, out);
  free(buffer);
  free(g.text);
  return ROD_OK;
}

int rod_export_xdmf(const char *h5_path, const char *xdmf_path,
                    rod_export_info *info, rod_error *err) {
  return rod_export_xdmf_with(h5_path, xdmf_path, false, info, err);
}

/* The output rules of a description of h5_path (key: names it in
 * messages). */
static rod_out_rules xdmf_rules(const char *h5_path, bool force,
                                const char *key) {
  rod_out_rules rules = {
      .kind = ROD_OUT_TEXT, .mark = XDMF_MARK, .key = key, .force = force};
  rod_out_add_input(&rules, h5_path);
  return rules;
}

/* The description may not be the HDF5 file itself (by device and
 * inode). */
static int not_the_input(const char *h5_path, const char *xdmf_path,
                         rod_error *err) {
  struct stat a, b;
  if (stat(h5_path, &a) == 0 && stat(xdmf_path, &b) == 0 &&
      a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    return rod_error_set(err, ROD_EINVAL, xdmf_path, NULL,
                         "is the HDF5 file itself; name the XDMF file "
                         "otherwise");
  return ROD_OK;
}

int rod_export_xdmf_check(const char *h5_path, const char *xdmf_path,
                          bool force, const char *key, rod_error *err) {
  int st = not_the_input(h5_path, xdmf_path, err);
  if (st != ROD_OK)
    return st;
  rod_out_rules rules = xdmf_rules(h5_path, force, key);
  st = rod_outfile_check(xdmf_path, &rules, err);
  return st == ROD_EIO && rod_outfile_busy(xdmf_path) ? ROD_EINVAL : st;
}

int ex_xdmf_write(const ex_run *r, const char *xdmf_path, bool force,
                  rod_export_info *info, rod_error *err) {
  return ex_xdmf_draft(r, xdmf_path, force, info, NULL, err);
}

int ex_xdmf_draft(const ex_run *r, const char *xdmf_path, bool force,
                  rod_export_info *info, rod_outfile **draft, rod_error *err) {
  rod_export_info scratch;
  info = info ? info : &scratch;
  memset(info, 0, sizeof *info);
  const char *h5_path = r->path;
  char heavy[PATH_MAX];
  int st = heavy_name(h5_path, xdmf_path, heavy, sizeof heavy, err);
  if (st == ROD_OK)
    st = not_the_input(h5_path, xdmf_path, err);
  /* written whole under another name, then renamed over xdmf_path; a
   * file there only when rodsim wrote it (io/outfile.h) */
  rod_out_rules rules = xdmf_rules(h5_path, force, NULL);
  rod_outfile *o = NULL;
  FILE *out = NULL;
  if (st == ROD_OK &&
      (st = rod_outfile_open(xdmf_path, &rules, &o, err)) == ROD_OK &&
      !(out = rod_outfile_stream(o)))
    st = rod_error_set(err, ROD_ENOMEM, xdmf_path, NULL, "out of memory");
  if (out) {
    fputs("<?xml version=\"1.0\" ?>\n" XDMF_MARK, out);
    put_escaped(out, heavy);
    fprintf(out,
            " over its %ld whole samples of %d points, pointing into the "
            "HDF5 file (docs/hdf5.md, \"ParaView and VisIt\") -->\n"
            "<Xdmf Version=\"2.0\" "
            "xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n<Domain>\n",
            r->samples, r->points);
    xdmf_layout layout;
    put_domain(out, r, heavy, &layout);
    fputs("<Grid Name=\"rod\" GridType=\"Collection\" "
          "CollectionType=\"Temporal\">\n",
          out);
    if (put_grids(out, r, &layout) != ROD_OK)
      st = rod_error_set(err, ROD_ENOMEM, xdmf_path, NULL, "out of memory");
    fputs("</Grid>\n</Domain>\n</Xdmf>\n", out);
    int fst = ex_finish(out, xdmf_path, &info->bytes, err);
    st = st == ROD_OK ? fst : st;
    if (st == ROD_OK && !draft)
      st = rod_outfile_commit(o, err);
  }
  if (draft && st == ROD_OK)
    *draft = o; /* under its temporary name, for the caller */
  else
    rod_outfile_close(o, st != ROD_OK);
  if (st == ROD_OK) {
    ex_run_count(r, info);
    info->field_arrays = 0; /* the VTK copy has them */
  }
  return st;
}

int rod_export_xdmf_with(const char *h5_path, const char *xdmf_path, bool force,
                         rod_export_info *info, rod_error *err) {
  if (info)
    memset(info, 0, sizeof *info);
  ex_run r;
  int st = ex_run_open(h5_path, &r, err);
  if (st != ROD_OK)
    return st;
  st = ex_xdmf_write(&r, xdmf_path, force, info, err);
  ex_run_close(&r);
  return st;
}

int rod_export_xdmf_name(const char *h5_path, char *out, unsigned long size) {
  const char *base = strrchr(h5_path, '/');
  base = base ? base + 1 : h5_path;
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base && strcmp(dot, ".xdmf") != 0
                    ? (size_t)(dot - h5_path)
                    : strlen(h5_path); /* run.xdmf -> run.xdmf.xdmf */
  if (!base[0] || keep + sizeof ".xdmf" > size)
    return ROD_EINVAL;
  memcpy(out, h5_path, keep);
  memcpy(out + keep, ".xdmf", sizeof ".xdmf");
  return ROD_OK;
}

int rod_export_is_xdmf(const char *path) {
  int fd; /* a regular file only: a FIFO would wait */
  if (rod_datafile_open(path, false, 0, &fd, NULL) != ROD_OK)
    return 0;
  char head[128] = {0};
  ssize_t n = read(fd, head, sizeof head - 1);
  close(fd);
  head[n > 0 ? n : 0] = '\0';
  return strstr(head, XDMF_MARK) != NULL;
}
