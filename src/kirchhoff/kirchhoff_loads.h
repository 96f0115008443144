/* The loads room of the Kirchhoff backend (kirchhoff_loads.c), on the rod's
 * data: the loads of the scenario put on the grid and set at a time, the
 * tip loads with their dependence on the tip's state, and what the rooms
 * above ask about the loads (their planar symmetry, their resultant on the
 * straight rod, the dead loads a static loading path scales). The values
 * the sweeps read are rod_loads.h's: rc.loads (distributed) and loads
 * (concentrated). A new load is added here, in rod_loads.h and in its
 * test; rod_loads.h says where the tendons go. */
#ifndef ROD_KIRCHHOFF_LOADS_H
#define ROD_KIRCHHOFF_LOADS_H

#include "kirchhoff/kirchhoff_state.h"

/* The arclengths (m) of the point loads inside the rod (0 < s < L),
 * ascending and distinct, into pos (KR_MAX_POINTS); returns how many. */
int kr_loads_positions(const rod_scenario *sc, double *pos);
/* The point loads on the grid, which has a node at each of pos[0 .. np -
 * 1] (kr_loads_positions): each load's node and index (ROD_ENOMEM). */
int kr_loads_place(rod_kirchhoff *k, const double *pos, int np);
/* The contact forces at the nodes (zero), for a rod with bodies. */
int kr_loads_contact_alloc(rod_kirchhoff *k);
void kr_loads_free(rod_kirchhoff *k);

/* The distributed loads' constants of the model into L: the weight
 * -rhoA g as ns_dead, the drag law's coefficients, g. */
void kr_loads_distributed(const rod_model *m, rod_loads_const *L);
/* The concentrated loads at time t (the static state's when
 * static_state): tip loads, an attached tip body's weight, the point
 * loads on their nodes (core/loads.h's rod_point_loads). */
void kr_loads_set(rod_kirchhoff *k, double t, bool static_state);

/* The force F (N) and moment M (N m) on the rod's end, world frame, at the
 * tip states y: the dead tip loads and those of an attached tip body
 * (kr_tip_body_loads). True when they depend on y: then dF, dM (when not
 * NULL) receive their derivatives, dF[3 j + i] = dF_i / dy_j. */
bool kr_loads_tip(const rod_kirchhoff *k, const double *y, double F[3],
                  double M[3], double *dF, double *dM);

/* The loads are symmetric under y -> -y (forces in the x-z plane, moments
 * about y, the tip body's centre in the plane, the contact forces too). */
bool kr_loads_planar(const rod_kirchhoff *k);
/* n(0) and m(0) (N, N m, world) of the straight rigid rod along the unit
 * vector d from the clamp carrying the current loads: the total load and
 * its moment about the clamp. */
void kr_loads_straight(const rod_kirchhoff *k, const double d[3], double n0[3],
                       double m0[3]);
/* The directions the dead loads act in, for the planes of the stability
 * test: their forces (gravity, the tip's, the point loads') into f and
 * moments into m (at most 2 + KR_MAX_POINTS each); *nf, *nm how many. */
void kr_loads_vectors(const rod_kirchhoff *k, const double **f, int *nf,
                      const double **m, int *nm);

/* The dead loads a static loading path scales: the tip loads, the
 * distributed ones' ns_dead, an attached body's weight and the point
 * loads. */
typedef struct {
  double tip_force[3], tip_moment[3], ns_dead[3], body_weight[3];
  double point_force[KR_MAX_POINTS][3], point_moment[KR_MAX_POINTS][3];
  double jump; /* N: the point loads' sum of sizes */
} kr_dead_loads;
/* The current dead loads into d. */
void kr_loads_dead(const rod_kirchhoff *k, kr_dead_loads *d);
/* The dead loads set to f times those of d. */
void kr_loads_scale(rod_kirchhoff *k, const kr_dead_loads *d, double f);
/* The size of d in N: its forces' sum of sizes, or its moments over L
 * (m) when larger. */
double kr_loads_size(const kr_dead_loads *d, double L);

#endif
