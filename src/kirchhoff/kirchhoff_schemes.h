/* The schemes of the Kirchhoff backend, below its adapter
 * (kirchhoff_backend.c) and above everything else: the static state as the
 * end of a loading path (kirchhoff_static.c), a time step by BDF-alpha
 * (kirchhoff_bdf.c) or by a Runge-Kutta scheme (kirchhoff_dirk.c), and the
 * contact scheme's choice for a time step with contact
 * (kirchhoff_contact_step.c). Each poses and solves its problems through
 * the solve room (kirchhoff_solve.h). */
#ifndef ROD_KIRCHHOFF_SCHEMES_H
#define ROD_KIRCHHOFF_SCHEMES_H

#include "kirchhoff/kirchhoff_regrid.h"

/* kirchhoff_static.c: the static state as the end of a loading path, and
 * its stability */
int kr_solve_static(rod_kirchhoff *k, rod_step_stats *st);

/* kirchhoff_bdf.c: a time step to t by BDF-alpha, with the paper's BDF2
 * retry. */
int kr_bdf_step(rod_kirchhoff *k, double t, rod_step_stats *st);

/* kirchhoff_dirk.c: a step of a Runge-Kutta scheme */
int kr_dirk_alloc(rod_kirchhoff *k);
void kr_dirk_free(rod_kirchhoff *k);
void kr_dirk_rest(rod_kirchhoff *k); /* after the static solve */
int kr_dirk_step(rod_kirchhoff *k, double t, rod_step_stats *st);

/* kirchhoff_contact_step.c: a time step to t with contact, the scheme
 * chosen by the contacts' state (c receives the coefficients taken). */
int kr_contact_time_step(rod_kirchhoff *k, double t, rod_bdf_coeffs *c,
                         bool *modified, double *x, rod_step_stats *st);

#endif
