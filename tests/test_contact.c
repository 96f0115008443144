/* Contact geometry and the contact problems against known answers: signed
 * distances and normals of the plane, sphere, capsule and box against
 * closed forms and finite differences, the nearest point of a segment
 * against dense sampling; the frictionless primal (velocities, mass
 * metric) and dual (impulses, Delassus matrix) problems agree to 1e-9 and
 * satisfy their optimality conditions; Coulomb's law holds at every
 * contact of the friction solver's answer, and sticking turns to sliding
 * where the tangential demand exceeds mu times the normal force. */
#include <lapacke.h>
#include <string.h>

#include "contact/contact.h"
#include "core/v3.h"
#include "testutil.h"

static unsigned long long rng = 0x2545f4914f6cdd1dULL;

/* Uniform in [-1, 1] (xorshift64*). */
static double urand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  unsigned long long r = rng * 2685821657736338717ULL;
  return 2.0 * ((r >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

static rod_contact_world world_of(const char *ini_lines[], int n) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  for (int i = 0; i < n; i++)
    ck_assert_msg(rod_scenario_set(&sc, ini_lines[i], &err) == ROD_OK, "%s: %s",
                  ini_lines[i], err.message);
  rod_contact_world w;
  rod_contact_world_init(&w, &sc);
  return w;
}

/* A tilted plane (normal as an assignment), a sphere, a turned capsule and
 * a turned box, all about the origin. */
static rod_contact_world tilted_bodies(const char *plane_normal) {
  const char *set[] = {
      plane_normal,
      "obstacle.s.shape=sphere",
      "obstacle.s.radius=0.3",
      "obstacle.c.shape=capsule",
      "obstacle.c.axis=1 -2 0.5",
      "obstacle.c.half_length=0.4",
      "obstacle.c.radius=0.2",
      "obstacle.b.shape=box",
      "obstacle.b.half_extents=0.3 0.5 0.2",
      "obstacle.b.rotation=0.3 -0.4 0.9",
  };
  rod_contact_world w = world_of(set, 10);
  return w;
}

/* ---- geometry ------------------------------------------------------------ */

START_TEST(closed_form_distances) {
  const char *set[] = {
      "plane.point=0 0 -0.05",
      "plane.normal=0 0 2",
      "obstacle.s.shape=sphere",
      "obstacle.s.center=1 2 3",
      "obstacle.s.radius=0.5",
      "obstacle.c.shape=capsule",
      "obstacle.c.center=0 0 0",
      "obstacle.c.axis=0 3 0",
      "obstacle.c.half_length=0.2",
      "obstacle.c.radius=0.1",
      "obstacle.b.shape=box",
      "obstacle.b.center=0 0 0",
      "obstacle.b.half_extents=1 2 3",
      "obstacle.b.rotation=0 0 1.5707963267948966",
  };
  rod_contact_world w = world_of(set, 14);
  ck_assert_int_eq(w.count, 4);
  ROD_ASSERT_NEAR(w.rod_radius, 0.5 * 1.42e-3, 1e-18);
  double n[3];
  const double x1[3] = {0.3, -2, 0.15};
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[0], x1, n), 0.2, 1e-15);
  ROD_ASSERT_NEAR(n[2], 1.0, 0);
  const double x2[3] = {1, 2, 5};
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[1], x2, n), 1.5, 1e-15);
  ROD_ASSERT_NEAR(n[2], 1.0, 1e-15);
  /* capsule along y: beyond its end cap and beside its axis */
  const double x3[3] = {0, 0.5, 0}, x4[3] = {0.3, 0.1, -0.4};
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[2], x3, n), 0.2, 1e-15);
  ROD_ASSERT_NEAR(n[1], 1.0, 1e-15);
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[2], x4, n), 0.4, 1e-15);
  /* box turned a quarter about z: its x half extent 1 lies along world y */
  const double x5[3] = {0, 1.5, 0}, x6[3] = {3, 0, 4}, x7[3] = {0.5, 0.2, 0};
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[3], x5, n), 0.5, 1e-12);
  ROD_ASSERT_NEAR(n[1], 1.0, 1e-12);
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[3], x6, n), sqrt(2.0), 1e-12);
  /* inside: minus the distance to the nearest face (world x = box y = 2) */
  ROD_ASSERT_NEAR(rod_obstacle_distance(&w.item[3], x7, n), -0.8, 1e-12);
  ROD_ASSERT_NEAR(n[1], 1.0, 1e-12);
}
END_TEST

/* The normal is the gradient of the signed distance (central differences,
 * error O(h^2)) at random points near each body. */
START_TEST(normal_is_gradient) {
  rod_contact_world w = tilted_bodies("plane.normal=1 1 1");
  const double h = 1e-6;
  for (int o = 0; o < w.count; o++) {
    int checked = 0;
    for (int trial = 0; trial < 200; trial++) {
      double x[3] = {urand(), urand(), urand()}, n[3], g[3];
      rod_obstacle_distance(&w.item[o], x, n);
      for (int k = 0; k < 3; k++) {
        double xp[3], xm[3], t[3];
        v3_copy(xp, x);
        v3_copy(xm, x);
        xp[k] += h;
        xm[k] -= h;
        g[k] = (rod_obstacle_distance(&w.item[o], xp, t) -
                rod_obstacle_distance(&w.item[o], xm, t)) /
               (2 * h);
      }
      /* skip points where the box distance has a kink (its inside) */
      double d[3];
      v3_sub(d, g, n);
      if (w.item[o].kind == ROD_OBSTACLE_BOX && v3_norm(d) > 1e-3)
        continue;
      ck_assert_msg(v3_norm(d) < 1e-7, "body %d: |grad - n| = %g", o,
                    v3_norm(d));
      checked++;
    }
    ck_assert_msg(checked >= 150, "body %d: %d points checked", o, checked);
  }
}
END_TEST

/* The segment's nearest point against 20001 samples along it. */
START_TEST(segment_nearest_point) {
  rod_contact_world w = tilted_bodies("plane.normal=0.2 0.1 1");
  for (int o = 0; o < w.count; o++)
    for (int trial = 0; trial < 100; trial++) {
      double a[3], b[3], n[3], t;
      for (int k = 0; k < 3; k++) {
        a[k] = 1.2 * urand();
        b[k] = 1.2 * urand();
      }
      double d = rod_obstacle_segment(&w.item[o], a, b, &t, n);
      double best = INFINITY;
      for (int i = 0; i <= 20000; i++) {
        double p[3], u = i / 20000.0;
        for (int k = 0; k < 3; k++)
          p[k] = a[k] + u * (b[k] - a[k]);
        best = fmin(best, rod_obstacle_distance(&w.item[o], p, n));
      }
      /* sampling finds the minimum only to its spacing: at most one step
       * of 1/20000 of the segment away, where the distance is flat to
       * second order (or linear, at an end) */
      double len = 0;
      for (int k = 0; k < 3; k++)
        len += (b[k] - a[k]) * (b[k] - a[k]);
      ck_assert_msg(d <= best + 1e-15 && d >= best - sqrt(len) / 20000.0,
                    "body %d: segment minimum %.15g, sampled %.15g", o, d,
                    best);
    }
}
END_TEST

START_TEST(tangents_complete_a_frame) {
  for (int trial = 0; trial < 100; trial++) {
    double n[3] = {urand(), urand(), urand()}, t1[3], t2[3], c[3];
    v3_normalize(n);
    rod_contact_tangents(n, t1, t2);
    ROD_ASSERT_NEAR(v3_norm(t1), 1.0, 1e-15);
    ROD_ASSERT_NEAR(v3_dot(t1, n), 0.0, 1e-15);
    v3_cross(c, t1, t2);
    v3_sub(c, c, n);
    ck_assert(v3_norm(c) < 1e-15);
  }
}
END_TEST

/* ---- primal and dual ----------------------------------------------------- */

/* A random symmetric positive definite n x n matrix B B^T + n I / 10. */
static void random_spd(int n, double *A) {
  double *B = malloc((size_t)n * n * sizeof(double));
  for (int i = 0; i < n * n; i++)
    B[i] = urand();
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = i == j ? 0.1 * n : 0.0;
      for (int k = 0; k < n; k++)
        s += B[i + k * n] * B[j + k * n];
      A[i + j * n] = s;
    }
  free(B);
}

/* G = J A^-1 J^T and A^-1 J^T (n x m) by a Cholesky factor of A. */
static void delassus(int n, int m, const double *A, const double *J, double *G,
                     double *AiJt) {
  double *L = malloc((size_t)n * n * sizeof(double));
  memcpy(L, A, (size_t)n * n * sizeof(double));
  ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, L, n), 0);
  for (int i = 0; i < m; i++)
    for (int k = 0; k < n; k++)
      AiJt[k + i * n] = J[i + k * m];
  ck_assert_int_eq(LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, m, L, n, AiJt, n),
                   0);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = 0;
      for (int k = 0; k < n; k++)
        s += J[i + k * m] * AiJt[k + j * n];
      G[i + j * m] = s;
    }
  free(L);
}

START_TEST(primal_and_dual_agree) {
  enum { NMAX = 30 };
  rod_contact_solver *s = rod_contact_solver_alloc(NMAX, NMAX);
  ck_assert_ptr_nonnull(s);
  double A[NMAX * NMAX], J[NMAX * NMAX], G[NMAX * NMAX], AiJt[NMAX * NMAX];
  double vf[NMAX], lo[NMAX], b[NMAX], ld[NMAX], lp[NMAX], vd[NMAX], vp[NMAX];
  int active_total = 0;
  for (int trial = 0; trial < 60; trial++) {
    const int n = 3 + trial % 25, m = 1 + (trial * 7) % n;
    random_spd(n, A);
    for (int i = 0; i < m * n; i++)
      J[i] = urand();
    for (int k = 0; k < n; k++)
      vf[k] = urand();
    for (int i = 0; i < m; i++)
      lo[i] = 0.3 * urand();
    delassus(n, m, A, J, G, AiJt);
    for (int i = 0; i < m; i++) { /* w = J v - lo = J vf - lo + G l */
      b[i] = -lo[i];
      for (int k = 0; k < n; k++)
        b[i] += J[i + k * m] * vf[k];
    }
    rod_contact_stats sd, sp;
    ck_assert_int_eq(rod_contact_dual(s, m, G, b, ld, &sd), ROD_OK);
    ck_assert_int_eq(rod_contact_primal(s, n, m, A, vf, J, lo, vp, lp, &sp),
                     ROD_OK);
    double vscale = 0, lscale = 0;
    for (int k = 0; k < n; k++) {
      vd[k] = vf[k];
      for (int i = 0; i < m; i++)
        vd[k] += AiJt[k + i * n] * ld[i];
      vscale = fmax(vscale, fabs(vd[k]));
    }
    for (int i = 0; i < m; i++) {
      lscale = fmax(lscale, fabs(ld[i]));
      ck_assert(ld[i] >= 0 && lp[i] >= 0);
      active_total += ld[i] > 0;
    }
    for (int k = 0; k < n; k++)
      ck_assert_msg(fabs(vd[k] - vp[k]) <= 1e-9 * vscale,
                    "trial %d: v[%d] dual %.15g primal %.15g", trial, k, vd[k],
                    vp[k]);
    for (int i = 0; i < m; i++)
      ck_assert_msg(fabs(ld[i] - lp[i]) <= 1e-9 * fmax(lscale, 1e-300),
                    "trial %d: l[%d] dual %.15g primal %.15g", trial, i, ld[i],
                    lp[i]);
    /* the conditions: J v >= lo, l >= 0, l (J v - lo) = 0 */
    for (int i = 0; i < m; i++) {
      double slack = -lo[i];
      for (int k = 0; k < n; k++)
        slack += J[i + k * m] * vd[k];
      ck_assert(slack >= -1e-12 * (vscale + 1));
      if (ld[i] > 0)
        ck_assert(fabs(slack) <= 1e-12 * (vscale + 1));
    }
    ck_assert(sd.residual <= 1e-12 && sp.residual <= 1e-12);
  }
  ck_assert_msg(active_total > 60, "only %d active constraints in all",
                active_total);
  rod_contact_solver_free(s);
}
END_TEST

/* More contacts than directions (G singular): the dual's proximal term
 * still finds the velocity of the primal. */
START_TEST(dual_with_dependent_contacts) {
  enum { N = 4, M = 6 };
  rod_contact_solver *s = rod_contact_solver_alloc(M, N);
  double A[N * N], J[M * N], G[M * M], AiJt[N * M], vf[N], lo[M], b[M];
  double l[M], lp[M], v[N], vp[N];
  random_spd(N, A);
  for (int i = 0; i < M * N; i++)
    J[i] = urand();
  for (int k = 0; k < N; k++) /* rows 4, 5 repeat rows 0, 1 */
    for (int r = 4; r < 6; r++)
      J[r + k * M] = J[(r - 4) + k * M];
  for (int k = 0; k < N; k++)
    vf[k] = -1.0 + 0.1 * urand();
  for (int i = 0; i < M; i++)
    lo[i] = 0.0;
  delassus(N, M, A, J, G, AiJt);
  for (int i = 0; i < M; i++) {
    b[i] = 0;
    for (int k = 0; k < N; k++)
      b[i] += J[i + k * M] * vf[k];
  }
  ck_assert_int_eq(rod_contact_dual(s, M, G, b, l, NULL), ROD_OK);
  ck_assert_int_eq(rod_contact_primal(s, N, M, A, vf, J, lo, vp, lp, NULL),
                   ROD_OK);
  for (int k = 0; k < N; k++) {
    v[k] = vf[k];
    for (int i = 0; i < M; i++)
      v[k] += AiJt[k + i * N] * l[i];
    ROD_ASSERT_NEAR(v[k], vp[k], 1e-9);
  }
  rod_contact_solver_free(s);
}
END_TEST

/* ---- Coulomb ------------------------------------------------------------- */

/* Coulomb's conditions for one contact's w = W l + q. */
static void check_coulomb(const double *W, const double *q, double mu,
                          const double *l, double tol) {
  double w[3];
  for (int r = 0; r < 3; r++)
    w[r] = q[r] + W[r] * l[0] + W[r + 3] * l[1] + W[r + 6] * l[2];
  const double lt = hypot(l[1], l[2]), wt = hypot(w[1], w[2]);
  const double scale = fabs(q[0]) + fabs(q[1]) + fabs(q[2]);
  ck_assert(l[0] >= 0);
  ck_assert(w[0] >= -tol * scale);
  ck_assert(lt <= mu * l[0] * (1 + 1e-12) + 1e-300);
  if (l[0] > 0) {
    ck_assert_msg(fabs(w[0]) <= tol * scale, "w_n = %g", w[0]);
    if (lt < mu * l[0] * (1 - 1e-9)) { /* inside the cone: sticking */
      ck_assert_msg(wt <= tol * scale, "sticking with |w_t| = %g", wt);
    } else if (wt > tol * scale) { /* sliding: w_t opposite to l_t */
      double c = (w[1] * l[1] + w[2] * l[2]) / (wt * lt);
      ck_assert_msg(c <= -1 + 1e-9, "w_t . l_t / |w_t||l_t| = %.15g", c);
    }
  }
}

START_TEST(coulomb_local_cases) {
  int cases[3] = {0, 0, 0}; /* separating, sticking, sliding */
  for (int trial = 0; trial < 2000; trial++) {
    double W[9], q[3], l[3];
    random_spd(3, W);
    for (int r = 0; r < 3; r++)
      q[r] = urand();
    double mu = 0.05 + 1.5 * (urand() + 1) / 2;
    ck_assert_int_eq(rod_contact_coulomb_local(W, q, mu, l), ROD_OK);
    check_coulomb(W, q, mu, l, 1e-10);
    if (l[0] == 0)
      cases[0]++;
    else if (hypot(l[1], l[2]) < mu * l[0] * (1 - 1e-9))
      cases[1]++;
    else
      cases[2]++;
  }
  ck_assert(cases[0] > 100 && cases[1] > 100 && cases[2] > 100);
}
END_TEST

/* A unit mass on a plane under a normal push p_n and a tangential push p_t
 * (W = I): it sticks (l_t = -p_t) when |p_t| <= mu p_n, else slides with
 * |l_t| = mu p_n against the push. */
START_TEST(stick_below_mu_slip_above) {
  const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu = 0.4;
  for (int k = -20; k <= 20; k++) {
    double pt = 0.5 * k / 10.0, q[3] = {-1.0, pt, 0.0}, l[3];
    ck_assert_int_eq(rod_contact_coulomb_local(W, q, mu, l), ROD_OK);
    ROD_ASSERT_NEAR(l[0], 1.0, 1e-15);
    if (fabs(pt) <= mu)
      ROD_ASSERT_NEAR(l[1], -pt, 1e-15);
    else
      ROD_ASSERT_NEAR(l[1], -copysign(mu, pt), 1e-12);
    ROD_ASSERT_NEAR(l[2], 0.0, 1e-12);
  }
}
END_TEST

START_TEST(coulomb_many_contacts) {
  enum { N = 24, NC = 6, M = 3 * NC };
  rod_contact_solver *s = rod_contact_solver_alloc(M, N);
  double A[N * N], J[M * N], G[M * M], AiJt[N * M], b[M], l[M], mu[NC];
  for (int trial = 0; trial < 20; trial++) {
    random_spd(N, A);
    for (int i = 0; i < M * N; i++)
      J[i] = urand();
    delassus(N, M, A, J, G, AiJt);
    for (int i = 0; i < M; i++)
      b[i] = urand();
    for (int k = 0; k < NC; k++)
      mu[k] = 0.1 + 0.2 * k;
    memset(l, 0, sizeof l);
    rod_contact_stats st;
    ck_assert_int_eq(
        rod_contact_coulomb(s, NC, G, b, mu, 1e-14, 100000, l, &st), ROD_OK);
    for (int k = 0; k < NC;
         k++) { /* each contact's problem, the others fixed */
      double W[9], q[3];
      for (int r = 0; r < 3; r++) {
        q[r] = b[3 * k + r];
        for (int j = 0; j < M; j++)
          if (j / 3 != k)
            q[r] += G[3 * k + r + j * M] * l[j];
        for (int c = 0; c < 3; c++)
          W[r + 3 * c] = G[3 * k + r + (3 * k + c) * M];
      }
      check_coulomb(W, q, mu[k], l + 3 * k, 1e-9);
    }
  }
  /* mu = 0 gives the frictionless dual's normal forces */
  for (int k = 0; k < NC; k++)
    mu[k] = 0.0;
  memset(l, 0, sizeof l);
  ck_assert_int_eq(rod_contact_coulomb(s, NC, G, b, mu, 1e-15, 100000, l, NULL),
                   ROD_OK);
  double Gn[NC * NC], bn[NC], ln[NC];
  for (int i = 0; i < NC; i++) {
    bn[i] = b[3 * i];
    for (int j = 0; j < NC; j++)
      Gn[i + j * NC] = G[3 * i + 3 * j * M];
  }
  ck_assert_int_eq(rod_contact_dual(s, NC, Gn, bn, ln, NULL), ROD_OK);
  for (int i = 0; i < NC; i++)
    ROD_ASSERT_NEAR(l[3 * i], ln[i], 1e-9 * (1 + ln[i]));
  rod_contact_solver_free(s);
}
END_TEST

static Suite *contact_suite(void) {
  Suite *s = suite_create("contact");
  TCase *g = tcase_create("geometry");
  tcase_add_test(g, closed_form_distances);
  tcase_add_test(g, normal_is_gradient);
  tcase_add_test(g, segment_nearest_point);
  tcase_add_test(g, tangents_complete_a_frame);
  suite_add_tcase(s, g);
  TCase *q = tcase_create("problems");
  tcase_add_test(q, primal_and_dual_agree);
  tcase_add_test(q, dual_with_dependent_contacts);
  tcase_add_test(q, coulomb_local_cases);
  tcase_add_test(q, stick_below_mu_slip_above);
  tcase_add_test(q, coulomb_many_contacts);
  suite_add_tcase(s, q);
  return s;
}

ROD_TEST_MAIN(contact_suite)
