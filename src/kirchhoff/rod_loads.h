/* The loads on the Kirchhoff/Cosserat rod as its equations read them: the
 * loads room at the bottom of the backend, below the right-hand side
 * (rod_rhs.h) and the sweeps. In the n-m form of Till & Rucker 2017, eq. 4
 * (docs/numerics.md)
 *   n_s = R [rhoA (w x q + q_t) + D(q)] - rhoA g - fbar,
 *   m_s = -p_s x n + R [rhoJ w_t + w x rhoJ w] - lbar,
 * each kind of load enters at one place:
 *  - dead distributed force, constant along s and in the step (gravity's
 *    rhoA g, a uniform fbar): ns_dead (N/m, world), added to n_s;
 *  - distributed force that depends on the state (air drag D(q), local):
 *    rod_loads_drag and its derivative rod_loads_drag_tangent, added to the
 *    local force density with the inertia;
 *  - concentrated loads at grid nodes (the point loads of [impulse] and
 *    [load.NAME], the contact force lumped at the nodes): n and m jump there
 *    (rod_loads_jump), between the sweep's intervals;
 *  - tip loads: the dead ones here (tip_force, tip_moment), those that
 *    depend on the tip's state (an attached tip body) through
 *    kr_loads_tip (kirchhoff_loads.h), which gives the shooting's end
 *    residual and its derivative;
 *  - loads that depend on the strains' rates u_s, v_s (tendons): below.
 * kirchhoff_loads.c sets the values of one step (the scenario's loads at
 * the step's time, core/loads.h), and everything else that asks about the
 * loads (the planar symmetry, the rigid rod's unknowns, the static loading
 * path's scaling, the planes of the stability test) asks it. A new load
 * touches this header, kirchhoff_loads.c and its test.
 *
 * Tendons (Rucker & Webster 2011; Till, Aloi & Rucker 2019) press on the
 * rod with loads that depend on the strains' rates u_s, v_s. In this n-m
 * form they enter instead through the states: n and m are then the
 * section's resultants (backbone and tendons' pull), whose balance laws
 * and tip condition are the rod's without tendons, and the tendons change
 * the constitutive law that gives u, v from them, solved at each
 * evaluation point with the paper's K + A as its Jacobian (rod_tendon.h;
 * their routing per point in rod_rhs_point, their tensions in
 * rod_rhs_const). Integrating u_s, v_s through K + A as the paper does
 * would need the s-derivatives of the time step's history, which this
 * form never forms. A displacement-controlled tendon's tension would be
 * an unknown beyond n(0), m(0) (rod_bvp.nx), its length a quadrature
 * carried with the states and its residual appended at the end. */
#ifndef ROD_LOADS_RHS_H
#define ROD_LOADS_RHS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/v3.h"
#include "rod/scenario.h"

/* The distributed loads of one step, constant along s. */
typedef struct {
  double ns_dead[3]; /* N/m, world: the dead loads' share of n_s, -(rhoA g +
                        fbar) */
  double drag[3];    /* kg/m^2: C (paper), or C_n, C_n, C_t (normal) */
  int drag_normal;   /* the drag isotropic in the cross-section */
  double gravity[3]; /* m/s^2: g, for the weight's potential energy */
} rod_loads_const;

/* Component i of the drag force density (N/m, local) at the velocity q
 * (local, m/s): C_i q_i |q_i| (the paper's), or with normal (the normal
 * law, a constant in each caller) C_n q_i |q_perp| across the rod (qp =
 * |q_perp| = |(q_1, q_2)|) and C_t q_3 |q_3| along it. */
static inline double rod_loads_drag(const rod_loads_const *L, const double *q,
                                    double qp, int i, const bool normal) {
  return L->drag[i] * q[i] * (normal && i < 2 ? qp : fabs(q[i]));
}

/* Its derivative along dq: 2 C_i |q_i| dq_i, or with normal C_n (|q_perp|
 * dq_i + q_i qdq) across the rod, qdq = q_perp . dq_perp / |q_perp| (0 at
 * rest). */
static inline double rod_loads_drag_tangent(const rod_loads_const *L,
                                            const double *q, double qp,
                                            double qdq, const double *dq, int i,
                                            const bool normal) {
  return normal && i < 2 ? L->drag[i] * (qp * dq[i] + q[i] * qdq)
                         : 2.0 * L->drag[i] * fabs(q[i]) * dq[i];
}

/* The concentrated loads of one step (kirchhoff_loads.c): dead tip loads,
 * the point loads inside the rod, each on its own grid node (Till & Rucker
 * 2017, III.B), and the contact force lumped at the nodes. Point loads are
 * at most those of the scenario and the impulse. */
enum { KR_MAX_POINTS = ROD_MAX_LOADS + 1 };

typedef struct {
  double tip_force[3], tip_moment[3]; /* N, N m, world: dead, n(L), m(L) */
  int npoints;
  int point_node[KR_MAX_POINTS]; /* grid node of each, ascending */
  int *node_point;               /* nodes: its point load's index, -1 */
  int *next_point;               /* nodes: the next point load's node after
                                    the node, `nodes` if none */
  int impulse_point;             /* the impulse's index; -1 none, -2 tip */
  int load_point[ROD_MAX_LOADS]; /* each [load.NAME]'s index, -2 tip */
  /* N, N m, world: n and m jump by -F, -M at point load i */
  double point_force[KR_MAX_POINTS][3], point_moment[KR_MAX_POINTS][3];
  double *contact; /* N, nodes x 3, world: the contact force at each node,
                      where n jumps by -F; NULL without bodies */
} rod_loads_nodes;

/* The jumps of n (N) and m (N m) at grid node j, the sweep's state just
 * past it: point load p (node_point[j], or -1) first, then the contact
 * force (L->contact, passed as the sweep holds it). */
static inline void rod_loads_jump(const rod_loads_nodes *L, int p,
                                  const double *contact, size_t j, double n[3],
                                  double m[3]) {
  if (p >= 0) {
    v3_axpy(n, -1.0, L->point_force[p]);
    v3_axpy(m, -1.0, L->point_moment[p]);
  }
  if (contact)
    v3_axpy(n, -1.0, contact + 3 * j);
}

#endif
