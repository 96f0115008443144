/* The RFEM backend's geometry and statics against known answers: the
 * layouts' points and frames, the chain's own exact static equilibrium (a
 * backward march), the Euler-Bernoulli sums of the discrete chain, the
 * elastica by elliptic integrals, the Kirchhoff backend, the impulse's
 * material point and the internal forces' balance. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/v3.h"
#include "rfemutil.h"

/* ---- the chain's own exact statics --------------------------------------
 * Planar chain along +x, dead downward loads: element weights W_e at the
 * element centres and P at the tip. With absolute angles theta_e (downward
 * positive) the joint before element e carries the moment of everything
 * beyond it, k (theta_e - theta_(e-1)) = M_e, M_e = M_(e+1) + (W_beyond +
 * W_e / 2) l_e cos(theta_e). Marching back from a guessed tip angle gives
 * the clamp angle, which bisection drives to 0. */
static void exact_chain_tip(int n, bool centered, double L, double k, double w,
                            double P, double *x, double *z) {
  double len[1024], th[1024];
  int m = 0;
  const double l = L / n;
  if (centered)
    len[m++] = 0.5 * l; /* fixed to the clamp */
  for (int j = 1; j <= n; j++)
    len[m++] = (centered && j == n) ? 0.5 * l : l;
  const int first_joint = centered ? 1 : 0;
  double lo = 0.0, hi = 0.5 * M_PI - 1e-9;
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi), M = 0, W = P, theta = mid;
    for (int e = m - 1; e >= first_joint; e--) {
      th[e] = theta;
      double We = w * len[e];
      M += (W + 0.5 * We) * len[e] * cos(theta);
      W += We;
      theta -= M / k;
    }
    if (centered)
      th[0] = 0.0;
    if (theta > 0) /* the clamp end turned down: the tip angle is too big */
      hi = mid;
    else
      lo = mid;
  }
  *x = *z = 0;
  for (int e = 0; e < m; e++) {
    *x += len[e] * cos(th[e]);
    *z -= len[e] * sin(th[e]);
  }
}

/* ---- the elastica by elliptic integrals ---------------------------------
 * Cantilever under a dead tip load P perpendicular to the clamp, load
 * parameter a = P L^2 / EI (Bisshopp & Drucker 1945): with the tip angle t0,
 * kk^2 = (1 + sin t0)/2 and sin f1 = 1 / (sqrt 2 kk),
 *   sqrt(a) = F(kk) - F(f1, kk),  x/L = sqrt(2 sin t0 / a),
 *   deflection / L = 1 - 2 (E(kk) - E(f1, kk)) / sqrt(a).
 * The incomplete integrals from f1 to pi/2 have smooth integrands (kk < 1):
 * composite 4-point Gauss-Legendre converges to round-off. */
static double ellip_from(double f1, double kk, bool second) {
  static const double node[2] = {0.3399810435848563, 0.8611363115940526};
  static const double weight[2] = {0.6521451548625461, 0.3478548451374538};
  const int panels = 200;
  double h = (0.5 * M_PI - f1) / panels, sum = 0;
  for (int i = 0; i < panels; i++) {
    double c = f1 + (i + 0.5) * h;
    for (int j = 0; j < 2; j++)
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        double s = sin(c + sgn * 0.5 * h * node[j]);
        double root = sqrt(1 - kk * kk * s * s);
        sum += weight[j] * (second ? root : 1.0 / root);
      }
  }
  return 0.5 * h * sum;
}

static void elastica(double a, double *x, double *defl) {
  double lo = 1e-9, hi = 0.5 * M_PI - 1e-9, t0 = 0;
  for (int it = 0; it < 100; it++) {
    t0 = 0.5 * (lo + hi);
    double kk = sqrt(0.5 * (1 + sin(t0))), f1 = asin(1.0 / (sqrt(2.0) * kk));
    if (ellip_from(f1, kk, false) > sqrt(a))
      hi = t0;
    else
      lo = t0;
  }
  double kk = sqrt(0.5 * (1 + sin(t0))), f1 = asin(1.0 / (sqrt(2.0) * kk));
  *x = sqrt(2 * sin(t0) / a);
  *defl = 1 - 2 * ellip_from(f1, kk, true) / sqrt(a);
}

/* ---- geometry ----------------------------------------------------------- */

START_TEST(layout_points_and_frames) {
  for (int lay = 0; lay < 2; lay++)
    for (int planar = 0; planar < 2; planar++) {
      rod_scenario sc;
      cantilever(&sc, 7, lay, planar);
      /* clamp pointing down: R(0) is the half turn about y */
      v3_set(sc.base.direction, 0, 0, -1);
      v3_set(sc.base.position, 0.1, 0.2, 0.3);
      rod_rfem *r = make(&sc);
      solve_static(r);
      rod_sample s;
      rod_backend_rfem.sample(r, &s);
      const int n = 7;
      ck_assert_int_eq(s.points, lay == ROD_LAYOUT_CENTERED ? n + 2 : n + 1);
      for (int p = 0; p < s.points; p++) {
        double expect;
        if (p == s.points - 1)
          expect = 1.0;
        else if (lay == ROD_LAYOUT_CENTERED)
          expect = p == 0 ? 0.0 : (p - 0.5) / n;
        else
          expect = (double)p / n;
        ROD_ASSERT_NEAR(s.s[p], expect, 1e-15);
        ROD_ASSERT_NEAR(s.position[3 * p + 0], 0.1, 1e-15);
        ROD_ASSERT_NEAR(s.position[3 * p + 1], 0.2, 1e-15);
        ROD_ASSERT_NEAR(s.position[3 * p + 2], 0.3 - expect, 1e-15);
        const double *h = s.orientation + 4 * p; /* (0, 0, 1, 0) */
        ROD_ASSERT_NEAR(fabs(h[2]), 1.0, 1e-15);
        ROD_ASSERT_NEAR(h[0] * h[0] + h[1] * h[1] + h[3] * h[3], 0, 1e-30);
      }
      /* the bodies carry the whole rod: sum m = rho A L */
      double mass = 0;
      for (int e = 0; e < r->nelements; e++)
        mass += rod_chain_get_link(r->chain, r->el[e].link)->mass;
      ROD_ASSERT_NEAR(mass, r->model.rho_area * 1.0, 1e-15);
      rod_backend_rfem.destroy(r);
    }
}
END_TEST

/* On a bent rod each point's d3 points along the element to the next. */
START_TEST(orientation_is_distal_element) {
  rod_scenario sc;
  cantilever(&sc, 6, ROD_LAYOUT_CENTERED, false);
  v3_set(sc.tip.force, 0.3, 1.0, -2.0);
  rod_rfem *r = make(&sc);
  solve_static(r);
  rod_sample s;
  rod_backend_rfem.sample(r, &s);
  for (int p = 0; p < s.points; p++) {
    const double *h = s.orientation + 4 * p;
    double R[9], chord[3];
    quat_to_R(R, h);
    int a = p + 1 < s.points ? p : p - 1;
    v3_sub(chord, s.position + 3 * (a + 1), s.position + 3 * a);
    v3_normalize(chord);
    for (int i = 0; i < 3; i++)
      ROD_ASSERT_NEAR(R[3 * i + 2], chord[i], 1e-14);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- statics ------------------------------------------------------------ */

/* Large deflection under weight and tip load: the static solve equals the
 * backward march to round-off, in the planar and in the 3D chain. */
START_TEST(static_sag_equals_exact_chain) {
  for (int lay = 0; lay < 2; lay++)
    for (int planar = 0; planar < 2; planar++) {
      rod_scenario sc;
      const int n = 12;
      cantilever(&sc, n, lay, planar);
      sc.environment.gravity[2] = -9.81;
      sc.rod.density = 2.0 / (9.81 * M_PI * 1e-6 / 4); /* w = 2 N/m */
      sc.tip.force[2] = -1.5;
      double tip[3], x, z;
      static_tip(&sc, tip);
      exact_chain_tip(n, lay == ROD_LAYOUT_CENTERED, 1.0, n * 1.0, 2.0, 1.5, &x,
                      &z);
      ROD_ASSERT_NEAR(tip[0], x, 1e-12);
      ROD_ASSERT_NEAR(tip[1], 0.0, 1e-12);
      ROD_ASSERT_NEAR(tip[2], z, 1e-12);
      ck_assert(z < -0.4); /* a large deflection */
    }
}
END_TEST

/* Linear limit: tip deflection sum_j P (L - s_j)^2 l / EI, in closed form
 * P L^3 / 3EI (1 - 1/(4 n^2)) centered (second order) and
 * P L^3 / 3EI (1 + 3/(2n) + 1/(2 n^2)) uniform (first order). With
 * P L^2 / EI = 1e-4 the nonlinear terms are 1e-8 of the deflection. */
START_TEST(linear_static_matches_closed_form) {
  for (int n = 1; n <= 16; n *= 4)
    for (int lay = 0; lay < 2; lay++) {
      rod_scenario sc;
      cantilever(&sc, n, lay, true);
      const double P = 1e-4;
      sc.tip.force[2] = -P;
      sc.solver.tolerance = 1e-15;
      double tip[3];
      static_tip(&sc, tip);
      double f = lay == ROD_LAYOUT_CENTERED
                     ? 1 - 1.0 / (4.0 * n * n)
                     : 1 + 3.0 / (2.0 * n) + 1.0 / (2.0 * n * n);
      double expect = P / 3 * f;
      ck_assert_msg(fabs(-tip[2] / expect - 1) < 3e-8,
                    "n %d layout %d: %.12g vs %.12g", n, lay, -tip[2], expect);
    }
}
END_TEST

/* The impulse acts at its material point: with the hat at its peak at
 * t = 0 (start = -duration/2) the static deflection of a weightless chain
 * is the linear sum over joints before the point,
 * tip = sum_(s_j < a) F (a - s_j)(L - s_j) l / EI. */
START_TEST(impulse_acts_at_its_point) {
  for (int lay = 0; lay < 2; lay++) {
    rod_scenario sc;
    const int n = 10;
    cantilever(&sc, n, lay, false);
    sc.impulse.enabled = true;
    sc.impulse.peak = 1e-4;
    sc.impulse.duration = 0.02;
    sc.impulse.start = -0.01;
    sc.impulse.position = 0.37;
    v3_set(sc.impulse.direction, 0, 0, -1);
    sc.solver.tolerance = 1e-15;
    double tip[3], expect = 0;
    static_tip(&sc, tip);
    for (int j = 1; j <= n; j++) {
      double s = lay == ROD_LAYOUT_CENTERED ? (j - 0.5) / n : (j - 1.0) / n;
      if (s < 0.37)
        expect += 1e-4 * (0.37 - s) * (1 - s) / n;
    }
    ck_assert_msg(fabs(-tip[2] / expect - 1) < 3e-8, "%.12g vs %.12g", -tip[2],
                  expect);
  }
}
END_TEST

/* The literature values the reference must reproduce: P L^2 / EI = 1 gives
 * a deflection of 0.30172 L and a shortening of 0.05643 L (Bisshopp &
 * Drucker 1945). Then
 * the chain converges to the elastica at load 3: at second order for the
 * centered layout and at first order for the uniform one. */
START_TEST(static_converges_to_elastica) {
  double x, defl;
  elastica(1.0, &x, &defl);
  ROD_ASSERT_NEAR(defl, 0.30172, 1e-5);
  ROD_ASSERT_NEAR(1 - x, 0.05643, 1e-5);
  elastica(3.0, &x, &defl);
  for (int lay = 0; lay < 2; lay++) {
    double err[3];
    for (int k = 0; k < 3; k++) {
      rod_scenario sc;
      cantilever(&sc, 16 << k, lay, true);
      sc.tip.force[2] = -3.0;
      double tip[3];
      static_tip(&sc, tip);
      err[k] = hypot(tip[0] - x, tip[2] + defl);
    }
    check_layout_order(lay, err);
  }
}
END_TEST

/* Same behaviour on both backends: the weight-release scenario's static
 * tip from the RFEM chain approaches the Kirchhoff backend's at second
 * order in the segments (centered). */
START_TEST(static_approaches_kirchhoff) {
  char path[1024];
  snprintf(path, sizeof path, "%s/scenarios/weight_release.ini",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data");
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  void *k = NULL;
  ck_assert_int_eq(rod_backend_kirchhoff.create(&sc, &k, &err), ROD_OK);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_kirchhoff.solve_static(k, &st), ROD_OK);
  rod_sample s;
  rod_backend_kirchhoff.sample(k, &s);
  double ref[3];
  memcpy(ref, s.position + 3 * (s.points - 1), sizeof ref);
  rod_backend_kirchhoff.destroy(k);
  sc.solver.backend = ROD_BACKEND_RFEM;
  double e[2];
  for (int i = 0; i < 2; i++) {
    sc.rfem.segments = 16 << i;
    double tip[3];
    static_tip(&sc, tip);
    e[i] = hypot(tip[0] - ref[0], tip[2] - ref[2]);
  }
  double p = rod_observed_order(e[0], e[1]);
  ck_assert_msg(fabs(p - 2) < 0.15, "order %.3f (errors %.3g %.3g)", p, e[0],
                e[1]);
}
END_TEST

/* A soft rod hanging under its own weight, w L^3 / EI = 5000, where the
 * Kirchhoff rod needs segments in its shooting (test statics, soft rods):
 * the chain solves it as any other, its tip (x, z) against the independent
 * solution of validation/hanging_rod.py, (0.0202402338112,
 * -0.9916508681258) L: on 40 elements within the bound the scenario's
 * advice states for the chain, 0.25 G L / n^2 with G = 2/3 sqrt 5000 the
 * static solutions' growth (7.4e-3 L; measured 5.6e-3 L), and 2.5 times
 * nearer than on 20 (measured 3.1; on 80, 100 and 200 elements 1.4e-3,
 * 9.0e-4 and 2.2e-4 L: second order). */
START_TEST(soft_rod_hanging_converges) {
  const double W = 5000, x = 0.0202402338112, z = -0.9916508681258;
  double err[2];
  for (int k = 0; k < 2; k++) {
    rod_scenario sc;
    cantilever(&sc, 20 << k, ROD_LAYOUT_CENTERED, true);
    const double d = sc.rod.diameter, A = M_PI * d * d / 4;
    sc.environment.gravity[2] = -9.81;
    sc.rod.density = W / (A * 9.81);
    sc.solver.tolerance = 1e-10;
    double tip[3];
    static_tip(&sc, tip);
    err[k] = hypot(tip[0] - x, tip[2] - z);
  }
  const double bound = 0.25 * (2.0 / 3.0 * sqrt(W)) / (40.0 * 40.0);
  ck_assert_msg(err[1] < bound && err[0] > 2.5 * err[1],
                "errors %.3g (20) %.3g (40), bound %.3g", err[0], err[1],
                bound);
}
END_TEST

/* The chain's static progress (rod_sim_static_progress), read from
 * another thread while a column under three times its buckling load P_c
 * = pi^2 EI / (4 L^2) solves: the direct solve ends on the straight,
 * unstable state, so the loads grow along the path (and an imperfection
 * decides the side). Every value -1 (the direct solve) or a share of the
 * loads in [0, 1], the shares never falling, 1 once solved; -1 before. */
typedef struct {
  void *chain;
  atomic_bool done;
  int reads, bad, fell;
} chain_progress;

static void *read_chain_progress(void *arg) {
  chain_progress *r = arg;
  double last = -1;
  while (!atomic_load(&r->done)) {
    const double f = rod_backend_rfem.static_progress(r->chain);
    r->reads++;
    if (!(f == -1 || (f >= 0 && f <= 1)))
      r->bad++;
    if (f >= 0 && f < last)
      r->fell++;
    last = f >= 0 ? f : last;
    nanosleep(&(struct timespec){0, 100000}, NULL);
  }
  return NULL;
}

START_TEST(static_progress_on_the_path) {
  rod_scenario sc;
  cantilever(&sc, 40, ROD_LAYOUT_CENTERED, true);
  sc.solver.tolerance = 1e-10;
  sc.tip.force[0] = -3.0 * M_PI * M_PI / 4.0; /* EI = 1, L = 1 */
  rod_rfem *chain = make(&sc);
  ck_assert(rod_backend_rfem.static_progress(chain) == -1);
  chain_progress r = {.chain = chain};
  atomic_init(&r.done, false);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, read_chain_progress, &r), 0);
  solve_static(chain);
  atomic_store(&r.done, true);
  pthread_join(th, NULL);
  ck_assert_msg(r.bad == 0 && r.fell == 0, "%d reads: %d bad, %d fell", r.reads,
                r.bad, r.fell);
  rod_static_report rep;
  rod_backend_rfem.static_report(chain, &rep);
  ck_assert_msg(rep.path_steps > 0, "no loading path");
  ck_assert(rod_backend_rfem.static_progress(chain) == 1);
  rod_backend_rfem.destroy(chain);
}
END_TEST

/* Internal forces in the sense of docs/hdf5.md (what the part beyond a point
 * exerts on the part before it). Static: n at a point is the total load
 * beyond it, m the moment of those loads about the point, n(L) the tip
 * load. Moving: the moment's component along a joint axis is the spring
 * and damper torque k q + c dq. */
START_TEST(internal_forces_balance_loads) {
  rod_scenario sc;
  cantilever(&sc, 6, ROD_LAYOUT_CENTERED, true);
  sc.environment.gravity[2] = -9.81;
  sc.rod.density = 2.0 / (9.81 * M_PI * 1e-6 / 4); /* w = 2 N/m */
  sc.rod.bending_damping = 1e-3;
  sc.tip.mass = 0.1;
  sc.tip.force[0] = 0.3;
  rod_rfem *r = make(&sc);
  solve_static(r);
  rod_sample s;
  rod_backend_rfem.sample(r, &s);
  const double F[3] = {0.3, 0, -0.981}; /* tip load with the mass */
  for (int p = 0; p < s.points; p++) {
    double n[3], m[3], d[3], c[3];
    v3_copy(n, F);
    v3_sub(d, s.position + 3 * (s.points - 1), s.position + 3 * p);
    v3_cross(m, d, F);
    for (int e = p; e < r->nelements; e++) { /* element weights beyond */
      const rod_chain_link *l = rod_chain_get_link(r->chain, r->el[e].link);
      double W[3] = {0, 0, -9.81 * l->mass}, pc[3];
      rod_chain_point(r->chain, r->el[e].link, l->com, pc, NULL);
      v3_add(n, n, W);
      v3_sub(d, pc, s.position + 3 * p);
      v3_cross(c, d, W);
      v3_add(m, m, c);
    }
    for (int i = 0; i < 3; i++) {
      ROD_ASSERT_NEAR(s.force[3 * p + i], n[i], 1e-14);
      ROD_ASSERT_NEAR(s.moment[3 * p + i], m[i], 1e-14);
    }
  }
  for (int k = 1; k <= 20; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, 2e-3 * k, &st), ROD_OK);
  }
  rod_backend_rfem.sample(r, &s);
  for (int p = 1; p < r->nelements; p++) {
    const int link = r->el[p].link;
    double R[9], a[3];
    rod_chain_pose(r->chain, link, R, NULL);
    m3_mul_v(a, R, rod_chain_get_link(r->chain, link)->axis);
    double spring = r->k[link] * r->q[link] + r->c[link] * r->v[link];
    ROD_ASSERT_NEAR(v3_dot(a, s.moment + 3 * p), spring, 1e-12);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

static Suite *rfem_statics_suite(void) {
  Suite *s = suite_create("rfem_statics");
  TCase *tg = tcase_create("geometry and statics");
  tcase_set_timeout(tg, 30);
  tcase_add_test(tg, layout_points_and_frames);
  tcase_add_test(tg, orientation_is_distal_element);
  tcase_add_test(tg, static_sag_equals_exact_chain);
  tcase_add_test(tg, linear_static_matches_closed_form);
  tcase_add_test(tg, impulse_acts_at_its_point);
  tcase_add_test(tg, static_converges_to_elastica);
  tcase_add_test(tg, static_approaches_kirchhoff);
  tcase_add_test(tg, soft_rod_hanging_converges);
  tcase_add_test(tg, internal_forces_balance_loads);
  tcase_add_test(tg, static_progress_on_the_path);
  suite_add_tcase(s, tg);
  return s;
}

ROD_TEST_MAIN(rfem_statics_suite)
