/* In-memory record of a run: times, tip positions, energies and solver
 * effort per sample, and optionally the whole rod. A rod_sim_sink for the
 * commands and tests that analyse a run instead of writing HDF5 (compare,
 * calibrate). Storage is sized for the run's samples up to 16384 and
 * doubled as a longer run (or one with step-size control) delivers more. */
#ifndef ROD_RECORDER_H
#define ROD_RECORDER_H

#include <stdbool.h>

#include "rod/sample.h"
#include "rod/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int capacity, count;
  int points;    /* points per sample (set at the first sample) */
  bool keep_rod; /* also keep positions of every point */
  double *t;     /* s (count) */
  double *tip;   /* m (count x 3) */
  double *kinetic, *elastic, *gravity; /* J (count) */
  double *rod; /* m (count x points x 3), when keep_rod */
  double *s;   /* m (points), when keep_rod */
  int *iterations;
  double *integrations;
  int *method;
} rod_recorder;

/* A recorder with room for the samples of a run of sc (time samples,
 * docs/hdf5.md), up to 16384 before it grows. keep_rod also stores the
 * positions of all points. NULL if out of memory. */
rod_recorder *rod_recorder_alloc(const rod_scenario *sc, bool keep_rod);
void rod_recorder_free(rod_recorder *r);

/* The sink that appends to r. */
rod_sim_sink rod_recorder_sink(rod_recorder *r);

#ifdef __cplusplus
}
#endif

#endif
