/* The RFEM chain's clamp moved along base.motion_file: the clamp's pose,
 * velocity and acceleration at time t become the chain's moving base
 * (rod_chain_set_base), so the articulated-body pass takes the clamp's
 * spatial acceleration as the root's prescribed motion (Featherstone
 * 2008, sec. 5.3) and the joint angles stay relative to the clamp. */
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem.h"

/* The base frame B of link 0 for a clamp at pc (m) turned by Rt (the
 * clamp's rotation R(t) = Rt R(0), row-major), with the clamp's velocity
 * vc (m/s) and acceleration ac (m/s^2), Rt's angular velocity w (1/s) and
 * acceleration wt (1/s^2), all world frame. Link 0's joint sits at
 * base.position of B, so B turns by Rt about the world origin and its
 * origin is pB = pc - Rt bp (bp = base.position): pB' = vc - w x rho and
 * pB'' = ac - wt x rho - w x (w x rho), rho = Rt bp. B's spatial velocity
 * and acceleration in its own coordinates are (Rt^T w, Rt^T pB') and
 * (Rt^T wt, Rt^T (pB'' - w x pB')) (Featherstone 2008, sec. 2.11). */
static void set_clamp(rod_rfem *r, const double pc[3], const double vc[3],
                      const double ac[3], const double Rt[9], const double w[3],
                      const double wt[3]) {
  double rho[3], pB[3], vB[3], aB[3], t1[3], t2[3], sv[6], sa[6];
  m3_mul_v(rho, Rt, r->model.base_position);
  v3_sub(pB, pc, rho);
  v3_cross(t1, w, rho);
  v3_sub(vB, vc, t1);
  v3_cross(t2, w, t1); /* w x (w x rho) */
  v3_cross(t1, wt, rho);
  v3_sub(aB, ac, t1);
  v3_sub(aB, aB, t2);
  v3_cross(t1, w, vB);
  v3_sub(aB, aB, t1);
  m3_mul_tv(sv, Rt, w);
  m3_mul_tv(sv + 3, Rt, vB);
  m3_mul_tv(sa, Rt, wt);
  m3_mul_tv(sa + 3, Rt, aB);
  rod_chain_set_base(r->chain, Rt, pB, sv, sa);
}

void rfem_place_base(rod_rfem *r, double t, bool at_rest) {
  if (!(r->inputs && r->inputs->base))
    return;
  double x[3], v[3], a[3], rv[3], r_t[3], r_tt[3], w[3], wt[3];
  rod_base_table(r->inputs, t, x, v, a, rv, r_t, r_tt);
  if (at_rest) {
    v3_set(v, 0, 0, 0);
    v3_set(a, 0, 0, 0);
    v3_set(r_t, 0, 0, 0);
    v3_set(r_tt, 0, 0, 0);
  }
  rod_rotation_rate(rv, r_t, w);
  rod_rotation_accel(rv, r_t, r_tt, wt);
  double pc[3], h[4], Rt[9], axis[3] = {1, 0, 0};
  const double angle = v3_norm(rv);
  if (angle > 0)
    v3_scale(axis, 1.0 / angle, rv);
  quat_axis_angle(h, axis, angle);
  quat_to_R(Rt, h);
  v3_add(pc, r->model.base_position, x);
  set_clamp(r, pc, v, a, Rt, w, wt);
}
