/* The energy balance of a run in force-free motion (energy_watch.h). */
#include "sim/energy_watch.h"

#include <math.h>
#include <string.h>

#include "core/model.h"

/* Fast detector: growth beyond this fraction of the largest kinetic
 * energy, in windows of fast_window samples: short, so that a blow-up is
 * caught before it ends the run (the impulse on 150 Euler nodes at
 * dt = 0.2 ms fails 25 ms after the strike). */
static const double fast_growth = 0.5;
static const int fast_window = 10;

/* Slow detector: growth beyond this fraction of the largest kinetic
 * energy (plus E's own swing), in windows of slow_periods periods of the
 * first bending mode. */
static const double slow_growth = 1e-3;
static const double slow_periods = 2.0;

/* Growth below this fraction of the energies' size is not flagged. */
static const double floor_fraction = 1e-6;

static void windows_init(rod_energy_windows *w, double span, int min_count) {
  memset(w, 0, sizeof *w);
  w->span = span;
  w->min_count = min_count;
  w->max = -INFINITY;
  w->min = INFINITY;
  w->level = INFINITY;
}

/* Period (s) of the bare rod's first bending mode, Euler-Bernoulli. */
static double first_period(const rod_model *m) {
  return 2.0 * M_PI / rod_model_first_omega(m, 0.0);
}

/* J: the size of the gravity potential whatever its datum,
 * rhoA |g| integral |p| ds (trapezoidal rule over the sample's points),
 * and of the tip force's work, |F| |p(L)|. Their values, -rhoA g . p and
 * F . p(L), depend on where the origin lies (both vanish for a rod lying
 * in the horizontal plane through it), their rounding and spatial error
 * do not: those scale with the weight and force times the distances. */
static double potential_size(const rod_energy_watch *w, const rod_sample *s) {
  double integral = 0.0, prev = 0.0;
  for (int i = 0; s->s && i < s->points; i++) {
    const double *p = s->position + 3 * i;
    const double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (i > 0)
      integral += 0.5 * (prev + r) * (s->s[i] - s->s[i - 1]);
    prev = r;
  }
  const double *F = w->tip_force;
  return w->weight * integral +
         sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]) * prev;
}

void rod_energy_watch_init(rod_energy_watch *w, const rod_scenario *sc) {
  memset(w, 0, sizeof *w);
  /* a dead tip moment does work that no potential holds (turns in 3D do
   * not add up to an angle); so do loads in time ([load.NAME]), a clamp
   * moved along a table and tendons (their motors or tensions work) */
  const double *M = sc->tip.moment;
  w->active = !sc->motor.enabled && M[0] == 0 && M[1] == 0 && M[2] == 0 &&
              sc->loads.count == 0 && !sc->base.motion_file[0] &&
              sc->tendons.count == 0;
  w->t_free =
      sc->impulse.enabled ? sc->impulse.start + sc->impulse.duration : 0.0;
  memcpy(w->tip_force, sc->tip.force, sizeof w->tip_force);
  rod_model m;
  rod_model_init(&m, sc);
  const double *g = sc->environment.gravity;
  w->weight = m.rho_area * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  windows_init(&w->fast, 0.0, fast_window);
  windows_init(&w->slow, slow_periods * first_period(&m), fast_window);
  w->window_k = -INFINITY;
}

/* Add E at time t; true when the window closed. */
static bool windows_add(rod_energy_windows *w, double t, double e) {
  if (w->count == 0)
    w->t0 = t;
  w->max = fmax(w->max, e);
  w->min = fmin(w->min, e);
  if (++w->count < w->min_count || t - w->t0 < w->span)
    return false;
  w->level = fmin(w->level, w->max);
  w->swing = fmax(w->swing, w->max - w->min);
  w->windows++;
  w->count = 0;
  w->max = -INFINITY;
  w->min = INFINITY;
  return true;
}

static void flag(rod_sim_result *res, double before, double after, double t) {
  res->energy_grew = true;
  res->energy_before = before;
  res->energy_after = after;
  res->energy_time = t;
}

void rod_energy_watch_add(rod_energy_watch *w, double t, const rod_sample *s,
                          rod_sim_result *res) {
  if (!w->active || t < w->t_free || s->points < 1)
    return;
  const double *tip = s->position + 3 * (s->points - 1);
  const double work = w->tip_force[0] * tip[0] + w->tip_force[1] * tip[1] +
                      w->tip_force[2] * tip[2];
  const double e = s->kinetic + s->elastic + s->gravity - work;
  const double size = fabs(s->kinetic) + fabs(s->elastic) +
                      fmax(fabs(s->gravity) + fabs(work), potential_size(w, s));
  w->floor = fmax(w->floor, floor_fraction * size);
  if (!res->energy_grew && w->fast.windows > 0 &&
      e - w->fast.level > fast_growth * w->motion + w->floor)
    flag(res, w->fast.level, e, t);
  if (!res->energy_grew && w->slow.windows > 0 &&
      e - w->slow.level > slow_growth * w->motion + w->floor + w->slow.swing)
    flag(res, w->slow.level, e, t);
  w->window_k = fmax(w->window_k, s->kinetic);
  if (windows_add(&w->fast, t, e)) {
    w->motion = fmax(w->motion, w->window_k);
    w->window_k = -INFINITY;
  }
  windows_add(&w->slow, t, e);
}
