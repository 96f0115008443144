/* External loads on the chain (rfem_loads.c): drag, the point loads
 * (tip, impulse, every [load.NAME]) and the dead couples, as spatial
 * forces on the bodies and as the dead loads of the statics with their
 * stiffness. Reads the state (rfem_state.h) only; the free step, the
 * statics and the adapter's output call it. */
#ifndef ROD_RFEM_LOADS_H
#define ROD_RFEM_LOADS_H

#include "rfem/rfem_state.h"

/* External spatial forces at the chain's current kinematics: drag, the tip
 * force and the impulse (static: the static tip loads, no drag). */
void rfem_external_forces(rod_rfem *r, double t, bool static_state,
                          double *fext);
/* The point forces at time t (tip; impulse when on; every [load.NAME]
 * with a force) as dead loads; returns their number (at most
 * RFEM_MAX_LOADS). */
int rfem_point_loads(const rod_rfem *r, double t, bool static_state,
                     rod_chain_load *loads);
/* A dead couple (N m, world frame) on a body: the tip moment, a
 * [load.NAME]'s moment. */
typedef struct {
  int body;
  bool tip; /* at the rod's end (m(L) of the output) */
  double moment[3];
} rfem_couple;
/* The couples at time t; returns their number (at most RFEM_MAX_LOADS). */
int rfem_couples(const rod_rfem *r, double t, bool static_state,
                 rfem_couple *couples);
/* fext += the couples at the chain's current kinematics. */
void rfem_add_couples(const rod_rfem *r, int n, const rfem_couple *couples,
                      double *fext);
/* K[i + j ld] += dG_i/dq_j of the couples: a dead couple M on body b gives
 * joint i <= b the generalised force G_i = M . a_i (a_i its world axis),
 * whose derivative is M . (a_j x a_i) for j < i (rod_chain_load_stiffness's
 * convention, loads add to K). */
void rfem_couple_stiffness(const rod_rfem *r, int n, const rfem_couple *couples,
                           double *K, int ld);
/* Integrals over [0, l] of |u| u and x |u| u for the plane vector u = a +
 * b x (normal drag): exact when u keeps one direction, else 5-point
 * Gauss-Legendre on each side of the smallest |u|. */
void rfem_normal_drag_integrals(const double a[2], const double b[2], double l,
                                double i0[2], double i1[2]);
/* Integrals over [0, l] of u|u| and x u|u| for u = a + b x, exactly. */
void rfem_drag_integrals(double a, double b, double l, double *i0, double *i1);

#endif
