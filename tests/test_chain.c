/* Rigid-body chain dynamics against known answers: the ABA against the
 * CRBA mass matrix with a Cholesky solve, RNEA(ABA(tau)) = tau, the
 * closed-form mass matrix of a compound double pendulum, kinetic energy
 * 1/2 dq^T M dq, and the dead-load stiffness against central differences
 * of the RNEA's generalised forces. */
#include <lapacke.h>
#include <string.h>

#include "rfem/chain.h"
#include "testutil.h"

/* ---- random chains ------------------------------------------------------ */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

/* Uniform in [-1, 1] (xorshift64*). */
static double urand(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  unsigned long long r = rng_state * 2685821657736338717ULL;
  return 2.0 * ((r >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

/* A random proper rotation: the quaternion of four uniforms. */
static void random_rotation(double *E) {
  double h[4], n = 0;
  for (int i = 0; i < 4; i++) {
    h[i] = urand();
    n += h[i] * h[i];
  }
  n = sqrt(n);
  double w = h[0] / n, x = h[1] / n, y = h[2] / n, z = h[3] / n;
  double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),
                 2 * (x * z + w * y),     2 * (x * y + w * z),
                 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),
                 1 - 2 * (x * x + y * y)};
  memcpy(E, R, sizeof R);
}

/* A random link: inertia B B^T + 0.1 I about the centre of mass. */
static void random_link(rod_chain_link *l, bool prescribed) {
  memset(l, 0, sizeof *l);
  random_rotation(l->rotation);
  for (int k = 0; k < 3; k++) {
    l->offset[k] = 0.5 * urand();
    l->axis[k] = urand();
    l->com[k] = 0.3 * urand();
  }
  double B[9];
  for (int k = 0; k < 9; k++)
    B[k] = 0.5 * urand();
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double s = a == b ? 0.1 : 0.0;
      for (int k = 0; k < 3; k++)
        s += B[3 * a + k] * B[3 * b + k];
      l->inertia[3 * a + b] = s;
    }
  l->mass = 1.5 + urand();
  l->armature = 0.05 * (1.0 + urand());
  l->prescribed = prescribed;
}

typedef struct {
  int n;
  rod_chain *c;
  double *q, *dq, *tau, *fext, *qdd, *qdd2, *tau2, *M;
} fixture;

static void fixture_make(fixture *f, int n, bool with_prescribed) {
  f->n = n;
  f->c = rod_chain_alloc(n);
  ck_assert_ptr_nonnull(f->c);
  for (int i = 0; i < n; i++) {
    rod_chain_link l;
    random_link(&l, with_prescribed && i % 3 == 0);
    ck_assert_int_eq(rod_chain_set_link(f->c, i, &l), 0);
  }
  double g[3] = {urand(), urand(), -9.81};
  rod_chain_set_gravity(f->c, g);
  size_t N = (size_t)n;
  f->q = malloc(N * sizeof(double));
  f->dq = malloc(N * sizeof(double));
  f->tau = malloc(N * sizeof(double));
  f->qdd = malloc(N * sizeof(double));
  f->qdd2 = malloc(N * sizeof(double));
  f->tau2 = malloc(N * sizeof(double));
  f->fext = malloc(6 * N * sizeof(double));
  f->M = malloc(N * N * sizeof(double));
  for (int i = 0; i < n; i++) {
    f->q[i] = 3.0 * urand();
    f->dq[i] = 2.0 * urand();
    f->tau[i] = 5.0 * urand();
    f->qdd[i] = f->qdd2[i] = 3.0 * urand(); /* prescribed entries */
    for (int k = 0; k < 6; k++)
      f->fext[6 * i + k] = urand();
  }
  rod_chain_update(f->c, f->q, f->dq);
}

static void fixture_free(fixture *f) {
  rod_chain_free(f->c);
  free(f->q);
  free(f->dq);
  free(f->tau);
  free(f->qdd);
  free(f->qdd2);
  free(f->tau2);
  free(f->fext);
  free(f->M);
}

static double max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m)
      m = fabs(x[i]);
  return m;
}

static double max_diff(const double *x, const double *y, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i] - y[i]) > m)
      m = fabs(x[i] - y[i]);
  return m;
}

/* ---- tests -------------------------------------------------------------- */

/* For n <= 10 these random mass matrices have condition numbers below
 * about 1e4, so 1e-10 relative leaves a margin of 1e2 over kappa eps. */
static void check_aba_vs_crba(bool with_prescribed) {
  for (int n = 1; n <= 10; n++)
    for (int trial = 0; trial < 5; trial++) {
      fixture f;
      fixture_make(&f, n, with_prescribed);
      ck_assert_int_eq(rod_chain_aba(f.c, f.tau, f.fext, f.qdd), 0);
      ck_assert_int_eq(rod_chain_forward_crba(f.c, f.tau, f.fext, f.M, f.qdd2),
                       0);
      double err = max_diff(f.qdd, f.qdd2, n) / max_abs(f.qdd2, n);
      ck_assert_msg(err < 1e-10, "n = %d: ABA vs CRBA relative %.3g", n, err);
      fixture_free(&f);
    }
}

START_TEST(aba_equals_crba_cholesky) { check_aba_vs_crba(false); }
END_TEST

START_TEST(aba_equals_crba_with_prescribed_joints) { check_aba_vs_crba(true); }
END_TEST

/* RNEA inverts ABA: the residual is a backward error, eps times the size of
 * the torques and bias forces involved, whatever the conditioning. */
START_TEST(rnea_inverts_aba) {
  for (int n = 1; n <= 40; n += 3) {
    fixture f;
    fixture_make(&f, n, n % 2 == 0);
    ck_assert_int_eq(rod_chain_aba(f.c, f.tau, f.fext, f.qdd), 0);
    rod_chain_rnea(f.c, f.qdd, f.fext, f.tau2);
    const rod_chain_link *l;
    double scale = max_abs(f.tau, n);
    for (int i = 0; i < n; i++) {
      l = rod_chain_get_link(f.c, i);
      if (l->prescribed)
        continue;
      ck_assert_msg(fabs(f.tau2[i] - f.tau[i]) < 1e-10 * scale,
                    "n = %d joint %d: %.17g vs %.17g", n, i, f.tau2[i],
                    f.tau[i]);
    }
    fixture_free(&f);
  }
}
END_TEST

/* A moving base (rod_chain_set_base) against two equivalents. Turning
 * about a fixed axis k through the origin at angle th, rate w, rate w_t:
 * the same links behind one more joint about k, prescribed (th, w, w_t)
 * (its body massless); the ABA's accelerations, the RNEA's torques and the
 * body velocities agree to round-off. Translating at velocity u and
 * acceleration a: the fixed base with gravity g - a, the bodies' world
 * velocities u apart. */
START_TEST(moving_base_equivalents) {
  for (int n = 1; n <= 10; n += 3) {
    fixture f;
    fixture_make(&f, n, n % 2 == 0);
    rod_chain *b = rod_chain_alloc(n + 1);
    rod_chain_link l0;
    memset(&l0, 0, sizeof l0);
    l0.rotation[0] = l0.rotation[4] = l0.rotation[8] = 1.0;
    for (int k = 0; k < 3; k++)
      l0.axis[k] = urand();
    l0.prescribed = true;
    ck_assert_int_eq(rod_chain_set_link(b, 0, &l0), 0);
    const double *k = rod_chain_get_link(b, 0)->axis; /* unit */
    for (int i = 0; i < n; i++)
      ck_assert_int_eq(rod_chain_set_link(b, i + 1, rod_chain_get_link(f.c, i)),
                       0);
    double g[3] = {0.3, -0.2, -9.81};
    rod_chain_set_gravity(f.c, g);
    rod_chain_set_gravity(b, g);
    const double th = 2.0 * urand(), w = 3.0 * urand(), wt = 5.0 * urand();
    const size_t N = (size_t)n + 1;
    double *qb = calloc(N, sizeof(double)), *vb = calloc(N, sizeof(double));
    double *ab = calloc(N, sizeof(double)), *tb = calloc(N, sizeof(double));
    double *fb = calloc(6 * N, sizeof(double)); /* body 0: no force */
    memcpy(fb + 6, f.fext, 6 * (size_t)n * sizeof(double));
    qb[0] = th;
    vb[0] = w;
    ab[0] = wt;
    for (int i = 0; i < n; i++) {
      qb[i + 1] = f.q[i];
      vb[i + 1] = f.dq[i];
      ab[i + 1] = f.qdd[i];
      tb[i + 1] = f.tau[i];
    }
    /* the base frame of joint 0 turned by th: R = exp(th [k]x) */
    double R[9], c = cos(th), s = sin(th), v[6], a[6];
    const double kx[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        R[3 * i + j] =
            (i == j ? c : 0.0) + s * kx[3 * i + j] + (1 - c) * k[i] * k[j];
    for (int i = 0; i < 3; i++) { /* k is fixed by the turn about it */
      v[i] = w * k[i];
      a[i] = wt * k[i];
      v[3 + i] = a[3 + i] = 0.0;
    }
    rod_chain_set_base(f.c, R, NULL, v, a);
    rod_chain_update(f.c, f.q, f.dq);
    rod_chain_update(b, qb, vb);
    ck_assert_int_eq(rod_chain_aba(f.c, f.tau, f.fext, f.qdd), 0);
    ck_assert_int_eq(rod_chain_aba(b, tb, fb, ab), 0);
    for (int i = 0; i < n; i++) {
      ROD_ASSERT_NEAR(f.qdd[i], ab[i + 1], 1e-10 * (1 + fabs(ab[i + 1])));
      for (int m = 0; m < 6; m++)
        ROD_ASSERT_NEAR(rod_chain_velocity(f.c, i)[m],
                        rod_chain_velocity(b, i + 1)[m], 1e-12 * 10);
    }
    rod_chain_rnea(f.c, f.qdd, f.fext, f.tau2);
    rod_chain_rnea(b, ab, fb, tb);
    for (int i = 0; i < n; i++)
      ROD_ASSERT_NEAR(f.tau2[i], tb[i + 1], 1e-10 * (1 + fabs(tb[i + 1])));
    /* translation: u, a against gravity g - a */
    double u[3] = {urand(), urand(), urand()}, acc[3] = {urand(), 2, -1};
    double p[3] = {0.4, -0.1, 0.2}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double vt[6] = {0, 0, 0, u[0], u[1], u[2]}, at[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 3; i++) /* the base's origin accelerates at acc */
      at[3 + i] = acc[i];
    rod_chain_set_base(f.c, I3, p, vt, at);
    rod_chain_update(f.c, f.q, f.dq);
    ck_assert_int_eq(rod_chain_aba(f.c, f.tau, f.fext, f.qdd), 0);
    double gm[3] = {g[0] - acc[0], g[1] - acc[1], g[2] - acc[2]};
    rod_chain_set_base(f.c, NULL, NULL, NULL, NULL);
    rod_chain_set_gravity(f.c, gm);
    double *q2 = f.qdd2, pf[3], pm[3], vf[3], vm[3], r[3] = {0.1, 0.2, 0.3};
    rod_chain_update(f.c, f.q, f.dq);
    ck_assert_int_eq(rod_chain_aba(f.c, f.tau, f.fext, q2), 0);
    rod_chain_point(f.c, n - 1, r, pf, vf);
    rod_chain_set_base(f.c, I3, p, vt, at);
    rod_chain_update(f.c, f.q, f.dq);
    rod_chain_point(f.c, n - 1, r, pm, vm);
    for (int i = 0; i < n; i++)
      if (!rod_chain_get_link(f.c, i)->prescribed)
        ROD_ASSERT_NEAR(f.qdd[i], q2[i], 1e-10 * (1 + fabs(q2[i])));
    for (int i = 0; i < 3; i++) {
      ROD_ASSERT_NEAR(pm[i], pf[i] + p[i], 1e-12);
      ROD_ASSERT_NEAR(vm[i], vf[i] + u[i], 1e-12 * 10);
    }
    free(qb);
    free(vb);
    free(ab);
    free(tb);
    free(fb);
    rod_chain_free(b);
    fixture_free(&f);
  }
}
END_TEST

/* (M + diag(e)) x = b by the O(n) pass, checked by multiplying out. */
START_TEST(solve_mass_matches_crba) {
  for (int n = 1; n <= 12; n++) {
    fixture f;
    fixture_make(&f, n, n % 2 == 1);
    double e[12], b[12], x[12], r[12];
    for (int i = 0; i < n; i++) {
      e[i] = 1.0 + urand();
      b[i] = urand();
    }
    ck_assert_int_eq(rod_chain_solve_mass(f.c, e, b, x), 0);
    rod_chain_crba(f.c, f.M);
    for (int i = 0; i < n; i++) {
      if (rod_chain_get_link(f.c, i)->prescribed) {
        ck_assert(x[i] == 0.0);
        continue;
      }
      r[i] = e[i] * x[i] - b[i];
      for (int j = 0; j < n; j++)
        r[i] += f.M[i + j * n] * x[j];
      ck_assert_msg(fabs(r[i]) < 1e-12, "n = %d row %d residual %.3g", n, i,
                    r[i]);
    }
    fixture_free(&f);
  }
}
END_TEST

/* T = 1/2 dq^T M dq: kinematics (velocities) against the CRBA. */
START_TEST(kinetic_energy_is_quadratic_form) {
  for (int n = 1; n <= 15; n += 2) {
    fixture f;
    fixture_make(&f, n, false);
    rod_chain_crba(f.c, f.M);
    double T = 0;
    for (int i = 0; i < n; i++) {
      const double arm = rod_chain_get_link(f.c, i)->armature;
      T -= 0.5 * arm * f.dq[i] * f.dq[i]; /* rotors are not bodies */
      for (int j = 0; j < n; j++)
        T += 0.5 * f.dq[i] * f.M[i + j * n] * f.dq[j];
    }
    double Tc = rod_chain_kinetic_energy(f.c);
    ck_assert_msg(fabs(Tc - T) < 1e-12 * T, "n = %d: %.17g vs %.17g", n, Tc, T);
    fixture_free(&f);
  }
}
END_TEST

/* Compound double pendulum in the x-z plane, joints about y (textbook
 * Lagrangian): links of length l1, centres of mass at c1, c2 along each
 * link, inertias J1, J2 about the centres.
 *   M11 = J1 + m1 c1^2 + J2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
 *   M12 = J2 + m2 (c2^2 + l1 c2 cos q2),  M22 = J2 + m2 c2^2
 * and, at rest, the gravity torques g_i = dV/dq_i. */
START_TEST(double_pendulum_closed_form) {
  const double m1 = 1.3, m2 = 0.7, l1 = 0.9, c1 = 0.4, c2 = 0.35;
  const double J1 = 0.05, J2 = 0.02, g = 9.81;
  rod_chain *c = rod_chain_alloc(2);
  rod_chain_link l;
  memset(&l, 0, sizeof l);
  l.rotation[0] = l.rotation[4] = l.rotation[8] = 1.0;
  l.axis[1] = 1.0;
  l.mass = m1;
  l.com[0] = c1;
  l.inertia[0] = 0.01; /* about the link: does not enter planar motion */
  l.inertia[4] = J1;
  l.inertia[8] = J1;
  ck_assert_int_eq(rod_chain_set_link(c, 0, &l), 0);
  l.offset[0] = l1;
  l.mass = m2;
  l.com[0] = c2;
  l.inertia[4] = J2;
  l.inertia[8] = J2;
  ck_assert_int_eq(rod_chain_set_link(c, 1, &l), 0);
  double grav[3] = {0, 0, -g};
  rod_chain_set_gravity(c, grav);
  double q[2] = {0.3, -1.1}, M[4], tau[2], zero[2] = {0, 0};
  rod_chain_update(c, q, NULL);
  rod_chain_crba(c, M);
  double M11 = J1 + m1 * c1 * c1 + J2 +
               m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * cos(q[1]));
  double M12 = J2 + m2 * (c2 * c2 + l1 * c2 * cos(q[1]));
  double M22 = J2 + m2 * c2 * c2;
  ROD_ASSERT_NEAR(M[0], M11, 1e-14);
  ROD_ASSERT_NEAR(M[1], M12, 1e-14);
  ROD_ASSERT_NEAR(M[2], M12, 1e-14);
  ROD_ASSERT_NEAR(M[3], M22, 1e-14);
  /* a turn about +y takes +x toward -z: heights z1 = -c1 sin q1,
   * z2 = -l1 sin q1 - c2 sin(q1 + q2); tau = dV/dq with V = sum m g z */
  rod_chain_rnea(c, zero, NULL, tau);
  double g1 = -g * (m1 * c1 * cos(q[0]) +
                    m2 * (l1 * cos(q[0]) + c2 * cos(q[0] + q[1])));
  double g2 = -g * m2 * c2 * cos(q[0] + q[1]);
  ROD_ASSERT_NEAR(tau[0], g1, 1e-13);
  ROD_ASSERT_NEAR(tau[1], g2, 1e-13);
  double V = -g * (m1 * c1 * sin(q[0]) +
                   m2 * (l1 * sin(q[0]) + c2 * sin(q[0] + q[1])));
  ROD_ASSERT_NEAR(rod_chain_gravity_energy(c), V, 1e-13);
  rod_chain_free(c);
}
END_TEST

/* Generalised force of gravity and dead loads: G = -RNEA at rest. */
static void generalised_force(rod_chain *c, const double *q, int nl,
                              const rod_chain_load *loads, double *G,
                              double *fext, double *zero) {
  int n = rod_chain_size(c);
  rod_chain_update(c, q, NULL);
  memset(fext, 0, 6 * (size_t)n * sizeof(double));
  for (int k = 0; k < nl; k++)
    rod_chain_add_point_force(c, loads[k].body, loads[k].point, loads[k].force,
                              fext);
  rod_chain_rnea(c, zero, fext, G);
  for (int i = 0; i < n; i++)
    G[i] = -G[i];
}

/* Central differences of G have truncation error h^2 |G'''| ~ 1e-10 here. */
START_TEST(load_stiffness_matches_differences) {
  enum { N = 9 };
  fixture f;
  fixture_make(&f, N, false);
  rod_chain_load loads[3] = {{N - 1, {0.2, 0.1, -0.3}, {0.5, -1.0, 2.0}},
                             {4, {0.0, 0.3, 0.1}, {-2.0, 0.4, 0.3}},
                             {0, {0.1, 0.0, 0.2}, {1.0, 1.0, 1.0}}};
  double K[N * N], Gp[N], Gm[N], qq[N], zero[N] = {0}, fext[6 * N];
  rod_chain_update(f.c, f.q, NULL);
  rod_chain_load_stiffness(f.c, 3, loads, K, N);
  const double h = 1e-5;
  for (int j = 0; j < N; j++) {
    memcpy(qq, f.q, sizeof qq);
    qq[j] += h;
    generalised_force(f.c, qq, 3, loads, Gp, fext, zero);
    qq[j] -= 2 * h;
    generalised_force(f.c, qq, 3, loads, Gm, fext, zero);
    for (int i = 0; i < N; i++) {
      double fd = (Gp[i] - Gm[i]) / (2 * h);
      ck_assert_msg(fabs(K[i + j * N] - fd) < 1e-8 * (1 + fabs(fd)),
                    "K[%d,%d] = %.12g, differences %.12g", i, j, K[i + j * N],
                    fd);
    }
  }
  fixture_free(&f);
}
END_TEST

START_TEST(free_null_is_noop) {
  rod_chain_free(NULL);
  ck_assert_ptr_null(rod_chain_alloc(0));
}
END_TEST

static Suite *chain_suite(void) {
  Suite *s = suite_create("chain");
  TCase *tc = tcase_create("dynamics");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, aba_equals_crba_cholesky);
  tcase_add_test(tc, aba_equals_crba_with_prescribed_joints);
  tcase_add_test(tc, rnea_inverts_aba);
  tcase_add_test(tc, moving_base_equivalents);
  tcase_add_test(tc, solve_mass_matches_crba);
  tcase_add_test(tc, kinetic_energy_is_quadratic_form);
  tcase_add_test(tc, double_pendulum_closed_form);
  suite_add_tcase(s, tc);
  TCase *ts = tcase_create("statics");
  tcase_add_test(ts, load_stiffness_matches_differences);
  tcase_add_test(ts, free_null_is_noop);
  suite_add_tcase(s, ts);
  return s;
}

ROD_TEST_MAIN(chain_suite)
