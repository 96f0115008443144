/* The contact room of the RFEM chain, contact with [plane] and
 * [obstacle.NAME] (docs/contact.md): the candidate contacts of the rod's
 * capsules, their frames and Jacobians, the Delassus matrix
 * J (M + diag(extra))^-1 J^T by the articulated-body factorisation (one
 * O(n) back-solve per contact row), the forces a step applies
 * (rfem_contact.c); the contact problem's solve, the impulse of an impact
 * and the time of an impact (rfem_contact_impulse.c). Above the joints
 * (rfem_joints.h), beside the free step; the contact steps, the statics
 * and the adapter call it. Only the rfem_*.c files and the tests see this.
 *
 * Contact points: the rod's nodes (the joints and the tip: the spheres
 * that end the element capsules), and for curved bodies (sphere, capsule,
 * box) the point of an element's axis nearest to the body where it lies
 * inside the element. A node belongs to the element it starts (the tip to
 * the last); its velocity is the same from either element. Points on the
 * clamped part (no free joint moves them) are left out. */
#ifndef ROD_RFEM_CONTACT_H
#define ROD_RFEM_CONTACT_H

#include <lapacke.h>

#include "contact/contact.h"
#include "rfem/rfem_state.h"

/* One contact: a point of the rod's surface against one body. */
typedef struct {
  int obstacle;    /* index in the world */
  int slot;        /* node p (1 .. nelements) or nelements + 1 + element */
  int link;        /* the chain link whose body carries the point */
  double r[3];     /* m: the axis point of the contact, body coordinates */
  double x[3];     /* m: the same, world */
  double gap;      /* m: distance of the surfaces (negative: penetration) */
  double frame[9]; /* rows n (from the body to the rod), t1, t2: world */
  double mu, e;    /* friction and restitution of the body */
} rfem_contact;

typedef struct rfem_contacts {
  rod_contact_world world;
  double tol;    /* m: contact tolerance, solver.tolerance x rod.length */
  double margin; /* m: candidates up to this gap */
  int nslots;    /* slots per body: 1 + 2 nelements */
  int rows;      /* rows per contact: 3 with friction, else 1 */
  int capacity;  /* contacts */

  /* the last detection */
  int count;
  rfem_contact *c;
  double gap_min; /* m, over every node and element */
  /* the nonsmooth scheme's detection at a step's end stands for the state
   * (time fresh_t, angles fresh_q) until an impulse filters the candidates
   * (rfem_contact_current) */
  bool fresh;
  double fresh_t;
  double *fresh_q; /* nlinks */

  /* the forces of the current step at body points, world directions: the
   * force of each applied contact, which acts on the joints as
   * torque = J^T f, constant over the step of the explicit integrators
   * (generalized-alpha: the step's mean force lam / h, for the output
   * only; its torque stays 0) */
  int napplied;
  rfem_contact *applied;
  rfem_contact *list;    /* capacity: scratch of the step */
  double *applied_force; /* napplied x 3, N */
  double *torque;        /* nlinks, N m */
  double *slot_force;    /* bodies x nslots x 3: the last step's end forces */

  /* the contact problem */
  double *J;  /* rows_max x nfree, column-major: the contact rows */
  double *Jp; /* rows_max: the rows' column of a prescribed joint 0 (the
                 motor's turn moves the points too), 0 without one */
  double *Y;  /* nfree x rows_max: (M + diag(extra))^-1 J^T */
  double *G;  /* rows_max^2: the Delassus matrix */
  double *b, *l, *l0, *l1, *mu;
  double *fbuf;   /* 6 x capacity: forces by contact, world */
  double *xstart; /* 3 x capacity: contact points at the step's start */
  int *index;     /* capacity */
  double *full_b, *full_x; /* nlinks */
  rod_contact_solver *solver;
  bool use_primal; /* frictionless impulses by the primal form (tests) */
  double *M;       /* nlinks^2 when use_primal: the mass matrix */
  double *vbuf;    /* nlinks when use_primal */

  /* statics */
  rod_chain_load *loads; /* RFEM_MAX_LOADS + capacity */
  double *H;  /* nfree^2: the static Jacobian, then its Cholesky factor */
  double *dq; /* nfree */

  /* the secant on the step's response: the normal moves the last
   * correction predicted (pred) from the end gaps (gprev) of its npred
   * contacts, and the scale of G they measured (1 at the start) */
  double *pred, *gprev;
  int npred;
  double gscale;

  /* the nonsmooth generalized-alpha step (rfem_contact_nsga.c): per
   * contact of list (rows each, the list's frames) the position
   * multiplier nu (N s^2) and the impulse lam (N s); the offsets
   * U = M^-1 J^T nu and W = M^-1 J^T lam of the free joints; the
   * multipliers of the last step per slot as forces (2 nu / h^2 and
   * lam / h: bodies x nslots x 3, world), the next step's start */
  double *nu, *lam, *dnu; /* rows_max */
  double *Gn, *bn, *ln;   /* capacity^2, capacity, capacity: the normal
                             rows alone (a frictionless fallback) */
  double *u0;             /* rows_max: J v at the step's start */
  double *U, *W;          /* nfree */
  double *slot_pos;       /* bodies x nslots x 3, N */
  rfem_contact *ilist;    /* capacity: the contacts of the velocity problem */

  /* the energy guard of the nonsmooth scheme: the spectral radius of the
   * step being taken, whether nothing but gravity, drag, damping and the
   * bodies works on the rod (no motor, moving clamp, impulse, tip or
   * point loads, tendons: the guard is off otherwise), and the steps retaken
   * with the radius 0.5 and 0 since t = 0 */
  double rho;
  bool closed;
  long retaken_half, retaken_zero, halved;
  /* the true accelerations of the free joints at the starts of the last
   * two guarded steps (times t_last, t_now; nfree each): the slope of
   * qdd that carries the algorithmic acceleration from one radius to
   * another (rfem_contact_nsga.c) */
  double *qdd_last, *qdd_now;
  double t_last, t_now;
  int history; /* how many of the two are set */

  double dissipated;       /* J, since t = 0 */
  long impacts;            /* impulses applied since t = 0 */
  long corrections;        /* re-integrations for the contact forces */
  double *out_force;       /* npoints x 3, N */
  signed char *out_active; /* npoints */
} rfem_contacts;

/* ---- rfem_contact.c ---- */

/* r->contact for a scenario with contact (NULL, ROD_OK without); ROD_ENOMEM
 * if out of memory. */
int rfem_contact_create(rod_rfem *r);
void rfem_contact_free(rfem_contacts *c);

/* The candidates at the chain's current kinematics (rod_chain_update):
 * every contact point with a gap up to margin (m; c->margin in the
 * dynamics), and gap_min. */
void rfem_contact_detect(rod_rfem *r, double margin);
/* The contact of a slot (node p, or ne + 1 + element) with a body at the
 * current kinematics, whatever its gap. */
void rfem_contact_eval(const rod_rfem *r, int obstacle, int slot,
                       rfem_contact *out);
/* Whether the last detection (c->c, gap_min) is the current state's: the
 * nonsmooth scheme's at the end of the step that led here. */
bool rfem_contact_current(const rod_rfem *r);
/* The candidate of a slot and body, or NULL. */
rfem_contact *rfem_contact_find(rfem_contacts *c, int obstacle, int slot);

/* The rows (normal; with rows_per = 3 also t1, t2) of the n contacts list
 * at the current kinematics into c->J; returns the row count. */
int rfem_contact_jacobian(rod_rfem *r, const rfem_contact *list, int n,
                          int rows_per);
/* G = J (M + diag(extra))^-1 J^T for the rows of c->J, Y = the inverse
 * times J^T, by one factorisation and a back-solve per row. */
int rfem_contact_delassus(rod_rfem *r, int rows, const double *extra);
/* The response of the coming explicit step of size h to a constant force
 * over it, for the rows of c->J: the end positions move by Y df (m/N),
 * the contact points by G df. */
int rfem_contact_step_response(rod_rfem *r, int rows, double h);

/* torque = J^T f of the applied forces at the current kinematics. */
void rfem_contact_update_torque(rod_rfem *r);
/* Add the applied forces to fext (nlinks x 6, body coordinates): the
 * internal forces of the output. */
void rfem_contact_add_forces(const rod_rfem *r, double *fext);
/* Apply the forces f (N, world, 3 per contact) at the contacts list (which
 * may not be c->applied) during the coming integration; f is kept per
 * slot for the next step. */
void rfem_contact_set_forces(rod_rfem *r, const rfem_contact *list, int n,
                             const double *f);

/* A buffer for the static loads (RFEM_MAX_LOADS) and the applied contact
 * forces, and the applied forces as dead loads into out; returns their
 * number. */
rod_chain_load *rfem_contact_loads(rod_rfem *r);
int rfem_contact_applied_loads(const rod_rfem *r, rod_chain_load *out);

/* The output arrays of rod_sample for the current state. */
void rfem_contact_output(rod_rfem *r);

/* Frictionless impulses by the primal form from now on (the cross-check of
 * the tests); ROD_ENOMEM if out of memory. */
int rfem_contact_set_primal(rod_rfem *r);

/* ---- rfem_contact_impulse.c ---- */

/* The impulse at the current state (kinematics and candidates current) on
 * the touching candidates: Newton's restitution on the normal velocities,
 * Coulomb's law on the impulses, r->v += M^-1 J^T p (the dual problem on
 * the Delassus matrix J M^-1 J^T, or with use_primal the primal problem on
 * the mass matrix). */
int rfem_contact_impulse(rod_rfem *r);

/* Solve w = G l + b on the rows of c->J for the n contacts of list (c->l
 * holds a warm start): the dual active-set method without friction,
 * Gauss-Seidel on the cones with. */
int rfem_contact_solve(rod_rfem *r, const rfem_contact *list, int n);
/* u = J v (rows of c->J) for the full link rates v: the free joints'
 * share and a prescribed joint 0's (the clamp a motor turns). */
void rfem_contact_rates(const rod_rfem *r, int rows, const double *v,
                        double *u);

/* One trial of rfem_locate_zero_gap: the state moved from the saved start
 * to time t (s), *gap the smallest gap (m) of the contacts being located. */
typedef int (*rfem_gap_trial)(rod_rfem *r, double t, void *user, double *gap);

/* The time in (t0, t1] (gaps g0 > 0 >= g1 there) where the smallest gap
 * reaches zero, to the contact tolerance, by the Illinois variant of
 * regula falsi (Dowell and Jarratt 1971); leaves the state of the last
 * trial. ROD_ENOCONV after 60 trials. */
int rfem_locate_zero_gap(rod_rfem *r, double t0, double g0, double t1,
                         double g1, rfem_gap_trial trial, void *user);

#endif
