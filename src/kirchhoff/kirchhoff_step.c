/* Per-step data of the Kirchhoff backend: the constants of the ODE for one
 * attempt's BDF coefficients, the history terms at every evaluation point,
 * and the loads at the step's time (the static state, docs/scenario.md). */
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
  const rod_model *m = &k->model;
  k->general = !rod_model_straight(m) || m->drag_model != ROD_DRAG_PAPER ||
               m->rho_inertia[0] > 0 || m->rho_inertia[2] > 0;
}

/* The constants of the ODE for y_t = c0 y + H. */
static void set_constants(rod_kirchhoff *k, double c0) {
  const rod_model *m = &k->model;
  const double fac = 1.0 + c0 * m->retardation; /* K + c0 B = K fac */
  const double e3[3] = {0, 0, 1};
  rod_rhs_const *rc = &k->rc;
  rc->tau_fac = m->retardation / fac;
  rc->c0 = c0;
  kr_set_tangent_stride(k);
  rc->rho_area = m->rho_area;
  rc->cosserat = m->kind == ROD_MODEL_COSSERAT;
  rc->drag_normal = m->drag_model == ROD_DRAG_NORMAL;
  rc->rotary = m->rho_inertia[0] > 0 || m->rho_inertia[2] > 0;
  for (int i = 0; i < 3; i++) {
    rc->drag[i] = m->drag[i];
    rc->rho_inertia[i] = m->rho_inertia[i];
    rc->ki[i] = 1.0 / (m->K[i] * fac);
    rc->kse[i] = 1.0 / (m->Kse[i] * fac);
    rc->bn[i] = -m->rho_area * m->gravity[i];
    rc->K[i] = m->K[i];
    rc->Kse[i] = m->Kse[i];
    rc->av0[i] = e3[i] / fac;
    rc->gravity[i] = m->gravity[i];
  }
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
  rod_tip_loads(sc, &k->drive, static_state, k->tip_force, k->tip_moment);
  if (k->tip_body) /* its weight at its centre: kr_tip_body_loads */
    v3_scale(k->body_weight, k->body_mass, k->model.gravity);
  for (int p = 0; p < k->npoints; p++) {
    v3_set(k->point_force[p], 0, 0, 0);
    v3_set(k->point_moment[p], 0, 0, 0);
  }
  if (sc->impulse.enabled) {
    double F = rod_impulse_force(sc, t);
    if (k->impulse_point >= 0)
      v3_axpy(k->point_force[k->impulse_point], F, k->impulse_dir);
    else if (k->impulse_point == -2)
      v3_axpy(k->tip_force, F, k->impulse_dir);
    /* at s = 0 the clamp takes the force: no effect on the rod */
  }
  for (int i = 0; i < sc->loads.count; i++) {
    double F[3], M[3];
    rod_load_values(sc, k->inputs, &k->drive, i, t, F, M);
    const int p = k->load_point[i];
    v3_add(p >= 0 ? k->point_force[p] : k->tip_force,
           p >= 0 ? k->point_force[p] : k->tip_force, F);
    v3_add(p >= 0 ? k->point_moment[p] : k->tip_moment,
           p >= 0 ? k->point_moment[p] : k->tip_moment, M);
  }
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
  const rod_rhs_const *c = &k->rc;
  if (c->bn[1] != 0 || c->gravity[1] != 0 || !k->ustar_planar)
    return false;
  if (k->tip_force[1] != 0 || k->tip_moment[0] != 0 || k->tip_moment[2] != 0 ||
      k->body_offset[1] != 0)
    return false;
  for (int p = 0; p < k->npoints; p++)
    if (k->point_force[p][1] != 0 || k->point_moment[p][0] != 0 ||
        k->point_moment[p][2] != 0)
      return false;
  if (k->base_h[1] != 0 || k->base_h[3] != 0 || k->base_q[1] != 0 ||
      k->base_w[0] != 0 || k->base_w[2] != 0)
    return false;
  if (k->contact_jump) /* the contact forces at the nodes */
    for (int i = 0; i < k->nodes; i++)
      if (k->contact_jump[3 * i + 1] != 0)
        return false;
  return k->history_planar;
}
