/* The writers of the tip CSV and the shape file under the output rules of
 * a command (io/outfile.h): rod_tip_write and rod_shape_write are these
 * with the default rules (a file rodsim wrote, or a new one; the shape
 * file's source never replaced); `rodsim track` adds its input and
 * --force. */
#ifndef ROD_IO_WRITERS_H
#define ROD_IO_WRITERS_H

#include "io/outfile.h"
#include "rod/export.h"
#include "rod/logger.h"
#include "rod/shape.h"
#include "rod/tipcsv.h"

int rod_tip_write_with(const char *path, const rod_tip_data *d,
                       const rod_out_rules *rules, rod_error *err);

/* rod_logger_open under the rules of a command (its inputs, --force), for
 * samples of `points` points (0: not known, estimated from sc), which
 * size the file's chunks and chunk index. */
int rod_logger_open_with(rod_logger **lg, const char *path,
                         const rod_scenario *sc, const char *backend,
                         const rod_out_rules *rules, int points,
                         rod_error *err);

/* How a logger's writing ended (rod_logger_close_told): errno of the
 * first failed write or move into place (0: none), the samples the file
 * keeps, whether its status says why it stopped (after a failure), and
 * whether the file was made at all (its making failed: none is left). */
typedef struct {
  int write_errno;
  long kept;
  bool told, made;
} rod_logger_end;

/* rod_logger_close_xdmf, with how the writing ended in *end: what
 * rod_logger_strerror and rod_logger_written would tell before it, without
 * waiting for the writer first, so that the description is made while the
 * writer writes the last samples. */
int rod_logger_close_told(rod_logger *lg, const char *status,
                          const char *xdmf_path, rod_error *xdmf_err,
                          rod_logger_end *end);

/* Samples appended so far (none written: none appended). */
long rod_logger_appended(const rod_logger *lg);

/* rod_export_xdmf; force: replace a file rodsim did not write. */
int rod_export_xdmf_with(const char *h5_path, const char *xdmf_path, bool force,
                         rod_export_info *info, rod_error *err);

/* rod_export_vtk; force: replace files rodsim did not write. */
int rod_export_vtk_with(const char *h5_path, const char *dir, bool force,
                        rod_export_info *info, rod_error *err);

/* The checks of the description's or the copy's output (the collection
 * DIR/RUN.pvd, when DIR exists) under the output rules, before the
 * export (rod_outfile_check); key names it in messages. ROD_EINVAL when
 * refused (another writer holds its lock, a file rodsim did not write,
 * the input), ROD_EIO when it cannot be written. */
int rod_export_xdmf_check(const char *h5_path, const char *xdmf_path,
                          bool force, const char *key, rod_error *err);
int rod_export_vtk_check(const char *h5_path, const char *dir, bool force,
                         const char *key, rod_error *err);

int rod_shape_write_with(const char *path, const rod_shape_data *d,
                         const char *source, const char *camera,
                         const rod_out_rules *rules, rod_error *err);

#endif
