/* The statics room of the chain (rfem_static.c): the static state under the
 * scenario's loads, contact-free and then, with contact bodies, on them.
 * Above the static residual (rfem_static_residual.h) and the statics with
 * contact (rfem_contact_static.h); the backend's adapter calls it. */
#ifndef ROD_RFEM_STATIC_H
#define ROD_RFEM_STATIC_H

#include "rfem/rfem_state.h"

/* Static equilibrium, by Newton's method with the exact Jacobian (spring
 * stiffness minus the dead-load stiffness) or along the loading path,
 * checked for stability (r->static_report). */
int rfem_solve_static(rod_rfem *r, rod_step_stats *st);

#endif
