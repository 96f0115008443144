/* The contact steps of the chain (docs/contact.md): from r->t to t_end
 * inside one smooth segment of the forcing with contact, by the free step's
 * integrators (rfem_free_step.h) and the contact room (rfem_contact.h).
 * Below the stepping room (rfem_step.c), which picks one by the scenario's
 * integrator. */
#ifndef ROD_RFEM_CONTACT_STEP_H
#define ROD_RFEM_CONTACT_STEP_H

#include "rfem/rfem_state.h"

/* rfem_contact_step.c: under RK45 or RK4, the persistent contacts' forces
 * as joint torques constant over the step, corrected until the end state
 * meets the contact conditions, and impacts located in time with their
 * impulse. */
int rfem_contact_advance(rod_rfem *r, double t_end, rod_step_stats *st);
/* rfem_contact_nsga.c: advance from r->t to t_end with generalized-alpha
 * by the nonsmooth generalized-alpha scheme (docs/contact.md). */
int rfem_contact_nsga_advance(rod_rfem *r, double t_end, rod_step_stats *st);

#endif
