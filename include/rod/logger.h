/* HDF5 log of a run (docs/hdf5.md). The only module that knows the
 * file layout.
 *
 * Samples are copied into blocks of one chunk along T, which a writer
 * thread takes from a bounded ring (the caller waits only when every
 * block is full): it compresses each chunk, writes it, and flushes the
 * file (H5Fflush) at most every output.flush_interval seconds of wall
 * time (1 s), so a killed run leaves a readable file (default file format,
 * no SWMR) holding every sample before its last flush. */
#ifndef ROD_LOGGER_H
#define ROD_LOGGER_H

#include <stdbool.h>

#include "rod/sample.h"
#include "rod/scenario.h"
#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rod_logger rod_logger;

/* Create the file at path and write the root attributes; status "running"
 * until rod_logger_close. backend: "kirchhoff" or "rfem". The datasets are
 * made at the first sample, when the number of points is known. A regular
 * file is written as PATH.part and renamed to path once its datasets and
 * first samples are flushed and counted (its first chunk whole, or the
 * first flush), by the next rod_logger_append or rod_logger_flush_if_older
 * after that (every call on the file's name is made on the caller's
 * thread), or by rod_logger_close. path may replace only an HDF5 file rodsim
 * wrote (or an empty one), never a file sc reads, and not while another writer
 * holds its lock (docs/files.md, "Output files"): ROD_EINVAL or ROD_EIO
 * with err naming the file. */
int rod_logger_open(rod_logger **lg, const char *path, const rod_scenario *sc,
                    const char *backend, rod_error *err);

/* rod_logger_open for samples of `points` points (rod_sim_points; 0: not
 * known, estimated from sc), which with the run's planned samples size the
 * file's chunks and its chunk indices (a run's file is the same bit for
 * bit whichever opens it with the same points). */
int rod_logger_open_points(rod_logger **lg, const char *path,
                           const rod_scenario *sc, const char *backend,
                           int points, rod_error *err);

/* Blocks in the writer's ring by default: at least these, and more (up
 * to 8) while the huge page its buffers take anyway has room for them. */
#define ROD_LOGGER_BLOCKS 3

/* How lg writes, before its first sample: blocks in the ring (exactly
 * these; 1: every write and flush on the caller's thread, as the blocks
 * fill; the file is the same; also where HDF5 is not thread-safe) and the
 * wall time between
 * flushes (s, > 0; default output.flush_interval). ROD_EINVAL after the
 * first sample or for values out of range. */
int rod_logger_set_writer(rod_logger *lg, int blocks, double flush_interval);

/* Append one time sample (copied into the ring; written when its block
 * fills or a flush is due). ROD_EIO once a write has failed (the writer's
 * errors come back at a later sample). */
int rod_logger_append(rod_logger *lg, double t, const rod_sample *s,
                      const rod_step_stats *st, double wall_time);

/* Hand the samples appended to the writer, to be written and flushed, if
 * the last hand-over is older than max_age s (the writer renames the file
 * into place once it has flushed its first samples). ROD_EIO after a
 * failed write or rename. */
int rod_logger_flush_if_older(rod_logger *lg, double max_age);

/* Remove path (a file the caller may remove), the freeing of its blocks
 * left to the writer's thread: on a disk that discards freed blocks that
 * is about 1 ms a megabyte, which the solver's thread then does not wait
 * for. 0 when removed (or absent), -1 (errno) when not. */
int rod_logger_remove_later(rod_logger *lg, const char *path);

/* The name of lg's file on disk now: PATH.part until it is renamed (see
 * rod_logger_open), then path. */
const char *rod_logger_file_now(const rod_logger *lg);

/* Why a write of lg failed (strerror of its errno, e.g. "No space left
 * on device"), once the writer has written every sample appended; ""
 * when none did. */
const char *rod_logger_strerror(const rod_logger *lg);

/* Samples in the file, once the writer has written every sample
 * appended: those appended, or after a failed write those the file
 * counts (its last flush's); status_written (may be NULL): whether the close
 * can still write the status (false after a write that failed half-way: the
 * status then stays "running"). */
long rod_logger_written(const rod_logger *lg, bool *status_written);

/* Write the remaining samples, the final status ("complete" or why and when
 * the run stopped), and close. lg may be NULL. */
int rod_logger_close(rod_logger *lg, const char *status);

/* rod_logger_close, then the XDMF description of the file at xdmf_path
 * (NULL: none; rod/export.h, docs/hdf5.md) from the logger's own layout,
 * without reading the file back: the same text as rod_export_xdmf of the
 * closed file. Written when the file closed with at least one sample; its
 * failure in *xdmf_err (its message empty: written, or not asked for). */
int rod_logger_close_xdmf(rod_logger *lg, const char *status,
                          const char *xdmf_path, rod_error *xdmf_err);

/* Close lg, removing its file if it holds no sample yet (PATH.part, never
 * moved into place: an earlier file under path stays as it was); one
 * with samples is closed as by rod_logger_close with status "discarded".
 * lg may be NULL. */
int rod_logger_discard(rod_logger *lg);

/* From a signal handler (async-signal-safe): remove the file lg made if
 * it is not in place yet, and its lock file; lg stays allocated and open
 * (the process is about to end). */
void rod_logger_discard_now(const rod_logger *lg);

/* The size (B) of the file of a run of sc with `points` points (contact:
 * with the /contact datasets) before compression: an upper bound, as the
 * datasets are stored uncompressed when output.compression is 0. With
 * time.tolerance, the size at steps of time.dt. */
double rod_logger_estimate(const rod_scenario *sc, int points, bool contact);

/* output.every = auto keeps a file within this size before compression
 * (B): 100 MB. */
#define ROD_OUTPUT_AUTO_BYTES 100e6

/* The steps between samples of a run of sc: output.every when set; for
 * auto (0), 1 while the file stays within ROD_OUTPUT_AUTO_BYTES before
 * compression (rod_logger_estimate), else the smallest k that keeps it
 * there (with time.tolerance: counted at steps of time.dt). 1 with
 * output.interval. */
int rod_logger_every(const rod_scenario *sc, int points, bool contact);

/* A rod_sim_sink that appends to lg and has it flushed at least every
 * output.flush_interval. */
rod_sim_sink rod_logger_sink(rod_logger *lg);

#ifdef __cplusplus
}
#endif

#endif
