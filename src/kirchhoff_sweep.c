/* The rod's shooting problem (rod_bvp): state at the clamp from the scaled
 * unknowns n(0), m(0); sweeps in arclength carrying tangent directions; the
 * scaled tip residual of CONTRACT.md (solver.tolerance). */
#include <math.h>
#include <string.h>

#include "kirchhoff.h"

/* Records of one stage: q, u, v (the stage history of the next steps) and
 * p_s, from which kr_quadratures integrates positions and energies once a
 * step has converged. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
record_stage(double *stage_val, double *stage_ps, size_t point, const double *y,
             const rod_rhs_work *wk) {
  double *rec = stage_val + point * KR_HW;
  v3_copy(rec + KR_HQ, y + ROD_Y_Q);
  v3_copy(rec + KR_HU, wk->u);
  v3_copy(rec + KR_HV, wk->v);
  v3_copy(stage_ps + point * 3, wk->ps);
}

/* Right-hand side of the sweep's augmented state
 * [y (16), dy_1 (16) .. dy_nk (16), quadratures (ROD_NQ)], and the stage's
 * records. */
static int sweep_rhs(int j, int stage, const double *y, double *f, void *user) {
  rod_kirchhoff *k = user;
  const size_t point = (size_t)k->stages * j + stage;
  rod_rhs_work wk;
  if (k->planar) {
    rod_rhs_eval_planar(&k->rc, &k->hp[point], y, f, &wk);
    for (int d = 1; d <= k->nk; d++)
      rod_rhs_tangent_planar(&k->rc, y, &wk, y + ROD_NY * d, f + ROD_NY * d);
  } else {
    rod_rhs_eval(&k->rc, &k->hp[point], y, f, &wk);
    for (int d = 1; d <= k->nk; d++)
      rod_rhs_tangent(&k->rc, y, &wk, y + ROD_NY * d, f + ROD_NY * d);
  }
  double s = k->s[j] + k->integ->c[stage] * k->len[j];
  rod_rhs_quadratures(&k->rc, y, &wk, s, f + ROD_NY * (1 + k->nk));
  record_stage(k->stage_val, k->stage_ps, point, y, &wk);
  return 0;
}

/* What the fused state sweep reads, copied out of the backend once per
 * sweep: the compiler then knows that the records it writes (stage
 * history, node states) cannot change the constants, and keeps them in
 * registers (residual sweep of the weight release, 100 nodes, RK4: 8.1 ->
 * 6.8 us, 20.5 -> 17.2 ns per right-hand side). */
typedef struct {
  rod_rhs_const rc;
  const rod_hist_point *hp;     /* `stages` per interval */
  const double *len;            /* m: intervals */
  double *stage_val, *stage_ps; /* stage records */
  double *node_y;               /* nodes x KR_NODE */
  int stages;
} state_sweep;

static void state_sweep_init(state_sweep *sw, const rod_kirchhoff *k) {
  sw->rc = k->rc;
  sw->hp = k->hp;
  sw->len = k->len;
  sw->stage_val = k->stage_val;
  sw->stage_ps = k->stage_ps;
  sw->node_y = k->node_y;
  sw->stages = k->stages;
}

/* The right-hand side of the states alone, for the fused steps, without
 * the quadratures (kr_quadratures integrates them from the records once a
 * step has converged: the weight release's residual sweep 6.8 -> 4.8 us,
 * 17.2 -> 12.2 ns per right-hand side, results bit for bit); planar
 * is a constant in each caller, so each gets its own inlined copy. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
state_rhs(const state_sweep *sw, int j, int stage, const double *y, double *f,
          const bool planar) {
  const size_t point = (size_t)sw->stages * j + stage;
  rod_rhs_work wk;
  if (planar)
    rod_rhs_eval_planar(&sw->rc, &sw->hp[point], y, f, &wk);
  else
    rod_rhs_eval(&sw->rc, &sw->hp[point], y, f, &wk);
  record_stage(sw->stage_val, sw->stage_ps, point, y, &wk);
}

static void store_node(rod_kirchhoff *k, int node, const double *ybuf) {
  double *rec = k->node_y + (size_t)node * KR_NODE;
  memcpy(rec, ybuf, ROD_NY * sizeof(double));
  memcpy(rec + ROD_NY, ybuf + ROD_NY * (1 + k->nk), ROD_NQ * sizeof(double));
}

/* Classic RK4 over interval j for the state alone, with the right-hand side
 * inlined and the sizes known at compile time: the residual sweeps that
 * dominate the run time. Same arithmetic as rod_spatial_rk4. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rk4_state_step(const state_sweep *sw, int j, double *y, const bool planar) {
  const double h = sw->len[j], h2 = 0.5 * h, h6 = h / 6.0;
  /* a planar state keeps its odd components at zero: skip them */
  const int di = planar ? 2 : 1;
  double k1[ROD_NY], k2[ROD_NY], k3[ROD_NY], k4[ROD_NY], yt[ROD_NY];
  if (planar)
    for (int i = 1; i < ROD_NY; i += 2)
      yt[i] = 0.0;
  state_rhs(sw, j, 0, y, k1, planar);
  for (int i = 0; i < ROD_NY; i += di)
    yt[i] = y[i] + h2 * k1[i];
  state_rhs(sw, j, 1, yt, k2, planar);
  for (int i = 0; i < ROD_NY; i += di)
    yt[i] = y[i] + h2 * k2[i];
  state_rhs(sw, j, 2, yt, k3, planar);
  for (int i = 0; i < ROD_NY; i += di)
    yt[i] = y[i] + h * k3[i];
  state_rhs(sw, j, 3, yt, k4, planar);
  for (int i = 0; i < ROD_NY; i += di)
    y[i] += h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
euler_state_step(const state_sweep *sw, int j, double *y, const bool planar) {
  double f[ROD_NY];
  state_rhs(sw, j, 0, y, f, planar);
  for (int i = 0; i < ROD_NY; i++)
    y[i] += sw->len[j] * f[i];
}

/* Point force at the node after interval j: n(s+) = n(s-) - F (seed 002
 * III.B); jump_left keeps the state just proximal to it. */
static void apply_jump(rod_kirchhoff *k, int j, double *yb,
                       const double *quad) {
  if (j + 1 == k->jump_node && j + 1 < k->nodes - 1) {
    memcpy(k->jump_left, yb, ROD_NY * sizeof(double));
    memcpy(k->jump_left + ROD_NY, quad, ROD_NQ * sizeof(double));
    v3_axpy(yb + ROD_Y_N, -1.0, k->jump_force);
  }
}

/* Intervals [a, b) for the state alone; rk4 and planar are constants in
 * each caller, so each variant inlines its own right-hand side. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
state_loop(rod_kirchhoff *k, int a, int b, double *yb, const bool rk4,
           const bool planar) {
  state_sweep sw;
  state_sweep_init(&sw, k);
  const double *quad = yb + ROD_NY;
  const int jump = k->jump_node;
  for (int j = a; j < b; j++) {
    if (rk4)
      rk4_state_step(&sw, j, yb, planar);
    else
      euler_state_step(&sw, j, yb, planar);
    if (j + 1 == jump)
      apply_jump(k, j, yb, quad);
    memcpy(sw.node_y + (size_t)(j + 1) * KR_NODE, yb, ROD_NY * sizeof(double));
  }
}

static void state_loop_rk4(rod_kirchhoff *k, int a, int b, double *yb) {
  state_loop(k, a, b, yb, true, false);
}
static void state_loop_rk4_planar(rod_kirchhoff *k, int a, int b, double *yb) {
  state_loop(k, a, b, yb, true, true);
}
static void state_loop_euler(rod_kirchhoff *k, int a, int b, double *yb) {
  state_loop(k, a, b, yb, false, false);
}
static void state_loop_euler_planar(rod_kirchhoff *k, int a, int b,
                                    double *yb) {
  state_loop(k, a, b, yb, false, true);
}

static int propagate(void *user, int a, int b, double *y, int nk, double *dy) {
  rod_kirchhoff *k = user;
  k->nk = nk;
  double *yb = k->ybuf;
  const int n = ROD_NY * (1 + nk) + ROD_NQ;
  memcpy(yb, y, ROD_NY * sizeof(double));
  if (nk)
    memcpy(yb + ROD_NY, dy, (size_t)(ROD_NY * nk) * sizeof(double));
  double *quad = yb + ROD_NY * (1 + nk);
  if (a == 0) {
    memset(quad, 0, ROD_NQ * sizeof(double));
    v3_copy(quad + ROD_Q_P, k->model.base_position);
  } else { /* quadratures continue from the stored node */
    memcpy(quad, k->node_y + (size_t)a * KR_NODE + ROD_NY,
           ROD_NQ * sizeof(double));
  }
  store_node(k, a, yb);
  if (nk == 0 && k->integ == &rod_spatial_rk4) {
    (k->planar ? state_loop_rk4_planar : state_loop_rk4)(k, a, b, yb);
  } else if (nk == 0 && k->integ == &rod_spatial_euler) {
    (k->planar ? state_loop_euler_planar : state_loop_euler)(k, a, b, yb);
  } else {
    for (int j = a; j < b; j++) {
      int st = k->integ->step(sweep_rhs, j, k->len[j], n, ROD_NQ, yb, NULL,
                              k->work, k);
      if (st)
        return st;
      apply_jump(k, j, yb, quad);
      store_node(k, j + 1, yb);
    }
  }
  for (int i = 0; i < n; i++)
    if (!isfinite(yb[i]))
      return 1;
  memcpy(y, yb, ROD_NY * sizeof(double));
  if (nk)
    memcpy(dy, yb + ROD_NY, (size_t)(ROD_NY * nk) * sizeof(double));
  return 0;
}

static void start(void *user, const double *x, double *y0, double *dy0) {
  rod_kirchhoff *k = user;
  memcpy(y0 + ROD_Y_H, k->base_h, 4 * sizeof(double));
  for (int i = 0; i < 3; i++) {
    y0[ROD_Y_N + i] = x[i] * k->force_scale;
    y0[ROD_Y_M + i] = x[3 + i] * k->moment_scale;
  }
  v3_copy(y0 + ROD_Y_Q, k->base_q);
  v3_copy(y0 + ROD_Y_W, k->base_w);
  if (dy0) {
    memset(dy0, 0, (size_t)(ROD_NY * 6) * sizeof(double));
    for (int i = 0; i < 3; i++) {
      dy0[(size_t)i * ROD_NY + ROD_Y_N + i] = k->force_scale;
      dy0[(size_t)(3 + i) * ROD_NY + ROD_Y_M + i] = k->moment_scale;
    }
  }
}

/* r = ((n(L) - F) L^2/EI, (m(L) - M) L/EI) */
static void end(void *user, const double *y, double *r, double *drdy) {
  rod_kirchhoff *k = user;
  for (int i = 0; i < 3; i++) {
    r[i] = (y[ROD_Y_N + i] - k->tip_force[i]) / k->force_scale;
    r[3 + i] = (y[ROD_Y_M + i] - k->tip_moment[i]) / k->moment_scale;
  }
  if (drdy) {
    memset(drdy, 0, (size_t)(6 * ROD_NY) * sizeof(double));
    for (int i = 0; i < 3; i++) {
      drdy[(size_t)(ROD_Y_N + i) * 6 + i] = 1.0 / k->force_scale;
      drdy[(size_t)(ROD_Y_M + i) * 6 + 3 + i] = 1.0 / k->moment_scale;
    }
  }
}

/* The states at node g of the last sweep (right limit). */
static const double *sweep_node(void *user, int g) {
  const rod_kirchhoff *k = user;
  return k->node_y + (size_t)g * KR_NODE;
}

void kr_bvp_init(rod_kirchhoff *k) {
  k->bvp.ny = ROD_NY;
  k->bvp.nx = 6;
  k->bvp.nnodes = k->nodes;
  k->bvp.start = start;
  k->bvp.propagate = propagate;
  k->bvp.end = end;
  k->bvp.node = sweep_node;
  k->bvp.user = k;
}
