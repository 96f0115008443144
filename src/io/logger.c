/* HDF5 logger: the layout of docs/hdf5.md, the file's making, its
 * samples handed to the writer (logger_writer.h) and its close. */
#include "rod/logger.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/export_run.h"
#include "io/h5attr.h"
#include "io/logger_file.h"
#include "io/logger_writer.h"
#include "io/writers.h"

/* A compressed dataset's chunks along its last dimension: up to 4 (w x y
 * z), each a chunk of its own, in one chunk index. */
#define ROD_H5_PARTS_MAX 4
/* Entries of the chunk index's node at most (2 istore_k; HDF5 allows
 * 65534): a flush writes the node whole, 48 B an entry, so a node of 4096
 * costs 197 kB a dataset each flush. */
#define ROD_H5_NODE_MAX 4096

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
  DS_ERREST,
  DS_TWORK,
  DS_TFWORK,
  DS_COUNT,
  /* then /tendon/NAME/tension and /tendon/NAME/length of each tendon */
  DS_ALL = DS_COUNT + 2 * ROD_MAX_TENDONS
};

typedef struct {
  const char *path;
  int per_point; /* 0: per sample; k: N x k per sample (or 3 for tip) */
  bool by_points;
  int type;                /* 0 double, 1 int32, 2 int8 */
  bool contact;            /* written only when the run has contact */
  const char *units;       /* SI units ("1": a number, a count or a code) */
  const char *description; /* what it holds, in the file itself */
  bool rounded; /* a result of the solver: stored to output.significant_bits */
} ds_def;

static const ds_def defs[DS_COUNT] = {
    [DS_TIME] = {"/time", 1, false, 0, false, "s",
                 "time of each sample; 0 is the static state"},
    [DS_TIP] = {"/tip/position", 3, false, 0, false, "m",
                "tip position p(L), world frame", true},
    [DS_POS] = {"/rod/position", 3, true, 0, false, "m",
                "position p(s) of each point, world frame", true},
    [DS_QUAT] = {"/rod/orientation", 4, true, 0, false, "1",
                 "unit quaternion w, x, y, z of the material frame R(s) "
                 "(d3 = tangent), taking material to world coordinates; "
                 "RFEM: the element distal to the point",
                 true},
    [DS_VEL] = {"/rod/velocity", 3, true, 0, false, "m/s",
                "velocity of each point, world frame", true},
    [DS_FORCE] = {"/rod/force", 3, true, 0, false, "N",
                  "internal force n(s), world frame: what the part beyond s "
                  "exerts on the part before it",
                  true},
    [DS_MOMENT] = {"/rod/moment", 3, true, 0, false, "N m",
                   "internal moment m(s), world frame", true},
    [DS_KIN] = {"/energy/kinetic", 1, false, 0, false, "J",
                "kinetic energy of the rod and an attached tip body (a "
                "released tip mass excluded)"},
    [DS_ELA] = {"/energy/elastic", 1, false, 0, false, "J",
                "elastic energy: bending and torsion (Cosserat: with shear "
                "and extension; RFEM: the joint springs)"},
    [DS_GRAV] = {"/energy/gravity", 1, false, 0, false, "J",
                 "gravity energy -integral of rhoA g . p ds, an attached tip "
                 "body's -M g . c with it (world origin as datum)"},
    [DS_ITER] = {"/solver/iterations", 1, false, 1, false, "1",
                 "nonlinear iterations, summed over the steps since the "
                 "previous sample"},
    [DS_RES] = {"/solver/residual", 1, false, 0, false, "1",
                "final scaled residual (the largest since the previous "
                "sample)"},
    [DS_METHOD] = {"/solver/method", 1, false, 2, false, "1",
                   "shooting method of the steps since the previous sample "
                   "(the largest code): see the attribute enum_names"},
    [DS_INTEG] = {"/solver/integrations", 1, false, 1, false, "1",
                  "spatial integrations (a sweep carrying k tangent "
                  "directions counts 1 + k; RFEM: dynamics evaluations), "
                  "summed since the previous sample"},
    [DS_WALL] = {"/solver/wall_time", 1, false, 0, false, "s",
                 "wall-clock time of the steps since the previous sample"},
    [DS_CFORCE] = {"/contact/force", 3, true, 0, true, "N",
                   "contact forces on the rod lumped at each point, world "
                   "frame",
                   true},
    [DS_CACTIVE] = {"/contact/active", 1, true, 2, true, "1",
                    "1 where a contact acts at (or next to) the point"},
    [DS_GAPMIN] = {"/contact/gap_min", 1, false, 0, true, "m",
                   "smallest gap between the rod's surface and an obstacle "
                   "(negative: penetration)"},
    [DS_DISSIPATED] = {"/energy/dissipated_contact", 1, false, 0, true, "J",
                       "energy the contacts took out of the rod since t = 0"},
    [DS_ERREST] = {"/error_estimate", 1, false, 0, false, "m",
                   "the run's estimate of its largest tip error from t = 0 "
                   "to the sample, from a companion solution at twice "
                   "time.dt (time.error_estimate, docs/numerics.md): the "
                   "time discretisation's error, not the grid's"},
    [DS_TWORK] = {"/energy/tendon_work", 1, false, 0, false, "J",
                  "work of the tendons' tensions on the rod since t = 0, "
                  "-sum of int tau dL over the tendons (L the length along "
                  "the routing; positive while a tendon under tension is "
                  "pulled in), by trapezoids over the steps"},
    [DS_TFWORK] = {"/energy/tendon_friction_work", 1, false, 0, false, "J",
                   "work of the tendons' friction loads on the rod since "
                   "t = 0 (<= 0), the integral along the rod of the "
                   "distributed force times the velocity and moment times "
                   "the angular velocity (RFEM: the guides' point loads "
                   "times their points' velocities), by trapezoids over the "
                   "steps"},
};

/* Names of the /solver/method codes, in code order (ROD_METHOD_*). */
static const char *const method_names[] = {
    "simple shooting", "modified shooting", "BDF2 fallback"};
_Static_assert(ROD_METHOD_SIMPLE == 0 && ROD_METHOD_MODIFIED == 1 &&
                   ROD_METHOD_BDF2 == 2,
               "method_names follows the codes");

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
  hid_t file; /* 0 until made (make_file) */
  bool made;  /* the file made, its header written and flushed */
  rod_run_header header;
  double *s_values; /* /rod/s of the first sample, for make_datasets */
  bool contact_group;
  int tendons;
  hid_t ds[DS_ALL];
  hid_t count; /* /samples */
  bool present[DS_ALL];
  int column[DS_ALL];   /* the writer's column of a dataset present */
  size_t width[DS_ALL]; /* values per sample */
  /* the tendons' datasets (DS_COUNT + 2 i: tension, + 1: length), their
   * paths, and when each was slack (tension 0): samples, first and last t */
  ds_def tendon_def[2 * ROD_MAX_TENDONS];
  char tendon_path[2 * ROD_MAX_TENDONS][ROD_NAME_MAX + 16];
  long slack_samples[ROD_MAX_TENDONS];
  double slack_first[ROD_MAX_TENDONS], slack_last[ROD_MAX_TENDONS];
  bool tendon_friction; /* some tendon has friction > 0 */
  int points;
  int block; /* samples per chunk along T */
  /* for the XDMF description written at the close (rod_logger_close_xdmf)
   * from this layout, without reading the file back: the path as given,
   * the rod's radii (m), every sample's time (s) */
  char path[ROD_PATH_MAX];
  double radius, inner_radius;
  double *times;
  long times_room;
  int compression;       /* output.compression: deflate level, 0: none */
  int keep_bits;         /* mantissa bits kept of the solver's results */
  int blocks;            /* of the writer's ring */
  bool fill_ring;        /* more blocks where its huge pages have room */
  double flush_interval; /* s */
  rod_writer *writer;    /* from the first sample on */
  /* set on the writer's thread once its first samples are counted and
   * flushed, and it has moved the file into place (move_in_place) */
  atomic_bool whole;
  atomic_int commit_errno; /* errno of a failed move into place, 0: none */
  /* The file's end (end_file), on the writer's thread after its last
   * samples: the run's status for the file (set before the last block is
   * handed over), whether it was written, whether the file closed. */
  const char *end_status;
  bool ended, end_told, end_closed;
  long appended; /* samples appended */
  int held[2];   /* files removed, to be closed by the writer */
  int nheld;
  rod_outfile *out; /* the file, its lock and its name (io/outfile.h) */
};

/* The layout of dataset i: the table's, or a tendon's. */
static const ds_def *def_of(const rod_logger *lg, int i) {
  return i < DS_COUNT ? &defs[i] : &lg->tendon_def[i - DS_COUNT];
}

/* The tendons' datasets of sc: /tendon/NAME/tension and length. */
static void tendon_layout(rod_logger *lg, const rod_scenario *sc) {
  for (int i = 0; i < sc->tendons.count; i++)
    lg->tendon_friction |= sc->tendons.item[i].friction > 0;
  for (int i = 0; i < sc->tendons.count; i++)
    for (int q = 0; q < 2; q++) {
      char *path = lg->tendon_path[2 * i + q];
      snprintf(path, sizeof lg->tendon_path[0], "/tendon/%s/%s",
               sc->tendons.item[i].name, q ? "length" : "tension");
      const ds_def df = {
          path,
          1,
          false,
          0,
          false,
          q ? "m" : "N",
          q ? "the tendon's length along its routing from start to end, "
              "the integral of |p_i,s| ds"
            : "the tendon's tension (0: slack, carrying nothing)",
          q == 1};
      lg->tendon_def[2 * i + q] = df;
    }
}

static hid_t file_type(int t) {
  return t == 0 ? H5T_IEEE_F64LE : t == 1 ? H5T_STD_I32LE : H5T_STD_I8LE;
}
static size_t type_size(int t) { return t == 0 ? 8 : t == 1 ? 4 : 1; }

/* Mantissa bits kept of the solver's results: output.significant_bits, or
 * when it is 0 those that resolve a thousandth of solver.tolerance
 * (relative rounding error 2^-(bits+1) <= 5e-4 tolerance): 37 bits for the
 * default 1e-8. */
static int significant_bits(const rod_scenario *sc) {
  if (sc->output.significant_bits > 0)
    return sc->output.significant_bits > 52 ? 52 : sc->output.significant_bits;
  int bits = (int)ceil(-log2(1e-3 * sc->solver.tolerance));
  return bits < 12 ? 12 : bits > 52 ? 52 : bits;
}

/* Rows of a chunk along T for samples of `points` points: about 256 KiB,
 * so that a chunk fills within a flush interval in the slow shipped
 * scenarios (pendulum_post: 89 samples, 0.7 s) and the flushes seldom
 * write a chunk in part, to be written again (elsewhere: HDF5 reuses no
 * space) when it fills. */
static int block_rows(int points) {
  size_t per_sample = (size_t)points * 16 * sizeof(double) + 128;
  size_t block = (1u << 18) / per_sample;
  return block < 1 ? 1 : block > 1024 ? 1024 : (int)block;
}

/* Samples a run of sc writes at most (points: its points), with a margin
 * of two under step-size control, whose steps are not known beforehand. */
static double planned_samples(const rod_scenario *sc, int points) {
  const bool contact = sc->plane.enabled || sc->obstacles.count > 0;
  const double samples = sc->output.has_interval
                             ? rod_sim_sample_count(sc)
                             : (double)rod_sim_step_count(sc) /
                                       rod_logger_every(sc, points, contact) +
                                   2;
  return sc->time.has_tolerance ? 2 * samples : samples;
}

/* Half the entries of the chunk index's node (HDF5's istore_k): room for
 * every chunk of the run's samples in one node. A version 1 B-tree
 * splits a full node into new nodes, and a flush writes the nodes in no
 * order a reader can rely on: a run killed during the flush after a split
 * left an index pointing at nodes not yet written (or past the file's
 * end), losing chunks /samples counts. A node large enough is never split:
 * made with the dataset, it is rewritten in place. 32 (HDF5's default)
 * unless more are needed; at most ROD_H5_NODE_MAX / 2: a run of more
 * chunks splits its nodes, about once in every 3700 chunks (HDF5 splits
 * the rightmost node 9 to 1) where HDF5's default node splits once in
 * every 58. */
static unsigned index_k(double samples, int block) {
  const double entries = ROD_H5_PARTS_MAX * (ceil(samples / block) + 1);
  const double k = ceil(entries / 2);
  return k < 32                    ? 32
         : k > ROD_H5_NODE_MAX / 2 ? ROD_H5_NODE_MAX / 2
                                   : (unsigned)k;
}

/* B of the file's header (its attributes, groups and chunk indices)
 * besides the scenario's text, as rod_logger_estimate counts it. */
static const double header_bytes = 64e3;

/* The file's handles closed (after a failure at the open). */
static void close_made(rod_logger *lg) {
  if (lg->count > 0)
    H5Dclose(lg->count);
  if (lg->file > 0)
    H5Fclose(lg->file);
}

/* The HDF5 file under its temporary name with its root's attributes, the
 * scenario, the status "running", /samples (0) and the groups, flushed.
 * Made with the datasets on the writer's thread (make_datasets), while
 * the solver goes on, or at the close of a logger that got no sample. A
 * failure leaves errno and lg->made false; the file is then dropped at
 * the close. */
static int make_file(rod_logger *lg) {
  const int st = rod_run_file_make(lg->out, &lg->header, &lg->file, &lg->count);
  lg->made = st == ROD_OK;
  return st;
}

int rod_logger_open(rod_logger **out, const char *path, const rod_scenario *sc,
                    const char *backend, rod_error *err) {
  return rod_logger_open_points(out, path, sc, backend, 0, err);
}

int rod_logger_open_points(rod_logger **out, const char *path,
                           const rod_scenario *sc, const char *backend,
                           int points, rod_error *err) {
  rod_out_rules rules = {.kind = ROD_OUT_HDF5, .key = "output.file"};
  rod_out_add_scenario_inputs(&rules, sc);
  return rod_logger_open_with(out, path, sc, backend, &rules, points, err);
}

int rod_logger_open_with(rod_logger **out, const char *path,
                         const rod_scenario *sc, const char *backend,
                         const rod_out_rules *rules, int points,
                         rod_error *err) {
  *out = NULL;
  rod_logger *lg = calloc(1, sizeof *lg);
  if (!lg)
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  lg->compression = sc->output.compression;
  lg->keep_bits = significant_bits(sc);
  lg->blocks = ROD_LOGGER_BLOCKS;
  lg->fill_ring = true;
  lg->flush_interval = sc->output.flush_interval;
  snprintf(lg->path, sizeof lg->path, "%s", path);
  lg->radius = sc->rod.diameter / 2;
  lg->inner_radius = sc->rod.inner_diameter / 2;
  tendon_layout(lg, sc);
  /* A regular file is made under a temporary name and renamed into place
   * once its datasets and first sample are flushed (or at its close): a
   * run killed before that leaves no half-made file under path (and an
   * earlier file there intact). The writer's lock is taken first, and the
   * path checked (io/outfile.h). */
  int st0 = rod_outfile_open(path, rules, &lg->out, err);
  if (st0 != ROD_OK) {
    free(lg->times);
    free(lg);
    return st0;
  }
  /* the chunks' rows from the points (an estimate when not given: the
   * grid's nodes, or 100) */
  if (points < 1)
    points = sc->space.nodes > 0 ? sc->space.nodes : 100;
  const double samples = planned_samples(sc, points);
  lg->block = block_rows(points);
  lg->times_room = samples < 2         ? 2
                   : samples > 1 << 20 ? 1 << 20
                                       : (long)samples;
  lg->times = malloc((size_t)lg->times_room * sizeof *lg->times);
  rod_run_header_of(sc, backend, &lg->header);
  lg->header.index_k = index_k(samples, lg->block);
  const size_t need = rod_scenario_to_ini(sc, NULL, 0) + 1;
  lg->header.scenario = malloc(need);
  if (!lg->header.scenario) {
    rod_outfile_close(lg->out, true);
    free(lg->times);
    free(lg);
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  }
  rod_scenario_to_ini(sc, lg->header.scenario, need);
  /* The file is made on the writer's thread (make_file), after the first
   * sample. What can be told now is said now, as a bad output: no room
   * for its header on the disk or under the file size limit, or a device
   * (written as it is) that takes no file. */
  int e = rod_outfile_room(lg->out, header_bytes + (double)need);
  if (!e && rod_outfile_in_place(lg->out) && make_file(lg) != ROD_OK)
    e = errno ? errno : EIO;
  if (e) {
    close_made(lg);
    rod_outfile_close(lg->out, true);
    free(lg->header.scenario);
    free(lg->times);
    free(lg);
    return rod_error_set(err, ROD_EIO, path, "output.file",
                         "cannot write the HDF5 file: %s", strerror(e));
  }
  *out = lg;
  return ROD_OK;
}

/* units and description of a dataset (and the names of coded values). */
static int describe(hid_t ds, const char *units, const char *description) {
  int st = rod_h5_put_text(ds, "units", units);
  if (st == ROD_OK)
    st = rod_h5_put_text(ds, "description", description);
  return st;
}

static int move_in_place(rod_logger *lg, bool on_writer);

/* The file holds its datasets and its first samples, counted and
 * flushed (called on the writer's thread): moved into place there, the
 * file it replaces closed there too (the rename and the freeing of the
 * old file's blocks: 0.3 ms and more that the solver's thread no longer
 * waits for). The caller's thread makes no call on lg->out from the
 * writer's start to its stop but rod_outfile_path_now. A failed move
 * stops the run at its next sample (rod_logger_append); the writer goes
 * on. */
static int whole(void *user) {
  rod_logger *lg = user;
  if (move_in_place(lg, true) == ROD_OK)
    atomic_store(&lg->whole, true);
  return ROD_OK;
}

/* fd closed on the writer's thread, or held until it starts (closed
 * here when there is no room). */
static void close_later(rod_logger *lg, int fd) {
  if (fd < 0)
    return;
  if (lg->writer)
    rod_writer_close_later(lg->writer, fd);
  else if (lg->nheld < 2)
    lg->held[lg->nheld++] = fd;
  else
    close(fd);
}

int rod_logger_remove_later(rod_logger *lg, const char *path) {
  errno = 0;
  const int fd = rod_out_unlink_held(path);
  if (fd >= 0) {
    close_later(lg, fd);
    return 0;
  }
  return errno == 0 || errno == ENOENT ? 0 : -1;
}

/* Rename the file from its temporary name to path, once: after the flush
 * that wrote its datasets and first samples, so that a file under path
 * always holds every dataset and whole samples (or, after its close, the
 * status of a run that stopped before its first sample). The file it
 * replaced is closed on the writer's thread (on_writer: this is it). */
static int move_in_place(rod_logger *lg, bool on_writer) {
  rod_error err;
  if (rod_outfile_commit(lg->out, &err) == ROD_OK) {
    const int replaced = rod_outfile_take_replaced(lg->out);
    if (on_writer && replaced >= 0)
      close(replaced);
    else
      close_later(lg, replaced);
    return ROD_OK;
  }
  int none = 0;
  atomic_compare_exchange_strong(&lg->commit_errno, &none, errno ? errno : EIO);
  return ROD_EIO;
}

/* ROD_EIO once the file could not be moved into place. */
static int commit_failed(const rod_logger *lg) {
  return atomic_load(&lg->commit_errno) ? ROD_EIO : ROD_OK;
}

static int make_group(hid_t file, const char *path) {
  hid_t g = H5Gcreate2(file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    return ROD_EIO;
  H5Gclose(g);
  return ROD_OK;
}

/* Which datasets the run has and their widths, from its first sample s
 * (on the caller's thread; no HDF5 call): /rod/s is kept for the file. */
static int choose_layout(rod_logger *lg, const rod_sample *s) {
  const int N = s->points;
  lg->points = N;
  lg->s_values = malloc((size_t)N * sizeof *lg->s_values);
  if (!lg->s_values)
    return ROD_ENOMEM;
  memcpy(lg->s_values, s->s, (size_t)N * sizeof *lg->s_values);
  lg->contact_group = s->contact_force != NULL;
  lg->tendons = s->tendons;
  for (int i = 0; i < DS_ALL; i++) {
    const ds_def *df = def_of(lg, i);
    lg->present[i] =
        i < DS_COUNT
            ? !((i == DS_FORCE && !s->force) ||
                (i == DS_MOMENT && !s->moment) ||
                (df->contact && !s->contact_force) ||
                (i == DS_ERREST && !s->has_error_estimate) ||
                (i == DS_TWORK && s->tendons == 0) ||
                (i == DS_TFWORK && (s->tendons == 0 || !lg->tendon_friction)))
            : i - DS_COUNT < 2 * s->tendons;
    lg->width[i] = (size_t)(df->by_points ? N * df->per_point : df->per_point);
  }
  return ROD_OK;
}

/* The datasets of the layout, with /rod/s and their attributes. */
static int make_datasets(rod_logger *lg) {
  const int N = lg->points;
  hsize_t dims_s = (hsize_t)N;
  hid_t sp = H5Screate_simple(1, &dims_s, NULL);
  hid_t d = H5Dcreate2(lg->file, "/rod/s", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                       H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = d < 0 ? -1
                   : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                              H5P_DEFAULT, lg->s_values);
  if (e >= 0 && describe(d, "m",
                         "arclength of each point from the clamp (RFEM: 0, "
                         "the joints, L)") != ROD_OK)
    e = -1;
  if (d >= 0)
    H5Dclose(d);
  H5Sclose(sp);
  if (e < 0)
    return ROD_EIO;
  if ((lg->contact_group && make_group(lg->file, "/contact") != ROD_OK) ||
      (lg->tendons > 0 && make_group(lg->file, "/tendon") != ROD_OK))
    return ROD_EIO;
  for (int i = 0; i < lg->tendons; i++) {
    char group[sizeof lg->tendon_path[0]]; /* the path without "/tension" */
    snprintf(group, sizeof group, "%s", lg->tendon_path[2 * i]);
    *strrchr(group, '/') = '\0';
    if (make_group(lg->file, group) != ROD_OK)
      return ROD_EIO;
  }
  for (int i = 0; i < DS_ALL; i++) {
    if (!lg->present[i])
      continue;
    const ds_def *df = def_of(lg, i);
    int rank = ds_rank(df);
    hsize_t dims[3] = {0, 0, 0}, maxd[3], chunk[3];
    ds_dims(df, N, dims);
    for (int r = 0; r < rank; r++) {
      maxd[r] = r == 0 ? H5S_UNLIMITED : dims[r];
      chunk[r] = r == 0 ? (hsize_t)lg->block : dims[r];
    }
    /* compressed: a chunk a component (x, y, z, or w, x, y, z), which
     * deflate packs tighter than the components side by side (a planar
     * run's zeros alone) */
    if (lg->compression > 0 && df->per_point > 1)
      chunk[rank - 1] = 1;
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (lg->compression > 0) { /* bytes of equal weight side by side */
      H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, (unsigned)lg->compression);
    }
    lg->ds[i] = H5Dcreate2(lg->file, df->path, file_type(df->type), space,
                           H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (lg->ds[i] < 0) {
      lg->ds[i] = 0;
      return ROD_EIO;
    }
    int st = describe(lg->ds[i], df->units, df->description);
    if (st == ROD_OK && i == DS_METHOD)
      st = rod_h5_put_texts(lg->ds[i], "enum_names", method_names,
                            (int)(sizeof method_names / sizeof *method_names));
    if (st == ROD_OK && (i == DS_QUAT))
      st = rod_h5_put_text(lg->ds[i], "quaternion_order", "w x y z");
    if (st == ROD_OK && df->rounded)
      st =
          rod_h5_put_number(lg->ds[i], "significant_bits", lg->keep_bits, true);
    if (st != ROD_OK)
      return st;
  }
  return ROD_OK;
}

/* The writer's first work, before it writes a sample (on its thread, or
 * the caller's with a ring of one block): the file and its datasets,
 * their handles into the writer's columns. */
static int prepare(void *user, rod_writer_config *cfg, rod_column *cols) {
  rod_logger *lg = user;
  int st = lg->made ? ROD_OK : make_file(lg);
  if (st == ROD_OK)
    st = make_datasets(lg);
  if (st != ROD_OK)
    return st;
  cfg->file = lg->file;
  cfg->count = lg->count;
  for (int i = 0; i < DS_ALL; i++)
    if (lg->present[i])
      cols[lg->column[i]].ds = lg->ds[i];
  return ROD_OK;
}

static void writer_end(void *user, int failed, bool clean_stop, long pending);

/* The writer of the layout, its thread started: it makes the file and
 * its datasets (prepare) while the solver goes on. */
static int start_writer(rod_logger *lg) {
  rod_column cols[DS_ALL];
  int n = 0;
  for (int i = 0; i < DS_ALL; i++) {
    if (!lg->present[i])
      continue;
    const ds_def *df = def_of(lg, i);
    rod_column *c = &cols[n];
    memset(c, 0, sizeof *c);
    c->rank = ds_rank(df);
    ds_dims(df, lg->points, c->dims);
    c->esize = type_size(df->type);
    c->width = lg->width[i];
    c->parts = lg->compression > 0 && df->per_point > 1 ? df->per_point : 1;
    c->keep_bits = df->rounded ? lg->keep_bits : 52;
    lg->column[i] = n++;
  }
  const rod_writer_config cfg = {.prepare = prepare,
                                 .block = lg->block,
                                 .level = lg->compression,
                                 .blocks = lg->blocks,
                                 .fill = lg->fill_ring,
                                 .flush_interval = lg->flush_interval,
                                 .commit = whole,
                                 .end = writer_end,
                                 .user = lg};
  const int st = rod_writer_start(&lg->writer, &cfg, cols, n);
  for (int k = 0; st == ROD_OK && k < lg->nheld; k++)
    rod_writer_close_later(lg->writer, lg->held[k]);
  if (st == ROD_OK)
    lg->nheld = 0;
  return st;
}

const char *rod_logger_file_now(const rod_logger *lg) {
  return rod_outfile_path_now(lg->out);
}

/* The writer's state once it has written what it was given (its thread
 * reads nothing of lg's that these calls change). */
static int settled_errno(const rod_logger *lg, bool *clean_stop) {
  *clean_stop = false;
  if (!lg->writer)
    return 0;
  rod_writer_sync(lg->writer, false);
  return rod_writer_errno(lg->writer, clean_stop);
}

const char *rod_logger_strerror(const rod_logger *lg) {
  bool clean;
  const int e = lg ? settled_errno(lg, &clean) : 0;
  return e                        ? strerror(e)
         : lg && lg->commit_errno ? strerror(lg->commit_errno)
                                  : "";
}

long rod_logger_written(const rod_logger *lg, bool *status_written) {
  bool clean;
  const int e = settled_errno(lg, &clean);
  if (status_written)
    *status_written = !e || clean;
  /* after a failure the samples counted are final; else every sample
   * appended is written, and the close counts those not yet counted */
  return !lg->writer ? 0 : e ? rod_writer_written(lg->writer) : lg->appended;
}

int rod_logger_set_writer(rod_logger *lg, int blocks, double flush_interval) {
  if (lg->writer || blocks < 1 || !(flush_interval > 0))
    return ROD_EINVAL;
  lg->blocks = blocks;
  lg->fill_ring = false;
  lg->flush_interval = flush_interval;
  return ROD_OK;
}

int rod_logger_append(rod_logger *lg, double t, const rod_sample *s,
                      const rod_step_stats *st, double wall_time) {
  if (!lg->writer) {
    int e = choose_layout(lg, s);
    if (e == ROD_OK)
      e = start_writer(lg);
    if (e != ROD_OK)
      return e;
  }
  if (s->points != lg->points ||
      (lg->present[DS_CFORCE] && (!s->contact_force || !s->contact_active)) ||
      (s->tendons > 0 && (!s->tendon_tension || !s->tendon_length)))
    return ROD_EINVAL;
  void *rows[DS_ALL];
  rod_writer_rows(lg->writer, rows);
#define ROW(ds, type) ((type *)rows[lg->column[ds]])
  const size_t N = (size_t)lg->points;
  *ROW(DS_TIME, double) = t;
  memcpy(ROW(DS_TIP, double), s->position + 3 * (N - 1), 3 * sizeof(double));
  memcpy(ROW(DS_POS, double), s->position, 3 * N * sizeof(double));
  memcpy(ROW(DS_QUAT, double), s->orientation, 4 * N * sizeof(double));
  memcpy(ROW(DS_VEL, double), s->velocity, 3 * N * sizeof(double));
  if (lg->present[DS_FORCE])
    memcpy(ROW(DS_FORCE, double), s->force, 3 * N * sizeof(double));
  if (lg->present[DS_MOMENT])
    memcpy(ROW(DS_MOMENT, double), s->moment, 3 * N * sizeof(double));
  *ROW(DS_KIN, double) = s->kinetic;
  *ROW(DS_ELA, double) = s->elastic;
  *ROW(DS_GRAV, double) = s->gravity;
  *ROW(DS_ITER, int32_t) = st->iterations;
  *ROW(DS_RES, double) = st->residual;
  *ROW(DS_METHOD, int8_t) = (int8_t)st->method;
  *ROW(DS_INTEG, int32_t) = (int32_t)lround(st->integrations);
  *ROW(DS_WALL, double) = wall_time;
  if (lg->present[DS_CFORCE]) {
    memcpy(ROW(DS_CFORCE, double), s->contact_force, 3 * N * sizeof(double));
    memcpy(ROW(DS_CACTIVE, int8_t), s->contact_active, N);
    *ROW(DS_GAPMIN, double) = s->contact_gap_min;
    *ROW(DS_DISSIPATED, double) = s->dissipated_contact;
  }
  if (lg->present[DS_ERREST])
    *ROW(DS_ERREST, double) = s->error_estimate;
  if (lg->present[DS_TWORK])
    *ROW(DS_TWORK, double) = s->tendon_work;
  if (lg->present[DS_TFWORK])
    *ROW(DS_TFWORK, double) = s->tendon_friction_work;
  for (int i = 0; i < s->tendons && lg->present[DS_COUNT + 2 * i]; i++) {
    *ROW(DS_COUNT + 2 * i, double) = s->tendon_tension[i];
    *ROW(DS_COUNT + 2 * i + 1, double) = s->tendon_length[i];
    if (!(s->tendon_tension[i] > 0)) { /* slack */
      if (lg->slack_samples[i]++ == 0)
        lg->slack_first[i] = t;
      lg->slack_last[i] = t;
    }
  }
#undef ROW
  const int e = rod_writer_push(lg->writer);
  if (e != ROD_OK)
    return e;
  if (lg->appended == lg->times_room) { /* past the plan: twice the room */
    double *more =
        realloc(lg->times, 2 * (size_t)lg->times_room * sizeof *lg->times);
    if (more) {
      lg->times = more;
      lg->times_room *= 2;
    }
  }
  if (lg->times && lg->appended < lg->times_room)
    lg->times[lg->appended] = t;
  lg->appended++;
  return commit_failed(lg);
}

int rod_logger_flush_if_older(rod_logger *lg, double max_age) {
  const int e = lg->writer ? rod_writer_tick(lg->writer, max_age) : ROD_OK;
  return e != ROD_OK ? e : commit_failed(lg);
}

/* The note "slack" on each tendon's tension: when it carried nothing. */
static int note_slack(rod_logger *lg) {
  int st = ROD_OK;
  for (int i = 0; i < ROD_MAX_TENDONS && st == ROD_OK; i++) {
    if (!lg->present[DS_COUNT + 2 * i])
      continue;
    char note[160];
    if (lg->slack_samples[i] == 0)
      snprintf(note, sizeof note, "never slack");
    else
      snprintf(note, sizeof note,
               "slack (tension 0) in %ld samples, from t = %.9g s to t = "
               "%.9g s",
               lg->slack_samples[i], lg->slack_first[i], lg->slack_last[i]);
    st = rod_h5_put_text(lg->ds[DS_COUNT + 2 * i], "slack", note);
  }
  return st;
}

/* Close lg; discard: a file that holds no sample is removed instead of
 * moved into place. */
/* Groups of the exporters' per-sample datasets, by name: "contact" of
 * "/contact/force" into group, the rest into name; false unless the path
 * is /GROUP/NAME. */
static bool split_path(const char *path, char *group, char *name, size_t size) {
  const char *slash = strchr(path + 1, '/');
  if (path[0] != '/' || !slash || strchr(slash + 1, '/') ||
      (size_t)(slash - path) > size || strlen(slash) > size)
    return false;
  snprintf(group, (size_t)(slash - path), "%s", path + 1);
  snprintf(name, size, "%s", slash + 1);
  return true;
}

/* Arrays in the order the file lists them: by group name, then by name. */
static int by_group_and_name(const void *pa, const void *pb) {
  const ex_array *a = pa, *b = pb;
  const char *sa = strchr(a->path + 1, '/'), *sb = strchr(b->path + 1, '/');
  const size_t ga = (size_t)(sa - a->path), gb = (size_t)(sb - b->path);
  const int g = strncmp(a->path, b->path, ga < gb ? ga : gb);
  if (g || ga != gb)
    return g ? g : ga < gb ? -1 : 1;
  return strcmp(sa + 1, sb + 1);
}

/* The layout of the closed file of lg, with `samples` whole samples, as
 * ex_run_open would read it (io/export_run.h). */
static void layout_of(const rod_logger *lg, long samples, ex_run *r) {
  memset(r, 0, sizeof *r);
  r->path = lg->path;
  r->file = -1;
  r->samples = samples;
  r->points = lg->points;
  r->time = lg->times;
  r->radius = lg->radius;
  r->inner_radius = lg->inner_radius;
  for (int i = 0; i < DS_ALL && r->narrays < EX_MAX_ARRAYS; i++) {
    const ds_def *df = def_of(lg, i);
    char group[EX_NAME_MAX], name[EX_NAME_MAX];
    if (!lg->present[i] || !split_path(df->path, group, name, sizeof name))
      continue;
    hsize_t dims[3] = {(hsize_t)samples, 0, 0};
    ds_dims(df, lg->points, dims);
    const unsigned long long d[3] = {dims[0], dims[1], dims[2]};
    ex_array *a = &r->array[r->narrays];
    if (!ex_array_of(group, name, lg->points, ds_rank(df), d, a))
      continue;
    a->integer = df->type != 0;
    a->is_signed = a->integer;
    a->bytes = (int)type_size(df->type);
    r->narrays++;
  }
  qsort(r->array, (size_t)r->narrays, sizeof *r->array, by_group_and_name);
  r->position = -1;
  for (int i = 0; i < r->narrays; i++)
    if (strcmp(r->array[i].path, "/rod/position") == 0)
      r->position = i;
}

/* The XDMF description of lg's file, `samples` of them whole, at
 * xdmf_path (draft: left under its temporary name there, NULL: moved into
 * place); its failure in *err. */
static int write_xdmf(const rod_logger *lg, long samples, const char *xdmf_path,
                      rod_outfile **draft, rod_error *err) {
  struct stat st;
  if (!lg->times || lg->appended > lg->times_room)
    return rod_error_set(err, ROD_ENOMEM, xdmf_path, NULL, "out of memory");
  if (stat(lg->path, &st) != 0 || !S_ISREG(st.st_mode))
    return rod_error_set(err, ROD_EINVAL, lg->path, NULL, "not a regular file");
  ex_run r;
  layout_of(lg, samples, &r);
  return ex_xdmf_draft(&r, xdmf_path, false, NULL, draft, err);
}

/* The file's status, the tendons' slack notes, then the file closed:
 * after its last samples, on the writer's thread (writer_end) beside the
 * caller's work at the close, or on the caller's when no writer ran.
 * After a write that failed half-way nothing more is written: the status
 * stays "running", so what the file holds is not passed off as complete.
 * A foreseen stop writes why in the room kept for it. */
static void end_file(rod_logger *lg, int write_errno, bool clean_stop,
                     long rest) {
  char why[512];
  if (clean_stop)
    snprintf(why, sizeof why, "stopped: cannot write %s (%s)",
             rest ? "the last samples" : "more samples", strerror(write_errno));
  const bool intact = !write_errno && !lg->commit_errno && lg->made;
  int st = ROD_EIO;
  if (lg->made && (intact || clean_stop))
    st = rod_h5_put_text(lg->file, "status",
                         clean_stop       ? why
                         : lg->end_status ? lg->end_status
                                          : "");
  if (st == ROD_OK)
    st = note_slack(lg);
  for (int i = 0; i < DS_ALL; i++)
    if (lg->ds[i] > 0)
      H5Dclose(lg->ds[i]);
  if (lg->count > 0)
    H5Dclose(lg->count);
  lg->end_closed = lg->file > 0 && H5Fclose(lg->file) >= 0;
  lg->end_told = st == ROD_OK;
  lg->ended = true;
}

static void writer_end(void *user, int failed, bool clean_stop, long pending) {
  end_file(user, failed, clean_stop, pending);
}

static int close_logger(rod_logger *lg, const char *status, bool discard,
                        const char *xdmf_path, rod_error *xdmf_err,
                        rod_logger_end *end) {
  if (!lg)
    return ROD_OK;
  /* The remaining samples, then the status and the file's close
   * (end_file) on the writer's thread while this one drafts the
   * description. */
  bool clean_stop = false;
  int write_errno = 0;
  long rest = 0;             /* samples handed over, not in the file */
  long written = 0;          /* samples in the file */
  rod_outfile *draft = NULL; /* the description made while the writer ends */
  rod_writer *ending = NULL; /* the writer, told to end */
  lg->end_status = status;
  if (lg->writer) {
    const long last = rod_writer_finish_begin(lg->writer);
    /* While the writer writes the last samples, the description of all
     * those appended, under its temporary name until the file is closed
     * whole with as many (else made again below, or dropped). Its failure
     * here is told by the one below. */
    rod_error draft_err;
    if (xdmf_path && !discard && lg->appended > 0 &&
        !rod_writer_errno(lg->writer, NULL) && atomic_load(&lg->whole) &&
        write_xdmf(lg, lg->appended, xdmf_path, &draft, &draft_err) != ROD_OK)
      draft = NULL;
    rod_writer_wait(lg->writer, last);
    write_errno = rod_writer_errno(lg->writer, &clean_stop);
    rest = rod_writer_pending(lg->writer);
    written = rod_writer_written(lg->writer);
    rod_writer_stop_begin(lg->writer); /* joined below */
    ending = lg->writer;
    lg->writer = NULL;
  } else if (!discard && make_file(lg) != ROD_OK) {
    write_errno = errno ? errno : EIO; /* a logger that got no sample */
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  int st = write_errno || lg->commit_errno || !lg->made ? ROD_EIO : ROD_OK;
  if (!lg->ended) /* no writer ran */
    end_file(lg, write_errno, clean_stop, rest);
  const int st2 = lg->end_told ? ROD_OK : ROD_EIO;
  const herr_t e = lg->end_closed ? 0 : -1;
  /* a file never made whole (its creation failed) is not kept */
  const bool drop = (discard && written == 0) || !lg->made;
  if (!drop && move_in_place(lg, false) != ROD_OK && st == ROD_OK)
    st = ROD_EIO;
  rod_outfile_close(lg->out, drop);
  const bool described = xdmf_path && st == ROD_OK && st2 == ROD_OK && e >= 0 &&
                         !drop && written > 0;
  /* the draft kept when it describes the file as closed */
  int drafted = ROD_EINVAL; /* no draft to keep */
  if (draft) {
    if (described && written == lg->appended)
      drafted = rod_outfile_commit(draft, xdmf_err);
    rod_outfile_close(draft, drafted != ROD_OK);
  }
  if (described && drafted == ROD_EINVAL)
    write_xdmf(lg, written, xdmf_path, NULL, xdmf_err);
  if (end) {
    end->write_errno = write_errno ? write_errno : lg->commit_errno;
    end->kept = write_errno ? written : lg->appended;
    end->told = !write_errno || clean_stop;
    end->made = lg->made || discard;
  }
  rod_writer_stop(ending);
  for (int k = 0; k < lg->nheld; k++)
    close(lg->held[k]);
  free(lg->times);
  free(lg->header.scenario);
  free(lg->s_values);
  free(lg);
  if (st != ROD_OK)
    return st;
  if (st2 != ROD_OK || e < 0)
    return ROD_EIO;
  return ROD_OK;
}

int rod_logger_close(rod_logger *lg, const char *status) {
  return close_logger(lg, status, false, NULL, NULL, NULL);
}

int rod_logger_close_xdmf(rod_logger *lg, const char *status,
                          const char *xdmf_path, rod_error *xdmf_err) {
  return close_logger(lg, status, false, xdmf_path, xdmf_err, NULL);
}

int rod_logger_close_told(rod_logger *lg, const char *status,
                          const char *xdmf_path, rod_error *xdmf_err,
                          rod_logger_end *end) {
  return close_logger(lg, status, false, xdmf_path, xdmf_err, end);
}

long rod_logger_appended(const rod_logger *lg) { return lg->appended; }

int rod_logger_discard(rod_logger *lg) {
  return close_logger(lg, "discarded", true, NULL, NULL, NULL);
}

void rod_logger_discard_now(const rod_logger *lg) {
  if (lg)
    rod_outfile_discard_now(lg->out);
}

/* B of one time sample: every dataset along T. */
static double sample_bytes(int points, bool contact) {
  double per_sample = 0;
  for (int i = 0; i < DS_COUNT; i++) {
    const ds_def *df = &defs[i];
    if ((df->contact && !contact) || i == DS_TWORK || i == DS_TFWORK)
      continue; /* the tendons' datasets are not in the budget */
    per_sample += (df->by_points ? points : 1) * df->per_point *
                  (double)type_size(df->type);
  }
  return per_sample;
}

/* B besides the samples: the header (attributes, the scenario text,
 * groups, chunk indices), /rod/s, and the last chunk filled up (1 MiB). */
static double fixed_bytes(const rod_scenario *sc, int points) {
  return header_bytes + (double)rod_scenario_to_ini(sc, NULL, 0) +
         points * 8.0 + (double)(1u << 20);
}

/* Samples of a run writing every `every`-th step: t = 0, the multiples of
 * every, the last step (at most). */
static double samples_every(const rod_scenario *sc, int every) {
  return (double)rod_sim_step_count(sc) / every + 2;
}

double rod_logger_estimate(const rod_scenario *sc, int points, bool contact) {
  double samples =
      sc->output.has_interval
          ? rod_sim_sample_count(sc)
          : samples_every(sc, rod_logger_every(sc, points, contact));
  return samples * sample_bytes(points, contact) + fixed_bytes(sc, points);
}

int rod_logger_every(const rod_scenario *sc, int points, bool contact) {
  if (sc->output.every > 0)
    return sc->output.every;
  if (sc->output.has_interval)
    return 1;
  /* samples after t = 0 and the last step that fit the budget */
  const double room = (ROD_OUTPUT_AUTO_BYTES - fixed_bytes(sc, points)) /
                          sample_bytes(points, contact) -
                      2;
  const int steps = rod_sim_step_count(sc);
  if (room >= steps)
    return 1;
  if (room < 1)
    return steps > 1 ? steps : 1;
  return (int)ceil(steps / room); /* steps / k + 2 <= room + 2 samples */
}

static int sink_sample(void *user, double t, const rod_sample *s,
                       const rod_step_stats *st, double wall) {
  return rod_logger_append(user, t, s, st, wall);
}

static int sink_tick(void *user) {
  const rod_logger *lg = user;
  return rod_logger_flush_if_older(user, lg->flush_interval);
}

rod_sim_sink rod_logger_sink(rod_logger *lg) {
  rod_sim_sink s = {.sample = sink_sample, .tick = sink_tick, .user = lg};
  return s;
}
