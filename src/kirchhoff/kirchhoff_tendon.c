/* The tendons on the Kirchhoff/Cosserat rod (rod_tendon.h): the grid
 * nodes where they start and end, their routing at the grid's evaluation
 * points (offset, helix or a table's spline), their tensions at a time in
 * the step's constants, and the backbone's own force and moment from the
 * section's resultants for the output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/loads.h"
#include "core/tendon_route.h"
#include "kirchhoff/kirchhoff_rod.h"

_Static_assert((int)ROD_TENDONS_MAX == (int)ROD_MAX_TENDONS,
               "rod_tendon.h holds as many tendons as the scenario");

int kr_tendon_alloc(rod_kirchhoff *k) {
  const int n = k->sc.tendons.count;
  for (int i = 0; i < n; i++) /* until the first loads' time */
    k->tension[i] = rod_tendon_tension(&k->sc, k->inputs, &k->drive, i, 0.0);
  k->route = NULL;
  k->tendon_z = NULL;
  k->ndisp = 0;
  for (int i = 0; i < n; i++)
    if (k->sc.tendons.item[i].displacement_file[0]) {
      k->disp[k->ndisp++] = i;
      k->tension[i] = 0.0; /* the unknown's start (kr_tendon_solve) */
    }
  if (n == 0)
    return kr_friction_alloc(k);
  const size_t P = (size_t)k->stages * (size_t)k->intervals;
  k->route = calloc(P * (size_t)n * ROD_ROUTE, sizeof(double));
  k->tendon_z = malloc(P * 6 * sizeof(double));
  return k->route && k->tendon_z ? kr_friction_alloc(k) : ROD_ENOMEM;
}

int kr_tendon_breaks(const rod_scenario *sc, double *pos, int n) {
  const double L = sc->rod.length;
  for (int i = 0; i < sc->tendons.count; i++) {
    const rod_tendon_def *t = &sc->tendons.item[i];
    const double b[2] = {t->start, rod_tendon_end(sc, t)};
    for (int e = 0; e < 2; e++) {
      bool known = !(b[e] > 0 && b[e] < L);
      for (int j = 0; j < n && !known; j++)
        known = pos[j] == b[e];
      if (!known)
        pos[n++] = b[e];
    }
  }
  return n;
}

static void routing_lengths(const rod_kirchhoff *k, const double *rec,
                            double *l);

void kr_tendon_route(rod_kirchhoff *k) {
  const int n = k->sc.tendons.count, S = k->stages;
  for (int j = 0; j < k->intervals; j++) {
    /* a tendon runs on the intervals inside its [start, end], whose ends
     * are grid nodes */
    const double mid = k->s[j] + 0.5 * k->len[j];
    for (int st = 0; st < S; st++) {
      const size_t p = (size_t)S * j + st;
      rod_rhs_point *pt = &k->pt[p];
      pt->route = NULL;
      pt->tz = NULL;
      pt->slide = k->slide_rate ? k->slide_rate + p * (size_t)n : NULL;
      if (n == 0)
        continue;
      double *rt = k->route + p * (size_t)n * ROD_ROUTE;
      const double s = k->s[j] + k->integ->c[st] * k->len[j];
      for (int i = 0; i < n; i++) {
        const rod_tendon_def *t = &k->sc.tendons.item[i];
        const bool runs = mid > t->start && mid < rod_tendon_end(&k->sc, t);
        double *r = rt + ROD_ROUTE * i;
        rod_tendon_route(&k->sc, k->inputs, i, s, r);
        r[6] = runs ? 1.0 : 0.0;
      }
      pt->route = rt;
      pt->tz = k->tendon_z + 6 * p; /* no start yet: Newton from u0, v0 */
      pt->tz[0] = NAN;
    }
  }
  if (n > 0)
    routing_lengths(k, NULL, k->tendon_rest);
  for (int d = 0; d < k->ndisp; d++) { /* the largest offset where it runs */
    k->disp_rmax[d] = 0;
    for (size_t p = 0; p < (size_t)S * k->intervals; p++) {
      const double *r = k->pt[p].route + ROD_ROUTE * k->disp[d];
      if (r[6] != 0)
        k->disp_rmax[d] = fmax(k->disp_rmax[d], hypot(r[0], r[1]));
    }
  }
}

void kr_tendon_set(rod_kirchhoff *k, double t) {
  for (int i = 0; i < k->sc.tendons.count; i++)
    if (!k->sc.tendons.item[i].displacement_file[0])
      k->tension[i] = rod_tendon_tension(&k->sc, k->inputs, &k->drive, i, t);
  for (int d = 0; d < k->ndisp; d++) { /* the unknown's (a slack one: 0) */
    const int i = k->disp[d];
    k->tension[i] = fmax(k->disp_xi[d], 0.0);
    k->disp_dl[d] = rod_tendon_displacement(k->inputs, i, t);
  }
  kr_tendon_constants(k, &k->rc);
}

void kr_tendon_constants(const rod_kirchhoff *k, rod_rhs_const *rc) {
  rc->ntendons = k->sc.tendons.count;
  for (int i = 0; i < rc->ntendons; i++) {
    rc->tension[i] = k->tension[i];
    rc->beta[i] = k->sc.tendons.item[i].friction;
  }
  /* friction in time steps only (no sliding rate in statics) */
  rc->friction = k->slide_l != NULL && rc->c0 > 0;
}

/* l_i = int |pb_i| ds over [start, end] (|p_i,s| = |R pb_i|), pb_i = v +
 * u x r_i + r_i', with the sweep's weights (RK4: h/6 (1, 2, 2, 1); Euler:
 * h), at the stage records (rec) or on the unloaded rod (u = u*, v = e3;
 * rec NULL), into l. */
static void routing_lengths(const rod_kirchhoff *k, const double *rec,
                            double *l) {
  static const double rk4[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
  static const double e3[3] = {0, 0, 1}, zero[3] = {0, 0, 0};
  const int n = k->sc.tendons.count, S = k->stages;
  for (int i = 0; i < n; i++)
    l[i] = 0.0;
  for (int j = 0; j < k->intervals; j++)
    for (int st = 0; st < S; st++) {
      const size_t p = (size_t)S * j + st;
      const double *r = rec ? rec + p * KR_HW : NULL;
      const double w = k->len[j] * (S == 4 ? rk4[st] : 1.0);
      double u[3], t[3];
      v3_add(u, r ? r + KR_HU : zero, k->pt[p].ustar);
      for (int i = 0; i < n; i++) {
        const double *rt = k->pt[p].route + ROD_ROUTE * i;
        if (rt[6] != 0)
          l[i] += w * rod_tendon_tangent(rt, u, r ? r + KR_HV : e3, t);
      }
    }
}

void kr_tendon_lengths(rod_kirchhoff *k) {
  routing_lengths(k, k->stage_val, k->tendon_length);
}

void kr_tendon_sample(const rod_kirchhoff *k, rod_sample *out) {
  out->tendons = k->sc.tendons.count;
  out->tendon_tension = out->tendons > 0 ? k->tension : NULL;
  out->tendon_length = out->tendons > 0 ? k->tendon_length : NULL;
  out->tendon_work = k->tendon_work;
  out->tendon_friction_work = k->friction_work;
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
    if (rt[6] == 0)
      continue;
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
    if (rt[6] == 0 || !(rc->tension[i] > 0))
      continue;
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
