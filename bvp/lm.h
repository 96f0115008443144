/* Levenberg-Marquardt for nonlinear systems and least squares.
 *
 * Minimises ||r(x)||^2 with an adaptive damping factor (Nielsen's update)
 * and Moré's column scaling. Damped steps are solved through the QR
 * factorisation of the augmented matrix [J; sqrt(lambda) D] (LAPACKE dgels),
 * which does not square J's condition number. Undamped steps of square
 * systems use the inverse Jacobian, kept current by Broyden updates when the
 * Jacobian is reused, so a step costs a matrix-vector product.
 *
 * The Jacobian comes from the callback (analytic or tangent sweeps), or, if
 * the callback cannot give it, from forward differences. With `broyden` on,
 * it is updated by rank-one (Broyden) updates and recomputed only when a
 * step fails or convergence slows; the Jacobian left in the workspace can
 * seed the next solve (warm start), which is how the time stepper reuses
 * the shooting Jacobian from one step to the next.
 *
 * The workspace is allocated once; rod_lm_solve never allocates. */
#ifndef ROD_BVP_LM_H
#define ROD_BVP_LM_H

#include <stdbool.h>

/* r(x) (m entries) and, when J is not NULL, the m x n Jacobian, column-major
 * with leading dimension m. Return 0 on success, > 0 for a recoverable
 * failure (the point is rejected as if the residual were huge), < 0 for a
 * fatal error that stops the solve. If the callback cannot compute J it
 * returns ROD_LM_NO_JACOBIAN and finite differences are used. */
typedef int (*rod_lm_fn)(const double *x, double *r, double *J, void *user);

#define ROD_LM_NO_JACOBIAN 99

typedef enum {
  ROD_LM_CONVERGED = 0,  /* ||r||_inf <= tolerance */
  ROD_LM_SMALL_STEP,     /* step below step_tolerance: stationary point */
  ROD_LM_SMALL_GRADIENT, /* ||J^T r||_inf below gradient_tolerance */
  ROD_LM_MAX_ITERATIONS,
  ROD_LM_NO_PROGRESS, /* damping exhausted without decrease */
  ROD_LM_FAILED       /* the callback failed fatally or at the start */
} rod_lm_stop;

typedef struct {
  int max_iterations;        /* iterations (accepted or rejected steps) */
  double tolerance;          /* on ||r||_inf */
  double step_tolerance;     /* relative, on ||dx||_2 / (||x||_2 + tol) */
  double gradient_tolerance; /* on ||J^T r||_inf; 0 disables */
  double lambda0;            /* initial damping, relative to the column scales;
                                0 starts with Gauss-Newton steps */
  bool broyden;              /* reuse the Jacobian with rank-one updates */
  bool warm_jacobian;        /* the workspace Jacobian is valid on entry */
  bool least_squares;        /* a stationary point is success (calibration) */
  double fd_step;            /* relative forward-difference step */
  /* > 0: plain Newton that must contract: stop (ROD_LM_NO_PROGRESS) at the
   * first step that does not reduce ||r||_2 to at most this fraction, or
   * that would need damping. 0: off. */
  double max_ratio;
} rod_lm_options;

typedef struct {
  int iterations;   /* steps tried */
  int evaluations;  /* residual-only evaluations */
  int jacobians;    /* Jacobian evaluations by the callback */
  int fd_jacobians; /* Jacobians by forward differences */
  double residual;  /* final ||r||_inf */
  double initial_residual;
  rod_lm_stop stop;
} rod_lm_stats;

typedef struct rod_lm_workspace rod_lm_workspace;

rod_lm_options rod_lm_default_options(void);

/* n unknowns, m >= n residuals. NULL if out of memory. */
rod_lm_workspace *rod_lm_alloc(int n, int m);
void rod_lm_free(rod_lm_workspace *w);

/* Solve in place from x. Returns ROD_OK when the residual meets the
 * tolerance (or, for least_squares, at a stationary point), ROD_ENOCONV
 * otherwise, or the callback's fatal status. stats may be NULL. */
int rod_lm_solve(rod_lm_workspace *w, rod_lm_fn f, double *x,
                 const rod_lm_options *opt, rod_lm_stats *stats, void *user);

/* The m x n Jacobian (column-major) of the last solve, for warm starts and
 * for covariance estimates. Valid after a solve; writable before one. */
double *rod_lm_jacobian(rod_lm_workspace *w);

/* The residual vector at the solution of the last solve (m entries). */
const double *rod_lm_residual(const rod_lm_workspace *w);

/* Invalidate the stored Jacobian (e.g. when the problem changed a lot). */
void rod_lm_forget_jacobian(rod_lm_workspace *w);

/* (J^T J)^-1 at the last solution into cov (n x n, column-major).
 * ROD_ESING if J is rank deficient. */
int rod_lm_covariance(rod_lm_workspace *w, double *cov);

#endif
