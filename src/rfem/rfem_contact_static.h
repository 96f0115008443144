/* The chain's static equilibrium with contact (rfem_contact_static.c), on
 * the static residual (rfem_static_residual.h) and the contact room
 * (rfem_contact.h); below the statics room (rfem_static.c), which calls it
 * after the contact-free solve. */
#ifndef ROD_RFEM_CONTACT_STATIC_H
#define ROD_RFEM_CONTACT_STATIC_H

#include "rfem/rfem_state.h"

/* The static equilibrium with contact (the free angles of
 * rfem_static_residual.h), by sequential quadratic programming from the
 * unloaded shape: each iteration solves the contact problem of the static
 * Jacobian's Newton step. free_solved: the current q is the contact-free
 * equilibrium, which stands when it touches nothing. */
int rfem_contact_static(rod_rfem *r, bool free_solved, rod_step_stats *st);

#endif
