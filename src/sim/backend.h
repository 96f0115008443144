/* The backends behind one ops table (Kirchhoff/Cosserat by shooting, the
 * RFEM chain), driven by the time loop of sim.c. Private: an embedder uses
 * rod_sim (include/rod/sim.h). */
#ifndef ROD_SIM_BACKEND_H
#define ROD_SIM_BACKEND_H

#include "core/drive.h"
#include "rod/scenario.h"
#include "rod/sim.h"
#include "rod/status.h"

typedef struct rod_backend_ops {
  const char *name;
  int (*create)(const rod_scenario *sc, void **self, rod_error *err);
  void (*destroy)(void *self);
  /* Static equilibrium: the t = 0 state (the static state,
   * docs/scenario.md). ROD_EINVAL when the state is refused as the
   * input's: a body between two grid nodes, which refusal() names with the
   * space.nodes that resolves it. */
  int (*solve_static)(void *self, rod_step_stats *st);
  /* How the static state was found (may be NULL: not checked). */
  void (*static_report)(void *self, rod_static_report *rep);
  /* Advance from the current time to time t. */
  int (*step)(void *self, double t, rod_step_stats *st);
  /* The current state. */
  int (*sample)(void *self, rod_sample *out);
  /* Take the loads and boundary motion set between steps (core/drive.h):
   * they apply from the next solve on. ROD_EUNSUPPORTED (err says which)
   * for what the backend cannot apply; the backend's drive is then
   * unchanged. */
  int (*set_drive)(void *self, const rod_drive *d, rod_error *err);
  /* Step-size control (time.tolerance; may be NULL for a backend without
   * an error estimate): the next steps keep the state, set
   * rod_step_stats.rejected and report their error when it exceeds tol (m;
   * INFINITY: accept whatever the error). */
  void (*set_tolerance)(void *self, double tol);
  /* Why the last step or static solve failed when it refused a state
   * rather than failed to converge (a body passed through); "" otherwise
   * (may be NULL). */
  const char *(*refusal)(void *self);
  /* While solve_static runs, from another thread: the share of the loads
   * its loading path has reached (0 to 1), -1 when it is on no path (may
   * be NULL: not told). */
  double (*static_progress)(void *self);
} rod_backend_ops;

extern const rod_backend_ops rod_backend_kirchhoff;
extern const rod_backend_ops rod_backend_rfem;

/* The ops of the scenario's solver.backend; NULL if not in this build. */
const rod_backend_ops *rod_backend_for(const rod_scenario *sc);

#endif
