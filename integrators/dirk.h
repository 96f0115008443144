/* Diagonally implicit Runge-Kutta schemes in time, kept as Butcher tables
 * (as SUNDIALS ARKODE keeps its tables), and the per-point stage storage
 * that turns each implicit stage into the boundary-value problem the
 * shooting already solves. With y(n) the values at the step's start and
 * y'(j) the stage derivatives, stage i satisfies
 *   Y(i) = y(n) + dt sum_{j <= i} a_ij y'(j),
 * so y_t = y'(i) = c0 Y(i) + H with c0 = 1 / (a_ii dt) and
 *   H = -(y(n) + dt sum_{j < i} a_ij y'(j)) / (a_ii dt),
 * the same form y_t = c0 y + H as BDF-alpha (Till & Rucker 2017, II.B).
 * Every table here is stiffly accurate (b = last row of A), so the step's
 * solution is its last stage, the rod's other states (n, m, p, h) included,
 * and L-stable. The embedded weights bhat give the local error estimate
 * dt sum_j (b_j - bhat_j) y'(j). */
#ifndef ROD_DIRK_H
#define ROD_DIRK_H

#include <stdbool.h>

#include "rod/scenario.h"

enum { ROD_DIRK_MAX_STAGES = 7 };

typedef struct {
  const char *name;
  int stages;
  int order;           /* of b */
  int embedded_order;  /* of bhat */
  bool explicit_first; /* a_11 = 0 (ESDIRK): stage 1 is y(n), y'(1) the
                          derivative at the step's start */
  double A[ROD_DIRK_MAX_STAGES][ROD_DIRK_MAX_STAGES];
  double b[ROD_DIRK_MAX_STAGES], bhat[ROD_DIRK_MAX_STAGES];
  double c[ROD_DIRK_MAX_STAGES];
  /* Under time.tolerance (docs/numerics.md, "esdirk5 under a tolerance"):
   * modal_estimate measures the local error mode by mode, a velocity error
   * as the displacement of its own mode (else of the first) and a point
   * force's modes at the rod's full lever in space.nodes = auto; the
   * controller keeps the steps to step_levels a factor of two below
   * time.dt (0: any step), so that steps repeat and keep their Jacobian. */
  bool modal_estimate;
  int step_levels;
} rod_dirk_table;

extern const rod_dirk_table rod_dirk_esdirk3, rod_dirk_esdirk4, rod_dirk_sdirk4,
    rod_dirk_esdirk5;

/* The table of a time.scheme, NULL for bdf-alpha. */
const rod_dirk_table *rod_dirk_for(rod_scheme_kind scheme);

/* The stability function R(z) = 1 + z b^T (I - z A)^-1 1 at z = re + i im:
 * a step multiplies the mode y' = lambda y by R(lambda dt). */
void rod_dirk_stability(const rod_dirk_table *t, double re, double im,
                        double *R_re, double *R_im);

/* Largest c0 = 1 / (a_ii dt) of a step of dt with table t (1/s). */
double rod_dirk_c0(const rod_dirk_table *t, double dt);

/* Stage storage of `points` points of `width` quantities each. */
typedef struct rod_dirk_stages rod_dirk_stages;

rod_dirk_stages *rod_dirk_alloc(int points, int width);
void rod_dirk_free(rod_dirk_stages *d);

/* The step's start: values y(n) and their time derivative (NULL: not known,
 * e.g. just after a release, when the acceleration jumps; then only a
 * table without an explicit first stage can take the step). */
void rod_dirk_start(rod_dirk_stages *d, const double *val, const double *rate);
bool rod_dirk_rate_known(const rod_dirk_stages *d);

/* History term H of stage i (implicit, a_ii > 0) of a step of dt, into H
 * (points x width); its c0 is 1 / (a_ii dt). For an explicit first stage
 * this sets y'(1) to the known rate instead and returns false. */
bool rod_dirk_stage_terms(rod_dirk_stages *d, const rod_dirk_table *t, int i,
                          double dt, double *H);

/* Stage i solved with values val: y'(i) = c0 val + H. */
void rod_dirk_stage_done(rod_dirk_stages *d, int i, double c0,
                         const double *val, const double *H);

/* Local error estimate dt sum_j (b_j - bhat_j) y'(j) into e. */
void rod_dirk_error(const rod_dirk_stages *d, const rod_dirk_table *t,
                    double dt, double *e);

/* Accept the step: its last stage's values val become y(n), y'(s) the
 * rate. */
void rod_dirk_accept(rod_dirk_stages *d, const rod_dirk_table *t,
                     const double *val);

/* The stage derivative y'(i) of the current step (points x width). */
const double *rod_dirk_stage_rate(const rod_dirk_stages *d, int i);
/* y(n) and its rate (points x width). */
const double *rod_dirk_values(const rod_dirk_stages *d);
const double *rod_dirk_rate(const rod_dirk_stages *d);

#endif
