/* The tendons' works on the RFEM chain since t = 0 (rod_sample.tendon_work
 * and tendon_friction_work; docs/tendons.md, "Energy"), summed over the
 * accepted steps by the trapezoidal rule from the tensions, lengths and
 * friction loads' power of rfem_tendon_forces and rfem_tendon_friction at
 * each step's end:
 *   W_m += -sum_i (tau_i(n) + tau_i(n+1)) / 2 (L_i(n+1) - L_i(n))   (J),
 * the work of the tendons' generalized forces -tau dL/dq, and
 *   W_f += dt (P(n) + P(n+1)) / 2,  P = sum_k F_k . v_k     (J; W),
 * the friction loads' power at their points of action (the guides' mirror
 * points, rfem_tendon_friction.c). */
#include "rfem/rfem_tendon.h"

static void keep(rfem_tendons *td) {
  td->work_power = 0.0;
  for (int i = 0; i < td->count; i++) {
    td->work_tension[i] = td->tension[i];
    td->work_length[i] = td->length[i];
    td->work_power += td->friction_load_power[i];
  }
}

void rfem_tendon_work_start(rfem_tendons *td) {
  td->work = td->friction_work = 0.0;
  for (int i = 0; i < td->count; i++)
    td->friction_load_power[i] = 0.0; /* at rest */
  keep(td);
}

void rfem_tendon_work_step(rfem_tendons *td, double dt) {
  const double P0 = td->work_power;
  for (int i = 0; i < td->count; i++)
    td->work -= 0.5 * (td->work_tension[i] + td->tension[i]) *
                (td->length[i] - td->work_length[i]);
  keep(td);
  td->friction_work += 0.5 * dt * (P0 + td->work_power);
}
