/* The joints of the chain (rfem_joints.c): the spring-damper elements'
 * and the motor's torques, the Maxwell element over a step, the joint terms
 * of an implicit step's iteration matrix, the prescribed motor joint's
 * motion and the full link vectors from the free ones. Above the base
 * (rfem_base.h); the free step, the contact room and the statics call
 * it. */
#ifndef ROD_RFEM_JOINTS_H
#define ROD_RFEM_JOINTS_H

#include "rfem/rfem_state.h"

/* Acceleration (rad/s^2) of the motor reference at time t. The cosine ramp's
 * acceleration jumps at its start and end; at the ends of the current
 * integration segment [seg_lo, seg_hi] the limit from inside the segment
 * is taken, so no step straddles a jump (rfem_step.c splits at them). */
double rfem_motor_accel(const rod_rfem *r, double t);
/* Full q, v (and qdd if not NULL) from the free entries, the prescribed
 * link 0 from the reference at time t, and the chain's base at the clamp
 * of time t (rfem_place_base). */
void rfem_unpack(rod_rfem *r, double t, const double *qf, const double *vf,
                 const double *qddf, double *q, double *v, double *qdd);
/* Joint torques (N m) at state q, v with Maxwell torques Q, plus the
 * torques of the step's contact forces (r->contact_torque). The chain's
 * kinematics must be at q, v and r->fext hold the external forces: a
 * computed-torque motor adds [M(q) (ref_acc, 0, ..., 0) + h(q, v)]_0 by the
 * RNEA to the PD's kp (ref - q) + kd (ref_rate - v). */
void rfem_joint_torques(const rod_rfem *r, double t, const double *q,
                        const double *v, const double *Q, double *tau);
/* Maxwell element (Iwamura et al., eq. 6) over a step h with the joint rate
 * varying linearly from v0 to v1: Q1 = E Q0 + k (w0 v0 + w1 v1), the exact
 * solution of Q' = k v - Q / T; w0, w1 in s. */
void rfem_maxwell_weights(double h, double T, double *E, double *w0,
                          double *w1);
/* Maxwell torques Q1 after a step h from Q0 with rates v0 -> v1. */
void rfem_maxwell_update(const rod_rfem *r, double h, const double *Q0,
                         const double *v0, const double *v1, double *Q1);
/* K[a + b ld] += the springs' stiffness d2U / dq_a dq_b at the chain's
 * r->q (N m/rad): k on the diagonal (the motor's kp), a 3D Voigt element's 3 x
 * 3 block of its turn's energy (rfem_joints.c). */
void rfem_spring_stiffness(const rod_rfem *r, double *K, int ld);
/* Elastic energy of the joint springs (J). */
double rfem_elastic_energy(const rod_rfem *r);

/* (M + diag(extra)) of an implicit step of size h: the joints' stiffness
 * times beta_p and damping times gamma_p (Maxwell joints: their spring
 * through the step's update, rfem_maxwell_weights). */
void rfem_iteration_extras(const rod_rfem *r, double h, double beta_p,
                           double gamma_p, double *extra);

#endif
