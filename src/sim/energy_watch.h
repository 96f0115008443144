/* A watch on the energy balance of a run (sim.c). While nothing works on
 * the rod (a fixed clamp, after any impulse; a constant tip force counts
 * as a potential), its mechanical energy
 *   E = kinetic + elastic + gravity - F_tip . p(L)   (J)
 * can only fall: drag, damping and the numerical damping of BDF-alpha
 * take energy out. The watch flags E rising above its earlier level by
 * more than half the motion's largest kinetic energy: a discretisation
 * that creates energy (seen with Euler in arclength on a coarse grid and
 * alpha near -0.5, where the motion blows up). The earlier level is the
 * smallest of the maxima of E over earlier windows of 10 samples; the
 * threshold keeps out the first-order exchange errors of a coarse Euler
 * grid (E swinging by ~10% of the motion's energy within a period). */
#ifndef ROD_ENERGY_WATCH_H
#define ROD_ENERGY_WATCH_H

#include <stdbool.h>

#include "rod/scenario.h"
#include "rod/sim.h"

typedef struct {
  bool active;               /* the clamp does no work (no motor) */
  double t_free;             /* s: no impulse from here on */
  double tip_force[3];       /* N, constant for t > 0 */
  int window;                /* samples per window */
  int count;                 /* samples in the current window */
  double window_e, window_k; /* J: maxima of E and of the kinetic energy in
                                the current window */
  int windows;               /* completed windows */
  double level;              /* J: smallest window maximum of E so far */
  double motion;             /* J: largest kinetic energy so far */
  double floor;              /* J: rounding level of E */
} rod_energy_watch;

void rod_energy_watch_init(rod_energy_watch *w, const rod_scenario *sc);

/* A sample at time t (s); the first growth found goes to res
 * (energy_grew, energy_before, energy_after, energy_time). */
void rod_energy_watch_add(rod_energy_watch *w, double t, const rod_sample *s,
                          rod_sim_result *res);

#endif
