/* Dormand-Prince 5(4) with first-same-as-last stages, the standard step
 * size controller and Hairer's starting step (Hairer, Norsett & Wanner,
 * "Solving ODEs I", II.4 eq. 4.12-4.13, table 5.2). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/ivp.h"
#include "rod/status.h"

struct rod_rk45 {
  int n;
  double h;        /* proposed next step, 0 if unknown */
  int have_fsal;   /* k[0] holds f(t, y) of the current state */
  double t_fsal;   /* the time k[0] belongs to */
  double *k[7];    /* stages */
  double *y1, *ys; /* solution candidate, stage argument */
};

/* Butcher tableau (Dormand & Prince 1980). */
static const double C[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
static const double A[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
/* fifth-order weights minus the embedded fourth-order ones */
static const double E[7] = {
    71.0 / 57600,      0,          -71.0 / 16695, 71.0 / 1920,
    -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

void rod_rk45_free(rod_rk45 *w) {
  if (!w)
    return;
  free(w->k[0]);
  free(w);
}

rod_rk45 *rod_rk45_alloc(int n) {
  if (n < 1)
    return NULL;
  rod_rk45 *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->n = n;
  double *b = calloc(9 * (size_t)n, sizeof(double));
  if (!b) {
    free(w);
    return NULL;
  }
  for (int s = 0; s < 7; s++)
    w->k[s] = b + (size_t)s * n;
  w->y1 = b + 7 * (size_t)n;
  w->ys = b + 8 * (size_t)n;
  return w;
}

void rod_rk45_reset(rod_rk45 *w) {
  w->h = 0;
  w->have_fsal = 0;
}

void rod_rk45_invalidate(rod_rk45 *w) { w->have_fsal = 0; }

/* Weighted RMS norm of x with weights atol + rtol max(|y|, |y1|). */
static double wnorm(const rod_rk45 *w, const double *x, const double *y,
                    const double *y1, const rod_rk45_options *o) {
  double s = 0;
  for (int i = 0; i < w->n; i++) {
    double m = fabs(y[i]);
    if (y1 && fabs(y1[i]) > m)
      m = fabs(y1[i]);
    double e = x[i] / (o->atol[i] + o->rtol * m);
    s += e * e;
  }
  return sqrt(s / w->n);
}

/* Hairer's initial step from f(t, y) = k[0]: one explicit Euler probe. */
static int initial_step(rod_rk45 *w, rod_ivp_fn f, double t, double span,
                        const double *y, const rod_rk45_options *o,
                        rod_ivp_stats *st, void *user) {
  const int n = w->n;
  double d0 = wnorm(w, y, y, NULL, o), d1 = wnorm(w, w->k[0], y, NULL, o);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 * span : 0.01 * d0 / d1;
  if (h0 > span)
    h0 = span;
  for (int i = 0; i < n; i++)
    w->ys[i] = y[i] + h0 * w->k[0][i];
  int status = f(t + h0, w->ys, w->k[1], user);
  if (st)
    st->evaluations++;
  if (status != 0)
    return status;
  for (int i = 0; i < n; i++)
    w->ys[i] = (w->k[1][i] - w->k[0][i]) / h0;
  double d2 = wnorm(w, w->ys, y, NULL, o);
  double m = d1 > d2 ? d1 : d2;
  double h1 = m <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : pow(0.01 / m, 0.2);
  w->h = fmin(100.0 * h0, h1);
  return ROD_OK;
}

int rod_rk45_advance(rod_rk45 *w, rod_ivp_fn f, double *t, double t_end,
                     double *y, const rod_rk45_options *o, rod_ivp_stats *st,
                     void *user) {
  const int n = w->n;
  const size_t bytes = (size_t)n * sizeof(double);
  if (!w->have_fsal || w->t_fsal != *t) {
    int status = f(*t, y, w->k[0], user);
    if (st)
      st->evaluations++;
    if (status != 0)
      return status;
    w->have_fsal = 1;
    w->t_fsal = *t;
  }
  if (w->h <= 0) {
    int status = initial_step(w, f, *t, t_end - *t, y, o, st, user);
    if (status != ROD_OK)
      return status;
  }
  for (long count = 0; *t < t_end; count++) {
    if (count >= o->max_steps)
      return ROD_ENOCONV;
    double h = w->h;
    if (o->h_max > 0 && h > o->h_max)
      h = o->h_max;
    bool last = *t + h >= t_end - 4 * DBL_EPSILON * fabs(t_end);
    if (last)
      h = t_end - *t;
    if (h < 16 * DBL_EPSILON * fabs(*t))
      return ROD_ENOCONV;
    for (int s = 1; s < 7; s++) {
      for (int i = 0; i < n; i++) {
        double acc = 0;
        for (int j = 0; j < s; j++)
          acc += A[s][j] * w->k[j][i];
        w->ys[i] = y[i] + h * acc;
      }
      int status = f(*t + C[s] * h, w->ys, w->k[s], user);
      if (st)
        st->evaluations++;
      if (status != 0)
        return status;
    }
    /* the seventh stage argument is the fifth-order solution */
    memcpy(w->y1, w->ys, bytes);
    for (int i = 0; i < n; i++) {
      double e = 0;
      for (int s = 0; s < 7; s++)
        e += E[s] * w->k[s][i];
      w->ys[i] = h * e;
    }
    double err = wnorm(w, w->ys, y, w->y1, o);
    double factor = err > 0 ? 0.9 * pow(err, -0.2) : 5.0;
    factor = fmin(5.0, fmax(0.2, factor));
    if (!isfinite(err) || err > 1.0) {
      w->h = h * fmin(1.0, factor);
      if (st)
        st->rejected++;
      continue;
    }
    memcpy(y, w->y1, bytes);
    memcpy(w->k[0], w->k[6], bytes);
    *t = last ? t_end : *t + h;
    w->t_fsal = *t;
    if (st)
      st->steps++;
    /* a shortened last step does not shrink the next proposal */
    if (!last || h * factor > w->h)
      w->h = h * factor;
  }
  return ROD_OK;
}
