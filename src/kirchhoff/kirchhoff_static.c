/* The static state as the end of a loading path (docs/numerics.md,
 * Statics): the loads grow from zero on the unloaded (precurved) rod,
 * whose unknowns n(0) = m(0) = 0 solve the problem exactly, to their full
 * value, by pseudo-arclength continuation (bvp/path.h) through any fold;
 * the state reached is checked for stability by its conjugate points.
 *
 * One direct Newton solve from the straight rigid rod's forces (the
 * path's first predictor taken to the full loads at once) stays the fast
 * path: it is kept when Newton contracts at every iteration (each
 * residual at most kr_direct_ratio of the last) and the state is stable;
 * the paper's rods solve so, as before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "bvp/path.h"
#include "core/solve_small.h"
#include "core/static_note.h"
#include "kirchhoff/kirchhoff_schemes.h"

/* Largest ratio of successive residual norms (2-norm, scaled units) the
 * direct solve may show: Newton started inside its region of quadratic
 * convergence contracts at least this much from the first iteration on
 * (Kantorovich: h = 2 theta <= 1); a solve that needs damping or
 * contracts less may have converged to another branch, and the path
 * decides. */
static const double kr_direct_ratio = 0.5;

/* The largest load step of the path with contact, and the largest move
 * of a point in one step, relative to the length (contact_path). */
static const double kr_contact_load_step = 0.1, kr_contact_path_move = 0.05;

/* The loads the path scales: lambda (loading) or, for the release of an
 * imperfection, the full loads and (1 - lambda) of the imperfection. */
typedef struct {
  rod_kirchhoff *k;
  kr_dead_loads full; /* the full loads (kirchhoff_loads.h) */
  double extra[3];    /* N: imperfection at the tip */
  bool release;       /* lambda takes the imperfection away */
} kr_path_loads;

static void save_loads(kr_path_loads *pl, rod_kirchhoff *k) {
  memset(pl, 0, sizeof *pl);
  pl->k = k;
  kr_loads_dead(k, &pl->full);
}

static void apply_loads(const kr_path_loads *pl, double lambda) {
  rod_kirchhoff *k = pl->k;
  const double f = pl->release ? 1.0 : lambda;
  const double e = pl->release ? 1.0 - lambda : lambda;
  kr_loads_scale(k, &pl->full, f);
  for (int i = 0; i < 3; i++)
    k->loads.tip_force[i] += e * pl->extra[i];
}

/* The loads reached on a loading path, for rod_sim_static_progress: the
 * largest lambda solved so far (the path may pass a fold and come back),
 * or -1 off a path. */
static void note_progress(rod_kirchhoff *k, double lambda) {
  rod_static_progress_note(&k->static_progress, lambda);
}

static int path_residual(void *user, const double *x, double lambda, double *r,
                         double *J) {
  kr_path_loads *pl = user;
  apply_loads(pl, lambda);
  int s = J ? rod_shooting_jacobian(pl->k->shoot, x, r, J)
            : rod_shooting_residual(pl->k->shoot, x, r);
  if (s == ROD_OK && J && !pl->release)
    note_progress(pl->k, lambda);
  return s == ROD_OK ? 0 : 1;
}

/* ---- stability: conjugate points ------------------------------------ */

/* Conjugate-point test (Jacobi; Manning 2009 for free ends): the rod is
 * stable when no sub-rod [s_j, L], clamped at s_j and carrying the same
 * dead loads, has a neutral direction. Its Jacobi fields solve the
 * shooting problem's tangent equations from the free end with dn = dm = 0
 * there; since p enters no equation (dead loads), a clamp at s_j is
 * neutral exactly when det Theta_j = 0, Theta_j the rotations at node j
 * of the three fields that start with the rotations e_1, e_2, e_3 at L.
 * Each zero of det Theta on the way from L to 0 is one direction in which
 * the whole rod is unstable (Morse index theorem). The fields are those of
 * the discrete problem itself: each grid interval's RK4 map is
 * differentiated (the tangent sweep over it) and inverted, so a neutral
 * direction that a symmetry makes exact stays exact (a
 * column buckled under an axial load turns freely about the axis: det
 * Theta at the clamp 1e-12, where fields of the continuous equations
 * along the discrete states left 5e-6 at 100 nodes). For a rod in the x-z
 * plane the in-plane field (about y) and the out-of-plane pair are
 * counted apart, so that a column's two equal buckling modes are seen. */
typedef struct {
  bool planar;
  bool plane;       /* planar in another plane than x-z (plane_of) */
  double normal[3]; /* that plane's normal, world frame */
  int in, out;      /* zeros of the in-plane and out-of-plane determinants */
  int index;        /* unstable directions */
  int neutral;      /* determinants zero at the clamp: neutral directions */
} kr_stability;

/* A determinant at the clamp (fields scaled to a largest component of 1)
 * below this is zero: a neutral direction, not an unstable one. The
 * state is converged to solver.tolerance (1e-8): a symmetric column's
 * neutral direction measures ~1e-12, an unstable state's determinant is
 * of order 1 times its distance from the critical load. */
static const double kr_neutral = 1e-6;

/* The directions of the interval maps the fields need: the quaternion, n
 * and m (h, n, m lead the states). A static state has q = w = 0 and c0 =
 * 0, where the rows of q and w in d y_(j+1) / d y_j vanish on these
 * directions (each term of their tangent, rod_rhs_tangent, holds q, w, dq,
 * dw or c0), so the fields, which start with dq = dw = 0, keep them zero
 * and solve the map's block on h, n, m alone: 10 directions of the
 * tangent sweep and 10 unknowns where the whole map has 16. */
enum { KR_FIELD_DIRS = ROD_Y_Q };

/* d = A^-1 d for the three fields (NY each; their first KR_FIELD_DIRS
 * components), A the block of the interval map on the field directions,
 * M its tangent sweep (NY x KR_FIELD_DIRS, column-major); false when A is
 * singular. */
static bool fields_back(const double *M, double *d) {
  enum { NF = KR_FIELD_DIRS };
  double A[NF * NF], B[NF * 3];
  for (int r = 0; r < NF; r++) {
    for (int c = 0; c < NF; c++)
      A[NF * r + c] = M[ROD_NY * c + r];
    for (int f = 0; f < 3; f++)
      B[3 * r + f] = d[ROD_NY * f + r];
  }
  if (!rod_solve_small(A, NF, B, 3))
    return false;
  for (int r = 0; r < NF; r++)
    for (int f = 0; f < 3; f++)
      d[ROD_NY * f + r] = B[3 * r + f];
  return true;
}

/* Rotations (body frame) of the fields at the state y: Theta column c. */
static void field_rotations(const double *y, const double *dy, double *T) {
  const double *h = y + ROD_Y_H;
  const double s =
      2.0 / (h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3]);
  for (int c = 0; c < 3; c++) {
    const double *d = dy + ROD_NY * c + ROD_Y_H;
    T[0 + 3 * c] = s * (h[0] * d[1] - h[1] * d[0] - h[2] * d[3] + h[3] * d[2]);
    T[1 + 3 * c] = s * (h[0] * d[2] + h[1] * d[3] - h[2] * d[0] - h[3] * d[1]);
    T[2 + 3 * c] = s * (h[0] * d[3] - h[1] * d[2] + h[2] * d[1] - h[3] * d[0]);
  }
}

/* The determinants watched: in-plane and out-of-plane (planar), or the
 * whole (3D, in the first; the second is 1). */
static void dets(const double *T, bool planar, double *a, double *b) {
  if (planar) {
    *a = T[4];
    *b = T[0] * T[8] - T[6] * T[2];
    return;
  }
  *a = T[0] * (T[4] * T[8] - T[7] * T[5]) - T[3] * (T[1] * T[8] - T[7] * T[2]) +
       T[6] * (T[1] * T[5] - T[4] * T[2]);
  *b = 1.0;
}

/* The same for a rod in another plane (plane_of): the first field started
 * about the plane's normal, nb in the node's body frame, the other two
 * across it; e3 and nb x e3 span the rotations across nb there. */
static void dets_plane(const double *T, const double *nb, double *a,
                       double *b) {
  const double q[3] = {nb[1], -nb[0], 0.0}; /* nb x e3 */
  *a = v3_dot(nb, T);
  *b = T[3 + 2] * v3_dot(q, T + 6) - T[6 + 2] * v3_dot(q, T + 3);
}

/* A plane through the rod holding its state and loads, with the normal
 * nu (world frame): every tangent and force across nu, every moment and
 * precurvature about it. A round column's two bending directions turn
 * unstable at the same load, which the whole determinant (their product)
 * does not see change sign: in a plane they are counted apart. The rod
 * in the x-z plane with the usual frames is kr_planar_symmetric; this
 * finds any other plane (loads in the y-z plane, a column leaning out
 * of x-z). Not with an attached body. */
static bool plane_of(const rod_kirchhoff *k, double nu[3]) {
  if (k->tip_body || !k->ustar_planar)
    return false;
  double C[9] = {0}, w[3];
  const double tol = 1e-9;
  /* the vectors across nu, unit length, in C = sum v v^T */
  const double *force[2 + KR_MAX_POINTS], *moment[1 + KR_MAX_POINTS];
  int nf, nm;
  kr_loads_vectors(k, force, &nf, moment, &nm);
  double R[9];
  for (int j = 0; j < k->nodes; j++) {
    quat_to_R(R, k->node_y + (size_t)j * KR_NODE + ROD_Y_H);
    const double d[3] = {R[2], R[5], R[8]};
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        C[r + 3 * c] += d[r] * d[c];
  }
  for (int i = 0; i < nf; i++) {
    double n = v3_norm(force[i]);
    for (int r = 0; n > 0 && r < 3; r++)
      for (int c = 0; c < 3; c++)
        C[r + 3 * c] += force[i][r] * force[i][c] / (n * n);
  }
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', 3, C, 3, w) != 0)
    return false;
  v3_copy(nu, C); /* the smallest eigenvalue's vector */
  for (int j = 0; j < k->nodes; j++) {
    quat_to_R(R, k->node_y + (size_t)j * KR_NODE + ROD_Y_H);
    const double d[3] = {R[2], R[5], R[8]}, e2[3] = {R[1], R[4], R[7]};
    if (fabs(v3_dot(d, nu)) > tol)
      return false;
    if (!rod_model_straight(&k->model) &&
        fabs(fabs(v3_dot(e2, nu)) - 1.0) > tol)
      return false;
  }
  for (int i = 0; i < nf; i++)
    if (fabs(v3_dot(force[i], nu)) > tol * v3_norm(force[i]))
      return false;
  for (int i = 0; i < nm; i++) {
    double c[3];
    v3_cross(c, moment[i], nu);
    if (v3_norm(c) > tol * v3_norm(moment[i]))
      return false;
  }
  return true;
}

/* Scale each field to a largest component of 1 (signs of the
 * determinants unchanged). */
static void fields_normalise(double *dy) {
  for (int c = 0; c < 3; c++) {
    double *d = dy + ROD_NY * c, a = 0;
    for (int i = 0; i < ROD_NY; i++)
      a = fmax(a, fabs(d[i]));
    if (a > 0)
      for (int i = 0; i < ROD_NY; i++)
        d[i] /= a;
  }
}

/* The conjugate points of the state at the unknowns x (statics, loads
 * set); the last sweep is left at x. With swept, the last sweep is at x
 * already (a shooting solve that just ended there) and is read as it is;
 * else a sweep at x comes first. A state solved by segments (x NULL) is
 * read from the last sweep's nodes as they are, and they are kept: a
 * sweep from the clamp would grow its rounding by the whole rod's
 * exp(G). */
static kr_stability stability(rod_kirchhoff *k, const double *x, bool swept) {
  enum { NY = ROD_NY };
  kr_stability r = {.planar = kr_planar_symmetric(k)};
  const int last = k->nodes - 1;
  const bool planar = k->planar;
  k->planar = false; /* out-of-plane directions too */
  double r6[6];
  if (x && !swept)
    rod_shooting_residual(k->shoot, x, r6);
  else if (!x) /* the segments' states, which each interval's tangent sweep
          below rewrites at its end node */
    memcpy(k->sol_y, k->node_y, (size_t)k->nodes * KR_NODE * sizeof(double));
  double y[NY], M[NY * KR_FIELD_DIRS], dy[3 * NY] = {0}, T[9];
  double ynext[NY];
  memcpy(ynext, k->node_y + (size_t)last * KR_NODE, sizeof ynext);
  /* the fields' rotations at L, body frame: e_1, e_2, e_3, or for another
   * plane its normal, e_3 and the normal x e_3 */
  double start[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9], nb[3];
  r.plane = !r.planar && plane_of(k, r.normal);
  if (r.plane) {
    quat_to_R(R, ynext + ROD_Y_H);
    m3_mul_tv(nb, R, r.normal);
    v3_set(start, nb[0], nb[1], 0.0);
    v3_normalize(start);
    v3_set(start + 3, 0.0, 0.0, 1.0);
    v3_set(start + 6, start[1], -start[0], 0.0);
  }
  double dF[3 * NY], dM[3 * NY], Fb[3], Mb[3];
  /* tip loads that turn with the end (an attached body's weight) */
  const bool turning = kr_loads_tip(k, ynext, Fb, Mb, dF, dM);
  for (int c = 0; c < 3; c++) { /* dh = 1/2 h (0, e_c) */
    double e[4] = {0, 0, 0, 0}, *d = dy + NY * c;
    for (int i = 0; i < 3; i++)
      e[1 + i] = 0.5 * start[3 * c + i];
    quat_mul(d + ROD_Y_H, ynext + ROD_Y_H, e);
    for (int j = 0; turning && j < 4; j++) /* dn, dm of the end */
      for (int i = 0; i < 3; i++) {
        d[ROD_Y_N + i] += dF[3 * (ROD_Y_H + j) + i] * d[ROD_Y_H + j];
        d[ROD_Y_M + i] += dM[3 * (ROD_Y_H + j) + i] * d[ROD_Y_H + j];
      }
  }
  double a0 = 1.0, b0 = 1.0, a = 1.0, b = 1.0;
  for (int j = last - 1; j >= 0; j--) {
    /* M = d y_(j+1) / d y_j by the tangent sweep over interval j (which
     * rewrites nodes j and j + 1 only: node j stays as it is) */
    memcpy(y, k->node_y + (size_t)j * KR_NODE, NY * sizeof(double));
    memset(M, 0, sizeof M);
    for (int i = 0; i < KR_FIELD_DIRS; i++)
      M[i * NY + i] = 1.0;
    if (k->bvp.propagate(k, j, j + 1, y, KR_FIELD_DIRS, M) != 0 ||
        !fields_back(M, dy))
      break;
    fields_normalise(dy);
    field_rotations(k->node_y + (size_t)j * KR_NODE, dy, T);
    if (r.plane) {
      quat_to_R(R, k->node_y + (size_t)j * KR_NODE + ROD_Y_H);
      m3_mul_tv(nb, R, r.normal);
      dets_plane(T, nb, &a, &b);
    } else {
      dets(T, r.planar, &a, &b);
    }
    if (j == 0) { /* zero at the clamp: neutral */
      if (fabs(a) < kr_neutral) {
        r.neutral++;
        a = a0;
      }
      if (fabs(b) < kr_neutral) {
        r.neutral++;
        b = b0;
      }
    }
    r.in += (a > 0) != (a0 > 0);
    r.out += (b > 0) != (b0 > 0);
    a0 = a;
    b0 = b;
  }
  r.index = r.in + r.out;
  k->planar = planar;
  if (x)
    rod_shooting_residual(k->shoot, x, r6);
  else
    memcpy(k->node_y, k->sol_y, (size_t)k->nodes * KR_NODE * sizeof(double));
  return r;
}

/* The path's index for a planar path: the in-plane conjugate points of
 * the point just corrected (whose residual set its loads). A corrector
 * that lands on a branch two modes further leaves det J's sign as it was
 * (the column at 40 times its critical load ended on a state with 2
 * unstable directions in the plane, the stable curled one missed); the
 * count sees it. 3D paths watch det J. */
static int path_stability(void *user, const double *x, double lambda) {
  kr_path_loads *pl = user;
  if (!pl->k->planar)
    return -1;
  apply_loads(pl, lambda);
  return stability(pl->k, x, false).in;
}

/* ---- the solve ------------------------------------------------------- */

/* Follow the path of pl from x (a solution at lambda = 0) to lambda = 1;
 * the last sweep is left at the solution. */
static int follow(kr_path_loads *pl, double *x, rod_step_stats *st,
                  rod_path_stats *ps) {
  rod_kirchhoff *k = pl->k;
  apply_loads(pl, 0.5);
  kr_set_planar(k); /* the loads' symmetry, imperfection included */
  rod_path *p = rod_path_alloc(6);
  if (!p)
    return ROD_ENOMEM;
  rod_path_options o = rod_path_default_options();
  o.tolerance = k->sc.solver.tolerance;
  o.max_steps = k->sc.solver.max_iterations;
  rod_path_problem pb = {
      .n = 6, .residual = path_residual, .user = pl, .index = path_stability};
  int s = rod_path_solve(p, &pb, x, &o, ps);
  rod_path_free(p);
  /* a sweep with k tangents counts 1 + k (6 with the planar path's 3) */
  const int nk = k->planar ? 3 : 6;
  st->iterations += ps->iterations;
  st->integrations +=
      ps->evaluations - ps->jacobians + (double)ps->jacobians * (1 + nk);
  apply_loads(pl, 1.0);
  if (s == ROD_OK) {
    double r[6];
    s = rod_shooting_residual(k->shoot, x, r);
    st->integrations += 1;
    double res = 0;
    for (int i = 0; i < 6; i++)
      res = fmax(res, fabs(r[i]));
    st->residual = res;
  }
  return s;
}

/* ---- soft rods: the loading path by segments ------------------------ */

/* Growth of the static solutions along the rod (e-folds,
 * rod_model_static_growth) beyond which simple shooting cannot resolve
 * the state in double precision: its sweep from the clamp carries the
 * rounding of its start, eps exp(G), into the tip's conditions (the
 * robustness study: w L^3 / EI = 500, exp(14.9), solved; 1000, exp(21),
 * not). Beyond it, or where the simple path fails, the path goes by
 * segments (segments_path), up to the growth the segments resolve
 * (w L^3 / EI = 50000, exp(149), solved; 1e5, exp(211), not; the
 * failure's message, sim.c's static_reach, names a growth beyond it).
 * Beyond that the simple path searches as before. */
static const double kr_static_reach = 15.0, kr_segments_reach = 150.0;

/* Error growth allowed over one segment of the static path, and its
 * first and smallest load steps. */
static const double kr_static_segment_growth = 10.0;
static const double kr_segments_step0 = 0.05, kr_segments_step_min = 1e-4;

/* Newton iterations a load step may take: one that takes more started
 * too far from its state and may have reached another (w L^3 / EI =
 * 1000 in steps of 0.05 from the straight rod: 29 iterations, to an
 * unstable state, the tip 0.15 L off). */
enum { kr_segments_iterations = 8 };

/* The load steps' tolerance (scaled residual) before the full loads'
 * solve at solver.tolerance: they only start the next step, and at 1e-12
 * the chord iteration took more than kr_segments_iterations on 201
 * points at w L^3 / EI = 5000 and the steps shrank to nothing. */
static const double kr_segments_path_tolerance = 1e-6;

/* Grid intervals per segment: the static solutions grow like exp(r s)
 * with r = sqrt(T / EI) under a tension T (EI y'''' - T y'' = 0), at
 * most T = F + w L at the clamp (rod_model_static_growth integrates the
 * same rate over the rod: G / L for a tip force alone, 3/2 G / L at the
 * clamp for the weight alone, the larger taken), so segments of
 * ln(G_s) / r grow errors by at most G_s. */
static int static_spacing(const rod_kirchhoff *k) {
  const double L = k->model.length;
  const double rate = 1.5 * rod_model_static_growth(&k->model, &k->sc) / L;
  const double len = log(kr_static_segment_growth) / rate;
  int n = (int)(len / (L / k->intervals));
  /* no more segments than modified shooting holds: longer ones, each
   * growing errors by more (w L^3 / EI = 50000, exp(4.6) each) */
  const int most = kr_mshoot_max_nodes(k) + 1;
  n = n * most < k->intervals ? (k->intervals + most - 1) / most : n;
  return n < 1 ? 1 : n;
}

/* The last sweep's node states, packed (nodes x ROD_NY). */
static void pack_states(const rod_kirchhoff *k, double *z) {
  for (int j = 0; j < k->nodes; j++)
    memcpy(z + (size_t)j * ROD_NY, k->node_y + (size_t)j * KR_NODE,
           ROD_NY * sizeof(double));
}

/* The loading path of pl from the unloaded rod to the full loads by
 * modified shooting (multiple shooting, bvp/mshoot.h) on segments of
 * bounded error growth (static_spacing), in load steps: each step's
 * unknowns and segment states start from the last two steps' solutions
 * extrapolated linearly in the load (the first from the unloaded rod);
 * a step that fails is halved, one that succeeds doubles the next. No
 * fold is followed (a soft rod hanging under its weight has none; the
 * stability test after it says whether the state is stable). On
 * success x holds the unknowns and the last sweep the state (the
 * segments' sweeps, not a sweep of simple shooting from x). */
static int segments_path(kr_path_loads *pl, double *x, rod_step_stats *st,
                         int *steps) {
  rod_kirchhoff *k = pl->k;
  const size_t N = (size_t)k->nodes * ROD_NY;
  if (kr_mshoot_ready(k) != ROD_OK)
    return ROD_ENOMEM;
  double *z = malloc(3 * N * sizeof(double));
  if (!z)
    return ROD_ENOMEM;
  double *z0 = z, *z1 = z + N, *ref = z + 2 * N; /* last, one before */
  double x0[6] = {0}, x1[6] = {0}, xg[6], r[6];
  double lam0 = 0.0, lam1 = -1.0, dl = kr_segments_step0;
  note_progress(k, 0.0);
  apply_loads(pl, 0.0);
  kr_set_planar(k);
  rod_shooting_residual(k->shoot, x0, r); /* the unloaded rod */
  st->integrations += 1;
  pack_states(k, z0);
  rod_mshoot_options mo = {
      .spacing = static_spacing(k),
      .drift = 0.0,
      .tolerance = fmax(k->sc.solver.tolerance, kr_segments_path_tolerance),
      .max_iterations = k->sc.solver.max_iterations,
      .reuse_jacobian = false,
      .attempts = 1,
  };
  int s = ROD_OK;
  *steps = 0;
  st->method = ROD_METHOD_MODIFIED;
  while (lam0 < 1.0) {
    const double lam = fmin(1.0, lam0 + dl);
    const double a = lam1 >= 0 ? (lam - lam0) / (lam0 - lam1) : 0.0;
    for (size_t i = 0; i < N; i++)
      ref[i] = z0[i] + a * (z0[i] - z1[i]);
    for (int i = 0; i < 6; i++)
      xg[i] = x0[i] + a * (x0[i] - x1[i]);
    apply_loads(pl, lam);
    kr_set_planar(k);
    rod_shooting_stats ss;
    s = rod_mshoot_solve(k->mshoot, xg, ref, &mo, &ss);
    kr_add_stats(st, &ss);
    if (s == ROD_OK && ss.iterations > kr_segments_iterations)
      s = ROD_ENOCONV; /* too far from the last state: maybe another one */
    if (s == ROD_OK) {
      double *t = z1;
      z1 = z0;
      z0 = t;
      pack_states(k, z0);
      memcpy(x1, x0, sizeof x1);
      memcpy(x0, xg, sizeof x0);
      lam1 = lam0;
      lam0 = lam;
      note_progress(k, lam);
      dl = fmin(2.0 * dl, 1.0);
      (*steps)++;
      continue;
    }
    if (s == ROD_ENOMEM || s == ROD_EINVAL)
      break;
    dl *= 0.5;
    if (dl < kr_segments_step_min)
      break;
  }
  if (lam0 >= 1.0) { /* the state at the full loads to solver.tolerance */
    mo.tolerance = k->sc.solver.tolerance;
    rod_shooting_stats ss;
    s = rod_mshoot_solve(k->mshoot, x0, z0, &mo, &ss);
    kr_add_stats(st, &ss);
  }
  free(z);
  rod_mshoot_forget_jacobian(k->mshoot);
  k->mshoot_c0 = -1.0;
  apply_loads(pl, 1.0);
  if (lam0 < 1.0 || s != ROD_OK)
    return s == ROD_OK ? ROD_ENOCONV : s;
  memcpy(x, x0, sizeof x0);
  return ROD_OK;
}

/* The tip position of the last sweep (m). */
static void tip_position(rod_kirchhoff *k, double *p) {
  kr_quadratures(k);
  v3_copy(p, k->node_y + (size_t)(k->nodes - 1) * KR_NODE + ROD_NY + ROD_Q_P);
}

/* Imperfection for an unstable state: a small tip force across the tip's
 * tangent, in the plane (x-z) when the in-plane direction is unstable,
 * else along y. */
static void imperfection(rod_kirchhoff *k, const kr_stability *sb,
                         const kr_path_loads *full, double *f) {
  const double *y = k->node_y + (size_t)(k->nodes - 1) * KR_NODE;
  double R[9], d[3], dir[3];
  quat_to_R(R, y + ROD_Y_H);
  v3_set(d, R[2], R[5], R[8]);
  if (sb->plane && sb->in == 0) { /* across that plane */
    v3_copy(dir, sb->normal);
  } else if (sb->plane) { /* in it, across the tangent */
    v3_cross(dir, sb->normal, d);
    v3_normalize(dir);
  } else {
    rod_static_imperfection_dir(d, sb->planar && sb->in == 0, dir);
  }
  const double load = kr_loads_size(&full->full, k->model.length);
  v3_scale(f, ROD_STATIC_IMPERFECTION * load, dir);
}

/* The static state at x: pressed against the bodies, post-processed and
 * accepted as the first step's start. */
static int finish_state(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  if (k->contact) { /* the rod pressed against the bodies it would enter */
    int s = kr_contact_static(k, x, st);
    if (s != ROD_OK)
      return s;
    if (kr_contact_pressed(k)) { /* the conjugate-point test knows no contact */
      k->static_report.stable = -1;
      s = kr_contact_touchdown(k, x, st);
      if (s != ROD_OK)
        return s;
      k->history_kind = kr_choose_history(k); /* for the grid's intervals */
    }
    /* a body between two nodes, which no node sees: the grid is too
     * coarse for it, refused as the input's (kr_contact_refusal names the
     * body and the space.nodes that resolves it) */
    if (kr_contact_straddle_refused(k))
      return ROD_EINVAL;
  }
  kr_postprocess(k);
  kr_rest_history(k);
  kr_tip_body_rest(k);
  kr_accept(k, x);
  memcpy(k->x_prev[0], x, sizeof k->x);
  k->n_prev = 1;
  k->n_sol = 1;
  kr_reset_prediction(k);
  k->time = 0.0;
  k->steps = 0;
  k->have_jacobian_c0 = false;
  if (k->contact)
    kr_contact_accept(k, false); /* the positions the first step starts from */
  return ROD_OK;
}

static int finish(rod_kirchhoff *k, double *x, rod_step_stats *st) {
  int s = finish_state(k, x, st);
  if (s == ROD_OK)
    note_progress(k, 1.0);
  return s;
}

/* True when the rod's way from its unloaded shape to the state x (loads
 * of pl applied, last sweep at x) passes through a body: a free shape
 * beyond a thin body (a bar under the rod, the rod hanging below it) ends
 * with no node inside it, and only the loading path sees it. The last
 * sweep is left at x. */
static bool passes_through(kr_path_loads *pl, const double *x) {
  rod_kirchhoff *k = pl->k;
  if (!k->contact)
    return false;
  double r[6], zero[6] = {0};
  apply_loads(pl, 0.0);
  rod_shooting_residual(k->shoot, zero, r);
  kr_quadratures(k);
  kr_contact_save(k); /* the unloaded rod's positions */
  apply_loads(pl, 1.0);
  rod_shooting_residual(k->shoot, x, r);
  kr_quadratures(k);
  int node;
  double at;
  bool interval;
  return kr_contact_swept(k, kr_contact_saved_positions(k), &node, &interval) ||
         kr_contact_straddled(k, &node, &at);
}

/* Node moves into bodies thinner than an interval at most (each a body
 * the rod meets between two nodes). */
enum { KR_NODES_INTO = 16 };

/* Loads grown in steps with contact at each, from the unloaded rod: a rod
 * that would hang through a table may have no equilibrium short of it. A
 * step is halved when its contact problem fails or when a point moves
 * more than kr_contact_path_move of the length in it (the rod then lands
 * as it would in a slow loading, not wherever the full loads' free shape
 * would drop it: a long soft rod loaded at once curled under itself). */
static int contact_path(kr_path_loads *pl, rod_step_stats *st) {
  rod_kirchhoff *k = pl->k;
  double x[6] = {0}, xa[6], f = 0, df = kr_contact_load_step;
  int moves = 0; /* nodes moved into bodies */
  kr_contact_reset(k);
  apply_loads(pl, 0.0);
  note_progress(k, 0.0);
  int s = kr_contact_static(k, x, st);
  if (s != ROD_OK)
    return s;
  kr_contact_save(k);
  while (f < 1.0) {
    const double fn = fmin(1.0, f + df);
    memcpy(xa, x, sizeof xa);
    apply_loads(pl, fn);
    s = kr_contact_static(k, x, st);
    int node, cnode = 0;
    double at;
    bool cinterval = false;
    if (s == ROD_OK && moves < KR_NODES_INTO &&
        kr_contact_straddled(k, &node, &at)) {
      const double s0 = k->s[node];
      if (kr_contact_node_into(k, node, at)) {
        /* a body thinner than the interval passed between two nodes: a
         * node where it did, and the step again; the accepted position the
         * step starts from at the moved node's new place on their chord
         * (the step's move is measured from there: from the node's old
         * place it was the grid's move, up to a whole interval) */
        kr_contact_saved_between(k, k->s[node] != s0 ? node : node + 1, node,
                                 at);
        moves++;
        memcpy(x, xa, sizeof xa);
        kr_contact_restore(k);
        continue;
      }
    }
    /* the body the step's way crosses, if any */
    const rod_obstacle *crossed =
        s == ROD_OK ? kr_contact_swept(k, kr_contact_saved_positions(k), &cnode,
                                       &cinterval)
                    : NULL;
    if (s == ROD_OK &&
        kr_contact_moved(k) <= kr_contact_path_move * k->model.length &&
        !crossed) {
      f = fn;
      note_progress(k, f);
      df = fmin(2.0 * df, kr_contact_load_step);
      kr_contact_save(k);
      continue;
    }
    memcpy(x, xa, sizeof xa);
    kr_contact_restore(k);
    df *= 0.5;
    if (df < 1e-6 && crossed) {
      /* however small the load step, its way crosses a body that no node
       * can hold: the grid is too coarse for it, refused as the input's */
      kr_contact_refuse_crossing(k, crossed, cnode, cinterval);
      return ROD_EINVAL;
    }
    if (df < 1e-6)
      return s == ROD_OK ? ROD_ENOCONV : s;
  }
  return finish(k, x, st);
}

/* The static state of a soft rod by segments (segments_path), stable or
 * not as the conjugate-point test finds it. */
static int soft_path(kr_path_loads *pl, double *x, rod_step_stats *st) {
  rod_kirchhoff *k = pl->k;
  rod_static_report *rep = &k->static_report;
  memset(x, 0, 6 * sizeof(double));
  int steps = 0;
  const int status = segments_path(pl, x, st, &steps);
  rep->path_steps += steps;
  if (status != ROD_OK)
    return status;
  const kr_stability sb = stability(k, NULL, false);
  rod_static_note_end(rep, sb.index, "conjugate-point test", 0, 0.0);
  return finish(k, x, st);
}

static int solve_static(rod_kirchhoff *k, rod_step_stats *st) {
  memset(st, 0, sizeof *st);
  rod_static_report *rep = &k->static_report;
  memset(rep, 0, sizeof *rep);
  rep->stable = -1;
  note_progress(k, -1.0); /* the direct solve */
  if (k->contact)
    kr_contact_refusal_clear(k);
  rod_bdf_coeffs zero = {0, 0, 0, 0};
  kr_set_coefficients(k, &zero, false);
  kr_set_loads(k, 0.0, true);
  kr_set_planar(k);
  st->method = ROD_METHOD_SIMPLE;

  /* the fast path: one Newton solve from the rigid rod's forces */
  double x[6];
  kr_rigid_guess(k, x);
  rod_lm_options o = kr_shooting_options(k);
  o.max_ratio = kr_direct_ratio;
  rod_shooting_stats ss;
  int status = rod_shooting_solve(k->shoot, x, &o, &ss);
  kr_add_stats(st, &ss);
  kr_stability sb = {0};
  kr_path_loads pl;
  save_loads(&pl, k);
  if (status == ROD_OK) { /* the solve's last sweep is at x */
    sb = stability(k, x, true);
    if (sb.index == 0 && !passes_through(&pl, x)) {
      rep->stable = 1;
      return finish(k, x, st);
    }
  }

  /* the loading path from the unloaded rod */
  if (k->contact)
    return contact_path(&pl, st);
  rod_path_stats ps;
  memset(x, 0, sizeof x);
  const double growth = rod_model_static_growth(&k->model, &k->sc);
  const bool segments = growth <= kr_segments_reach;
  if (segments && growth > kr_static_reach)
    return soft_path(&pl, x, st);
  status = follow(&pl, x, st, &ps);
  rep->path_steps = ps.steps;
  rep->folds = ps.folds;
  if (status != ROD_OK && segments && static_spacing(k) < k->intervals)
    return soft_path(&pl, x, st);
  if (status != ROD_OK)
    return status;
  sb = stability(k, x, false);
  if (sb.index > 0) {
    /* a bifurcation the loads do not decide: load again with a small tip
     * force across the tip, then take it away */
    const int index = sb.index;
    kr_path_loads imp = pl;
    imperfection(k, &sb, &pl, imp.extra);
    double xi[6] = {0};
    status = follow(&imp, xi, st, &ps);
    rep->path_steps += ps.steps;
    if (status == ROD_OK) {
      imp.release = true;
      status = follow(&imp, xi, st, &ps);
      rep->path_steps += ps.steps;
    }
    kr_stability si = {.index = index};
    if (status == ROD_OK)
      si = stability(k, xi, false);
    double r[6];
    if (si.index == 0) {
      double tip0[3], tip[3], zero[6] = {0};
      apply_loads(&pl, 0.0);
      rod_shooting_residual(k->shoot, zero, r); /* the unloaded rod */
      tip_position(k, tip0);
      double R0[9], d0[3];
      quat_to_R(R0, k->node_y + (size_t)(k->nodes - 1) * KR_NODE + ROD_Y_H);
      v3_set(d0, R0[2], R0[5], R0[8]);
      apply_loads(&pl, 1.0);
      memcpy(x, xi, sizeof x);
      rod_shooting_residual(k->shoot, x, r);
      tip_position(k, tip);
      rod_static_note_side(rep, index, tip, tip0, d0);
      sb = si;
    } else { /* back to the path's state */
      apply_loads(&pl, 1.0);
      rod_shooting_residual(k->shoot, x, r);
    }
    kr_set_planar(k);
  }
  rod_static_note_end(rep, sb.index, "conjugate-point test", ps.folds,
                      ps.fold_lambda);
  if (sb.index > 0 && sb.plane) { /* the 3D path cannot tell a round
                                     column's two modes apart */
    size_t len = strlen(rep->note);
    snprintf(rep->note + len, sizeof rep->note - len,
             "; the rod and loads lie in a plane other than x-z: turn "
             "them into x-z");
  }
  return finish(k, x, st);
}

/* The static state's solve for kr_tendon_solve: the work of every solve
 * counted. */
static int static_posed(rod_kirchhoff *k, void *ctx) {
  rod_step_stats *total = ctx, one;
  const int status = solve_static(k, &one);
  const rod_step_stats sum = *total;
  *total = one;
  total->iterations += sum.iterations;
  total->integrations += sum.integrations;
  return status;
}

int kr_solve_static(rod_kirchhoff *k, rod_step_stats *st) {
  memset(st, 0, sizeof *st);
  return kr_tendon_solve(k, 0.0, NULL, static_posed, st);
}
