/* The contact room's own data (kirchhoff_contact*.c alone include this):
 * the struct of the contact forces, their records and workspaces, and the
 * functions the room's files share. The rooms above see kr_contact only as
 * an opaque pointer (kirchhoff_contact.h). */
#ifndef ROD_KIRCHHOFF_CONTACT_DATA_H
#define ROD_KIRCHHOFF_CONTACT_DATA_H

#include <stddef.h>

#include "kirchhoff/kirchhoff_contact.h"

struct kr_contact {
  rod_contact_world world;
  double tol;        /* m: contact tolerance */
  double margin;     /* m: nodes closer than this are candidates */
  int nodes;         /* grid nodes */
  double *f;         /* N, nodes x 3: each node's force along its normal and
                        the two tangents (rod_contact_tangents) */
  double *mu;        /* nodes: Coulomb's mu of the body each node touches */
  int dim;           /* unknowns per node: 1 frictionless, 3 with friction */
  double *saved;     /* N, nodes: kr_contact_save's copy */
  double *saved_pos; /* m, nodes x 3: the positions then */
  double *normal;    /* nodes x 3: the direction it pushes (world) */
  double *gap;       /* m, nodes: smallest gap over the bodies */
  double *gnorm;     /* nodes x 3: the normal of the nearest body */
  int *cand;         /* the candidate nodes of the current problem */
  double *C, *b, *l, *g0; /* candidates^2, candidates x 3 */
  double *V, *ev, *work;  /* model_matrix: eigenvectors, values, LAPACK's */
  int lwork;
  rod_contact_solver *solver;
  double *out_force;       /* N, nodes x 3: lumped at the nodes */
  signed char *out_active; /* nodes */
  double gap_min;          /* m */
  double *pos_before;      /* m, nodes x 3: the accepted positions */
  double dissipated;       /* J: the energy the contacts took since t = 0 */
  double impulse_time;     /* s: the forces F at the step's end gave the rod
                              the impulse F impulse_time */
  double *fn_before; /* N, nodes: the normal forces of the accepted step */
  /* impacts with restitution (Moreau-Jean's law at the velocity level) */
  signed char *vlaw; /* nodes: the velocity law holds in this step */
  double *vn_before; /* m/s, nodes: the normal velocity at the step's start */
  double *e_node;    /* nodes: the restitution of the body struck */
  double *vnorm;     /* nodes x 3: the normal of that body */
  int since_impact;  /* accepted steps since the last impact step */
  bool closed;       /* nothing but gravity and the bodies works on the rod (no
                       loads, motor, impulse, tendons: their motors work) */
  bool restitution;  /* some body has restitution > 0 */
  double e_scale;    /* the restitution of this step over the bodies' */
  int euler_hold;    /* accepted steps left by backward Euler alone */
  char refusal[320]; /* why the last step was refused, or "" */
  double *w_before;  /* m, unknowns: the measured values before an update */
  bool unresolved;   /* the last update's Coulomb problem was solved only in
                        part (newton_update) */
  double sweep_res;  /* the scaled residual of the sweep the gaps came
                        from (0: the solve's own sweep) */
  double shot_tol;   /* the loosest shooting tolerance of the step's solves */
  double *dw; /* m, unknowns: the update's move of the measured values that
                 its model predicts */
  /* the statics' banded model (kirchhoff_contact_banded.c): the band
   * without the contact rows, its right-hand side, the factorised copy
   * and the solution, LAPACK's pivots, the active set, the nodes' gaps */
  double *band0, *brhs0, *band, *brhs, *ipm; /* ipm: 7 x nodes */
  double *bgrad; /* nodes x 3: the gradients of the candidates' gaps */
  int *bpiv;
  signed char *bact;
};

/* Coulomb's law holds to this relative tolerance on the cone (the law's
 * checks and the model's). */
static const double kr_contact_cone = 1e-6;

/* kirchhoff_contact.c: the nodes' forces into the sweeps' jumps
 * (contact_jump); the gaps of the last sweep's nodes (its quadratures
 * integrated): the smallest over the bodies, its normal, and the smallest
 * of all; the body nearest to node i at the last sweep; the world velocity
 * of the node states y along n (m/s); the measured value of unknown (node
 * i, direction j) at the last sweep: the gap along the normal (j = 0), the
 * slip since the accepted state along tangent j (1, 2), at a node under the
 * velocity law dt (v_n+ + e v_n-) instead of the gap. */
void kr_contact_apply_forces(rod_kirchhoff *k);
void kr_contact_gaps(rod_kirchhoff *k);
int kr_contact_body_of(const rod_kirchhoff *k, int i);
double kr_contact_normal_speed(const double *y, const double n[3]);
double kr_contact_measured(const rod_kirchhoff *k, int i, int j);

/* kirchhoff_contact_law.c: the first node whose force or gap breaks the
 * contact conditions at the last sweep, -1 when none; why (n bytes, or
 * NULL) says how. */
int kr_contact_law_broken(const rod_kirchhoff *k, char *why, size_t n);

/* kirchhoff_contact_banded.c: the statics' Newton update of the forces on
 * the banded model over the nodes, frictionless: from the last sweep at
 * the solution, the m candidates c->cand with their gaps in c->b and
 * forces in c->f, the new forces into c->l, the old into c->g0 and the
 * moves of the gaps the model predicts into dw (m each). ROD_ENOCONV when
 * the active set does not settle, ROD_ESING when the model is singular
 * (the caller then takes the dense model). Its workspace per node, at
 * most (3D): the unknowns (10 states, 3 positions, the force) and the
 * band's rows in LAPACK's storage (2 kl + ku + 1, kl = 20, ku = 19). */
int kr_contact_banded_update(rod_kirchhoff *k, int m, double *dw);
enum { KR_BAND_UNKNOWNS = 14, KR_BAND_LDAB = 60 };

/* kirchhoff_contact_swept.c: the body's thickness scale (m): its radius,
 * half a box's smallest extent; a plane's is infinite. */
double kr_contact_body_size(const rod_obstacle *o);

#endif
