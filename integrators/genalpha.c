/* Generalized-alpha steps with Newton iterations on the accelerations
 * (integrators/genalpha.h; Arnold & Bruls 2007, eq. 5-7 with the
 * Chung-Hulbert parameters). */
#include "integrators/genalpha.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rod/status.h"

struct rod_genalpha {
  int n;
  rod_genalpha_params p;
  double t;
  double *q, *v, *a, *qdd;     /* accepted state */
  double *q1, *v1, *a1, *qdd1; /* the step's iterate */
  double *r, *dx;              /* residual and correction */
  const double *dq, *dv;       /* offsets of the end state, or NULL */
};

rod_genalpha_params rod_genalpha_params_from_radius(double rho) {
  rod_genalpha_params p;
  p.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
  p.alpha_f = rho / (rho + 1.0);
  p.gamma = 0.5 - p.alpha_m + p.alpha_f;
  double s = 1.0 - p.alpha_m + p.alpha_f;
  p.beta = 0.25 * s * s;
  return p;
}

double rod_genalpha_mode_error(rod_genalpha_params p, double dt, double omega,
                               double span) {
  const double w2 = omega * omega, h2 = dt * dt;
  double q = 1.0, v = 0.0, qdd = -w2, a = qdd, err = 0.0;
  const long n = (long)ceil(span / dt - 1e-9);
  for (long i = 1; i <= n; i++) {
    /* q1 = Q + h^2 beta a1 and the balance of the accelerations with
     * qdd1 = -omega^2 q1, solved for a1 */
    const double Q = q + dt * v + h2 * (0.5 - p.beta) * a;
    const double a1 =
        (-(1 - p.alpha_f) * w2 * Q + p.alpha_f * qdd - p.alpha_m * a) /
        ((1 - p.alpha_m) + (1 - p.alpha_f) * w2 * h2 * p.beta);
    q = Q + h2 * p.beta * a1;
    v += dt * ((1 - p.gamma) * a + p.gamma * a1);
    a = a1;
    qdd = -w2 * q;
    err = fmax(err, fabs(q - cos(omega * dt * (double)i)));
  }
  return err;
}

void rod_genalpha_free(rod_genalpha *w) {
  if (!w)
    return;
  free(w->q);
  free(w);
}

rod_genalpha *rod_genalpha_alloc(int n) {
  if (n < 1)
    return NULL;
  rod_genalpha *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->n = n;
  w->q = calloc(10 * (size_t)n, sizeof(double));
  if (!w->q) {
    free(w);
    return NULL;
  }
  double *b = w->q;
  w->v = b + n;
  w->a = b + 2 * n;
  w->qdd = b + 3 * n;
  w->q1 = b + 4 * n;
  w->v1 = b + 5 * n;
  w->a1 = b + 6 * n;
  w->qdd1 = b + 7 * n;
  w->r = b + 8 * n;
  w->dx = b + 9 * n;
  w->p = rod_genalpha_params_from_radius(1.0);
  return w;
}

void rod_genalpha_set_params(rod_genalpha *w, rod_genalpha_params p) {
  w->p = p;
}

void rod_genalpha_set_offsets(rod_genalpha *w, const double *dq,
                              const double *dv) {
  w->dq = dq;
  w->dv = dv;
}

void rod_genalpha_init(rod_genalpha *w, double t, const double *q,
                       const double *v, const double *qdd, const double *a) {
  const size_t bytes = (size_t)w->n * sizeof(double);
  w->t = t;
  memcpy(w->q, q, bytes);
  memcpy(w->v, v, bytes);
  memcpy(w->qdd, qdd, bytes);
  memcpy(w->a, a ? a : qdd, bytes);
}

/* q1, v1, a1 from the iterate qdd1 (the update formulas of the header). */
static void update_iterate(rod_genalpha *w, double h) {
  const rod_genalpha_params *p = &w->p;
  const double cq = h * h * (0.5 - p->beta), bq = h * h * p->beta;
  const double cv = h * (1.0 - p->gamma), bv = h * p->gamma;
  for (int i = 0; i < w->n; i++) {
    w->a1[i] = ((1.0 - p->alpha_f) * w->qdd1[i] + p->alpha_f * w->qdd[i] -
                p->alpha_m * w->a[i]) /
               (1.0 - p->alpha_m);
    w->q1[i] = w->q[i] + h * w->v[i] + cq * w->a[i] + bq * w->a1[i];
    w->v1[i] = w->v[i] + cv * w->a[i] + bv * w->a1[i];
  }
  if (w->dq) /* the nonsmooth scheme's position correction and jump */
    for (int i = 0; i < w->n; i++) {
      w->q1[i] += w->dq[i];
      w->v1[i] += w->dv[i];
    }
}

int rod_genalpha_step(rod_genalpha *w, const rod_genalpha_system *sys, double h,
                      const rod_genalpha_options *opt,
                      rod_genalpha_stats *stats, void *user) {
  const rod_genalpha_params *p = &w->p;
  const double t1 = w->t + h;
  const double ratio = (1.0 - p->alpha_f) / (1.0 - p->alpha_m);
  const double beta_p = h * h * p->beta * ratio;
  const double gamma_p = h * p->gamma * ratio;
  const int n = w->n;
  memcpy(w->qdd1, w->qdd, (size_t)n * sizeof(double)); /* predictor */
  int status = ROD_ENOCONV;
  bool small_step = false; /* the last correction was below step_tolerance */
  for (int it = 0;; it++) {
    update_iterate(w, h);
    int st = sys->residual(t1, w->q1, w->v1, w->qdd1, w->r, user);
    if (stats)
      stats->evaluations++;
    if (st != 0) {
      status = st;
      break;
    }
    double norm = 0;
    for (int i = 0; i < n; i++) {
      double ri = fabs(w->r[i]) * opt->residual_scale;
      if (!(ri <= norm)) /* also catches NaN */
        norm = ri;
    }
    if (stats)
      stats->residual = norm;
    if (!isfinite(norm)) {
      status = ROD_ENONFINITE;
      break;
    }
    if (norm <= opt->tolerance || small_step) {
      status = ROD_OK;
      break;
    }
    if (it >= opt->max_iterations)
      break;
    for (int i = 0; i < n; i++)
      w->r[i] = -w->r[i];
    st = sys->solve(t1, beta_p, gamma_p, w->r, w->dx, user);
    if (stats)
      stats->iterations++;
    if (st != 0) {
      status = st;
      break;
    }
    double move = 0;
    for (int i = 0; i < n; i++) {
      w->qdd1[i] += w->dx[i];
      move = fmax(move, beta_p * fabs(w->dx[i]));
    }
    small_step = move <= opt->step_tolerance;
  }
  if (status != ROD_OK)
    return status;
  const size_t bytes = (size_t)n * sizeof(double);
  memcpy(w->q, w->q1, bytes);
  memcpy(w->v, w->v1, bytes);
  memcpy(w->a, w->a1, bytes);
  memcpy(w->qdd, w->qdd1, bytes);
  w->t = t1;
  return ROD_OK;
}

double rod_genalpha_time(const rod_genalpha *w) { return w->t; }
const double *rod_genalpha_q(const rod_genalpha *w) { return w->q; }
const double *rod_genalpha_v(const rod_genalpha *w) { return w->v; }
const double *rod_genalpha_qdd(const rod_genalpha *w) { return w->qdd; }
const double *rod_genalpha_a(const rod_genalpha *w) { return w->a; }
