/* The simulation's own HDF5 file (rod_sim_open_output,
 * rod_sim_output_every of rod/sim.h): the one file that joins the
 * simulation to the HDF5 logger, which it attaches as a sink like any
 * other (rod/sample.h), so that neither of the two knows the other. */
#include <stdio.h>
#include <stdlib.h>

#include "rod/export.h"
#include "rod/logger.h"
#include "rod/sim.h"
#include "sim/sim_internal.h"

/* The file's sink and, with output.xdmf, where its XDMF description goes
 * (written at the close as `rodsim run` writes it; a failure to write it
 * is not the run's). */
typedef struct {
  rod_sim_sink file;
  rod_sim *sim; /* where a failed description is said (rod_sim_warning) */
  bool described;
  char xdmf[ROD_PATH_MAX + 8];
  char h5[ROD_PATH_MAX];
} sim_output;

static int output_sample(void *user, double t, const rod_sample *s,
                         const rod_step_stats *st, double wall) {
  const sim_output *o = user;
  return o->file.sample(o->file.user, t, s, st, wall);
}

static int output_tick(void *user) {
  const sim_output *o = user;
  return o->file.tick(o->file.user);
}

static int output_close(void *user, const char *status) {
  sim_output *o = user;
  rod_error xdmf_err = {{0}, {0}, {0}, 0};
  const int st = rod_logger_close_xdmf(
      o->file.user, status, o->described ? o->xdmf : NULL, &xdmf_err);
  if (xdmf_err.message[0]) { /* the run's file stands: a warning */
    char why[768], text[sizeof why + 3 * ROD_PATH_MAX];
    rod_error_format(&xdmf_err, why, sizeof why);
    snprintf(text, sizeof text,
             "output.xdmf: %s not written (%s); rodsim export %s --xdmf -o "
             "OTHER.xdmf makes it",
             o->xdmf, why, o->h5);
    rod_sim_set_warning(o->sim, text);
  }
  free(o);
  return st;
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
  rod_sim_set_warning(sim, "");
  rod_sim_output_every(sim);
  const rod_scenario *sc = rod_sim_scenario(sim);
  const char *file = path ? path : sc->output.file;
  rod_error err = {{0}, {0}, {0}, 0};
  sim_output *o = calloc(1, sizeof *o);
  if (!o) {
    rod_error_set(&err, ROD_ENOMEM, file, "output.file", "out of memory");
    return rod_sim_set_failure(sim, ROD_ENOMEM, &err);
  }
  rod_logger *lg;
  int st = rod_logger_open_points(&lg, file, sc, rod_sim_backend(sim),
                                  rod_sim_points(sim), &err);
  if (st != ROD_OK) {
    free(o);
    return rod_sim_set_failure(sim, st, &err);
  }
  /* a description rodsim wrote of an earlier file of the name goes */
  if (rod_export_xdmf_name(file, o->xdmf, sizeof o->xdmf) == ROD_OK) {
    if (rod_export_is_xdmf(o->xdmf))
      rod_logger_remove_later(lg, o->xdmf);
    o->described = sc->output.xdmf;
  }
  o->sim = sim;
  snprintf(o->h5, sizeof o->h5, "%s", file);
  o->file = rod_logger_sink(lg);
  rod_sim_sink sink = {.sample = output_sample,
                       .tick = output_tick,
                       .close = output_close, /* the simulation closes it */
                       .user = o};
  rod_sim_set_sink(sim, &sink);
  return ROD_OK;
}
