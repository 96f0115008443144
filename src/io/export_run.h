/* A run's HDF5 file as the exporters (xdmf.c, vtk.c) see it: its whole
 * samples, its points, the radius from its scenario, and which datasets
 * are given per point and which per sample (docs/hdf5.md). */
#ifndef ROD_IO_EXPORT_RUN_H
#define ROD_IO_EXPORT_RUN_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>

#include "io/outfile.h"
#include "rod/export.h"
#include "rod/status.h"

enum { EX_MAX_ARRAYS = 48, EX_NAME_MAX = 96 };

/* A dataset extended along T (its first dimension unlimited). */
typedef struct {
  char path[EX_NAME_MAX]; /* "/rod/force" */
  char name[EX_NAME_MAX]; /* the array's name: "force", "contact_force" */
  bool per_point;         /* (T, N) or (T, N, k); else (T) or (T, k) */
  int components;         /* k; 1 for (T) and (T, N) */
  hsize_t extent;         /* T on disk (past the whole samples after a kill) */
  int rank;               /* of the dataset, 1 to 3 */
  bool integer;           /* integer data, else floating point */
  bool is_signed;         /* of integer data */
  int bytes;              /* of one value: 1, 2, 4 or 8 */
} ex_array;

typedef struct {
  const char *path; /* the HDF5 file, as given */
  hid_t file;
  long samples;                /* T: whole samples */
  int points;                  /* N */
  double *time;                /* (samples) s */
  double radius, inner_radius; /* m, of the rod's section (rod.diameter / 2,
                                  rod.inner_diameter / 2) */
  int position;                /* index of /rod/position in array */
  int narrays;
  ex_array array[EX_MAX_ARRAYS]; /* in the order of the file's groups and
                                    names, /solver's left out */
} ex_run;

/* Open h5_path read-only and take its layout: ROD_EIO if it cannot be
 * opened, ROD_EINVAL (err naming the file and the dataset) if it is not a
 * run's file: /time, /rod/s and /rod/position (T, N, 3) missing or of
 * another shape, no whole sample, or a scenario that does not read. */
int ex_run_open(const char *h5_path, ex_run *r, rod_error *err);
void ex_run_close(ex_run *r);

/* Samples first .. first + count - 1 of array a as doubles, row after row
 * (count x N x k for a per-point array, count x k else), into a new buffer
 * (*out, free() it); the checks of rod_h5_read_block. */
int ex_run_read(const ex_run *r, const ex_array *a, long first, long count,
                double **out, rod_error *err);

/* info's samples, points and the arrays given per point (the radii and
 * /rod/s among them) and per sample; bytes is left as it is. */
void ex_run_count(const ex_run *r, rod_export_info *info);

/* The XDMF description of run r (its file r->path: the layout read by
 * ex_run_open, or the one its writer had) at xdmf_path, over a file there
 * only when rodsim wrote it or force; info's bytes and counts. */
int ex_xdmf_write(const ex_run *r, const char *xdmf_path, bool force,
                  rod_export_info *info, rod_error *err);

/* ex_xdmf_write, the description left under its temporary name in *draft
 * (NULL: moved into place as ex_xdmf_write does), for the caller's
 * rod_outfile_commit and rod_outfile_close. */
int ex_xdmf_draft(const ex_run *r, const char *xdmf_path, bool force,
                  rod_export_info *info, rod_outfile **draft, rod_error *err);

/* Where dataset /group/name of a run's file with `points` points stands
 * among the arrays the exporters take (the datasets extended along T in
 * the groups under the root, /solver's left out): its name, whether it is
 * per point, and its components, into a (path, name, per_point,
 * components); rank, dims after T: ndims and dims. False when the
 * exporters leave it out. */
bool ex_array_of(const char *group, const char *name, int points, int rank,
                 const unsigned long long *dims, ex_array *a);

/* x in the fewest significant digits (15 to 17) that read back as x:
 * into text (32 bytes suffice), or onto out. */
void ex_format_double(char *text, size_t size, double x);
void ex_put_double(FILE *out, double x);

/* Close a file written to path, adding its size to *bytes: ROD_EIO (err
 * naming path) when a write or the close failed. */
int ex_finish(FILE *out, const char *path, long long *bytes, rod_error *err);

/* The file name base of path: its last component without its extension
 * (".../run.h5" -> "run"), into out. False when it does not fit. */
bool ex_stem(const char *path, char *out, size_t size);

#endif
