/* Contact of the Kirchhoff/Cosserat rod with the scenario's bodies
 * (docs/contact.md): the distributed contact force fbar(s) of the rod's
 * equations (Till & Rucker 2017, eq. 4: n_s = ... - f) lumped at the grid
 * nodes, a force F_i n_i >= 0 at node i along the outward normal n_i of
 * the body it touches (the trapezoidal rule of fbar; n jumps by -F_i n_i
 * there, as at a point load). The conditions are Signorini's at the nodes,
 * gap_i >= 0 _|_ F_i >= 0: an exact active set, no penalty, so a pressed
 * node lies on the body to the contact tolerance solver.tolerance x
 * rod.length.
 *
 * Statics: Newton on the complementarity problem. At the forces F the rod
 * is solved (shooting), and the gaps respond to a change dF through the
 * compliance C = d gap / d F of the rod's equilibrium (symmetric,
 * Maxwell-Betti), so the next forces solve the linear complementarity
 * problem gap + C (F' - F) >= 0 _|_ F' >= 0 (the frictionless dual,
 * contact_dual.c). Column i of C is the linearised response to a force at
 * node i: one Newton step of the shooting with the Jacobian at the
 * solution, dx = -J^-1 r(x, F +- d e_i), and the gaps of the sweep at
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "kirchhoff/kirchhoff.h"

struct kr_contact {
  rod_contact_world world;
  double tol;        /* m: contact tolerance */
  double margin;     /* m: nodes closer than this are candidates */
  int nodes;         /* grid nodes */
  double *f;         /* N, nodes x 3: each node's force along its normal and
                        the two tangents (rod_contact_tangents) */
  double *mu;        /* nodes: Coulomb's mu of the body each node touches */
  int dim;           /* unknowns per node: 1 frictionless, 3 with friction */
  double *saved;     /* N, nodes: kr_contact_save's copy */
  double *saved_pos; /* m, nodes x 3: the positions then */
  double *normal;    /* nodes x 3: the direction it pushes (world) */
  double *gap;       /* m, nodes: smallest gap over the bodies */
  double *gnorm;     /* nodes x 3: the normal of the nearest body */
  int *cand;         /* the candidate nodes of the current problem */
  double *C, *b, *l, *g0; /* candidates^2, candidates x 3 */
  double *V, *ev, *work;  /* model_matrix: eigenvectors, values, LAPACK's */
  int lwork;
  rod_contact_solver *solver;
  double *out_force;       /* N, nodes x 3: lumped at the nodes */
  signed char *out_active; /* nodes */
  double gap_min;          /* m */
  double *pos_before;      /* m, nodes x 3: the accepted positions */
  double dissipated;       /* J: the energy the contacts took since t = 0 */
  double impulse_time;     /* s: the forces F at the step's end gave the rod
                              the impulse F impulse_time */
  double *fn_before; /* N, nodes: the normal forces of the accepted step */
  /* impacts with restitution (Moreau-Jean's law at the velocity level) */
  signed char *vlaw; /* nodes: the velocity law holds in this step */
  double *vn_before; /* m/s, nodes: the normal velocity at the step's start */
  double *e_node;    /* nodes: the restitution of the body struck */
  double *vnorm;     /* nodes x 3: the normal of that body */
  int since_impact;  /* accepted steps since the last impact step */
  bool closed;       /* nothing but gravity and the bodies works on the rod */
  bool restitution;  /* some body has restitution > 0 */
  double e_scale;    /* the restitution of this step over the bodies' */
  int euler_hold;    /* accepted steps left by backward Euler alone */
  char refusal[320]; /* why the last step was refused, or "" */
  double *w_before;  /* m, unknowns: the measured values before an update */
  bool unresolved;   /* the last update's Coulomb problem was solved only in
                        part (newton_update) */
  double sweep_res;  /* the scaled residual of the sweep the gaps came
                        from (0: the solve's own sweep) */
  double shot_tol;   /* the loosest shooting tolerance of the step's solves */
};

void kr_contact_free(kr_contact *c) {
  if (!c)
    return;
  free(c->f);
  free(c->mu);
  free(c->saved);
  free(c->saved_pos);
  free(c->pos_before);
  free(c->normal);
  free(c->gap);
  free(c->gnorm);
  free(c->cand);
  free(c->C);
  free(c->b);
  free(c->l);
  free(c->g0);
  free(c->V);
  free(c->ev);
  free(c->work);
  rod_contact_solver_free(c->solver);
  free(c->out_force);
  free(c->out_active);
  free(c->fn_before);
  free(c->vlaw);
  free(c->vn_before);
  free(c->e_node);
  free(c->vnorm);
  free(c->w_before);
  free(c);
}

int kr_contact_create(rod_kirchhoff *k) {
  k->contact = NULL;
  rod_contact_world w;
  rod_contact_world_init(&w, &k->sc);
  if (w.count == 0)
    return ROD_OK;
  kr_contact *c = calloc(1, sizeof *c);
  if (!c)
    return ROD_ENOMEM;
  const size_t N = (size_t)k->nodes;
  /* the unknowns: one per node, three with friction */
  const size_t U = (w.friction ? 3 : 1) * N;
  c->world = w;
  c->nodes = k->nodes;
  c->tol = k->sc.solver.tolerance * k->sc.rod.length;
  c->margin = 2.0 * w.rod_radius;
  c->f = calloc(3 * N, sizeof(double));
  c->mu = calloc(N, sizeof(double));
  c->saved = calloc(3 * N, sizeof(double));
  c->saved_pos = calloc(3 * N, sizeof(double));
  c->pos_before = calloc(3 * N, sizeof(double));
  c->normal = calloc(3 * N, sizeof(double));
  c->gap = calloc(N, sizeof(double));
  c->gnorm = calloc(3 * N, sizeof(double));
  c->cand = calloc(N, sizeof(int));
  c->C = calloc(U * U, sizeof(double));
  c->b = calloc(U, sizeof(double));
  c->l = calloc(U, sizeof(double));
  c->g0 = calloc(U, sizeof(double));
  c->V = calloc(U * U, sizeof(double));
  c->ev = calloc(U, sizeof(double));
  c->lwork = 34 * (int)U; /* dsyev: (nb + 2) N, nb the block size */
  c->work = calloc((size_t)c->lwork, sizeof(double));
  c->solver = rod_contact_solver_alloc((int)U, 1);
  c->out_force = calloc(3 * N, sizeof(double));
  c->out_active = calloc(N, sizeof(signed char));
  c->fn_before = calloc(N, sizeof(double));
  c->vlaw = calloc(N, sizeof(signed char));
  c->vn_before = calloc(N, sizeof(double));
  c->e_node = calloc(N, sizeof(double));
  c->vnorm = calloc(3 * N, sizeof(double));
  c->w_before = calloc(U, sizeof(double));
  c->since_impact = KR_CONTACT_RESTART;
  c->impulse_time = k->sc.time.dt;
  const rod_scenario *sc = &k->sc;
  c->closed = !sc->motor.enabled && sc->loads.count == 0 &&
              !sc->impulse.enabled && v3_norm(sc->tip.force) == 0 &&
              v3_norm(sc->tip.moment) == 0;
  c->dim = 1;
  for (int b = 0; b < w.count; b++)
    c->restitution = c->restitution || w.item[b].restitution > 0;
  k->contact = c;
  k->contact_jump = calloc(3 * N, sizeof(double));
  if (!k->contact_jump || !c->f || !c->mu || !c->saved || !c->saved_pos ||
      !c->pos_before || !c->normal || !c->gap || !c->gnorm || !c->cand ||
      !c->C || !c->b || !c->l || !c->g0 || !c->V || !c->ev || !c->work ||
      !c->solver || !c->out_force || !c->out_active || !c->fn_before ||
      !c->vlaw || !c->vn_before || !c->e_node || !c->vnorm || !c->w_before)
    return ROD_ENOMEM;
  return ROD_OK;
}

/* The world force of node i. */
static void node_force(const kr_contact *c, int i, double F[3]) {
  double t1[3], t2[3];
  const double *n = c->normal + 3 * i, *f = c->f + 3 * i;
  if (f[0] == 0 && f[1] == 0 && f[2] == 0) { /* also where no normal is set */
    v3_set(F, 0, 0, 0);
    return;
  }
  rod_contact_tangents(n, t1, t2);
  for (int j = 0; j < 3; j++)
    F[j] = f[0] * n[j] + f[1] * t1[j] + f[2] * t2[j];
}

/* The nodes' forces into the sweeps' jumps. */
static void apply_forces(rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < k->nodes; i++)
    node_force(c, i, k->contact_jump + 3 * i);
}

bool kr_contact_planar(const rod_kirchhoff *k) {
  for (int i = 0; i < k->nodes; i++)
    if (k->contact_jump[3 * i + 1] != 0)
      return false;
  return true;
}

/* The gaps of the last sweep's nodes (its quadratures integrated): the
 * smallest over the bodies, its normal, and the smallest of all. */
static void node_gaps(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  kr_quadratures(k);
  c->gap_min = INFINITY;
  for (int i = 0; i < k->nodes; i++) {
    const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    c->gap[i] = INFINITY;
    for (int b = 0; b < c->world.count; b++) {
      double n[3];
      const double d =
          rod_obstacle_distance(&c->world.item[b], p, n) - c->world.rod_radius;
      if (d < c->gap[i]) {
        c->gap[i] = d;
        v3_copy(c->gnorm + 3 * i, n);
      }
    }
    c->gap_min = fmin(c->gap_min, c->gap[i]);
  }
}

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
    node_gaps(k);
  return s;
}

/* Solve the rod at the current forces from x (the shooting's options);
 * the last sweep at the solution, its gaps evaluated. */
static int solve_at(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  apply_forces(k);
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
static const double kr_contact_cone = 1e-6;

/* The body nearest to node i at the last sweep. */
static int body_of(const rod_kirchhoff *k, int i) {
  const kr_contact *c = k->contact;
  const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
  int best = 0;
  double dmin = INFINITY, n[3];
  for (int bo = 0; bo < c->world.count; bo++) {
    const double d = rod_obstacle_distance(&c->world.item[bo], p, n);
    if (d < dmin) {
      dmin = d;
      best = bo;
    }
  }
  return best;
}

/* The world velocity of the node states y along n (m/s). */
static double normal_speed(const double *y, const double n[3]) {
  double R[9], v[3];
  quat_to_R(R, y + ROD_Y_H);
  m3_mul_v(v, R, y + ROD_Y_Q);
  return v3_dot(n, v);
}

/* The measured value of unknown (node i, direction j) at the last sweep:
 * the gap along the normal (j = 0), the slip since the accepted state
 * along tangent j (1, 2); at a node under the velocity law (an impact with
 * restitution e) dt (v_n+ + e v_n-) instead of the gap, v_n+ and v_n- its
 * normal velocity at the step's end and start. */
static double measured(const rod_kirchhoff *k, int i, int j) {
  const kr_contact *c = k->contact;
  const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
  if (j == 0 && c->vlaw[i]) /* dt (v_n+ + e v_n-): m, as the gaps */
    return k->sc.time.dt *
           (normal_speed(k->node_y + (size_t)i * KR_NODE, c->vnorm + 3 * i) +
            c->e_node[i] * c->vn_before[i]);
  if (j == 0) {
    double n[3], best = INFINITY;
    for (int bo = 0; bo < c->world.count; bo++)
      best = fmin(best, rod_obstacle_distance(&c->world.item[bo], p, n) -
                            c->world.rod_radius);
    return best;
  }
  double t[2][3], d[3];
  rod_contact_tangents(c->normal + 3 * i, t[0], t[1]);
  v3_sub(d, p, c->pos_before + 3 * i);
  return v3_dot(d, t[j - 1]);
}

/* The first node whose force or gap breaks the contact conditions at the
 * last sweep, -1 when none (complementary, below); why (n bytes, or NULL)
 * says how. */
static int law_broken(const rod_kirchhoff *k, char *why, size_t n) {
  const kr_contact *c = k->contact;
  for (int i = 1; i < c->nodes; i++) {
    const double *f = c->f + 3 * i;
    if (!(c->gap[i] >= -c->tol)) { /* a NaN breaks it too */
      if (why)
        snprintf(why, n, "node %d lies %.3g m inside a body (tolerance %.3g m)",
                 i, -c->gap[i], c->tol);
      return i;
    }
    if (!(f[0] >= 0) && why) {
      if (why)
        snprintf(why, n, "node %d pulls on its body (%.3g N)", i, f[0]);
      return i;
    }
    if (c->vlaw[i]) { /* v_n+ >= -e v_n- _|_ F >= 0, to tol / dt */
      const double w = measured(k, i, 0);
      if (w < -c->tol || (f[0] > 0 && w > c->tol)) {
        if (why)
          snprintf(why, n,
                   "node %d misses its impact law by %.3g m/s (tolerance "
                   "%.3g m/s)",
                   i, fabs(w) / k->sc.time.dt, c->tol / k->sc.time.dt);
        return i;
      }
    } else if (f[0] > 0 && c->gap[i] > c->tol) {
      if (why)
        snprintf(why, n,
                 "node %d pushes with %.3g N from %.3g m off its body "
                 "(tolerance %.3g m)",
                 i, f[0], c->gap[i], c->tol);
      return i;
    }
    if (c->dim == 1 || f[0] == 0)
      continue;
    const double mu = c->world.item[body_of(k, i)].friction;
    const double s1 = measured(k, i, 1), s2 = measured(k, i, 2);
    const double ft = hypot(f[1], f[2]), slip = hypot(s1, s2);
    if (ft > mu * f[0] * (1 + kr_contact_cone) ||
        (slip > c->tol &&
         (ft < mu * f[0] * (1 - kr_contact_cone) ||
          f[1] * s1 + f[2] * s2 > -(1 - kr_contact_cone) * ft * slip))) {
      if (why)
        snprintf(why, n,
                 "node %d's friction %.3g N (normal %.3g N, mu %.3g) breaks "
                 "Coulomb's law for its slip of %.3g m",
                 i, ft, f[0], mu, slip);
      return i;
    }
  }
  return -1;
}

/* True when the forces meet the contact conditions at the last sweep; with
 * friction also Coulomb's law at the pressed nodes: a node that slipped
 * by more than the tolerance in the step has its friction force on the
 * cone, opposite to the slip (to kr_contact_cone), none beyond it. */
static bool complementary(const rod_kirchhoff *k) {
  return law_broken(k, NULL, 0) < 0;
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
      apply_forces(k);
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
        const double w = measured(k, c->cand[u / D], u % D);
        /* central differences: the response's quadratic part cancels */
        c->C[u + (size_t)n * v] =
            side ? (c->C[u + (size_t)n * v] - w) / (2.0 * d) : w;
      }
    }
    *fv = l0;
  }
  apply_forces(k); /* the forces as they were */
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

/* Error growth over a segment of modified shooting (kirchhoff_backend.c's
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
        const double w = measured(k, c->cand[u / D], u % D);
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
      const rod_obstacle *o = &c->world.item[body_of(k, i)];
      if (c->f[3 * i] == 0 && !kind->dynamic && o->kind == ROD_OBSTACLE_BOX &&
          c->gap[i] < 0)
        rod_obstacle_distance(o, c->saved_pos + 3 * i, c->normal + 3 * i);
    }
  *m_out = m;
  if (m == 0)
    return ROD_OK;
  const int n = D * m;
  for (int u = 0; u < n; u++) /* before compliance moves the last sweep */
    c->b[u] = measured(k, c->cand[u / D], u % D);
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
  if (D == 1)
    return rod_contact_dual(c->solver, m, c->C, c->b, c->l, &cs);
  for (int a = 0; a < m; a++)
    c->mu[a] = c->world.item[body_of(k, c->cand[a])].friction;
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
  return s;
}

/* The largest change of the update and the sum of the forces (N); the
 * largest move of a measured value the model predicts for it, M (F' - F)
 * (m). */
static double update_change(const kr_contact *c, int m, double *total,
                            double *move) {
  const int n = c->dim * m;
  double change = 0;
  *move = 0;
  for (int u = 0; u < n; u++) {
    change = fmax(change, fabs(c->l[u] - c->g0[u]));
    double w = 0;
    for (int v = 0; v < n; v++)
      w += c->C[u + (size_t)n * v] * (c->l[v] - c->g0[v]);
    *move = fmax(*move, fabs(w));
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
  apply_forces(k);
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
    node_gaps(k);
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
    const double e = c->e_scale * c->world.item[body_of(k, i)].restitution;
    const double *n = c->gnorm + 3 * i;
    const double v0 = normal_speed(k->sol_y + (size_t)i * KR_NODE, n);
    if (!(e > 0) || !(v0 < 0))
      continue;
    c->vlaw[i] = 1;
    c->e_node[i] = e;
    c->vn_before[i] = v0;
    v3_copy(c->vnorm + 3 * i, n);
  }
}

static double body_size(const rod_obstacle *o);

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
    if (v3_norm(d) > 0.1 * c->tol / body_size(&c->world.item[body_of(k, i)])) {
      v3_copy(c->normal + 3 * i, c->gnorm + 3 * i);
      turned = true;
    }
  }
  if (turned)
    apply_forces(k);
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
        c->w_before[c->dim * i + j] = measured(k, i, j);
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
        realised = fmax(
            realised, fabs(measured(k, i, u % D) - c->w_before[D * i + u % D]));
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
  apply_forces(k);
  /* the shooting at solver.tolerance, its last sweep at x (as without the
   * bodies): the gaps from its nodes, no sweep of their own */
  int s = kr_solve_chain(k, t, cf, false, modified, x, st);
  if (s != ROD_OK)
    return s;
  node_gaps(k);
  for (int i = 1; i < c->nodes; i++)
    if (!(c->gap[i] > c->tol))
      return ROD_OK;
  *clear = true;
  k->quadratures_done = true; /* by node_gaps, at the step's last sweep */
  return ROD_OK;
}

bool kr_contact_pressed(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0)
      return true;
  return false;
}

bool kr_contact_struck(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0 && !(c->fn_before[i] > 0))
      return true;
  return false;
}

/* The mechanical energy of the last sweep above the accepted state's plus
 * the work the forces may do while the nodes stay within the contact
 * tolerance of the bodies, 2 tol F at each (*bound, J); 0 where no force
 * pushes at the step's start or end (a free step: the scheme's own) or
 * something else works on the rod. */
static double energy_excess(const rod_kirchhoff *k, double *bound) {
  const kr_contact *c = k->contact;
  double work = 0;
  for (int i = 0; i < c->nodes; i++)
    work += 2.0 * c->tol * fmax(c->f[3 * i], c->fn_before[i]);
  *bound = work;
  if (!c->closed || work == 0)
    return 0;
  kr_energy e;
  kr_energies(k, &e);
  const double E = e.kinetic + e.elastic + e.gravity;
  const double limit =
      k->energy.kinetic + k->energy.elastic + k->energy.gravity + work;
  return E > limit || E != E ? E - limit : 0; /* a NaN stays */
}

bool kr_contact_energy_grew(const rod_kirchhoff *k) {
  double bound;
  return energy_excess(k, &bound) != 0;
}

bool kr_contact_verify(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  char why[160];
  double bound, excess = energy_excess(k, &bound);
  if (!(c->sweep_res <= k->sc.solver.tolerance))
    snprintf(why, sizeof why,
             "the rod's sweep misses its end conditions by %.3g (scaled, "
             "solver.tolerance %.3g)",
             c->sweep_res, k->sc.solver.tolerance);
  else if (law_broken(k, why, sizeof why) >= 0)
    ;
  else if (excess != 0)
    snprintf(why, sizeof why,
             "the mechanical energy rose by %.3g J beyond the %.3g J the "
             "contact forces may do within the tolerance",
             excess, bound);
  else
    return true;
  snprintf(c->refusal, sizeof c->refusal,
           "the contact step did not converge: %s", why);
  return false;
}

void kr_contact_scale_restitution(rod_kirchhoff *k, double scale) {
  k->contact->e_scale = scale;
}

bool kr_contact_rebounds(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->vlaw[i] && c->f[3 * i] > 0)
      return true;
  return false;
}

bool kr_contact_struck_rebounding(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  if (!c->restitution || !(c->e_scale > 0))
    return false;
  for (int i = 1; i < c->nodes; i++)
    if (c->f[3 * i] > 0 && !(c->fn_before[i] > 0) && !c->vlaw[i] &&
        c->world.item[body_of(k, i)].restitution > 0)
      return true;
  return false;
}

void kr_contact_impulse_time(rod_kirchhoff *k, double T) {
  k->contact->impulse_time = T;
}

void kr_contact_hold_euler(rod_kirchhoff *k, int steps) {
  k->contact->euler_hold = steps;
}

bool kr_contact_restart(const rod_kirchhoff *k) {
  return k->contact->since_impact < KR_CONTACT_RESTART ||
         k->contact->euler_hold > 0;
}

void kr_contact_accept(rod_kirchhoff *k, bool work) {
  kr_contact *c = k->contact;
  /* the static state is at rest: its pressed nodes struck nothing */
  c->since_impact = work && kr_contact_struck(k) ? 0 : c->since_impact + 1;
  if (c->euler_hold > 0)
    c->euler_hold--;
  /* the forces' work over the step, F n . (p - p_before): a loss */
  for (int i = 0; i < k->nodes; i++) {
    const double *p = k->sol_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    double d[3];
    v3_sub(d, p, c->pos_before + 3 * i);
    if (work && c->vlaw[i]) /* an impulse F T: its work is F T times
                               the mean of v_n- and v_n+ */
      c->dissipated -=
          c->f[3 * i] * c->impulse_time * 0.5 *
          (c->vn_before[i] +
           normal_speed(k->sol_y + (size_t)i * KR_NODE, c->vnorm + 3 * i));
    else if (work) /* F T times the mean velocity d / dt */
      c->dissipated -= v3_dot(k->contact_jump + 3 * i, d) *
                       (c->impulse_time / k->sc.time.dt);
    v3_copy(c->pos_before + 3 * i, p);
    c->fn_before[i] = c->f[3 * i];
  }
}

const rod_obstacle *kr_contact_pressing(const rod_kirchhoff *k, int i) {
  const kr_contact *c = k->contact;
  return c->f[3 * i] > 0 ? &c->world.item[body_of(k, i)] : NULL;
}

void kr_contact_follow_normals(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++)
    if (c->f[3 * i] > 0)
      v3_copy(c->normal + 3 * i, c->gnorm + 3 * i);
  apply_forces(k);
}

void kr_contact_regridded(rod_kirchhoff *k, const double *scale) {
  kr_contact *c = k->contact;
  for (int i = 0; i < c->nodes; i++) {
    if (scale) {
      v3_scale(c->f + 3 * i, scale[i], c->f + 3 * i);
      v3_scale(c->saved + 3 * i, scale[i], c->saved + 3 * i);
      c->fn_before[i] *= scale[i];
    }
    const double *p = k->sol_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    v3_copy(c->pos_before + 3 * i, p);
    v3_copy(c->saved_pos + 3 * i, p);
  }
  apply_forces(k);
}

void kr_contact_reset(rod_kirchhoff *k) {
  memset(k->contact->f, 0, 3 * (size_t)k->nodes * sizeof(double));
  apply_forces(k);
}

void kr_contact_save(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  memcpy(c->saved, c->f, 3 * (size_t)k->nodes * sizeof(double));
  for (int i = 0; i < k->nodes; i++)
    v3_copy(c->saved_pos + 3 * i,
            k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P);
}

double kr_contact_moved(const rod_kirchhoff *k) {
  const kr_contact *c = k->contact;
  double m = 0;
  for (int i = 0; i < k->nodes; i++) {
    double d[3];
    v3_sub(d, k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P,
           c->saved_pos + 3 * i);
    m = fmax(m, v3_norm(d));
  }
  return m;
}

void kr_contact_restore(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  memcpy(c->f, c->saved, 3 * (size_t)k->nodes * sizeof(double));
  apply_forces(k);
}

void kr_contact_sample(rod_kirchhoff *k, rod_sample *out) {
  kr_contact *c = k->contact;
  for (int i = 0; i < k->nodes; i++) {
    v3_copy(c->out_force + 3 * i, k->contact_jump + 3 * i);
    c->out_active[i] = c->f[3 * i] > 0;
  }
  out->contact_force = c->out_force;
  out->contact_active = c->out_active;
  out->contact_gap_min = c->gap_min;
  out->dissipated_contact = c->dissipated;
}

/* The chord a-b crosses the body o deeper than the tolerance while the
 * body's normals at a and b lie more than a right angle apart: a body
 * between the two points (a node sliding over a curved body turns its
 * normal by the small angle of its move; its chord dips below the surface
 * by the sagitta, which is no crossing). *at the chord's point nearest
 * the body. */
static bool crosses(const kr_contact *c, const rod_obstacle *o,
                    const double a[3], const double b[3], double *at) {
  double na[3], nb[3], n[3];
  rod_obstacle_distance(o, a, na);
  rod_obstacle_distance(o, b, nb);
  if (o->kind == ROD_OBSTACLE_BOX) {
    /* flat faces: a chord between two nodes outside enters a box only
     * across an edge or corner, whatever the normals; one deeper than
     * the tolerance farther than the rod's radius from both nodes (a node
     * at the edge holds it; the chord off the curved rod beside it dips
     * by its sagitta) */
    double ab[3];
    v3_sub(ab, b, a);
    const double len = v3_norm(ab), r = c->world.rod_radius;
    return rod_obstacle_segment(o, a, b, at, n) - r<-c->tol && * at * len> r &&
           (1 - *at) * len > r;
  }
  return v3_dot(na, nb) < 0 &&
         rod_obstacle_segment(o, a, b, at, n) - c->world.rod_radius < -c->tol;
}

/* The body's thickness scale (m): its radius, half a box's smallest
 * extent; a plane's is infinite. */
static double body_size(const rod_obstacle *o) {
  switch (o->kind) {
  case ROD_OBSTACLE_PLANE:
    return INFINITY;
  case ROD_OBSTACLE_BOX:
    return fmin(o->half[0], fmin(o->half[1], o->half[2]));
  default:
    return o->radius;
  }
}

/* The body the rod passed through between the positions from (m, nodes x
 * 3) and the last sweep's: a node whose straight path crosses it, or an
 * interval whose chord, moved straight from its first to its last place,
 * crosses it at some stage (the stages closer than the body's radius plus
 * the rod's, so that a chord cannot jump over it). NULL when none
 * crossed; *node the node or the interval's first node, *interval which. */
const rod_obstacle *kr_contact_swept(const rod_kirchhoff *k, const double *from,
                                     int *node, bool *interval) {
  const kr_contact *c = k->contact;
  double at;
  for (int b = 0; b < c->world.count; b++) {
    const rod_obstacle *o = &c->world.item[b];
    if (o->kind == ROD_OBSTACLE_PLANE) /* its normal never turns */
      continue;
    const double reach = body_size(o) + c->world.rod_radius;
    for (int i = 0; i < c->nodes; i++) {
      const double *p = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
      *node = i;
      *interval = false;
      if (i > 0 && crosses(c, o, from + 3 * i, p, &at))
        return o;
      if (i + 1 == c->nodes)
        break;
      const double *q = p + KR_NODE, *f0 = from + 3 * i, *f1 = f0 + 3;
      double d0[3], d1[3];
      v3_sub(d0, p, f0);
      v3_sub(d1, q, f1);
      const int m = (int)ceil(fmax(v3_norm(d0), v3_norm(d1)) / reach);
      *interval = true;
      for (int st = 1; st <= m && m < 1000000; st++) {
        const double tau = (double)st / m;
        double a[3], e[3];
        for (int j = 0; j < 3; j++) {
          a[j] = f0[j] + tau * d0[j];
          e[j] = f1[j] + tau * d1[j];
        }
        if (crosses(c, o, a, e, &at))
          return o;
      }
    }
  }
  return NULL;
}

/* The body the last sweep's centreline passes through between two nodes
 * (the interval's chord crossing it deeper than the tolerance, the body's
 * normals at the two nodes more than a right angle apart: a body thinner
 * than the interval, straddled). NULL when none; *node the interval's
 * first node, *at the chord's point nearest the body (0 to 1 along it). */
const rod_obstacle *kr_contact_straddled(const rod_kirchhoff *k, int *node,
                                         double *at) {
  const kr_contact *c = k->contact;
  for (int i = 0; i + 1 < c->nodes; i++) {
    const double *a = k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P;
    for (int b = 0; b < c->world.count; b++) {
      const rod_obstacle *o = &c->world.item[b];
      if (o->kind != ROD_OBSTACLE_PLANE && crosses(c, o, a, a + KR_NODE, at)) {
        *node = i;
        return o;
      }
    }
  }
  return NULL;
}

bool kr_contact_straddle_note(const rod_kirchhoff *k, char *note, size_t n) {
  int j;
  double t;
  const rod_obstacle *o = kr_contact_straddled(k, &j, &t);
  if (!o)
    return false;
  /* a spacing of at most the body's radius */
  int nodes = (int)ceil(k->model.length / body_size(o)) + 1;
  nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
  snprintf(note, n,
           "the rod passes through %s between nodes %d and %d (s = %.6g to "
           "%.6g m), which no node sees: set space.nodes = %d or more",
           o->label, j, j + 1, k->s[j], k->s[j + 1], nodes);
  return true;
}

bool kr_contact_passed_through(rod_kirchhoff *k) {
  kr_contact *c = k->contact;
  int i;
  bool interval;
  const rod_obstacle *o = kr_contact_swept(k, c->pos_before, &i, &interval);
  if (o) {
    double d[3];
    v3_sub(d, k->node_y + (size_t)i * KR_NODE + ROD_NY + ROD_Q_P,
           c->pos_before + 3 * i);
    /* a move of at most the body's radius in a step */
    const double dt = k->sc.time.dt * body_size(o) / v3_norm(d);
    if (interval) {
      int nodes = (int)ceil(k->model.length / body_size(o)) + 1;
      nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
      snprintf(c->refusal, sizeof c->refusal,
               "the rod passed through %s between nodes %d and %d in one "
               "step: set space.nodes = %d or more and time.dt = %.3g or "
               "less",
               o->label, i, i + 1, nodes, dt);
    } else {
      snprintf(c->refusal, sizeof c->refusal,
               "node %d passed through %s in one step (it moved %.3g m, the "
               "body's radius is %.3g m): set time.dt = %.3g or less",
               i, o->label, v3_norm(d), body_size(o), dt);
    }
    return true;
  }
  return kr_contact_straddle_note(k, c->refusal, sizeof c->refusal);
}

void kr_contact_refuse_crossing(rod_kirchhoff *k, const rod_obstacle *o,
                                int node, bool interval) {
  /* a spacing of at most the body's radius */
  int nodes = (int)ceil(k->model.length / body_size(o)) + 1;
  nodes = nodes > k->nodes ? nodes : 2 * k->nodes;
  if (interval)
    snprintf(k->contact->refusal, sizeof k->contact->refusal,
             "the way to it passes through %s between nodes %d and %d (s = "
             "%.6g to %.6g m), where no node can hold it: set space.nodes = "
             "%d or more",
             o->label, node, node + 1, k->s[node], k->s[node + 1], nodes);
  else
    snprintf(k->contact->refusal, sizeof k->contact->refusal,
             "the way to it takes node %d (s = %.6g m) through %s: set "
             "space.nodes = %d or more",
             node, k->s[node], o->label, nodes);
}

void kr_contact_saved_between(rod_kirchhoff *k, int i, int j, double at) {
  double *p = k->contact->saved_pos, q[3];
  for (int d = 0; d < 3; d++)
    q[d] = p[3 * j + d] + at * (p[3 * (j + 1) + d] - p[3 * j + d]);
  v3_copy(p + 3 * i, q);
}

bool kr_contact_straddle_refused(rod_kirchhoff *k) {
  return kr_contact_straddle_note(k, k->contact->refusal,
                                  sizeof k->contact->refusal);
}

const char *kr_contact_refusal(const rod_kirchhoff *k) {
  return k->contact->refusal;
}

const double *kr_contact_saved_positions(const rod_kirchhoff *k) {
  return k->contact->saved_pos;
}

const double *kr_contact_accepted_positions(const rod_kirchhoff *k) {
  return k->contact->pos_before;
}

void kr_contact_refusal_clear(rod_kirchhoff *k) { k->contact->refusal[0] = 0; }
