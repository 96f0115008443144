/* Dynamics of the Kirchhoff/Cosserat backend against known answers:
 * Euler-Bernoulli frequencies, the BDF-alpha scheme's own frequency and
 * damping, energy balance, rest states, orders of convergence in time and
 * space. Modal coordinates are projections of the transverse displacement
 * on the Euler-Bernoulli mode shapes, which are mass-orthogonal, so each
 * mode is measured without the others. */
#include <string.h>

#include "integrators/dirk.h"
#include "modalutil.h"
#include "rod/recorder.h"
#include "rod/sim.h"
#include "testutil.h"

static const double beta_L[3] = {1.875104068711961, 4.694091132974175,
                                 7.854757438237613};

/* Steel rod along +x, no gravity, no damping or drag. */
static void test_rod(rod_scenario *sc, double L, int nodes, double dt,
                     double duration) {
  rod_scenario_default(sc);
  sc->rod.length = L;
  sc->environment.gravity[2] = 0.0;
  sc->space.nodes = nodes;
  sc->time.dt = dt;
  sc->time.duration = duration;
  sc->solver.tolerance = 1e-11;
}

static double rho_area(const rod_scenario *sc) {
  double d = sc->rod.diameter;
  return sc->rod.density * M_PI * d * d / 4;
}
static double bending_stiffness(const rod_scenario *sc) {
  double d = sc->rod.diameter;
  return sc->rod.youngs_modulus * M_PI * d * d * d * d / 64;
}

/* Euler-Bernoulli angular frequency of mode n (0-based), rad/s. */
static double eb_omega(const rod_scenario *sc, int n) {
  double L = sc->rod.length, b = beta_L[n] / L;
  return b * b * sqrt(bending_stiffness(sc) / rho_area(sc));
}

/* Grid fine enough for the step's dynamic length scale: the time-discrete
 * rod varies along s like exp(k s / sqrt 2) with k^4 = rhoA c0^2 / EI, and
 * RK4's error grows like (k h)^4, so k h = 0.1 keeps it near 1e-6. */
static int nodes_for(const rod_scenario *sc) {
  double c0 = (1.5 + sc->time.alpha) / (sc->time.dt * (1 + sc->time.alpha));
  double k = pow(rho_area(sc) * c0 * c0 / bending_stiffness(sc), 0.25);
  return (int)ceil(k * sc->rod.length / 0.1) + 1;
}

static double mode_shape(double s, double L, int n) {
  double b = beta_L[n] / L, bl = beta_L[n];
  double sigma = (cosh(bl) + cos(bl)) / (sinh(bl) + sin(bl));
  return cosh(b * s) - cos(b * s) - sigma * (sinh(b * s) - sin(b * s));
}

static rod_recorder *simulate(const rod_scenario *sc, bool keep_rod) {
  rod_recorder *r = rod_recorder_alloc(sc, keep_rod);
  ck_assert_ptr_nonnull(r);
  rod_sim_sink sink = rod_recorder_sink(r);
  rod_sim_result res;
  rod_error err;
  int st = rod_sim_run(sc, &sink, false, &res, &err);
  ck_assert_msg(st == ROD_OK, "run failed: %s", res.message);
  return r;
}

/* Modal coordinate of mode n of the z displacement at every sample: the
 * projection on the Euler-Bernoulli mode shape. */
static void modal(const rod_recorder *r, int n, double *q) {
  int N = r->points;
  double L = r->s[N - 1], norm = 0;
  double *w = malloc(N * sizeof(double)), *phi = malloc(N * sizeof(double));
  quadrature_weights(r->s, N, w);
  for (int j = 0; j < N; j++) {
    phi[j] = mode_shape(r->s[j], L, n);
    norm += w[j] * phi[j] * phi[j];
  }
  for (int i = 0; i < r->count; i++) {
    const double *p = r->rod + (size_t)i * N * 3;
    double acc = 0;
    for (int j = 0; j < N; j++)
      acc += w[j] * phi[j] * p[3 * j + 2];
    q[i] = acc / norm;
  }
  free(w);
  free(phi);
}

/* ---- frequencies -------------------------------------------------------- */

START_TEST(first_mode_matches_euler_bernoulli) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 30, 1e-3, 0.8);
  sc.time.alpha = -0.5;
  sc.space.nodes = nodes_for(&sc);
  sc.tip.preload[2] = -1e-5; /* released at t = 0: tiny amplitude */
  rod_recorder *r = simulate(&sc, true);
  double *q = malloc(r->count * sizeof(double));
  modal(r, 0, q);
  double theta, rho;
  prony(q, 5, r->count, eb_omega(&sc, 0) * sc.time.dt, &theta, &rho);
  double w = theta / sc.time.dt, w_eb = eb_omega(&sc, 0);
  /* the bar: 0.1% from Euler-Bernoulli */
  ck_assert_msg(fabs(w / w_eb - 1) < 1e-3, "w %.9g vs EB %.9g", w, w_eb);
  /* and the trapezoidal rule's own frequency shift, closely */
  double w_disc = carg(bdf_root(-0.5, sc.time.dt, w_eb)) / sc.time.dt;
  ck_assert_msg(fabs(w / w_disc - 1) < 2e-6, "w %.9g vs scheme %.9g", w,
                w_disc);
  ROD_ASSERT_NEAR(rho, 1.0, 1e-6); /* no damping: no decay */
  free(q);
  rod_recorder_free(r);
}
END_TEST

START_TEST(second_and_third_modes_from_impulse) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 40, 2e-3, 0.4);
  sc.time.alpha = -0.48;
  sc.impulse.enabled = true;
  sc.impulse.peak = 1e-3;
  sc.impulse.duration = 4e-3;
  sc.impulse.position = 0.05;
  sc.space.nodes = nodes_for(&sc);
  rod_recorder *r = simulate(&sc, true);
  double *q = malloc(r->count * sizeof(double));
  for (int n = 1; n <= 2; n++) {
    modal(r, n, q);
    double theta, rho;
    double w_eb = eb_omega(&sc, n);
    prony(q, 10, r->count, w_eb * sc.time.dt, &theta, &rho);
    double complex z = bdf_root(sc.time.alpha, sc.time.dt, w_eb);
    double w = theta / sc.time.dt, w_disc = carg(z) / sc.time.dt;
    /* the scheme shifts these modes by percents at 2 ms: compare with its
     * discrete frequency and decay, not with Euler-Bernoulli */
    ck_assert_msg(fabs(w / w_eb - 1) > 5e-3, "mode %d not shifted", n + 1);
    ck_assert_msg(fabs(w / w_disc - 1) < 2e-4, "mode %d: w %.8g vs %.8g", n + 1,
                  w, w_disc);
    ck_assert_msg(fabs(rho - cabs(z)) < 2e-4, "mode %d: decay %.8g vs %.8g",
                  n + 1, rho, cabs(z));
  }
  free(q);
  rod_recorder_free(r);
}
END_TEST

/* Period error and numerical damping of BDF-alpha for alpha = -0.5, -0.48
 * and 0 at a coarse step (w dt = 0.2). */
START_TEST(bdf_alpha_period_and_damping) {
  const double alphas[3] = {-0.5, -0.48, 0.0};
  for (int k = 0; k < 3; k++) {
    rod_scenario sc;
    test_rod(&sc, 0.4, 30, 5e-3, 1.0);
    sc.time.alpha = alphas[k];
    sc.space.nodes = nodes_for(&sc);
    sc.tip.preload[2] = -1e-5;
    rod_recorder *r = simulate(&sc, true);
    double *q = malloc(r->count * sizeof(double));
    modal(r, 0, q);
    double theta, rho;
    prony(q, 8, r->count, eb_omega(&sc, 0) * sc.time.dt, &theta, &rho);
    double complex z = bdf_root(alphas[k], sc.time.dt, eb_omega(&sc, 0));
    ck_assert_msg(fabs(theta / carg(z) - 1) < 1e-5,
                  "alpha %g: theta %.9g vs %.9g", alphas[k], theta, carg(z));
    ck_assert_msg(fabs(rho - cabs(z)) < 1e-6, "alpha %g: rho %.9g vs %.9g",
                  alphas[k], rho, cabs(z));
    free(q);
    rod_recorder_free(r);
  }
}
END_TEST

/* ---- energy ------------------------------------------------------------- */

static double total_energy(const rod_recorder *r, int i) {
  return r->kinetic[i] + r->elastic[i] + r->gravity[i];
}

START_TEST(energy_conserved_trapezoid) {
  /* large-amplitude weight release, alpha = -0.5, no damping or drag */
  rod_scenario sc;
  test_rod(&sc, 0.4, 40, 2e-3, 0.5);
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.02;
  sc.time.alpha = -0.5;
  rod_recorder *r = simulate(&sc, false);
  double e1 = total_energy(r, 1), emax = e1, emin = e1;
  double scale = r->elastic[0]; /* energy released into motion */
  for (int i = 1; i < r->count; i++) {
    double e = total_energy(r, i);
    emax = fmax(emax, e);
    emin = fmin(emin, e);
  }
  ck_assert_msg((emax - emin) / scale < 1e-3,
                "energy varies by %.3g of the elastic energy %.3g",
                (emax - emin) / scale, scale);
  rod_recorder_free(r);
}
END_TEST

START_TEST(energy_never_rises_with_dissipation) {
  const double alphas[2] = {-0.5, -0.48};
  for (int k = 0; k < 2; k++) {
    for (int which = 0; which < 2; which++) {
      rod_scenario sc;
      test_rod(&sc, 0.4, 30, 2e-3, 0.3);
      sc.environment.gravity[2] = -9.81;
      sc.tip.mass = 0.02;
      sc.time.alpha = alphas[k];
      if (which == 0)
        sc.rod.drag = 0.01;
      else
        sc.rod.bending_damping = 1e-4;
      rod_recorder *r = simulate(&sc, false);
      double e0 = total_energy(r, 1);
      for (int i = 2; i < r->count; i++) {
        double rise = total_energy(r, i) - total_energy(r, i - 1);
        ck_assert_msg(rise <= 1e-9 * fabs(e0),
                      "alpha %g %s: energy rose by %.3g at t = %g", alphas[k],
                      which ? "damping" : "drag", rise, r->t[i]);
      }
      rod_recorder_free(r);
    }
  }
}
END_TEST

/* ---- rest states -------------------------------------------------------- */

START_TEST(nothing_moves_without_release) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 30, 2e-3, 0.1);
  sc.environment.gravity[2] = -9.81;
  sc.time.alpha = -0.48;
  /* The static state is a fixed point of the time-discrete scheme up to
   * RK4's error (k h)^4 (see nodes_for): resolve k. */
  sc.space.nodes = nodes_for(&sc);
  sc.solver.tolerance = 1e-13;
  rod_recorder *r = simulate(&sc, false);
  for (int i = 1; i < r->count; i++) {
    for (int c = 0; c < 3; c++)
      ROD_ASSERT_NEAR(r->tip[3 * i + c], r->tip[c], 1e-12);
    ck_assert(r->kinetic[i] < 1e-20);
  }
  rod_recorder_free(r);
}
END_TEST

START_TEST(damping_settles_on_static_state) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 30, 5e-3, 2.0);
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.01;
  /* retardation 20 ms: mode 1 damping ratio ~0.4 */
  sc.rod.bending_damping = 0.02 * bending_stiffness(&sc);
  sc.space.nodes = nodes_for(&sc);
  sc.output.every = 400;
  rod_recorder *r = simulate(&sc, false);
  rod_scenario rest = sc;
  rest.tip.mass = 0.0;
  rod_recorder *s = rod_recorder_alloc(&rest, false);
  rod_sim_sink sink = rod_recorder_sink(s);
  rod_sim_result res;
  rod_error err;
  ck_assert_int_eq(rod_sim_run(&rest, &sink, true, &res, &err), ROD_OK);
  int last = r->count - 1;
  for (int c = 0; c < 3; c++)
    ROD_ASSERT_NEAR(r->tip[3 * last + c], s->tip[c], 1e-9);
  rod_recorder_free(r);
  rod_recorder_free(s);
}
END_TEST

START_TEST(stiff_cosserat_follows_kirchhoff) {
  rod_scenario k;
  test_rod(&k, 0.4, 30, 2e-3, 0.1);
  k.environment.gravity[2] = -9.81;
  k.tip.mass = 0.02;
  rod_scenario c = k;
  c.rod.model = ROD_MODEL_COSSERAT;
  c.rod.has_bending_stiffness = true;
  c.rod.bending_stiffness = bending_stiffness(&k);
  c.rod.youngs_modulus = 1e17; /* EA, GA ~ 1e11 N */
  c.rod.shear_modulus = 1e17;
  rod_recorder *rk = simulate(&k, false), *rc = simulate(&c, false);
  ck_assert_int_eq(rk->count, rc->count);
  for (int i = 0; i < rk->count; i++)
    for (int j = 0; j < 3; j++)
      ROD_ASSERT_NEAR(rc->tip[3 * i + j], rk->tip[3 * i + j], 1e-8);
  rod_recorder_free(rk);
  rod_recorder_free(rc);
}
END_TEST

/* ---- orders of convergence --------------------------------------------- */

/* Tip z at time T after releasing a tip mass, for a stiffer, shorter rod;
 * for the orders in space. */
static double release_tip(double dt, double T, rod_startup_kind startup,
                          int nodes, rod_space_kind integ,
                          rod_history_kind hist) {
  rod_scenario sc;
  test_rod(&sc, 0.3, nodes, dt, T);
  sc.rod.diameter = 3e-3;
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.1;
  sc.time.startup = startup;
  sc.space.integrator = integ;
  sc.space.history = hist;
  sc.solver.tolerance = 1e-13;
  sc.output.every = 1000000;
  rod_recorder *r = simulate(&sc, false);
  double z = r->tip[3 * (r->count - 1) + 2];
  rod_recorder_free(r);
  return z;
}

/* order from three results at h, h/2, h/4 */
static double order3(double a, double b, double c) {
  return log(fabs(a - b) / fabs(b - c)) / log(2.0);
}

/* Mode-1 coordinate after a small tip preload is released, at the times of
 * a run with step 2 ms (every `stride`-th sample). A point load's static
 * shape holds every mode, and the modes with w dt near 1 converge slowly
 * (their phase error grows like (w dt)^2 w t), so the order in time is
 * measured on the mode-1 coordinate, which the projection separates from
 * the others, in the maximum norm over the run. */
static void release_mode1(int level, double T, rod_startup_kind startup,
                          rod_scheme_kind scheme, double *out, int nout) {
  rod_scenario sc;
  test_rod(&sc, 0.4, 100, 2e-3 / (1 << level), T);
  sc.tip.preload[2] = -1e-5;
  sc.time.startup = startup;
  sc.time.scheme = scheme;
  sc.space.history = ROD_HISTORY_STAGE;
  sc.solver.tolerance = 1e-12;
  rod_recorder *r = simulate(&sc, true);
  double *q = malloc(r->count * sizeof(double));
  modal(r, 0, q);
  for (int i = 0; i < nout; i++)
    out[i] = q[i << level];
  free(q);
  rod_recorder_free(r);
}

static double time_order(rod_startup_kind startup, rod_scheme_kind scheme,
                         int first) {
  const double T = 0.32;
  enum { n = 161 };
  double q[3][n];
  for (int level = 0; level < 3; level++)
    release_mode1(first + level, T, startup, scheme, q[level], n);
  double d1 = 0, d2 = 0;
  for (int i = 0; i < n; i++) {
    d1 = fmax(d1, fabs(q[0][i] - q[1][i]));
    d2 = fmax(d2, fabs(q[1][i] - q[2][i]));
  }
  return log(d1 / d2) / log(2.0);
}

START_TEST(second_order_in_time_after_release) {
  double p = time_order(ROD_STARTUP_EULER, ROD_SCHEME_BDF_ALPHA, 0);
  ck_assert_msg(fabs(p - 2.0) < 0.05, "order %.3f with a backward-Euler start",
                p);
  p = time_order(ROD_STARTUP_PAPER, ROD_SCHEME_BDF_ALPHA, 0);
  /* first order, with a second-order part still visible at 2 ms */
  ck_assert_msg(fabs(p - 1.0) < 0.2, "order %.3f with the paper's start", p);
}
END_TEST

/* The Runge-Kutta schemes (time.scheme) on the same measure. esdirk3 is
 * third order; the fourth-order ones are not measured so: with a larger
 * preload (1e-2 N, far above the solver's noise) all give about 2 on the
 * mode-1 coordinate at 1, 0.5, 0.25 ms, because they damp the modes with
 * w dt > 1 fully, and how much of those the projection picks up changes
 * with dt at that rate (their own step is checked below, through the
 * stability function). */
START_TEST(runge_kutta_orders_in_time_after_release) {
  double p = time_order(ROD_STARTUP_EULER, ROD_SCHEME_ESDIRK3, 0);
  ck_assert_msg(fabs(p - 3.0) < 0.1, "esdirk3: order %.3f", p);
}
END_TEST

/* Each Runge-Kutta table on the rod: mode 1 after a release turns and
 * decays per step exactly as the table's stability function R(i w dt)
 * says (w from Euler-Bernoulli; the grid resolves the step's length
 * scale, k h = 0.1), at w dt = 0.4 (esdirk3) and 1 (the fourth- and
 * fifth-order ones), where the schemes' own phase errors or damping are
 * far above what is checked. */
START_TEST(runge_kutta_period_and_damping) {
  const rod_scheme_kind schemes[4] = {ROD_SCHEME_ESDIRK3, ROD_SCHEME_ESDIRK4,
                                      ROD_SCHEME_SDIRK4, ROD_SCHEME_ESDIRK5};
  for (int k = 0; k < 4; k++) {
    rod_scenario sc;
    test_rod(&sc, 0.4, 30, k == 0 ? 1e-2 : 2.5e-2, 2.0);
    sc.time.scheme = schemes[k];
    const rod_dirk_table *t = rod_dirk_for(schemes[k]);
    double c0 = fmax(rod_dirk_c0(t, sc.time.dt),
                     rod_dirk_c0(&rod_dirk_sdirk4, sc.time.dt));
    double kk = pow(rho_area(&sc) * c0 * c0 / bending_stiffness(&sc), 0.25);
    sc.space.nodes = (int)ceil(kk * sc.rod.length / 0.1) + 1;
    sc.tip.preload[2] = -1e-5;
    rod_recorder *r = simulate(&sc, true);
    double *q = malloc(r->count * sizeof(double));
    modal(r, 0, q);
    double theta, rho, re, im;
    const double wdt = eb_omega(&sc, 0) * sc.time.dt;
    prony(q, 8, r->count, wdt, &theta, &rho);
    rod_dirk_stability(t, 0, wdt, &re, &im);
    const double complex z = re + I * im;
    ck_assert_msg(fabs(theta / wdt - 1) > 1e-4 || cabs(z) < 1 - 1e-5,
                  "%s: the scheme's own error is not visible", t->name);
    ck_assert_msg(fabs(theta / carg(z) - 1) < 1e-5, "%s: theta %.9g vs %.9g",
                  t->name, theta, carg(z));
    ck_assert_msg(fabs(rho - cabs(z)) < 1e-6, "%s: rho %.9g vs %.9g", t->name,
                  rho, cabs(z));
    free(q);
    rod_recorder_free(r);
  }
}
END_TEST

START_TEST(space_orders) {
  const double T = 0.01, dt = 2e-3;
  double z[3];
  for (int i = 0; i < 3; i++)
    z[i] = release_tip(dt, T, ROD_STARTUP_EULER, 8 * (1 << i) + 1,
                       ROD_SPACE_RK4, ROD_HISTORY_HERMITE);
  double p = order3(z[0], z[1], z[2]);
  ck_assert_msg(fabs(p - 4.0) < 0.4, "RK4 + Hermite history: order %.3f", p);
  for (int i = 0; i < 3; i++)
    z[i] = release_tip(dt, T, ROD_STARTUP_EULER, 16 * (1 << i) + 1,
                       ROD_SPACE_RK4, ROD_HISTORY_STAGE);
  p = order3(z[0], z[1], z[2]);
  ck_assert_msg(fabs(p - 4.0) < 0.2, "RK4 + stage history: order %.3f", p);
  for (int i = 0; i < 3; i++)
    z[i] = release_tip(dt, T, ROD_STARTUP_EULER, 8 * (1 << i) + 1,
                       ROD_SPACE_RK4, ROD_HISTORY_LINEAR);
  p = order3(z[0], z[1], z[2]);
  ck_assert_msg(fabs(p - 2.0) < 0.4, "RK4 + linear history: order %.3f", p);
  for (int i = 0; i < 3; i++)
    z[i] = release_tip(dt, T, ROD_STARTUP_EULER, 40 * (1 << i) + 1,
                       ROD_SPACE_EULER, ROD_HISTORY_HERMITE);
  p = order3(z[0], z[1], z[2]);
  ck_assert_msg(fabs(p - 1.0) < 0.2, "Euler: order %.3f", p);
}
END_TEST

static Suite *dynamics_suite(void) {
  Suite *s = suite_create("dynamics");
  TCase *f = tcase_create("frequencies");
  tcase_set_timeout(f, 60);
  tcase_add_test(f, first_mode_matches_euler_bernoulli);
  tcase_add_test(f, second_and_third_modes_from_impulse);
  tcase_add_test(f, bdf_alpha_period_and_damping);
  suite_add_tcase(s, f);
  TCase *e = tcase_create("energy");
  tcase_set_timeout(e, 60);
  tcase_add_test(e, energy_conserved_trapezoid);
  tcase_add_test(e, energy_never_rises_with_dissipation);
  suite_add_tcase(s, e);
  TCase *r = tcase_create("rest");
  tcase_set_timeout(r, 60);
  tcase_add_test(r, nothing_moves_without_release);
  tcase_add_test(r, damping_settles_on_static_state);
  tcase_add_test(r, stiff_cosserat_follows_kirchhoff);
  suite_add_tcase(s, r);
  TCase *o = tcase_create("orders");
  tcase_set_timeout(o, 60);
  tcase_add_test(o, second_order_in_time_after_release);
  tcase_add_test(o, space_orders);
  tcase_add_test(o, runge_kutta_orders_in_time_after_release);
  tcase_add_test(o, runge_kutta_period_and_damping);
  suite_add_tcase(s, o);
  return s;
}

ROD_TEST_MAIN(dynamics_suite)
