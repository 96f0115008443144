/* The RFEM backend's data (Wittbrodt et al. 2006; Featherstone 2008;
 * Iwamura et al.): the rod as a chain of rigid cylinders joined by
 * spring-damper elements, its loads, the integrators' state and the output
 * buffers, one struct every room of the backend reads. Types and constants
 * only; each room's functions are declared in its own header
 * (docs/design.md, "The RFEM backend's rooms"). Only the rfem_*.c files and
 * the tests see this.
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
#ifndef ROD_RFEM_STATE_H
#define ROD_RFEM_STATE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "bvp/lm.h"
#include "core/drive.h"
#include "core/model.h"
#include "integrators/genalpha.h"
#include "integrators/ivp.h"
#include "io/inputs.h"
#include "rfem/chain.h"
#include "rod/scenario.h"
#include "rod/sim.h"

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
  double *ga_save; /* 4 nfree + nlinks: state at the start of a step */
  double ga_beta;  /* generalized-alpha's beta */
  /* the iteration matrix's factorisation, kept across Newton iterations
   * and steps (rfem_free_step.c) */
  bool ga_keep;   /* keep it (true; false: a fresh one each solve) */
  long ga_factor; /* rod_chain_factor_count after it; 0: none */
  double ga_factor_beta, ga_factor_gamma; /* its beta', gamma' */
  double ga_last_norm;   /* the step's last scaled residual; -1 at its start */
  bool ga_stale;         /* a correction contracted too little: factor again */
  bool ga_reused;        /* the step solved with a kept factorisation */
  double step_tolerance; /* m: genalpha steps with a larger error estimate
                            are rejected (time.tolerance; else INFINITY) */
  rod_rk45 *rk45;
  double *y, *ode_work, *atol; /* (q_free, v_free, Q) for rk45 / rk4 */
  int ny;
  int rk4_substeps;
  rod_lm_workspace *lm;
  rod_static_report static_report; /* how the static state was found */
  /* the static solve's loads reached on its loading path (0 to 1; -1 off
   * a path: the direct solve, the contact problem at the full loads; 1
   * once solved), read from other threads (rod_sim_static_progress) */
  _Atomic double static_progress;

  /* scratch, sized once */
  double *fext;  /* nlinks x 6 */
  double *tau;   /* nlinks */
  double *tau2;  /* nlinks */
  double *extra; /* nlinks */
  double *full;  /* nlinks */
  double *xs;    /* 2 nlinks: static unknowns (and a second state) */
  double *rs;    /* nlinks: static residual */
  double *kbuf;  /* nlinks^2: dead-load stiffness */
  double *ct_acc, *ct_tau; /* nlinks: computed torque's inverse dynamics */

  /* a step's start, kept by rfem_save for the contact stepper's
   * re-integrations: time, full link vectors and the integrator's state */
  double saved_t;
  double *saved_q, *saved_v, *saved_qdd, *saved_Q;
  double *saved_ga; /* 4 nfree + nlinks (generalized-alpha) */
  double *saved_y;  /* ny (rk45, rk4) */

  /* contact with [plane] and [obstacle.NAME] (rfem_contact.h); NULL
   * without */
  struct rfem_contacts *contact;
  /* nlinks, N m: the joint torques J^T f of the contact forces applied in
   * the step (the contact room's, rfem_contact_update_torque); NULL
   * without contact */
  const double *contact_torque;
  /* [tendon.NAME]'s disks, tensions and lengths (rfem_tendon.h); NULL
   * without */
  struct rfem_tendons *tendons;

  /* output */
  bool at_static; /* the state is the static one (loads before release) */
  int npoints;
  double *s_out, *out_pos, *out_quat, *out_vel, *out_force, *out_moment;
} rod_rfem;

#endif
