/* The tendons' lengths in the sweeps (friction, kirchhoff_tendon_friction.c):
 * l_i = b_i + int |pb_i| ds rides along the states as one more state,
 * integrated by the sweep's rule (Euler, or RK4 with its stages), with its
 * tangent in every direction; at each stage it gives the sliding rates
 * s_t = c0 l / (1 + c tau) + H the equations read (rod_rhs_point.slide) and
 * the friction's derivative by them. A sweep from node a > 0 (a segment of
 * multiple shooting) starts from the last sweep's l there with a zero
 * tangent. Workspace (KR_FRICTION_WORK per tendon): L0 (the interval's
 * start), Ls (the stage), K (the 4 stages' rates), then the same for the
 * 16 directions. */
#ifndef KIRCHHOFF_FRICTION_SWEEP_H
#define KIRCHHOFF_FRICTION_SWEEP_H

#include "kirchhoff/kirchhoff_rod.h"

typedef struct {
  double *work; /* NULL: no friction */
  int n;        /* tendons */
  double *slide_rate, *slide_l, *node_l;
  const double *slide_H;
  double start[ROD_TENDONS_MAX]; /* m: l at the base */
  double rate[ROD_TENDONS_MAX];  /* 1/s: c0 / (1 + c tau) */
  bool forces;                   /* the friction loads are on */
} kr_friction_sweep;

static inline void kr_friction_sweep_init(kr_friction_sweep *fr,
                                          const rod_kirchhoff *k) {
  fr->work = k->slide_work;
  if (!fr->work)
    return;
  fr->n = k->sc.tendons.count;
  fr->slide_rate = k->slide_rate;
  fr->slide_l = k->slide_l;
  fr->node_l = k->slide_node;
  fr->slide_H = k->slide_H;
  fr->forces = k->rc.friction;
  kr_friction_factors(k, fr->start, fr->rate);
}

/* The work's parts: L0, Ls, K[stage]; direction d's. */
#define KR_FR_L0(fr) ((fr)->work)
#define KR_FR_LS(fr) ((fr)->work + (fr)->n)
#define KR_FR_K(fr, st) ((fr)->work + (2 + (st)) * (fr)->n)
#define KR_FR_DL0(fr, d) ((fr)->work + (6 + (d)) * (fr)->n)
#define KR_FR_DLS(fr, d) ((fr)->work + (22 + (d)) * (fr)->n)
#define KR_FR_DK(fr, st, d) ((fr)->work + (38 + 16 * (st) + (d)) * (fr)->n)

/* The sweep's start at node a. */
static inline void kr_friction_sweep_start(const kr_friction_sweep *fr, int a,
                                           int nk) {
  const int n = fr->n;
  for (int i = 0; i < n; i++) {
    const double l = a == 0 ? fr->start[i] : fr->node_l[(size_t)a * n + i];
    KR_FR_L0(fr)[i] = l;
    fr->node_l[(size_t)a * n + i] = l;
    for (int d = 0; d < nk; d++)
      KR_FR_DL0(fr, d)[i] = 0.0;
  }
}

/* The stage's lengths: the interval's start (prev < 0) or start + hh
 * times stage prev's rates. */
static inline void kr_friction_sweep_stage(const kr_friction_sweep *fr, int nk,
                                           int prev, double hh) {
  const int n = fr->n;
  for (int i = 0; i < n; i++) {
    KR_FR_LS(fr)
    [i] = KR_FR_L0(fr)[i] + (prev < 0 ? 0.0 : hh * KR_FR_K(fr, prev)[i]);
    for (int d = 0; d < nk; d++)
      KR_FR_DLS(fr, d)
    [i] =
        KR_FR_DL0(fr, d)[i] + (prev < 0 ? 0.0 : hh * KR_FR_DK(fr, prev, d)[i]);
  }
}

/* The sliding rates at evaluation point p from the stage's lengths (and
 * the lengths recorded there). */
static inline void kr_friction_sweep_rates(const kr_friction_sweep *fr,
                                           size_t p) {
  const int n = fr->n;
  for (int i = 0; i < n; i++) {
    const size_t q = p * (size_t)n + i;
    fr->slide_rate[q] = fr->rate[i] * KR_FR_LS(fr)[i] + fr->slide_H[q];
    fr->slide_l[q] = KR_FR_LS(fr)[i];
  }
}

/* The lengths' rates |pb_i| at a stage (0 where a tendon does not run). */
static inline void kr_friction_sweep_lengths(const kr_friction_sweep *fr,
                                             const rod_rhs_point *pt,
                                             const rod_rhs_work *wk,
                                             int stage) {
  for (int i = 0; i < fr->n; i++) {
    const double *rt = pt->route + ROD_ROUTE * i;
    double t[3];
    KR_FR_K(fr, stage)
    [i] = rt[6] != 0 ? rod_tendon_tangent(rt, wk->u, wk->v, t) : 0.0;
  }
}

/* Direction d at a stage: the lengths' rates' tangent t_i . (du x r_i +
 * dv), and the friction's change by the stage's dl (df's n_s and m_s). */
static inline void
kr_friction_sweep_tangent(const kr_friction_sweep *fr, const rod_rhs_const *rc,
                          const rod_rhs_point *pt, const double *y,
                          const rod_rhs_work *wk, const double *dy, double *df,
                          int d, int stage, const bool general) {
  double th[3], du[3], dv[3];
  rod_rhs_strain_tangent(rc, y, wk, dy, th, du, dv, general);
  double dslide[ROD_TENDONS_MAX];
  for (int i = 0; i < fr->n; i++) {
    const double *rt = pt->route + ROD_ROUTE * i;
    double dk = 0.0;
    if (rt[6] != 0) {
      const double r[3] = {rt[0], rt[1], 0.0};
      double t[3], dpb[3];
      rod_tendon_tangent(rt, wk->u, wk->v, t);
      v3_cross(dpb, du, r);
      v3_add(dpb, dpb, dv);
      dk = v3_dot(t, dpb);
    }
    KR_FR_DK(fr, stage, d)[i] = dk;
    dslide[i] = fr->rate[i] * KR_FR_DLS(fr, d)[i];
  }
  if (fr->forces)
    rod_friction_eval(fr->n, rc->beta, rc->tension, pt->route, dslide, wk->R,
                      wk->u, wk->v, df + ROD_Y_N, df + ROD_Y_M);
}

/* The interval's end: L0 += h K0 (Euler) or h/6 (K0 + 2 K1 + 2 K2 + K3). */
static inline void kr_friction_sweep_advance(const kr_friction_sweep *fr,
                                             int nk, double h, bool rk4) {
  const int n = fr->n;
  for (int i = 0; i < n; i++) {
    if (rk4) {
      KR_FR_L0(fr)
      [i] +=
          h / 6.0 *
          (KR_FR_K(fr, 0)[i] + 2.0 * (KR_FR_K(fr, 1)[i] + KR_FR_K(fr, 2)[i]) +
           KR_FR_K(fr, 3)[i]);
      for (int d = 0; d < nk; d++)
        KR_FR_DL0(fr, d)
      [i] += h / 6.0 *
             (KR_FR_DK(fr, 0, d)[i] +
              2.0 * (KR_FR_DK(fr, 1, d)[i] + KR_FR_DK(fr, 2, d)[i]) +
              KR_FR_DK(fr, 3, d)[i]);
    } else {
      KR_FR_L0(fr)[i] += h * KR_FR_K(fr, 0)[i];
      for (int d = 0; d < nk; d++)
        KR_FR_DL0(fr, d)[i] += h * KR_FR_DK(fr, 0, d)[i];
    }
  }
}

/* l at node g of this sweep. */
static inline void kr_friction_sweep_node(const kr_friction_sweep *fr, int g) {
  for (int i = 0; i < fr->n; i++)
    fr->node_l[(size_t)g * fr->n + i] = KR_FR_L0(fr)[i];
}

#endif
