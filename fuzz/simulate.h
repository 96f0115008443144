/* The whole path of `rodsim run` for the scenario targets: a scenario that
 * validates is built into a simulation, its static state solved and a few
 * steps taken, under a budget (at most 24 grid nodes, 8 chain elements,
 * 30 iterations a solve, 3 steps) so that an input takes milliseconds.
 * Properties: every sample delivered is finite (positions, orientations,
 * velocities, forces, energies, contact); a step that succeeds moves the
 * time on and leaves a finite state; a failure says why (an error
 * message); and nothing crashes, leaks or is undefined on the way. */
#ifndef ROD_FUZZ_SIMULATE_H
#define ROD_FUZZ_SIMULATE_H

#include <math.h>

#include "fuzz_util.h"
#include "rod/scenario.h"
#include "rod/sim.h"

enum {
  FUZZ_NODES = 24,
  FUZZ_SEGMENTS = 8,
  FUZZ_ITERATIONS = 30,
  FUZZ_STEPS = 3
};

static inline void fuzz_check_finite(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK(isfinite(x[i]));
}

static inline int fuzz_sample(void *user, double t, const rod_sample *s,
                              const rod_step_stats *stats, double wall) {
  (void)user;
  (void)stats;
  (void)wall;
  FUZZ_CHECK(isfinite(t) && s->points >= 2);
  const size_t n = (size_t)s->points;
  fuzz_check_finite(s->s, n);
  fuzz_check_finite(s->position, 3 * n);
  fuzz_check_finite(s->orientation, 4 * n);
  fuzz_check_finite(s->velocity, 3 * n);
  if (s->force)
    fuzz_check_finite(s->force, 3 * n);
  if (s->moment)
    fuzz_check_finite(s->moment, 3 * n);
  const double energies[3] = {s->kinetic, s->elastic, s->gravity};
  fuzz_check_finite(energies, 3);
  if (s->contact_force) {
    fuzz_check_finite(s->contact_force, 3 * n);
    FUZZ_CHECK(!isnan(s->contact_gap_min) && isfinite(s->dissipated_contact));
  }
  return ROD_OK;
}

/* The state of sim after a step that succeeded: finite. */
static inline void fuzz_check_state(rod_sim *sim) {
  const size_t n = (size_t)rod_sim_points(sim);
  double *x = malloc(4 * n * sizeof *x);
  if (!x)
    abort();
  FUZZ_CHECK(rod_sim_get_positions(sim, x) == ROD_OK);
  fuzz_check_finite(x, 3 * n);
  FUZZ_CHECK(rod_sim_get_orientations(sim, x) == ROD_OK);
  fuzz_check_finite(x, 4 * n);
  FUZZ_CHECK(rod_sim_get_velocities(sim, x) == ROD_OK);
  fuzz_check_finite(x, 3 * n);
  FUZZ_CHECK(rod_sim_get_energies(sim, x) == ROD_OK);
  fuzz_check_finite(x, 3);
  free(x);
}

static inline void fuzz_simulate(const rod_scenario *given) {
  rod_scenario *sc = rod_scenario_new();
  if (!sc)
    abort();
  *sc = *given;
  if (sc->space.nodes == 0 || sc->space.nodes > FUZZ_NODES)
    sc->space.nodes = FUZZ_NODES;
  if (sc->rfem.segments > FUZZ_SEGMENTS)
    sc->rfem.segments = FUZZ_SEGMENTS;
  if (sc->solver.max_iterations > FUZZ_ITERATIONS)
    sc->solver.max_iterations = FUZZ_ITERATIONS;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_sim *sim = NULL;
  if (rod_scenario_validate(sc, &err) != ROD_OK) {
    rod_scenario_free(sc);
    return;
  }
  if (rod_sim_create(sc, &sim, &err) != ROD_OK) {
    FUZZ_CHECK(sim == NULL && err.message[0]);
    rod_scenario_free(sc);
    return;
  }
  rod_sim_sink sink = {.sample = fuzz_sample};
  rod_sim_set_sink(sim, &sink);
  int st = rod_sim_static(sim);
  if (st == ROD_OK)
    fuzz_check_state(sim);
  for (int k = 0; k < FUZZ_STEPS && st == ROD_OK; k++) {
    const double t0 = rod_sim_time(sim);
    st = rod_sim_step(sim);
    if (st == ROD_OK) {
      FUZZ_CHECK(rod_sim_time(sim) > t0);
      fuzz_check_state(sim);
    }
  }
  if (st != ROD_OK)
    FUZZ_CHECK(rod_sim_error(sim)[0] != '\0');
  rod_sim_flush(sim);
  rod_sim_free(sim);
  rod_scenario_free(sc);
}

#endif
