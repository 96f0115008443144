/* The making of a run's HDF5 file (io/logger.c): created under the
 * output's temporary name with the properties that keep it consistent
 * between flushes, with its root's attributes, the scenario's text, the
 * status "running", /samples (0) and the groups, flushed; and HDF5's own
 * start on a thread of its own. */
#ifndef ROD_IO_LOGGER_FILE_H
#define ROD_IO_LOGGER_FILE_H

#include <hdf5.h>

#include "io/outfile.h"
#include "rod/scenario.h"

/* What the file's root holds besides its datasets, taken from the
 * scenario at the open and written with the file. */
typedef struct {
  char backend[32], model[32], scheme[32], integrator[32], created[32];
  double dt, duration, alpha, length, tolerance;
  int nodes, segments, output_every;
  char *scenario; /* the scenario's text */
  unsigned index_k;
} rod_run_header;

/* The root's attributes of a run of sc on backend, the time of creation
 * now (scenario and index_k are the caller's to set). */
void rod_run_header_of(const rod_scenario *sc, const char *backend,
                       rod_run_header *h);

/* The file of o made with header h: its handle in *file and /samples' in
 * *count (0 when not made); ROD_OK, or ROD_EIO with errno (the handles
 * made are the caller's to close). */
int rod_run_file_make(const rod_outfile *o, const rod_run_header *h,
                      hid_t *file, hid_t *count);

/* Starts HDF5's own initialisation (H5open, 1.5 to 2.5 ms: its
 * allocations and tables) on a thread of its own, for a command that will
 * write a run's file, so that it runs while the scenario is read and the
 * simulation made. Only where the library is threadsafe (its calls then
 * wait for one another); else nothing. */
void rod_run_file_warm_up(void);

#endif
