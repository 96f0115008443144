/* Generalized-alpha against known answers: the Chung-Hulbert parameters,
 * the trapezoidal rule's exact discrete frequency for rho_inf = 1, second
 * order on a forced damped oscillator with a closed-form solution and on
 * the nonlinear pendulum, and the spectral radius of the amplification
 * matrix (1 at small h omega for rho_inf = 1, rho_inf as h omega -> oo). */
#include <lapacke.h>
#include <stdbool.h>

#include "integrators/genalpha.h"
#include "integrators/ivp.h"
#include "rod/status.h"
#include "testutil.h"

/* ---- test systems: q'' + 2 zeta w q' + w^2 q = F cos(W t), pendulum ---- */

typedef struct {
  double w, zeta, F, W;
  bool pendulum; /* q'' = -w^2 sin q instead */
  double cos_q;  /* of the last residual point, for the exact Jacobian */
} oscillator;

static int osc_residual(double t, const double *q, const double *v,
                        const double *qdd, double *r, void *user) {
  oscillator *o = user;
  if (o->pendulum) {
    o->cos_q = cos(q[0]);
    r[0] = qdd[0] + o->w * o->w * sin(q[0]);
    return 0;
  }
  r[0] = qdd[0] + 2 * o->zeta * o->w * v[0] + o->w * o->w * q[0] -
         o->F * cos(o->W * t);
  return 0;
}

/* exact Newton: S = 1 + gamma' c + beta' k */
static int osc_solve(double t, double beta_p, double gamma_p, const double *b,
                     double *dx, void *user) {
  (void)t;
  oscillator *o = user;
  double k = o->w * o->w * (o->pendulum ? o->cos_q : 1.0);
  double c = o->pendulum ? 0.0 : 2 * o->zeta * o->w;
  dx[0] = b[0] / (1.0 + gamma_p * c + beta_p * k);
  return 0;
}

static const rod_genalpha_system osc_system = {osc_residual, osc_solve};

static rod_genalpha_options tight(void) {
  rod_genalpha_options o = {50, 1e-13, 1.0, 0.0};
  return o;
}

/* Closed form of the forced damped oscillator from q(0) = q0, v(0) = 0:
 * particular solution A cos(W t) + B sin(W t) plus the free response. */
static void osc_exact(const oscillator *o, double q0, double t, double *q,
                      double *v) {
  double w = o->w, z = o->zeta, W = o->W;
  double den = (w * w - W * W) * (w * w - W * W) + 4 * z * z * w * w * W * W;
  double A = o->F * (w * w - W * W) / den, B = o->F * 2 * z * w * W / den;
  double wd = w * sqrt(1 - z * z), s = z * w;
  /* homogeneous part e^{-s t} (C cos wd t + D sin wd t) */
  double C = q0 - A, D = (s * C - B * W) / wd;
  double e = exp(-s * t), c = cos(wd * t), sn = sin(wd * t);
  *q = A * cos(W * t) + B * sin(W * t) + e * (C * c + D * sn);
  *v = -A * W * sin(W * t) + B * W * cos(W * t) +
       e * (-s * (C * c + D * sn) + wd * (-C * sn + D * c));
}

/* Largest error in q over the N steps to t_end (the error at one instant
 * can pass near zero and mislead the observed order). */
static double run_error(oscillator *o, double rho, int N, double t_end) {
  rod_genalpha *g = rod_genalpha_alloc(1);
  rod_genalpha_set_params(g, rod_genalpha_params_from_radius(rho));
  double q0 = 1.0, v0 = 0.0, qdd0 = -o->w * o->w * q0 + o->F;
  rod_genalpha_init(g, 0.0, &q0, &v0, &qdd0, NULL);
  rod_genalpha_options opt = tight();
  double err = 0;
  for (int i = 1; i <= N; i++) {
    ck_assert_int_eq(
        rod_genalpha_step(g, &osc_system, t_end / N, &opt, NULL, o), ROD_OK);
    double q, v;
    osc_exact(o, q0, t_end * i / N, &q, &v);
    err = fmax(err, fabs(rod_genalpha_q(g)[0] - q));
  }
  rod_genalpha_free(g);
  return err;
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(chung_hulbert_parameters) {
  rod_genalpha_params p = rod_genalpha_params_from_radius(1.0);
  ROD_ASSERT_NEAR(p.alpha_m, 0.5, 1e-16);
  ROD_ASSERT_NEAR(p.alpha_f, 0.5, 1e-16);
  ROD_ASSERT_NEAR(p.gamma, 0.5, 1e-16);
  ROD_ASSERT_NEAR(p.beta, 0.25, 1e-16);
  p = rod_genalpha_params_from_radius(0.0);
  ROD_ASSERT_NEAR(p.alpha_m, -1.0, 1e-16);
  ROD_ASSERT_NEAR(p.alpha_f, 0.0, 1e-16);
  ROD_ASSERT_NEAR(p.gamma, 1.5, 1e-16);
  ROD_ASSERT_NEAR(p.beta, 1.0, 1e-16);
}
END_TEST

/* rho_inf = 1 is the trapezoidal rule: q_(k+1) + q_(k-1) = 2 cos(W h) q_k
 * with tan(W h / 2) = w h / 2, and the energy w^2 q^2 + v^2 is kept. The
 * least-squares estimate of cos(W h) from the samples is exact for a pure
 * discrete cosine, so the match is to round-off. */
START_TEST(trapezoid_discrete_frequency) {
  oscillator o = {2.0 * M_PI, 0, 0, 0, false, 1};
  const double h = 0.05; /* w h = 0.31 */
  rod_genalpha *g = rod_genalpha_alloc(1);
  rod_genalpha_set_params(g, rod_genalpha_params_from_radius(1.0));
  double q0 = 1.0, v0 = 0.0, a0 = -o.w * o.w;
  rod_genalpha_init(g, 0.0, &q0, &v0, &a0, NULL);
  rod_genalpha_options opt = tight();
  enum { N = 400 };
  double q[N + 1];
  q[0] = q0;
  for (int i = 1; i <= N; i++) {
    ck_assert_int_eq(rod_genalpha_step(g, &osc_system, h, &opt, NULL, &o),
                     ROD_OK);
    q[i] = rod_genalpha_q(g)[0];
    double v = rod_genalpha_v(g)[0];
    ROD_ASSERT_NEAR(o.w * o.w * q[i] * q[i] + v * v, o.w * o.w, 1e-11);
  }
  double num = 0, den = 0;
  for (int i = 1; i < N; i++) {
    num += q[i] * (q[i + 1] + q[i - 1]);
    den += 2 * q[i] * q[i];
  }
  double W = acos(num / den) / h;
  double expect = 2.0 / h * atan(o.w * h / 2.0);
  ck_assert_msg(fabs(W / expect - 1) < 1e-12, "W %.15g vs %.15g", W, expect);
  rod_genalpha_free(g);
}
END_TEST

/* Global error ~ C h^2: halving h divides it by 4 (observed order within
 * 0.05 of 2 once w h is small: w h = 0.08 .. 0.02; measured 1.96-2.00). */
START_TEST(second_order_forced_damped) {
  oscillator o = {2.0 * M_PI, 0.05, 3.0, 1.3 * 2.0 * M_PI, false, 1};
  const double rho[4] = {0.0, 0.5, 0.9, 1.0};
  for (int r = 0; r < 4; r++) {
    double e1 = run_error(&o, rho[r], 160, 2.0);
    double e2 = run_error(&o, rho[r], 320, 2.0);
    double e3 = run_error(&o, rho[r], 640, 2.0);
    double p1 = rod_observed_order(e1, e2), p2 = rod_observed_order(e2, e3);
    ck_assert_msg(fabs(p1 - 2) < 0.05 && fabs(p2 - 2) < 0.05,
                  "rho %.2f: orders %.3f %.3f (errors %.3g %.3g %.3g)", rho[r],
                  p1, p2, e1, e2, e3);
  }
}
END_TEST

static int pendulum_rhs(double t, const double *y, double *dy, void *user) {
  (void)t;
  const oscillator *o = user;
  dy[0] = y[1];
  dy[1] = -o->w * o->w * sin(y[0]);
  return 0;
}

/* Large-amplitude pendulum (2 rad): Newton iterations with the exact
 * Jacobian; the reference is Dormand-Prince at rtol 1e-12. */
START_TEST(second_order_pendulum) {
  oscillator o = {3.0, 0, 0, 0, true, 1};
  const double T = 3.0, q0 = 2.0;
  double y[2] = {q0, 0.0}, t = 0;
  rod_rk45 *rk = rod_rk45_alloc(2);
  double atol[2] = {1e-14, 1e-14};
  rod_rk45_options ro = {1e-12, atol, 0, 1000000};
  ck_assert_int_eq(rod_rk45_advance(rk, pendulum_rhs, &t, T, y, &ro, NULL, &o),
                   ROD_OK);
  rod_rk45_free(rk);
  double err[3];
  for (int k = 0; k < 3; k++) {
    int N = 200 << k;
    rod_genalpha *g = rod_genalpha_alloc(1);
    rod_genalpha_set_params(g, rod_genalpha_params_from_radius(0.8));
    double v0 = 0, a0 = -o.w * o.w * sin(q0);
    rod_genalpha_init(g, 0.0, &q0, &v0, &a0, NULL);
    rod_genalpha_options opt = tight();
    rod_genalpha_stats st = {0, 0, 0};
    for (int i = 0; i < N; i++)
      ck_assert_int_eq(rod_genalpha_step(g, &osc_system, T / N, &opt, &st, &o),
                       ROD_OK);
    /* quadratic convergence: a handful of iterations per step */
    ck_assert_int_le(st.iterations, 5 * N);
    err[k] = fabs(rod_genalpha_q(g)[0] - y[0]);
    rod_genalpha_free(g);
  }
  double p1 = rod_observed_order(err[0], err[1]);
  double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(fabs(p1 - 2) < 0.1 && fabs(p2 - 2) < 0.1,
                "orders %.3f %.3f (errors %.3g %.3g %.3g)", p1, p2, err[0],
                err[1], err[2]);
}
END_TEST

/* The amplification matrix of one step (h = 1) on q'' = -w^2 q in the
 * scaled state x = (w^2 q, v, a), whose entries stay bounded as w -> oo,
 * built column by column by stepping unit states. */
static void amplification(double rho, double w, double *Amp) {
  oscillator o = {w, 0, 0, 0, false, 1};
  rod_genalpha *g = rod_genalpha_alloc(1);
  rod_genalpha_set_params(g, rod_genalpha_params_from_radius(rho));
  /* linear and exact Newton: one correction leaves round-off of the
   * largest term, w^2 q */
  rod_genalpha_options opt = {2, 1e-12, 1.0 / (1.0 + w * w), 0.0};
  for (int col = 0; col < 3; col++) {
    double x[3] = {0, 0, 0};
    x[col] = 1.0;
    double q = x[0] / (w * w), qdd = -x[0]; /* true acceleration -w^2 q */
    rod_genalpha_init(g, 0.0, &q, &x[1], &qdd, &x[2]);
    ck_assert_int_eq(rod_genalpha_step(g, &osc_system, 1.0, &opt, NULL, &o),
                     ROD_OK);
    Amp[0 + 3 * col] = w * w * rod_genalpha_q(g)[0];
    Amp[1 + 3 * col] = rod_genalpha_v(g)[0];
    Amp[2 + 3 * col] = rod_genalpha_a(g)[0];
  }
  rod_genalpha_free(g);
}

/* Largest eigenvalue modulus (LAPACKE dgeev). */
static double spectral_radius(double rho, double wh) {
  double Amp[9], wr[3], wi[3];
  amplification(rho, wh, Amp);
  ck_assert_int_eq(LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', 3, Amp, 3, wr, wi,
                                 NULL, 1, NULL, 1),
                   0);
  double r = 0;
  for (int k = 0; k < 3; k++)
    r = fmax(r, hypot(wr[k], wi[k]));
  return r;
}

/* As w h -> oo, q -> 0 and the (v, a) recurrence tends to a 2 x 2 block
 * with the double root -(2 - s)/s, s = 1 - alpha_m + alpha_f = 2/(1 + rho),
 * i.e. -rho, and the true acceleration to qdd1 = -alpha_f/(1 - alpha_f)
 * qdd0 + ..., again -rho: a triple eigenvalue -rho_inf with a Jordan block.
 * Its computed eigenvalues would scatter by sqrt(eps); the characteristic
 * polynomial (l + rho)^3 is well conditioned instead: trace -3 rho, sum of
 * principal minors 3 rho^2, determinant -rho^3. At w h = 1e4 they are
 * within 16/(w h)^2 = 1.6e-7 of the limit (measured: the distance falls as
 * 1/(w h)^2 from w h = 1e2) plus round-off of about eps (w h)^2 = 2e-8 from
 * q1 = O(1/(w h)^2) computed from terms of order 1. */
START_TEST(spectral_radius_at_infinity) {
  const double rho[5] = {0.0, 0.3, 0.6, 0.9, 1.0};
  for (int k = 0; k < 5; k++) {
    double A[9], r = rho[k];
    amplification(r, 1e4, A);
    double tr = A[0] + A[4] + A[8];
    double minors = A[0] * A[4] - A[1] * A[3] + A[0] * A[8] - A[2] * A[6] +
                    A[4] * A[8] - A[5] * A[7];
    double det = A[0] * (A[4] * A[8] - A[5] * A[7]) -
                 A[3] * (A[1] * A[8] - A[2] * A[7]) +
                 A[6] * (A[1] * A[5] - A[2] * A[4]);
    ROD_ASSERT_NEAR(tr, -3 * r, 1e-6);
    ROD_ASSERT_NEAR(minors, 3 * r * r, 1e-6);
    ROD_ASSERT_NEAR(det, -r * r * r, 1e-6);
  }
}
END_TEST

START_TEST(unconditionally_stable) {
  /* spectral radius <= 1 for every w h, and = 1 without damping for
   * rho_inf = 1 (the trapezoidal rule keeps the linear energy; its
   * spurious root is -1) */
  for (double wh = 0.01; wh < 1e3; wh *= 1.7) {
    for (int k = 0; k <= 4; k++) {
      double rho = 0.25 * k;
      double r = spectral_radius(rho, wh);
      ck_assert_msg(r <= 1.0 + 1e-12, "rho %.2f w h %.3g: radius %.15g", rho,
                    wh, r);
      if (k == 4)
        ROD_ASSERT_NEAR(r, 1.0, 1e-12);
    }
  }
}
END_TEST

START_TEST(failed_step_keeps_state) {
  oscillator o = {30.0, 0, 0, 0, true, 1};
  rod_genalpha *g = rod_genalpha_alloc(1);
  rod_genalpha_set_params(g, rod_genalpha_params_from_radius(0.9));
  double q0 = 1.0, v0 = 0.5, a0 = -900 * sin(1.0);
  rod_genalpha_init(g, 0.0, &q0, &v0, &a0, NULL);
  rod_genalpha_options opt = {0, 1e-14, 1.0, 0.0}; /* no corrections */
  ck_assert_int_eq(rod_genalpha_step(g, &osc_system, 0.1, &opt, NULL, &o),
                   ROD_ENOCONV);
  ck_assert(rod_genalpha_q(g)[0] == q0 && rod_genalpha_v(g)[0] == v0);
  ck_assert(rod_genalpha_time(g) == 0.0);
  rod_genalpha_free(g);
  rod_genalpha_free(NULL);
}
END_TEST

/* The mode error that run and bench warn with: for rho_inf = 1 the
 * trapezoidal rule's closed form, max |cos(n W h) - cos(n w h)| with
 * tan(W h / 2) = w h / 2; for rho_inf = 0.9 (RFEM's default) the steps of
 * the integrator itself on the undamped oscillator. */
START_TEST(mode_error_of_a_step) {
  const double w = 2.0 * M_PI, span = 2.0;
  const double hs[] = {0.01, 0.05, 0.2};
  for (int k = 0; k < 3; k++) {
    const double h = hs[k], W = 2.0 * atan(w * h / 2.0) / h;
    double e = 0;
    for (int i = 1; i <= (int)ceil(span / h - 1e-9); i++)
      e = fmax(e, fabs(cos(W * h * i) - cos(w * h * i)));
    ROD_ASSERT_NEAR(rod_genalpha_mode_error(
                        rod_genalpha_params_from_radius(1.0), h, w, span),
                    e, 1e-12);
    oscillator o = {w, 0, 0, 0, false, 1};
    const int N = (int)ceil(span / h - 1e-9);
    ROD_ASSERT_NEAR(rod_genalpha_mode_error(
                        rod_genalpha_params_from_radius(0.9), h, w, span),
                    run_error(&o, 0.9, N, N * h), 1e-11);
  }
  /* second order: the error at 2 periods falls 4 times with the step */
  rod_genalpha_params p = rod_genalpha_params_from_radius(0.9);
  const double r = rod_genalpha_mode_error(p, 0.004, w, span) /
                   rod_genalpha_mode_error(p, 0.002, w, span);
  ROD_ASSERT_NEAR(r, 4.0, 0.1);
}
END_TEST

static Suite *genalpha_suite(void) {
  Suite *s = suite_create("genalpha");
  TCase *tc = tcase_create("known answers");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, chung_hulbert_parameters);
  tcase_add_test(tc, mode_error_of_a_step);
  tcase_add_test(tc, trapezoid_discrete_frequency);
  tcase_add_test(tc, second_order_forced_damped);
  tcase_add_test(tc, second_order_pendulum);
  tcase_add_test(tc, spectral_radius_at_infinity);
  tcase_add_test(tc, unconditionally_stable);
  tcase_add_test(tc, failed_step_keeps_state);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(genalpha_suite)
