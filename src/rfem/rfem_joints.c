/* The joints of the RFEM chain: the torques of the spring-damper elements
 * (Voigt and Maxwell, Iwamura et al., eq. 5-6; a 3D element's Voigt springs
 * on its turn's rotation vector) and their stiffness, of the PD motor (the RFEM
 * tutorial "Modeling deformable objects", 2022) or the computed-torque
 * motor (the PD plus the chain's inverse dynamics), plus the torques of the
 * step's contact forces (rfem_state.h, contact_torque); the Maxwell element's
 * exact update over a step; the joint terms of an implicit step's iteration
 * matrix; the prescribed motor joint's motion and the full link vectors from
 * the free ones; the springs' elastic energy. */
#include <math.h>
#include <stdbool.h>
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

/* ---- the turn of a 3D element ------------------------------------------
 * A 3D element turns from the previous body by E = Rx(a) Ry(b) Rz(c), its
 * joints' angles x = (a, b, c) about d1, d2, d3 (rfem_build.c). The
 * continuous rod's elastic energy over the element is (1/2) theta^T K
 * theta, theta = l u the rotation vector of E (u the curvature and twist
 * at the element's joint, K = diag(EI, EI, GJ) / l). By the
 * Baker-Campbell-Hausdorff series
 *   theta = (a + b c / 2, b - a c / 2, c + a b / 2) + O(|x|^3);
 * springs on the angles x themselves miss the quadratic terms: a twist c
 * times an in-plane bend a then bends out of the plane by a c / 2 per
 * joint, a force error of GJ u_1 u_3 l on every joint, which sums to a
 * first-order error in the elements (the out-of-plane swing of a body
 * offset across the bending plane). The springs act on theta(x) -
 * theta(x0), x0 the rest angles, so their error is O(|x|^3) per joint and
 * the chain's second order in its elements holds in 3D. Where two of the
 * angles are zero (a motion in a plane) theta = x exactly. */

/* theta(x) of the expansion above and its Jacobian d theta / dx (row
 * major). */
static void element_turn(const double *x, double th[3], double J[9]) {
  th[0] = x[0] + 0.5 * x[1] * x[2];
  th[1] = x[1] - 0.5 * x[0] * x[2];
  th[2] = x[2] + 0.5 * x[0] * x[1];
  if (!J)
    return;
  J[0] = 1.0, J[1] = 0.5 * x[2], J[2] = 0.5 * x[1];
  J[3] = -0.5 * x[2], J[4] = 1.0, J[5] = -0.5 * x[0];
  J[6] = 0.5 * x[1], J[7] = 0.5 * x[0], J[8] = 1.0;
}

/* True when link i is the first of a 3D element's three joints (two
 * bending, then torsion). */
static bool element_start(const rod_rfem *r, int i) {
  return r->role[i] == RFEM_BEND && i + 2 < r->nlinks &&
         r->role[i + 2] == RFEM_TORSION;
}

/* The element's turn from its rest, theta(x) - theta(x0) (rad). */
static void element_strain(const rod_rfem *r, int i, const double *q,
                           double e[3], double J[9]) {
  double th0[3];
  element_turn(q + i, e, J);
  element_turn(r->q0 + i, th0, NULL);
  for (int m = 0; m < 3; m++)
    e[m] -= th0[m];
}

/* The Voigt element's torques on the element's joints from link i:
 * -J^T (K e + C J v), the gradient of the energy (1/2) e^T K e and of the
 * dissipation (1/2) (J v)^T C (J v). */
static void element_torques(const rod_rfem *r, int i, const double *q,
                            const double *v, double *tau) {
  double e[3], J[9], w[3];
  element_strain(r, i, q, e, J);
  for (int m = 0; m < 3; m++)
    w[m] = J[3 * m] * v[i] + J[3 * m + 1] * v[i + 1] + J[3 * m + 2] * v[i + 2];
  for (int a = 0; a < 3; a++) {
    double f = 0.0;
    for (int m = 0; m < 3; m++)
      f += J[3 * m + a] * (r->k[i + m] * e[m] + r->c[i + m] * w[m]);
    tau[i + a] = -f;
  }
}

void rfem_spring_stiffness(const rod_rfem *r, double *K, int ld) {
  for (int i = 0; i < r->nlinks; i++) {
    if (r->role[i] == RFEM_MOTOR || r->maxwell || !element_start(r, i)) {
      K[i + (size_t)i * ld] += r->k[i];
      continue;
    }
    /* J^T K J + sum_m k_m e_m d2 theta_m / dx2: the second derivatives
     * are the constant 1/2, -1/2, 1/2 at (b, c), (a, c), (a, b) */
    double e[3], J[9], H[9];
    element_strain(r, i, r->q, e, J);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double h = 0.0;
        for (int m = 0; m < 3; m++)
          h += J[3 * m + a] * r->k[i + m] * J[3 * m + b];
        H[3 * a + b] = h;
      }
    H[5] += 0.5 * r->k[i] * e[0];
    H[7] += 0.5 * r->k[i] * e[0];
    H[2] -= 0.5 * r->k[i + 1] * e[1];
    H[6] -= 0.5 * r->k[i + 1] * e[1];
    H[1] += 0.5 * r->k[i + 2] * e[2];
    H[3] += 0.5 * r->k[i + 2] * e[2];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        K[(i + a) + (size_t)(i + b) * ld] += H[3 * a + b];
    i += 2;
  }
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
    if (!r->maxwell && element_start(r, i)) { /* a 3D element's turn */
      element_torques(r, i, q, v, tau);
      i += 2;
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
    if (!r->maxwell && element_start(r, i)) {
      double e[3];
      element_strain(r, i, r->q, e, NULL);
      for (int m = 0; m < 3; m++)
        U += 0.5 * r->k[i + m] * e[m] * e[m];
      i += 2;
      continue;
    }
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
