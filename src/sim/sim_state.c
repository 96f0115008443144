/* The simulation's state copied into the caller's arrays (rod/sim.h):
 * after a step whose state is not finite, a failed step, the state kept
 * from before it (sim_kept.c). */
#include "sim/sim_object.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The current state for a getter into out: ROD_EINVAL for a NULL sim or
 * out. */
static int checked_sample(rod_sim *sim, const double *out) {
  if (!sim)
    return ROD_EINVAL;
  if (!out)
    return rod_sim_fail(sim, ROD_EINVAL, "", "no array to copy into (NULL)");
  return rod_sim_current_sample(sim);
}

int rod_sim_points(const rod_sim *sim) {
  if (!sim)
    return 0;
  if (sim->cur_valid)
    return sim->cur.points;
  /* before a solve the backend's arrays hold no state, but their size */
  rod_sample s;
  memset(&s, 0, sizeof s);
  return sim->ops->sample(sim->self, &s) == ROD_OK ? s.points : 0;
}

static int copy_out(rod_sim *sim, const double *src, int width, double *out,
                    const char *what) {
  if (!src)
    return rod_sim_fail(sim, ROD_EUNSUPPORTED, "solver.backend",
                        "the %s backend gives no %s", sim->ops->name, what);
  memcpy(out, src, (size_t)sim->cur.points * width * sizeof(double));
  return ROD_OK;
}

#define ROD_SIM_GETTER(fn, field, width, what)                                 \
  int fn(rod_sim *sim, double *out) {                                          \
    int st = checked_sample(sim, out);                                         \
    return st != ROD_OK ? st                                                   \
                        : copy_out(sim, sim->cur.field, width, out, what);     \
  }
ROD_SIM_GETTER(rod_sim_get_arclength, s, 1, "arclengths")
ROD_SIM_GETTER(rod_sim_get_positions, position, 3, "positions")
ROD_SIM_GETTER(rod_sim_get_orientations, orientation, 4, "orientations")
ROD_SIM_GETTER(rod_sim_get_velocities, velocity, 3, "velocities")
ROD_SIM_GETTER(rod_sim_get_forces, force, 3, "internal forces")
ROD_SIM_GETTER(rod_sim_get_moments, moment, 3, "internal moments")
#undef ROD_SIM_GETTER

int rod_sim_get_energies(rod_sim *sim, double out[3]) {
  int st = checked_sample(sim, out);
  if (st != ROD_OK)
    return st;
  out[0] = sim->cur.kinetic;
  out[1] = sim->cur.elastic;
  out[2] = sim->cur.gravity;
  return ROD_OK;
}

void rod_sim_get_result(const rod_sim *sim, rod_sim_result *out) {
  if (!out)
    return;
  if (sim) {
    *out = sim->res;
    return;
  }
  memset(out, 0, sizeof *out);
  out->status = ROD_EINVAL;
  snprintf(out->message, sizeof out->message, "no simulation (NULL)");
}

int rod_sim_get_stat(const rod_sim *sim, const char *name, double *value) {
  if (!sim || !name || !value)
    return ROD_EINVAL;
  const rod_sim_result *r = &sim->res;
  const struct {
    const char *name;
    double value;
  } stats[] = {{"time", r->time},
               {"steps", r->steps},
               {"samples", r->samples},
               {"iterations", (double)r->iterations},
               {"integrations", r->integrations},
               {"fallbacks", r->fallbacks},
               {"max_residual", r->max_residual},
               {"wall_time", r->wall_time},
               {"step_wall", r->step_wall},
               {"last_iterations", r->last.iterations},
               {"last_integrations", r->last.integrations},
               {"last_residual", r->last.residual},
               {"last_method", r->last.method},
               {"error_estimate", r->error_estimate},
               {"tip_motion", r->tip_motion},
               {"error_estimate_dt", r->error_estimate_dt},
               {"error_estimate_tolerance", r->error_estimate_tolerance},
               {"status", r->status}};
  for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
    if (strcmp(stats[i].name, name) == 0) {
      *value = stats[i].value;
      return ROD_OK;
    }
  return ROD_EINVAL;
}
