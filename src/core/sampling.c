/* The sampling plan of a scenario (rod/sample.h): the steps of a run and
 * the time samples a sink receives (docs/hdf5.md), from the scenario
 * alone, for the simulation and for every sink sized before a run. */
#include "rod/sample.h"

#include <math.h>

int rod_sim_step_count(const rod_scenario *sc) {
  double n = sc->time.duration / sc->time.dt;
  return (int)ceil(n - 1e-9);
}

int rod_sim_sample_count(const rod_scenario *sc) {
  if (sc->output.has_interval)
    return (int)ceil(sc->time.duration / sc->output.interval - 1e-9) + 1;
  /* output.every = auto: at every step, an upper bound */
  const int every = sc->output.every > 0 ? sc->output.every : 1;
  return rod_sim_step_count(sc) / every + 2;
}
