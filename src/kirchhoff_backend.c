/* The Kirchhoff/Cosserat backend (seed 002): static equilibrium by shooting,
 * then one shooting solve of the BDF-alpha semi-discretised rod per step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff.h"
#include "rod/loads.h"

static void destroy(void *self) {
  rod_kirchhoff *k = self;
  if (!k)
    return;
  rod_shooting_free(k->shoot);
  rod_history_free(k->hist);
  free(k->s);
  free(k->len);
  free(k->hp);
  free(k->H_ends);
  free(k->Hs_ends);
  free(k->H_mid);
  free(k->ybuf);
  free(k->work);
  free(k->node_y);
  free(k->sol_y);
  free(k->rec_val);
  free(k->rec_der);
  free(k->out_pos);
  free(k->out_quat);
  free(k->out_vel);
  free(k->out_n);
  free(k->out_m);
  free(k);
}

/* Uniform grid; with an impulse inside the rod, the nearest interior node
 * moves onto its point (a node is added when there is none). */
static int build_grid(rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  double L = sc->rod.length;
  int n = sc->space.nodes;
  double pos = sc->impulse.position;
  bool inside = sc->impulse.enabled && pos > 0 && pos < L;
  if (inside && n < 3)
    n = 3;
  k->nodes = n;
  k->intervals = n - 1;
  k->s = malloc((size_t)n * sizeof(double));
  k->len = malloc((size_t)(n - 1) * sizeof(double));
  if (!k->s || !k->len)
    return ROD_ENOMEM;
  for (int j = 0; j < n; j++)
    k->s[j] = L * j / (n - 1);
  k->s[n - 1] = L;
  k->jump_node = -1;
  if (inside) {
    int j = (int)lround(pos / L * (n - 1));
    if (j < 1)
      j = 1;
    if (j > n - 2)
      j = n - 2;
    k->s[j] = pos;
    k->jump_node = j;
  } else if (sc->impulse.enabled && pos >= L) {
    k->jump_node = n - 1; /* acts as a tip force */
  }
  for (int j = 0; j + 1 < n; j++)
    k->len[j] = k->s[j + 1] - k->s[j];
  if (sc->impulse.enabled) {
    v3_copy(k->impulse_dir, sc->impulse.direction);
    v3_normalize(k->impulse_dir);
  }
  return ROD_OK;
}

static int create(const rod_scenario *sc, void **self, rod_error *err) {
  rod_kirchhoff *k = calloc(1, sizeof *k);
  if (!k)
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  k->sc = *sc;
  rod_model_init(&k->model, sc);
  k->integ = sc->space.integrator == ROD_SPACE_EULER ? &rod_spatial_euler
                                                     : &rod_spatial_rk4;
  k->hermite = sc->space.history == ROD_HISTORY_HERMITE;
  double EI = k->model.K[0], L = k->model.length;
  k->force_scale = EI / (L * L);
  k->moment_scale = EI / L;
  int st = build_grid(k);
  if (st != ROD_OK) {
    destroy(k);
    return rod_error_set(err, st, sc->source, "", "out of memory");
  }
  const size_t N = (size_t)k->nodes, I = (size_t)k->intervals;
  const int nbuf = ROD_NY * 7 + ROD_NP;
  k->hp = calloc(3 * I, sizeof *k->hp);
  k->H_ends = calloc(2 * I * KR_HW, sizeof(double));
  k->Hs_ends = calloc(2 * I * KR_HW, sizeof(double));
  k->H_mid = calloc(I * KR_HW, sizeof(double));
  k->ybuf = calloc((size_t)nbuf, sizeof(double));
  k->work = calloc(k->integ->work_size(nbuf), sizeof(double));
  k->node_y = calloc(N * KR_NODE, sizeof(double));
  k->sol_y = calloc(N * KR_NODE, sizeof(double));
  k->rec_val = calloc(2 * I * KR_HW, sizeof(double));
  k->rec_der = calloc(2 * I * KR_HW, sizeof(double));
  k->out_pos = calloc(N * 3, sizeof(double));
  k->out_quat = calloc(N * 4, sizeof(double));
  k->out_vel = calloc(N * 3, sizeof(double));
  k->out_n = calloc(N * 3, sizeof(double));
  k->out_m = calloc(N * 3, sizeof(double));
  k->hist = rod_history_alloc(k->intervals, KR_HW);
  kr_bvp_init(k);
  k->shoot = rod_shooting_alloc(&k->bvp);
  if (!k->hp || !k->H_ends || !k->Hs_ends || !k->H_mid || !k->ybuf ||
      !k->work || !k->node_y || !k->sol_y || !k->rec_val || !k->rec_der ||
      !k->out_pos || !k->out_quat || !k->out_vel || !k->out_n || !k->out_m ||
      !k->hist || !k->shoot) {
    destroy(k);
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  }
  *self = k;
  return ROD_OK;
}

/* Unknowns of a straight rigid rod along the clamp tangent carrying the
 * current loads: n(0) is the total load, m(0) its moment about the clamp. */
static void rigid_guess(const rod_kirchhoff *k, double *x) {
  double R[9], d[3], n0[3], moment_arm[3];
  quat_to_R(R, k->base_h);
  v3_set(d, R[2], R[5], R[8]);
  double L = k->model.length;
  /* n(s) = F + sum of loads beyond s; int_0^L n ds = F L + w L^2/2 + F_k s_k */
  double w[3];
  v3_scale(w, -1.0, k->rc.bn); /* rhoA g + fbar, N/m */
  for (int i = 0; i < 3; i++) {
    n0[i] = k->tip_force[i] + w[i] * L;
    moment_arm[i] = k->tip_force[i] * L + 0.5 * w[i] * L * L;
  }
  if (k->jump_node > 0 && k->jump_node < k->nodes - 1) {
    v3_axpy(n0, 1.0, k->jump_force);
    v3_axpy(moment_arm, k->s[k->jump_node], k->jump_force);
  }
  double m0[3];
  v3_cross(m0, d, moment_arm);
  v3_add(m0, m0, k->tip_moment);
  for (int i = 0; i < 3; i++) {
    x[i] = n0[i] / k->force_scale;
    x[3 + i] = m0[i] / k->moment_scale;
  }
}

static rod_lm_options shooting_options(const rod_kirchhoff *k) {
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = k->sc.solver.tolerance;
  o.max_iterations = k->sc.solver.max_iterations;
  o.lambda0 = 0.0; /* Newton steps first, damping only when they fail */
  o.step_tolerance = 1e-15;
  return o;
}

/* Make node_y hold the sweep of x (the LM's last evaluation normally is). */
static int sync_solution(rod_kirchhoff *k, const double *x) {
  if (memcmp(k->last_x, x, sizeof k->last_x) != 0)
    return kr_sweep(k, x) == 0 ? ROD_OK : ROD_ENONFINITE;
  return ROD_OK;
}

static void accept(rod_kirchhoff *k, const double *x) {
  memcpy(k->x, x, sizeof k->x);
  memcpy(k->sol_y, k->node_y, (size_t)k->nodes * KR_NODE * sizeof(double));
}

static void add_stats(rod_step_stats *st, const rod_shooting_stats *s) {
  st->iterations += s->iterations;
  st->integrations += s->integrations;
  st->residual = s->residual;
}

static int solve_static(void *self, rod_step_stats *st) {
  rod_kirchhoff *k = self;
  memset(st, 0, sizeof *st);
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.0, true);
  double x[6];
  rigid_guess(k, x);
  rod_lm_options o = shooting_options(k);
  rod_shooting_stats ss;
  int status = rod_shooting_solve(k->shoot, x, &o, &ss);
  add_stats(st, &ss);
  if (status != ROD_OK) {
    /* Load continuation: ramp every load from 0 to its full value. */
    double full_tip[3], full_bn[3], full_jump[3];
    v3_copy(full_tip, k->tip_force);
    v3_copy(full_bn, k->rc.bn);
    v3_copy(full_jump, k->jump_force);
    const int ramps = 20;
    status = ROD_OK;
    for (int i = 1; i <= ramps && status == ROD_OK; i++) {
      double f = (double)i / ramps;
      v3_scale(k->tip_force, f, full_tip);
      v3_scale(k->rc.bn, f, full_bn);
      v3_scale(k->jump_force, f, full_jump);
      if (i == 1)
        rigid_guess(k, x);
      status = rod_shooting_solve(k->shoot, x, &o, &ss);
      add_stats(st, &ss);
    }
  }
  if (status == ROD_OK)
    status = sync_solution(k, x);
  if (status != ROD_OK)
    return status;
  kr_postprocess(k);
  rod_history_rest(k->hist, k->rec_val, k->rec_der);
  accept(k, x);
  memcpy(k->x_prev[0], x, sizeof k->x);
  k->n_prev = 1;
  k->time = 0.0;
  k->steps = 0;
  k->have_jacobian_c0 = false;
  st->method = ROD_METHOD_SIMPLE;
  return ROD_OK;
}

/* Extrapolate the unknowns from the last accepted steps. */
static void predict(const rod_kirchhoff *k, double *x) {
  for (int i = 0; i < 6; i++) {
    const double a = k->x_prev[0][i], b = k->x_prev[1][i], c = k->x_prev[2][i];
    if (k->n_prev >= 3)
      x[i] = 3.0 * a - 3.0 * b + c;
    else if (k->n_prev == 2)
      x[i] = 2.0 * a - b;
    else
      x[i] = a;
  }
}

/* One attempt at the step to time t with coefficients c. */
static int attempt(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   double *x, rod_step_stats *st) {
  kr_set_coefficients(k, c, true);
  kr_set_loads(k, t, false);
  predict(k, x);
  rod_lm_options o = shooting_options(k);
  o.broyden = true;
  o.warm_jacobian = k->have_jacobian_c0 && k->jacobian_c0 == c->c0;
  rod_shooting_stats ss;
  int status = rod_shooting_solve(k->shoot, x, &o, &ss);
  add_stats(st, &ss);
  if (status == ROD_OK) {
    k->have_jacobian_c0 = true;
    k->jacobian_c0 = c->c0;
  } else {
    k->have_jacobian_c0 = false;
  }
  return status;
}

static int step(void *self, double t, rod_step_stats *st) {
  rod_kirchhoff *k = self;
  memset(st, 0, sizeof *st);
  const rod_scenario *sc = &k->sc;
  const double dt = sc->time.dt;
  rod_bdf_coeffs c;
  if (k->steps == 0 && sc->time.startup == ROD_STARTUP_EULER)
    c = rod_bdf_backward_euler(dt);
  else
    c = rod_bdf_alpha(sc->time.alpha, dt);
  double x[6];
  st->method = ROD_METHOD_SIMPLE;
  int status = attempt(k, t, &c, x, st);
  if (status != ROD_OK && c.d1 != 0.0) {
    /* the paper's last resort (Fig. 2): the same step with BDF2 */
    c = rod_bdf_alpha(0.0, dt);
    st->method = ROD_METHOD_BDF2;
    status = attempt(k, t, &c, x, st);
  }
  if (status == ROD_OK)
    status = sync_solution(k, x);
  if (status != ROD_OK)
    return status;
  kr_postprocess(k);
  rod_history_push(k->hist, &c, k->rec_val, k->rec_der, k->H_ends, k->Hs_ends);
  accept(k, x);
  /* the static state is not on the dynamic trajectory: drop it */
  if (k->steps == 0)
    k->n_prev = 0;
  memmove(k->x_prev[1], k->x_prev[0], 2 * sizeof k->x_prev[0]);
  memcpy(k->x_prev[0], x, sizeof k->x);
  if (k->n_prev < 3)
    k->n_prev++;
  k->time = t;
  k->steps++;
  return ROD_OK;
}

static int sample(void *self, rod_sample *out) {
  rod_kirchhoff *k = self;
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
    v3_copy(k->out_pos + 3 * j, y + ROD_NY);
    m3_mul_v(k->out_vel + 3 * j, R, y + ROD_Y_Q);
    v3_copy(k->out_n + 3 * j, y + ROD_Y_N);
    v3_copy(k->out_m + 3 * j, y + ROD_Y_M);
  }
  out->points = k->nodes;
  out->s = k->s;
  out->position = k->out_pos;
  out->orientation = k->out_quat;
  out->velocity = k->out_vel;
  out->force = k->out_n;
  out->moment = k->out_m;
  out->kinetic = k->energy.kinetic;
  out->elastic = k->energy.elastic;
  out->gravity = k->energy.gravity;
  return ROD_OK;
}

const rod_backend_ops rod_backend_kirchhoff = {
    .name = "kirchhoff",
    .create = create,
    .destroy = destroy,
    .solve_static = solve_static,
    .step = step,
    .sample = sample,
};
