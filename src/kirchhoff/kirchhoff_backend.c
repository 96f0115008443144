/* The Kirchhoff/Cosserat backend's adapter (Till & Rucker 2017): the ops
 * table the simulation calls (sim/backend.h). It creates and frees the
 * rod's data, and hands the static state, each time step and each sample
 * down to the schemes (kirchhoff_schemes.h); nothing below calls it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_schemes.h"

static void destroy(void *self) {
  rod_kirchhoff *k = self;
  if (!k)
    return;
  rod_shooting_free(k->shoot);
  kr_contact_free(k->contact);
  kr_loads_free(k);
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
  free(k->point_left);
  free(k->len);
  free(k->hp);
  free(k->pt);
  free(k->route);
  free(k->tendon_z);
  kr_friction_free(k);
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
  atomic_init(&k->static_progress, -1.0);
  rod_model_init(&k->model, sc);
  int st = rod_inputs_load(sc, &k->inputs, err);
  if (st != ROD_OK) {
    free(k);
    return st;
  }
  if (k->inputs->precurvature)
    rod_model_set_precurvature_table(&k->model, k->inputs->precurvature->data,
                                     k->inputs->precurvature->rows);
  if (sc->time.has_tolerance) { /* the shooting follows the step's error */
    k->step_shooting_tolerance =
        fmax(kr_newton_share * 2.0 * sc->time.tolerance / sc->rod.length,
             kr_newton_floor);
    k->sc.solver.tolerance =
        fmin(k->step_shooting_tolerance, sc->solver.tolerance);
  }
  k->integ = sc->space.integrator == ROD_SPACE_EULER ? &rod_spatial_euler
                                                     : &rod_spatial_rk4;
  k->stages = k->integ->stages;
  double EI = k->model.K[0], L = k->model.length;
  k->force_scale = EI / (L * L);
  k->moment_scale = EI / L;
  kr_tip_body_init(k);
  st = kr_build_grid(k);
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
  /* modified shooting's and the predictors' workspaces (2.4 MB on 100
   * nodes) wait for the first time step or a static solve by segments
   * (kr_mshoot_ready, kr_predictors_ready): one static solve never needs
   * them */
  k->mshoot_c0 = -1.0;
  k->lp_z = calloc(N * ROD_NY, sizeof(double));
  if (kr_dirk_alloc(k) != ROD_OK || !k->lp_z || !k->hp || !k->H_ends ||
      !k->Hs_ends || !k->H_mid || !k->ybuf || !k->node_y || !k->sol_y ||
      !k->rec_val || !k->rec_der || !k->out_pos || !k->out_quat ||
      !k->out_vel || !k->out_n || !k->out_m || !k->hist || !k->stage_hist ||
      !k->stage_val || !k->stage_ps || !k->shoot || !k->pt ||
      kr_regrid_alloc(k) != ROD_OK || kr_tendon_alloc(k) != ROD_OK) {
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

/* The static state (kirchhoff_static.c), the Runge-Kutta scheme's start at
 * rest from it, and the output grid (its grid). */
/* The static state at solver.tolerance, or the time steps' shooting
 * tolerance where that is tighter: it starts every step (a tolerance of
 * 1e-3 m left the clamp moment 3e-4 of the loads' off, which the balance
 * check refuses). */
static int solve_static(void *self, rod_step_stats *st) {
  rod_kirchhoff *k = self;
  const int status = kr_solve_static(k, st);
  if (status == ROD_OK)
    kr_dirk_rest(k);
  kr_regrid_static_done(k);
  if (k->step_shooting_tolerance > 0)
    k->sc.solver.tolerance = k->step_shooting_tolerance;
  return status;
}

static void static_report(void *self, rod_static_report *rep) {
  const rod_kirchhoff *k = self;
  *rep = k->static_report;
}

/* A time step to t: the Runge-Kutta scheme's (time.scheme) or BDF-alpha's
 * (Till & Rucker 2017). The first allocates the time steps' workspaces
 * before its solve, the run's set-up (ROD_ENOMEM when it cannot); later
 * steps allocate nothing. */
static int step(void *self, double t, rod_step_stats *st) {
  rod_kirchhoff *k = self;
  memset(st, 0, sizeof *st);
  int s = kr_mshoot_ready(k);
  if (s == ROD_OK)
    s = kr_predictors_ready(k);
  if (s != ROD_OK)
    return s;
  return k->scheme ? kr_dirk_step(k, t, st) : kr_bdf_step(k, t, st);
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
    if (k->rc.ntendons > 0) /* the backbone's, without the tendons' pull */
      kr_tendon_backbone(k, j, y, k->out_n + 3 * j, k->out_m + 3 * j);
    else {
      v3_copy(k->out_n + 3 * j, y + ROD_Y_N);
      v3_copy(k->out_m + 3 * j, y + ROD_Y_M);
    }
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
  kr_tendon_sample(k, out);
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

static double static_progress(void *self) {
  rod_kirchhoff *k = self;
  return atomic_load_explicit(&k->static_progress, memory_order_relaxed);
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
    .static_progress = static_progress,
};
