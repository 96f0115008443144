/* Shooting methods for two-point boundary-value problems on a grid.
 *
 * A problem (rod_bvp) gives the state at s = 0 from nx unknowns, integrates
 * the state (and optionally tangent directions) from one grid node to
 * another, and gives nx residuals at the last node. Unknowns and residuals
 * are in scaled units chosen by the problem, so one tolerance fits every
 * rod.
 *
 * Simple shooting solves r(x) = 0 by Levenberg-Marquardt (bvp/lm.h). The
 * Jacobian comes from integrating the tangent (variational) equations with
 * the state, and is reused from one solve to the next with Broyden updates.
 */
#ifndef ROD_SHOOTING_H
#define ROD_SHOOTING_H

#include <stdbool.h>

#include "bvp/lm.h"

typedef struct {
  int ny;     /* state size at a node */
  int nx;     /* unknowns at s = 0 = residuals at the end */
  int nnodes; /* grid nodes 0 .. nnodes-1 */
  /* State at node 0 from the unknowns x; dy0 (ny x nx, column-major) the
   * derivative d y0 / d x when not NULL. */
  void (*start)(void *user, const double *x, double *y0, double *dy0);
  /* Integrate y from node a to node b > a; if k > 0 also the k tangent
   * directions dy (ny x k, column-major). 0 on success, > 0 when the
   * integration failed (non-finite), < 0 fatal. */
  int (*propagate)(void *user, int a, int b, double *y, int k, double *dy);
  /* Residual r (nx) at the last node and, when drdy is not NULL, its
   * derivative by the state (nx x ny, column-major). */
  void (*end)(void *user, const double *y, double *r, double *drdy);
  /* Optional: the state (ny) at grid node g as the last propagate left it
   * (after any jump there), for a < g <= b. Modified shooting then runs
   * its drift test on a whole segment at once; NULL: interval by
   * interval. */
  const double *(*node)(void *user, int g);
  /* Optional: carry the k tangent directions dy (ny x k) from node a to
   * node b > a along the states the last propagate over them left, without
   * integrating the states again (a cheaper, approximate Jacobian); y_b is
   * the state that propagate reached at b (the node record there may
   * since belong to the next segment). Returns the work done in whole-rod
   * integrations (docs/hdf5.md: the share of a sweep carrying 1 + k), or
   * < 0 when it cannot (then propagate carries them). */
  double (*tangents)(void *user, int a, int b, const double *y_b, int k,
                     double *dy);
  void *user;
} rod_bvp;

typedef struct {
  int iterations;      /* LM iterations */
  double integrations; /* spatial integrations: a sweep over the whole rod
                          carrying k tangents counts 1 + k, a part of it
                          its share of the grid intervals */
  int jacobians;       /* tangent sweeps */
  double residual;     /* final scaled residual, infinity norm */
  rod_lm_stop stop;
} rod_shooting_stats;

typedef struct rod_shooting rod_shooting;

rod_shooting *rod_shooting_alloc(const rod_bvp *bvp);
void rod_shooting_free(rod_shooting *sh);

/* Solve from the guess x (nx). opt->broyden with opt->warm_jacobian reuses
 * the Jacobian of the previous solve. */
int rod_shooting_solve(rod_shooting *sh, double *x, const rod_lm_options *opt,
                       rod_shooting_stats *stats);

/* Residual and tangent Jacobian (nx x nx, column-major) at x: one sweep
 * with nx tangent directions. For tests and diagnostics. */
int rod_shooting_jacobian(rod_shooting *sh, const double *x, double *r,
                          double *J);

/* Residual at x from a sweep of the states alone (the problem's last
 * sweep is then at x). */
int rod_shooting_residual(rod_shooting *sh, const double *x, double *r);

/* Tangent sweeps carry only the unknowns listed in active (count of them,
 * increasing; NULL or count <= 0: all). For a problem with a symmetry: the
 * other unknowns neither move the listed residuals nor are moved by them
 * to first order, and their own residuals are zero, e.g. the out-of-plane
 * directions of a rod moving in a plane. Their Jacobian columns are those
 * of the start alone, as if the sweep carried them unchanged (unknown j to
 * residual j in the rod's units), which keeps the Jacobian invertible and
 * their Newton steps zero; they cost no integration. A Jacobian computed
 * with fewer directions is dropped when the set changes. Returns ROD_EINVAL
 * (and keeps all directions) for a bad list. */
int rod_shooting_set_active(rod_shooting *sh, const int *active, int count);

/* With on, the solver's Jacobians come from rod_bvp.tangents along the
 * last sweep where the problem offers it (rod_shooting_jacobian always
 * integrates the tangents with the states). Off by default. */
void rod_shooting_set_along(rod_shooting *sh, bool on);

/* Residual and Jacobian at x by rod_bvp.tangents along a sweep of the
 * states at x; ROD_EINVAL when the problem does not offer it. For tests
 * and diagnostics. */
int rod_shooting_jacobian_along(rod_shooting *sh, const double *x, double *r,
                                double *J);

/* Forget the stored Jacobian (the problem changed, e.g. a new c0). */
void rod_shooting_forget_jacobian(rod_shooting *sh);

#endif
