/* HDF5 log of a run (docs/hdf5.md). The only module that knows the
 * file layout.
 *
 * Samples are buffered in blocks of one chunk along T and written with one
 * H5Dwrite per dataset; every dataset is extended together. The buffer is
 * written and the file flushed (H5Fflush) whenever a block fills and at
 * least every second of wall time, so a killed run leaves a readable file
 * (default file format, no SWMR) holding every sample before its last
 * flush. */
#ifndef ROD_LOGGER_H
#define ROD_LOGGER_H

#include <stdbool.h>

#include "rod/scenario.h"
#include "rod/sample.h"
#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rod_logger rod_logger;

/* Create the file at path and write the root attributes; status "running"
 * until rod_logger_close. backend: "kirchhoff" or "rfem". The datasets are
 * made at the first sample, when the number of points is known. A regular
 * file is written as PATH.part and renamed to path once its datasets and
 * first sample are flushed (or at rod_logger_close). path may replace only
 * an HDF5 file rodsim wrote (or an empty one), never a file sc reads, and
 * not while another writer holds its lock (docs/files.md, "Output
 * files"): ROD_EINVAL or ROD_EIO with err naming the file. */
int rod_logger_open(rod_logger **lg, const char *path, const rod_scenario *sc,
                    const char *backend, rod_error *err);

/* Append one time sample. */
int rod_logger_append(rod_logger *lg, double t, const rod_sample *s,
                      const rod_step_stats *st, double wall_time);

/* Write the buffer and flush if the last flush is older than max_age s. */
int rod_logger_flush_if_older(rod_logger *lg, double max_age);

/* The name of lg's file on disk now: PATH.part before its first sample is
 * flushed, then path. */
const char *rod_logger_file_now(const rod_logger *lg);

/* Why the last write of lg failed (strerror of its errno, e.g. "No space
 * left on device"); "" when none did. */
const char *rod_logger_strerror(const rod_logger *lg);

/* Samples in the file so far; status_written (may be NULL): whether the
 * close can still write the status (false after a write that failed
 * half-way: the status then stays "running"). */
long rod_logger_written(const rod_logger *lg, bool *status_written);

/* Write the remaining samples, the final status ("complete" or why and when
 * the run stopped), and close. lg may be NULL. */
int rod_logger_close(rod_logger *lg, const char *status);

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

/* A rod_sim_sink that appends to lg and flushes at least every second. */
rod_sim_sink rod_logger_sink(rod_logger *lg);

#ifdef __cplusplus
}
#endif

#endif
