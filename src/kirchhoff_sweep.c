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

/* What the fused sweeps read, copied out of the backend once per sweep:
 * the compiler then knows that the records they write (stage history,
 * node states) cannot change the constants, and keeps them in registers
 * (residual sweep of the weight release, 100 nodes, RK4: 8.1 -> 6.8 us,
 * 20.5 -> 17.2 ns per right-hand side). */
typedef struct {
  rod_rhs_const rc;
  const rod_hist_point *hp;     /* `stages` per interval */
  const double *len;            /* m: intervals */
  double *stage_val, *stage_ps; /* stage records */
  int stages;
} sweep;

static void sweep_init(sweep *sw, const rod_kirchhoff *k) {
  sw->rc = k->rc;
  sw->hp = k->hp;
  sw->len = k->len;
  sw->stage_val = k->stage_val;
  sw->stage_ps = k->stage_ps;
  sw->stages = k->stages;
}

/* The right-hand side of the states at a stage, and its records; without
 * the quadratures (kr_quadratures integrates them from the records once a
 * step has converged: the weight release's residual sweep 6.8 -> 4.8 us,
 * 17.2 -> 12.2 ns per right-hand side, results bit for bit). planar is a
 * constant in each caller, so each gets its own inlined copy. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
state_rhs(const sweep *sw, int j, int stage, const double *y, double *f,
          rod_rhs_work *wk, const bool planar) {
  const size_t point = (size_t)sw->stages * j + stage;
  if (planar)
    rod_rhs_eval_planar(&sw->rc, &sw->hp[point], y, f, wk);
  else
    rod_rhs_eval(&sw->rc, &sw->hp[point], y, f, wk);
  record_stage(sw->stage_val, sw->stage_ps, point, y, wk);
}

/* The right-hand side of the states and of nk tangent directions, which
 * follow the states in y and f (16 each). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
full_rhs(const sweep *sw, int j, int stage, const double *y, double *f, int nk,
         const bool planar) {
  rod_rhs_work wk;
  state_rhs(sw, j, stage, y, f, &wk, planar);
  for (int d = 1; d <= nk; d++)
    if (planar)
      rod_rhs_tangent_planar(&sw->rc, y, &wk, y + ROD_NY * d, f + ROD_NY * d);
    else
      rod_rhs_tangent(&sw->rc, y, &wk, y + ROD_NY * d, f + ROD_NY * d);
}

/* Classic RK4 (rod_spatial_rk4's arithmetic) over interval j for the states
 * and nk tangents, n = 16 (1 + nk) values. nk = 0 is the residual sweep
 * that dominates the run time: its sizes are then known at compile time. A
 * planar state keeps its odd components at zero: they are skipped. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rk4_step(const sweep *sw, int j, double *y, int nk, const bool planar) {
  enum { MAX = ROD_NY * (1 + ROD_NY) };
  const double h = sw->len[j], h2 = 0.5 * h, h6 = h / 6.0;
  const int n = ROD_NY * (1 + nk), di = planar ? 2 : 1;
  double k1[MAX], k2[MAX], k3[MAX], k4[MAX], yt[MAX];
  if (planar)
    for (int i = 1; i < n; i += 2)
      yt[i] = 0.0;
  full_rhs(sw, j, 0, y, k1, nk, planar);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h2 * k1[i];
  full_rhs(sw, j, 1, yt, k2, nk, planar);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h2 * k2[i];
  full_rhs(sw, j, 2, yt, k3, nk, planar);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h * k3[i];
  full_rhs(sw, j, 3, yt, k4, nk, planar);
  for (int i = 0; i < n; i += di)
    y[i] += h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
euler_step(const sweep *sw, int j, double *y, int nk, const bool planar) {
  enum { MAX = ROD_NY * (1 + ROD_NY) };
  const int n = ROD_NY * (1 + nk), di = planar ? 2 : 1;
  double f[MAX];
  full_rhs(sw, j, 0, y, f, nk, planar);
  for (int i = 0; i < n; i += di)
    y[i] += sw->len[j] * f[i];
}

/* Point force at the node after interval j: n(s+) = n(s-) - F (seed 002
 * III.B); jump_left keeps the state just proximal to it. */
static void apply_jump(rod_kirchhoff *k, double *y) {
  memcpy(k->jump_left, y, ROD_NY * sizeof(double));
  v3_axpy(y + ROD_Y_N, -1.0, k->jump_force);
}

/* Intervals [a, b) of y (states and nk tangents), storing the states at
 * the nodes; rk4, planar and (for the residual sweeps) nk = 0 are constants
 * in each caller, so each variant inlines its own right-hand side. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sweep_loop(rod_kirchhoff *k, int a, int b, double *y, int nk, const bool rk4,
           const bool planar) {
  sweep sw;
  sweep_init(&sw, k);
  double *node_y = k->node_y;
  const int jump = k->jump_node < k->nodes - 1 ? k->jump_node : -1;
  for (int j = a; j < b; j++) {
    if (rk4)
      rk4_step(&sw, j, y, nk, planar);
    else
      euler_step(&sw, j, y, nk, planar);
    if (j + 1 == jump)
      apply_jump(k, y);
    memcpy(node_y + (size_t)(j + 1) * KR_NODE, y, ROD_NY * sizeof(double));
  }
}

typedef void sweep_fn(rod_kirchhoff *k, int a, int b, double *y, int nk);
#define ROD_SWEEP_VARIANT(name, nk_value, rk4, planar)                         \
  static void name(rod_kirchhoff *k, int a, int b, double *y, int nk) {        \
    (void)nk;                                                                  \
    sweep_loop(k, a, b, y, nk_value, rk4, planar);                             \
  }
ROD_SWEEP_VARIANT(states_rk4, 0, true, false)
ROD_SWEEP_VARIANT(states_rk4_planar, 0, true, true)
ROD_SWEEP_VARIANT(states_euler, 0, false, false)
ROD_SWEEP_VARIANT(states_euler_planar, 0, false, true)
ROD_SWEEP_VARIANT(tangents_rk4, nk, true, false)
ROD_SWEEP_VARIANT(tangents_rk4_planar, nk, true, true)
ROD_SWEEP_VARIANT(tangents_euler, nk, false, false)
ROD_SWEEP_VARIANT(tangents_euler_planar, nk, false, true)
#undef ROD_SWEEP_VARIANT

/* [tangents][rk4][planar] */
static sweep_fn *const sweep_variants[2][2][2] = {
    {{states_euler, states_euler_planar}, {states_rk4, states_rk4_planar}},
    {{tangents_euler, tangents_euler_planar},
     {tangents_rk4, tangents_rk4_planar}}};

static int propagate(void *user, int a, int b, double *y, int nk, double *dy) {
  rod_kirchhoff *k = user;
  double *yb = k->ybuf; /* states, then the nk tangents */
  const int n = ROD_NY * (1 + nk);
  memcpy(yb, y, ROD_NY * sizeof(double));
  if (nk)
    memcpy(yb + ROD_NY, dy, (size_t)(ROD_NY * nk) * sizeof(double));
  memcpy(k->node_y + (size_t)a * KR_NODE, yb, ROD_NY * sizeof(double));
  sweep_variants[nk > 0][k->stages == 4][k->planar](k, a, b, yb, nk);
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
