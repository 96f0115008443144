/* Vibrations of real rods against their beam theories, on the Kirchhoff
 * backend: a cantilever with an attached end body (the end-mass frequency
 * equation; mass, inertia and offset by the end-body conditions), rotary
 * inertia (Rayleigh's and Timoshenko's clamped-free frequencies of a thick
 * rod, d/L = 0.05), torsion (the clamped-free shaft's pi/2 sqrt(G/rho) /
 * L, a tip disc's sqrt(GJ / (L J_t)) and the two together). Each mode is
 * the projection of the simulated rod on the theory's mode shape (mass
 * weighted, the body included), its frequency per step by Prony's method;
 * the trapezoidal rule (alpha = -0.5) shifts a linear mode's frequency w
 * to the argument of its root (bdf_root), so the comparison is with the
 * theory's w passed through that map: what remains is the rod's spatial
 * discretisation and the modes' leakage into each other. */
#include <string.h>

#include "core/model.h"
#include "core/v3.h"
#include "integrators/dirk.h"
#include "modalutil.h"
#include "rod/sim.h"
#include "testutil.h"

/* ---- beam theories ------------------------------------------------------ */

/* A clamped-free beam with an end body: bending stiffness EI (N m^2), mass
 * rhoA (kg/m), rotary inertia rhoI (kg m, 0: Euler-Bernoulli), shear
 * stiffness kGA (N, 0: no shear), length L; the body's mass M (kg),
 * inertia J (kg m^2) about its centre, which sits c (m) beyond the end
 * along the axis. */
typedef struct {
  double EI, rhoA, rhoI, kGA, L, M, J, c;
} beam;

/* z' = A z at frequency w (column-major 4 x 4). Without shear z = (W, W',
 * W'', W'''), EI W'''' = rhoA w^2 W - rhoI w^2 W''; with shear (Timoshenko)
 * z = (W, W', Psi, Psi'), W'' = Psi' - rhoA w^2 W / kGA, EI Psi'' = -rhoI
 * w^2 Psi - kGA (W' - Psi). */
static void beam_matrix(const beam *b, double w, double *A) {
  memset(A, 0, 16 * sizeof(double));
  const double w2 = w * w;
  if (b->kGA == 0) {
    A[1 * 4 + 0] = A[2 * 4 + 1] = A[3 * 4 + 2] = 1.0;
    A[0 * 4 + 3] = b->rhoA * w2 / b->EI;
    A[2 * 4 + 3] = -b->rhoI * w2 / b->EI;
    return;
  }
  A[1 * 4 + 0] = 1.0; /* W' */
  A[3 * 4 + 1] = 1.0; /* W'' = Psi' - ... */
  A[0 * 4 + 1] = -b->rhoA * w2 / b->kGA;
  A[3 * 4 + 2] = 1.0;                              /* Psi' */
  A[2 * 4 + 3] = (-b->rhoI * w2 + b->kGA) / b->EI; /* Psi'' */
  A[1 * 4 + 3] = -b->kGA / b->EI;
}

/* Z = X Y for n x n column-major matrices (Z may be X or Y). */
static void mat_mul(int n, const double *X, const double *Y, double *Z) {
  double T[36];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0;
      for (int k = 0; k < n; k++)
        acc += X[k * n + i] * Y[j * n + k];
      T[j * n + i] = acc;
    }
  memcpy(Z, T, (size_t)(n * n) * sizeof(double));
}

/* exp(A s) (n x n): Taylor to 16th order of A s / 2^k with |A s / 2^k|_1
 * <= 1/2 (remainder below 1e-18 of the step), then k squarings. */
static void expm(int n, const double *A, double s, double *E) {
  double norm = 0;
  for (int j = 0; j < n; j++) {
    double col = 0;
    for (int i = 0; i < n; i++)
      col += fabs(A[j * n + i] * s);
    norm = fmax(norm, col);
  }
  int k = 0;
  while (norm > 0.5) {
    norm *= 0.5;
    k++;
  }
  const double h = ldexp(s, -k);
  double P[36] = {0}, term[36] = {0};
  for (int i = 0; i < n; i++)
    P[i * (n + 1)] = term[i * (n + 1)] = 1.0;
  for (int m = 1; m <= 16; m++) {
    double hA[36];
    for (int i = 0; i < n * n; i++)
      hA[i] = A[i] * h / m;
    mat_mul(n, hA, term, term);
    for (int i = 0; i < n * n; i++)
      P[i] += term[i];
  }
  for (int m = 0; m < k; m++)
    mat_mul(n, P, P, P);
  memcpy(E, P, (size_t)(n * n) * sizeof(double));
}

/* The end's conditions on z(L) (two rows of 4): the shear and the moment
 * that the end body's inertia demands (from the variation of the
 * Lagrangian): with u = W + c theta the body's displacement, theta the
 * end's rotation (W' or Psi),
 *   Q(L) = M w^2 u,   EI theta'(L) = w^2 (M c u + J theta),
 * Q = -EI W''' - rhoI w^2 W' without shear, kGA (W' - Psi) with it. */
static void end_rows(const beam *b, double w, double *row) {
  const double w2 = w * w;
  memset(row, 0, 8 * sizeof(double));
  if (b->kGA == 0) { /* theta = W' (1), theta' = W'' (2) */
    row[0 * 2 + 0] = b->M * w2;
    row[1 * 2 + 0] = b->M * w2 * b->c + b->rhoI * w2;
    row[3 * 2 + 0] = b->EI;
    row[2 * 2 + 1] = b->EI;
    row[0 * 2 + 1] = -w2 * b->M * b->c;
    row[1 * 2 + 1] = -w2 * (b->M * b->c * b->c + b->J);
    return;
  } /* theta = Psi (2), theta' = Psi' (3) */
  row[1 * 2 + 0] = b->kGA;
  row[2 * 2 + 0] = -b->kGA - b->M * w2 * b->c;
  row[0 * 2 + 0] = -b->M * w2;
  row[3 * 2 + 1] = b->EI;
  row[0 * 2 + 1] = -w2 * b->M * b->c;
  row[2 * 2 + 1] = -w2 * (b->M * b->c * b->c + b->J);
}

/* The clamp leaves two free components of z(0): W'' and W''' (no shear)
 * or W' and Psi' (shear). */
static void free_columns(const beam *b, int col[2]) {
  col[0] = b->kGA == 0 ? 2 : 1;
  col[1] = 3;
}

/* Pairs (i < j) of the 6 components of the compound matrix. */
static const int pair_i[6] = {0, 0, 0, 1, 1, 2}, pair_j[6] = {1, 2, 3, 2, 3, 3};

static int pair_index(int i, int j) {
  for (int p = 0; p < 6; p++)
    if (pair_i[p] == i && pair_j[p] == j)
      return p;
  return -1;
}

/* phi_(ab) with a != b as +-phi of the pair: its index, the sign in s. */
static int signed_pair(int a, int b, double *s) {
  *s = a < b ? 1.0 : -1.0;
  return a < b ? pair_index(a, b) : pair_index(b, a);
}

/* The determinant of the end conditions on the two solutions from the
 * clamp, by the compound matrix method: phi_ij = z1_i z2_j - z1_j z2_i
 * obeys phi_ij' = sum_k A_ik phi_kj + A_jk phi_ik, and det(R Z) =
 * sum_(i<j) det R_(.,ij) phi_ij (Cauchy-Binet). The two solutions never
 * cancel each other, so the stiff shear-rotation mode of a Timoshenko
 * beam (growth exp(L sqrt(kGA / EI)), e^50 here) costs no digits. */
static double beam_det(const beam *b, double w) {
  double A[16], A2[36] = {0}, E[36], row[8], sg;
  int col[2];
  beam_matrix(b, w, A);
  for (int p = 0; p < 6; p++) /* row p of A2 */
    for (int k = 0; k < 4; k++) {
      const int i = pair_i[p], j = pair_j[p];
      if (k != j) { /* A_ik phi_kj */
        const int q = signed_pair(k, j, &sg);
        A2[q * 6 + p] += sg * A[k * 4 + i];
      }
      if (k != i) { /* A_jk phi_ik */
        const int q = signed_pair(i, k, &sg);
        A2[q * 6 + p] += sg * A[k * 4 + j];
      }
    }
  expm(6, A2, b->L, E);
  end_rows(b, w, row);
  free_columns(b, col);
  const int p0 = pair_index(col[0], col[1]);
  double det = 0;
  for (int p = 0; p < 6; p++) {
    const int i = pair_i[p], j = pair_j[p];
    const double minor =
        row[i * 2] * row[j * 2 + 1] - row[j * 2] * row[i * 2 + 1];
    det += minor * E[p0 * 6 + p];
  }
  return det;
}

/* The frequency (rad/s) in [lo, hi] where the determinant changes sign
 * (scanned in 400 steps, then bisected). */
static double beam_frequency(const beam *b, double lo, double hi) {
  double a = lo, fa = beam_det(b, lo);
  for (int i = 1; i <= 400; i++) {
    double x = lo + (hi - lo) * i / 400, fx = beam_det(b, x);
    if ((fa > 0) != (fx > 0)) {
      double bb = x;
      for (int k = 0; k < 200 && bb - a > 1e-15 * bb; k++) {
        double m = 0.5 * (a + bb), fm = beam_det(b, m);
        if ((fm > 0) == (fa > 0)) {
          a = m;
          fa = fm;
        } else {
          bb = m;
        }
      }
      return 0.5 * (a + bb);
    }
    a = x;
    fa = fx;
  }
  ck_abort_msg("no frequency in [%g, %g]", lo, hi);
  return 0;
}

/* The mode shape of a beam without shear at frequency w: W(s_j) and the
 * end's rotation W'(L) (shooting from the clamp is well conditioned
 * there: no stiff mode). */
static void beam_mode(const beam *b, double w, const double *s, int n,
                      double *W, double *theta_L) {
  ck_assert(b->kGA == 0);
  double A[16], E[16], row[8], D[4], z0[4] = {0, 0, 0, 0};
  int col[2];
  beam_matrix(b, w, A);
  expm(4, A, b->L, E);
  end_rows(b, w, row);
  free_columns(b, col);
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 2; k++) {
      double acc = 0;
      for (int i = 0; i < 4; i++)
        acc += row[i * 2 + r] * E[col[k] * 4 + i];
      D[k * 2 + r] = acc;
    }
  /* a null vector of D: (D01, -D00) or (D11, -D10), the larger */
  double v0 = D[2], v1 = -D[0];
  if (fabs(D[3]) + fabs(D[1]) > fabs(D[2]) + fabs(D[0])) {
    v0 = D[3];
    v1 = -D[1];
  }
  z0[col[0]] = v0;
  z0[col[1]] = v1;
  *theta_L = 0;
  for (int j = 0; j < n; j++) {
    expm(4, A, s[j], E);
    double z[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < 4; k++)
        z[i] += E[k * 4 + i] * z0[k];
    W[j] = z[0];
    if (j == n - 1)
      *theta_L = z[1];
  }
}

/* ---- the simulated rod -------------------------------------------------- */

enum { MAXPTS = 256, MAXSAMPLES = 2048 };

typedef struct {
  int count, points;
  double s[MAXPTS];
  double *pos, *quat; /* samples x points x 3, x 4 */
} run;

static int keep(void *user, double t, const rod_sample *s,
                const rod_step_stats *st, double wall) {
  (void)t;
  (void)st;
  (void)wall;
  run *r = user;
  ck_assert_int_le(s->points, MAXPTS);
  ck_assert_int_lt(r->count, MAXSAMPLES);
  const int i = r->count++, n = s->points;
  r->points = n;
  memcpy(r->s, s->s, (size_t)n * sizeof(double));
  memcpy(r->pos + (size_t)i * MAXPTS * 3, s->position, (size_t)n * 24);
  memcpy(r->quat + (size_t)i * MAXPTS * 4, s->orientation, (size_t)n * 32);
  return 0;
}

static run *simulate(const rod_scenario *sc) {
  rod_error err;
  ck_assert_msg(rod_scenario_validate(sc, &err) == ROD_OK, "%s: %s", err.key,
                err.message);
  run *r = calloc(1, sizeof *r);
  r->pos = calloc((size_t)MAXSAMPLES * MAXPTS * 3, sizeof(double));
  r->quat = calloc((size_t)MAXSAMPLES * MAXPTS * 4, sizeof(double));
  rod_sim_sink sink = {.sample = keep, .user = r};
  rod_sim_result res;
  ck_assert_msg(rod_sim_run(sc, &sink, false, &res, &err) == ROD_OK,
                "run failed: %s", res.message);
  return r;
}

static void run_free(run *r) {
  free(r->pos);
  free(r->quat);
  free(r);
}

/* The end's rotation about y (bending in the x-z plane: the tangent's z
 * component) and the twist about x (the angle of the material frame
 * about the axis from the clamp's), of sample i at point j. */
static double slope_at(const run *r, int i, int j) {
  double R[9];
  quat_to_R(R, r->quat + ((size_t)i * MAXPTS + j) * 4);
  return R[8]; /* d3 . e_z */
}

static double twist_at(const run *r, int i, int j) {
  const double *h0 = r->quat + (size_t)i * MAXPTS * 4;
  const double *h = r->quat + ((size_t)i * MAXPTS + j) * 4;
  double c[4] = {h0[0], -h0[1], -h0[2], -h0[3]}, rel[4];
  quat_mul(rel, c, h); /* clamp frame -> point frame: about d3 */
  return 2.0 * atan2(rel[3], rel[0]);
}

/* The steel rod along +x of these tests, no gravity, the trapezoidal
 * rule (alpha = -0.5), a tight solver. */
static void test_rod(rod_scenario *sc, double L, double d) {
  rod_scenario_default(sc);
  sc->rod.length = L;
  sc->rod.diameter = d;
  sc->environment.gravity[2] = 0.0;
  sc->time.alpha = -0.5;
  sc->solver.tolerance = 1e-11;
}

/* Nodes for the step's length scale: k h = 0.1 for the bending wavenumber
 * k^4 = rhoA c0^2 / EI of the time-discrete rod (test_dynamics). */
static int nodes_for(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  const double c0 = 2.0 / sc->time.dt;
  const double k = pow(m.rho_area * c0 * c0 / m.K[0], 0.25);
  const int n = (int)ceil(k * sc->rod.length / 0.1) + 1;
  return n < 30 ? 30 : n;
}

/* The modal coordinate of the z displacement on the shape W (its end
 * rotation theta_L), mass weighted, the end body included: q = (int rhoA
 * W w ds + M u_W u_w + J theta_W theta_w) / (the same of W with itself),
 * u = W(L) + c theta(L). Per sample into q. */
static void bending_modal(const run *r, const beam *b, const double *W,
                          double theta_L, double *q) {
  const int n = r->points;
  double wq[MAXPTS], norm = 0;
  quadrature_weights(r->s, n, wq);
  for (int j = 0; j < n; j++)
    norm += b->rhoA * wq[j] * W[j] * W[j];
  const double uW = W[n - 1] + b->c * theta_L;
  norm += b->M * uW * uW + b->J * theta_L * theta_L;
  for (int i = 0; i < r->count; i++) {
    double acc = 0;
    for (int j = 0; j < n; j++)
      acc += b->rhoA * wq[j] * W[j] * r->pos[((size_t)i * MAXPTS + j) * 3 + 2];
    const double th = slope_at(r, i, n - 1);
    const double u = r->pos[((size_t)i * MAXPTS + n - 1) * 3 + 2] + b->c * th;
    q[i] = (acc + b->M * uW * u + b->J * theta_L * th) / norm;
  }
}

/* The frequency (rad/s) that the trapezoidal rule shows for mode w_theory,
 * and the measured one from the modal coordinate q. */
static void measure(const rod_scenario *sc, const double *q, int count,
                    double w_theory, double *measured, double *expected) {
  double theta, rho;
  const double dt = sc->time.dt;
  prony(q, 5, count, w_theory * dt, &theta, &rho);
  *measured = theta / dt;
  const rod_dirk_table *T = rod_dirk_for(sc->time.scheme);
  if (T) { /* a Runge-Kutta step multiplies the mode by R(i w dt) */
    double re, im;
    rod_dirk_stability(T, 0.0, w_theory * dt, &re, &im);
    *expected = atan2(im, re) / dt;
  } else {
    *expected = carg(bdf_root(sc->time.alpha, dt, w_theory)) / dt;
  }
}

static beam beam_of(const rod_scenario *sc, bool rotary, bool shear) {
  rod_model m;
  rod_model_init(&m, sc);
  beam b = {.EI = m.K[0],
            .rhoA = m.rho_area,
            .rhoI = rotary ? sc->rod.density * m.second_moment : 0.0,
            .kGA = shear ? m.Kse[0] : 0.0,
            .L = sc->rod.length,
            .M = sc->tip.release ? 0.0 : sc->tip.mass,
            .J = sc->tip.release ? 0.0 : sc->tip.inertia[1],
            .c = sc->tip.offset[2]};
  return b;
}

/* ---- the solver of the theories, against closed forms ------------------- */

/* Euler-Bernoulli: beta_1 L = 1.8751040687; with an end mass mu = M /
 * (rhoA L) = 1: 1 + cos l cosh l + mu l (cos l sinh l - sin l cosh l) = 0
 * at l = 1.2479174096. */
START_TEST(theory_solver_closed_forms) {
  beam b = {.EI = 2.0, .rhoA = 3.0, .L = 0.7};
  const double unit = sqrt(b.EI / b.rhoA) / (b.L * b.L);
  double w = beam_frequency(&b, 2 * unit, 5 * unit);
  ROD_ASSERT_NEAR(sqrt(w / unit), 1.8751040687119611, 1e-10);
  b.M = b.rhoA * b.L;
  w = beam_frequency(&b, 1 * unit, 3 * unit);
  ROD_ASSERT_NEAR(sqrt(w / unit), 1.2479174096064694, 1e-10);
  /* with rotary inertia and an end body (inertia J at c = 0), the
   * Timoshenko beam tends to the shear-free one as kGA grows: halving
   * EI / (kGA L^2) halves the difference */
  b.J = 0.3 * b.M * b.L * b.L;
  b.rhoI = 1e-3 * b.rhoA * b.L * b.L;
  const double w_r = beam_frequency(&b, 0.3 * unit, 3 * unit);
  double diff[2];
  for (int k = 0; k < 2; k++) {
    b.kGA = (2000 << k) * b.EI / (b.L * b.L);
    diff[k] = w_r - beam_frequency(&b, 0.3 * unit, 3 * unit);
  }
  ck_assert_msg(diff[0] > 0 && fabs(diff[0] / diff[1] - 2) < 0.01,
                "shear: %.6g then %.6g below the shear-free beam", diff[0],
                diff[1]);
}
END_TEST

/* ---- an attached end body ------------------------------------------------ */

/* A cantilever released from a small tip preload with an attached end
 * body: mass mu = M / (rhoA L) = 1 (the end-mass frequency equation), then
 * with an inertia and an axial offset as well (the end-body conditions,
 * 10 % lower; and again under esdirk3, whose step multiplies a mode by
 * its stability function R(i w dt)). Rotary inertia off: the
 * Euler-Bernoulli rod. Measured
 * within 6e-7 of the theory through the trapezoidal rule's map; checked
 * within 3e-6, the projections' floor (thick_rod_rayleigh_timoshenko). */
START_TEST(end_body_first_frequency) {
  for (int variant = 0; variant < 3; variant++) {
    rod_scenario sc;
    test_rod(&sc, 0.4, 1.42e-3);
    rod_model m;
    rod_model_init(&m, &sc);
    sc.tip.release = false;
    sc.tip.mass = m.rho_area * sc.rod.length;
    if (variant == 2) /* the body's own stages under esdirk3 */
      sc.time.scheme = ROD_SCHEME_ESDIRK3;
    if (variant) {
      v3_set(sc.tip.inertia, 2e-5, 2e-5, 1e-7);
      v3_set(sc.tip.offset, 0, 0, 0.03);
    }
    sc.tip.preload[2] = -1e-5;
    beam b = beam_of(&sc, false, false);
    const double unit = sqrt(b.EI / b.rhoA) / (b.L * b.L);
    const double w = beam_frequency(&b, 0.2 * unit, 3.6 * unit);
    sc.time.dt = 2 * M_PI / w / 40;
    sc.time.duration = 6 * 2 * M_PI / w;
    sc.space.nodes = nodes_for(&sc);
    run *r = simulate(&sc);
    double W[MAXPTS], thL, *q = malloc(r->count * sizeof(double));
    beam_mode(&b, w, r->s, r->points, W, &thL);
    bending_modal(r, &b, W, thL, q);
    double got, want;
    measure(&sc, q, r->count, w, &got, &want);
    ck_assert_msg(fabs(got / want - 1) < 3e-6,
                  "variant %d: %.9g rad/s, expected %.9g (theory %.9g)",
                  variant, got, want, w);
    free(q);
    run_free(r);
  }
}
END_TEST

/* ---- rotary inertia and shear: a thick rod ------------------------------ */

/* A steel rod of d / L = 0.05 released from a small tip preload: the
 * first mode of the Kirchhoff rod without rotary inertia is
 * Euler-Bernoulli's, with it Rayleigh's; the Cosserat rod with rotary
 * inertia (shear stiffness kappa G A, Cowper's kappa) is Timoshenko's.
 * The three theories lie 3.6e-4 (Rayleigh below Euler-Bernoulli) and
 * 1.0e-3 (Timoshenko below Rayleigh) apart here; the measurement floor,
 * from the Euler-Bernoulli case, is 1.5e-6 (the other modes' leakage into
 * the projection), so each is checked within 3e-6. */
START_TEST(thick_rod_rayleigh_timoshenko) {
  static const struct {
    rod_model_kind model;
    bool rotary;
  } cases[3] = {{ROD_MODEL_KIRCHHOFF, false},
                {ROD_MODEL_KIRCHHOFF, true},
                {ROD_MODEL_COSSERAT, true}};
  static const char *const name[3] = {"Euler-Bernoulli", "Rayleigh",
                                      "Timoshenko"};
  double theory[3];
  for (int c = 0; c < 3; c++) {
    rod_scenario sc;
    test_rod(&sc, 0.4, 0.02);
    sc.rod.model = cases[c].model;
    sc.rod.rotary_inertia = cases[c].rotary;
    sc.tip.preload[2] = -1e-3;
    const bool shear = cases[c].model == ROD_MODEL_COSSERAT;
    beam b = beam_of(&sc, cases[c].rotary, shear);
    const double unit = sqrt(b.EI / b.rhoA) / (b.L * b.L);
    const double w = beam_frequency(&b, 2.5 * unit, 4 * unit);
    theory[c] = w;
    sc.time.dt = 2 * M_PI / w / 40;
    sc.time.duration = 6 * 2 * M_PI / w;
    sc.space.nodes = nodes_for(&sc);
    run *r = simulate(&sc);
    beam shape = b;
    shape.kGA = 0; /* the shear-free shape as the projection's */
    double W[MAXPTS], thL, *q = malloc(r->count * sizeof(double));
    beam_mode(&shape, beam_frequency(&shape, 2.5 * unit, 4 * unit), r->s,
              r->points, W, &thL);
    bending_modal(r, &shape, W, thL, q);
    double got, want;
    measure(&sc, q, r->count, w, &got, &want);
    ck_assert_msg(fabs(got / want - 1) < 3e-6,
                  "%s: %.9g rad/s, expected %.9g (theory %.9g)", name[c], got,
                  want, w);
    free(q);
    run_free(r);
  }
  /* the theories themselves differ by far more than that */
  ck_assert_msg(theory[0] / theory[1] - 1 > 1e-4 &&
                    theory[1] / theory[2] - 1 > 5e-4,
                "%.9g %.9g %.9g", theory[0], theory[1], theory[2]);
}
END_TEST

/* ---- torsion --------------------------------------------------------------
 */

/* Twist the rod by a tip torque (a [load] table: M until t = 0, then
 * nothing) and let it go; the modal coordinate of the twist on sin(beta
 * s), weighted by rho J ds and the tip body's J_t. Without rotary inertia
 * the rod's twist follows the tip at once (linear in s) and only J_t
 * oscillates: w = sqrt(G J / (L J_t)). With it, G J phi'' = rho J phi_tt,
 * phi(0) = 0, G J phi'(L) = J_t w^2 phi(L): beta L tan(beta L) = rho J L /
 * J_t, beta = w sqrt(rho / G); without a tip body beta L = pi / 2. The
 * twist's sine is the discrete rod's mode too (no leakage): measured
 * within 1.3e-10, checked within 1e-8. */
static void twist_frequency(bool rotary, double Jt_ratio, double *got,
                            double *want, double *theory) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 1.42e-3);
  sc.rod.rotary_inertia = rotary;
  rod_model m;
  rod_model_init(&m, &sc);
  const double L = sc.rod.length, G = sc.rod.shear_modulus;
  const double rhoJ = sc.rod.density * m.polar_moment, GJ = m.K[2];
  const double Jt = Jt_ratio * rhoJ * L;
  if (Jt > 0) {
    sc.tip.release = false;
    v3_set(sc.tip.inertia, 0, 0, Jt);
  }
  double bl = M_PI / 2; /* beta L tan(beta L) = rhoJ L / Jt, by bisection */
  if (Jt > 0) {
    double lo = 0, hi = M_PI / 2;
    for (int k = 0; k < 200; k++) {
      bl = 0.5 * (lo + hi);
      if (bl * tan(bl) < rhoJ * L / Jt)
        lo = bl;
      else
        hi = bl;
    }
  }
  const double w =
      rotary ? bl / L * sqrt(G / sc.rod.density) : sqrt(GJ / (L * Jt));
  *theory = w;
  char dir[256], path[600], text[128];
  rod_test_dir(dir, sizeof dir, "rodsim_inertia");
  const double M0 = 1e-3 * GJ / L; /* 1 mrad at the tip */
  snprintf(text, sizeof text, "t,Mx,My,Mz\n0,%.17g,0,0\n1e-12,0,0,0\n", M0);
  rod_test_write(dir, "twist.csv", text);
  snprintf(path, sizeof path, "load.twist.moment_file=%s/twist.csv", dir);
  rod_error err;
  ck_assert_int_eq(rod_scenario_set(&sc, path, &err), ROD_OK);
  sc.time.dt = 2 * M_PI / w / 40;
  sc.time.duration = 8 * 2 * M_PI / w;
  /* the twist's own wavenumber c0 sqrt(rho / G) at k h = 0.1, the
   * bending's too */
  const double kt = 2.0 / sc.time.dt * sqrt(sc.rod.density / G);
  const int nt = (int)ceil(kt * L / 0.1) + 1, nb = nodes_for(&sc);
  sc.space.nodes = nt > nb ? nt : nb;
  sc.space.nodes = sc.space.nodes > 200 ? 200 : sc.space.nodes;
  run *r = simulate(&sc);
  rod_test_rmdir(dir);
  const int n = r->points;
  double wq[MAXPTS], phi[MAXPTS], norm = 0;
  quadrature_weights(r->s, n, wq);
  for (int j = 0; j < n; j++) {
    phi[j] = rotary ? sin(bl * r->s[j] / L) : r->s[j] / L;
    norm += (rotary ? rhoJ : 0.0) * wq[j] * phi[j] * phi[j];
  }
  norm += Jt * phi[n - 1] * phi[n - 1];
  double *q = malloc(r->count * sizeof(double));
  for (int i = 0; i < r->count; i++) {
    double acc = Jt * phi[n - 1] * twist_at(r, i, n - 1);
    for (int j = 0; rotary && j < n; j++)
      acc += rhoJ * wq[j] * phi[j] * twist_at(r, i, j);
    q[i] = acc / norm;
  }
  measure(&sc, q, r->count, w, got, want);
  free(q);
  run_free(r);
}

START_TEST(torsional_frequencies) {
  static const struct {
    bool rotary;
    double Jt_ratio; /* J_t / (rho J L) */
  } cases[3] = {{true, 0.0}, {false, 1.0}, {true, 1.0}};
  for (int c = 0; c < 3; c++) {
    double got, want, theory;
    twist_frequency(cases[c].rotary, cases[c].Jt_ratio, &got, &want, &theory);
    ck_assert_msg(fabs(got / want - 1) < 1e-8,
                  "rotary %d, J_t %g rho J L: %.9g rad/s, expected %.9g "
                  "(theory %.9g)",
                  cases[c].rotary, cases[c].Jt_ratio, got, want, theory);
  }
}
END_TEST

static Suite *inertia_suite(void) {
  Suite *s = suite_create("inertia");
  TCase *tc = tcase_create("theory");
  tcase_add_test(tc, theory_solver_closed_forms);
  suite_add_tcase(s, tc);
  tc = tcase_create("end_body");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, end_body_first_frequency);
  suite_add_tcase(s, tc);
  tc = tcase_create("rotary");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, thick_rod_rayleigh_timoshenko);
  tcase_add_test(tc, torsional_frequencies);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(inertia_suite)
