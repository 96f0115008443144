/* Per-step data of the Kirchhoff backend: the constants of the ODE for one
 * attempt's BDF coefficients, the history terms at every evaluation point,
 * the loads (kirchhoff_loads.c) and the clamp's motion at the step's time
 * (the static state, docs/scenario.md), and the planar symmetry of it
 * all. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/loads.h"
#include "core/model.h"
#include "kirchhoff/kirchhoff_rod.h"

/* The evaluation points hold the history terms in the layout of the
 * histories' records (Q, U, V), so a stage history writes them in place. */
_Static_assert(sizeof(rod_hist_point) == KR_HW * sizeof(double) &&
                   offsetof(rod_hist_point, Q) == KR_HQ * sizeof(double) &&
                   offsetof(rod_hist_point, U) == KR_HU * sizeof(double) &&
                   offsetof(rod_hist_point, V) == KR_HV * sizeof(double) &&
                   offsetof(rod_hist_point, W) == KR_HOM * sizeof(double),
               "rod_hist_point is a history record");

/* History data of one evaluation point from its history term H. */
static void fill_point(rod_hist_point *hp, const double *H) {
  memcpy(hp, H, sizeof *hp);
}

/* False when some point's history leaves the x-z plane (an odd component
 * of Q, U, V, and with rotary inertia W, is not zero;
 * kr_planar_symmetric). */
static bool history_in_plane(const rod_hist_point *hp, size_t points,
                             bool rotary) {
  /* a sum of magnitudes is zero only if every term is (NaN: not planar);
   * two sums, so that the additions do not wait on each other */
  double s0 = 0, s1 = 0;
  for (size_t p = 0; p < points; p++) {
    s0 += fabs(hp[p].Q[1]) + fabs(hp[p].U[0]);
    s1 += fabs(hp[p].U[2]) + fabs(hp[p].V[1]);
  }
  if (rotary)
    for (size_t p = 0; p < points; p++)
      s0 += fabs(hp[p].W[0]) + fabs(hp[p].W[2]);
  return s0 + s1 == 0;
}

void kr_set_precurvature(rod_kirchhoff *k) {
  const int S = k->stages;
  double us[3];
  bool planar = true;
  for (int j = 0; j < k->intervals; j++)
    for (int st = 0; st < S; st++) {
      double *u = k->pt[(size_t)S * j + st].ustar;
      rod_model_precurvature(&k->model, k->s[j] + k->integ->c[st] * k->len[j],
                             u, us);
      planar = planar && u[0] == 0 && u[2] == 0;
    }
  k->ustar_planar = planar;
  kr_tendon_route(k);
  const rod_model *m = &k->model;
  k->general = !rod_model_straight(m) || m->drag_model != ROD_DRAG_PAPER ||
               m->rho_inertia[0] > 0 || m->rho_inertia[2] > 0 ||
               k->sc.tendons.count > 0;
}

/* The constants of the ODE for y_t = c0 y + H. */
static void set_constants(rod_kirchhoff *k, double c0) {
  const rod_model *m = &k->model;
  const double fac = 1.0 + c0 * m->retardation; /* K + c0 B = K fac */
  const double e3[3] = {0, 0, 1};
  rod_rhs_const *rc = &k->rc;
  const double fac_se = 1.0 + c0 * m->retardation_se; /* Kse + c0 Bse */
  rc->tau_fac = m->retardation / fac;
  rc->tau_fac_se = m->retardation_se / fac_se;
  rc->c0 = c0;
  kr_set_tangent_stride(k);
  rc->rho_area = m->rho_area;
  rc->cosserat = m->kind == ROD_MODEL_COSSERAT;
  rc->rotary = m->rho_inertia[0] > 0 || m->rho_inertia[2] > 0;
  for (int i = 0; i < 3; i++) {
    rc->rho_inertia[i] = m->rho_inertia[i];
    rc->ki[i] = 1.0 / (m->K[i] * fac);
    rc->kse[i] = 1.0 / (m->Kse[i] * fac_se);
    rc->K[i] = m->K[i];
    rc->Kse[i] = m->Kse[i];
    rc->av0[i] = e3[i] / fac_se;
  }
  kr_loads_distributed(m, &rc->loads);
  kr_tendon_constants(k, rc);
}

void kr_set_stage(rod_kirchhoff *k, double c0) {
  const rod_bdf_coeffs c = {c0, 0, 0, 0};
  k->coeffs = c;
  k->dynamic = true;
  set_constants(k, c0);
  k->history_planar = history_in_plane(
      k->hp, (size_t)k->stages * (size_t)k->intervals, k->rc.rotary);
}

void kr_set_coefficients(rod_kirchhoff *k, const rod_bdf_coeffs *c,
                         bool dynamic) {
  k->coeffs = *c;
  k->dynamic = dynamic;
  kr_tip_body_terms(k);
  set_constants(k, dynamic ? c->c0 : 0.0);
  kr_friction_terms(k);
  const size_t I = (size_t)k->intervals, P = (size_t)k->stages * I;
  if (k->history_kind == ROD_HISTORY_STAGE) {
    if (dynamic)
      rod_history_point_terms(k->stage_hist, c, (double *)k->hp);
    else
      memset(k->hp, 0, P * sizeof *k->hp);
    k->history_planar = history_in_plane(k->hp, P, k->rc.rotary);
    return;
  }
  if (dynamic) {
    rod_history_terms(k->hist, c, k->len,
                      k->history_kind == ROD_HISTORY_HERMITE, k->H_ends,
                      k->Hs_ends, k->H_mid);
  } else {
    memset(k->H_ends, 0, 2 * I * KR_HW * sizeof(double));
    memset(k->Hs_ends, 0, 2 * I * KR_HW * sizeof(double));
    memset(k->H_mid, 0, I * KR_HW * sizeof(double));
  }
  /* Euler's stage is the start; RK4's: the start, the middle twice, the
   * end */
  for (size_t j = 0; j < I; j++) {
    const double *start = k->H_ends + 2 * j * KR_HW;
    rod_hist_point *hp = &k->hp[(size_t)k->stages * j];
    fill_point(&hp[0], start);
    if (k->stages == 4) {
      fill_point(&hp[1], k->H_mid + j * KR_HW);
      hp[2] = hp[1];
      fill_point(&hp[3], start + KR_HW);
    }
  }
  k->history_planar = history_in_plane(k->hp, P, k->rc.rotary);
}

void kr_set_loads(rod_kirchhoff *k, double t, bool static_state) {
  const rod_scenario *sc = &k->sc;
  kr_loads_set(k, t, static_state);
  kr_tendon_set(k, t);
  rod_base_state(sc, &k->model, &k->drive, k->inputs, t, k->base_p, k->base_h,
                 k->base_q, k->base_w);
  if (static_state) { /* at rest */
    v3_set(k->base_q, 0, 0, 0);
    v3_set(k->base_w, 0, 0, 0);
  }
}

/* True when the step's equations are symmetric under the reflection y ->
 * -y, so that a rod in the x-z plane stays there exactly: loads, gravity,
 * precurvature and the clamp's motion in the plane, the clamp turning about
 * y, and a planar history (the odd components of Q, U, V zero at every
 * evaluation point, noted by kr_set_coefficients). Then rod_rhs_eval_planar
 * applies and tangents of the out-of-plane directions stay decoupled
 * (rod_shooting_set_active). */
bool kr_planar_symmetric(const rod_kirchhoff *k) {
  if (!k->ustar_planar || !kr_loads_planar(k))
    return false;
  if (k->base_h[1] != 0 || k->base_h[3] != 0 || k->base_q[1] != 0 ||
      k->base_w[0] != 0 || k->base_w[2] != 0)
    return false;
  return k->history_planar;
}
