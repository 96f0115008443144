/* Simple shooting: unknowns at s = 0, residuals at s = L, solved by
 * Levenberg-Marquardt with a tangent-sweep Jacobian (Till & Rucker 2017, II.C).
 */
#include "bvp/shooting.h"

#include <stdlib.h>
#include <string.h>

#include "active.h"
#include "rod/status.h"

struct rod_shooting {
  rod_bvp bvp;
  rod_lm_workspace *lm;
  double *y;        /* ny */
  double *y_end;    /* ny: the end state of the last sweep (at x_last) */
  double *dy;       /* ny x nx: the carried tangents */
  double *dy0;      /* ny x nx: all tangents at the start */
  rod_active act;   /* directions the sweeps carry */
  bool jac_reduced; /* the stored Jacobian carried fewer than nx */
  double *drdy;     /* nx x ny */
  double *x_last;   /* unknowns of the last sweep */
  double *r;        /* residual scratch */
  bool evaluated;   /* x_last and y_end hold the last sweep */
  bool along;       /* Jacobians by rod_bvp.tangents where it can */
  double integrations;
  int jacobians;
};

void rod_shooting_free(rod_shooting *sh) {
  if (!sh)
    return;
  rod_lm_free(sh->lm);
  free(sh->y);
  free(sh->y_end);
  free(sh->dy);
  free(sh->dy0);
  free(sh->drdy);
  free(sh->x_last);
  free(sh->r);
  free(sh);
}

rod_shooting *rod_shooting_alloc(const rod_bvp *bvp) {
  rod_shooting *sh = calloc(1, sizeof *sh);
  if (!sh)
    return NULL;
  sh->bvp = *bvp;
  size_t ny = (size_t)bvp->ny, nx = (size_t)bvp->nx;
  sh->lm = rod_lm_alloc(bvp->nx, bvp->nx);
  sh->y = calloc(ny, sizeof(double));
  sh->y_end = calloc(ny, sizeof(double));
  sh->dy = calloc(ny * nx, sizeof(double));
  sh->dy0 = calloc(ny * nx, sizeof(double));
  rod_active_all(&sh->act, bvp->nx);
  sh->drdy = calloc(nx * ny, sizeof(double));
  sh->x_last = calloc(nx, sizeof(double));
  sh->r = calloc(nx, sizeof(double));
  if (!sh->lm || !sh->y || !sh->y_end || !sh->dy || !sh->dy0 || !sh->drdy ||
      !sh->x_last || !sh->r) {
    rod_shooting_free(sh);
    return NULL;
  }
  return sh;
}

/* J = dr/dy * dy/dx, (nx x ny) (ny x nx), from the carried tangents dy
 * and the start values dy0 of the others. */
static void chain_jacobian(const rod_shooting *sh, double *J) {
  const int nx = sh->bvp.nx, ny = sh->bvp.ny;
  for (int j = 0; j < nx; j++) {
    int a = sh->act.slot[j];
    const double *t =
        a >= 0 ? sh->dy + (size_t)a * ny : sh->dy0 + (size_t)j * ny;
    for (int i = 0; i < nx; i++) {
      double s = 0;
      for (int l = 0; l < ny; l++)
        s += sh->drdy[(size_t)l * nx + i] * t[l];
      J[(size_t)j * nx + i] = s;
    }
  }
}

/* The active tangents' start values from dy0. */
static void start_tangents(rod_shooting *sh) {
  const size_t col = (size_t)sh->bvp.ny * sizeof(double);
  for (int a = 0; a < sh->act.count; a++)
    memcpy(sh->dy + (size_t)a * sh->bvp.ny,
           sh->dy0 + (size_t)sh->act.idx[a] * sh->bvp.ny, col);
}

/* r(x) from a sweep of the states alone; its end state is kept. */
static int state_sweep(rod_shooting *sh, const double *x, double *r) {
  const rod_bvp *b = &sh->bvp;
  memcpy(sh->x_last, x, (size_t)b->nx * sizeof(double));
  sh->evaluated = false;
  b->start(b->user, x, sh->y, NULL);
  int st = b->propagate(b->user, 0, b->nnodes - 1, sh->y, 0, NULL);
  sh->integrations += 1;
  if (st != 0)
    return st;
  memcpy(sh->y_end, sh->y, (size_t)b->ny * sizeof(double));
  sh->evaluated = true;
  b->end(b->user, sh->y, r, NULL);
  return 0;
}

/* r(x) and J from the tangents carried along the last sweep (which is
 * made at x first unless it is there); *cannot when the problem cannot
 * carry them so (then nothing is returned but the sweep's status). */
static int along_jacobian(rod_shooting *sh, const double *x, double *r,
                          double *J, bool *cannot) {
  const rod_bvp *b = &sh->bvp;
  const size_t bytes = (size_t)b->nx * sizeof(double);
  *cannot = false;
  if (!sh->evaluated || memcmp(sh->x_last, x, bytes) != 0) {
    int st = state_sweep(sh, x, r);
    if (st != 0)
      return st;
  }
  b->start(b->user, x, sh->y, sh->dy0);
  start_tangents(sh);
  double work =
      b->tangents(b->user, 0, b->nnodes - 1, sh->y_end, sh->act.count, sh->dy);
  if (work < 0) {
    *cannot = true;
    return 0;
  }
  sh->integrations += work;
  sh->jacobians++;
  sh->jac_reduced = sh->act.count < b->nx;
  b->end(b->user, sh->y_end, r, sh->drdy);
  chain_jacobian(sh, J);
  return 0;
}

/* r(x) and, if J, the Jacobian from one sweep carrying the active tangents
 * (the others keep their start values). */
static int sweep(rod_shooting *sh, const double *x, double *r, double *J) {
  const rod_bvp *b = &sh->bvp;
  if (!J)
    return state_sweep(sh, x, r);
  int k = sh->act.count;
  memcpy(sh->x_last, x, (size_t)b->nx * sizeof(double));
  sh->evaluated = false;
  b->start(b->user, x, sh->y, sh->dy0);
  start_tangents(sh);
  int st = b->propagate(b->user, 0, b->nnodes - 1, sh->y, k, sh->dy);
  sh->integrations += 1 + k;
  sh->jacobians++;
  sh->jac_reduced = k < b->nx;
  if (st != 0)
    return st;
  memcpy(sh->y_end, sh->y, (size_t)b->ny * sizeof(double));
  sh->evaluated = true;
  b->end(b->user, sh->y, r, sh->drdy);
  chain_jacobian(sh, J);
  return 0;
}

/* The LM callback: with `along`, Jacobians from the tangents along the
 * last sweep where the problem offers them. */
static int residual(const double *x, double *r, double *J, void *user) {
  rod_shooting *sh = user;
  if (J && sh->along && sh->bvp.tangents && sh->act.count > 0) {
    bool cannot;
    int st = along_jacobian(sh, x, r, J, &cannot);
    if (!cannot)
      return st;
  }
  return sweep(sh, x, r, J);
}

void rod_shooting_set_along(rod_shooting *sh, bool on) { sh->along = on; }

int rod_shooting_set_active(rod_shooting *sh, const int *active, int count) {
  rod_active a;
  bool ok = rod_active_set(&a, sh->bvp.nx, active, count);
  if (!rod_active_equal(&a, &sh->act) && sh->jac_reduced)
    rod_lm_forget_jacobian(sh->lm);
  sh->act = a;
  return ok ? ROD_OK : ROD_EINVAL;
}

int rod_shooting_solve(rod_shooting *sh, double *x, const rod_lm_options *opt,
                       rod_shooting_stats *stats) {
  sh->integrations = 0;
  sh->jacobians = 0;
  sh->evaluated = false;
  rod_lm_stats lst;
  int st = rod_lm_solve(sh->lm, residual, x, opt, &lst, sh);
  const size_t bytes = (size_t)sh->bvp.nx * sizeof(double);
  if (st == ROD_OK && (!sh->evaluated || memcmp(sh->x_last, x, bytes) != 0)) {
    /* leave the problem's last sweep at the solution */
    if (state_sweep(sh, x, sh->r) != 0)
      st = ROD_ENONFINITE;
  }
  if (stats) {
    stats->iterations = lst.iterations;
    stats->integrations = sh->integrations;
    stats->jacobians = sh->jacobians;
    stats->residual = lst.residual;
    stats->stop = lst.stop;
  }
  return st;
}

int rod_shooting_jacobian(rod_shooting *sh, const double *x, double *r,
                          double *J) {
  return sweep(sh, x, r, J) == 0 ? ROD_OK : ROD_ENONFINITE;
}

int rod_shooting_residual(rod_shooting *sh, const double *x, double *r) {
  return state_sweep(sh, x, r) == 0 ? ROD_OK : ROD_ENONFINITE;
}

int rod_shooting_jacobian_along(rod_shooting *sh, const double *x, double *r,
                                double *J) {
  if (!sh->bvp.tangents)
    return ROD_EINVAL;
  sh->evaluated = false; /* a sweep at x first */
  bool cannot;
  int st = along_jacobian(sh, x, r, J, &cannot);
  if (cannot)
    return ROD_EINVAL;
  return st == 0 ? ROD_OK : ROD_ENONFINITE;
}

void rod_shooting_forget_jacobian(rod_shooting *sh) {
  rod_lm_forget_jacobian(sh->lm);
}
