/* The rod's shooting problem (rod_bvp): state at the clamp from the scaled
 * unknowns n(0), m(0); sweeps in arclength carrying tangent directions; the
 * scaled tip residual of solver.tolerance (solver.tolerance). */
#include <math.h>
#include <string.h>

#include "kirchhoff/kirchhoff_friction_sweep.h"
#include "kirchhoff/kirchhoff_rod.h"

/* Records of one stage: q, u - u*, v, w (the stage history of the next steps)
 * and p_s, from which kr_quadratures integrates positions and energies
 * once a step has converged. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
record_stage(double *stage_val, double *stage_ps, size_t point, const double *y,
             const rod_rhs_work *wk, const rod_rhs_point *pt,
             const bool general) {
  double *rec = stage_val + point * KR_HW;
  v3_copy(rec + KR_HQ, y + ROD_Y_Q);
  if (general) /* w only for rotary inertia's history */
    for (int i = 0; i < 3; i++) {
      rec[KR_HU + i] = wk->u[i] - pt->ustar[i];
      rec[KR_HOM + i] = y[ROD_Y_W + i];
    }
  else
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
  const rod_rhs_point *pt;      /* `stages` per interval */
  const double *len;            /* m: intervals */
  double *stage_val, *stage_ps; /* stage records */
  int stages;
  kr_friction_sweep fr; /* the tendons' lengths (friction), fr.work NULL
                           without */
} sweep;

static void sweep_init(sweep *sw, const rod_kirchhoff *k) {
  sw->rc = k->rc;
  sw->hp = k->hp;
  sw->pt = k->pt;
  sw->len = k->len;
  sw->stage_val = k->stage_val;
  sw->stage_ps = k->stage_ps;
  sw->stages = k->stages;
  kr_friction_sweep_init(&sw->fr, k);
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
          rod_rhs_work *wk, const bool planar, const bool general) {
  const size_t point = (size_t)sw->stages * j + stage;
  const bool friction = general && !planar && sw->fr.work;
  if (friction) /* the sliding rates from the tendons' lengths here */
    kr_friction_sweep_rates(&sw->fr, point);
  if (planar)
    rod_rhs_eval_planar(&sw->rc, &sw->hp[point], &sw->pt[point], y, f, wk,
                        general);
  else
    rod_rhs_eval(&sw->rc, &sw->hp[point], &sw->pt[point], y, f, wk, general);
  record_stage(sw->stage_val, sw->stage_ps, point, y, wk, &sw->pt[point],
               general);
  if (friction) /* the lengths' rates |pb_i| */
    kr_friction_sweep_lengths(&sw->fr, &sw->pt[point], wk, stage);
}

/* df = A dy for nk directions (ROD_NY each), from the work values wk of
 * the right-hand side at y. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
tangent_apply(const sweep *sw, const double *y, const rod_rhs_work *wk, int nk,
              const double *dy, double *df, const bool planar,
              const bool general) {
  for (int d = 0; d < nk; d++)
    if (planar)
      rod_rhs_tangent_planar(&sw->rc, y, wk, dy + ROD_NY * d, df + ROD_NY * d,
                             general);
    else
      rod_rhs_tangent(&sw->rc, y, wk, dy + ROD_NY * d, df + ROD_NY * d,
                      general);
}

/* The right-hand side of the states and of nk tangent directions, which
 * follow the states in y and f (16 each). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
full_rhs(const sweep *sw, int j, int stage, const double *y, double *f, int nk,
         const bool planar, const bool general) {
  rod_rhs_work wk;
  state_rhs(sw, j, stage, y, f, &wk, planar, general);
  tangent_apply(sw, y, &wk, nk, y + ROD_NY, f + ROD_NY, planar, general);
  if (general && !planar && sw->fr.work) /* through the lengths */
    for (int d = 0; d < nk; d++)
      kr_friction_sweep_tangent(
          &sw->fr, &sw->rc, &sw->pt[(size_t)sw->stages * j + stage], y, &wk,
          y + ROD_NY * (d + 1), f + ROD_NY * (d + 1), d, stage, general);
}

/* Classic RK4 (rod_spatial_rk4's arithmetic) over interval j for the states
 * and nk tangents, n = 16 (1 + nk) values. nk = 0 is the residual sweep
 * that dominates the run time: its sizes are then known at compile time. A
 * planar state keeps its odd components at zero: they are skipped. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
rk4_step(const sweep *sw, int j, double *y, int nk, const bool planar,
         const bool general) {
  enum { MAX = ROD_NY * (1 + ROD_NY) };
  const double h = sw->len[j], h2 = 0.5 * h, h6 = h / 6.0;
  const int n = ROD_NY * (1 + nk), di = planar ? 2 : 1;
  double k1[MAX], k2[MAX], k3[MAX], k4[MAX], yt[MAX];
  const bool friction = general && !planar && sw->fr.work;
  if (planar)
    for (int i = 1; i < n; i += 2)
      yt[i] = 0.0;
  if (friction) /* the tendons' lengths ride as one more state */
    kr_friction_sweep_stage(&sw->fr, nk, -1, 0.0);
  full_rhs(sw, j, 0, y, k1, nk, planar, general);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h2 * k1[i];
  if (friction)
    kr_friction_sweep_stage(&sw->fr, nk, 0, h2);
  full_rhs(sw, j, 1, yt, k2, nk, planar, general);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h2 * k2[i];
  if (friction)
    kr_friction_sweep_stage(&sw->fr, nk, 1, h2);
  full_rhs(sw, j, 2, yt, k3, nk, planar, general);
  for (int i = 0; i < n; i += di)
    yt[i] = y[i] + h * k3[i];
  if (friction)
    kr_friction_sweep_stage(&sw->fr, nk, 2, h);
  full_rhs(sw, j, 3, yt, k4, nk, planar, general);
  for (int i = 0; i < n; i += di)
    y[i] += h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
  if (friction)
    kr_friction_sweep_advance(&sw->fr, nk, h, true);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
euler_step(const sweep *sw, int j, double *y, int nk, const bool planar,
           const bool general) {
  enum { MAX = ROD_NY * (1 + ROD_NY) };
  const int n = ROD_NY * (1 + nk), di = planar ? 2 : 1;
  double f[MAX];
  const bool friction = general && !planar && sw->fr.work;
  if (friction)
    kr_friction_sweep_stage(&sw->fr, nk, -1, 0.0);
  full_rhs(sw, j, 0, y, f, nk, planar, general);
  for (int i = 0; i < n; i += di)
    y[i] += sw->len[j] * f[i];
  if (friction)
    kr_friction_sweep_advance(&sw->fr, nk, sw->len[j], false);
}

/* Intervals [a, b) of y (states and nk tangents), storing the states at
 * the nodes; rk4, planar and (for the residual sweeps) nk = 0 are constants
 * in each caller, so each variant inlines its own right-hand side. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
sweep_loop(rod_kirchhoff *k, int a, int b, double *y, int nk, const bool rk4,
           const bool planar, const bool general) {
  sweep sw;
  sweep_init(&sw, k);
  double *node_y = k->node_y;
  const int *node_point = k->loads.node_point;
  const double *contact = k->loads.contact;
  if (general && !planar && sw.fr.work)
    kr_friction_sweep_start(&sw.fr, a, nk);
  for (int j = a; j < b; j++) {
    if (rk4)
      rk4_step(&sw, j, y, nk, planar, general);
    else
      euler_step(&sw, j, y, nk, planar, general);
    /* the concentrated loads at node j + 1: n and m jump (Till & Rucker
     * 2017, III.B); point_left keeps the state just proximal to a point
     * load */
    const int p = node_point[j + 1];
    if (p >= 0)
      memcpy(k->point_left + (size_t)p * ROD_NY, y, ROD_NY * sizeof(double));
    rod_loads_jump(&k->loads, p, contact, (size_t)(j + 1), y + ROD_Y_N,
                   y + ROD_Y_M);
    memcpy(node_y + (size_t)(j + 1) * KR_NODE, y, ROD_NY * sizeof(double));
    if (general && !planar && sw.fr.work)
      kr_friction_sweep_node(&sw.fr, j + 1);
  }
}

typedef void sweep_fn(rod_kirchhoff *k, int a, int b, double *y, int nk);
#define ROD_SWEEP_VARIANT(name, nk_value, rk4, planar, general)                \
  static void name(rod_kirchhoff *k, int a, int b, double *y, int nk) {        \
    (void)nk;                                                                  \
    sweep_loop(k, a, b, y, nk_value, rk4, planar, general);                    \
  }
/* plain rods (straight, the paper's drag, no rotary inertia) and general
 * ones */
ROD_SWEEP_VARIANT(states_rk4, 0, true, false, false)
ROD_SWEEP_VARIANT(states_rk4_planar, 0, true, true, false)
ROD_SWEEP_VARIANT(states_euler, 0, false, false, false)
ROD_SWEEP_VARIANT(states_euler_planar, 0, false, true, false)
ROD_SWEEP_VARIANT(tangents_rk4, nk, true, false, false)
ROD_SWEEP_VARIANT(tangents_rk4_planar, nk, true, true, false)
ROD_SWEEP_VARIANT(tangents_euler, nk, false, false, false)
ROD_SWEEP_VARIANT(tangents_euler_planar, nk, false, true, false)
ROD_SWEEP_VARIANT(states_rk4_g, 0, true, false, true)
ROD_SWEEP_VARIANT(states_rk4_planar_g, 0, true, true, true)
ROD_SWEEP_VARIANT(states_euler_g, 0, false, false, true)
ROD_SWEEP_VARIANT(states_euler_planar_g, 0, false, true, true)
ROD_SWEEP_VARIANT(tangents_rk4_g, nk, true, false, true)
ROD_SWEEP_VARIANT(tangents_rk4_planar_g, nk, true, true, true)
ROD_SWEEP_VARIANT(tangents_euler_g, nk, false, false, true)
ROD_SWEEP_VARIANT(tangents_euler_planar_g, nk, false, true, true)
#undef ROD_SWEEP_VARIANT

/* [general][tangents][rk4][planar] */
static sweep_fn *const sweep_variants[2][2][2][2] = {
    {{{states_euler, states_euler_planar}, {states_rk4, states_rk4_planar}},
     {{tangents_euler, tangents_euler_planar},
      {tangents_rk4, tangents_rk4_planar}}},
    {{{states_euler_g, states_euler_planar_g},
      {states_rk4_g, states_rk4_planar_g}},
     {{tangents_euler_g, tangents_euler_planar_g},
      {tangents_rk4_g, tangents_rk4_planar_g}}}};

static int propagate(void *user, int a, int b, double *y, int nk, double *dy) {
  rod_kirchhoff *k = user;
  double *yb = k->ybuf; /* states, then the nk tangents */
  const int n = ROD_NY * (1 + nk);
  memcpy(yb, y, ROD_NY * sizeof(double));
  if (nk)
    memcpy(yb + ROD_NY, dy, (size_t)(ROD_NY * nk) * sizeof(double));
  memcpy(k->node_y + (size_t)a * KR_NODE, yb, ROD_NY * sizeof(double));
  sweep_variants[k->general][nk > 0][k->stages == 4][k->planar](k, a, b, yb,
                                                                nk);
  for (int i = 0; i < n; i++)
    if (!isfinite(yb[i]))
      return 1;
  memcpy(y, yb, ROD_NY * sizeof(double));
  if (nk)
    memcpy(dy, yb + ROD_NY, (size_t)(ROD_NY * nk) * sizeof(double));
  return 0;
}

/* Tangents along the last sweep (rod_bvp.tangents). The variational
 * equations dy' = A(s) dy, A = df/dy at the states of the last sweep, are
 * linear: with those states stored at every node they need no state
 * integration. Classic RK4 on coarse intervals of tangent_stride grid
 * intervals takes its stages at the interval's ends and its middle node,
 * where the states and history points are known; the two middle stages
 * share one evaluation of A. The Jacobian only steers Newton's iteration
 * (the converged answer does not depend on it); its relative error, about
 * (k H)^4 with H the coarse interval and k the step's wavenumber, bounds
 * the iteration's contraction.
 *
 * Measured on the weight release at 2 ms (k h = 0.096; contraction of the
 * first Newton step from a fresh Jacobian, then rodsim bench with simple
 * shooting and a fresh Jacobian every step): stride 2, 4, 8, 16 gave 4.32,
 * 4.38, 5.31, 8.32 iterations per step (the exact tangent sweep: 4.30);
 * with k H <= 0.3, 0.4, 0.6 the whole run (auto) took 6.21, 6.17, 6.16
 * integrations per step, and at 0.5 ms 5.06, 4.56, 4.56. */
static const double kr_tangent_kh = 0.4;

/* The coarse interval of the step's coefficients: the largest even number
 * of grid intervals with k H <= kr_tangent_kh, at most
 * KR_TANGENT_STRIDE_MAX; 0 (tangents integrated with the states) below 2
 * and on Euler grids, whose Jacobian is that of Euler's rule, and with the
 * tendons' friction. */
void kr_set_tangent_stride(rod_kirchhoff *k) {
  double kk = rod_model_step_wavenumber(&k->model, k->rc.c0);
  double n = kk > 0 ? kr_tangent_kh / (kk * k->len_max) : KR_TANGENT_STRIDE_MAX;
  int s = n >= KR_TANGENT_STRIDE_MAX ? KR_TANGENT_STRIDE_MAX : (int)n;
  s -= s % 2;
  /* the tendons' friction depends on their lengths from the base, whose
   * tangent rides with the states (kirchhoff_friction_sweep.h) */
  const bool friction = k->slide_l && k->rc.c0 > 0;
  k->tangent_stride = k->stages == 4 && s >= 2 && !friction ? s : 0;
  rod_shooting_set_along(k->shoot, k->tangent_stride > 0);
  if (k->mshoot) /* else set when it is allocated (kr_mshoot_ready) */
    rod_mshoot_set_along(k->mshoot, k->tangent_stride > 0);
}

/* The evaluation point of grid node g (the first stage of interval g, the
 * last stage of the last interval at the tip). */
static size_t node_point(const sweep *sw, int g, int last) {
  if (g < last)
    return (size_t)sw->stages * g;
  return (size_t)sw->stages * (last - 1) + sw->stages - 1;
}

/* A at the state y at evaluation point p (its work values in wk). */
static inline void tangent_point(const sweep *sw, size_t p, const double *y,
                                 rod_rhs_work *wk, const bool planar,
                                 const bool general) {
  double f[ROD_NY];
  if (planar)
    rod_rhs_eval_planar(&sw->rc, &sw->hp[p], &sw->pt[p], y, f, wk, general);
  else
    rod_rhs_eval(&sw->rc, &sw->hp[p], &sw->pt[p], y, f, wk, general);
}

/* One coarse step of length H for nk directions from A at the nodes
 * p[0..m] of the step (m + 1 evaluations, equally spaced):
 *   m = 1: Heun's rule (second order; a lone interval),
 *   m = 2: classic RK4, the middle node serving both middle stages,
 *   m = 3: Kutta's 3/8 rule, stages at the four nodes. */
typedef struct {
  const double *y;
  rod_rhs_work w;
} tangent_node;

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
tangent_step(const sweep *sw, double H, const tangent_node *p, int m, int nk,
             double *dy, const bool planar, const bool general) {
  enum { MAX = ROD_NY * ROD_NY };
  double k1[MAX], k2[MAX], k3[MAX], k4[MAX], t[MAX];
  const int n = ROD_NY * nk;
  tangent_apply(sw, p[0].y, &p[0].w, nk, dy, k1, planar, general);
  if (m == 1) { /* dy += H/2 (A0 dy + A1 (dy + H A0 dy)) */
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + H * k1[i];
    tangent_apply(sw, p[1].y, &p[1].w, nk, t, k2, planar, general);
    for (int i = 0; i < n; i++)
      dy[i] += 0.5 * H * (k1[i] + k2[i]);
  } else if (m == 2) {
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + 0.5 * H * k1[i];
    tangent_apply(sw, p[1].y, &p[1].w, nk, t, k2, planar, general);
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + 0.5 * H * k2[i];
    tangent_apply(sw, p[1].y, &p[1].w, nk, t, k3, planar, general);
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + H * k3[i];
    tangent_apply(sw, p[2].y, &p[2].w, nk, t, k4, planar, general);
    for (int i = 0; i < n; i++)
      dy[i] += H / 6.0 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
  } else {
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + H / 3.0 * k1[i];
    tangent_apply(sw, p[1].y, &p[1].w, nk, t, k2, planar, general);
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + H * (k2[i] - k1[i] / 3.0);
    tangent_apply(sw, p[2].y, &p[2].w, nk, t, k3, planar, general);
    for (int i = 0; i < n; i++)
      t[i] = dy[i] + H * (k1[i] - k2[i] + k3[i]);
    tangent_apply(sw, p[3].y, &p[3].w, nk, t, k4, planar, general);
    for (int i = 0; i < n; i++)
      dy[i] += H / 8.0 * (k1[i] + 3.0 * (k2[i] + k3[i]) + k4[i]);
  }
}

/* The nodes of one coarse step from grid node j: tangent_stride grid
 * intervals (an even number), fewer where [a, b) or a point load's node
 * ends it; an odd rest is a 3/8-rule step of 3 intervals (a lone interval
 * a Heun step). */
static int coarse_step(const rod_kirchhoff *k, int j, int b) {
  const int next = k->loads.next_point[j];
  const int lim = (next < b ? next : b) - j; /* to the boundary */
  const int stride = k->tangent_stride;
  if (lim > stride) /* a 3/8 step where a lone interval would be left */
    return lim - stride == 1 ? 3 : stride;
  return lim % 2 && lim > 3 ? lim - 3 : lim; /* even, then a 3/8 step */
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double
tangents_along(rod_kirchhoff *k, int a, int b, const double *y_b, int nk,
               double *dy, const bool planar, const bool general) {
  sweep sw;
  sweep_init(&sw, k);
  const int last = k->nodes - 1;
  /* point loads' nodes (sweep_loop applies them there): one inside (a, b)
   * ends a coarse step on its left limit, one at b the last */
  tangent_node p[4];
  p[0].y = k->node_y + (size_t)a * KR_NODE;
  tangent_point(&sw, node_point(&sw, a, last), p[0].y, &p[0].w, planar,
                general);
  int evals = 1, stages = 0;
  for (int j = a; j < b;) {
    const int m = coarse_step(k, j, b);
    const int end = j + m, q = m % 2 ? m : 2; /* nodes after the first */
    const int step = m % 2 ? 1 : m / 2;       /* grid intervals apart */
    for (int i = 1; i <= q; i++) {
      int g = j + i * step;
      const double *y = k->node_y + (size_t)g * KR_NODE;
      if (g == b)
        y = y_b;
      if (k->loads.node_point[g] >= 0) /* the left limit ends the step */
        y = k->point_left + (size_t)k->loads.node_point[g] * ROD_NY;
      p[i].y = y;
      tangent_point(&sw, node_point(&sw, g, last), y, &p[i].w, planar, general);
    }
    evals += q;
    tangent_step(&sw, k->s[end] - k->s[j], p, q, nk, dy, planar, general);
    stages += q == 1 ? 2 : 4;
    p[0] = p[q];
    if (end < b && k->loads.node_point[end] >= 0) { /* the tangents pass the
                                                  constant jump unchanged */
      p[0].y = k->node_y + (size_t)end * KR_NODE;
      tangent_point(&sw, node_point(&sw, end, last), p[0].y, &p[0].w, planar,
                    general);
      evals++;
    }
    j = end;
  }
  for (int i = 0; i < ROD_NY * nk; i++)
    if (!isfinite(dy[i]))
      return -1.0;
  /* work in whole-rod integrations: a full sweep evaluates the states'
   * right-hand side and nk tangents at stages x intervals points */
  return (evals + (double)nk * stages) / ((double)k->stages * k->intervals);
}

static double tangents(void *user, int a, int b, const double *y_b, int nk,
                       double *dy) {
  rod_kirchhoff *k = user;
  if (k->tangent_stride < 2 || nk <= 0)
    return -1.0; /* no coarse interval (Euler grids, k h too large): the
                    tangents ride with the states (propagate) */
  if (k->general)
    return k->planar ? tangents_along(k, a, b, y_b, nk, dy, true, true)
                     : tangents_along(k, a, b, y_b, nk, dy, false, true);
  return k->planar ? tangents_along(k, a, b, y_b, nk, dy, true, false)
                   : tangents_along(k, a, b, y_b, nk, dy, false, false);
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

/* r = ((n(L) - F) L^2/EI, (m(L) - M) L/EI), F and M the tip loads at the
 * tip states y (kr_loads_tip: an attached tip body's depend on them). */
static void end(void *user, const double *y, double *r, double *drdy) {
  rod_kirchhoff *k = user;
  double F[3], M[3], dF[3 * ROD_NY], dM[3 * ROD_NY];
  const bool depends =
      kr_loads_tip(k, y, F, M, drdy ? dF : NULL, drdy ? dM : NULL);
  for (int i = 0; i < 3; i++) {
    r[i] = (y[ROD_Y_N + i] - F[i]) / k->force_scale;
    r[3 + i] = (y[ROD_Y_M + i] - M[i]) / k->moment_scale;
  }
  if (drdy) {
    memset(drdy, 0, (size_t)(6 * ROD_NY) * sizeof(double));
    for (int i = 0; i < 3; i++) {
      drdy[(size_t)(ROD_Y_N + i) * 6 + i] = 1.0 / k->force_scale;
      drdy[(size_t)(ROD_Y_M + i) * 6 + 3 + i] = 1.0 / k->moment_scale;
    }
    for (int j = 0; depends && j < ROD_NY; j++)
      for (int i = 0; i < 3; i++) {
        drdy[(size_t)j * 6 + i] -= dF[3 * j + i] / k->force_scale;
        drdy[(size_t)j * 6 + 3 + i] -= dM[3 * j + i] / k->moment_scale;
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
  k->bvp.tangents = tangents;
  k->bvp.user = k;
}
