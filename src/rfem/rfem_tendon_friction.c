/* The tendons' friction against their guides on the RFEM chain
 * (rfem_tendon.h; docs/tendons.md, "Friction on the chain"): the simple
 * friction model of Till, Aloi & Rucker 2019 that the rod carries
 * (rod_tendon_friction.h) in the chain's terms, a point load at each disk
 * the tendon passes (a guide: every disk between its start and its
 * anchor).
 *
 * The rod's backbone carries per metre the force phi t and the moment
 * -(R r) x phi t, phi = beta tau |u_xy| s_t (N/m), t the tendon's unit
 * tangent, s_t its sliding rate. Integrated over the stretch of rod a
 * guide stands for, |u_xy| ds is the angle the tendon's tangent turns
 * there (t is parallel to d3 for a routing parallel to the backbone, and d3
 * turns at the rate |u_xy|), on the chain the angle theta_k between the
 * chords into and out of guide k. So guide k feels
 *   F_k = beta tau theta_k s_t,k t_k      (N; beta s/m, tau N, theta rad,
 *                                          s_t m/s)
 * along t_k = (c_in + c_out) / |c_in + c_out| (c the unit chords), with
 * the moment -(R r_k) x F_k about the backbone's axis (r_k the disk's
 * offset in the cross-section): F_k applied at the disk's mirror point -r_k
 * in the cross-section, the program's sign (the opposite of F_k's own
 * moment at the disk). The sliding rate is the rate of the tendon's length
 * from its start to the guide, the polygon's, from the chain's velocities:
 *   s_t,k = sum_{j < k} c_j . (v_(j+1) - v_j)      (m/s)
 * (v the disks' world velocities), exact at the chain's state: no history.
 * Statics has no sliding and no friction. */
#include <math.h>

#include "core/tendon_route.h"
#include "core/v3.h"
#include "rfem/rfem_tendon.h"

/* The friction at disk k of a tendon of tension T and friction beta whose
 * path turns there from the unit direction cin to cout at the sliding rate
 * s_t: beta T theta s_t along the bisector, at the disk's mirror point;
 * returns the model's dissipation beta T theta s_t^2 (W) and adds the
 * load's power on the chain, F . v at that point (W), to *work. */
static double guide(rod_rfem *r, const rfem_disk *d, double beta, double T,
                    const double cin[3], const double cout[3], double rate,
                    double *fext, double *work) {
  double x[3], tk[3];
  v3_cross(x, cin, cout);
  const double theta = atan2(v3_norm(x), v3_dot(cin, cout));
  v3_add(tk, cin, cout);
  const double nt = v3_norm(tk);
  if (!(theta > 0) || !(nt > 0))
    return 0.0;
  double F[3];
  v3_scale(F, beta * T * theta * rate / nt, tk);
  const double mirror[3] = {-d->x[0], -d->x[1], d->x[2]};
  rod_chain_add_point_force(r->chain, d->link, mirror, F, fext);
  double v[3];
  rod_chain_point(r->chain, d->link, mirror, NULL, v);
  *work += v3_dot(F, v);
  return beta * T * theta * rate * rate;
}

void rfem_tendon_friction(rod_rfem *r, double *fext) {
  rfem_tendons *td = r->tendons;
  for (int i = 0; i < td->count; i++) {
    const double beta = r->sc.tendons.item[i].friction, T = td->tension[i];
    td->friction_power[i] = td->friction_load_power[i] = 0.0;
    if (!(beta > 0) || !(T > 0))
      continue;
    const int a = td->first[i], b = td->first[i + 1] - 1;
    double vprev[3], vk[3], cin[3] = {0, 0, 0}, rate = 0.0;
    rod_chain_point(r->chain, td->disk[a].link, td->disk[a].x, NULL, vprev);
    for (int k = a; k < b; k++) {
      /* the chord from disk k to k + 1 and its rate of length */
      double c[3], dv[3];
      v3_sub(c, td->world + 3 * (k + 1), td->world + 3 * k);
      const double len = v3_norm(c);
      rod_chain_point(r->chain, td->disk[k + 1].link, td->disk[k + 1].x, NULL,
                      vk);
      if (len > 0)
        v3_scale(c, 1.0 / len, c);
      if (k > a && len > 0 && v3_norm(cin) > 0) /* guide k */
        td->friction_power[i] += guide(r, &td->disk[k], beta, T, cin, c, rate,
                                       fext, &td->friction_load_power[i]);
      v3_sub(dv, vk, vprev);
      rate += v3_dot(c, dv);
      v3_copy(vprev, vk);
      v3_copy(cin, c);
    }
    /* the anchor: the last chord turns into the routing's tangent there,
     * (x', y', 1) in the anchor's body (the start's turn slides at the
     * rate 0) */
    double rt[6], tb[3], R[9], tw[3];
    rod_tendon_route(&r->sc, r->inputs, i,
                     rod_tendon_end(&r->sc, &r->sc.tendons.item[i]), rt);
    v3_set(tb, rt[2], rt[3], 1.0);
    v3_scale(tb, 1.0 / v3_norm(tb), tb);
    rod_chain_pose(r->chain, td->disk[b].link, R, NULL);
    m3_mul_v(tw, R, tb);
    if (v3_norm(cin) > 0)
      td->friction_power[i] += guide(r, &td->disk[b], beta, T, cin, tw, rate,
                                     fext, &td->friction_load_power[i]);
  }
}
