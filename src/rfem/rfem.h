/* Internal state of the RFEM backend (Wittbrodt et al. 2006; Featherstone 2008;
 * Iwamura et al.): the rod as a chain of rigid cylinders joined by
 * spring-damper elements, its loads, the integrators and the output buffers.
 * Only the rfem_*.c files and the tests see this.
 *
 * Chain layout (docs/scenario.md, rfem.layout): link 0 is the motor joint
 * about motor.axis through the base point, prescribed (the reference, or 0
 * without [motor]) unless motor.kp > 0; its body is the half element fixed
 * to the clamp (centered) or massless (uniform). Every spring-damper element
 * j = 1..n is one link (planar: bending about the normal of the plane of
 * base.direction and gravity) or three (3D: bending about d1, bending about
 * d2, torsion about d3, the last carrying the element's body). Bodies use
 * the material frame: origin at the proximal joint, d3 along the element,
 * R(0) from rod_frame_from_tangent. */
#ifndef ROD_RFEM_INTERNAL_H
#define ROD_RFEM_INTERNAL_H

#include <stdbool.h>

#include "bvp/lm.h"
#include "core/drive.h"
#include "core/model.h"
#include "integrators/genalpha.h"
#include "integrators/ivp.h"
#include "io/inputs.h"
#include "rfem/chain.h"
#include "rod/scenario.h"
#include "sim/backend.h"

typedef enum { RFEM_MOTOR = 0, RFEM_BEND, RFEM_TORSION } rfem_role;

/* Point forces and couples at most: tip, impulse, every [load.NAME]. */
enum { RFEM_MAX_LOADS = ROD_MAX_LOADS + 2 };

typedef struct {
  double s0;     /* m, arclength of the proximal end */
  double length; /* m */
  int link;      /* the chain link whose body is this element */
} rfem_element;

/* The clamp's pose and velocities (world frame): position p (m), rotation
 * R (row-major, of the material frame R(0)), velocity v (m/s), angular
 * velocity w (1/s). */
typedef struct {
  double p[3], R[9], v[3], w[3];
} rfem_clamp;

typedef struct rod_rfem {
  rod_scenario sc;
  rod_drive drive; /* loads set between steps */
  /* a clamp set between steps (drive.base) moves over a step from
   * clamp_from at drive_t0 to the drive's pose at drive_t1 */
  bool clamp_known;      /* clamp_from holds the clamp at r->t */
  rfem_clamp clamp_from; /* at the start of the step */
  rfem_clamp clamp_to;   /* the drive's, at the end of the step */
  double drive_t0, drive_t1;
  rod_inputs *inputs; /* the scenario's data files */
  rod_model model;
  double EI; /* N m^2 */
  double L;  /* m */

  /* chain */
  int nlinks;
  rod_chain *chain;
  rfem_role *role; /* per link */
  double *k;       /* per link: N m/rad, spring (motor: kp) */
  double *c;       /* per link: N m s/rad, parallel damper (motor: kd) */
  double *q0;      /* per link: rad, rest angle of the spring (precurvature)
                    */
  bool maxwell; /* spring links are Maxwell elements (Iwamura et al., eq. 6) */
  double relax; /* s, Maxwell relaxation time c/k */
  bool prescribed; /* link 0 follows the motor reference */
  int first_free;  /* 1 when link 0 is prescribed, else 0 */
  int nfree;       /* nlinks - first_free */
  int nelements;
  rfem_element *el;     /* in order along s */
  double plane_axis[3]; /* world normal of the bending plane (planar) */

  /* loads */
  int tip_element;
  double impulse_dir[3];
  int impulse_element;
  int load_element[ROD_MAX_LOADS]; /* the element of each [load.NAME] */
  double load_x[ROD_MAX_LOADS];    /* m, along it from its proximal end */
  double impulse_x; /* m, along the element from its proximal end */

  /* state: full link vectors, Maxwell torques (N m), time (s) */
  double t;
  double *q, *v, *qdd, *Q;
  double *Q_new;   /* Maxwell torques at the end of the step being solved */
  double *v_start; /* rates at the start of the step (Maxwell update) */
  double h;        /* s, the step being solved (generalized-alpha) */
  int ga_substeps; /* substeps this output step needed so far (contact) */
  double seg_lo, seg_hi; /* s, the integration segment (rfem_motor_accel) */
  long evaluations;      /* dynamics passes (ABA, RNEA, mass solves) */

  /* integrators */
  rod_genalpha *ga;
  double *ga_save;       /* 4 nfree + nlinks: state at the start of a step */
  double ga_beta;        /* generalized-alpha's beta */
  double step_tolerance; /* m: genalpha steps with a larger error estimate
                            are rejected (time.tolerance; else INFINITY) */
  rod_rk45 *rk45;
  double *y, *ode_work, *atol; /* (q_free, v_free, Q) for rk45 / rk4 */
  int ny;
  int rk4_substeps;
  rod_lm_workspace *lm;
  rod_static_report static_report; /* how the static state was found */

  /* scratch, sized once */
  double *fext;  /* nlinks x 6 */
  double *tau;   /* nlinks */
  double *tau2;  /* nlinks */
  double *extra; /* nlinks */
  double *full;  /* nlinks */
  double *xs;    /* 2 nlinks: static unknowns (and a second state) */
  double *rs;    /* nlinks: static residual */
  double *kbuf;  /* nlinks^2: dead-load stiffness */

  /* a step's start, kept by rfem_save for the contact stepper's
   * re-integrations: time, full link vectors and the integrator's state */
  double saved_t;
  double *saved_q, *saved_v, *saved_qdd, *saved_Q;
  double *saved_ga; /* 4 nfree + nlinks (generalized-alpha) */
  double *saved_y;  /* ny (rk45, rk4) */

  /* contact with [plane] and [obstacle.NAME] (rfem_contact.h); NULL
   * without */
  struct rfem_contacts *contact;

  /* output */
  bool at_static; /* the state is the static one (loads before release) */
  int npoints;
  double *s_out, *out_pos, *out_quat, *out_vel, *out_force, *out_moment;
} rod_rfem;

/* rfem_base.c: the chain's base at the clamp of time t (at_rest: its pose
 * only, for the static state): the clamp set between steps (drive.base),
 * else base.motion_file's; nothing for a fixed clamp. */
void rfem_place_base(rod_rfem *r, double t, bool at_rest);
/* The joints' rates after the table's clamp velocity jumps at t (from
 * rest: at the release from the static state; else at the table's first
 * and last time, where it is held): the free joints' generalized momentum
 * kept through the impulse at the clamp. Nothing without a table. */
void rfem_base_jump(rod_rfem *r, double t, bool from_rest);
/* Before a step to t1 with the clamp set between steps: its motion from
 * the clamp at r->t (the last step's end, or where the clamp was when the
 * drive took it over) to the drive's pose and velocities at t1. */
void rfem_drive_step(rod_rfem *r, double t1);
/* The drive takes the clamp over: the clamp at r->t is the start. */
void rfem_drive_set(rod_rfem *r);
/* A static state under the drive: its pose, at rest. */
void rfem_drive_static(rod_rfem *r);

/* rfem_build.c: the chain of the scenario; ROD_ENOMEM or ROD_OK. */
int rfem_build(rod_rfem *r);

/* rfem_loads.c */
/* Acceleration (rad/s^2) of the motor reference at time t. The cosine ramp's
 * acceleration jumps at its start and end; at the ends of the current
 * integration segment [seg_lo, seg_hi] the limit from inside the segment
 * is taken, so no step straddles a jump (rfem_step splits at them). */
double rfem_motor_accel(const rod_rfem *r, double t);
/* Times in [t0, t1) where the forcing jumps (the prescribed motor's
 * acceleration at the ramp's start and end; the velocity of the clamp of
 * base.motion_file at its first and last time after 0), ascending;
 * returns how many (at most 2). */
int rfem_breakpoints(const rod_rfem *r, double t0, double t1, double *out);
/* Full q, v (and qdd if not NULL) from the free entries, the prescribed
 * link 0 from the reference at time t, and the chain's base at the clamp
 * of time t (rfem_place_base). */
void rfem_unpack(rod_rfem *r, double t, const double *qf, const double *vf,
                 const double *qddf, double *q, double *v, double *qdd);
/* Joint torques (N m) at state q, v with Maxwell torques Q. */
void rfem_joint_torques(const rod_rfem *r, double t, const double *q,
                        const double *v, const double *Q, double *tau);
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
/* Maxwell element (Iwamura et al., eq. 6) over a step h with the joint rate
 * varying linearly from v0 to v1: Q1 = E Q0 + k (w0 v0 + w1 v1), the exact
 * solution of Q' = k v - Q / T; w0, w1 in s. */
void rfem_maxwell_weights(double h, double T, double *E, double *w0,
                          double *w1);
/* Maxwell torques Q1 after a step h from Q0 with rates v0 -> v1. */
void rfem_maxwell_update(const rod_rfem *r, double h, const double *Q0,
                         const double *v0, const double *v1, double *Q1);
/* Elastic energy of the joint springs (J). */
double rfem_elastic_energy(const rod_rfem *r);

/* rfem_contact_step.c: advance from r->t to t_end inside one smooth
 * segment with contact (docs/contact.md). */
int rfem_contact_advance(rod_rfem *r, double t_end, rod_step_stats *st);

/* rfem_static.c: static equilibrium, by Newton's method with the exact
 * Jacobian (spring stiffness minus the dead-load stiffness) or along the
 * loading path, checked for stability (r->static_report). */
int rfem_solve_static(rod_rfem *r, rod_step_stats *st);
/* The static residual (scaled by L / EI) of the free angles x and its exact
 * Jacobian (may be NULL): a rod_lm_residual, with user the backend. The
 * contact forces applied (rfem_contact_set_forces) count as dead loads. */
int rfem_static_residual(const double *x, double *res, double *J, void *user);

/* rfem_step.c */
/* (M + diag(extra)) of an implicit step of size h: the joints' stiffness
 * times beta_p and damping times gamma_p (Maxwell joints: their spring
 * through the step's update, rfem_maxwell_weights). */
void rfem_iteration_extras(const rod_rfem *r, double h, double beta_p,
                           double gamma_p, double *extra);
/* Advance from r->t to t_end inside one smooth segment with the scenario's
 * integrator (no contact handling). */
int rfem_advance_free(rod_rfem *r, double t_end, rod_step_stats *st);
/* One generalized-alpha step from the integrator's state to t1 with the
 * end offsets dq, dv on the free joints (NULL: none; the nonsmooth
 * scheme's position correction and velocity jump), no retries; r->t, q,
 * v, qdd at its end. */
int rfem_ga_step(rod_rfem *r, double t1, const double *dq, const double *dv,
                 rod_step_stats *st);
/* Keep the current state (and the integrator's), and go back to it. */
void rfem_save(rod_rfem *r);
void rfem_restore(rod_rfem *r);
/* Accelerations at the state (r->t, r->q, r->v, r->Q) with the current
 * forcing and a fresh start of the integrator there (after a release, a
 * jump of the forcing or an impulse). */
int rfem_restart(rod_rfem *r);
/* Go on from velocities r->v that an impulse changed: generalized-alpha
 * keeps its accelerations, RK45 its step size. */
int rfem_velocity_jump(rod_rfem *r);
/* Accelerations at the state (r->t, r->q, r->v, r->Q) after the release,
 * and the integrators' start. */
int rfem_start_dynamics(rod_rfem *r);
int rfem_step(rod_rfem *r, double t, rod_step_stats *st);

#endif
