/* Spatial integrators: one step of an ODE y_s = f(s, y) over a grid interval
 * (seed 002 II.C uses Euler and classic RK4).
 *
 * The right-hand side is called at one of three points of interval j (its
 * start, middle or end) rather than at a value of s, because the rod's
 * history terms are tabulated at exactly those points. The last nq
 * components of y are quadratures: their derivative may depend on the other
 * components but never on themselves, so stages skip them (position p and
 * energy integrals are carried this way). */
#ifndef ROD_SPATIAL_H
#define ROD_SPATIAL_H

#include <stddef.h>

typedef enum { ROD_AT_START = 0, ROD_AT_MID = 1, ROD_AT_END = 2 } rod_point;

/* dyds = f(y) at the given point of interval j; returns 0 or a status. */
typedef int (*rod_ode_fn)(int interval, rod_point at, const double *y,
                          double *dyds, void *user);

typedef struct {
  const char *name;
  int order;  /* global order of accuracy */
  int stages; /* right-hand-side evaluations per step */
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
