/* A run's HDF5 file for ParaView, VisIt and other VTK readers
 * (docs/hdf5.md, "ParaView and VisIt"): the rod at every whole sample as a
 * polyline with its positions, and as point data the radius and every
 * dataset of the file given per point (velocities, forces, moments,
 * orientations, contact forces, ...).
 *
 * rod_export_xdmf writes an XDMF description that points into the HDF5
 * file (no copy of the data); rod_export_vtk writes a copy as VTK XML
 * files, one PolyData (.vtp) per sample and a ParaView collection (.pvd)
 * naming them with their times. Both describe only the samples that are
 * whole on disk (the file's /samples): a killed run's file too. */
#ifndef ROD_EXPORT_H
#define ROD_EXPORT_H

#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an export wrote. */
typedef struct {
  long samples;     /* T: time samples described */
  int points;       /* N: points along the rod */
  int point_arrays; /* arrays given per point (the radius included) */
  int field_arrays; /* arrays given per sample (time, tip, energies, ...) */
  long long bytes;  /* written in all */
} rod_export_info;

/* The XDMF file xdmf_path (e.g. RUN.xdmf beside RUN.h5) describing the run
 * file h5_path: a temporal collection of polyline grids, each a HyperSlab
 * of the file's datasets at one sample. The HDF5 file is named relative to
 * the XDMF file when both lie in one folder, else by its absolute path.
 * The file is written whole under a temporary name and renamed, so a reader
 * never sees half of it; xdmf_path naming the HDF5 file itself is refused
 * (ROD_EINVAL). info may be NULL. ROD_EIO when a file cannot be
 * read or written, ROD_EINVAL when h5_path is not a run's file of the
 * layout of docs/hdf5.md (err names the file and the dataset). */
int rod_export_xdmf(const char *h5_path, const char *xdmf_path,
                    rod_export_info *info, rod_error *err);

/* The XDMF file that goes beside h5_path: its extension replaced by
 * ".xdmf" ("out/run.h5" -> "out/run.xdmf", "run" -> "run.xdmf",
 * "run.xdmf" -> "run.xdmf.xdmf"), into out
 * (size bytes). ROD_EINVAL when it does not fit or h5_path has no file
 * name. */
int rod_export_xdmf_name(const char *h5_path, char *out, unsigned long size);

/* True when the file at path is an XDMF description that rodsim wrote
 * (rod_export_xdmf): a run removes such a file beside its output before it
 * writes a new one, so that it never describes another run's samples. */
int rod_export_is_xdmf(const char *path);

/* VTK XML files in the folder dir (made if missing): NAME_000000.vtp ...
 * one PolyData a sample (the polyline, its point data and the sample's
 * per-sample values as field data; binary, raw appended) and NAME.pvd, the
 * collection with their times, NAME being h5_path's file name without its
 * extension. info may be NULL. Errors as rod_export_xdmf. */
int rod_export_vtk(const char *h5_path, const char *dir, rod_export_info *info,
                   rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
