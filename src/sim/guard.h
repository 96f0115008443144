/* Plausibility checks of a converged state (sim.c; docs/numerics.md,
 * "The guard"). A solve that converged can still return a state that
 * cannot be the answer:
 *  - the centreline passes through itself: two parts of the rod more than
 *    a half turn of the cross-section apart in arclength (pi d / 2) come
 *    closer than the diameter d (rodsim has no self-contact);
 *  - the clamp reaction does not balance the loads (statics): n(0) is the
 *    sum of the loads and m(0) their moment about the clamp, taken from
 *    the sample's positions, independently of the shooting's integration;
 *  - a value is not finite, or an energy is negative.
 * A static state with values that cannot be or off balance is refused
 * (the run exits 1); a state that passes through itself is reported once,
 * with its time (rodsim has no self-contact: a ring closed by a moment
 * is such a state, and a user may want it). */
#ifndef ROD_SIM_GUARD_H
#define ROD_SIM_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/drive.h"
#include "core/model.h"
#include "rod/scenario.h"
#include "rod/sim.h"

typedef struct {
  double diameter;           /* m, outer */
  double gap;                /* m: arclength apart beyond which parts must not
                                come closer than the diameter */
  int capacity;              /* segments the buffer holds */
  int segments;              /* segments in box's order, from the last
                                sample (0: none yet) */
  struct rod_guard_box *box; /* per segment, sorted (allocated at the first
                                sample, the static one) */
} rod_guard;

void rod_guard_init(rod_guard *g, const rod_scenario *sc);
void rod_guard_free(rod_guard *g);

/* False, with a message naming what, when the sample holds a value that
 * is not finite. */
bool rod_guard_finite(const rod_sample *s, char *msg, size_t size);

/* False, with a message, when the sample holds a value that is not
 * finite or a negative energy. */
bool rod_guard_values(const rod_sample *s, char *msg, size_t size);

/* True, with a message (where), when the sample's centreline passes
 * through itself. For a sample whose values are finite
 * (rod_guard_values). */
bool rod_guard_crossing(rod_guard *g, const rod_sample *s, char *msg,
                        size_t size);

/* False, with a message, when the static sample's clamp force and moment
 * do not balance the static loads (tip loads of the drive d when set; may
 * be NULL). */
bool rod_guard_balance(const rod_scenario *sc, const rod_model *m,
                       const rod_drive *d, const rod_sample *s, char *msg,
                       size_t size);

#endif
