/* The tendons on the Kirchhoff/Cosserat rod (rod_tendon.h): their routing
 * at the grid's evaluation points, their tensions in the step's constants,
 * and the backbone's own force and moment from the section's resultants
 * for the output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"

_Static_assert((int)ROD_TENDONS_MAX == (int)ROD_MAX_TENDONS,
               "rod_tendon.h holds as many tendons as the scenario");

int kr_tendon_alloc(rod_kirchhoff *k) {
  const int n = k->sc.tendons.count;
  k->route = NULL;
  if (n == 0)
    return ROD_OK;
  const size_t P = (size_t)k->stages * (size_t)k->intervals;
  k->route = calloc(P * (size_t)n * ROD_ROUTE, sizeof(double));
  return k->route ? ROD_OK : ROD_ENOMEM;
}

/* The routing of tendon t at arclength s (m): r, r', r'' (x, y each). */
static void route_at(const rod_tendon_def *t, double L, double s, double *rt) {
  if (t->helix[0] > 0) { /* r = rho (cos a, sin a), a = 2 pi n s / L + phi */
    const double rho = t->helix[0], w = 2.0 * M_PI * t->helix[1] / L;
    const double a = w * s + t->helix[2], c = cos(a), sn = sin(a);
    rt[0] = rho * c;
    rt[1] = rho * sn;
    rt[2] = -rho * w * sn;
    rt[3] = rho * w * c;
    rt[4] = -rho * w * w * c;
    rt[5] = -rho * w * w * sn;
  } else {
    rt[0] = t->offset[0];
    rt[1] = t->offset[1];
    rt[2] = rt[3] = rt[4] = rt[5] = 0.0;
  }
}

void kr_tendon_route(rod_kirchhoff *k) {
  const int n = k->sc.tendons.count, S = k->stages;
  for (int j = 0; j < k->intervals; j++)
    for (int st = 0; st < S; st++) {
      const size_t p = (size_t)S * j + st;
      rod_rhs_point *pt = &k->pt[p];
      pt->route = NULL;
      if (n == 0)
        continue;
      double *rt = k->route + p * (size_t)n * ROD_ROUTE;
      const double s = k->s[j] + k->integ->c[st] * k->len[j];
      for (int i = 0; i < n; i++)
        route_at(&k->sc.tendons.item[i], k->model.length, s,
                 rt + ROD_ROUTE * i);
      pt->route = rt;
    }
}

void kr_tendon_constants(const rod_kirchhoff *k, rod_rhs_const *rc) {
  rc->ntendons = k->sc.tendons.count;
  for (int i = 0; i < rc->ntendons; i++)
    rc->tension[i] = k->sc.tendons.item[i].tension;
}

void kr_tendon_backbone(const rod_kirchhoff *k, int g, const double *y,
                        double *n, double *m) {
  const int S = k->stages, last = k->nodes - 1;
  const size_t p = g < last ? (size_t)S * g : (size_t)S * (last - 1) + S - 1;
  double f[ROD_NY];
  rod_rhs_work wk;
  rod_rhs_eval(&k->rc, &k->hp[p], &k->pt[p], y, f, &wk, true);
  /* n = n~ - sum tau R t, m = m~ - sum tau R (r x t) */
  v3_copy(n, y + ROD_Y_N);
  v3_copy(m, y + ROD_Y_M);
  for (int i = 0; i < k->rc.ntendons; i++) {
    const double *rt = k->pt[p].route + ROD_ROUTE * i;
    const double r[3] = {rt[0], rt[1], 0.0};
    double t[3], rxt[3], w[3];
    rod_tendon_tangent(rt, wk.u, wk.v, t);
    v3_cross(rxt, r, t);
    m3_mul_v(w, wk.R, t);
    v3_axpy(n, -k->rc.tension[i], w);
    m3_mul_v(w, wk.R, rxt);
    v3_axpy(m, -k->rc.tension[i], w);
  }
}

void kr_tendon_rates(const rod_kirchhoff *k, size_t p, const rod_rhs_work *wk,
                     double *dus, double *vs) {
  /* d/ds of Kd (u - u0) + sum tau r x t = 0 (and Kse_d (v - v0) + sum tau
   * t = 0): (K + A) z_s = D z0_s - sum tau d_s (t; r x t), the last the
   * routing's own change, d_s pb = u x r' + r'' (rod_tendon.h) */
  const rod_rhs_const *rc = &k->rc;
  const int S = k->stages, j = (int)(p / (size_t)S), st = (int)(p % (size_t)S);
  double ustar[3], ustar_s[3];
  rod_model_precurvature(&k->model, k->s[j] + k->integ->c[st] * k->len[j],
                         ustar, ustar_s);
  double z[6];
  for (int i = 0; i < 3; i++) {
    z[i] = rc->cosserat ? vs[i] / rc->kse[i] : 0.0;
    z[3 + i] = (dus[i] + ustar_s[i]) / rc->ki[i];
  }
  for (int i = 0; i < rc->ntendons; i++) {
    const double *rt = k->pt[p].route + ROD_ROUTE * i;
    const double r[3] = {rt[0], rt[1], 0.0}, r1[3] = {rt[2], rt[3], 0.0};
    double t[3], dpb[3], dt[3], a[3], b[3];
    const double np = rod_tendon_tangent(rt, wk->u, wk->v, t);
    v3_cross(dpb, wk->u, r1);
    dpb[0] += rt[4];
    dpb[1] += rt[5];
    v3_axpy(dpb, -v3_dot(t, dpb), t); /* (I - t t^T) d_s pb / |pb| */
    v3_scale(dt, 1.0 / np, dpb);
    v3_cross(a, r1, t);
    v3_cross(b, r, dt);
    const double tau = rc->tension[i];
    for (int c = 0; c < 3; c++) {
      z[c] -= tau * dt[c];
      z[3 + c] -= tau * (a[c] + b[c]);
    }
  }
  double du[3], dv[3];
  rod_tendon_tangent_strains(wk->tL, rc->cosserat, z, z + 3, du, dv);
  for (int i = 0; i < 3; i++) {
    dus[i] = du[i] - ustar_s[i];
    if (rc->cosserat)
      vs[i] = dv[i];
  }
}
