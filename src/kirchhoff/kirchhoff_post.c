/* After a step converged: the quadratures and energies and, for the node
 * histories, curvature, strain and velocity with their arclength derivatives at
 * both ends of every interval (the history records of the next steps). Stage
 * history records itself during the sweep. */
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"

/* Records at one interval end: y holds the 16 states, point is the
 * evaluation point there (its history terms hp and precurvature), Hs the
 * history terms' s-derivatives there. */
static void end_record(const rod_kirchhoff *k, const double *y, size_t point,
                       const double *Hs, double *val, double *der) {
  const rod_rhs_const *rc = &k->rc;
  const rod_hist_point *hp = &k->hp[point];
  const rod_rhs_point *pt = &k->pt[point];
  double f[ROD_NY];
  rod_rhs_work wk;
  if (k->planar)
    rod_rhs_eval_planar(rc, hp, pt, y, f, &wk, true);
  else
    rod_rhs_eval(rc, hp, pt, y, f, &wk, true);
  const double tf =
      k->model.retardation / (1.0 + rc->c0 * k->model.retardation);
  /* (u - u*)_s = ki .* (R^T m_s - u x R^T m) - tau U_s / (1 + c0 tau) */
  double Rtms[3], uxRtm[3];
  m3_mul_tv(Rtms, wk.R, f + ROD_Y_M);
  v3_cross(uxRtm, wk.u, wk.Rtm);
  double vs[3] = {0, 0, 0};
  if (rc->cosserat) {
    double Rtns[3], uxRtn[3];
    m3_mul_tv(Rtns, wk.R, f + ROD_Y_N);
    v3_cross(uxRtn, wk.u, wk.Rtn);
    for (int i = 0; i < 3; i++)
      vs[i] =
          rc->kse[i] * (Rtns[i] - uxRtn[i]) - rc->tau_fac_se * Hs[KR_HV + i];
  }
  for (int i = 0; i < 3; i++) {
    val[KR_HQ + i] = y[ROD_Y_Q + i];
    val[KR_HU + i] = wk.u[i] - pt->ustar[i];
    val[KR_HV + i] = wk.v[i];
    val[KR_HOM + i] = y[ROD_Y_W + i];
    der[KR_HQ + i] = f[ROD_Y_Q + i];
    der[KR_HU + i] = rc->ki[i] * (Rtms[i] - uxRtm[i]) - tf * Hs[KR_HU + i];
    der[KR_HV + i] = vs[i];
    der[KR_HOM + i] = f[ROD_Y_W + i];
  }
  if (rc->ntendons > 0) /* the tendons' share of the strains' rates */
    kr_tendon_rates(k, point, &wk, der + KR_HU, der + KR_HV);
}

/* The quadratures along the converged sweep (positions, kinetic and
 * elastic energy, int s g.p_s ds) into the node records, from the stage
 * records: the same integrand and the same Euler/RK4 weights as a sweep
 * carrying them, so the same numbers, but integrated once per step instead
 * of in every sweep. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
quadratures(rod_kirchhoff *k, const bool rotary) {
  const int S = k->stages;
  double quad[ROD_NQ] = {0};
  v3_copy(quad + ROD_Q_P, k->base_p);
  memcpy(k->node_y + ROD_NY, quad, sizeof quad);
  for (int j = 0; j < k->intervals; j++) {
    const double h = k->len[j];
    double f[KR_STAGES][ROD_NQ];
    for (int st = 0; st < S; st++) {
      const size_t point = (size_t)S * j + st;
      const double *rec = k->stage_val + point * KR_HW;
      double s = k->s[j] + k->integ->c[st] * h;
      rod_rhs_quadratures_at(&k->rc, rec + KR_HQ, rec + KR_HOM, rec + KR_HU,
                             rec + KR_HV, k->stage_ps + point * 3, s, f[st],
                             rotary);
    }
    if (S == 4) { /* rod_spatial_rk4's update */
      const double h6 = h / 6.0;
      for (int i = 0; i < ROD_NQ; i++)
        quad[i] += h6 * (f[0][i] + 2.0 * (f[1][i] + f[2][i]) + f[3][i]);
    } else {
      for (int i = 0; i < ROD_NQ; i++)
        quad[i] += h * f[0][i];
    }
    memcpy(k->node_y + (size_t)(j + 1) * KR_NODE + ROD_NY, quad, sizeof quad);
  }
}

void kr_quadratures(rod_kirchhoff *k) {
  if (k->rc.rotary)
    quadratures(k, true);
  else
    quadratures(k, false);
  if (k->rc.ntendons > 0)
    kr_tendon_lengths(k);
}

void kr_energies(const rod_kirchhoff *k, kr_energy *e) {
  /* the quadratures at the tip; gravity by parts,
   * int p ds = L p(L) - int s p_s ds */
  const double *tip = k->node_y + (size_t)(k->nodes - 1) * KR_NODE + ROD_NY;
  const double L = k->s[k->nodes - 1];
  e->kinetic = tip[ROD_Q_KIN];
  e->elastic = tip[ROD_Q_EL];
  e->gravity = -k->model.rho_area *
               (L * v3_dot(k->model.gravity, tip + ROD_Q_P) - tip[ROD_Q_GS]);
  if (k->tip_body) {
    double kin, grav;
    kr_tip_body_energy(k, tip - ROD_NY, tip + ROD_Q_P, &kin, &grav);
    e->kinetic += kin;
    e->gravity += grav;
  }
}

void kr_postprocess(rod_kirchhoff *k) {
  if (!k->quadratures_done)
    kr_quadratures(k);
  k->quadratures_done = false;
  kr_energies(k, &k->energy);
  if (k->history_kind == ROD_HISTORY_STAGE)
    return;
  for (int j = 0; j < k->intervals; j++) {
    const double *ya = k->node_y + (size_t)j * KR_NODE;
    /* the left limit at an interior point force (one at the tip acts as
     * a tip force: no jump along the rod) */
    const int p = k->loads.node_point[j + 1];
    const double *yb = p >= 0 ? k->point_left + (size_t)p * ROD_NY
                              : k->node_y + (size_t)(j + 1) * KR_NODE;
    double left[ROD_NY];
    if (p < 0 && k->contact) { /* and at a contact force, n + F */
      memcpy(left, yb, sizeof left);
      v3_axpy(left + ROD_Y_N, 1.0, k->loads.contact + 3 * (size_t)(j + 1));
      yb = left;
    }
    size_t ea = (size_t)(2 * j), eb = ea + 1;
    end_record(k, ya, (size_t)k->stages * j, k->Hs_ends + ea * KR_HW,
               k->rec_val + ea * KR_HW, k->rec_der + ea * KR_HW);
    /* the end of the interval is RK4's last stage; Euler's node history
     * only needs the start records */
    if (k->stages == 1)
      continue;
    end_record(k, yb, (size_t)k->stages * j + 3, k->Hs_ends + eb * KR_HW,
               k->rec_val + eb * KR_HW, k->rec_der + eb * KR_HW);
  }
}

/* Accept the post-processed solution of a step into the history. */
void kr_push_history(rod_kirchhoff *k) {
  kr_friction_push(k);
  if (k->history_kind == ROD_HISTORY_STAGE)
    rod_history_push(k->stage_hist, &k->coeffs, k->stage_val, NULL,
                     (const double *)k->hp, NULL);
  else
    rod_history_push(k->hist, &k->coeffs, k->rec_val, k->rec_der, k->H_ends,
                     k->Hs_ends);
}

/* The static solution as a rod at rest. */
void kr_rest_history(rod_kirchhoff *k) {
  kr_friction_rest(k);
  kr_tendon_work_start(k);
  if (k->history_kind == ROD_HISTORY_STAGE)
    rod_history_rest(k->stage_hist, k->stage_val, NULL);
  else
    rod_history_rest(k->hist, k->rec_val, k->rec_der);
}
