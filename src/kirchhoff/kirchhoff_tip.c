/* The rigid body attached to the rod's end (tip.release = false): its
 * weight and inertia enter the tip condition n(L) = F + F_b, m(L) = M +
 * M_b (Till & Rucker 2017, eq. 10, with the end's loads of a rigid body).
 * In the end's material frame, with q, w the end's velocity and angular
 * velocity (the rod's states there), r the body's centre from the end, m_b
 * its mass and I its inertia about the centre, the centre accelerates by
 *   a = q_t + w x q + w_t x r + w x (w x r)
 * and the body exerts on the rod f = R^T W - m_b a (W = m_b g) and, about
 * the end, r x f - I w_t - w x (I w). q_t and w_t come from BDF-alpha as
 * the rod's own: q_t = c0 q + q_h, q_h from the end's past states. */
#include <string.h>

#include "core/v3.h"
#include "kirchhoff/kirchhoff_rod.h"

void kr_tip_body_init(rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  k->tip_body =
      !sc->tip.release && (sc->tip.mass > 0 || sc->tip.inertia[0] > 0 ||
                           sc->tip.inertia[1] > 0 || sc->tip.inertia[2] > 0);
  k->body_mass = sc->tip.mass;
  v3_copy(k->body_inertia, sc->tip.inertia);
  v3_copy(k->body_offset, sc->tip.offset);
  v3_set(k->body_weight, 0, 0, 0);
  kr_tip_body_rest(k);
}

void kr_tip_body_rest(rod_kirchhoff *k) {
  memset(k->body_past, 0, sizeof k->body_past);
  v3_set(k->body_qh, 0, 0, 0);
  v3_set(k->body_wh, 0, 0, 0);
}

/* y_h = c1 y(i-1) + c2 y(i-2) + d1 y_t(i-1) (integrators/bdf.h). */
static void history_term(const rod_bdf_coeffs *c, double (*past)[3],
                         double *h) {
  for (int i = 0; i < 3; i++)
    h[i] = c->c1 * past[0][i] + c->c2 * past[1][i] + c->d1 * past[2][i];
}

void kr_tip_body_terms(rod_kirchhoff *k) {
  if (!k->tip_body || !k->dynamic) {
    v3_set(k->body_qh, 0, 0, 0);
    v3_set(k->body_wh, 0, 0, 0);
    return;
  }
  history_term(&k->coeffs, k->body_past, k->body_qh);
  history_term(&k->coeffs, k->body_past + 3, k->body_wh);
}

void kr_tip_body_accept(rod_kirchhoff *k, const double *y) {
  if (!k->tip_body)
    return;
  const double c0 = k->coeffs.c0;
  for (int b = 0; b < 2; b++) { /* q, then w */
    double(*past)[3] = k->body_past + 3 * b;
    const double *v = y + (b ? ROD_Y_W : ROD_Y_Q);
    const double *h = b ? k->body_wh : k->body_qh;
    for (int i = 0; i < 3; i++) {
      past[2][i] = c0 * v[i] + h[i]; /* the rate of this step */
      past[1][i] = past[0][i];
      past[0][i] = v[i];
    }
  }
}

/* D[3 j + i] = d(R(h) v)_i / dh_j for the rotation of the quaternion h
 * (not necessarily unit; quat_to_R): R v = v + s (h_0 e x v + e x (e x
 * v)), e = (h_1, h_2, h_3), s = 2 / |h|^2, ds/dh_j = -s^2 h_j. */
static void rotate_dh(const double *h, const double *v, double *D) {
  const double s =
      2.0 / (h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3]);
  const double *e = h + 1;
  double ev[3], eev[3], G[3];
  v3_cross(ev, e, v);
  v3_cross(eev, e, ev);
  for (int i = 0; i < 3; i++)
    G[i] = h[0] * ev[i] + eev[i];
  for (int i = 0; i < 3; i++)
    D[i] = -s * s * h[0] * G[i] + s * ev[i];
  for (int j = 0; j < 3; j++) {
    double E[3] = {0, 0, 0}, Ev[3], Eev[3], eEv[3];
    E[j] = 1.0;
    v3_cross(Ev, E, v);
    v3_cross(Eev, E, ev);
    v3_cross(eEv, e, Ev);
    for (int i = 0; i < 3; i++)
      D[3 * (j + 1) + i] =
          -s * s * e[j] * G[i] + s * (h[0] * Ev[i] + Eev[i] + eEv[i]);
  }
}

/* out[3 j + i] = (R A)_ij for A[3 j + i] (columns j of local vectors). */
static void rotate_columns(const double *R, const double *A, double *out) {
  for (int j = 0; j < 3; j++)
    m3_mul_v(out + 3 * j, R, A + 3 * j);
}

/* [a]x b for each column b of B into out (same layout). */
static void cross_columns(const double *a, const double *B, double *out) {
  for (int j = 0; j < 3; j++)
    v3_cross(out + 3 * j, a, B + 3 * j);
}

void kr_tip_body_loads(const rod_kirchhoff *k, const double *y, double F[3],
                       double M[3], double *dF, double *dM) {
  const double *h = y + ROD_Y_H, *q = y + ROD_Y_Q, *w = y + ROD_Y_W;
  const double *r = k->body_offset, *I = k->body_inertia, *W = k->body_weight;
  const double mb = k->body_mass, c0 = k->rc.c0;
  double R[9], qt[3], wt[3], wxq[3], wtxr[3], wxr[3], wxwxr[3], a[3];
  quat_to_R(R, h);
  for (int i = 0; i < 3; i++) {
    qt[i] = c0 * q[i] + k->body_qh[i];
    wt[i] = c0 * w[i] + k->body_wh[i];
  }
  v3_cross(wxq, w, q);
  v3_cross(wtxr, wt, r);
  v3_cross(wxr, w, r);
  v3_cross(wxwxr, w, wxr);
  for (int i = 0; i < 3; i++)
    a[i] = qt[i] + wxq[i] + wtxr[i] + wxwxr[i];
  /* m' = -m_b r x a - I w_t - w x (I w): the moment without the weight */
  double Iw[3], wxIw[3], rxa[3], mp[3], Rmp[3], Rr[3], RrxW[3];
  for (int i = 0; i < 3; i++)
    Iw[i] = I[i] * w[i];
  v3_cross(wxIw, w, Iw);
  v3_cross(rxa, r, a);
  for (int i = 0; i < 3; i++)
    mp[i] = -mb * rxa[i] - I[i] * wt[i] - wxIw[i];
  double Ra[3];
  m3_mul_v(Ra, R, a);
  for (int i = 0; i < 3; i++)
    F[i] = W[i] - mb * Ra[i];
  m3_mul_v(Rmp, R, mp);
  m3_mul_v(Rr, R, r);
  v3_cross(RrxW, Rr, W);
  v3_add(M, RrxW, Rmp);
  if (!dF)
    return;
  memset(dF, 0, 3 * ROD_NY * sizeof(double));
  memset(dM, 0, 3 * ROD_NY * sizeof(double));
  /* quaternion: dF = -m_b d(R a), dM = -[W]x d(R r) + d(R m') */
  double Da[12], Dr[12], Dm[12];
  rotate_dh(h, a, Da);
  rotate_dh(h, r, Dr);
  rotate_dh(h, mp, Dm);
  for (int j = 0; j < 4; j++) {
    double WxDr[3];
    v3_cross(WxDr, W, Dr + 3 * j);
    for (int i = 0; i < 3; i++) {
      dF[3 * (ROD_Y_H + j) + i] = -mb * Da[3 * j + i];
      dM[3 * (ROD_Y_H + j) + i] = -WxDr[i] + Dm[3 * j + i];
    }
  }
  /* local derivatives of a by q and w (columns), then f = -m_b a and
   * m' = -m_b r x a - ... */
  double Aq[9], Aw[9];
  for (int j = 0; j < 3; j++) {
    double E[3] = {0, 0, 0}, col[3];
    E[j] = 1.0;
    v3_cross(col, w, E); /* d(w x q)/dq_j */
    for (int i = 0; i < 3; i++)
      Aq[3 * j + i] = c0 * E[i] + col[i];
    /* d/dw_j: E x q + c0 E x r + (w.r) E + w r_j - 2 r w_j */
    double Exq[3], Exr[3];
    v3_cross(Exq, E, q);
    v3_cross(Exr, E, r);
    const double wr = v3_dot(w, r);
    for (int i = 0; i < 3; i++)
      Aw[3 * j + i] =
          Exq[i] + c0 * Exr[i] + wr * E[i] + w[i] * r[j] - 2.0 * r[i] * w[j];
  }
  double rxAq[9], rxAw[9], mq[9], mw[9];
  cross_columns(r, Aq, rxAq);
  cross_columns(r, Aw, rxAw);
  for (int j = 0; j < 3; j++) {
    /* d(I w_t + w x I w)/dw_j = c0 I E + E x I w + w x I E */
    double E[3] = {0, 0, 0}, IE[3], ExIw[3], wxIE[3];
    E[j] = 1.0;
    for (int i = 0; i < 3; i++)
      IE[i] = I[i] * E[i];
    v3_cross(ExIw, E, Iw);
    v3_cross(wxIE, w, IE);
    for (int i = 0; i < 3; i++) {
      mq[3 * j + i] = -mb * rxAq[3 * j + i];
      mw[3 * j + i] = -mb * rxAw[3 * j + i] - c0 * IE[i] - ExIw[i] - wxIE[i];
      Aq[3 * j + i] *= -mb;
      Aw[3 * j + i] *= -mb;
    }
  }
  rotate_columns(R, Aq, dF + 3 * ROD_Y_Q);
  rotate_columns(R, Aw, dF + 3 * ROD_Y_W);
  rotate_columns(R, mq, dM + 3 * ROD_Y_Q);
  rotate_columns(R, mw, dM + 3 * ROD_Y_W);
}

void kr_tip_body_energy(const rod_kirchhoff *k, const double *y,
                        const double p[3], double *kinetic, double *gravity) {
  *kinetic = 0.0;
  *gravity = 0.0;
  if (!k->tip_body)
    return;
  const double *q = y + ROD_Y_Q, *w = y + ROD_Y_W, *r = k->body_offset;
  double v[3], R[9], c[3];
  v3_cross(v, w, r);
  v3_add(v, v, q);
  double rot = 0;
  for (int i = 0; i < 3; i++)
    rot += k->body_inertia[i] * w[i] * w[i];
  *kinetic = 0.5 * (k->body_mass * v3_dot(v, v) + rot);
  quat_to_R(R, y + ROD_Y_H);
  m3_mul_v(c, R, r);
  v3_add(c, c, p);
  *gravity = -k->body_mass * v3_dot(k->model.gravity, c);
}

/* ---- Runge-Kutta stages (time.scheme; kirchhoff_dirk.c) ---------------- */

/* The end's q(L), w(L) of the last sweep. */
static void tip_values(const rod_kirchhoff *k, double v[6]) {
  const double *y = k->node_y + (size_t)(k->nodes - 1) * KR_NODE;
  v3_copy(v, y + ROD_Y_Q);
  v3_copy(v + 3, y + ROD_Y_W);
}

int kr_tip_body_dirk_alloc(rod_kirchhoff *k) {
  if (!k->tip_body)
    return ROD_OK;
  k->body_dirk = rod_dirk_alloc(1, 6);
  return k->body_dirk ? ROD_OK : ROD_ENOMEM;
}

void kr_tip_body_dirk_rest(rod_kirchhoff *k, bool rate_known) {
  const double zero[6] = {0};
  if (k->body_dirk)
    rod_dirk_start(k->body_dirk, zero, rate_known ? zero : NULL);
}

void kr_tip_body_stage_terms(rod_kirchhoff *k, const rod_dirk_table *T, int i,
                             double h) {
  double H[6];
  if (!k->body_dirk || !rod_dirk_stage_terms(k->body_dirk, T, i, h, H))
    return;
  v3_copy(k->body_qh, H);
  v3_copy(k->body_wh, H + 3);
}

void kr_tip_body_stage_done(rod_kirchhoff *k, int i, double c0) {
  if (!k->body_dirk)
    return;
  double v[6], H[6];
  tip_values(k, v);
  v3_copy(H, k->body_qh);
  v3_copy(H + 3, k->body_wh);
  rod_dirk_stage_done(k->body_dirk, i, c0, v, H);
}

void kr_tip_body_dirk_accept(rod_kirchhoff *k, const rod_dirk_table *T) {
  if (!k->body_dirk)
    return;
  double v[6];
  tip_values(k, v);
  rod_dirk_accept(k->body_dirk, T, v);
}
