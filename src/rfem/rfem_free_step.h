/* The free step of the chain (rfem_free_step.c): its integrators
 * (generalized-alpha, RK45, RK4) from r->t inside one smooth segment of the
 * forcing, without contact handling (the contact forces of a step enter as
 * joint torques, rfem_joints.h), and what the contact steps need of them: a
 * step's start kept and restored, one generalized-alpha step with offsets,
 * the continuation after an impulse. Above the joints, loads and base;
 * below the contact steps and the stepping room. */
#ifndef ROD_RFEM_FREE_STEP_H
#define ROD_RFEM_FREE_STEP_H

#include "rfem/rfem_state.h"

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

#endif
