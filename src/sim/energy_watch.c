/* The energy balance of a run in force-free motion (energy_watch.h). */
#include "sim/energy_watch.h"

#include <math.h>
#include <string.h>

/* Growth flagged beyond this fraction of the largest kinetic energy. */
static const double watch_growth = 0.5;

/* Samples per window: short, so that a blow-up is caught before it ends
 * the run (the impulse on 150 Euler nodes at dt = 0.2 ms fails 25 ms after
 * the strike); the growth threshold, not the window, keeps a coarse
 * grid's exchange errors out. */
static const int watch_window = 10;

void rod_energy_watch_init(rod_energy_watch *w, const rod_scenario *sc) {
  memset(w, 0, sizeof *w);
  /* a dead tip moment does work that no potential holds (turns in 3D do
   * not add up to an angle) */
  const double *M = sc->tip.moment;
  w->active = !sc->motor.enabled && M[0] == 0 && M[1] == 0 && M[2] == 0;
  w->t_free =
      sc->impulse.enabled ? sc->impulse.start + sc->impulse.duration : 0.0;
  memcpy(w->tip_force, sc->tip.force, sizeof w->tip_force);
  w->window = watch_window;
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
