/* The grid that follows the contacts (docs/contact.md): grid nodes at the
 * static state's contact boundaries (kirchhoff_touchdown.c) and, in a run,
 * moved with them before each step (kirchhoff_regrid.c), the samples
 * interpolated onto the output grid. Above the contact room, below the
 * static solve and the time schemes. */
#ifndef ROD_KIRCHHOFF_REGRID_H
#define ROD_KIRCHHOFF_REGRID_H

#include "kirchhoff/kirchhoff_contact.h"

/* kirchhoff_touchdown.c: a node moved to the point at (0 to 1) of the
 * interval from node j, where the centreline passes through a body: the
 * nearer of its two nodes that is neither fixed nor pressed; false when
 * neither may move. */
bool kr_contact_node_into(rod_kirchhoff *k, int j, double at);
/* kirchhoff_touchdown.c: after the static contact solve (x its unknowns,
 * the last sweep at them), a grid node at each boundary between a free
 * span and a stretch lying on a plane, the contact solved again until the
 * boundaries stay (docs/contact.md); the grid's other nodes as built. */
int kr_contact_touchdown(rod_kirchhoff *k, double *x, rod_step_stats *st);

/* kirchhoff_touchdown.c: the boundaries of the last sweep's stretches
 * lying on planes (where a free span leaves one): each boundary's node
 * (its stretch's first or last pressed node, ascending) and the zero of
 * the free span's moment across the plane; with point (not NULL) also
 * each node pressed alone on a sphere or capsule and the place where the rod is
 * tangent to it (point[b] true for those). Returns how many, at most
 * max. */
int kr_contact_boundaries(const rod_kirchhoff *k, int *node, double *zero,
                          bool *point, int max);

/* kirchhoff_regrid.c: the grid in time (docs/contact.md, "The grid in
 * time"). Workspaces (at creation), the output grid (after the static
 * state), and before each step: when a boundary of a stretch lying on a
 * plane, or a point contact's tangency on a curved body, has left its
 * node, the node moves to it, the grid is uniform again
 * on each side, and the history, the past solutions and the contacts'
 * records are carried onto it; the samples are interpolated onto the
 * output grid. */
int kr_regrid_alloc(rod_kirchhoff *k);
void kr_regrid_free(rod_kirchhoff *k);
void kr_regrid_static_done(rod_kirchhoff *k);
void kr_regrid(rod_kirchhoff *k);
/* The move itself: the nodes node[0 .. nk - 1] (ascending, not the clamp,
 * the tip or a point load's) to the arclengths z, uniform between them;
 * false, nothing changed, when a stretch would not be whole. */
bool kr_regrid_to(rod_kirchhoff *k, const int *node, const double *z, int nk);
/* The accepted solution on the output grid into the out_* arrays, and
 * the contact forces split onto it into out (only after a move; the grid
 * is the output grid otherwise). */
void kr_regrid_sample(rod_kirchhoff *k);
void kr_regrid_sample_contact(rod_kirchhoff *k, rod_sample *out);
#endif
