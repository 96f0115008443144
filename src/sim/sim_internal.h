/* What the simulation's own adapters (sim_output.c) set in a rod_sim
 * beyond the public API of rod/sim.h. */
#ifndef ROD_SIM_INTERNAL_H
#define ROD_SIM_INTERNAL_H

#include "rod/sim.h"

/* output.every of the simulation's scenario, from now on (k >= 1). */
void rod_sim_fix_every(rod_sim *sim, int every);

/* err as the simulation's last failure (rod_sim_error); returns
 * status. */
int rod_sim_set_failure(rod_sim *sim, int status, const rod_error *err);

/* text as what the simulation's output warns about (rod_sim_warning); ""
 * clears it. */
void rod_sim_set_warning(rod_sim *sim, const char *text);

/* Close the simulation's sink before another replaces it: "complete" at
 * the run's end, else interrupted and when (or its failure). */
int rod_sim_close_replaced(rod_sim *sim);

#endif
