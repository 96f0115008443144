/* The tendons' works on the Kirchhoff/Cosserat rod since t = 0
 * (rod_sample.tendon_work and tendon_friction_work; docs/tendons.md,
 * "Energy"), summed over the accepted steps by the trapezoidal rule.
 *
 * A tendon of tension tau along its routing of length L (rod_tendon.h)
 * loads the rod with tau t_s per metre and -tau t at its ends: a force
 * system whose power is -tau dL/dt, so the tensions' work over a step is
 *   W_m += -sum_i (tau_i(n) + tau_i(n+1)) / 2 (L_i(n+1) - L_i(n))   (J).
 * The friction loads (rod_tendon_friction.h) are the distributed force
 * phi R t and moment -phi R (r x t) (world, per metre; phi = beta tau
 * |u_xy| s_t), whose power per metre on the rod moving at R q and turning
 * at R w (q, w the material frame's velocity and angular velocity) is
 *   phi t . (q - w x r)    (W/m: the force at the mirror point -r),
 * integrated along the rod with the sweep's own weights (as the tendons'
 * lengths, kirchhoff_tendon.c) at the records of the converged sweep, and
 * over the step by trapezoids:
 *   W_f += dt (P(n) + P(n+1)) / 2. */
#include <math.h>

#include "kirchhoff/kirchhoff_rod.h"

/* W: the friction loads' power on the rod at the last converged sweep. */
static double friction_power(const rod_kirchhoff *k) {
  static const double rk4[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
  const int n = k->sc.tendons.count, S = k->stages;
  const double *beta = k->rc.beta;
  double P = 0.0;
  for (int j = 0; j < k->intervals; j++)
    for (int st = 0; st < S; st++) {
      const size_t p = (size_t)S * j + st;
      const double *rec = k->stage_val + p * KR_HW;
      const double w = k->len[j] * (S == 4 ? rk4[st] : 1.0);
      double u[3];
      v3_add(u, rec + KR_HU, k->pt[p].ustar);
      const double a = sqrt(u[0] * u[0] + u[1] * u[1]);
      for (int i = 0; i < n; i++) {
        const double *rt = k->pt[p].route + ROD_ROUTE * i;
        if (!(beta[i] > 0) || !(k->tension[i] > 0) || rt[6] == 0)
          continue;
        const double r[3] = {rt[0], rt[1], 0.0};
        double t[3], wxr[3], vm[3];
        rod_tendon_tangent(rt, u, rec + KR_HV, t);
        v3_cross(wxr, rec + KR_HOM, r);
        v3_sub(vm, rec + KR_HQ, wxr);
        const double phi =
            beta[i] * k->tension[i] * a * k->slide_rate[p * (size_t)n + i];
        P += w * phi * v3_dot(t, vm);
      }
    }
  return P;
}

static void keep(rod_kirchhoff *k) {
  for (int i = 0; i < k->sc.tendons.count; i++) {
    k->work_tension[i] = k->tension[i];
    k->work_length[i] = k->tendon_length[i];
  }
}

void kr_tendon_work_start(rod_kirchhoff *k) {
  k->tendon_work = k->friction_work = k->friction_power = 0.0;
  keep(k);
}

void kr_tendon_work_step(rod_kirchhoff *k, double dt) {
  const int n = k->sc.tendons.count;
  if (n == 0)
    return;
  for (int i = 0; i < n; i++)
    k->tendon_work -= 0.5 * (k->work_tension[i] + k->tension[i]) *
                      (k->tendon_length[i] - k->work_length[i]);
  keep(k);
  if (!k->slide_l)
    return;
  const double P = friction_power(k);
  k->friction_work += 0.5 * dt * (k->friction_power + P);
  k->friction_power = P;
}
