/* The contact room of the Kirchhoff backend (docs/contact.md): the contact
 * forces at the grid nodes (the distributed contact force of the rod's
 * equations, lumped), the static contact problem and a time step's Newton
 * on the forces, each iterate a solve of the solve room
 * (kirchhoff_solve.h), the contact law's checks, and the bodies the rod
 * passes through. Called by the static solve, the contact time step
 * (kirchhoff_contact_step.c) and the grid that follows the contacts
 * (kirchhoff_regrid.h). */
#ifndef ROD_KIRCHHOFF_CONTACT_H
#define ROD_KIRCHHOFF_CONTACT_H

#include <stddef.h>

#include "contact/contact.h"
#include "kirchhoff/kirchhoff_solve.h"

int kr_contact_create(rod_kirchhoff *k); /* k->contact NULL without bodies */
void kr_contact_free(kr_contact *c);
/* The static state with contact from x and the current contact forces
 * (loads set, the static coefficients): x receives the solution, the last
 * sweep is at it. */
int kr_contact_static(rod_kirchhoff *k, double *x, rod_step_stats *st);
/* A time step to t (BDF coefficients c) with contact: Newton on the
 * forces at the step's end, each iterate a kr_solve_chain, at most max_it
 * updates (0: solver.max_iterations); x receives the unknowns, the last
 * sweep is at them. */
int kr_contact_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                    int max_it, bool *modified, double *x, rod_step_stats *st);
/* A time step to t (coefficients c) solved without contact forces, the
 * shooting at solver.tolerance as on a rod without bodies: *clear when
 * every node but the clamp's then lies farther than the contact tolerance
 * from every body (the step is the free one; else kr_contact_step solves
 * it). For steps in which no node is pressed at the start. */
int kr_contact_free_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                         bool *modified, double *x, rod_step_stats *st,
                         bool *clear);
/* Some force pushes (the current forces). */
bool kr_contact_pressed(const rod_kirchhoff *k);
/* An impact: the current forces push a node the last accepted step did
 * not. */
bool kr_contact_struck(const rod_kirchhoff *k);
/* A step where a force pushes, at its start or end, on a rod that nothing
 * else works on (no motor, loads, impulse or tip force), whose last sweep
 * holds more mechanical energy than the accepted state by more than the
 * forces can do within the contact tolerance (2 tol F a node). */
bool kr_contact_energy_grew(const rod_kirchhoff *k);
/* The last solve of a contact step may be accepted: its sweep solves the
 * step to solver.tolerance, its forces and gaps meet the contact law to
 * the contact tolerance (kr_contact_step's own test), and its energy has
 * not grown (kr_contact_energy_grew). Else false, and why in
 * kr_contact_refusal. */
bool kr_contact_verify(rod_kirchhoff *k);
/* Steps by backward Euler after an impact step (the multistep formula's
 * restart). */
enum { KR_CONTACT_RESTART = 1 };
/* The last KR_CONTACT_RESTART accepted steps hold an impact, or the
 * next steps are held to backward Euler (kr_contact_hold_euler). */
bool kr_contact_restart(const rod_kirchhoff *k);
/* The next accepted steps by backward Euler alone. */
void kr_contact_hold_euler(rod_kirchhoff *k, int steps);
/* The restitution of the step's impacts: the bodies' times scale. */
void kr_contact_scale_restitution(rod_kirchhoff *k, double scale);
/* Some node under the velocity law of an impact is pushed. */
bool kr_contact_rebounds(const rod_kirchhoff *k);
/* Some node struck a body with restitution (e > 0 in this step) and is
 * not under the velocity law: the step is to be taken again with it. */
bool kr_contact_struck_rebounding(const rod_kirchhoff *k);
/* The forces at the step's end gave the rod the impulse F T (T in s):
 * 1 / c0 of the step's scheme, the velocity's response to F (dt by
 * backward Euler, about dt / 2 by BDF-alpha at alpha = -0.48). Their
 * work over the accepted step is the impulse times the node's mean
 * velocity (kr_contact_accept). */
void kr_contact_impulse_time(rod_kirchhoff *k, double T);

/* After a step is accepted: with work, the forces' work over it into the
 * dissipated energy; the positions kept (also of the static state). */
void kr_contact_accept(rod_kirchhoff *k, bool work);
/* The body node i is pressed against at the last sweep, NULL if none. */
const rod_obstacle *kr_contact_pressing(const rod_kirchhoff *k, int i);
/* The pressed nodes push along their bodies' normals at the last sweep's
 * positions (a pressed node keeps the direction it was first pressed
 * along; the statics' moved grid carries it elsewhere on a curved body). */
void kr_contact_follow_normals(rod_kirchhoff *k);
/* Contact forces set to zero; saved with the last sweep's positions and
 * restored (a failed load step); the largest move of a node (m) of the
 * last sweep since the save. */
void kr_contact_reset(rod_kirchhoff *k);
void kr_contact_save(rod_kirchhoff *k);
void kr_contact_restore(rod_kirchhoff *k);
double kr_contact_moved(const rod_kirchhoff *k);
/* The body the rod passed through in a move from the positions from (m,
 * nodes x 3) to the last sweep's, and the body its centreline passes
 * through between two nodes; NULL when none, *node the node (the
 * interval's first). */
const rod_obstacle *kr_contact_swept(const rod_kirchhoff *k, const double *from,
                                     int *node, bool *interval);
const rod_obstacle *kr_contact_straddled(const rod_kirchhoff *k, int *node,
                                         double *at);
/* The centreline of the last sweep passes through a body between two
 * nodes: true, and a one-line note naming it and a node count. */
bool kr_contact_straddle_note(const rod_kirchhoff *k, char *note, size_t n);
/* The last step passed a node through a body, or left a body between two
 * nodes: true, and why in kr_contact_refusal. */
bool kr_contact_passed_through(rod_kirchhoff *k);
/* The centreline of the last sweep passes through a body between two
 * nodes (kr_contact_straddle_note): true, and why in kr_contact_refusal. */
bool kr_contact_straddle_refused(rod_kirchhoff *k);
/* The saved positions (kr_contact_save) of node i set to the point at (0
 * to 1) of the chord from node j to j + 1 (node i moved there). */
void kr_contact_saved_between(rod_kirchhoff *k, int i, int j, double at);
/* The way to the static state crosses body o (kr_contact_swept: node's
 * path, or the interval from node when interval) however small the load
 * step: why, and the space.nodes that resolves it, in kr_contact_refusal. */
void kr_contact_refuse_crossing(rod_kirchhoff *k, const rod_obstacle *o,
                                int node, bool interval);
const char *kr_contact_refusal(const rod_kirchhoff *k);
void kr_contact_refusal_clear(rod_kirchhoff *k);
/* The positions of kr_contact_save, and of the accepted step. */
const double *kr_contact_saved_positions(const rod_kirchhoff *k);
const double *kr_contact_accepted_positions(const rod_kirchhoff *k);
/* The contact fields of a sample. */
void kr_contact_sample(rod_kirchhoff *k, rod_sample *out);

/* The contacts' records after the grid moved: the
 * forces scaled node by node (scale, NULL: kept), the accepted and saved
 * positions the solution's (moved) ones. */
void kr_contact_regridded(rod_kirchhoff *k, const double *scale);

#endif
