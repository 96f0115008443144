/* The solve room of the Kirchhoff backend (kirchhoff_solve.h): one step's
 * or stage's shooting problem posed (coefficients, loads, planar fast path,
 * prediction) and solved by the strategy of Till & Rucker 2017, Fig. 2 and
 * solver.strategy: simple shooting with Broyden updates, modified shooting
 * on segments of bounded error growth, the fallbacks between them and
 * auto's choice by cost; the shooting's options and statistics, and the
 * rigid rod's unknowns that start the statics. */
#include <math.h>
#include <string.h>

#include "kirchhoff/kirchhoff_solve.h"

/* Unknowns of a straight rigid rod along the clamp tangent carrying the
 * current loads: n(0) is the total load, m(0) its moment about the clamp. */
void kr_rigid_guess(const rod_kirchhoff *k, double *x) {
  double R[9], d[3], n0[3], m0[3];
  quat_to_R(R, k->base_h);
  v3_set(d, R[2], R[5], R[8]);
  kr_loads_straight(k, d, n0, m0);
  for (int i = 0; i < 3; i++) {
    x[i] = n0[i] / k->force_scale;
    x[3 + i] = m0[i] / k->moment_scale;
  }
}

/* in-plane directions: n_x, n_z, m_y of the unknowns; h0, h2, n_x, n_z,
 * m_y, q_x, q_z, w_y of the states (every even index) */
static const int in_x[] = {0, 2, 4};
static const int in_y[] = {0, 2, 4, 6, 8, 10, 12, 14};

static void mshoot_set_planar(rod_kirchhoff *k) {
  const bool p = k->planar;
  rod_mshoot_set_active(k->mshoot, p ? in_x : NULL, p ? 3 : 0, p ? in_y : NULL,
                        p ? 8 : 0);
}

/* The planar right-hand side and in-plane tangents when the step allows
 * them (kr_planar_symmetric; solver.planar = auto). Bit for bit the same
 * results as the 3D path, at about half the cost. */
void kr_set_planar(rod_kirchhoff *k) {
  const bool p =
      k->sc.solver.planar == ROD_PLANAR_AUTO && kr_planar_symmetric(k);
  k->planar = p;
  rod_shooting_set_active(k->shoot, p ? in_x : NULL, p ? 3 : 0);
  if (k->mshoot)
    mshoot_set_planar(k);
}

/* Most interior shooting nodes modified shooting may place. */
enum { KR_MAX_NODES = 48 };

int kr_mshoot_max_nodes(const rod_kirchhoff *k) {
  const int most = k->nodes - 2; /* as rod_mshoot_alloc limits it */
  return KR_MAX_NODES < most ? KR_MAX_NODES : (most > 0 ? most : 0);
}

int kr_mshoot_ready(rod_kirchhoff *k) {
  if (k->mshoot)
    return ROD_OK;
  k->mshoot = rod_mshoot_alloc(&k->bvp, k->state_scale, KR_MAX_NODES);
  if (!k->mshoot)
    return ROD_ENOMEM;
  /* the settings the solve posed so far */
  rod_mshoot_set_along(k->mshoot, k->tangent_stride > 0);
  mshoot_set_planar(k);
  return ROD_OK;
}

rod_lm_options kr_shooting_options(const rod_kirchhoff *k) {
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = k->sc.solver.tolerance;
  o.max_iterations = k->sc.solver.max_iterations;
  o.lambda0 = 0.0; /* Newton steps first, damping only when they fail */
  o.step_tolerance = 1e-15;
  return o;
}

void kr_add_stats(rod_step_stats *st, const rod_shooting_stats *s) {
  st->iterations += s->iterations;
  st->integrations += s->integrations;
  st->residual = s->residual;
}

/* Drift from the last solution (scaled state units) beyond which modified
 * shooting restarts a sweep at a new node (Holsapple's rule). The regular
 * spacing below already bounds each segment's error growth, so this is a
 * safety net for gross departures only: with thresholds of 1 to 10 the
 * reference itself strays that far during a strike and nodes multiplied
 * (impulse: 28 -> 34 integrations per step); at 100 it fires once in the
 * shipped scenarios (the impulse's strike at 2 ms, modified shooting
 * throughout) and costs nothing. */
static const double kr_drift = 100.0;

/* Auto gives simple shooting this many iterations before modified shooting
 * takes over the step (the paper's strategy waits max_iterations). */
static const int kr_auto_simple_budget = 25;

/* Error growth allowed over one segment of modified shooting. */
static const double kr_segment_growth = 10.0;

/* The same for the implicit stages of a Runge-Kutta scheme (time.scheme),
 * chosen by measurement with their solves (rod_mshoot_options.stages):
 * longer segments mean fewer unknowns but a Jacobian that ages faster
 * (more iterations per stage). rodsim bench, esdirk4, best of 7
 * interleaved, G = 30, 50, 70 against the earlier solves (Broyden's
 * updates folded into an explicit inverse at G = 100): the weight release
 * on 20 nodes at 4, 3 and 2 ms 31.9, 27.8, 28.6 (28.5); 38.2, 41.0, 36.0
 * (37.1); 63.9, 55.5, 58.2 (62.4) ms, on 30 nodes at 1 and 0.7 ms 159,
 * 151, 153 (169); 212, 205, 239 (245) ms, at time.tolerance = 5e-6 259,
 * 248, 255 (307) ms; the impulse at 8e-6 138, 142, 153 (188) ms and on
 * 44 nodes at 0.45 ms 130, 135, 138 (171) ms. BDF-alpha keeps its 10 (its
 * shipped scenarios bit for bit). */
static const double kr_stage_segment_growth = 50.0;

/* Grid intervals per modified-shooting segment. The semi-discretised rod
 * behaves like EI y'''' + rhoA c0^2 y = f, whose solutions grow like
 * exp(k s / sqrt 2) with k^4 = rhoA c0^2 / EI (docs/numerics.md); a
 * segment of length sqrt 2 ln(G) / k grows errors by at most G. */
static int segment_spacing(const rod_kirchhoff *k, double c0) {
  double kk = rod_model_step_wavenumber(&k->model, c0);
  double G = k->scheme ? kr_stage_segment_growth : kr_segment_growth;
  double len = M_SQRT2 * log(G) / kk;
  double h = k->model.length / k->intervals;
  if (len >= k->model.length)
    return 0;
  int n = (int)(len / h);
  return n < 1 ? 1 : n;
}

/* Modified shooting's reference states at time t, at every stride-th
 * node. */
static void predict_states(rod_kirchhoff *k, double t, int stride) {
  if (k->scheme)
    kr_predict_stage_states(k, t, stride);
  else
    kr_predict_states(k, stride);
}

/* Modified shooting of the current step. First the regular segments from
 * the states predicted at their nodes, the drift test against the last
 * solution (the paper's reference). If that fails, the remaining tries
 * and iterations go to ever finer segments (halving the first segment, as
 * rod_mshoot_solve would) from the prediction at every node. */
static int solve_modified(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                          const rod_lm_options *o, double *x,
                          rod_step_stats *st) {
  const int spacing = segment_spacing(k, c->c0);
  predict_states(k, t, spacing);
  rod_mshoot_options mo = {
      .spacing = spacing,
      .drift = kr_drift,
      .tolerance = o->tolerance,
      .max_iterations = o->max_iterations,
      .reuse_jacobian = k->mshoot_c0 == c->c0,
      .drift_ref = k->lp_z,
      .attempts = 1,
      .stages = k->scheme != NULL,
  };
  k->mshoot_c0 = c->c0;
  rod_shooting_stats ss;
  int status = rod_mshoot_solve(k->mshoot, x, k->yref, &mo, &ss);
  kr_add_stats(st, &ss);
  if (status == ROD_OK || status == ROD_EINVAL)
    return status;
  const int count = rod_mshoot_node_count(k->mshoot);
  mo.spacing = (count ? rod_mshoot_nodes(k->mshoot)[0] : k->nodes - 1) / 2;
  mo.max_iterations -= ss.iterations;
  if (mo.spacing < 1 || mo.max_iterations <= 0)
    return status;
  predict_states(k, t, 1);
  mo.drift_ref = NULL;
  mo.attempts = 4;
  mo.reuse_jacobian = false;
  status = rod_mshoot_solve(k->mshoot, x, k->yref, &mo, &ss);
  kr_add_stats(st, &ss);
  return status;
}

void kr_pose_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  double *x) {
  kr_set_coefficients(k, c, true);
  kr_set_loads(k, t, false);
  kr_set_planar(k);
  if (!k->disp_warm)
    kr_predict(k, x);
}

rod_bdf_coeffs kr_step_coefficients(const rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  return k->steps == 0 && sc->time.startup == ROD_STARTUP_EULER
             ? rod_bdf_backward_euler(sc->time.dt)
             : rod_bdf_alpha(sc->time.alpha, sc->time.dt);
}

/* A Runge-Kutta stage at time t whose history terms are in hp. */
static void pose_stage(rod_kirchhoff *k, double t, double c0, double *x) {
  kr_set_stage(k, c0);
  kr_set_loads(k, t, false);
  kr_set_planar(k);
  if (!k->disp_warm)
    kr_predict_stage(k, t, x);
}

/* One attempt at the step to time t with coefficients c by the given
 * method (simple or modified shooting; auto's simple shooting within its
 * budget unless budget is false). */
static int attempt(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   bool stage, bool modified, bool budget, double *x,
                   rod_step_stats *st) {
  if (stage)
    pose_stage(k, t, c->c0, x);
  else
    kr_pose_step(k, t, c, x);
  rod_lm_options o = kr_shooting_options(k);
  if (modified)
    return solve_modified(k, t, c, &o, x, st);
  if (budget && k->sc.solver.strategy == ROD_STRATEGY_AUTO &&
      o.max_iterations > kr_auto_simple_budget)
    o.max_iterations = kr_auto_simple_budget;
  o.broyden = true;
  /* A Jacobian along the prediction's sweep (k->tangent_stride > 0; 0.9
   * integrations on the weight release) is worth taking at every step:
   * the last step's, even with Broyden updates, is a poor chord (simple
   * shooting's conditioning amplifies the change of the rod). Measured
   * with rodsim bench, auto, against reusing it: weight release 6.16 ->
   * 5.34 integrations per step (52 -> 57x), over 20 s 4.88 -> 4.18
   * (67 -> 72x), at 5 ms 6.40 -> 5.16. Modified shooting's Jacobian, with
   * 8 directions per segment, is still reused (fresh at every step: the
   * impulse at 2 ms 8.54 -> 8.84 integrations, 34 -> 30x). */
  o.warm_jacobian =
      k->tangent_stride == 0 && k->have_jacobian_c0 && k->jacobian_c0 == c->c0;
  rod_shooting_stats ss;
  int status = rod_shooting_solve(k->shoot, x, &o, &ss);
  k->have_jacobian_c0 = status == ROD_OK;
  k->jacobian_c0 = c->c0;
  kr_add_stats(st, &ss);
  return status;
}

/* Error growth of simple shooting over the whole rod, exp(k L / sqrt 2)
 * (docs/numerics.md). */
static double simple_growth(const rod_kirchhoff *k, double c0) {
  double kk = rod_model_step_wavenumber(&k->model, c0);
  return exp(kk * k->model.length / M_SQRT2);
}

/* Auto strategy. Simple shooting costs one sweep per iteration but, from
 * an extrapolated guess, leaves Newton's region of fast convergence when
 * the problem is ill-conditioned and the guess poor (weakly damped modes
 * near w dt = 1); modified shooting converges in a near-linear regime but
 * pays for nodes and Jacobians. Which is cheaper depends on the scenario
 * (weight release at 2 ms: modified 2x faster; the Cosserat anchor with
 * alpha = -0.2: simple 2x faster), so auto measures: a step that simple
 * shooting solves in more than kr_auto_iterations iterations switches the
 * next kr_auto_hold steps to modified shooting, after which simple is tried
 * again. Beyond kr_auto_growth simple shooting is hopeless in double
 * precision and modified shooting is used throughout. */
static const double kr_auto_growth = 2000.0;

/* Error growth beyond which simple shooting is not even a last resort: the
 * residual's sensitivity turns rounding (1e-16) into the tolerance
 * (1e-8). */
static const double kr_simple_growth_limit = 1e8;
static const int kr_auto_iterations = 6;
static const int kr_auto_hold = 50;

static bool modified_first(const rod_kirchhoff *k, double c0) {
  switch (k->sc.solver.strategy) {
  case ROD_STRATEGY_PAPER:
    return k->modified_on;
  case ROD_STRATEGY_SIMPLE:
    return false;
  case ROD_STRATEGY_MODIFIED:
    return true;
  case ROD_STRATEGY_AUTO:
    break;
  }
  return k->modified_on || k->auto_modified > 0 ||
         simple_growth(k, c0) > kr_auto_growth;
}

static int solve_chain(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                       bool stage, bool *modified, double *x,
                       rod_step_stats *st) {
  const rod_scenario *sc = &k->sc;
  const bool only_simple = sc->solver.strategy == ROD_STRATEGY_SIMPLE;
  *modified = modified_first(k, c->c0);
  st->method = *modified ? ROD_METHOD_MODIFIED : ROD_METHOD_SIMPLE;
  int status = attempt(k, t, c, stage, *modified, true, x, st);
  if (status == ROD_OK || only_simple)
    return status;
  if (!*modified) {
    *modified = true;
    st->fallback = 1;
    st->method = ROD_METHOD_MODIFIED;
    status = attempt(k, t, c, stage, true, true, x, st);
  } else if (sc->solver.strategy == ROD_STRATEGY_AUTO &&
             simple_growth(k, c->c0) < kr_simple_growth_limit) {
    /* auto chose modified shooting and it failed: simple shooting with
     * the whole iteration budget, whose damped steps sometimes get where
     * the chord iteration of multiple shooting does not (the impulse on
     * 20 Euler nodes at dt = 5 ms failed at 0.06 s without this) */
    st->fallback = 1;
    st->method = ROD_METHOD_SIMPLE;
    status = attempt(k, t, c, stage, false, false, x, st);
    if (status == ROD_OK)
      *modified = false;
  }
  return status;
}

void kr_update_strategy(rod_kirchhoff *k, bool modified,
                        const rod_step_stats *st) {
  k->modified_on =
      modified && k->mshoot && rod_mshoot_node_count(k->mshoot) > 0;
  if (k->sc.solver.strategy == ROD_STRATEGY_AUTO) {
    k->modified_on = false; /* auto keeps modified shooting by cost */
    if (k->auto_modified > 0)
      k->auto_modified--;
    else if (!modified && st->iterations > kr_auto_iterations)
      k->auto_modified = kr_auto_hold;
  }
}

/* The arguments of a solve for kr_tendon_solve. */
typedef struct {
  double t;
  const rod_bdf_coeffs *c;
  bool stage, chain, *modified;
  double *x;
  rod_step_stats *st;
} solve_args;

static int solve_posed(rod_kirchhoff *k, void *ctx) {
  solve_args *a = ctx;
  if (a->chain)
    return solve_chain(k, a->t, a->c, a->stage, a->modified, a->x, a->st);
  return attempt(k, a->t, a->c, false, *a->modified, true, a->x, a->st);
}

int kr_solve_chain(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   bool stage, bool *modified, double *x, rod_step_stats *st) {
  solve_args a = {t, c, stage, true, modified, x, st};
  return kr_tendon_solve(k, t, x, solve_posed, &a);
}

int kr_solve_once(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  bool modified, double *x, rod_step_stats *st) {
  solve_args a = {t, c, false, false, &modified, x, st};
  return kr_tendon_solve(k, t, x, solve_posed, &a);
}
