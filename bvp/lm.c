/* Levenberg-Marquardt with Nielsen's damping update, Moré scaling and
 * Broyden reuse of the Jacobian (see bvp/lm.h). */
#include "bvp/lm.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rod/status.h"

struct rod_lm_workspace {
  int n, m;      /* unknowns, residuals */
  double *J;     /* m x n, column-major */
  double *H;     /* n x n inverse of J (square systems) */
  double *r;     /* residual at x */
  double *r_new; /* residual at the trial point */
  double *x_new; /* trial point */
  double *dx;    /* step */
  double *D;     /* column scales (Moré) */
  double *A;     /* (m + n) x n augmented matrix for dgels */
  double *b;     /* m + n right-hand side */
  double *Jdx;   /* m */
  double *tmp;   /* max(m, n) */
  double *tmp2;  /* max(m, n) */
  double *lwork; /* LAPACK work */
  lapack_int lwork_size;
  lapack_int *ipiv;
  bool j_valid; /* J describes the problem near x */
  bool j_fresh; /* J computed (not updated) at the current x */
  bool h_valid; /* H = J^-1 */
};

rod_lm_options rod_lm_default_options(void) {
  rod_lm_options o = {
      .max_iterations = 100,
      .tolerance = 1e-10,
      .step_tolerance = 1e-14,
      .gradient_tolerance = 0.0,
      .lambda0 = 1e-3,
      .broyden = false,
      .warm_jacobian = false,
      .least_squares = false,
      .fd_step = 1e-7,
      .max_ratio = 0.0,
  };
  return o;
}

void rod_lm_free(rod_lm_workspace *w) {
  if (!w)
    return;
  free(w->J);
  free(w->H);
  free(w->r);
  free(w->r_new);
  free(w->x_new);
  free(w->dx);
  free(w->D);
  free(w->A);
  free(w->b);
  free(w->Jdx);
  free(w->tmp);
  free(w->tmp2);
  free(w->lwork);
  free(w->ipiv);
  free(w);
}

rod_lm_workspace *rod_lm_alloc(int n, int m) {
  if (n <= 0 || m < n)
    return NULL;
  rod_lm_workspace *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->n = n;
  w->m = m;
  size_t nn = (size_t)n, mm = (size_t)m, big = mm > nn ? mm : nn;
  w->J = calloc(mm * nn, sizeof(double));
  w->H = calloc(nn * nn, sizeof(double));
  w->r = calloc(mm, sizeof(double));
  w->r_new = calloc(mm, sizeof(double));
  w->x_new = calloc(nn, sizeof(double));
  w->dx = calloc(nn, sizeof(double));
  w->D = calloc(nn, sizeof(double));
  w->A = calloc((mm + nn) * nn, sizeof(double));
  w->b = calloc(mm + nn, sizeof(double));
  w->Jdx = calloc(mm, sizeof(double));
  w->tmp = calloc(big, sizeof(double));
  w->tmp2 = calloc(big, sizeof(double));
  w->ipiv = calloc(nn, sizeof(lapack_int));
  if (!w->J || !w->H || !w->r || !w->r_new || !w->x_new || !w->dx || !w->D ||
      !w->A || !w->b || !w->Jdx || !w->tmp || !w->tmp2 || !w->ipiv) {
    rod_lm_free(w);
    return NULL;
  }
  /* Workspace queries: dgels on (m+n) x n, dgetri and dgeqrf on n x n / m
   * x n; keep the largest. */
  double q1 = 0, q2 = 0, q3 = 0;
  lapack_int mn = (lapack_int)(m + n);
  LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', mn, n, 1, w->A, mn, w->b, mn, &q1,
                     -1);
  LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, w->H, n, w->ipiv, &q2, -1);
  LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, w->A, m, w->tmp, &q3, -1);
  double q = q1 > q2 ? q1 : q2;
  q = q > q3 ? q : q3;
  w->lwork_size = (lapack_int)q + 8 * (lapack_int)n;
  w->lwork = calloc((size_t)w->lwork_size, sizeof(double));
  if (!w->lwork) {
    rod_lm_free(w);
    return NULL;
  }
  return w;
}

double *rod_lm_jacobian(rod_lm_workspace *w) { return w->J; }
const double *rod_lm_residual(const rod_lm_workspace *w) { return w->r; }
void rod_lm_forget_jacobian(rod_lm_workspace *w) {
  w->j_valid = false;
  w->h_valid = false;
}

static double norm_inf(const double *v, int n) {
  double a = 0;
  for (int i = 0; i < n; i++) {
    double t = fabs(v[i]);
    if (t > a || t != t)
      a = t;
  }
  return a;
}

static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static bool all_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return false;
  return true;
}

/* y = J v (J m x n column-major) */
static void mat_vec(const double *J, int m, int n, const double *v, double *y) {
  for (int i = 0; i < m; i++)
    y[i] = 0;
  for (int j = 0; j < n; j++) {
    const double *c = J + (size_t)j * m;
    double vj = v[j];
    for (int i = 0; i < m; i++)
      y[i] += c[i] * vj;
  }
}

/* Compute J at x (callback or forward differences); r is refreshed too. */
static int compute_jacobian(rod_lm_workspace *w, rod_lm_fn f, double *x,
                            const rod_lm_options *opt, rod_lm_stats *st,
                            void *user) {
  int status = f(x, w->r, w->J, user);
  if (status == ROD_LM_NO_JACOBIAN) {
    status = f(x, w->r, NULL, user);
    st->evaluations++;
    if (status != 0)
      return status;
    for (int j = 0; j < w->n; j++) {
      double xj = x[j];
      double h = opt->fd_step * (fabs(xj) + 1.0);
      x[j] = xj + h;
      h = x[j] - xj; /* exactly representable step */
      status = f(x, w->r_new, NULL, user);
      x[j] = xj;
      st->evaluations++;
      if (status != 0)
        return status;
      double *c = w->J + (size_t)j * w->m;
      for (int i = 0; i < w->m; i++)
        c[i] = (w->r_new[i] - w->r[i]) / h;
    }
    st->fd_jacobians++;
  } else {
    if (status != 0)
      return status;
    st->jacobians++;
  }
  if (!all_finite(w->J, w->m * w->n))
    return 1;
  w->j_valid = true;
  w->j_fresh = true;
  w->h_valid = false;
  return 0;
}

/* H = J^-1 for square systems; false if singular. */
static bool invert_jacobian(rod_lm_workspace *w) {
  int n = w->n;
  memcpy(w->H, w->J, (size_t)n * n * sizeof(double));
  lapack_int info =
      LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, w->H, n, w->ipiv);
  if (info != 0)
    return false;
  info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, w->H, n, w->ipiv, w->lwork,
                             w->lwork_size);
  if (info != 0 || !all_finite(w->H, n * n))
    return false;
  w->h_valid = true;
  return true;
}

/* Damped step: min ||J dx + r||^2 + lambda ||D dx||^2 by QR (dgels). */
static bool damped_step(rod_lm_workspace *w, double lambda) {
  int n = w->n, m = w->m, mn = m + n;
  for (int j = 0; j < n; j++) {
    double *col = w->A + (size_t)j * mn;
    memcpy(col, w->J + (size_t)j * m, (size_t)m * sizeof(double));
    memset(col + m, 0, (size_t)n * sizeof(double));
    col[m + j] = sqrt(lambda) * w->D[j];
  }
  for (int i = 0; i < m; i++)
    w->b[i] = -w->r[i];
  memset(w->b + m, 0, (size_t)n * sizeof(double));
  lapack_int info = LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', mn, n, 1, w->A,
                                       mn, w->b, mn, w->lwork, w->lwork_size);
  if (info != 0)
    return false;
  memcpy(w->dx, w->b, (size_t)n * sizeof(double));
  return all_finite(w->dx, n);
}

/* Broyden's ("good") rank-one update for the accepted step dx with residual
 * change dr = r_new - r: J += (dr - J dx) dx^T / (dx^T dx), and the matching
 * Sherman-Morrison update of H = J^-1. */
static void broyden_update(rod_lm_workspace *w) {
  int n = w->n, m = w->m;
  double dxdx = dot(w->dx, w->dx, n);
  if (!(dxdx > 0))
    return;
  double *dr = w->tmp; /* m */
  for (int i = 0; i < m; i++)
    dr[i] = w->r_new[i] - w->r[i];
  if (w->h_valid) {
    /* H += (dx - H dr) (dx^T H) / (dx^T H dr) */
    double *Hdr = w->tmp2;
    mat_vec(w->H, n, n, dr, Hdr);
    double denom = dot(w->dx, Hdr, n);
    if (fabs(denom) > 1e-12 * sqrt(dxdx * dot(Hdr, Hdr, n))) {
      for (int j = 0; j < n; j++) {
        double dxH = 0; /* (dx^T H)_j */
        for (int i = 0; i < n; i++)
          dxH += w->dx[i] * w->H[(size_t)j * n + i];
        double s = dxH / denom;
        for (int i = 0; i < n; i++)
          w->H[(size_t)j * n + i] += (w->dx[i] - Hdr[i]) * s;
      }
    } else {
      w->h_valid = false;
    }
  }
  /* J update uses J dx computed before the step (w->Jdx). */
  for (int i = 0; i < m; i++)
    dr[i] = (dr[i] - w->Jdx[i]) / dxdx;
  for (int j = 0; j < n; j++) {
    double dj = w->dx[j];
    double *c = w->J + (size_t)j * m;
    for (int i = 0; i < m; i++)
      c[i] += dr[i] * dj;
  }
}

/* With Broyden updates the Jacobian is recomputed after an accepted step
 * that reduced ||r||^2 by less than lm_slow (||r|| by less than 30%), and
 * after lm_late_iterations by less than lm_slow_late (||r|| not halved).
 * Measured with rodsim bench against the single factor 0.25 used before:
 * Cosserat anchor 4.70 -> 4.22 integrations per step and 20% less wall time
 * (interleaved best of 15), weight release 6.67 -> 6.60 and 7%, impulse
 * at 2 ms unchanged; 0.5 to 0.9 measured alike. The late factor keeps hard
 * steps from spending auto's simple-shooting budget on an old Jacobian:
 * without it the impulse at 5 ms (a strike spanning 3 steps) fell back to
 * modified shooting 27 times instead of 14 (19.3 -> 24.6 integrations per
 * step); with it after 4, 6, 8, 12 iterations: 19.26, 19.22, 19.10, 21.9. */
static const double lm_slow = 0.5, lm_slow_late = 0.25;
static const int lm_late_iterations = 8;

int rod_lm_solve(rod_lm_workspace *w, rod_lm_fn f, double *x,
                 const rod_lm_options *opt, rod_lm_stats *stats_out,
                 void *user) {
  const int n = w->n, m = w->m;
  rod_lm_stats st = {0};
  int status = 0;

  if (!opt->warm_jacobian || !opt->broyden) {
    w->j_valid = false;
    w->h_valid = false;
  }
  if (w->j_valid) {
    status = f(x, w->r, NULL, user);
    st.evaluations++;
    w->j_fresh = false;
  } else {
    status = compute_jacobian(w, f, x, opt, &st, user);
  }
  if (status != 0 || !all_finite(w->r, m)) {
    st.stop = ROD_LM_FAILED;
    st.residual = st.initial_residual = INFINITY;
    if (stats_out)
      *stats_out = st;
    return status < 0 ? status : ROD_ENONFINITE;
  }
  double res = norm_inf(w->r, m);
  double rr = dot(w->r, w->r, m);
  st.initial_residual = res;
  for (int j = 0; j < n; j++)
    w->D[j] = 0;

  double lambda = opt->lambda0, nu = 2.0;
  st.stop = ROD_LM_MAX_ITERATIONS;
  if (res <= opt->tolerance) {
    st.stop = ROD_LM_CONVERGED;
    goto done;
  }
  while (st.iterations < opt->max_iterations) {
    if (!w->j_valid) {
      status = compute_jacobian(w, f, x, opt, &st, user);
      if (status < 0) {
        st.stop = ROD_LM_FAILED;
        goto done;
      }
      if (status > 0) { /* cannot differentiate here */
        st.stop = ROD_LM_NO_PROGRESS;
        goto done;
      }
      rr = dot(w->r, w->r, m);
      res = norm_inf(w->r, m);
    }
    /* Moré's scaling: the largest column norm seen so far. */
    for (int j = 0; j < n; j++) {
      const double *c = w->J + (size_t)j * m;
      double cn = sqrt(dot(c, c, m));
      if (cn > w->D[j])
        w->D[j] = cn;
      if (w->D[j] == 0)
        w->D[j] = 1.0;
    }
    if (opt->gradient_tolerance > 0) {
      double g = 0;
      for (int j = 0; j < n; j++) {
        double gj = fabs(dot(w->J + (size_t)j * m, w->r, m));
        g = gj > g ? gj : g;
      }
      if (g <= opt->gradient_tolerance && w->j_fresh) {
        st.stop = ROD_LM_SMALL_GRADIENT;
        goto done;
      }
    }
    bool have_step = false;
    if (lambda == 0 && m == n) {
      if (w->h_valid || invert_jacobian(w)) {
        mat_vec(w->H, n, n, w->r, w->dx);
        for (int j = 0; j < n; j++)
          w->dx[j] = -w->dx[j];
        have_step = true;
      } else {
        lambda = 1e-6;
      }
    }
    if (!have_step && !damped_step(w, lambda)) {
      st.stop = ROD_LM_NO_PROGRESS;
      goto done;
    }
    double xn = sqrt(dot(x, x, n)), dxn = sqrt(dot(w->dx, w->dx, n));
    if (dxn <= opt->step_tolerance * (xn + opt->step_tolerance)) {
      if (w->j_fresh) {
        st.stop = ROD_LM_SMALL_STEP;
        goto done;
      }
      w->j_valid = false;
      continue;
    }
    for (int j = 0; j < n; j++)
      w->x_new[j] = x[j] + w->dx[j];
    mat_vec(w->J, m, n, w->dx, w->Jdx);
    status = f(w->x_new, w->r_new, NULL, user);
    st.evaluations++;
    st.iterations++;
    if (status < 0) {
      st.stop = ROD_LM_FAILED;
      goto done;
    }
    double rr_new = INFINITY, pred = 0;
    if (status == 0 && all_finite(w->r_new, m)) {
      rr_new = dot(w->r_new, w->r_new, m);
      for (int i = 0; i < m; i++) {
        double t = w->r[i] + w->Jdx[i];
        pred += t * t;
      }
      pred = rr - pred; /* predicted decrease of ||r||^2 */
    }
    if (opt->max_ratio > 0 &&
        !(rr_new <= opt->max_ratio * opt->max_ratio * rr)) {
      st.stop = ROD_LM_NO_PROGRESS; /* Newton does not contract here */
      goto done;
    }
    double actual = rr - rr_new;
    double rho = pred > 0 ? actual / pred : (actual > 0 ? 1.0 : -1.0);
    if (actual > 0 && rho > 1e-4) {
      if (opt->broyden)
        broyden_update(w);
      else
        w->j_valid = false;
      w->j_fresh = false;
      double slow_factor =
          st.iterations > lm_late_iterations ? lm_slow_late : lm_slow;
      bool slow = rr_new > slow_factor * rr;
      memcpy(x, w->x_new, (size_t)n * sizeof *x);
      memcpy(w->r, w->r_new, (size_t)m * sizeof(double));
      rr = rr_new;
      res = norm_inf(w->r, m);
      if (lambda > 0) {
        double t = 2.0 * rho - 1.0;
        double factor = 1.0 - t * t * t;
        lambda *= factor > 1.0 / 3.0 ? factor : 1.0 / 3.0;
        if (opt->lambda0 == 0 && lambda < 1e-9)
          lambda = 0; /* back to (quasi-)Newton steps */
      }
      nu = 2.0;
      if (res <= opt->tolerance) {
        st.stop = ROD_LM_CONVERGED;
        goto done;
      }
      if (opt->broyden && slow)
        w->j_valid = false;
    } else {
      if (opt->broyden && !w->j_fresh) {
        w->j_valid = false; /* first refresh the Jacobian */
      } else {
        lambda = lambda == 0 ? 1e-3 : lambda * nu;
        nu *= 2.0;
        if (lambda > 1e20) {
          st.stop = ROD_LM_NO_PROGRESS;
          goto done;
        }
      }
    }
  }
done:
  st.residual = res;
  if (stats_out)
    *stats_out = st;
  if (st.stop == ROD_LM_FAILED)
    return status < 0 ? status : ROD_ENOCONV;
  if (st.stop == ROD_LM_CONVERGED)
    return ROD_OK;
  if (opt->least_squares &&
      (st.stop == ROD_LM_SMALL_STEP || st.stop == ROD_LM_SMALL_GRADIENT ||
       st.stop == ROD_LM_NO_PROGRESS))
    return ROD_OK;
  return ROD_ENOCONV;
}

int rod_lm_covariance(rod_lm_workspace *w, double *cov) {
  int n = w->n, m = w->m;
  /* QR of J: (J^T J)^-1 = R^-1 R^-T. */
  memcpy(w->A, w->J, (size_t)m * n * sizeof(double));
  lapack_int info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, w->A, m, w->tmp,
                                        w->lwork, w->lwork_size);
  if (info != 0)
    return ROD_ESING;
  /* copy R (upper n x n) into cov and invert it */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      cov[(size_t)j * n + i] = i <= j ? w->A[(size_t)j * m + i] : 0.0;
  info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', n, cov, n);
  if (info != 0)
    return ROD_ESING;
  /* cov = Rinv Rinv^T, computed in H as scratch */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = (i > j ? i : j); k < n; k++)
        s += cov[(size_t)k * n + i] * cov[(size_t)k * n + j];
      w->H[(size_t)j * n + i] = s;
    }
  memcpy(cov, w->H, (size_t)n * n * sizeof(double));
  w->h_valid = false;
  return ROD_OK;
}
