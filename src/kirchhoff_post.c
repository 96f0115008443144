/* After a step converged: curvature, strain, velocity and their arclength
 * derivatives at both ends of every interval (the history records of the
 * next steps) and the energies by the end-corrected trapezoidal rule
 *   int_a^b e ds = h (e_a + e_b) / 2 + h^2 (e'_a - e'_b) / 12 + O(h^5),
 * which keeps the quadrature fourth order like RK4. */
#include <string.h>

#include "kirchhoff.h"

typedef struct {
  double e[3];  /* kinetic, elastic, gravity densities (J/m) */
  double es[3]; /* their s-derivatives (J/m^2) */
} density;

/* Records and energy densities at one interval end. y holds the 16 states
 * and p; hp and Hs are the history terms at that point. */
static void end_record(const rod_kirchhoff *k, const double *y,
                       const rod_hist_point *hp, const double *Hs, double *val,
                       double *der, density *d) {
  const rod_model *m = &k->model;
  const rod_rhs_const *rc = &k->rc;
  double f[ROD_NY];
  rod_rhs_work wk;
  rod_rhs_eval(rc, hp, y, f, &wk);
  const double fac = 1.0 + rc->c0 * m->retardation;
  const double tf = m->retardation / fac;
  const double *q = y + ROD_Y_Q;

  /* u_s = ki .* (R^T m_s - u x R^T m) - tau U_s / (1 + c0 tau) */
  double Rtms[3], uxRtm[3], us[3];
  m3_mul_tv(Rtms, wk.R, f + ROD_Y_M);
  v3_cross(uxRtm, wk.u, wk.Rtm);
  for (int i = 0; i < 3; i++)
    us[i] = rc->ki[i] * (Rtms[i] - uxRtm[i]) - tf * Hs[KR_HU + i];
  double vs[3] = {0, 0, 0};
  if (rc->cosserat) {
    double Rtns[3], uxRtn[3];
    m3_mul_tv(Rtns, wk.R, f + ROD_Y_N);
    v3_cross(uxRtn, wk.u, wk.Rtn);
    for (int i = 0; i < 3; i++)
      vs[i] = rc->kse[i] * (Rtns[i] - uxRtn[i]) - tf * Hs[KR_HV + i];
  }
  for (int i = 0; i < 3; i++) {
    val[KR_HQ + i] = q[i];
    val[KR_HU + i] = wk.u[i];
    val[KR_HV + i] = wk.v[i];
    der[KR_HQ + i] = f[ROD_Y_Q + i];
    der[KR_HU + i] = us[i];
    der[KR_HV + i] = vs[i];
  }
  /* energy densities and their derivatives */
  double ek = 0.5 * m->rho_area * v3_dot(q, q);
  double eks = m->rho_area * v3_dot(q, f + ROD_Y_Q);
  double ee = 0, ees = 0;
  for (int i = 0; i < 3; i++) {
    double du = wk.u[i] - m->precurvature[i];
    ee += 0.5 * m->K[i] * du * du;
    ees += m->K[i] * du * us[i];
    if (rc->cosserat) {
      double dv = wk.v[i] - (i == 2 ? 1.0 : 0.0);
      ee += 0.5 * m->Kse[i] * dv * dv;
      ees += m->Kse[i] * dv * vs[i];
    }
  }
  const double *p = y + ROD_NY;
  double eg = -m->rho_area * v3_dot(m->gravity, p);
  double egs = -m->rho_area * v3_dot(m->gravity, wk.ps);
  d->e[0] = ek;
  d->e[1] = ee;
  d->e[2] = eg;
  d->es[0] = eks;
  d->es[1] = ees;
  d->es[2] = egs;
}

void kr_postprocess(rod_kirchhoff *k) {
  double E[3] = {0, 0, 0};
  for (int j = 0; j < k->intervals; j++) {
    const double *ya = k->node_y + (size_t)j * KR_NODE;
    const double *yb = (j + 1 == k->jump_node)
                           ? k->jump_left
                           : k->node_y + (size_t)(j + 1) * KR_NODE;
    density da, db;
    size_t ea = (size_t)(2 * j), eb = ea + 1;
    end_record(k, ya, &k->hp[3 * j], k->Hs_ends + ea * KR_HW,
               k->rec_val + ea * KR_HW, k->rec_der + ea * KR_HW, &da);
    end_record(k, yb, &k->hp[3 * j + 2], k->Hs_ends + eb * KR_HW,
               k->rec_val + eb * KR_HW, k->rec_der + eb * KR_HW, &db);
    double h = k->len[j];
    for (int i = 0; i < 3; i++)
      E[i] +=
          0.5 * h * (da.e[i] + db.e[i]) + h * h / 12.0 * (da.es[i] - db.es[i]);
  }
  k->energy.kinetic = E[0];
  k->energy.elastic = E[1];
  k->energy.gravity = E[2];
}
