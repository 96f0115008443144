/* Newton on the contact forces of the Kirchhoff/Cosserat rod
 * (docs/contact.md).
 *
 * Statics: Newton on the complementarity problem. At the forces F the rod
 * is solved (shooting), and the gaps respond to a change dF through the
 * compliance C = d gap / d F of the rod's equilibrium (symmetric,
 * Maxwell-Betti), so the next forces solve the linear complementarity
 * problem gap + C (F' - F) >= 0 _|_ F' >= 0. The statics solve it on the
 * banded model over the nodes (kirchhoff_contact_banded.c), linear in
 * them; the dense model is the time steps' (and the statics' where the
 * banded model's active set does not settle), solved by the frictionless
 * dual (contact_dual.c): column i of C is the linearised response to a
 * force at node i, one Newton step of the shooting with the Jacobian at
 * the solution, dx = -J^-1 r(x, F +- d e_i), and the gaps of the sweep at
 * x + dx, by central differences (four sweeps per column).
 *
 * Time steps: the same Newton on the forces at the step's end, each
 * iterate a solve of the step (kr_solve_chain), its compliance that of the
 * step's problem; kirchhoff_contact_step.c chooses the step's scheme. A
 * node that strikes a body with restitution e > 0 takes Moreau and Jean's
 * velocity law in its step (flag_impacts). With friction a node's force has
 * three components (normal, two tangents), its measured values are the gap and
 * the slip over the step, and the model's problem is Coulomb's
 * (contact_coulomb.c). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "kirchhoff/kirchhoff_contact_data.h"

/* The shooting's tolerance (scaled residual) in the contact problems. */
static const double kr_contact_shooting = 1e-12;

/* The loosest a blurred step's solves may take, relative to
 * solver.tolerance: the gaps then to kr_contact_segment_growth x 1e-2 of
 * the contact tolerance. */
static const double kr_contact_loosest = 1e-2;

/* A sweep at the solution x and its gaps. */
static int sweep_gaps(rod_kirchhoff *k, const double *x, rod_step_stats *st) {
  double r[6];
  int s = rod_shooting_residual(k->shoot, x, r);
  st->integrations += 1;
  double res = 0;
  for (int j = 0; j < 6; j++) /* a NaN stays */
    res = fabs(r[j]) <= res ? res : fabs(r[j]);
  k->contact->sweep_res = res;
  if (s == ROD_OK)
    kr_contact_gaps(k);
  return s;
}

/* Solve the rod at the current forces from x (the shooting's options);
 * the last sweep at the solution, its gaps evaluated. */
static int solve_at(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  kr_contact_apply_forces(k);
  kr_set_planar(k);
  rod_lm_options o = kr_shooting_options(k);
  /* the gaps to rounding: they decide the forces through the inverse
   * compliance */
  o.tolerance = fmin(o.tolerance, kr_contact_shooting);
  rod_shooting_stats ss;
  int s = rod_shooting_solve(k->shoot, x, &o, &ss);
  kr_add_stats(st, &ss);
  return s == ROD_OK ? sweep_gaps(k, x, st) : s;
}

/* Gauss-Seidel sweeps of the friction model's solve at most, and the
 * relative tolerance of Coulomb's law at the end of a step. */
static const int kr_contact_sweeps = 1000;
static const int kr_contact_round = 50; /* sweeps between checks of the law */
static const double kr_contact_forcing = 0.1; /* the law's reduction */
static const double kr_contact_gs = 1e-12;    /* the sweeps' tolerance */

/* True when the forces meet the contact conditions at the last sweep; with
 * friction also Coulomb's law at the pressed nodes: a node that slipped
 * by more than the tolerance in the step has its friction force on the
 * cone, opposite to the slip (to kr_contact_cone), none beyond it. */
static bool complementary(const rod_kirchhoff *k) {
  return kr_contact_law_broken(k, NULL, 0) < 0;
}

/* The symmetric part of the n x n compliance C (Maxwell-Betti). */
static void symmetrize(double *C, int n) {
  for (int u = 0; u < n; u++)
    for (int v = 0; v < u; v++) {
      const double a = 0.5 * (C[u + (size_t)n * v] + C[v + (size_t)n * u]);
      C[u + (size_t)n * v] = C[v + (size_t)n * u] = a;
    }
}

/* Compliance of the candidates' unknowns (dim per candidate) at the
 * solution x (forces applied, last sweep at x): C[u + n v] = d w_u / d
 * F_v, w the measured values. */
static int compliance(rod_kirchhoff *k, const double *x, int m,
                      rod_step_stats *st) {
  kr_contact *c = k->contact;
  const int D = c->dim, n = D * m;
  double r[6], J[36], dx[6], xt[6];
  lapack_int ipiv[6];
  int s = rod_shooting_jacobian(k->shoot, x, r, J);
  st->integrations += 7;
  if (s != ROD_OK)
    return s;
  if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, 6, 6, J, 6, ipiv) != 0)
    return ROD_ESING;
  /* a force that bends the rod by about 1e-5 of its length at its tip:
   * the central differences' error is then 1e-10 of the response, the
   * rounding's about 1e-10 too */
  const double L = k->model.length;
  const double d = 1e-5 * 3.0 * k->model.K[0] / (L * L);
  for (int v = 0; v < n && s == ROD_OK; v++) {
    double *fv = c->f + 3 * c->cand[v / D] + v % D;
    const double l0 = *fv;
    for (int side = 0; side < 2 && s == ROD_OK; side++) {
      *fv = l0 + (side ? -d : d);
      kr_contact_apply_forces(k);
      s = rod_shooting_residual(k->shoot, x, r);
      if (s != ROD_OK)
        break;
      for (int j = 0; j < 6; j++)
        dx[j] = -r[j];
      LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', 6, 1, J, 6, ipiv, dx, 6);
      for (int j = 0; j < 6; j++)
        xt[j] = x[j] + dx[j];
      s = rod_shooting_residual(k->shoot, xt, r);
      st->integrations += 2;
      if (s != ROD_OK)
        break;
      kr_quadratures(k);
      for (int u = 0; u < n; u++) {
        const double w = kr_contact_measured(k, c->cand[u / D], u % D);
        /* central differences: the response's quadratic part cancels */
        c->C[u + (size_t)n * v] =
            side ? (c->C[u + (size_t)n * v] - w) / (2.0 * d) : w;
      }
    }
    *fv = l0;
  }
  kr_contact_apply_forces(k); /* the forces as they were */
  if (s != ROD_OK)
    return s;
  symmetrize(c->C, n);
  return ROD_OK;
}

/* The smallest eigenvalue of the Newton model, relative to the largest. */
static const double kr_contact_floor = 1e-9;

/* The compliance C (m x m, symmetric) as the Newton model M: its
 * eigenvalues raised to at least kr_contact_floor of the largest. The
 * compliance of a smooth kernel has eigenvalues falling like the fourth
 * power of their order; the smallest are differences' rounding, of
 * either sign, and the model's solution must not follow them. */
static int model_matrix(kr_contact *c, int m) {
  double *V = c->V, *ev = c->ev;
  memcpy(V, c->C, (size_t)m * m * sizeof(double));
  if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'L', m, V, m, ev, c->work,
                         c->lwork) != 0)
    return ROD_ESING;
  const double floor = kr_contact_floor * fmax(ev[m - 1], 0.0);
  if (!(floor > 0))
    return ROD_ESING;
  memset(c->C, 0, (size_t)m * m * sizeof(double));
  for (int e = 0; e < m; e++) {
    const double lam = fmax(ev[e], floor);
    for (int b = 0; b < m; b++) {
      const double vb = lam * V[b + (size_t)m * e];
      for (int a = 0; a < m; a++)
        c->C[a + (size_t)m * b] += V[a + (size_t)m * e] * vb;
    }
  }
  return ROD_OK;
}

/* A solve of the rod at the current forces from x: the statics' or a
 * time step's (step_solve). */
typedef struct {
  bool dynamic;
  double t;
  const rod_bdf_coeffs *coeffs;
  bool *modified;
  int max_it; /* Newton updates of the forces at most; 0: the solver's */
} kr_solve_kind;

/* The forces have settled when an update changed none by more than this
 * times their sum: the gaps alone decide them only to the contact
 * tolerance over the compliance, which on a soft rod is 1e-4 of them. */
static const double kr_contact_settle = 1e-8;

/* ... or when the nodes' move the update predicts is below this fraction
 * of the contact tolerance: where the compliance is small (BDF-alpha's
 * steps at dt = 0.25 ms, the tip 4.5e-5 m/N) the gaps' rounding after the
 * shooting (4e-13 m) leaves the forces uncertain by 1e-8 N, 3e-7 of their
 * sum, and the first test alone never held (3567 integrations in a
 * step). */
static const double kr_contact_still = 1e-3;

/* m: the gaps' resolution after a step's solve. The sweeps that measure
 * the gaps run from the clamp, and simple shooting's error growth over
 * the rod, exp(k L / sqrt 2) (k^4 = rhoA c0^2 / EI, docs/numerics.md),
 * carries the rounding of their start (eps of the rod's scale L) into the
 * nodes' places: the gaps, and the compliance's columns from them, are
 * known to about exp(k L / sqrt 2) eps L and no better (rod_on_table.ini
 * on 190 nodes at dt = 0.5 ms: 1.8e8 eps L, 3.2e-8 m, where the columns'
 * differences move the tip's nodes by 1e-8 m). Zero in the statics. */
static double simple_resolution(const rod_kirchhoff *k,
                                const kr_solve_kind *kind) {
  if (!kind->dynamic)
    return 0;
  const double kk = rod_model_step_wavenumber(&k->model, kind->coeffs->c0);
  return exp(kk * k->model.length / M_SQRT2) * DBL_EPSILON * k->model.length;
}

/* A stiff step: simple shooting's sweep resolves the gaps to worse than
 * kr_contact_still of the contact tolerance; one Newton step of simple
 * shooting may then be no measure of the compliance. */
static bool stiff_step(const rod_kirchhoff *k, const kr_solve_kind *kind) {
  return simple_resolution(k, kind) > kr_contact_still * k->contact->tol;
}

/* A step that modified shooting solved takes its gaps (and its state)
 * from modified shooting's own sweep, whose segments grow errors by at
 * most kr_contact_segment_growth: a sweep of simple shooting from that
 * solution carries its residual and rounding over the whole rod, grown by
 * exp(k L / sqrt 2). cantilever_table.ini without drag at dt = 62.5 us
 * (273 nodes, 4.6e16): the sweep of the impact step from the clamp missed
 * the tip's conditions by 138 (scaled, against 1e-12) and put the struck
 * node 5.6e-4 m above the table at 15 m/s; that sweep was the state
 * accepted, 8.4e-3 J above the step's start with no force pushing.
 * rod_on_table.ini on the Kirchhoff rod at its dt (1.1e5): up to 1.3e-8
 * against 1e-12, the positions 5e-11 m off. */
static bool segmented_gaps(const rod_kirchhoff *k, const kr_solve_kind *kind) {
  (void)k;
  return kind->dynamic && *kind->modified;
}

/* Simple shooting's rounding in the gaps, as a share of the contact
 * tolerance, beyond which a solve that fails is tried again looser and
 * from the accepted state (step_solve). */
static const double kr_contact_sweep_share = 0.1;

static bool blurred_step(const rod_kirchhoff *k, const kr_solve_kind *kind) {
  return simple_resolution(k, kind) > kr_contact_sweep_share * k->contact->tol;
}

/* Error growth over a segment of modified shooting (kirchhoff_solve.c's
 * kr_segment_growth). */
static const double kr_contact_segment_growth = 10.0;

/* m: the gaps' resolution after the step's solves: simple shooting's
 * (above), or in a stiff step solved by modified shooting the growth of a
 * segment times the solves' tolerance (scaled, of the rod's length). */
static double gap_resolution(const rod_kirchhoff *k,
                             const kr_solve_kind *kind) {
  if (segmented_gaps(k, kind))
    return kr_contact_segment_growth * k->contact->shot_tol * k->model.length;
  return simple_resolution(k, kind);
}

/* The compliance of the candidates' unknowns (dim per candidate) from the
 * step solved at the forces F +- d e_v, by central differences: where the
 * step's conditioning (gap_resolution) leaves one Newton step of simple
 * shooting at the rounding's size, solved steps still resolve the response
 * (rod_on_table.ini, 190 nodes, dt = 0.5 ms, the tip's node 186: d gap /
 * d F of its neighbours 3.5e-4 to 6.9e-4 m/N, the same to 3 digits for d
 * from 1e-4 to 1e-2 N, the solve repeated to 3e-11 m). The force moves
 * the rod by about 1e-5 of its length against the inertia's foundation,
 * d = EI k^3 1e-5 L (k^4 = rhoA c0^2 / EI). The step's solution x as it
 * was, its last sweep at x. */
static int step_solve(rod_kirchhoff *k, const kr_solve_kind *kind, double *x,
                      rod_step_stats *st);

static int solved_compliance(rod_kirchhoff *k, const kr_solve_kind *kind,
                             double *x, int m, rod_step_stats *st) {
  kr_contact *c = k->contact;
  const double L = k->model.length;
  const double kk = rod_model_step_wavenumber(&k->model, kind->coeffs->c0);
  const double d = 1e-5 * L * k->model.K[0] * kk * kk * kk;
  double x0[6], xt[6];
  memcpy(x0, x, sizeof x0);
  const int D = c->dim, n = D * m;
  int s = ROD_OK;
  for (int v = 0; v < n && s == ROD_OK; v++) {
    double *fv = c->f + 3 * c->cand[v / D] + v % D;
    const double l0 = *fv;
    for (int side = 0; side < 2 && s == ROD_OK; side++) {
      *fv = l0 + (side ? -d : d);
      memcpy(xt, x0, sizeof xt);
      s = step_solve(k, kind, xt, st);
      for (int u = 0; u < n && s == ROD_OK; u++) {
        const double w = kr_contact_measured(k, c->cand[u / D], u % D);
        c->C[u + (size_t)n * v] =
            side ? (c->C[u + (size_t)n * v] - w) / (2.0 * d) : w;
      }
    }
    *fv = l0;
  }
  memcpy(x, x0, sizeof x0);
  if (s == ROD_OK) /* the step at the forces as they were */
    s = step_solve(k, kind, x, st);
  if (s != ROD_OK)
    return s;
  symmetrize(c->C, n);
  return ROD_OK;
}

/* Simple shooting's rounding in the gaps (exp(k L / sqrt 2) eps L) beyond
 * which its columns (a move of about 1e-5 L) are rounding alone: the
 * compliance from solved steps from the first update
 * (cantilever_table.ini at dt = 31.25 us, the first impact: 3.3e7 m, and
 * the one-step columns' LU failed as singular). */
static const double kr_contact_blind = 1e-5;

/* An update that realised less than this fraction of the move the model
 * predicted takes the rest of its step's compliance from solved steps. */
static const double kr_contact_realised = 0.1;

/* The model's Coulomb law at the forces c->l (m candidates, three
 * unknowns each), w = M l + b in c->C, c->b: the largest violation (m) of
 * w_n >= 0 _|_ l_n >= 0, and of sticking (w_t = 0) inside the cone or
 * sliding opposite to l_t on it (the tangential part of w_t across l_t,
 * and any part along it). */
static double model_law_violation(const kr_contact *c, int m) {
  const int n = 3 * m;
  double worst = 0;
  for (int a = 0; a < m; a++) {
    double w[3];
    for (int r = 0; r < 3; r++) {
      double v = c->b[3 * a + r];
      for (int u = 0; u < n; u++)
        v += c->C[3 * a + r + (size_t)n * u] * c->l[u];
      w[r] = v;
    }
    const double *l = c->l + 3 * a;
    worst = fmax(worst, -w[0]);
    if (!(l[0] > 0)) {
      worst = fmax(worst, -l[0]);
      continue;
    }
    worst = fmax(worst, fabs(w[0]));
    const double lt = hypot(l[1], l[2]);
    if (lt < c->mu[a] * l[0] * (1 - kr_contact_cone)) {
      worst = fmax(worst, hypot(w[1], w[2])); /* sticks */
      continue;
    }
    const double e[2] = {l[1] / lt, l[2] / lt};
    const double along = w[1] * e[0] + w[2] * e[1];
    worst = fmax(worst, fmax(along, 0.0));
    worst = fmax(worst, fabs(w[1] * e[1] - w[2] * e[0]));
  }
  return worst;
}

/* The dense model's move of the measured values for the update, M (F' -
 * F), into c->dw. */
static void model_move(kr_contact *c, int m) {
  const int n = c->dim * m;
  for (int u = 0; u < n; u++) {
    double w = 0;
    for (int v = 0; v < n; v++)
      w += c->C[u + (size_t)n * v] * (c->l[v] - c->g0[v]);
    c->dw[u] = w;
  }
}

/* One Newton update of the forces from the solution x (last sweep at x,
 * gaps evaluated): the candidates' compliance, the model's contact
 * problem; the new forces into c->l (dim per candidate c->cand[0 .. *m -
 * 1]), the old ones into c->g0. */
static int newton_update(rod_kirchhoff *k, const kr_solve_kind *kind, double *x,
                         int *m_out, bool solved, rod_step_stats *st) {
  kr_contact *c = k->contact;
  const int D = c->dim;
  c->unresolved = false;
  /* the candidates: pressed nodes and nodes near or inside a body (the
   * clamp's node cannot move) */
  int m = 0;
  for (int i = 1; i < c->nodes; i++)
    if (c->f[3 * i] > 0 || c->gap[i] < c->margin) {
      c->cand[m++] = i;
      if (c->f[3 * i] == 0)
        v3_copy(c->normal + 3 * i, c->gnorm + 3 * i);
      /* in the statics a node that entered a box pushes along the
       * normal at its place before the load step (outside): inside, the
       * nearest face's normal may be a side's, along the rod lying over
       * an edge, where the rod gives no compliance and the update
       * diverged */
      const rod_obstacle *o = &c->world.item[kr_contact_body_of(k, i)];
      if (c->f[3 * i] == 0 && !kind->dynamic && o->kind == ROD_OBSTACLE_BOX &&
          c->gap[i] < 0)
        rod_obstacle_distance(o, c->saved_pos + 3 * i, c->normal + 3 * i);
    }
  *m_out = m;
  if (m == 0)
    return ROD_OK;
  const int n = D * m;
  for (int u = 0; u < n; u++) /* before compliance moves the last sweep */
    c->b[u] = kr_contact_measured(k, c->cand[u / D], u % D);
  /* the statics: the banded model over the nodes, linear in them (its
   * tangent sweep counts 1 + its directions); the dense model where its
   * active set does not settle */
  if (!kind->dynamic && D == 1) {
    const int s = kr_contact_banded_update(k, m, c->dw);
    st->integrations += 1 + (k->planar ? 5 : 10);
    if (s == ROD_OK || s == ROD_ENOMEM)
      return s;
  }
  int s =
      solved ? solved_compliance(k, kind, x, m, st) : compliance(k, x, m, st);
  if (s == ROD_OK)
    s = model_matrix(c, D * m);
  if (s != ROD_OK)
    return s;
  /* w + M (F' - F) in the contact law, M the compliance made positive
   * definite (model_matrix), w the measured gaps and slips, F the nodes'
   * forces: frictionless, min 1/2 F'^T M F' + b^T F' over F' >= 0;
   * with friction, Coulomb's law on w' = M F' + b. The fixed point F' = F
   * meets the contact law whatever M is. */
  for (int u = 0; u < n; u++) {
    double v = c->b[u];
    for (int w = 0; w < n; w++)
      v -= c->C[u + (size_t)n * w] * c->f[3 * c->cand[w / D] + w % D];
    c->b[u] = v;
    c->g0[u] = c->l[u] = c->f[3 * c->cand[u / D] + u % D];
  }
  rod_contact_stats cs;
  if (D == 1) {
    s = rod_contact_dual(c->solver, m, c->C, c->b, c->l, &cs);
    model_move(c, m);
    return s;
  }
  for (int a = 0; a < m; a++)
    c->mu[a] = c->world.item[kr_contact_body_of(k, c->cand[a])].friction;
  /* the sweeps in rounds, the model's law checked after each: the forces
   * of contacts whose tangential response is nearly singular are
   * indeterminate (a Kirchhoff rod lying on a table cannot stretch: its
   * nodes' axial friction forces move it alike), and on the compliance of
   * a long pressed stretch (a smooth kernel) the sweeps converge slowly
   * (rod_on_table.ini on 120 nodes, its clamp turned about the normal:
   * the law's violation falls by 0.998 a sweep, 2.9e-11 m after 1000
   * where the tolerance is 8e-9 m). The update needs the law only to a
   * tenth of its violation at the current forces (an inexact Newton step:
   * the model reproduces the measured values there, and the next update
   * starts from the forces this one reached), or to kr_contact_still of
   * the contact tolerance. */
  const double v0 = model_law_violation(c, m);
  const double enough =
      fmax(kr_contact_still * c->tol, kr_contact_forcing * v0);
  for (int done = 0; done < kr_contact_sweeps; done += kr_contact_round) {
    s = rod_contact_coulomb(c->solver, m, c->C, c->b, c->mu, kr_contact_gs,
                            kr_contact_round, c->l, &cs);
    if (s != ROD_ENOCONV || model_law_violation(c, m) <= enough) {
      s = s == ROD_ENOCONV ? ROD_OK : s;
      break;
    }
  }
  /* not that far in kr_contact_sweeps: the update as far as it got, if
   * it got anywhere (newton takes the forces as they are when they
   * already meet the law) */
  if (s == ROD_ENOCONV && model_law_violation(c, m) < v0) {
    s = ROD_OK;
    c->unresolved = true;
  }
  /* friction components within the solve's tolerance are zero: a rod
   * moving in a plane keeps its forces in it (the tangent across it,
   * measured 1.1e-14 N against 0.87 N, took the sweeps off the plane) */
  double big = 0;
  for (int u = 0; u < n; u++)
    big = fmax(big, fabs(c->l[u]));
  for (int u = 0; u < n; u++)
    if (u % D && fabs(c->l[u]) <= kr_contact_gs * big)
      c->l[u] = 0;
  model_move(c, m);
  return s;
}

/* The largest change of the update and the sum of the forces (N); the
 * largest move of a measured value the model predicts for it (m, c->dw). */
static double update_change(const kr_contact *c, int m, double *total,
                            double *move) {
  const int n = c->dim * m;
  double change = 0;
  *move = 0;
  for (int u = 0; u < n; u++) {
    change = fmax(change, fabs(c->l[u] - c->g0[u]));
    *move = fmax(*move, fabs(c->dw[u]));
  }
  *total = 0;
  for (int i = 0; i < c->nodes; i++)
    *total += c->f[3 * i];
  return change;
}

/* The step's chain of solvers at the current forces, the shooting to
 * kr_contact_shooting; with loosen up to kr_contact_loosest of
 * solver.tolerance where rounding stops it short of that
 * (cantilever_table.ini at dt = 31.25 us, the step after the first impact:
 * modified shooting stalled at 1.34e-12). */
static int solve_tolerant(rod_kirchhoff *k, const kr_solve_kind *kind,
                          bool loosen, double *x, rod_step_stats *st) {
  const double tol = k->sc.solver.tolerance;
  int s;
  for (double tau = kr_contact_shooting;; tau *= 10) {
    k->sc.solver.tolerance = fmin(tol, tau);
    s = kr_solve_chain(k, kind->t, kind->coeffs, false, kind->modified, x, st);
    if (s == ROD_OK || !loosen || !(10 * tau <= kr_contact_loosest * tol))
      break;
  }
  if (s == ROD_OK)
    k->contact->shot_tol = fmax(k->contact->shot_tol, k->sc.solver.tolerance);
  k->sc.solver.tolerance = tol;
  return s;
}

/* The step's solve at the current forces (solve_tolerant), its last sweep
 * at x and its gaps. */
static int step_solve(rod_kirchhoff *k, const kr_solve_kind *kind, double *x,
                      rod_step_stats *st) {
  kr_contact *c = k->contact;
  kr_contact_apply_forces(k);
  const bool blurred = blurred_step(k, kind);
  int s = solve_tolerant(k, kind, blurred, x, st);
  if (s != ROD_OK && blurred) {
    /* from the accepted state: the extrapolation across an impact's jump
     * of the velocity (cantilever_table.ini at dt = 31.25 us, the step
     * after the second impact, 16.5 N: its residual 2e4) */
    kr_predict_hold(k, true);
    s = solve_tolerant(k, kind, blurred, x, st);
    kr_predict_hold(k, false);
  }
  if (s != ROD_OK)
    return s;
  if (segmented_gaps(k, kind)) { /* modified shooting's sweep is at x */
    c->sweep_res = 0;
    kr_contact_gaps(k);
    return ROD_OK;
  }
  return sweep_gaps(k, x, st);
}

static int solve_kind(rod_kirchhoff *k, const kr_solve_kind *kind, double *x,
                      rod_step_stats *st) {
  return kind->dynamic ? step_solve(k, kind, x, st) : solve_at(k, x, st);
}

/* Moreau-Jean's impacts (Jean 1999; Acary and Brogliato 2008, ch. 10):
 * a node that was free at the step's start and ends it inside a body with
 * restitution e > 0 (at the forces of the last step, or of an earlier
 * attempt at this one) and approached it, v_n- < 0, takes the velocity
 * law v_n+ + e v_n- >= 0 _|_ F >= 0 in the step instead of Signorini's on
 * the gap. Its normal and v_n- are fixed for the step. */
static void flag_impacts(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++) {
    c->vlaw[i] = 0;
    if (i == 0 || c->fn_before[i] > 0 || !(c->gap[i] < 0 || c->f[3 * i] > 0))
      continue;
    const double e =
        c->e_scale * c->world.item[kr_contact_body_of(k, i)].restitution;
    const double *n = c->gnorm + 3 * i;
    const double v0 =
        kr_contact_normal_speed(k->sol_y + (size_t)i * KR_NODE, n);
    if (!(e > 0) || !(v0 < 0))
      continue;
    c->vlaw[i] = 1;
    c->e_node[i] = e;
    c->vn_before[i] = v0;
    v3_copy(c->vnorm + 3 * i, n);
  }
}

/* In a time step the pressed nodes push along the body's normal at their
 * current places, as in the statics (kr_contact_follow_normals): a node
 * sliding round a curved body turns its normal with it, which a direction
 * frozen where it first pressed did not (frictionless, a force off the
 * normal by the angle slid does work along the surface). True when a
 * direction turned (forces applied); a plane's never does, to the bit.
 * Nodes under the velocity law keep the normal of their impact. */
static bool turn_normals(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  bool turned = false;
  for (int i = 1; i < c->nodes; i++) {
    double d[3];
    if (!(c->f[3 * i] > 0) || c->vlaw[i])
      continue;
    /* the normal is known to the contact tolerance over the body's
     * radius: turned when off by a tenth of that */
    v3_sub(d, c->gnorm + 3 * i, c->normal + 3 * i);
    if (v3_norm(d) >
        0.1 * c->tol /
            kr_contact_body_size(&c->world.item[kr_contact_body_of(k, i)])) {
      v3_copy(c->normal + 3 * i, c->gnorm + 3 * i);
      turned = true;
    }
  }
  if (turned)
    kr_contact_apply_forces(k);
  return turned;
}

/* Newton on the forces until they meet the contact conditions and have
 * settled; an update whose rod does not solve is halved. In a time step the
 * pressed nodes' directions follow the normals (turn_normals), each turn
 * solved again. */
static int newton(rod_kirchhoff *k, const kr_solve_kind *kind, double *x,
                  rod_step_stats *st) {
  kr_contact *c = k->contact;
  const int max_it =
      kind->max_it > 0 ? kind->max_it : k->sc.solver.max_iterations;
  c->shot_tol = 0;
  int s = solve_kind(k, kind, x, st);
  if (s != ROD_OK)
    return s;
  if (kind->dynamic && c->restitution)
    flag_impacts(k);
  double change = 0, total = 0; /* N: the last update's largest change */
  double move = 0;              /* m: the nodes' move it predicts */
  const bool stiff = kind->dynamic && stiff_step(k, kind);
  /* the compliance from solved steps (solved_compliance) once an update
   * realised less than kr_contact_realised of the move it predicted, from
   * the start where simple shooting's rounding exceeds the move of the
   * columns' one Newton step (kr_contact_blind) */
  bool solved =
      stiff && simple_resolution(k, kind) > kr_contact_blind * k->model.length;
  for (int it = 0;; it++) {
    /* m: what the model of the update resolves, simple shooting's
     * columns their rounding (simple_resolution), solved columns the
     * gaps' (gap_resolution) */
    const double resolution =
        solved ? gap_resolution(k, kind) : simple_resolution(k, kind);
    if (c->restitution) /* nothing sinks beyond the tolerance */
      for (int i = 0; i < c->nodes; i++)
        if (c->vlaw[i] && c->gap[i] < -c->tol)
          c->vlaw[i] = 0;
    if (kind->dynamic && it < max_it && turn_normals(k)) {
      /* along the normals at the nodes' places, solved again */
      s = solve_kind(k, kind, x, st);
      if (s != ROD_OK)
        return s;
      it++;
    }
    const bool comp = complementary(k);
    if (comp && (change <= kr_contact_settle * total ||
                 move <= kr_contact_still * c->tol || move <= resolution))
      return ROD_OK;
    if (it >= max_it)
      return ROD_ENOCONV;
    int m;
    for (int i = 0; i < c->nodes; i++) /* the update's realised move */
      for (int j = 0; j < c->dim; j++)
        c->w_before[c->dim * i + j] = kr_contact_measured(k, i, j);
    s = newton_update(k, kind, x, &m, solved, st);
    if (s != ROD_OK && s != ROD_ENOMEM && stiff && !solved &&
        kind->max_it == 0) {
      /* one Newton step of simple shooting gave no compliance (a
       * non-finite sweep) or one whose contact problem has no solution,
       * in a step with no fallback after it (backward Euler): the columns
       * from solved steps */
      solved = true;
      s = newton_update(k, kind, x, &m, solved, st);
    }
    if (s != ROD_OK)
      return s;
    if (comp && c->unresolved) /* the forces meet the law to the tolerance
                                  and the model resolves no better ones */
      return solve_kind(k, kind, x, st);
    change = update_change(c, m, &total, &move);
    double x0[6], step = 1.0;
    memcpy(x0, x, sizeof x0);
    for (;;) {
      for (int u = 0; u < c->dim * m; u++)
        c->f[3 * c->cand[u / c->dim] + u % c->dim] =
            c->g0[u] + step * (c->l[u] - c->g0[u]);
      s = solve_kind(k, kind, x, st);
      if (s == ROD_OK)
        break;
      memcpy(x, x0, sizeof x0);
      step *= 0.5;
      if (step < 1e-3)
        return s;
    }
    if (stiff && !solved) {
      const int D = c->dim;
      double realised = 0;
      for (int u = 0; u < D * m; u++) {
        const int i = c->cand[u / D];
        realised = fmax(realised, fabs(kr_contact_measured(k, i, u % D) -
                                       c->w_before[D * i + u % D]));
      }
      solved = realised < kr_contact_realised * step * move;
    }
  }
}

int kr_contact_static(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  const kr_solve_kind kind = {.dynamic = false};
  k->contact->dim = 1; /* frictionless: also an equilibrium with friction */
  memset(k->contact->vlaw, 0, (size_t)k->nodes); /* at rest */
  return newton(k, &kind, x, st);
}

int kr_contact_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *cf,
                    int max_it, bool *modified, double *x, rod_step_stats *st) {
  const kr_solve_kind kind = {.dynamic = true,
                              .t = t,
                              .coeffs = cf,
                              .modified = modified,
                              .max_it = max_it};
  k->contact->dim = k->contact->world.friction ? 3 : 1;
  return newton(k, &kind, x, st);
}

int kr_contact_free_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *cf,
                         bool *modified, double *x, rod_step_stats *st,
                         bool *clear) {
  kr_contact *c = k->contact;
  *clear = false;
  c->dim = c->world.friction ? 3 : 1;
  memset(c->vlaw, 0, (size_t)c->nodes); /* no impact: nothing is near */
  kr_contact_apply_forces(k);
  /* the shooting at solver.tolerance, its last sweep at x (as without the
   * bodies): the gaps from its nodes, no sweep of their own */
  int s = kr_solve_chain(k, t, cf, false, modified, x, st);
  if (s != ROD_OK)
    return s;
  kr_contact_gaps(k);
  for (int i = 1; i < c->nodes; i++)
    if (!(c->gap[i] > c->tol))
      return ROD_OK;
  *clear = true;
  k->quadratures_done = true; /* by node_gaps, at the step's last sweep */
  return ROD_OK;
}
