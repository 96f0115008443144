/* Statics of the Kirchhoff rod against known answers: Euler-Bernoulli for
 * small loads, the elastica for large tip loads, an independent planar
 * solution for the rod under its own weight, equilibrium of the clamp, and
 * invariance under a rigid rotation of the whole problem. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "elastica.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- independent references ------------------------------------------- */

/* Composite 5-point Gauss-Legendre of f on [a, b] with n panels. */
static double gauss(double (*f)(double, double), double p, double a, double b,
                    int n) {
  static const double x[5] = {0.0, 0.5384693101056831, -0.5384693101056831,
                              0.9061798459386640, -0.9061798459386640};
  static const double w[5] = {0.5688888888888889, 0.4786286704993665,
                              0.4786286704993665, 0.2369268850561891,
                              0.2369268850561891};
  double h = (b - a) / n, sum = 0;
  for (int i = 0; i < n; i++) {
    double c = a + (i + 0.5) * h;
    for (int k = 0; k < 5; k++)
      sum += w[k] * f(c + 0.5 * h * x[k], p);
  }
  return 0.5 * h * sum;
}

/* With a = sin(tip angle) and sin(theta) = a - u^2 the elastica integrals
 * become smooth: ds = sqrt(EI/2P) 2 du / cos(theta). */
static double i_len(double u, double a) {
  double s = a - u * u;
  return 2.0 / sqrt(1.0 - s * s);
}
static double i_defl(double u, double a) {
  double s = a - u * u;
  return 2.0 * s / sqrt(1.0 - s * s);
}

/* Cantilever elastica under a dead tip load P perpendicular to the clamp,
 * load parameter k = P L^2 / EI (Timoshenko & Gere; Bisshopp & Drucker).
 * Returns the tip angle and the tip coordinates along the clamp and along
 * the load, divided by L. */
static void elastica(double k, double *angle, double *along, double *defl) {
  double lo = 1e-12, hi = 1.0 - 1e-15;
  for (int it = 0; it < 200; it++) { /* L = sqrt(EI/2P) I_len(a) */
    double a = 0.5 * (lo + hi);
    double I = gauss(i_len, a, 0.0, sqrt(a), 400);
    if (I > sqrt(2.0 * k))
      hi = a;
    else
      lo = a;
  }
  double a = 0.5 * (lo + hi);
  *angle = asin(a);
  *along = sqrt(2.0 * a / k);
  *defl = gauss(i_defl, a, 0.0, sqrt(a), 400) / sqrt(2.0 * k);
}

/* ---- helpers ----------------------------------------------------------- */

typedef struct {
  double tip[3], quat[4], n0[3], m0[3];
  double kinetic, elastic, gravity;
  int points;
} static_result;

static int solve(const rod_scenario *sc, static_result *r) {
  void *self = NULL;
  rod_error err;
  int st = rod_backend_kirchhoff.create(sc, &self, &err);
  ck_assert_int_eq(st, ROD_OK);
  rod_step_stats ss;
  st = rod_backend_kirchhoff.solve_static(self, &ss);
  if (st == ROD_OK) {
    rod_sample s;
    rod_backend_kirchhoff.sample(self, &s);
    int N = s.points;
    r->points = N;
    memcpy(r->tip, s.position + 3 * (N - 1), sizeof r->tip);
    memcpy(r->quat, s.orientation + 4 * (N - 1), sizeof r->quat);
    memcpy(r->n0, s.force, sizeof r->n0);
    memcpy(r->m0, s.moment, sizeof r->m0);
    r->kinetic = s.kinetic;
    r->elastic = s.elastic;
    r->gravity = s.gravity;
  }
  rod_backend_kirchhoff.destroy(self);
  return st;
}

/* Horizontal cantilever along +x, weightless unless gravity is set. */
static void base_scenario(rod_scenario *sc, double EI, int nodes) {
  rod_scenario_default(sc);
  sc->rod.length = 1.0;
  sc->rod.has_bending_stiffness = true;
  sc->rod.bending_stiffness = EI;
  sc->environment.gravity[2] = 0.0;
  sc->space.nodes = nodes;
  sc->solver.tolerance = 1e-12;
}

/* Tip angle below the clamp direction from the tip quaternion: the tangent
 * d3 = R e3 = (2(xz + wy), 2(yz - wx), 1 - 2(x^2 + y^2)). */
static double tip_angle(const static_result *r) {
  const double *h = r->quat;
  double d3x = 2 * (h[1] * h[3] + h[0] * h[2]);
  double d3z = 1 - 2 * (h[1] * h[1] + h[2] * h[2]);
  return atan2(-d3z, d3x);
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(small_tip_load_matches_euler_bernoulli) {
  rod_scenario sc;
  base_scenario(&sc, 2.0, 40);
  double P = 2e-5; /* P L^2 / EI = 1e-5: nonlinear terms ~ 1e-10 */
  sc.tip.force[2] = -P;
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double expect = P / (3.0 * 2.0); /* P L^3 / 3 EI */
  ck_assert_msg(fabs(-r.tip[2] / expect - 1.0) < 1e-6, "tip %.9g vs %.9g",
                -r.tip[2], expect);
}
END_TEST

START_TEST(small_weight_matches_euler_bernoulli) {
  rod_scenario sc;
  base_scenario(&sc, 2.0, 40);
  sc.environment.gravity[2] = -9.81;
  sc.rod.density = 10.0; /* w L^3 / EI ~ 8e-5 */
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double d = sc.rod.diameter;
  double w = sc.rod.density * M_PI * d * d / 4 * 9.81;
  double expect = w / (8.0 * 2.0); /* w L^4 / 8 EI */
  ck_assert_msg(fabs(-r.tip[2] / expect - 1.0) < 1e-6, "tip %.9g vs %.9g",
                -r.tip[2], expect);
}
END_TEST

static void check_elastica(double k) {
  rod_scenario sc;
  base_scenario(&sc, 1.0, 60);
  sc.tip.force[2] = -k; /* EI = L = 1 */
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double angle, along, defl;
  elastica(k, &angle, &along, &defl);
  /* RK4 with 60 nodes: truncation error ~ 1e-8 of L */
  ROD_ASSERT_NEAR(r.tip[0], along, 1e-7);
  ROD_ASSERT_NEAR(-r.tip[2], defl, 1e-7);
  ROD_ASSERT_NEAR(tip_angle(&r), angle, 1e-7);
  ROD_ASSERT_NEAR(r.tip[1], 0.0, 1e-12);
}

START_TEST(elastica_load_1) { check_elastica(1.0); }
END_TEST
START_TEST(elastica_load_3) { check_elastica(3.0); }
END_TEST
START_TEST(elastica_load_10) { check_elastica(10.0); }
END_TEST

START_TEST(own_weight_large_deflection) {
  /* w L^3 / EI = 10: a strongly bent rod under its own weight */
  rod_scenario sc;
  base_scenario(&sc, 1.0, 60);
  double d = sc.rod.diameter, A = M_PI * d * d / 4;
  sc.environment.gravity[2] = -9.81;
  sc.rod.density = 10.0 / (A * 9.81);
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double defl, along;
  planar_cantilever(1.0, 0.0, 10.0, 1.0, &defl, &along);
  ROD_ASSERT_NEAR(-r.tip[2], defl, 1e-7);
  ROD_ASSERT_NEAR(r.tip[0], along, 1e-7);
}
END_TEST

START_TEST(weight_release_scenario_tip) {
  /* The shipped scenario: rod weight plus 20 g at the tip, RK4, 100 nodes;
   * the bar is 1e-5 m, the scheme does far better. */
  rod_scenario sc;
  rod_error err;
  char path[1024];
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double d = sc.rod.diameter, A = M_PI * d * d / 4;
  double w = sc.rod.density * A * 9.81, P = sc.tip.mass * 9.81;
  double defl, along;
  planar_cantilever(sc.rod.bending_stiffness, P, w, sc.rod.length, &defl,
                    &along);
  ROD_ASSERT_NEAR(-r.tip[2], defl, 1e-9);
  ROD_ASSERT_NEAR(r.tip[0], along, 1e-9);
  /* the linear estimate is about 9% off */
  double EI = sc.rod.bending_stiffness, L = sc.rod.length;
  double linear = P * L * L * L / (3 * EI) + w * L * L * L * L / (8 * EI);
  ck_assert(linear / defl - 1.0 > 0.08);
}
END_TEST

START_TEST(clamp_reaction_equals_total_load) {
  rod_scenario sc;
  base_scenario(&sc, 0.05, 30);
  sc.environment.gravity[2] = -9.81;
  sc.rod.density = 7800;
  sc.tip.mass = 0.01;
  sc.tip.force[1] = 0.02;
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double d = sc.rod.diameter, W = sc.rod.density * M_PI * d * d / 4 * 9.81;
  ROD_ASSERT_NEAR(r.n0[0], 0.0, 1e-13);
  ROD_ASSERT_NEAR(r.n0[1], 0.02, 1e-13);
  ROD_ASSERT_NEAR(r.n0[2], -(W * sc.rod.length + 0.01 * 9.81), 1e-13);
}
END_TEST

/* Rotate base direction and gravity by the same rotation: the answer
 * rotates. */
START_TEST(rotation_invariance) {
  rod_scenario a, b;
  base_scenario(&a, 0.05, 30);
  a.environment.gravity[2] = -9.81;
  a.rod.density = 7800;
  a.tip.mass = 0.005;
  static_result ra, rb;
  ck_assert_int_eq(solve(&a, &ra), ROD_OK);
  /* Q: rotation by 0.7 rad about the unit axis (1, 2, 2)/3 */
  double n[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, th = 0.7;
  double c = cos(th), s = sin(th), Q[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double K = 0;
      if (i != j) {
        int k = 3 - i - j;
        double sign = ((i + 1) % 3 == j) ? -1.0 : 1.0;
        K = sign * n[k];
      }
      Q[3 * i + j] = c * (i == j) + s * K + (1 - c) * n[i] * n[j];
    }
  b = a;
  for (int i = 0; i < 3; i++) {
    b.base.direction[i] = Q[3 * i + 0];
    b.environment.gravity[i] = Q[3 * i + 2] * -9.81;
    b.base.position[i] = 0.1 * (i + 1);
  }
  ck_assert_int_eq(solve(&b, &rb), ROD_OK);
  for (int i = 0; i < 3; i++) {
    double expect = b.base.position[i];
    for (int j = 0; j < 3; j++)
      expect += Q[3 * i + j] * ra.tip[j];
    ROD_ASSERT_NEAR(rb.tip[i], expect, 1e-12);
  }
  ROD_ASSERT_NEAR(rb.elastic, ra.elastic, 1e-12 * ra.elastic);
}
END_TEST

START_TEST(stiff_cosserat_matches_kirchhoff) {
  rod_scenario k;
  base_scenario(&k, 1.0, 40);
  k.tip.force[2] = -3.0;
  rod_scenario c = k;
  c.rod.model = ROD_MODEL_COSSERAT;
  c.rod.youngs_modulus = 1e16; /* EA, GA ~ 1e10 N: strains ~ 3e-10 */
  c.rod.shear_modulus = 1e16;
  static_result rk, rc;
  ck_assert_int_eq(solve(&k, &rk), ROD_OK);
  ck_assert_int_eq(solve(&c, &rc), ROD_OK);
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(rc.tip[i], rk.tip[i], 1e-8);
}
END_TEST

START_TEST(cosserat_extension) {
  /* a hanging Cosserat rod stretches by F L / EA under a tip load */
  rod_scenario c;
  base_scenario(&c, 1.0, 20);
  c.rod.model = ROD_MODEL_COSSERAT;
  c.base.direction[0] = 0;
  c.base.direction[2] = -1;
  double F = 50.0;
  c.tip.force[2] = -F;
  c.rod.youngs_modulus = 1e8;
  static_result r;
  ck_assert_int_eq(solve(&c, &r), ROD_OK);
  double d = c.rod.diameter, EA = 1e8 * M_PI * d * d / 4;
  ROD_ASSERT_NEAR(-r.tip[2] - 1.0, F / EA, 1e-12);
  /* elastic energy F^2 L / (2 EA) */
  ROD_ASSERT_NEAR(r.elastic, F * F / (2 * EA), 1e-9 * F * F / EA);
}
END_TEST

START_TEST(small_load_elastic_energy) {
  /* linear limit: U = P^2 L^3 / (6 EI) */
  rod_scenario sc;
  base_scenario(&sc, 2.0, 30);
  sc.tip.force[2] = -1e-4;
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  double U = 1e-8 / (6.0 * 2.0);
  ck_assert_msg(fabs(r.elastic / U - 1) < 1e-6, "U %.9g vs %.9g", r.elastic, U);
}
END_TEST

/* ---- soft rods --------------------------------------------------------- */

/* A rod clamped along +x hanging under its own weight, W = w L^3 / EI from
 * 500 to 5000, where its static solutions grow by exp(2/3 sqrt W) =
 * exp(15) to exp(47) along it (simple shooting resolves exp(15)): the tip
 * (x, z) / L by validation/hanging_rod.py, collocation by SciPy's
 * solve_bvp at a residual of 1e-10 in the angle form (the Kirchhoff rod,
 * e = g = 0; the Cosserat rod with e = EI / (EA L^2) = 1e-5 and g = EI /
 * (kappa G A L^2) = 2.6e-5, stretched by 1.7 % at the tip). */
typedef struct {
  double W, e, g, x, z;
} hanging_ref;

static const hanging_ref hanging[] = {
    {500, 0, 0, 0.0658900366153, -0.9731170002663},
    {1000, 0, 0, 0.0459864547569, -0.9811412692687},
    {2000, 0, 0, 0.0322376837429, -0.9867369215022},
    {5000, 0, 0, 0.0202402338112, -0.9916508681258},
    {5000, 1e-5, 2.6e-5, 0.0198424584529, -1.0174013924946},
};

/* The hanging rod of ref on n nodes, L = 1 m, EI = 1 N m^2. */
static void hanging_scenario(rod_scenario *sc, const hanging_ref *ref, int n) {
  base_scenario(sc, 1.0, n);
  const double d = sc->rod.diameter, A = M_PI * d * d / 4;
  sc->environment.gravity[2] = -9.81;
  sc->rod.density = ref->W / (A * 9.81);
  if (ref->e > 0) {
    sc->rod.model = ROD_MODEL_COSSERAT;
    sc->rod.youngs_modulus = 1.0 / (ref->e * A);
    sc->rod.shear_modulus = 1.0 / (ref->g * A);
    sc->rod.shear_coefficient = 1.0;
    sc->rod.has_shear_coefficient = true;
  }
}

/* On 401 nodes RK4's error at W = 5000 is 6e-8 L (801: 4e-9 L, fourth
 * order); required 1e-6 L. */
static void check_hanging(const hanging_ref *ref) {
  rod_scenario sc;
  hanging_scenario(&sc, ref, 401);
  static_result r;
  ck_assert_int_eq(solve(&sc, &r), ROD_OK);
  ck_assert_msg(fabs(r.tip[0] - ref->x) < 1e-6 &&
                    fabs(r.tip[2] - ref->z) < 1e-6 && fabs(r.tip[1]) < 1e-12,
                "W = %g: tip %.12g %.12g, reference %.12g %.12g", ref->W,
                r.tip[0], r.tip[2], ref->x, ref->z);
}

START_TEST(soft_rod_hanging) { check_hanging(&hanging[_i]); }
END_TEST

/* The clamp carries the whole weight and the state is the stable one. */
START_TEST(soft_rod_clamp_and_stability) {
  rod_scenario sc;
  hanging_scenario(&sc, &hanging[3], 401);
  void *self = NULL;
  rod_error err;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &self, &err), ROD_OK);
  rod_step_stats ss;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(self, &ss), ROD_OK);
  rod_static_report rep;
  rod_backend_kirchhoff.static_report(self, &rep);
  ck_assert_int_eq(rep.stable, 1);
  rod_sample s;
  rod_backend_kirchhoff.sample(self, &s);
  ROD_ASSERT_NEAR(s.force[2], -5000.0, 1e-9);
  rod_backend_kirchhoff.destroy(self);
}
END_TEST

/* The static solve's progress (rod_sim_static_progress), read from another
 * thread while the soft rod at w L^3 / EI = 5000 solves on auto's 4000
 * points (14 load steps): every value -1 (before the path) or a share of
 * the loads in [0, 1], the shares never falling, 1 once solved; a share
 * strictly between 0 and 1 seen when the reader ran 20 times or more
 * during the solve. */
typedef struct {
  rod_sim *sim;
  atomic_bool done;
  int reads, bad, fell, between;
} progress_reader;

static void *read_progress(void *arg) {
  progress_reader *r = arg;
  double last = -1;
  while (!atomic_load(&r->done)) {
    const double f = rod_sim_static_progress(r->sim);
    r->reads++;
    if (!(f == -1 || (f >= 0 && f <= 1)))
      r->bad++;
    if (f >= 0 && f < last)
      r->fell++;
    if (f > 0 && f < 1)
      r->between++;
    last = f >= 0 ? f : last;
    nanosleep(&(struct timespec){0, 200000}, NULL);
  }
  return NULL;
}

START_TEST(soft_rod_static_progress) {
  rod_scenario sc;
  hanging_scenario(&sc, &hanging[3], 0);
  sc.solver.tolerance = 1e-8;
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ck_assert(rod_sim_static_progress(sim) == -1);
  progress_reader r = {.sim = sim};
  atomic_init(&r.done, false);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, read_progress, &r), 0);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  atomic_store(&r.done, true);
  pthread_join(th, NULL);
  ck_assert_msg(r.bad == 0 && r.fell == 0, "%d reads: %d bad, %d fell", r.reads,
                r.bad, r.fell);
  ck_assert_msg(r.reads < 20 || r.between > 0, "%d reads, none between 0 and 1",
                r.reads);
  ck_assert(rod_sim_static_progress(sim) == 1);
  ck_assert(rod_sim_static_progress(NULL) == -1);
  rod_sim_free(sim);
}
END_TEST

static Suite *statics_suite(void) {
  Suite *s = suite_create("statics");
  TCase *tc = tcase_create("known answers");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, small_tip_load_matches_euler_bernoulli);
  tcase_add_test(tc, small_weight_matches_euler_bernoulli);
  tcase_add_test(tc, elastica_load_1);
  tcase_add_test(tc, elastica_load_3);
  tcase_add_test(tc, elastica_load_10);
  tcase_add_test(tc, own_weight_large_deflection);
  tcase_add_test(tc, weight_release_scenario_tip);
  tcase_add_test(tc, clamp_reaction_equals_total_load);
  tcase_add_test(tc, rotation_invariance);
  tcase_add_test(tc, stiff_cosserat_matches_kirchhoff);
  tcase_add_test(tc, cosserat_extension);
  tcase_add_test(tc, small_load_elastic_energy);
  tcase_add_loop_test(tc, soft_rod_hanging, 0,
                      (int)(sizeof hanging / sizeof hanging[0]));
  tcase_add_test(tc, soft_rod_clamp_and_stability);
  tcase_add_test(tc, soft_rod_static_progress);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(statics_suite)
