/* Contact of the rod with rigid bodies ([plane], [obstacle.NAME]): signed
 * distances and witness points (contact_geometry.c), and the contact
 * problems both backends pose per step (Carpentier et al., Pinocchio,
 * "Dynamics: simulation and control"):
 *
 *   frictionless, dual:  min 1/2 l^T G l + b^T l  subject to  l >= 0
 *                        (G = J W J^T the Delassus matrix, l impulses or
 *                        forces; contact_dual.c),
 *   frictionless, primal: min 1/2 (v - vf)^T A (v - vf)  subject to
 *                        J v >= lo (contact_primal.c),
 *   Coulomb friction:    w = G l + b, per contact (normal, two tangents):
 *                        l in the cone |l_t| <= mu l_n, w_n >= 0 _|_ l_n,
 *                        and w_t = 0 (stick) or l_t = -mu l_n w_t / |w_t|
 *                        (slip) (contact_coulomb.c).
 *
 * The two frictionless forms have the same solution (v = vf + A^-1 J^T l);
 * the tests hold them to 1e-9. Matrices are column-major (LAPACK order).
 * Workspaces are sized once; a solve never allocates. */
#ifndef ROD_CONTACT_H
#define ROD_CONTACT_H

#include <stdbool.h>

#include "rod/scenario.h"

typedef enum {
  ROD_OBSTACLE_PLANE = 0,
  ROD_OBSTACLE_SPHERE,
  ROD_OBSTACLE_CAPSULE,
  ROD_OBSTACLE_BOX
} rod_obstacle_kind;

/* A rigid body the rod cannot enter, fixed in the world. */
typedef struct {
  rod_obstacle_kind kind;
  char label[48];     /* "plane" or "obstacle.NAME", for messages */
  double center[3];   /* m: plane: a point of it; others: the centre */
  double axis[3];     /* unit: plane: its normal (to the free side);
                         capsule: its axis */
  double radius;      /* m: sphere, capsule */
  double half_length; /* m: capsule */
  double half[3];     /* m: box half extents along its own axes */
  double R[9];        /* box: world <- box rotation, row-major */
  double bound;       /* m: every point of the body is within bound of
                         center (plane: infinity) */
  double friction;    /* Coulomb mu */
  double restitution; /* Newton's normal restitution, [0, 1] */
} rod_obstacle;

/* The scenario's plane (first) and obstacles, and the rod's contact
 * radius (its outer radius, rod.diameter / 2). */
typedef struct {
  int count;
  rod_obstacle item[ROD_MAX_OBSTACLES + 1];
  double rod_radius; /* m */
  bool friction;     /* some body has mu > 0 */
} rod_contact_world;

/* The bodies of sc; count 0 when it has none. */
void rod_contact_world_init(rod_contact_world *w, const rod_scenario *sc);

/* Signed distance (m) from the point x to the body's surface, negative
 * inside; n receives the unit outward normal at the nearest surface point
 * (the distance's gradient; a fixed choice where it has none). */
double rod_obstacle_distance(const rod_obstacle *o, const double x[3],
                             double n[3]);

/* The point of the segment a-b (parameter t in [0, 1]) nearest to the body:
 * returns its signed distance, *t and the normal n there. Exact for the
 * plane, sphere and capsule; for the box the minimum of the convex distance
 * along the segment to 1e-12 of its length. */
double rod_obstacle_segment(const rod_obstacle *o, const double a[3],
                            const double b[3], double *t, double n[3]);

/* Two unit tangents t1, t2 completing the unit normal n to a right-handed
 * frame (t1, t2, n), a fixed function of n. */
void rod_contact_tangents(const double n[3], double t1[3], double t2[3]);

/* ---- the contact problems ------------------------------------------------ */

typedef struct rod_contact_solver rod_contact_solver;

/* Room for up to m contact rows and n velocities (primal); NULL if out of
 * memory. */
rod_contact_solver *rod_contact_solver_alloc(int m, int n);
void rod_contact_solver_free(rod_contact_solver *s);

typedef struct {
  int iterations;  /* active-set changes, or Gauss-Seidel sweeps */
  double residual; /* largest violation of the conditions, in units of b */
} rod_contact_stats;

/* Frictionless dual: l >= 0 minimising 1/2 l^T G l + b^T l (G: m x m,
 * symmetric positive semidefinite, leading dimension m), by the
 * active-set method of Lawson & Hanson (1974) with Cholesky solves of the
 * free block (LAPACKE). l is an output; ROD_ENOCONV if the active set
 * cycles. */
int rod_contact_dual(rod_contact_solver *s, int m, const double *G,
                     const double *b, double *l, rod_contact_stats *st);

/* Frictionless primal: v minimising 1/2 (v - vf)^T A (v - vf) subject to
 * J v >= lo (A: n x n symmetric positive definite; J: m x n, leading
 * dimension m), by the dual active-set method of Goldfarb & Idnani (1983)
 * with dense KKT solves (LAPACKE dsysv). l receives the multipliers (one
 * per row, >= 0). ROD_EINVAL if the constraints are inconsistent. */
int rod_contact_primal(rod_contact_solver *s, int n, int m, const double *A,
                       const double *vf, const double *J, const double *lo,
                       double *v, double *l, rod_contact_stats *st);

/* Coulomb friction: nc contacts with rows (normal, t1, t2) at 3k .. 3k + 2
 * of G (3 nc x 3 nc, leading dimension 3 nc) and b; mu per contact. By
 * nonsmooth block Gauss-Seidel (Jean & Moreau 1992; Acary & Brogliato 2008,
 * ch. 12) with the exact solution of each contact's 3 x 3 problem, from
 * the l given (a warm start) until no force changes by more than
 * tolerance times the largest force. ROD_ENOCONV after max_sweeps. */
int rod_contact_coulomb(rod_contact_solver *s, int nc, const double *G,
                        const double *b, const double *mu, double tolerance,
                        int max_sweeps, double *l, rod_contact_stats *st);

/* The solution of one contact's Coulomb problem w = W l + q (W 3 x 3,
 * column-major, symmetric positive definite): separation (l = 0) when
 * q_n >= 0, else sticking (w = 0) when that force lies in the cone, else
 * sliding on the cone's surface with w_n = 0 and w_t opposite to l_t.
 * Returns 0, or ROD_ENOCONV when no sliding solution exists (l is then the
 * projection of the sticking force on the cone). */
int rod_contact_coulomb_local(const double *W, const double *q, double mu,
                              double *l);

#endif
