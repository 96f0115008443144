/* Serial chain of rigid bodies in reduced (joint) coordinates: kinematics,
 * forward dynamics by Featherstone's articulated-body algorithm (ABA, O(n)),
 * inverse dynamics by the recursive Newton-Euler algorithm (RNEA, O(n)), the
 * joint-space mass matrix by the composite-rigid-body algorithm (CRBA,
 * O(n^2)) with a LAPACKE Cholesky solve as the cross-check, and the
 * stiffness of dead loads for static Newton solves (Featherstone,
 * "Rigid Body Dynamics Algorithms", 2008, ch. 5-7).
 *
 * Link i is revolute joint i followed by body i; the parent of link i is
 * link i - 1, and the parent of link 0 is the world frame. Spatial vectors
 * are Featherstone's: motion (angular, linear) and force (moment, force),
 * six doubles, in body coordinates with the origin at the joint. Matrices
 * of three dimensions are row-major; the n x n matrices column-major, the
 * LAPACK order.
 *
 * Usage: rod_chain_alloc, rod_chain_set_link for every link, then per state
 * rod_chain_update(q, dq) followed by any number of dynamics calls on that
 * state. The workspace is allocated once; no call after rod_chain_alloc
 * allocates. */
#ifndef ROD_CHAIN_H
#define ROD_CHAIN_H

#include <stdbool.h>

typedef struct {
  /* Joint frame relative to the parent body (or the world for link 0):
   * x_joint = rotation (x_parent - offset). */
  double rotation[9]; /* row-major, parent -> joint coordinates */
  double offset[3];   /* m, joint origin in parent coordinates */
  double axis[3];     /* unit revolute axis in the joint frame */
  /* Body i in its own frame (the joint frame turned by q_i about axis). */
  double mass;       /* kg */
  double com[3];     /* m, centre of mass */
  double inertia[9]; /* kg m^2, rotational inertia about the centre of mass */
  double armature;   /* kg m^2, rotor inertia reflected to the joint (M_ii) */
  bool prescribed;   /* acceleration given, not solved for (a driven joint) */
} rod_chain_link;

/* A dead (world-fixed) point force, for statics. */
typedef struct {
  int body;        /* link index */
  double point[3]; /* m, application point in body coordinates */
  double force[3]; /* N, world frame */
} rod_chain_load;

typedef struct rod_chain rod_chain;

/* A chain of n >= 1 links, each a massless body on a joint about z until
 * set. NULL if out of memory. */
rod_chain *rod_chain_alloc(int n);
void rod_chain_free(rod_chain *c);

int rod_chain_size(const rod_chain *c);
/* ROD_EINVAL for a bad index, a zero axis or a negative mass. */
int rod_chain_set_link(rod_chain *c, int i, const rod_chain_link *link);
const rod_chain_link *rod_chain_get_link(const rod_chain *c, int i);
/* Gravity (m/s^2, world frame), zero until set. */
void rod_chain_set_gravity(rod_chain *c, const double g[3]);

/* A moving base: link 0's parent is the frame x_world = R x_base + p
 * (R row-major) instead of the world, moving with the spatial velocity v
 * and spatial acceleration a (Featherstone 2008, ch. 2: (angular, linear
 * of the base point at the origin), base coordinates; a's linear part is
 * that point's acceleration minus omega x its velocity). The ABA and the
 * RNEA take a (with gravity) as the root's prescribed acceleration, the
 * kinematics pass v as the root's velocity. R NULL: the fixed world frame
 * again; v or a NULL: zero. Takes effect at the next rod_chain_update. */
void rod_chain_set_base(rod_chain *c, const double R[9], const double p[3],
                        const double v[6], const double a[6]);

/* Kinematics pass for joint angles q (rad) and rates dq (rad/s): the
 * link transforms, world poses, body velocities and velocity-product
 * accelerations that every dynamics call below uses. dq may be NULL (rest). */
void rod_chain_update(rod_chain *c, const double *q, const double *dq);

/* World pose of body i: x_world = R x_body + p. Either may be NULL. */
void rod_chain_pose(const rod_chain *c, int i, double R[9], double p[3]);
/* Spatial velocity of body i (body coordinates). */
const double *rod_chain_velocity(const rod_chain *c, int i);
/* World position and velocity of a point given in body i's coordinates.
 * Either output may be NULL. */
void rod_chain_point(const rod_chain *c, int i, const double r[3], double p[3],
                     double v[3]);

/* Kinetic energy (J) of the bodies (armatures excluded). */
double rod_chain_kinetic_energy(const rod_chain *c);
/* Gravitational energy -sum m g . p_com (J, world origin as datum). */
double rod_chain_gravity_energy(const rod_chain *c);

/* fext (n x 6, body coordinates) += the spatial force of a world force F
 * (N) acting at point r (m) of body i. */
void rod_chain_add_point_force(const rod_chain *c, int i, const double r[3],
                               const double F[3], double *fext);

/* Forward dynamics by the ABA: joint accelerations qdd (rad/s^2) from joint
 * torques tau (N m) and external spatial forces fext (n x 6 in body
 * coordinates at the body origin, may be NULL), with gravity. Entries of
 * prescribed joints are inputs (qdd read, tau ignored). ROD_ESING if a joint
 * sees no inertia. */
int rod_chain_aba(rod_chain *c, const double *tau, const double *fext,
                  double *qdd);

/* Solve (M + diag(extra)) x = b in O(n) by the ABA at rest without gravity
 * (M at the current q; extra, N m s^2/rad, may be NULL). Prescribed entries
 * of x are 0 and rows of b are ignored. This is the Newton matrix of an
 * implicit step with diagonal joint stiffness and damping. */
int rod_chain_solve_mass(rod_chain *c, const double *extra, const double *b,
                         double *x);

/* The same solve split into a factorisation and back-solves, for many
 * right-hand sides on one matrix (the Delassus matrix J (M + diag(extra))^-1
 * J^T of contact, one solve per contact row): rod_chain_mass_factor runs
 * the ABA's inward pass of articulated inertias once (O(n)); each
 * rod_chain_mass_solve then costs the bias and acceleration passes only
 * (O(n)). A solve is valid until the next call that runs a dynamics pass
 * (ABA, CRBA, load stiffness, solve_mass) or a new factorisation. */
int rod_chain_mass_factor(rod_chain *c, const double *extra);
void rod_chain_mass_solve(rod_chain *c, const double *b, double *x);
/* The passes so far that wrote the factorisation rod_chain_mass_solve uses
 * (every ABA and mass factorisation counts one): a caller that keeps a
 * factorisation for later solves (at a later q: an approximate solve, the
 * transforms of the last rod_chain_update with the articulated inertias of
 * the factorisation) notes the count after it and finds the factorisation
 * still there while the count is the same. */
long rod_chain_factor_count(const rod_chain *c);

/* Inverse dynamics by the RNEA: the torques tau (N m) that produce qdd with
 * fext (may be NULL) and gravity, armatures included. */
void rod_chain_rnea(rod_chain *c, const double *qdd, const double *fext,
                    double *tau);

/* The spatial force (moment, force; body i coordinates at its origin) that
 * the last rod_chain_rnea found transmitted across joint i from the parent
 * to body i: the joint reaction plus the joint torque. */
const double *rod_chain_joint_force(const rod_chain *c, int i);

/* The joint-space mass matrix M(q) by the CRBA (n x n, column-major,
 * armatures on the diagonal). */
void rod_chain_crba(rod_chain *c, double *M);

/* Forward dynamics the slow way, as a cross-check of rod_chain_aba:
 * h = RNEA(q, dq, qdd with prescribed entries, 0 elsewhere), M by the CRBA,
 * and M_ff qdd_f = tau_f - h_f by a Cholesky factorisation (LAPACKE dpotrf,
 * dpotrs). work holds n * n doubles. ROD_ESING if M_ff is not positive
 * definite. */
int rod_chain_forward_crba(rod_chain *c, const double *tau, const double *fext,
                           double *work, double *qdd);

/* Stiffness of dead point loads and gravity at the current q: K[i + j ld] =
 * dG_i/dq_j, G the generalised force of the loads on joint i (so that the
 * static residual K_spring q - G has the Jacobian K_spring - K). Exact and
 * symmetric (the loads are conservative). O(n^2). G itself is -RNEA at
 * rest: rod_chain_rnea with dq = qdd = 0 gives -G. */
void rod_chain_load_stiffness(rod_chain *c, int nloads,
                              const rod_chain_load *loads, double *K, int ld);

#endif
