/* Explicit integrators for first-order initial value problems y' = f(t, y)
 * in time: the adaptive Dormand-Prince 5(4) pair (Dormand & Prince 1980;
 * Hairer, Norsett & Wanner, "Solving ODEs I", II.4-5) as the accuracy
 * reference, and the classic fixed-step Runge-Kutta 4.
 *
 * Both advance exactly to a requested time, so a caller can sample on its
 * own grid. Workspaces are allocated once; advancing never allocates. */
#ifndef ROD_IVP_H
#define ROD_IVP_H

#include <stddef.h>

/* dydt = f(t, y); return 0 or a status (non-zero stops the integration). */
typedef int (*rod_ivp_fn)(double t, const double *y, double *dydt, void *user);

typedef struct {
  int steps;       /* accepted steps */
  int rejected;    /* rejected steps (rk45) */
  int evaluations; /* calls of f */
} rod_ivp_stats;

typedef struct {
  double rtol;        /* relative tolerance */
  const double *atol; /* absolute tolerance per component (n) */
  double h_max;       /* largest step (s); 0: no limit */
  long max_steps;     /* steps (accepted or rejected) per advance call */
} rod_rk45_options;

typedef struct rod_rk45 rod_rk45;

rod_rk45 *rod_rk45_alloc(int n);
void rod_rk45_free(rod_rk45 *w);
/* Forget the step size and the stored derivative (after the state was
 * changed by the caller, e.g. a load was released). */
void rod_rk45_reset(rod_rk45 *w);
/* Forget only the stored derivative and keep the step size (after the
 * state was restored or the forcing changed at the current time). */
void rod_rk45_invalidate(rod_rk45 *w);

/* Advance y from *t to t_end with error control per step: the weighted RMS
 * norm of the embedded error estimate, weights atol_i + rtol |y_i|, at most
 * 1. The step size carries over from one call to the next; the last step is
 * shortened to land on t_end. ROD_ENOCONV after max_steps or when the step
 * underflows; stats (may be NULL) are added to. */
int rod_rk45_advance(rod_rk45 *w, rod_ivp_fn f, double *t, double t_end,
                     double *y, const rod_rk45_options *opt,
                     rod_ivp_stats *stats, void *user);

/* Doubles of work rod_rk4_advance needs for n components. */
size_t rod_rk4_work_size(int n);

/* Classic RK4 from t to t_end in `substeps` equal steps. */
int rod_rk4_advance(rod_ivp_fn f, double t, double t_end, int substeps, int n,
                    double *y, double *work, rod_ivp_stats *stats, void *user);

#endif
