/* The energy balance of a run in force-free motion (energy_watch.h). */
#include "energy_watch.h"

#include <math.h>
#include <string.h>

/* Growth flagged beyond this fraction of the largest kinetic energy. */
static const double watch_growth = 0.5;

/* Windows per run (at least watch_min_window samples each). */
static const int watch_windows = 10, watch_min_window = 10;

void rod_energy_watch_init(rod_energy_watch *w, const rod_scenario *sc) {
  memset(w, 0, sizeof *w);
  w->active = !sc->motor.enabled;
  w->t_free =
      sc->impulse.enabled ? sc->impulse.start + sc->impulse.duration : 0.0;
  memcpy(w->tip_force, sc->tip.force, sizeof w->tip_force);
  int samples =
      rod_sim_step_count(sc) / (sc->output.every > 0 ? sc->output.every : 1);
  w->window = samples / watch_windows;
  if (w->window < watch_min_window)
    w->window = watch_min_window;
  w->window_e = w->window_k = -INFINITY;
  w->level = INFINITY;
}

void rod_energy_watch_add(rod_energy_watch *w, double t, const rod_sample *s,
                          rod_sim_result *res) {
  if (!w->active || t < w->t_free || s->points < 1)
    return;
  const double *tip = s->position + 3 * (s->points - 1);
  const double work = w->tip_force[0] * tip[0] + w->tip_force[1] * tip[1] +
                      w->tip_force[2] * tip[2];
  const double e = s->kinetic + s->elastic + s->gravity - work;
  const double size =
      fabs(s->kinetic) + fabs(s->elastic) + fabs(s->gravity) + fabs(work);
  if (1e-9 * size > w->floor)
    w->floor = 1e-9 * size;
  if (w->windows > 0 && !res->energy_grew &&
      e - w->level > watch_growth * w->motion + w->floor) {
    res->energy_grew = true;
    res->energy_before = w->level;
    res->energy_after = e;
    res->energy_time = t;
  }
  if (e > w->window_e)
    w->window_e = e;
  if (s->kinetic > w->window_k)
    w->window_k = s->kinetic;
  if (++w->count == w->window) {
    if (w->window_e < w->level)
      w->level = w->window_e;
    if (w->window_k > w->motion)
      w->motion = w->window_k;
    w->windows++;
    w->count = 0;
    w->window_e = w->window_k = -INFINITY;
  }
}
