/* The rod of one step, the Kirchhoff backend's lowest room above the
 * right-hand side (rod_rhs.h): the grid, the step's ODE data (BDF
 * coefficients, history terms, loads at the step's time), the sweeps of the
 * shooting problem, the attached tip body, and what a converged sweep leaves
 * (quadratures, energies, history records); the loads room
 * (kirchhoff_loads.h, rod_loads.h) lies at its bottom. Nothing here solves: the
 * solve room (kirchhoff_solve.h) poses and solves the step's problem on top of
 * it. */
#ifndef ROD_KIRCHHOFF_ROD_H
#define ROD_KIRCHHOFF_ROD_H

#include "kirchhoff/kirchhoff_loads.h"

/* kirchhoff_grid.c: the grid. A uniform grid of space.nodes points with a
 * node exactly at every point load inside the rod, the intervals and the
 * point loads' nodes (at creation). */
int kr_build_grid(rod_kirchhoff *k);
/* The intervals and everything the grid's arclengths set, after they
 * changed (the contacts' boundaries moved a node). */
void kr_grid_changed(rod_kirchhoff *k);
/* The nodes that never move, ascending and distinct (at most
 * KR_FIXED_NODES): the clamp, each point load's, each tendon's start and
 * end inside the rod, the tip; returns how many. */
enum { KR_FIXED_NODES = KR_MAX_POINTS + 2 * ROD_MAX_TENDONS + 2 };
int kr_fixed_nodes(const rod_kirchhoff *k, int *node);
/* The history between the nodes for the grid (space.history; auto by the
 * longest interval's k h). */
rod_history_kind kr_choose_history(const rod_kirchhoff *k);

/* kirchhoff_step.c: per-step ODE data */
/* u* at every evaluation point from the model (at creation and after the
 * grid moved). */
void kr_set_precurvature(rod_kirchhoff *k);

/* Tendons (kirchhoff_tendon.c, rod_tendon.h). The routing's room at the
 * evaluation points (ROD_ENOMEM); the routing there (pt[].route, after
 * the grid changed); the tensions of k->tension into rc; the backbone's own
 * force n and moment m (world) at grid node g from the section's resultants in
 * y; the strains' rates (u - u*)_s in dus and (Cosserat) v_s in vs at
 * evaluation point p with tendons, from their tendon-free values there (the
 * rates of u0 - u*, v0) and the evaluation's work wk. */
int kr_tendon_alloc(rod_kirchhoff *k);
void kr_tendon_route(rod_kirchhoff *k);
void kr_tendon_constants(const rod_kirchhoff *k, rod_rhs_const *rc);
/* The tendons' starts and ends inside the rod that are not among pos[0..n)
 * appended to pos (room for 2 ROD_MAX_TENDONS more); returns the new count
 * (the grid places a node at each). */
int kr_tendon_breaks(const rod_scenario *sc, double *pos, int n);
/* The tensions at time t (s: the scenario's constant or table, or what the
 * API set) into k->tension and k->rc. */
void kr_tendon_set(rod_kirchhoff *k, double t);
/* The tendons' lengths into k->tendon_length from the stage records of
 * the converged sweep (kr_quadratures); their tensions and lengths into
 * the sample out. */
void kr_tendon_lengths(rod_kirchhoff *k);
/* The tendons' friction (kirchhoff_tendon_friction.c): its arrays
 * (ROD_ENOMEM; none without friction) and their release; each tendon's
 * length at the base (m) and the factor c0 / (1 + c tau) (1/s) of its
 * sliding rate s_t = factor l + H (the sweeps'); the history's terms for
 * the current coefficients, its start at rest from the static state's
 * sweep and the push of an accepted step. */
int kr_friction_alloc(rod_kirchhoff *k);
void kr_friction_free(rod_kirchhoff *k);
void kr_friction_factors(const rod_kirchhoff *k, double *start, double *rate);
void kr_friction_terms(rod_kirchhoff *k);
void kr_friction_rest(rod_kirchhoff *k);
void kr_friction_push(rod_kirchhoff *k);
/* Under a Runge-Kutta scheme (kirchhoff_dirk.c): s's stage storage started
 * at the static state, each stage's history term into slide_H, a solved
 * stage's s recorded, the step's s accepted. */
void kr_friction_dirk_rest(rod_kirchhoff *k, bool rate_known);
void kr_friction_stage_terms(rod_kirchhoff *k, const rod_dirk_table *T, int i,
                             double h);
void kr_friction_stage_done(rod_kirchhoff *k, int i, double c0);
void kr_friction_dirk_accept(rod_kirchhoff *k, const rod_dirk_table *T);
void kr_tendon_sample(const rod_kirchhoff *k, rod_sample *out);
/* The tendons' works on the rod (kirchhoff_tendon_work.c): zero at the
 * static state, and a step of dt seconds accepted (after kr_postprocess:
 * its tensions, lengths and sweep's records) added by trapezoids. */
void kr_tendon_work_start(rod_kirchhoff *k);
void kr_tendon_work_step(rod_kirchhoff *k, double dt);
void kr_tendon_backbone(const rod_kirchhoff *k, int g, const double *y,
                        double *n, double *m);
void kr_tendon_rates(const rod_kirchhoff *k, size_t p, const rod_rhs_work *wk,
                     double *dus, double *vs);
void kr_set_coefficients(rod_kirchhoff *k, const rod_bdf_coeffs *c,
                         bool dynamic);
/* A Runge-Kutta stage: y_t = c0 y + H with H already in hp. */
void kr_set_stage(rod_kirchhoff *k, double c0);
/* The loads (kr_loads_set) and the clamp's motion at time t (the static
 * state's, at rest, when static_state). */
void kr_set_loads(rod_kirchhoff *k, double t, bool static_state);
/* True when the step's equations are symmetric under y -> -y (the rod
 * stays in the x-z plane exactly). */
bool kr_planar_symmetric(const rod_kirchhoff *k);

/* kirchhoff_sweep.c: the shooting problem (rod_bvp) */
void kr_bvp_init(rod_kirchhoff *k);
/* The coarse interval of the tangents along the last sweep for the step's
 * coefficients; at most KR_TANGENT_STRIDE_MAX grid intervals. */
enum { KR_TANGENT_STRIDE_MAX = 8 };
void kr_set_tangent_stride(rod_kirchhoff *k);

/* kirchhoff_tip.c: the attached tip body */
void kr_tip_body_init(rod_kirchhoff *k);
/* Its history terms for the current coefficients (zero in statics). */
void kr_tip_body_terms(rod_kirchhoff *k);
/* The force F (N) and moment M (N m, about the rod's end), world frame,
 * that the body exerts on the rod's end at the tip states y (h, q, w of
 * the 16): its weight less its mass times the acceleration of its centre,
 * and the moment of both less the rate of its angular momentum. dF, dM
 * (may be NULL): their derivatives by the 16 states, dF[3 j + i] = dF_i /
 * dy_j. */
void kr_tip_body_loads(const rod_kirchhoff *k, const double *y, double F[3],
                       double M[3], double *dF, double *dM);
/* Accept the converged tip states y into the history (after a dynamic
 * step); kr_tip_body_rest: the body at rest (after the static state). */
void kr_tip_body_accept(rod_kirchhoff *k, const double *y);
void kr_tip_body_rest(rod_kirchhoff *k);
/* The same for the stages of a Runge-Kutta scheme (kirchhoff_dirk.c):
 * storage, the start at rest (with the rate known or not), each stage's
 * history terms before its solve and its values (the last sweep's) after,
 * the accepted step. */
int kr_tip_body_dirk_alloc(rod_kirchhoff *k);
void kr_tip_body_dirk_rest(rod_kirchhoff *k, bool rate_known);
void kr_tip_body_stage_terms(rod_kirchhoff *k, const rod_dirk_table *T, int i,
                             double h);
void kr_tip_body_stage_done(rod_kirchhoff *k, int i, double c0);
void kr_tip_body_dirk_accept(rod_kirchhoff *k, const rod_dirk_table *T);
/* Its kinetic and gravitational energy (J) at the tip states y, p the
 * rod's end (m, world). */
void kr_tip_body_energy(const rod_kirchhoff *k, const double *y,
                        const double p[3], double *kinetic, double *gravity);

/* kirchhoff_post.c: energies and history records of a converged step */
void kr_quadratures(rod_kirchhoff *k);
void kr_postprocess(rod_kirchhoff *k);
/* The energies of the last sweep, its quadratures integrated (J). */
void kr_energies(const rod_kirchhoff *k, kr_energy *e);
void kr_push_history(rod_kirchhoff *k);
void kr_rest_history(rod_kirchhoff *k);

#endif
