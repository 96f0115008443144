/* Tendons on the RFEM chain (rfem_tendon.c; docs/tendons.md, "The RFEM
 * chain"): each [tendon.NAME] runs through one disk per element, straight
 * from disk to disk, and pulls each disk where it changes direction. Its
 * loads are the generalized forces -tau dL/dq of its length L(q), applied
 * as the point forces on the disks (the discrete form of Rucker & Webster
 * 2011's distributed force and moment, and the anchor's point load), with
 * their exact stiffness for the static Newton solve. In the model room,
 * beside the loads (rfem_loads.c adds them to the external forces). */
#ifndef ROD_RFEM_TENDON_H
#define ROD_RFEM_TENDON_H

#include "rfem/rfem_state.h"

/* A disk: the point where a tendon passes a body. */
typedef struct {
  int link;    /* the chain link whose body holds it */
  double x[3]; /* m, in the body's coordinates */
} rfem_disk;

typedef struct rfem_tendons {
  int count;       /* tendons */
  int *first;      /* count + 1: tendon i's disks are first[i]..first[i+1]-1 */
  rfem_disk *disk; /* every tendon's disks, start to anchor */
  double *world;   /* 3 per disk: its world position at the last update */
  double tension[ROD_MAX_TENDONS]; /* N, at the last rfem_tendon_forces */
  double length[ROD_MAX_TENDONS];  /* m, the polygon's from start to end */
  /* displacement control: the polygon's length on the straight unloaded
   * chain (m), and dtau/dL at the last rfem_tendon_forces (N/m; 0 where
   * the tendon is slack or tension-controlled) */
  double rest[ROD_MAX_TENDONS];
  double spring[ROD_MAX_TENDONS];
  double *dL; /* a joint's dL/dq of one tendon (rfem_tendon.c), links */
  /* the springs of displacement control in generalized-alpha's iteration
   * matrix S0 + U W U^T (rfem_tendon_factor): U's columns dL/dq, W the
   * springs times beta', Z = S0^-1 U; m of them (links x m each) */
  double *U, *Z, W[ROD_MAX_TENDONS];
  int m;
  /* W, at the last rfem_tendon_friction: sum over the guides of beta tau
   * theta s_t^2, the friction force times the sliding rate (>= 0) */
  double friction_power[ROD_MAX_TENDONS];
  /* W, at the last rfem_tendon_friction: the power of the friction loads
   * on the chain, sum F . v at their points of action */
  double friction_load_power[ROD_MAX_TENDONS];
  /* J, since t = 0 (rfem_tendon_work.c): the tensions' work and the
   * friction loads'; the tensions (N), lengths (m) and friction loads'
   * power (W, all tendons) at the last accepted step's end */
  double work, friction_work;
  double work_tension[ROD_MAX_TENDONS], work_length[ROD_MAX_TENDONS];
  double work_power;
} rfem_tendons;

/* The disks of the scenario's tendons (none: r->tendons stays NULL). */
int rfem_tendon_create(rod_rfem *r);
void rfem_tendon_free(rfem_tendons *t);
/* fext += each tendon's pull on its disks at the chain's current
 * kinematics, tension scale times its value at t: tau (c_out - c_in) at
 * each disk, c the unit chords from disk to disk (c_in at the start and
 * c_out at the anchor 0). A displacement-controlled tendon's tension
 * follows from its length L at that kinematics, the rod's constraint b +
 * L = l* (1 + c tau), l* = l0 + b - dl(t) (docs/tendons.md), solved for
 * tau: max(0, (b + L - l*) / (c l*)) (c > 0: the scenario refuses 0 on
 * the chain). Keeps the tensions and lengths. */
void rfem_tendon_forces(rod_rfem *r, double t, double scale, double *fext);
/* fext += the friction of each tendon with `friction` against its guides
 * (rfem_tendon_friction.c): at each disk between its start and its anchor
 * beta tau theta s_t along the tendon, theta the chords' turn there and
 * s_t the tendon's sliding rate from the chain's velocities, at the
 * kinematics and tensions of the last rfem_tendon_forces. Keeps each
 * tendon's friction power. */
void rfem_tendon_friction(rod_rfem *r, double *fext);
/* The tendons' works on the chain (rfem_tendon_work.c), after the
 * tendons' forces and friction were evaluated at the static state (start:
 * zero) or at an accepted step's end (a step of dt seconds, added by
 * trapezoids). */
void rfem_tendon_work_start(rfem_tendons *td);
void rfem_tendon_work_step(rfem_tendons *td, double dt);
/* K[i + j ld] += dG_i/dq_j of the tendons' generalized forces G = -tau
 * dL/dq at the tensions and state of the last rfem_tendon_forces: -tau
 * times the Hessian of L (rod_chain_load_stiffness's convention). */
void rfem_tendon_stiffness(const rod_rfem *r, double *K, int ld);

/* extra[j] += beta_p tau d^2 L / dq_j^2: the diagonal of the tendons'
 * stiffness in an implicit step's iteration matrix M + diag(extra) (its
 * whole tendon term on the planar centered chain, where each chord spans
 * one joint), at the state of the last rfem_tendon_forces. */
void rfem_tendon_iteration(const rod_rfem *r, double beta_p, double *extra);
/* Displacement-controlled tendons make the iteration matrix S0 + beta'
 * sum k_i g_i g_i^T (g_i = dL_i/dq, k_i = dtau_i/dL_i): a full coupling
 * of the joints the tendon crosses, too strong for the diagonal alone
 * (thousands of iterations a step). After S0's factorisation (the chain's
 * mass solve with its extras), the taut ones' columns and S0^-1 of them;
 * the joint f0 - 1 is driven (f0 = 1) and takes no correction. */
void rfem_tendon_factor(rod_rfem *r, double beta_p, int f0);
/* x = S^-1 b from x = S0^-1 b (links), by Woodbury's identity:
 * x -= Z (W^-1 + U^T Z)^-1 U^T x. */
void rfem_tendon_correct(const rod_rfem *r, double *x);

/* The backbone's own force and moment at the clamp (n0, m0, about the
 * point p0) and the tip (nL, mL, about pL), as the rod reports them
 * (docs/tendons.md): minus the pull of the tendons that leave the rod at
 * the clamp towards their motors, or are anchored at the tip, tau c times
 * their first or last chord c (state of the last rfem_tendon_forces). */
void rfem_tendon_ends(const rod_rfem *r, const double p0[3], double n0[3],
                      double m0[3], const double pL[3], double nL[3],
                      double mL[3]);

#endif
