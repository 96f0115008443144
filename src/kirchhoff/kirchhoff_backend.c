/* The Kirchhoff/Cosserat backend (Till & Rucker 2017): static equilibrium by
 * shooting, then one shooting solve of the BDF-alpha semi-discretised rod per
 * step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/loads.h"
#include "kirchhoff/kirchhoff.h"

static void destroy(void *self) {
  rod_kirchhoff *k = self;
  if (!k)
    return;
  rod_shooting_free(k->shoot);
  kr_contact_free(k->contact);
  free(k->contact_jump);
  rod_inputs_free(k->inputs);
  rod_mshoot_free(k->mshoot);
  free(k->yref);
  for (int i = 0; i < KR_PAST - 1; i++)
    free(k->sol_prev[i]);
  rod_history_free(k->hist);
  rod_history_free(k->stage_hist);
  rod_linpred_free(k->lp);
  kr_dirk_free(k);
  free(k->lp_z);
  free(k->stage_val);
  free(k->stage_ps);
  free(k->s);
  free(k->s_base);
  free(k->node_point);
  free(k->next_point);
  free(k->point_left);
  free(k->len);
  free(k->hp);
  free(k->pt);
  free(k->H_ends);
  free(k->Hs_ends);
  free(k->H_mid);
  free(k->ybuf);
  free(k->node_y);
  free(k->sol_y);
  free(k->rec_val);
  free(k->rec_der);
  free(k->out_pos);
  free(k->out_quat);
  free(k->out_vel);
  free(k->out_n);
  free(k->out_m);
  kr_regrid_free(k);
  free(k);
}

/* Ascending doubles, for qsort. */
static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Index of the value v in the ascending array a[0..n), -1 if absent. */
static int find_value(const double *a, int n, double v) {
  for (int i = 0; i < n; i++)
    if (a[i] == v)
      return i;
  return -1;
}

/* The arclengths of the point loads inside the rod (0 < s < L), ascending
 * and distinct; returns how many. */
static int point_positions(const rod_scenario *sc, double *pos) {
  const double L = sc->rod.length;
  int n = 0;
  if (sc->impulse.enabled && sc->impulse.position > 0 &&
      sc->impulse.position < L)
    pos[n++] = sc->impulse.position;
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    if (!a->tip && a->s < L && find_value(pos, n, a->s) < 0)
      pos[n++] = a->s;
  }
  qsort(pos, (size_t)n, sizeof *pos, compare_doubles);
  return n;
}

/* Uniform grid of space.nodes points, with a node exactly at every point
 * load inside the rod: the nearest interior node of the uniform grid moves
 * there, or, when that node is the clamp, the tip or another load's, a
 * node is added. */
static int build_grid(rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  const double L = sc->rod.length;
  const int n0 = rod_model_nodes(&k->model, sc);
  double pos[KR_MAX_POINTS];
  const int np = point_positions(sc, pos);
  k->s = malloc((size_t)(n0 + np) * sizeof(double));
  if (!k->s)
    return ROD_ENOMEM;
  for (int j = 0; j < n0; j++)
    k->s[j] = L * j / (n0 - 1);
  k->s[n0 - 1] = L;
  int n = n0, moved[KR_MAX_POINTS], nmoved = 0;
  for (int p = 0; p < np; p++) {
    const int j = (int)lround(pos[p] / L * (n0 - 1));
    bool taken = false;
    for (int m = 0; m < nmoved; m++)
      taken = taken || moved[m] == j;
    if (j >= 1 && j <= n0 - 2 && !taken) {
      k->s[j] = pos[p];
      moved[nmoved++] = j;
    } else {
      k->s[n++] = pos[p];
    }
  }
  if (n > n0)
    qsort(k->s, (size_t)n, sizeof *k->s, compare_doubles);
  k->nodes = n;
  k->intervals = n - 1;
  k->npoints = np;
  k->len = malloc((size_t)(n - 1) * sizeof(double));
  k->node_point = malloc((size_t)n * sizeof(int));
  k->next_point = malloc((size_t)n * sizeof(int));
  k->point_left = calloc((size_t)(np > 0 ? np : 1) * ROD_NY, sizeof(double));
  if (!k->len || !k->node_point || !k->next_point || !k->point_left)
    return ROD_ENOMEM;
  for (int j = 0; j < n; j++)
    k->node_point[j] = -1;
  for (int p = 0; p < np; p++) {
    k->point_node[p] = find_value(k->s, n, pos[p]);
    k->node_point[k->point_node[p]] = p;
  }
  for (int j = n - 1, next = n; j >= 0; j--) {
    k->next_point[j] = next;
    if (k->node_point[j] >= 0)
      next = j;
  }
  /* who loads where: a point's index, -2 the tip, -1 nowhere (the clamp) */
  k->impulse_point = -1;
  if (sc->impulse.enabled) {
    k->impulse_point = sc->impulse.position >= L ? -2
                       : sc->impulse.position > 0
                           ? find_value(pos, np, sc->impulse.position)
                           : -1;
    v3_copy(k->impulse_dir, sc->impulse.direction);
    v3_normalize(k->impulse_dir);
  }
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    k->load_point[i] = a->tip || a->s >= L ? -2 : find_value(pos, np, a->s);
  }
  k->s_base = malloc((size_t)n * sizeof(double));
  if (!k->s_base)
    return ROD_ENOMEM;
  memcpy(k->s_base, k->s, (size_t)n * sizeof(double));
  k->len_max = 0;
  for (int j = 0; j + 1 < n; j++) {
    k->len[j] = k->s[j + 1] - k->s[j];
    k->len_max = fmax(k->len_max, k->len[j]);
  }
  return ROD_OK;
}

/* Most interior shooting nodes modified shooting may place. */
enum { KR_MAX_NODES = 48 };

/* Units of the states for multiple shooting's unknowns and continuity
 * rows: forces by EI/L^2 and moments by EI/L as the tip residual,
 * velocities by L/T and angular velocities by 1/T with the beam's time
 * scale T = sqrt(rhoA L^4 / EI). */
static void set_state_scale(rod_kirchhoff *k) {
  double L = k->model.length, EI = k->model.K[0];
  double T = sqrt(k->model.rho_area * L * L * L * L / EI);
  for (int i = 0; i < ROD_NY; i++) {
    double s = 1.0;
    if (i >= ROD_Y_N && i < ROD_Y_N + 3)
      s = k->force_scale;
    else if (i >= ROD_Y_M && i < ROD_Y_M + 3)
      s = k->moment_scale;
    else if (i >= ROD_Y_Q && i < ROD_Y_Q + 3)
      s = L / T;
    else if (i >= ROD_Y_W)
      s = 1.0 / T;
    k->state_scale[i] = s;
  }
}

/* Largest k h of the run on the grid's longest interval: the time-discrete
 * rod varies along s on the length 1/k, k^4 = rhoA c0^2 / EI
 * (docs/numerics.md), and RK4 on an interval h errs like (k h)^4. */
static double max_kh(const rod_kirchhoff *k) {
  double kk = rod_model_run_wavenumber(&k->model, &k->sc);
  double h = 0;
  for (int j = 0; j < k->intervals; j++)
    h = k->len[j] > h ? k->len[j] : h;
  return kk * h;
}

/* History between grid nodes for RK4 (space.history = auto): a record per
 * stage makes rest states exact fixed points and removes the (k h)^4 error
 * of interpolated node records (frequency errors 1e-7 instead of 1e-5 at
 * k h = 0.1), but its spurious (-1)^i rate mode is neutral under the
 * trapezoidal rule and grows once k h exceeds about 0.4 even with
 * alpha = -0.48 (measured; validation/history_study.py). So: stage records
 * where they are safe, cubic Hermite interpolation otherwise.
 * Cosserat: stage records grow already from k h = 0.23 (a thick rod,
 * L/d = 20, alpha = -0.48, a strike at the tip; stable at 0.21, and the
 * limit may fall further with thickness), while cubic Hermite held there
 * up to k h = 0.95: hermite throughout. */
rod_history_kind kr_choose_history(const rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  if (sc->space.history != ROD_HISTORY_AUTO)
    return sc->space.history;
  if (k->scheme) /* L-stable: the stage records' spurious mode is damped */
    return ROD_HISTORY_STAGE;
  if (sc->space.integrator == ROD_SPACE_EULER)
    return ROD_HISTORY_STAGE; /* Euler's only stage is the node */
  if (k->model.kind == ROD_MODEL_COSSERAT)
    return ROD_HISTORY_HERMITE;
  if (sc->time.alpha > -0.5 + 1e-9 && max_kh(k) <= 0.3)
    return ROD_HISTORY_STAGE;
  return ROD_HISTORY_HERMITE;
}

/* With time.tolerance, the shooting's tolerance on the scaled residual:
 * a residual r moves the rod by about r L / 2 (a tip moment r EI / L
 * bends it by r L / 2; a tip force r EI / L^2 by r L / 3), and the solve
 * may take this share of the step's error (SUNDIALS' nonlinear solver
 * takes 0.1 of the local error test); never below kr_newton_floor, where
 * rounding in the sweeps decides. */
static const double kr_newton_share = 0.1, kr_newton_floor = 1e-12;

static int create(const rod_scenario *sc, void **self, rod_error *err) {
  rod_kirchhoff *k = calloc(1, sizeof *k);
  if (!k)
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  k->sc = *sc;
  rod_model_init(&k->model, sc);
  int st = rod_inputs_load(sc, &k->inputs, err);
  if (st != ROD_OK) {
    free(k);
    return st;
  }
  if (k->inputs->precurvature)
    rod_model_set_precurvature_table(&k->model, k->inputs->precurvature->data,
                                     k->inputs->precurvature->rows);
  if (sc->time.has_tolerance) /* the shooting follows the step's error */
    k->sc.solver.tolerance =
        fmax(kr_newton_share * 2.0 * sc->time.tolerance / sc->rod.length,
             kr_newton_floor);
  k->integ = sc->space.integrator == ROD_SPACE_EULER ? &rod_spatial_euler
                                                     : &rod_spatial_rk4;
  k->stages = k->integ->stages;
  double EI = k->model.K[0], L = k->model.length;
  k->force_scale = EI / (L * L);
  k->moment_scale = EI / L;
  kr_tip_body_init(k);
  st = build_grid(k);
  if (st != ROD_OK) {
    destroy(k);
    return rod_error_set(err, st, sc->source, "", "out of memory");
  }
  k->scheme = rod_dirk_for(sc->time.scheme);
  k->history_kind = kr_choose_history(k);
  const size_t N = (size_t)k->nodes, I = (size_t)k->intervals;
  /* a sweep carries at most ROD_NY tangents (modified shooting) */
  const int nbuf = ROD_NY * (1 + ROD_NY);
  const size_t P = (size_t)k->stages * I; /* evaluation points */
  k->hp = calloc(P, sizeof *k->hp);
  k->pt = calloc(P, sizeof *k->pt);
  k->stage_val = calloc(P * KR_HW, sizeof(double));
  k->stage_ps = calloc(P * 3, sizeof(double));
  k->H_ends = calloc(2 * I * KR_HW, sizeof(double));
  k->Hs_ends = calloc(2 * I * KR_HW, sizeof(double));
  k->H_mid = calloc(I * KR_HW, sizeof(double));
  k->ybuf = calloc((size_t)nbuf, sizeof(double));
  k->node_y = calloc(N * KR_NODE, sizeof(double));
  k->sol_y = calloc(N * KR_NODE, sizeof(double));
  k->rec_val = calloc(2 * I * KR_HW, sizeof(double));
  k->rec_der = calloc(2 * I * KR_HW, sizeof(double));
  k->out_pos = calloc(N * 3, sizeof(double));
  k->out_quat = calloc(N * 4, sizeof(double));
  k->out_vel = calloc(N * 3, sizeof(double));
  k->out_n = calloc(N * 3, sizeof(double));
  k->out_m = calloc(N * 3, sizeof(double));
  /* w's history only for rotary inertia (w_t = c0 w + W) */
  const int width = k->model.rho_inertia[0] > 0 ? KR_HW : KR_HOM;
  k->hist = rod_history_alloc(k->intervals, width, KR_HW);
  k->stage_hist = rod_history_alloc_points((int)P, width, KR_HW);
  kr_bvp_init(k);
  k->shoot = rod_shooting_alloc(&k->bvp);
  set_state_scale(k);
  k->mshoot = rod_mshoot_alloc(&k->bvp, k->state_scale, KR_MAX_NODES);
  k->mshoot_c0 = -1.0;
  k->lp = kr_alloc_predictor(k);
  k->lp_z = calloc(N * ROD_NY, sizeof(double));
  k->yref = calloc(N * ROD_NY, sizeof(double));
  bool past_ok = true;
  for (int i = 0; i < KR_PAST - 1; i++)
    past_ok = (k->sol_prev[i] = calloc(N * KR_NODE, sizeof(double))) && past_ok;
  if (kr_dirk_alloc(k) != ROD_OK || !k->lp || !k->lp_z || !k->mshoot ||
      !k->yref || !past_ok || !k->hp || !k->H_ends || !k->Hs_ends ||
      !k->H_mid || !k->ybuf || !k->node_y || !k->sol_y || !k->rec_val ||
      !k->rec_der || !k->out_pos || !k->out_quat || !k->out_vel || !k->out_n ||
      !k->out_m || !k->hist || !k->stage_hist || !k->stage_val ||
      !k->stage_ps || !k->shoot || !k->pt || kr_regrid_alloc(k) != ROD_OK) {
    destroy(k);
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  }
  kr_set_precurvature(k);
  if (kr_contact_create(k) != ROD_OK) {
    destroy(k);
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  }
  *self = k;
  return ROD_OK;
}

/* Unknowns of a straight rigid rod along the clamp tangent carrying the
 * current loads: n(0) is the total load, m(0) its moment about the clamp. */
void kr_rigid_guess(const rod_kirchhoff *k, double *x) {
  double R[9], d[3], n0[3], moment_arm[3];
  quat_to_R(R, k->base_h);
  v3_set(d, R[2], R[5], R[8]);
  double L = k->model.length;
  /* n(s) = F + sum of loads beyond s; int_0^L n ds = F L + w L^2/2 + F_k s_k */
  double w[3];
  v3_scale(w, -1.0, k->rc.bn); /* rhoA g + fbar, N/m */
  for (int i = 0; i < 3; i++) {
    const double tip = k->tip_force[i] + k->body_weight[i];
    n0[i] = tip + w[i] * L;
    moment_arm[i] = tip * L + 0.5 * w[i] * L * L;
  }
  double m0[3];
  v3_copy(m0, k->tip_moment);
  for (int p = 0; p < k->npoints; p++) {
    v3_axpy(n0, 1.0, k->point_force[p]);
    v3_axpy(moment_arm, k->s[k->point_node[p]], k->point_force[p]);
    v3_add(m0, m0, k->point_moment[p]);
  }
  double arm[3];
  v3_cross(arm, d, moment_arm);
  v3_add(m0, arm, m0);
  for (int i = 0; i < 3; i++) {
    x[i] = n0[i] / k->force_scale;
    x[3 + i] = m0[i] / k->moment_scale;
  }
}

/* The planar right-hand side and in-plane tangents when the step allows
 * them (kr_planar_symmetric; solver.planar = auto). Bit for bit the same
 * results as the 3D path, at about half the cost. */
void kr_set_planar(rod_kirchhoff *k) {
  /* in-plane directions: n_x, n_z, m_y of the unknowns; h0, h2, n_x, n_z,
   * m_y, q_x, q_z, w_y of the states (every even index) */
  static const int in_x[] = {0, 2, 4};
  static const int in_y[] = {0, 2, 4, 6, 8, 10, 12, 14};
  const bool p =
      k->sc.solver.planar == ROD_PLANAR_AUTO && kr_planar_symmetric(k);
  k->planar = p;
  rod_shooting_set_active(k->shoot, p ? in_x : NULL, p ? 3 : 0);
  rod_mshoot_set_active(k->mshoot, p ? in_x : NULL, p ? 3 : 0, p ? in_y : NULL,
                        p ? 8 : 0);
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

static int solve_static(void *self, rod_step_stats *st) {
  const int status = kr_solve_static(self, st);
  kr_regrid_static_done(self);
  return status;
}

static void static_report(void *self, rod_static_report *rep) {
  const rod_kirchhoff *k = self;
  *rep = k->static_report;
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
 * chosen by measurement: longer segments and fewer unknowns (esdirk4 on
 * the weight release, 30 nodes at 0.7 ms: 59 planar unknowns at G = 10, 27
 * at 100), whose explicit inverse costs a tenth to form and a fifth to
 * apply, for one or two more iterations per step. Instructions (callgrind,
 * with the quadratic stage predictor and folded Broyden updates) for
 * G = 10, 30, 50, 70, 100: weight release 0.7 s 2.42e9, 1.67e9, 1.67e9,
 * 1.82e9, 1.71e9; impulse 0.5 s (44 nodes, 0.45 ms) at 50, 70, 100:
 * 3.96e9, 3.73e9, 3.73e9, and under time.tolerance = 1e-5 (40 nodes) at
 * 50, 100, 200: 4.45e9, 4.19e9, 4.08e9. BDF-alpha keeps its 10 (its
 * shipped scenarios bit for bit). */
static const double kr_stage_segment_growth = 100.0;

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
    kr_dirk_predict_states(k, t, stride);
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
      .fold_updates = k->scheme != NULL,
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

/* One attempt at the step to time t with coefficients c by the given
 * method (simple or modified shooting; auto's simple shooting within its
 * budget unless budget is false). */
void kr_pose_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  double *x) {
  kr_set_coefficients(k, c, true);
  kr_set_loads(k, t, false);
  kr_set_planar(k);
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
  kr_dirk_predict(k, t, x);
}

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

int kr_solve_chain(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   bool stage, bool *modified, double *x, rod_step_stats *st) {
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
  k->modified_on = modified && rod_mshoot_node_count(k->mshoot) > 0;
  if (k->sc.solver.strategy == ROD_STRATEGY_AUTO) {
    k->modified_on = false; /* auto keeps modified shooting by cost */
    if (k->auto_modified > 0)
      k->auto_modified--;
    else if (!modified && st->iterations > kr_auto_iterations)
      k->auto_modified = kr_auto_hold;
  }
}

/* The strategy of Till & Rucker 2017, Fig. 2: simple shooting; after
 * max_iterations without convergence, modified shooting; if that fails too, the
 * same step with BDF2 (alpha = 0). Modified shooting that placed interior nodes
 * stays on for the next step. solver.strategy chooses the first method (auto:
 * modified shooting right away when simple shooting is ill-conditioned). */
static int step(void *self, double t, rod_step_stats *st) {
  rod_kirchhoff *k = self;
  memset(st, 0, sizeof *st);
  const rod_scenario *sc = &k->sc;
  const double dt = sc->time.dt;
  const bool first = k->steps == 0;
  if (k->scheme)
    return kr_dirk_step(k, t, st);
  rod_bdf_coeffs c = kr_step_coefficients(k);
  bool modified;
  double x[6];
  kr_regrid(k);
  kr_prepare_prediction(k);
  int status;
  if (k->contact) {
    status = kr_contact_time_step(k, t, &c, &modified, x, st);
  } else {
    status = kr_solve_chain(k, t, &c, false, &modified, x, st);
  }
  if (status != ROD_OK && !first && !k->contact && c.d1 != 0.0) {
    c = rod_bdf_alpha(0.0, dt);
    st->fallback = 1;
    st->method = ROD_METHOD_BDF2;
    status = attempt(k, t, &c, false, modified, true, x, st);
  }
  if (status != ROD_OK)
    return status;
  kr_update_strategy(k, modified, st);
  kr_postprocess(k);
  kr_push_history(k);
  kr_tip_body_accept(k, k->node_y + (size_t)(k->nodes - 1) * KR_NODE);
  kr_record_step(k, x, first);
  if (k->contact)
    kr_contact_accept(k, true);
  k->time = t;
  k->steps++;
  return ROD_OK;
}

/* The accepted solution at the nodes, right limits. */
static void sample_nodes(rod_kirchhoff *k) {
  for (int j = 0; j < k->nodes; j++) {
    const double *y = k->sol_y + (size_t)j * KR_NODE;
    double R[9], hn = 0;
    quat_to_R(R, y + ROD_Y_H);
    for (int i = 0; i < 4; i++)
      hn += y[ROD_Y_H + i] * y[ROD_Y_H + i];
    hn = 1.0 / sqrt(hn);
    double sgn = y[ROD_Y_H] < 0 ? -1.0 : 1.0; /* w >= 0 */
    for (int i = 0; i < 4; i++)
      k->out_quat[4 * j + i] = sgn * hn * y[ROD_Y_H + i];
    v3_copy(k->out_pos + 3 * j, y + ROD_NY + ROD_Q_P);
    m3_mul_v(k->out_vel + 3 * j, R, y + ROD_Y_Q);
    v3_copy(k->out_n + 3 * j, y + ROD_Y_N);
    v3_copy(k->out_m + 3 * j, y + ROD_Y_M);
  }
}

static int sample(void *self, rod_sample *out) {
  rod_kirchhoff *k = self;
  const bool moved = k->regrids > 0; /* interpolated onto the output grid */
  if (moved)
    kr_regrid_sample(k);
  else
    sample_nodes(k);
  out->points = k->nodes;
  out->s = k->s_out;
  out->position = k->out_pos;
  out->orientation = k->out_quat;
  out->velocity = k->out_vel;
  out->force = k->out_n;
  out->moment = k->out_m;
  out->kinetic = k->energy.kinetic;
  out->elastic = k->energy.elastic;
  out->gravity = k->energy.gravity;
  if (k->contact) {
    kr_contact_sample(k, out);
    if (moved)
      kr_regrid_sample_contact(k, out);
  }
  return ROD_OK;
}

static int set_drive(void *self, const rod_drive *d, rod_error *err) {
  (void)err;
  rod_kirchhoff *k = self;
  k->drive = *d;
  return ROD_OK;
}

static void set_tolerance(void *self, double tol) {
  rod_kirchhoff *k = self;
  k->step_tolerance = tol;
}

static const char *refusal(void *self) {
  rod_kirchhoff *k = self;
  return k->contact ? kr_contact_refusal(k) : "";
}

const rod_backend_ops rod_backend_kirchhoff = {
    .name = "kirchhoff",
    .create = create,
    .destroy = destroy,
    .solve_static = solve_static,
    .static_report = static_report,
    .step = step,
    .sample = sample,
    .set_drive = set_drive,
    .set_tolerance = set_tolerance,
    .refusal = refusal,
};
