/* The joints of the RFEM chain: the torques of the spring-damper elements
 * (Voigt and Maxwell, Iwamura et al., eq. 5-6) and of the PD motor (the RFEM
 * tutorial "Modeling deformable objects", 2022) or the computed-torque
 * motor (the PD plus the chain's inverse dynamics), plus the torques of the
 * step's contact forces (rfem_state.h, contact_torque); the Maxwell element's
 * exact update over a step; the joint terms of an implicit step's iteration
 * matrix; the prescribed motor joint's motion and the full link vectors from
 * the free ones; the springs' elastic energy. */
#include <math.h>
#include <string.h>

#include "core/loads.h"
#include "rfem/rfem_base.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_tendon.h"

double rfem_motor_accel(const rod_rfem *r, double t) {
  const rod_scenario *sc = &r->sc;
  if (!sc->motor.enabled)
    return 0.0;
  /* one-sided limits at the segment's ends: evaluate just inside */
  const double T = sc->motor.ramp, nudge = 1e-9 * T;
  if (t <= r->seg_lo)
    t = r->seg_lo + nudge;
  else if (t >= r->seg_hi)
    t = r->seg_hi - nudge;
  /* d^2/dt^2 of A (1 - cos(pi tau / T)) / 2 (loads.c's ramp) */
  const double tau = t - sc->motor.start;
  if (!(tau > 0 && tau < T))
    return 0.0;
  return sc->motor.angle * 0.5 * (M_PI / T) * (M_PI / T) * cos(M_PI * tau / T);
}

void rfem_unpack(rod_rfem *r, double t, const double *qf, const double *vf,
                 const double *qddf, double *q, double *v, double *qdd) {
  const int f0 = r->first_free;
  const size_t bytes = (size_t)r->nfree * sizeof(double);
  rfem_place_base(r, t, false);
  if (f0) {
    rod_motor_reference(&r->sc, t, &q[0], &v[0]);
    if (qdd)
      qdd[0] = rfem_motor_accel(r, t);
  }
  memcpy(q + f0, qf, bytes);
  memcpy(v + f0, vf, bytes);
  if (qdd && qddf)
    memcpy(qdd + f0, qddf, bytes);
}

/* The computed torque's model term at the chain's current kinematics and
 * external forces r->fext: [M(q) a + h(q, dq)]_0 with a = (the reference's
 * acceleration, 0, ..., 0), the RNEA's torque on the driven joint 0 when
 * it follows the reference's acceleration and the passive joints do not
 * accelerate (they have no actuator and no reference). */
static double motor_model_torque(const rod_rfem *r, double t) {
  memset(r->ct_acc, 0, (size_t)r->nlinks * sizeof(double));
  r->ct_acc[0] = rfem_motor_accel(r, t);
  rod_chain_rnea(r->chain, r->ct_acc, r->fext, r->ct_tau);
  return r->ct_tau[0];
}

void rfem_joint_torques(const rod_rfem *r, double t, const double *q,
                        const double *v, const double *Q, double *tau) {
  for (int i = 0; i < r->nlinks; i++) {
    if (r->role[i] == RFEM_MOTOR) {
      tau[i] = 0.0;
      if (!r->prescribed) { /* PD: kp (ref - q) + kd (ref_rate - dq) */
        double a, w;
        rod_motor_reference(&r->sc, t, &a, &w);
        tau[i] = r->k[i] * (a - q[i]) + r->c[i] * (w - v[i]);
        if (r->sc.motor.control == ROD_MOTOR_COMPUTED_TORQUE)
          tau[i] += motor_model_torque(r, t);
      }
      continue;
    }
    /* Voigt: k q + c dq (eq. 5); Maxwell: its state Q plus the parallel
     * dashpot of rod.bending_damping */
    double spring = r->maxwell ? Q[i] : r->k[i] * (q[i] - r->q0[i]);
    tau[i] = -spring - r->c[i] * v[i];
  }
  if (r->contact_torque) /* the step's contact forces, J^T f, on the free
                            joints */
    for (int i = r->first_free; i < r->nlinks; i++)
      tau[i] += r->contact_torque[i];
}

/* (1 - e^-x (1 + x)) / x = sum_(m >= 2) (-1)^m (m - 1) x^(m-1) / m!,
 * summed directly where the closed form cancels. */
static double maxwell_g(double x) {
  if (x > 0.5)
    return (1.0 - exp(-x) * (1.0 + x)) / x;
  double term = x / 2.0, sum = 0.0; /* m = 2 */
  for (int m = 2; m < 40 && fabs(term) > 1e-18 * fabs(sum); m++) {
    sum += term;
    /* term_(m+1) / term_m = -x m / ((m - 1)(m + 1)) */
    term *= -x * m / ((m - 1.0) * (m + 1.0));
  }
  return sum;
}

void rfem_maxwell_weights(double h, double T, double *E, double *w0,
                          double *w1) {
  /* Q1 = e^(-h/T) Q0 + k int_0^h e^(-(h-s)/T) v(s) ds with v linear:
   * w0 = T g(x), w1 = T (1 - e^-x) - w0, x = h / T */
  const double x = h / T;
  *E = exp(-x);
  *w0 = T * maxwell_g(x);
  *w1 = -T * expm1(-x) - *w0;
}

void rfem_maxwell_update(const rod_rfem *r, double h, const double *Q0,
                         const double *v0, const double *v1, double *Q1) {
  double E, w0, w1;
  rfem_maxwell_weights(h, r->relax, &E, &w0, &w1);
  for (int i = 0; i < r->nlinks; i++)
    Q1[i] = r->role[i] == RFEM_MOTOR
                ? 0.0
                : E * Q0[i] + r->k[i] * (w0 * v0[i] + w1 * v1[i]);
}

double rfem_elastic_energy(const rod_rfem *r) {
  double U = 0;
  for (int i = 0; i < r->nlinks; i++) {
    if (r->role[i] == RFEM_MOTOR)
      continue;
    U += r->maxwell
             ? 0.5 * r->Q[i] * r->Q[i] / r->k[i]
             : 0.5 * r->k[i] * (r->q[i] - r->q0[i]) * (r->q[i] - r->q0[i]);
  }
  return U;
}

/* (M + diag(gamma' D + beta' K)) dx = b: the joints' stiffness K and
 * damping D enter as armature (Maxwell: dQ1/dv1 = k w1), and the diagonal
 * of the tendons' (rfem_tendon_iteration). Neglected in this
 * matrix: the load stiffness and the velocity terms of the bias forces and
 * drag, small next to M / beta' at the step sizes used, so the Newton
 * iteration converges linearly and fast. */
void rfem_iteration_extras(const rod_rfem *r, double h, double beta_p,
                           double gamma_p, double *extra) {
  double E = 0, w0 = 0, w1 = 0;
  if (r->maxwell)
    rfem_maxwell_weights(h, r->relax, &E, &w0, &w1);
  for (int i = 0; i < r->nlinks; i++) {
    double K = r->k[i], D = r->c[i];
    if (r->role[i] == RFEM_MOTOR && r->prescribed)
      K = D = 0.0;
    else if (r->role[i] != RFEM_MOTOR && r->maxwell) {
      K = 0.0;
      D += r->k[i] * w1;
    }
    extra[i] = beta_p * K + gamma_p * D;
  }
  if (r->tendons) /* their stiffness at the last residual's state */
    rfem_tendon_iteration(r, beta_p, extra);
}
