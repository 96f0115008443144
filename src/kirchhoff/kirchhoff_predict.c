/* Predictors of the Kirchhoff backend: the step's unknowns and the node
 * states (modified shooting's reference) from the accepted steps, by
 * polynomial extrapolation or the fitted linear recurrence of
 * rod/linpred.h, whichever predicted the recent steps better; a
 * Runge-Kutta stage's from the solved stages, by Lagrange extrapolation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_predict.h"

/* Order and fit window of the linear predictor (rod/linpred.h), measured
 * on the weight release: state prediction errors (median, scaled units)
 * 8.6e-3 by quartic extrapolation; 6.3e-4 at order 8, window 4; 3.3e-4 at
 * 16, 8; 2.8e-4 at 24, 8. */
enum { KR_LP_ORDER = 16, KR_LP_WINDOW = 8 };

/* Grid nodes the predictor's fit looks at: the modes are shared by the
 * whole rod, so a subset observes them all (the fit costs linear in it;
 * 4, 8 and 16 nodes predict equally well on the weight release). */
enum { KR_LP_FIT_NODES = 4 };

/* The predictor fits the states of every few nodes in the units of
 * multiple shooting, always including the clamp (the unknowns). */
static rod_linpred *alloc_predictor(const rod_kirchhoff *k) {
  const int n = k->nodes * ROD_NY;
  double *w = malloc((size_t)n * sizeof *w);
  if (!w)
    return NULL;
  int stride = (k->nodes + KR_LP_FIT_NODES - 1) / KR_LP_FIT_NODES;
  for (int j = 0; j < k->nodes; j++)
    for (int i = 0; i < ROD_NY; i++) {
      double sc = k->state_scale[i];
      w[j * ROD_NY + i] = j % stride == 0 ? 1.0 / (sc * sc) : 0.0;
    }
  rod_linpred *lp = rod_linpred_alloc(n, KR_LP_ORDER, KR_LP_WINDOW, w);
  free(w);
  return lp;
}

int kr_predictors_ready(rod_kirchhoff *k) {
  const size_t N = (size_t)k->nodes;
  if (!k->lp)
    k->lp = alloc_predictor(k); /* as reset (kr_reset_prediction) */
  if (!k->yref)
    k->yref = calloc(N * ROD_NY, sizeof(double));
  bool ok = k->lp && k->yref;
  for (int i = 0; i < KR_PAST - 1; i++) {
    if (!k->sol_prev[i])
      k->sol_prev[i] = calloc(N * KR_NODE, sizeof(double));
    ok = ok && k->sol_prev[i];
  }
  return ok ? ROD_OK : ROD_ENOMEM;
}

void kr_accept(rod_kirchhoff *k, const double *x) {
  memcpy(k->x, x, sizeof k->x);
  double *t = k->sol_y; /* the last sweep's records become the solution */
  k->sol_y = k->node_y;
  k->node_y = t;
  for (int j = 0; j < k->nodes; j++) /* the states, packed */
    memcpy(k->lp_z + (size_t)j * ROD_NY, k->sol_y + (size_t)j * KR_NODE,
           ROD_NY * sizeof(double));
}

/* Weights of the polynomial of degree `degree` through the newest
 * degree + 1 values, evaluated one step ahead:
 * w_i = (-1)^i binomial(degree + 1, i + 1). Returns the number of values
 * used (at least 1, at most `available`). */
static int extrapolation_weights(int degree, int available, double *w) {
  int n = degree + 1 < available ? degree + 1 : available;
  if (n < 1) /* the static state alone */
    n = 1;
  double b = n; /* binomial(n, 1) */
  for (int i = 0; i < n; i++) {
    w[i] = (i % 2 ? -1.0 : 1.0) * b;
    b = b * (n - i - 1) / (i + 2);
  }
  return n;
}

/* Degrees of the extrapolation to the next step, measured over degrees
 * 0..4 on the weight release, the impulse and the Cosserat anchor. For the
 * modified-shooting reference (all node states) integrations per step fell
 * with the degree (weight release 12.3 -> 9.0, anchor 8.3 -> 5.6). For
 * simple shooting's unknowns degree 4 is best on the anchor (5.5 vs 6.6 at
 * degree 3) and degree 3 on the weight release (18 vs 21), which auto runs
 * with modified shooting anyway. A higher degree helps the resolved modes
 * but amplifies the error of modes with w dt > pi/3 like
 * |exp(i w dt) - 1|^(degree + 1). */
enum { KR_DEGREE_UNKNOWNS = 4, KR_DEGREE_STATES = 4 };

/* Unknowns predicted by extrapolating the last accepted steps with a
 * polynomial. */
static void predict_polynomial(const rod_kirchhoff *k, double *x) {
  double w[KR_PAST];
  int n = extrapolation_weights(KR_DEGREE_UNKNOWNS,
                                k->predict_hold ? 1 : k->n_prev, w);
  for (int i = 0; i < 6; i++) {
    x[i] = 0;
    for (int l = 0; l < n; l++)
      x[i] += w[l] * k->x_prev[l][i];
  }
}

/* Unknowns predicted by the fitted linear recurrence. */
static void predict_linear(const rod_kirchhoff *k, double *x) {
  double nm[6]; /* n(0), m(0) */
  rod_linpred_predict(k->lp, ROD_Y_N, 6, nm);
  for (int i = 0; i < 3; i++) {
    x[i] = nm[i] / k->force_scale;
    x[3 + i] = nm[3 + i] / k->moment_scale;
  }
}

/* True when the linear recurrence predicted the recent steps better. */
static bool prefer_linear(const rod_kirchhoff *k) {
  return k->err_linear >= 0 && k->err_poly >= 0 && k->err_linear < k->err_poly;
}

/* Both predictions of the step's unknowns, before the first attempt; the
 * better one of the recent steps goes to the solver (predict). */
void kr_prepare_prediction(rod_kirchhoff *k) {
  predict_polynomial(k, k->x_poly);
  k->have_linear = k->lp_fitted;
  if (k->have_linear)
    predict_linear(k, k->x_linear);
  k->use_linear = k->have_linear && prefer_linear(k) && !k->predict_hold;
}

static double max_difference(const double *a, const double *b) {
  double e = 0;
  for (int i = 0; i < 6; i++)
    e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* Weight of the newest step in the running prediction errors. */
static const double kr_error_memory = 0.2;

/* Running errors of both predictors against the accepted unknowns x; the
 * first score of each is taken as it is. */
static void score_prediction(rod_kirchhoff *k, const double *x) {
  double g = kr_error_memory;
  double e = max_difference(k->x_poly, x);
  k->err_poly = k->err_poly < 0 ? e : (1 - g) * k->err_poly + g * e;
  if (k->have_linear) {
    e = max_difference(k->x_linear, x);
    k->err_linear = k->err_linear < 0 ? e : (1 - g) * k->err_linear + g * e;
  }
}

void kr_predict_hold(rod_kirchhoff *k, bool hold) {
  k->predict_hold = hold;
  kr_prepare_prediction(k);
}

void kr_predict(const rod_kirchhoff *k, double *x) {
  memcpy(x, k->use_linear ? k->x_linear : k->x_poly, sizeof k->x_poly);
}

/* Reference trajectory of modified shooting: the node states extrapolated
 * from the last accepted solutions, by the linear recurrence when it
 * predicts better, else by the polynomial, at the nodes that are multiples
 * of stride (1: all of them). Predicting only the segment nodes saves
 * the prediction of the whole rod, which took 17% of the weight release's
 * time with modified shooting; a retry with finer segments (attempt)
 * predicts every node (the polynomial between the regular nodes lost the
 * impulse with Euler and 40 nodes). */
void kr_predict_states(rod_kirchhoff *k, int stride) {
  const size_t N = (size_t)k->nodes;
  if (stride < 1)
    return;
  if (k->use_linear && !k->predict_hold) {
    if (stride == 1)
      rod_linpred_predict(k->lp, 0, (int)N * ROD_NY, k->yref);
    else
      for (size_t j = 0; j < N; j += (size_t)stride)
        rod_linpred_predict(k->lp, (int)j * ROD_NY, ROD_NY,
                            k->yref + j * ROD_NY);
    return;
  }
  double w[KR_PAST];
  int n = extrapolation_weights(KR_DEGREE_STATES,
                                k->predict_hold ? 1 : k->n_sol, w);
  const double *past[KR_PAST];
  past[0] = k->sol_y;
  for (int l = 1; l < KR_PAST; l++)
    past[l] = k->sol_prev[l - 1];
  for (size_t j = 0; j < N; j += (size_t)stride) {
    double *r = k->yref + j * ROD_NY;
    for (int i = 0; i < ROD_NY; i++) {
      double v = 0;
      for (int l = 0; l < n; l++)
        v += w[l] * past[l][j * KR_NODE + i];
      r[i] = v;
    }
  }
}

/* Steps between fits of the linear predictor. The recurrence describes
 * the rod's modes, which change slowly, so old coefficients keep
 * predicting well (measured: refitting every 1, 2, 4, 8, 16 steps gave
 * 2.92, 2.92, 2.89, 2.83, 2.90 iterations per step on the Cosserat anchor
 * and 4.99 to 4.93 on the weight release), and a fit costs as much as a
 * tenth of a sweep of a 40-node rod. */
static const int kr_lp_refit = 8;

void kr_reset_prediction(rod_kirchhoff *k) {
  if (k->lp) /* else allocated empty at the first step */
    rod_linpred_reset(k->lp);
  k->lp_fitted = k->have_linear = k->use_linear = false;
  k->err_poly = k->err_linear = -1.0; /* not known yet */
}

/* The accepted step joins the linear predictor's series. */
static void push_prediction(rod_kirchhoff *k, bool first) {
  if (first)
    kr_reset_prediction(k);
  else
    score_prediction(k, k->x);
  rod_linpred_push(k->lp, k->lp_z);
  if (!k->lp_fitted || rod_linpred_count(k->lp) % kr_lp_refit == 0) {
    bool ok = rod_linpred_fit(k->lp);
    k->lp_fitted = ok || (k->lp_fitted && rod_linpred_ready(k->lp));
  }
}

/* Before accepting a new solution: the current one becomes the previous,
 * and the oldest's buffer is the next sweeps' (pointers move, no copies). */
static void shift_solutions(rod_kirchhoff *k) {
  double *oldest = k->sol_prev[KR_PAST - 2];
  memmove(k->sol_prev + 1, k->sol_prev, (KR_PAST - 2) * sizeof k->sol_prev[0]);
  k->sol_prev[0] = k->sol_y;
  k->sol_y = oldest;
}

/* Accept the step's solution x (the last sweep is at it) into the past
 * solutions the predictors extrapolate; the static state before the first
 * step is not on the dynamic trajectory. */
void kr_record_step(rod_kirchhoff *k, const double *x, bool first) {
  if (first) {
    k->n_prev = 0;
    k->n_sol = 0;
  }
  shift_solutions(k);
  kr_accept(k, x);
  if (k->n_sol < KR_PAST)
    k->n_sol++;
  memmove(k->x_prev[1], k->x_prev[0], (KR_PAST - 1) * sizeof k->x_prev[0]);
  memcpy(k->x_prev[0], x, sizeof k->x);
  if (k->n_prev < KR_PAST)
    k->n_prev++;
  push_prediction(k, first);
}

/* The stages a prediction passes through lie at least this share of its
 * reach (t minus the newest stage's time) apart. The step's first
 * implicit stage (c = 0.5 of esdirk4) was extrapolated from the last
 * step's three newest stages (0.38 h to 0 before it), with weights of
 * 26 in sum of magnitudes: the modes a step does not follow came out
 * amplified (first scaled residual 6, against 0.3 to 1.6 at the other
 * stages). Integrations per step (esdirk4; impulse at time.tolerance =
 * 8e-6 and on 44 nodes at 0.45 ms, weight release at 5e-6, on 30 nodes
 * at 0.7 ms and on 20 nodes at 4 ms) at 0, 0.3, 0.5, 0.6 and 0.9: 35.06,
 * 34.17, 33.21, 33.28, 34.12; 32.77, 31.95, 31.50, 31.74, 32.37; 29.36,
 * 28.96, 28.58, 28.58, 28.83; 28.34, 27.91, 27.42, 27.58, 27.96; 36.17,
 * 34.82, 34.48, 35.18, 36.31. */
static const double kr_stage_gap = 0.5;

/* Lagrange weights at t of the newest stages with times at least
 * kr_stage_gap of the reach apart (at most KR_STAGE_USED: quadratic
 * extrapolation); their indices into idx. */
static int lagrange_weights(const rod_kirchhoff *k, double t, double *w,
                            int *idx) {
  int n = 0;
  const double gap = k->n_stage ? kr_stage_gap * fabs(t - k->stage_t[0]) : 0;
  for (int l = 0; l < k->n_stage && n < KR_STAGE_USED; l++) {
    bool distinct = true;
    for (int m = 0; m < n; m++)
      distinct = distinct && fabs(k->stage_t[l] - k->stage_t[idx[m]]) >
                                 fmax(gap, 1e-12 * (1.0 + fabs(t)));
    if (distinct)
      idx[n++] = l;
  }
  for (int l = 0; l < n; l++) {
    double p = 1.0;
    for (int m = 0; m < n; m++)
      if (m != l)
        p *= (t - k->stage_t[idx[m]]) /
             (k->stage_t[idx[l]] - k->stage_t[idx[m]]);
    w[l] = p;
  }
  return n;
}

void kr_predict_stage(const rod_kirchhoff *k, double t, double *x) {
  double w[KR_STAGE_USED];
  int idx[KR_STAGE_USED];
  int n = lagrange_weights(k, t, w, idx);
  for (int i = 0; i < 6; i++) {
    x[i] = 0;
    for (int l = 0; l < n; l++)
      x[i] += w[l] * k->stage_x[idx[l]][i];
  }
}

void kr_predict_stage_states(rod_kirchhoff *k, double t, int stride) {
  double w[KR_STAGE_USED];
  int idx[KR_STAGE_USED];
  int n = lagrange_weights(k, t, w, idx);
  if (stride < 1)
    return;
  for (size_t j = 0; j < (size_t)k->nodes; j += (size_t)stride) {
    double *r = k->yref + j * ROD_NY;
    for (int i = 0; i < ROD_NY; i++) {
      double v = 0;
      for (int l = 0; l < n; l++)
        v += w[l] * k->stage_y[idx[l]][j * ROD_NY + i];
      r[i] = v;
    }
  }
}
