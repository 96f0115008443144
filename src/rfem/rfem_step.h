/* The stepping room of the chain (rfem_step.c): one output step, split at
 * the forcing's jumps, each smooth segment by the free step or the contact
 * step. Above both; the backend's adapter (rfem_backend.c) calls it. */
#ifndef ROD_RFEM_STEP_H
#define ROD_RFEM_STEP_H

#include "rfem/rfem_state.h"

/* Advance from r->t to t (s): ROD_OK, a solver's status, or
 * ROD_ENONFINITE; st the step's statistics (st->rejected when the step's
 * error estimate exceeds time.tolerance: the state stays at its start). */
int rfem_step(rod_rfem *r, double t, rod_step_stats *st);

#endif
