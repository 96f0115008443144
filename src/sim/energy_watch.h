/* A watch on the energy balance of a run (sim.c). While nothing works on
 * the rod (a fixed clamp, after any impulse; a constant tip force counts
 * as a potential), its mechanical energy
 *   E = kinetic + elastic + gravity - F_tip . p(L)   (J)
 * can only fall: drag, damping and the numerical damping of BDF-alpha
 * take energy out. Two detectors flag E rising above its earlier level:
 *  - fast (a blow-up): E above the smallest of the maxima of E over
 *    earlier windows of 10 samples by more than half the motion's largest
 *    kinetic energy; the threshold keeps out the first-order exchange
 *    errors of a coarse Euler grid (E swinging by ~10% of the motion's
 *    energy within a period);
 *  - slow (a steady gain): windows spanning two periods of the rod's
 *    first bending mode, so that each window's maximum sees the whole
 *    swing of E; E above the smallest earlier window maximum by more than
 *    0.1% of the motion's largest kinetic energy plus the largest swing of
 *    E within a window (a run whose E swings by 10% is held to growth
 *    beyond that swing).
 * Growth below a floor of 1e-6 of the energies' size is never flagged: a
 * rod at rest settles from the static solution to the dynamic
 * discretisation's rest state, which lies within the spatial error (E
 * rose by 1.4e-8 of |E| on 20 RK4 nodes with cubic Hermite history).
 * The potentials' size is taken free of their datum, rhoA |g| integral
 * |p| ds + |F| |p(L)|: a very stiff rod lying along x through the origin
 * (EI = 1e8 N m^2, weight release) has gravity potential -8.8e-13 J of a
 * size 9.9e-3 J, and its E rose by 9e-17 J in 2 s (1e-14 of that size,
 * the rounding of the positions amplified by steps of 1e-3 of the
 * mode's period), which the floor on |E| (6e-18 J) flagged. */
#ifndef ROD_ENERGY_WATCH_H
#define ROD_ENERGY_WATCH_H

#include <stdbool.h>

#include "rod/scenario.h"
#include "rod/sim.h"

/* Maxima of E over windows of samples and the smallest of them. */
typedef struct {
  double span;     /* s: a window closes after this time (0: by count) */
  int min_count;   /* samples a window needs at least */
  int count;       /* samples in the current window */
  double t0;       /* s: time of its first sample */
  double max, min; /* J: extremes of E in the current window */
  int windows;     /* completed windows */
  double level;    /* J: smallest window maximum so far */
  double swing;    /* J: largest max - min within a completed window */
} rod_energy_windows;

typedef struct {
  bool active;         /* the clamp does no work (no motor) */
  double t_free;       /* s: no impulse from here on */
  double tip_force[3]; /* N, constant for t > 0 */
  double weight;       /* N/m, rhoA |g| */
  rod_energy_windows fast, slow;
  double window_k; /* J: largest kinetic energy in the current fast window */
  double motion;   /* J: largest kinetic energy so far (completed windows) */
  double floor;    /* J: the level below which growth is not flagged */
} rod_energy_watch;

void rod_energy_watch_init(rod_energy_watch *w, const rod_scenario *sc);

/* A sample at time t (s); the first growth found goes to res
 * (energy_grew, energy_before, energy_after, energy_time). */
void rod_energy_watch_add(rod_energy_watch *w, double t, const rod_sample *s,
                          rod_sim_result *res);

#endif
