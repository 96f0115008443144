/* A step of a stiffly accurate diagonally implicit Runge-Kutta scheme
 * (time.scheme; integrators/dirk.h). Each implicit stage is the shooting
 * problem of a BDF step, y_t = c0 y + H with c0 = 1 / (a_ii dt), whose
 * history terms H the stage storage writes into hp at every evaluation
 * point (the stage records of the sweeps, as space.history = stage). The
 * last stage is the step's solution; the embedded weights give its error
 * estimate, which the time loop's controller reads (rod_step_stats.error). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_schemes.h"

int kr_dirk_alloc(rod_kirchhoff *k) {
  if (!k->scheme)
    return ROD_OK;
  const rod_scenario *sc = &k->sc;
  /* the first step after the static state: the acceleration may jump at
   * t = 0 (a release), so the derivative there is not known, and a table
   * with an explicit first stage starts with sdirk4; the paper's start
   * takes it as zero */
  k->start_scheme =
      k->scheme->explicit_first && sc->time.startup == ROD_STARTUP_EULER
          ? &rod_dirk_sdirk4
          : k->scheme;
  const size_t P = (size_t)k->stages * (size_t)k->intervals;
  k->dirk = rod_dirk_alloc((int)P, KR_HW);
  k->dirk_err = calloc(P * KR_HW, sizeof(double));
  bool ok = k->dirk && k->dirk_err && kr_tip_body_dirk_alloc(k) == ROD_OK;
  for (int i = 0; i < KR_STAGE_PAST && ok; i++)
    ok = (k->stage_y[i] = calloc((size_t)k->nodes * ROD_NY, sizeof(double))) !=
         NULL;
  /* metres of position per unit error of velocity: 1 / omega_1 of the
   * clamped beam, omega_1 = 1.8751^2 / T, T = sqrt(rhoA L^4 / EI) */
  const double L = k->model.length, EI = k->model.K[0];
  const double T = sqrt(k->model.rho_area * L * L * L * L / EI);
  k->velocity_error_scale = T / (1.8751 * 1.8751);
  k->step_tolerance = INFINITY;
  return ok ? ROD_OK : ROD_ENOMEM;
}

void kr_dirk_free(rod_kirchhoff *k) {
  rod_dirk_free(k->dirk);
  rod_dirk_free(k->body_dirk);
  free(k->dirk_err);
  for (int i = 0; i < KR_STAGE_PAST; i++)
    free(k->stage_y[i]);
}

/* A solved stage (or the static state) at time t joins the predictor's
 * series, newest first; the states are the last sweep's. */
static void push_stage(rod_kirchhoff *k, double t, const double *x) {
  double *oldest = k->stage_y[KR_STAGE_PAST - 1];
  memmove(k->stage_y + 1, k->stage_y,
          (KR_STAGE_PAST - 1) * sizeof k->stage_y[0]);
  memmove(k->stage_t + 1, k->stage_t,
          (KR_STAGE_PAST - 1) * sizeof k->stage_t[0]);
  memmove(k->stage_x[1], k->stage_x[0],
          (KR_STAGE_PAST - 1) * sizeof k->stage_x[0]);
  k->stage_y[0] = oldest;
  k->stage_t[0] = t;
  memcpy(k->stage_x[0], x, sizeof k->stage_x[0]);
  for (int j = 0; j < k->nodes; j++)
    memcpy(oldest + (size_t)j * ROD_NY, k->node_y + (size_t)j * KR_NODE,
           ROD_NY * sizeof(double));
  if (k->n_stage < KR_STAGE_PAST)
    k->n_stage++;
}

void kr_dirk_rest(rod_kirchhoff *k) {
  if (!k->scheme)
    return;
  /* the paper's start: the rod at rest, zero rate (dirk_err is zero) */
  memset(k->dirk_err, 0,
         (size_t)k->stages * k->intervals * KR_HW * sizeof(double));
  rod_dirk_start(k->dirk, k->stage_val,
                 k->start_scheme == k->scheme ? k->dirk_err : NULL);
  kr_tip_body_dirk_rest(k, k->start_scheme == k->scheme);
  kr_friction_dirk_rest(k, k->start_scheme == k->scheme);
  k->n_stage = 0;
  for (int j = 0; j < k->nodes; j++) /* push_stage reads node_y */
    memcpy(k->node_y + (size_t)j * KR_NODE, k->sol_y + (size_t)j * KR_NODE,
           KR_NODE * sizeof(double));
  push_stage(k, 0.0, k->x);
}

/* The step's local error in metres of position: the estimated errors of
 * curvature du and strain dv turned into displacements by the linearised
 * kinematics along the rod, d theta' = R du, dp' = d theta x R e3 + R dv
 * (trapezoidal rule on the nodes), so that a curvature error of
 * wavenumber beta counts as du / beta^2, as it moves the rod; and the
 * velocity error dq as the displacement of the first mode it would carry,
 * dq / omega_1, or (rod_dirk_table.modal_estimate) of its own mode: a mode
 * of wavenumber beta has omega = beta^2 c, c = sqrt(EI / rhoA), so dq
 * integrated twice along the rod from the clamp over c is dq / omega for
 * it (a dq uniform along the rod counts L^2 dq / 2 c, 1.76 times
 * dq / omega_1). Largest over the nodes. */
static double error_norm(const rod_kirchhoff *k) {
  const int S = k->stages, I = k->intervals;
  const bool modal = k->scheme->modal_estimate;
  const double c = sqrt(k->model.K[0] / k->model.rho_area); /* m^2/s */
  double th[3] = {0, 0, 0}, dp[3] = {0, 0, 0};              /* at node j */
  double prev_rdu[3] = {0, 0, 0}, prev_dpds[3] = {0, 0, 0};
  double q1[3] = {0, 0, 0}, q2[3] = {0, 0, 0}; /* int R dq ds, twice */
  double prev_rdq[3] = {0, 0, 0}, prev_q1[3] = {0, 0, 0};
  double e = 0;
  for (int j = 0; j <= I; j++) {
    const size_t point = j < I ? (size_t)S * j : (size_t)S * (I - 1) + S - 1;
    const double *d = k->dirk_err + point * KR_HW;
    double R[9], rdu[3], rdv[3], rdq[3], t3[3], dpds[3];
    quat_to_R(R, k->node_y + (size_t)j * KR_NODE + ROD_Y_H);
    m3_mul_v(rdu, R, d + KR_HU);
    m3_mul_v(rdv, R, d + KR_HV);
    m3_mul_v(rdq, R, d + KR_HQ);
    v3_set(t3, R[2], R[5], R[8]);
    const double h = j > 0 ? k->len[j - 1] : 0.0;
    for (int i = 0; i < 3; i++)
      th[i] += 0.5 * h * (prev_rdu[i] + rdu[i]);
    v3_cross(dpds, th, t3);
    v3_add(dpds, dpds, rdv);
    for (int i = 0; i < 3; i++)
      dp[i] += 0.5 * h * (prev_dpds[i] + dpds[i]);
    v3_copy(prev_rdu, rdu);
    v3_copy(prev_dpds, dpds);
    if (modal) {
      for (int i = 0; i < 3; i++) {
        q1[i] += 0.5 * h * (prev_rdq[i] + rdq[i]);
        q2[i] += 0.5 * h * (prev_q1[i] + q1[i]);
      }
      v3_copy(prev_rdq, rdq);
      v3_copy(prev_q1, q1);
    }
    const double velocity =
        modal ? v3_norm(q2) / c : v3_norm(rdq) * k->velocity_error_scale;
    e = fmax(e, fmax(v3_norm(dp), velocity));
  }
  return e;
}

static void add_stage_stats(rod_step_stats *st, const rod_step_stats *s) {
  st->iterations += s->iterations;
  st->integrations += s->integrations;
  st->residual = fmax(st->residual, s->residual);
  if (s->method > st->method)
    st->method = s->method;
  st->fallback |= s->fallback;
}

int kr_dirk_step(rod_kirchhoff *k, double t, rod_step_stats *st) {
  const double t0 = k->time, h = t - t0;
  const rod_dirk_table *T =
      rod_dirk_rate_known(k->dirk) ? k->scheme : k->start_scheme;
  double x[6];
  memcpy(x, k->x, sizeof x);
  for (int i = 0; i < T->stages; i++) {
    const double ti = t0 + T->c[i] * h;
    const bool implicit =
        rod_dirk_stage_terms(k->dirk, T, i, h, (double *)k->hp);
    kr_tip_body_stage_terms(k, T, i, h);
    kr_friction_stage_terms(k, T, i, h);
    if (!implicit)
      continue; /* the explicit first stage: the derivative at t0 */
    const rod_bdf_coeffs c = {1.0 / (T->A[i][i] * h), 0, 0, 0};
    rod_step_stats ss;
    memset(&ss, 0, sizeof ss);
    bool modified;
    int status = kr_solve_chain(k, ti, &c, true, &modified, x, &ss);
    add_stage_stats(st, &ss);
    if (status != ROD_OK)
      return status;
    kr_update_strategy(k, modified, &ss);
    rod_dirk_stage_done(k->dirk, i, c.c0, k->stage_val, (const double *)k->hp);
    kr_tip_body_stage_done(k, i, c.c0);
    kr_friction_stage_done(k, i, c.c0);
    push_stage(k, ti, x);
  }
  rod_dirk_error(k->dirk, T, h, k->dirk_err);
  st->error = error_norm(k);
  if (st->error > k->step_tolerance) {
    st->rejected = 1; /* the state stays at t0 */
    return ROD_OK;
  }
  /* stiffly accurate: the last stage's sweep is the solution at t */
  kr_postprocess(k);
  kr_tendon_work_step(k, h);
  kr_tip_body_dirk_accept(k, T); /* reads the last sweep: before kr_accept */
  kr_friction_dirk_accept(k, T);
  kr_accept(k, x);
  rod_dirk_accept(k->dirk, T, k->stage_val);
  k->time = t;
  k->steps++;
  return ROD_OK;
}
