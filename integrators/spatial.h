/* Spatial integrators: one step of an ODE y_s = f(s, y) over a grid interval
 * (Till & Rucker 2017, II.C uses Euler and classic RK4).
 *
 * The right-hand side is called with the interval j and the stage index k
 * rather than a value of s (s = s_j + c[k] h), because the rod's history
 * terms are tabulated per stage. The last nq
 * components of y are quadratures: their derivative may depend on the other
 * components but never on themselves, so stages skip them (position p and
 * energy integrals are carried this way). */
#ifndef ROD_SPATIAL_H
#define ROD_SPATIAL_H

#include <stddef.h>

/* Most stages of any integrator here. */
#define ROD_MAX_STAGES 4

/* dyds = f(y) at stage k of interval j; returns 0 or a status. */
typedef int (*rod_ode_fn)(int interval, int stage, const double *y,
                          double *dyds, void *user);

typedef struct {
  const char *name;
  int order;       /* global order of accuracy */
  int stages;      /* right-hand-side evaluations per step */
  const double *c; /* stage abscissae: stage k at s_j + c[k] h */
  /* Advance y (n components, the last nq quadratures) over interval j of
   * length h. If dyds_start is not NULL it receives f at the start of the
   * interval. work holds at least work_size(n) doubles. */
  int (*step)(rod_ode_fn f, int interval, double h, int n, int nq, double *y,
              double *dyds_start, double *work, void *user);
  size_t (*work_size)(int n);
} rod_spatial_type;

extern const rod_spatial_type rod_spatial_euler;
extern const rod_spatial_type rod_spatial_rk4;

/* Integrate over a whole grid s[0..npts-1], storing y at every node in
 * ys[j*n .. j*n+n-1] (may be NULL). Convenience for tests and tools. */
int rod_spatial_integrate(const rod_spatial_type *type, rod_ode_fn f,
                          const double *s, int npts, int n, int nq, double *y,
                          double *ys, double *work, void *user);

#endif
