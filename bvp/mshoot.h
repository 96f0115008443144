/* Modified simple shooting (Holsapple, Venkataraman & Doman 2003; Till & Rucker
 * 2017 II.D): shooting from s = 0 like simple shooting, but the integration
 * restarts at interior grid nodes from a reference trajectory (for the rod:
 * the solution extrapolated from the last time steps), and each such node's
 * state joins the unknowns with a continuity residual: multiple shooting
 * whose nodes are placed where the problem needs them. Each segment then
 * amplifies errors by a bounded factor, so the Newton iteration stays in its
 * linear regime however ill-conditioned simple shooting is.
 *
 * Nodes come from two rules: a regular spacing (the caller's estimate of the
 * length over which errors grow by a set factor) and a drift test (a sweep
 * from the guess that strays from the reference by more than a threshold
 * restarts there).
 *
 * Unknowns: x (nx, as in simple shooting) and, per interior node k, the
 * scaled deviation z_k = (y(k) - yref(k)) / scale. Residuals: the scaled
 * continuity (y(k-) - y(k)) / scale at every node and the end residual. The
 * Jacobian (from tangent sweeps, segment by segment) is banded; it is
 * factorised by a banded LU (LAPACK's, or bvp/band.h's for the stages'
 * plain chord iterations), or inverted when small, and reused across iterations
 * and solves (chord Newton) until convergence slows, with a backtracking line
 * search on the scaled residual. */
#ifndef ROD_MSHOOT_H
#define ROD_MSHOOT_H

#include <stdbool.h>

#include "bvp/shooting.h"

typedef struct {
  int spacing;         /* grid intervals per segment; <= 0: no regular nodes */
  double drift;        /* extra node where |y - yref| / scale > drift (inf
                          norm); <= 0: no drift nodes */
  double tolerance;    /* on the infinity norm of the scaled residual */
  int max_iterations;  /* Newton iterations */
  bool reuse_jacobian; /* keep the factorised Jacobian between solves while
                          the node set stays the same */
  const double *drift_ref; /* nnodes x ny: the drift test's reference, also
                              the start of the nodes it places; NULL: yref */
  int attempts; /* solves with ever finer spacing before giving up; <= 0:
                   5 */
  bool stages;  /* the implicit stages of a Runge-Kutta step: up to
                   ROD_MSHOOT_FOLD (24) unknowns the explicit inverse with
                   each Broyden update folded into it, beyond that plain
                   chord iterations on the Jacobian's band LU
                   (rod_band_factor, no updates), both kept until an
                   iteration leaves more than 0.9 of the residual;
                   otherwise Broyden's updates held beside an explicit
                   inverse (up to 64 unknowns) or LAPACK's band LU, kept
                   until one leaves more than half */
} rod_mshoot_options;

typedef struct rod_mshoot rod_mshoot;

/* scale: ny positive state scales (copied). At most max_nodes interior
 * nodes. */
rod_mshoot *rod_mshoot_alloc(const rod_bvp *bvp, const double *scale,
                             int max_nodes);
void rod_mshoot_free(rod_mshoot *ms);

/* Solve from the guess x (nx, updated in place) with reference states yref
 * (nnodes x ny, row per node; read at the regular nodes of every attempt's
 * spacing, and everywhere when drift_ref is NULL). When the iteration
 * fails with a fresh Jacobian, the node spacing is halved and the solve
 * repeated, up to `attempts` times. On success the problem's last sweep is
 * the solution's. */
int rod_mshoot_solve(rod_mshoot *ms, double *x, const double *yref,
                     const rod_mshoot_options *opt, rod_shooting_stats *stats);

/* Interior nodes of the last solve (grid indices, increasing). */
int rod_mshoot_node_count(const rod_mshoot *ms);
const int *rod_mshoot_nodes(const rod_mshoot *ms);

/* With on, Jacobians come from rod_bvp.tangents along the last
 * evaluation's states where the problem offers it. Off by default. */
void rod_mshoot_set_along(rod_mshoot *ms, bool on);

/* As rod_shooting_set_active: the unknowns x (active_x, nx_count of them)
 * and the interior node states (active_y, ny_count) whose tangents the
 * sweeps carry; the others are carried unchanged, without integration. */
int rod_mshoot_set_active(rod_mshoot *ms, const int *active_x, int nx_count,
                          const int *active_y, int ny_count);

/* Drop the stored Jacobian (e.g. the time step's c0 changed). */
void rod_mshoot_forget_jacobian(rod_mshoot *ms);

/* Residual R and dense Jacobian J (n x n, column-major, n = nx + nodes ny)
 * of the last solve's structure at the unknowns X; for tests and the
 * conditioning study. */
int rod_mshoot_dense_jacobian(rod_mshoot *ms, const double *X,
                              const double *yref, double *R, double *J);

/* The same with the tangents by rod_bvp.tangents along an evaluation of
 * the states at X; ROD_EINVAL when the problem does not offer them. */
int rod_mshoot_dense_jacobian_along(rod_mshoot *ms, const double *X,
                                    const double *yref, double *R, double *J);
int rod_mshoot_unknowns(const rod_mshoot *ms);
/* The interior nodes it was allocated for. */
int rod_mshoot_max_nodes(const rod_mshoot *ms);

#endif
