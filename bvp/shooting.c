/* Simple shooting: unknowns at s = 0, residuals at s = L, solved by
 * Levenberg-Marquardt with a tangent-sweep Jacobian (seed 002 II.C). */
#include "rod/shooting.h"

#include <stdlib.h>
#include <string.h>

#include "active.h"
#include "rod/status.h"

struct rod_shooting {
  rod_bvp bvp;
  rod_lm_workspace *lm;
  double *y;        /* ny */
  double *dy;       /* ny x nx: the carried tangents */
  double *dy0;      /* ny x nx: all tangents at the start */
  rod_active act;   /* directions the sweeps carry */
  bool jac_reduced; /* the stored Jacobian carried fewer than nx */
  double *drdy;     /* nx x ny */
  double *x_last;   /* unknowns of the last sweep */
  double *r;        /* residual scratch */
  bool evaluated;
  double integrations;
  int jacobians;
};

void rod_shooting_free(rod_shooting *sh) {
  if (!sh)
    return;
  rod_lm_free(sh->lm);
  free(sh->y);
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
  sh->dy = calloc(ny * nx, sizeof(double));
  sh->dy0 = calloc(ny * nx, sizeof(double));
  rod_active_all(&sh->act, bvp->nx);
  sh->drdy = calloc(nx * ny, sizeof(double));
  sh->x_last = calloc(nx, sizeof(double));
  sh->r = calloc(nx, sizeof(double));
  if (!sh->lm || !sh->y || !sh->dy || !sh->dy0 || !sh->drdy || !sh->x_last ||
      !sh->r) {
    rod_shooting_free(sh);
    return NULL;
  }
  return sh;
}

/* r(x) and, if J, the Jacobian from one sweep carrying the active tangents
 * (the others keep their start values). */
static int residual(const double *x, double *r, double *J, void *user) {
  rod_shooting *sh = user;
  const rod_bvp *b = &sh->bvp;
  const int nx = b->nx, ny = b->ny;
  const size_t col = (size_t)ny * sizeof(double);
  int k = J ? sh->act.count : 0;
  memcpy(sh->x_last, x, (size_t)nx * sizeof(double));
  sh->evaluated = true;
  b->start(b->user, x, sh->y, J ? sh->dy0 : NULL);
  for (int a = 0; a < k; a++)
    memcpy(sh->dy + (size_t)a * ny, sh->dy0 + (size_t)sh->act.idx[a] * ny, col);
  int st = b->propagate(b->user, 0, b->nnodes - 1, sh->y, k, sh->dy);
  sh->integrations += 1 + k;
  if (J) {
    sh->jacobians++;
    sh->jac_reduced = k < nx;
  }
  if (st != 0)
    return st;
  b->end(b->user, sh->y, r, J ? sh->drdy : NULL);
  if (J) {
    /* J = dr/dy * dy/dx, (nx x ny) (ny x nx) */
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
  return 0;
}

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
    if (residual(x, sh->r, NULL, sh) != 0)
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
  return residual(x, r, J, sh) == 0 ? ROD_OK : ROD_ENONFINITE;
}

void rod_shooting_forget_jacobian(rod_shooting *sh) {
  rod_lm_forget_jacobian(sh->lm);
}
