/* The energy balance of tendon-driven rods from the works the samples
 * carry (rod_sample.tendon_work, tendon_friction_work; docs/tendons.md,
 * "Energy"): without damping or drag, E(t) - E(0) - W_m(t) - W_f(t) stays
 * at zero to the time scheme's order, on the Kirchhoff/Cosserat rod
 * (BDF-alpha, esdirk4) and the RFEM chain (generalized-alpha), under a
 * tendon's tension ramp and under the motor, without friction and with
 * it (the friction loads' work W_f < 0). */
#include <math.h>
#include <string.h>

#include "sim/backend.h"
#include "tendonfriction.h"

/* The tension ramp 0 -> 6 N (half cosine over 0.1 .. 0.6 s) or the
 * motor's pull 0 -> 16.19 mm (the same shape), a table every 2.5 ms to
 * 1 s, into csv. */
static void ramp_table(char *csv, size_t size, bool motor) {
  int n = snprintf(csv, size, motor ? "t,dl\n" : "t,T\n");
  for (int k = 0; k <= 400; k++) {
    const double tk = k * 0.0025;
    const double x = fmin(fmax((tk - 0.1) / 0.5, 0.0), 1.0);
    const double a = motor ? 0.5 * 0.01619 : 3.0;
    n += snprintf(csv + n, size - (size_t)n, "%.17g,%.17g\n", tk,
                  a * (1.0 - cos(M_PI * x)));
  }
}

/* The friction example's robot (tendon_friction.ini, 20 RK4 points)
 * without bending damping or drag, gravity on, friction beta, its tendon
 * driven by the ramp (motor: its displacement, else its tension), on the
 * backend (RFEM: 10 elements) and scheme given. */
static void robot(rod_scenario *sc, const char *dir, bool motor, double beta,
                  rod_backend_kind backend, rod_scheme_kind scheme) {
  static char csv[32768];
  ramp_table(csv, sizeof csv, motor);
  rod_test_friction_rod(sc, dir, motor ? csv : NULL, beta, 20, ROD_SPACE_RK4);
  if (!motor)
    rod_test_friction_tension(sc, dir, csv);
  sc->rod.bending_damping = 0;
  sc->rod.drag = 0;
  sc->solver.backend = backend;
  sc->solver.strategy = ROD_STRATEGY_AUTO;
  sc->rfem.segments = 10;
  sc->time.scheme = scheme;
  sc->time.duration = 1.0;
  /* the history at the stages themselves: auto's Hermite interpolation
   * between the nodes breaks the balance by its error times c0 ~ 1 / dt
   * (docs/tendons.md, "Energy") */
  sc->space.history = ROD_HISTORY_STAGE;
}

typedef struct {
  double dE, Wm, Wf; /* J, at t = 1 s */
  double res;        /* J, the largest |dE - Wm - Wf| over the steps */
} balance_run;

/* sc stepped by dt to its duration: the energy's change and the works at
 * the end, the balance's largest residual over the steps. */
static balance_run run(rod_scenario *sc, double dt) {
  sc->time.dt = dt;
  const rod_backend_ops *ops = rod_backend_for(sc);
  void *self;
  rod_error err;
  rod_step_stats st;
  rod_sample s;
  ck_assert_int_eq(ops->create(sc, &self, &err), ROD_OK);
  ck_assert_int_eq(ops->solve_static(self, &st), ROD_OK);
  memset(&s, 0, sizeof s);
  ck_assert_int_eq(ops->sample(self, &s), ROD_OK);
  ck_assert(s.tendon_work == 0 && s.tendon_friction_work == 0);
  const double E0 = s.kinetic + s.elastic + s.gravity;
  balance_run b = {0, 0, 0, 0};
  const int steps = (int)(sc->time.duration / dt + 0.5);
  for (int k = 1; k <= steps; k++) {
    ck_assert_int_eq(ops->step(self, k * dt, &st), ROD_OK);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(ops->sample(self, &s), ROD_OK);
    b.dE = s.kinetic + s.elastic + s.gravity - E0;
    b.Wm = s.tendon_work;
    b.Wf = s.tendon_friction_work;
    b.res = fmax(b.res, fabs(b.dE - b.Wm - b.Wf));
  }
  ops->destroy(self);
  return b;
}

/* The residuals at dt, dt / 2, dt / 4 (printed with the works): they
 * fall at a fitted order of at least `order`, the finest below `below`
 * of the motor's work. */
static void converges(const char *what, rod_scenario *sc, double dt,
                      double order, double below, balance_run *last) {
  double res[3];
  balance_run b;
  for (int r = 0; r < 3; r++) {
    b = run(sc, dt / (1 << r));
    res[r] = b.res;
    fprintf(stderr,
            "%s, dt %.4g s: energy %.6g J, tendons %.6g J, friction %.6g J: "
            "largest residual %.3g J\n",
            what, dt / (1 << r), b.dE, b.Wm, b.Wf, b.res);
  }
  const double p = log2(res[0] / res[2]) / 2;
  fprintf(stderr, "%s: order %.2f\n", what, p);
  ck_assert_msg(res[0] > res[1] && res[1] > res[2] && p > order,
                "%s: residuals %.3g %.3g %.3g", what, res[0], res[1], res[2]);
  ck_assert_msg(res[2] < below * fabs(b.Wm), "%s: residual %.3g J of %.3g J",
                what, res[2], b.Wm);
  if (last)
    *last = b;
}

/* Without friction (W_f = 0 exactly) the balance closes at order 2 on
 * the rod under BDF2 (alpha = 0) and under esdirk4 (the works' trapezoids
 * bound it there), the largest residual over 1 s falling from dt = 20 to
 * 5 ms: tension 1.97e-4, 4.84e-5, 1.19e-5 J (BDF2), 7.39e-5, 1.82e-5,
 * 4.49e-6 J (esdirk4) of W_m = 0.214 J; motor 1.79e-4, 3.94e-5, 8.47e-6 J
 * and 3.89e-5, 9.56e-6, 2.35e-6 J of 0.047 J. The chain under
 * generalized-alpha, dt = 10 to 2.5 ms: tension 1.28e-5, 3.24e-6, 8.01e-7
 * J of 0.326 J, motor 9.06e-7, 2.26e-7, 5.67e-8 J of 0.0485 J: order
 * 2.00. Required: order above 1.8, the finest below 5e-4 of W_m. */
START_TEST(balance_closes_without_friction) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_energy");
  rod_scenario sc;
  const rod_scheme_kind schemes[2] = {ROD_SCHEME_BDF_ALPHA, ROD_SCHEME_ESDIRK4};
  for (int e = 0; e < 2; e++) /* the rod, the chain (its own scheme) */
    for (int m = 0; m < 2; m++)
      for (int q = 0; q < (e ? 1 : 2); q++) {
        char what[64];
        balance_run last;
        snprintf(what, sizeof what, "%s, %s%s", e ? "chain" : "rod",
                 m ? "motor" : "tension",
                 e   ? ""
                 : q ? ", esdirk4"
                     : ", BDF2");
        robot(&sc, dir, m, 0, e ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF,
              schemes[q]);
        converges(what, &sc, e ? 0.01 : 0.02, 1.8, 5e-4, &last);
        ck_assert(last.Wf == 0);
      }
  rod_test_rmdir(dir);
}
END_TEST

/* With friction beta = 2 and 4 s/m the balance closes with the friction
 * loads' own work (the rod under BDF2, dt 20 to 5 ms; the chain, 10 to
 * 2.5 ms): the residuals fall, at fitted orders 1.04 and 0.76 (rod,
 * tension: 9.94e-5, 5.27e-5, 2.34e-5 J and 1.19e-4, 1.12e-4, 4.15e-5 J),
 * 2.00 and 1.97 (rod, motor), 1.95 and 1.56 (chain, tension), 2.00 and
 * 1.92 (chain, motor), the finest below 4.4e-4 of W_m. W_f is negative in
 * every run, and its magnitude grows with beta on the motor's runs (rod
 * 10.3 -> 14.6 mJ, chain 7.4 -> 10.2 mJ) and the chain's tension ramp
 * (14.1 -> 22.0 mJ), not on the rod's tension ramp (29.9 -> 28.5 mJ: the
 * friction slows the sliding it is proportional to). Required: residuals
 * falling, the finest below 1e-3 of W_m, W_f < 0, and growing as
 * measured. */
START_TEST(friction_work) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_energy_friction");
  rod_scenario sc;
  const double betas[2] = {2, 4};
  double lost[2][2][2]; /* [beta][backend][motor] */
  for (int b = 0; b < 2; b++)
    for (int e = 0; e < 2; e++)
      for (int m = 0; m < 2; m++) {
        char what[64];
        balance_run last;
        snprintf(what, sizeof what, "%s, %s, beta %g", e ? "chain" : "rod",
                 m ? "motor" : "tension", betas[b]);
        robot(&sc, dir, m, betas[b],
              e ? ROD_BACKEND_RFEM : ROD_BACKEND_KIRCHHOFF,
              ROD_SCHEME_BDF_ALPHA);
        converges(what, &sc, e ? 0.01 : 0.02, 0.0, 1e-3, &last);
        ck_assert_msg(last.Wf < 0, "%s: W_f %.3g J", what, last.Wf);
        lost[b][e][m] = -last.Wf;
      }
  ck_assert(lost[1][0][1] > lost[0][0][1]); /* rod, motor */
  ck_assert(lost[1][1][0] > lost[0][1][0]); /* chain, tension */
  ck_assert(lost[1][1][1] > lost[0][1][1]); /* chain, motor */
  rod_test_rmdir(dir);
}
END_TEST

static Suite *tendon_energy_balance_suite(void) {
  Suite *s = suite_create("tendon_energy_balance");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, balance_closes_without_friction);
  tcase_add_test(tc, friction_work);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_energy_balance_suite)
