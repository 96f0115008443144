/* Continuation of the solutions of r(x, lambda) = 0 from lambda = 0 to
 * lambda = 1 (statics as a path: lambda scales the loads).
 *
 * Pseudo-arclength continuation (Keller 1977): from a solution z = (x,
 * lambda) with unit tangent t, predict z + ds t and correct by Newton's
 * method on r(x, lambda) = 0 together with t . (z - z_predicted) = 0, so
 * the path is followed through turning points of lambda (folds) where
 * continuation in lambda alone stops. The step ds is controlled by the
 * corrector: a corrector that needs many iterations, whose Newton
 * corrections do not contract, or whose sweep fails, is retried with half
 * the step; an easy one doubles the next. The last step lands on
 * lambda = 1 exactly (Newton in x at fixed lambda).
 *
 * The tangent solves [J r_lambda; t_prev^T] t = [0; 1] with J = dr/dx and
 * r_lambda = dr/dlambda by a forward difference. Along the way the sign
 * of det J (or, for a symmetric J, the number of its negative
 * eigenvalues) is watched: it changes where the path passes a fold or a
 * bifurcation point (the equilibrium's stability changes there), and a
 * change at neither means the corrector jumped to another branch: that
 * step is retried shorter. */
#ifndef ROD_PATH_H
#define ROD_PATH_H

#include <stdbool.h>

typedef struct {
  int n; /* unknowns = residuals */
  /* r(x, lambda) (n) and, when J is not NULL, dr/dx (n x n,
   * column-major). 0 on success, > 0 when the point cannot be evaluated
   * (a failed sweep: the step is retried shorter), < 0 fatal. */
  int (*residual)(void *user, const double *x, double lambda, double *r,
                  double *J);
  void *user;
  /* Optional: the number of unstable directions of the solution x at
   * lambda (the problem's own stability test, after the residual at that
   * point), watched instead of det J's sign, which misses a jump across
   * two of them (a corrector landing on a branch two modes further);
   * < 0: watch det J. */
  int (*index)(void *user, const double *x, double lambda);
} rod_path_problem;

typedef struct {
  double tolerance;   /* on ||r||_inf at every point of the path */
  int max_iterations; /* Newton iterations of one corrector */
  double contraction; /* largest ratio of successive Newton corrections */
  double step0;       /* first step, in lambda */
  double step_min;    /* smallest arclength step before giving up */
  double step_max;    /* largest arclength step */
  int max_steps;      /* accepted and rejected steps together */
  double fd_lambda;   /* forward-difference step of r_lambda */
  /* a step across which det J changes sign without a fold is retried
   * shorter down to this fraction of 1 + |z| (then: a bifurcation point) */
  double bifurcation_step;
  /* J is symmetric (the Hessian of an energy): the number of its
   * negative eigenvalues is watched instead of det J's sign, so a jump
   * across two eigenvalues that cross together (a column of round
   * section buckling in two planes at once) is caught too */
  bool symmetric;
} rod_path_options;

typedef struct {
  int steps;          /* accepted steps */
  int rejected;       /* steps retried shorter */
  int iterations;     /* Newton iterations */
  int evaluations;    /* residual evaluations, with or without J */
  int jacobians;      /* evaluations with J */
  int folds;          /* turning points of lambda passed */
  double fold_lambda; /* lambda of the first fold (0 if none) */
  int det_changes;    /* changes of det J's sign (symmetric: of the
                         index) between accepted points */
} rod_path_stats;

typedef struct rod_path rod_path;

rod_path_options rod_path_default_options(void);

/* Workspace for n unknowns; NULL if out of memory. */
rod_path *rod_path_alloc(int n);
void rod_path_free(rod_path *p);

/* Follow the solutions from x (a solution at lambda = 0 to within the
 * tolerance; corrected there first otherwise) to lambda = 1; x is the
 * solution at lambda = 1 on return. ROD_OK, ROD_ENOCONV (the step fell
 * below step_min, or max_steps), or a fatal status of the problem. */
int rod_path_solve(rod_path *p, const rod_path_problem *pb, double *x,
                   const rod_path_options *opt, rod_path_stats *stats);

#endif
