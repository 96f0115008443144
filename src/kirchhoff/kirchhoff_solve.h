/* The solve room of the Kirchhoff backend (kirchhoff_solve.c): one step's
 * or one stage's shooting problem posed at time t (coefficients, loads,
 * planar fast path, prediction) and solved by the strategy's chain of
 * methods (simple shooting, modified shooting, the fallbacks between them),
 * with its options and statistics. The static solve, the time schemes
 * (BDF-alpha, the Runge-Kutta stages) and contact call it; it calls only
 * the rod (kirchhoff_rod.h) and the predictors (kirchhoff_predict.h). */
#ifndef ROD_KIRCHHOFF_SOLVE_H
#define ROD_KIRCHHOFF_SOLVE_H

#include "kirchhoff/kirchhoff_predict.h"
#include "kirchhoff/kirchhoff_rod.h"

/* Unknowns of the straight rigid rod carrying the current loads. */
void kr_rigid_guess(const rod_kirchhoff *k, double *x);
/* The planar fast path when the step allows it (solver.planar = auto). */
void kr_set_planar(rod_kirchhoff *k);
/* Modified shooting's workspace (k->mshoot, 1.8 MB on 100 nodes),
 * allocated when a solve first needs it: at the first time step, or a
 * static state by segments. ROD_ENOMEM when it cannot be (the next call
 * tries again). */
int kr_mshoot_ready(rod_kirchhoff *k);
/* The most interior nodes it may place (rod_mshoot_max_nodes), known
 * before it is allocated. */
int kr_mshoot_max_nodes(const rod_kirchhoff *k);
/* The shooting's options of solver.tolerance and solver.max_iterations. */
rod_lm_options kr_shooting_options(const rod_kirchhoff *k);
/* A solve's iterations and integrations added to st, its residual. */
void kr_add_stats(rod_step_stats *st, const rod_shooting_stats *s);

/* BDF coefficients of the next step's first attempt: backward Euler for
 * the first step after the release (time.startup = euler), else
 * BDF-alpha. */
rod_bdf_coeffs kr_step_coefficients(const rod_kirchhoff *k);
/* Set up the step to time t with coefficients c (history terms, loads,
 * planar fast path) and predict its unknowns into x (after
 * kr_prepare_prediction). */
void kr_pose_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  double *x);

/* The strategy's chain of methods for the problem posed at time t (BDF
 * coefficients c, or a Runge-Kutta stage with c->c0 when stage is true;
 * then hp holds its history terms): simple or modified shooting first
 * (*modified), the other after a failure. Without the BDF2 retry. */
int kr_solve_chain(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   bool stage, bool *modified, double *x, rod_step_stats *st);
/* One attempt at the step to time t with coefficients c by modified
 * shooting (modified) or simple shooting within auto's budget: the BDF2
 * retry of a failed step. */
int kr_solve_once(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  bool modified, double *x, rod_step_stats *st);
/* kirchhoff_tendon_solve.c: a problem posed and solved by inner(k, ctx)
 * (its loads set at k->disp_xi), repeated until the displacement-
 * controlled tendons meet their length constraints at time t (s); inner
 * alone without them. x (6, or NULL): the shooting's unknowns that inner
 * starts from after the first solve (then moved by the tensions' change)
 * and leaves solved. */
typedef int kr_tendon_inner(rod_kirchhoff *k, void *ctx);
int kr_tendon_solve(rod_kirchhoff *k, double t, double *x,
                    kr_tendon_inner *inner, void *ctx);
/* After a step solved (modified: by modified shooting), the strategy's
 * choice for the next ones. */
void kr_update_strategy(rod_kirchhoff *k, bool modified,
                        const rod_step_stats *st);

#endif
