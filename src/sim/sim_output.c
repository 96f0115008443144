/* The simulation's own HDF5 file (rod_sim_open_output,
 * rod_sim_output_every of rod/sim.h): the one file that joins the
 * simulation to the HDF5 logger, which it attaches as a sink like any
 * other (rod/sample.h), so that neither of the two knows the other. */
#include "rod/logger.h"
#include "rod/sim.h"
#include "sim/sim_internal.h"

static int close_logger(void *user, const char *status) {
  return rod_logger_close(user, status);
}

int rod_sim_output_every(rod_sim *sim) {
  if (!sim)
    return 0;
  const rod_scenario *sc = rod_sim_scenario(sim);
  if (sc->output.every == 0)
    rod_sim_fix_every(
        sim, rod_logger_every(sc, rod_sim_points(sim),
                              sc->plane.enabled || sc->obstacles.count > 0));
  return sc->output.every;
}

int rod_sim_open_output(rod_sim *sim, const char *path) {
  if (!sim)
    return ROD_EINVAL;
  rod_sim_close_replaced(sim);
  rod_sim_output_every(sim);
  const rod_scenario *sc = rod_sim_scenario(sim);
  rod_logger *lg;
  rod_error err;
  int st =
      rod_logger_open_points(&lg, path ? path : sc->output.file, sc,
                             rod_sim_backend(sim), rod_sim_points(sim), &err);
  if (st != ROD_OK)
    return rod_sim_set_failure(sim, st, &err);
  rod_sim_sink sink = rod_logger_sink(lg);
  sink.close = close_logger; /* the simulation closes what it was given */
  rod_sim_set_sink(sim, &sink);
  return ROD_OK;
}
