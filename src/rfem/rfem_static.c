/* The statics room of the RFEM chain (the static state, docs/numerics.md,
 * Statics): the joint angles at which the springs balance gravity and the
 * static tip loads, on the static residual and its Jacobian H
 * (rfem_static_residual.h); with contact bodies, then the equilibrium on
 * them (rfem_contact_static.h). The motor joint of a PD drive adds
 * kp (q - ref(0)); a prescribed one sits at ref(0).
 *
 * As for the rod (kirchhoff_static.c): one Newton solve (Levenberg-
 * Marquardt, Newton steps first) from the unloaded chain is the fast
 * path, kept when it converges to a stable state; otherwise the loads
 * grow from zero by pseudo-arclength continuation (bvp/path.h) through
 * any fold. The state is stable when H has no eigenvalue below zero
 * (its negative eigenvalues count the unstable directions; a dead tip
 * moment makes H unsymmetric in 3D, then the real parts count). A
 * bifurcation the loads do not decide is resolved by a small tip force
 * across the tip, loaded and then taken away again. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "bvp/path.h"
#include "core/loads.h"
#include "core/static_note.h"
#include "core/v3.h"
#include "rfem/rfem_contact_static.h"
#include "rfem/rfem_loads.h"
#include "rfem/rfem_static.h"
#include "rfem/rfem_static_residual.h"

/* An eigenvalue of the scaled H below -rfem_neutral times its mean spring
 * stiffness counts as unstable: a neutral direction that a symmetry makes
 * exact (a column buckled in 3D turns freely about its axis) stays within
 * rounding and solver tolerance of zero, far above this. */
static const double rfem_neutral = 1e-8;

static int lm_residual(const double *x, double *res, double *J, void *user) {
  return rfem_static_eval(user, x, res, J);
}

/* The loads reached on the loading path, for rod_sim_static_progress: the
 * largest lambda of a Jacobian so far (the path may pass a fold and come
 * back), or -1 off a path. The direct solve and the contact problem
 * (rfem_contact_static.c: sequential quadratic programming at the full
 * loads) are on none: they report -1, as the rod's do. */
static void note_progress(rod_rfem *r, double lambda) {
  rod_static_progress_note(&r->static_progress, lambda);
}

static int path_residual(void *user, const double *x, double lambda,
                         double *res, double *J) {
  rfem_static_loads *ld = user;
  ld->f = ld->release ? 1.0 : lambda;
  ld->e = ld->release ? 1.0 - lambda : lambda;
  const int s = rfem_static_eval(ld, x, res, J);
  if (J && !ld->release)
    note_progress(ld->r, lambda);
  return s;
}

/* Unstable directions of the state x under the loads ld: the eigenvalues
 * of H below the neutral band. -1 when they cannot be computed. */
static int unstable_directions(rfem_static_loads *ld, const double *x) {
  rod_rfem *r = ld->r;
  const int nf = r->nfree;
  double *H = malloc((size_t)nf * nf * sizeof(double));
  double *wr = malloc(2 * (size_t)nf * sizeof(double));
  if (!H || !wr) {
    free(H);
    free(wr);
    return -1;
  }
  rfem_static_eval(ld, x, r->rs, H);
  double mean = 0, asym = 0, big = 0;
  for (int a = 0; a < nf; a++) {
    mean += fabs(H[a + (size_t)a * nf]) / nf;
    for (int b = 0; b < a; b++) {
      asym = fmax(asym, fabs(H[a + (size_t)b * nf] - H[b + (size_t)a * nf]));
      big = fmax(big, fabs(H[a + (size_t)b * nf]));
    }
  }
  lapack_int info;
  if (asym <= 1e-12 * fmax(big, mean)) /* dead loads: the Hessian */
    info = LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', nf, H, nf, wr);
  else
    info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', nf, H, nf, wr, wr + nf,
                         NULL, 1, NULL, 1);
  int index = 0;
  for (int a = 0; a < nf; a++)
    index += wr[a] < -rfem_neutral * mean;
  free(H);
  free(wr);
  rfem_static_eval(ld, x, r->rs, NULL); /* the chain back at x */
  return info == 0 ? index : -1;
}

/* Follow the path of ld from x (a solution at its lambda = 0) to
 * lambda = 1. */
static int follow(rfem_static_loads *ld, double *x, rod_step_stats *st,
                  rod_path_stats *ps) {
  rod_rfem *r = ld->r;
  rod_path *p = rod_path_alloc(r->nfree);
  if (!p)
    return ROD_ENOMEM;
  rod_path_options o = rod_path_default_options();
  o.tolerance = r->sc.solver.tolerance;
  o.max_steps = r->sc.solver.max_iterations;
  rfem_couple couples[RFEM_MAX_LOADS]; /* without, H is symmetric */
  o.symmetric = rfem_couples(r, 0.0, true, couples) == 0;
  rod_path_problem pb = {.n = r->nfree, .residual = path_residual, .user = ld};
  int s = rod_path_solve(p, &pb, x, &o, ps);
  rod_path_free(p);
  st->iterations += ps->iterations;
  st->integrations += ps->evaluations;
  ld->f = 1.0;
  ld->e = ld->release ? 0.0 : 1.0;
  return s;
}

/* Tip position and tangent of the chain's current pose. */
static void tip_pose(const rod_rfem *r, double p[3], double d[3]) {
  const rfem_element *e = &r->el[r->tip_element];
  double R[9], o[3];
  rod_chain_pose(r->chain, e->link, R, o);
  v3_set(d, R[2], R[5], R[8]);
  v3_scale(p, e->length, d);
  v3_add(p, p, o);
}

/* The unloaded chain's angles into x. */
static void unloaded(const rod_rfem *r, double *x) {
  memcpy(x, r->q0 + r->first_free, (size_t)r->nfree * sizeof(double));
}

/* Past a bifurcation the loads do not decide (the state at x has index
 * unstable directions): load with a small tip force across the tip, take
 * it away, and keep the state so reached in x if it is stable; in plane
 * first, then out of it. Returns the index of x. */
static int resolve(rfem_static_loads *full, double *x, int index,
                   rod_static_report *rep, rod_step_stats *st) {
  rod_rfem *r = full->r;
  const int nf = r->nfree;
  double tip0[3], d0[3], tip[3], d[3], *xi = r->xs + nf;
  rfem_static_loads u = {.r = r, .f = 0.0};
  unloaded(r, xi);
  rfem_static_eval(&u, xi, r->rs, NULL);
  tip_pose(r, tip0, d0);
  rfem_static_eval(full, x, r->rs, NULL);
  tip_pose(r, tip, d);
  double F[3], M[3];
  rod_tip_loads(&r->sc, &r->drive, true, F, M);
  const double g = v3_norm(r->sc.environment.gravity);
  const double load =
      fmax(v3_norm(F) + g * (r->model.rho_area * r->L + r->sc.tip.mass),
           v3_norm(M) / r->L);
  for (int side = 0; side < (r->sc.rfem.planar ? 1 : 2); side++) {
    rfem_static_loads imp = {.r = r};
    double dir[3];
    rod_static_imperfection_dir(d, side, dir);
    if (r->sc.rfem.planar) { /* across the tip within the chain's plane */
      v3_cross(dir, r->plane_axis, d);
      v3_normalize(dir);
    }
    v3_scale(imp.extra, ROD_STATIC_IMPERFECTION * load, dir);
    unloaded(r, xi);
    rod_path_stats ps;
    int s = follow(&imp, xi, st, &ps);
    rep->path_steps += ps.steps;
    if (s == ROD_OK) {
      imp.release = true;
      s = follow(&imp, xi, st, &ps);
      rep->path_steps += ps.steps;
    }
    if (s == ROD_OK && unstable_directions(full, xi) == 0) {
      memcpy(x, xi, (size_t)nf * sizeof(double));
      rfem_static_eval(full, x, r->rs, NULL);
      tip_pose(r, tip, d);
      rod_static_note_side(rep, index, tip, tip0, d0);
      return 0;
    }
  }
  rfem_static_eval(full, x, r->rs, NULL);
  return index;
}

static int solve_static(rod_rfem *r, rod_step_stats *st);

int rfem_solve_static(rod_rfem *r, rod_step_stats *st) {
  note_progress(r, -1.0); /* the direct solve */
  const int s = solve_static(r, st);
  if (s == ROD_OK)
    note_progress(r, 1.0);
  return s;
}

static int solve_static(rod_rfem *r, rod_step_stats *st) {
  memset(st, 0, sizeof *st);
  rod_static_report *rep = &r->static_report;
  memset(rep, 0, sizeof *rep);
  rep->stable = -1;
  const int n = r->nlinks;
  memset(r->q, 0, (size_t)n * sizeof(double));
  memset(r->v, 0, (size_t)n * sizeof(double));
  memset(r->qdd, 0, (size_t)n * sizeof(double));
  if (r->prescribed)
    rod_motor_reference(&r->sc, 0.0, &r->q[0], &r->v[0]);
  r->v[0] = 0.0; /* the static state is at rest */
  st->method = ROD_METHOD_SIMPLE;
  rfem_static_loads full = {.r = r, .f = 1.0};

  /* the fast path: Newton from the unloaded shape */
  rod_lm_options o = rod_lm_default_options();
  o.tolerance = r->sc.solver.tolerance;
  o.max_iterations = r->sc.solver.max_iterations;
  o.lambda0 = 0.0; /* Newton steps first, damping only when they fail */
  rod_lm_stats ls;
  double *x = r->xs; /* the free angles */
  unloaded(r, x);
  long ev0 = r->evaluations;
  int status = rod_lm_solve(r->lm, lm_residual, x, &o, &ls, &full);
  st->iterations = ls.iterations;
  st->integrations = (int)(r->evaluations - ev0);
  st->residual = ls.residual;
  int index = status == ROD_OK ? unstable_directions(&full, x) : -1;
  if (index != 0) { /* the loading path from the unloaded chain */
    rod_path_stats ps;
    unloaded(r, x);
    status = follow(&full, x, st, &ps);
    rep->path_steps = ps.steps;
    rep->folds = ps.folds;
    if (status == ROD_OK) {
      index = unstable_directions(&full, x);
      if (index > 0)
        index = resolve(&full, x, index, rep, st);
      if (index >= 0)
        rod_static_note_end(rep, index, "eigenvalues of the stiffness",
                            ps.folds, ps.fold_lambda);
    }
  } else {
    rep->stable = 1;
  }
  r->t = 0.0;
  if (r->contact) {         /* the rod on the bodies it would enter; a rod that
                               finds no equilibrium in the air may find one on them
                               (whose stability the free rod's does not tell) */
    note_progress(r, -1.0); /* at the full loads: on no path */
    rep->stable = -1;
    rep->note[0] = '\0';
    if (status == ROD_OK)
      rfem_static_eval(&full, x, r->rs, NULL); /* q, Q at the solution */
    long ev1 = r->evaluations;
    status = rfem_contact_static(r, status == ROD_OK, st);
    st->integrations += (int)(r->evaluations - ev1);
    return status;
  }
  if (status != ROD_OK)
    return status;
  rfem_static_eval(&full, x, r->rs, NULL); /* q, Q at the solution */
  if (rep->path_steps > 0) {
    st->residual = 0;
    for (int a = 0; a < r->nfree; a++)
      st->residual = fmax(st->residual, fabs(r->rs[a]));
  }
  return ROD_OK;
}
