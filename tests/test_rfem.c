/* The RFEM backend against known answers: the layouts' geometry, the
 * chain's own exact static equilibrium (a backward march), the
 * Euler-Bernoulli sums of the discrete chain, the elastica, the Kirchhoff
 * backend, the linearised chain's generalised eigenvalues (LAPACKE dsygv),
 * Euler-Bernoulli's first frequency, energy conservation, Voigt and
 * Maxwell joints against closed forms, the motor, and the exact drag
 * integrals. */
#include <float.h>
#include <lapacke.h>
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_loads.h"
#include "sim/backend.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------ */

/* A cantilever along +x, L = 1 m, EI = 1 N m^2, d = 1 mm, weightless. */
static void cantilever(rod_scenario *sc, int n, rod_layout_kind layout,
                       bool planar) {
  rod_scenario_default(sc);
  sc->rod.length = 1.0;
  sc->rod.diameter = 1e-3;
  sc->rod.has_bending_stiffness = true;
  sc->rod.bending_stiffness = 1.0;
  sc->environment.gravity[2] = 0.0;
  sc->rfem.segments = n;
  sc->rfem.layout = layout;
  sc->rfem.planar = planar;
  sc->solver.tolerance = 1e-13;
  sc->solver.backend = ROD_BACKEND_RFEM;
}

static rod_rfem *make(const rod_scenario *sc) {
  void *self = NULL;
  rod_error err;
  ck_assert_int_eq(rod_backend_rfem.create(sc, &self, &err), ROD_OK);
  return self;
}

static void solve_static(rod_rfem *r) {
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_rfem.solve_static(r, &st), ROD_OK);
}

static void tip_of(rod_rfem *r, double tip[3]) {
  rod_sample s;
  ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
  memcpy(tip, s.position + 3 * (s.points - 1), 3 * sizeof(double));
}

/* Static tip of a scenario. */
static void static_tip(const rod_scenario *sc, double tip[3]) {
  rod_rfem *r = make(sc);
  solve_static(r);
  tip_of(r, tip);
  rod_backend_rfem.destroy(r);
}

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

/* Errors at n, 2n, 4n segments fall at second order for the centered
 * layout and at first order for the uniform one (observed orders within
 * 0.1 of that). */
static void check_layout_order(int layout, const double err[3]) {
  double order = layout == ROD_LAYOUT_CENTERED ? 2.0 : 1.0;
  double p1 = rod_observed_order(err[0], err[1]);
  double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(fabs(p1 - order) < 0.1 && fabs(p2 - order) < 0.1,
                "layout %d: orders %.3f %.3f (errors %.3g %.3g %.3g)", layout,
                p1, p2, err[0], err[1], err[2]);
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

/* ABA against CRBA + Cholesky on the rod's own chains, where the mass
 * matrix is far worse conditioned than in test_chain (the torsional
 * inertia m d^2 / 8 against the bending ones; kappa 7e7 planar and 9e8 3D
 * at n = 50): the relative difference stays below kappa eps, the forward
 * error bound of a backward-stable solve (measured 0.2 % to 2 % of it),
 * and below 1e-10 while n <= 10 links. */
START_TEST(aba_matches_crba_on_rod_chains) {
  const int segs[3] = {3, 25, 50};
  for (int planar = 0; planar < 2; planar++)
    for (int k = 0; k < 3; k++) {
      rod_scenario sc;
      cantilever(&sc, segs[k], ROD_LAYOUT_CENTERED, planar);
      sc.rod.length = 0.408;
      sc.rod.diameter = 1.42e-3;
      sc.rod.bending_stiffness = 0.03803;
      sc.rod.density = 7621;
      sc.environment.gravity[2] = -9.81;
      rod_rfem *r = make(&sc);
      const int n = r->nlinks, nf = r->nfree, f0 = r->first_free;
      double *M = malloc((size_t)n * n * sizeof(double));
      double *B = malloc((size_t)nf * nf * sizeof(double));
      double *a1 = malloc((size_t)n * sizeof(double));
      double *a2 = malloc((size_t)n * sizeof(double));
      for (int i = 0; i < n; i++) {
        r->q[i] = 0.1 * sin(1.3 * i + 0.5);
        r->v[i] = cos(0.7 * i);
        r->tau[i] = 1e-3 * sin(2.1 * i);
        a1[i] = a2[i] = 0.0; /* the prescribed motor at rest */
      }
      rod_chain_update(r->chain, r->q, r->v);
      ck_assert_int_eq(rod_chain_aba(r->chain, r->tau, NULL, a1), ROD_OK);
      ck_assert_int_eq(rod_chain_forward_crba(r->chain, r->tau, NULL, M, a2),
                       ROD_OK);
      rod_chain_crba(r->chain, M);
      double anorm = 0, rcond, dmax = 0, amax = 0;
      for (int b = 0; b < nf; b++) {
        double col = 0;
        for (int a = 0; a < nf; a++) {
          B[a + b * nf] = M[(f0 + a) + (size_t)(f0 + b) * n];
          col += fabs(B[a + b * nf]);
        }
        anorm = fmax(anorm, col);
      }
      ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nf, B, nf), 0);
      ck_assert_int_eq(
          LAPACKE_dpocon(LAPACK_COL_MAJOR, 'L', nf, B, nf, anorm, &rcond), 0);
      for (int i = f0; i < n; i++) {
        dmax = fmax(dmax, fabs(a1[i] - a2[i]));
        amax = fmax(amax, fabs(a2[i]));
      }
      double rel = dmax / amax, bound = DBL_EPSILON / rcond;
      ck_assert_msg(rel < bound && (n > 10 || rel < 1e-10),
                    "planar %d n %d: relative %.3g, kappa eps %.3g", planar,
                    segs[k], rel, bound);
      free(M);
      free(B);
      free(a1);
      free(a2);
      rod_backend_rfem.destroy(r);
    }
}
END_TEST

/* ---- the linearised chain ---------------------------------------------- */

/* Generalised eigenvalues omega^2 of K x = omega^2 M x for the free links
 * at rest (M by the CRBA, K the joint springs), ascending, with the mass
 * normalised modes in Z (column-major, nf x nf); returns nf. */
static int chain_modes(rod_rfem *r, double *w2, double *Z) {
  const int n = r->nlinks, f0 = r->first_free, nf = r->nfree;
  double *M = malloc((size_t)n * n * sizeof(double));
  double *B = malloc((size_t)nf * nf * sizeof(double));
  rod_chain_update(r->chain, r->q, NULL);
  rod_chain_crba(r->chain, M);
  for (int a = 0; a < nf; a++)
    for (int b = 0; b < nf; b++) {
      B[a + b * nf] = M[(f0 + a) + (size_t)(f0 + b) * n];
      Z[a + b * nf] = a == b ? r->k[f0 + a] : 0.0;
    }
  ck_assert_int_eq(
      LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'V', 'L', nf, Z, nf, B, nf, w2), 0);
  free(M);
  free(B);
  return nf;
}

/* Euler-Bernoulli's first cantilever frequency, beta_1 L = 1.875104. */
static double eb_first(const rod_rfem *r) {
  const double b = 1.8751040687119611 / r->L;
  return b * b * sqrt(r->EI / r->model.rho_area);
}

START_TEST(first_frequency_converges) {
  for (int lay = 0; lay < 2; lay++) {
    double err[3];
    for (int k = 0; k < 3; k++) {
      rod_scenario sc;
      cantilever(&sc, 8 << k, lay, true);
      rod_rfem *r = make(&sc);
      solve_static(r);
      double *w2 = malloc((size_t)r->nfree * sizeof(double));
      double *Z = malloc((size_t)r->nfree * r->nfree * sizeof(double));
      chain_modes(r, w2, Z);
      err[k] = fabs(sqrt(w2[0]) / eb_first(r) - 1);
      free(w2);
      free(Z);
      rod_backend_rfem.destroy(r);
    }
    check_layout_order(lay, err);
  }
}
END_TEST

/* An attached end mass mu = M / (rhoA L) = 1 (tip.release = false) joins
 * the last body: the chain's first frequency converges to the root
 * beta L = 1.2479174096 of the end-mass frequency equation 1 + cos l cosh
 * l + mu l (cos l sinh l - sin l cosh l) = 0, at the layout's order. */
START_TEST(end_mass_frequency_converges) {
  for (int lay = 0; lay < 2; lay++) {
    double err[3];
    for (int k = 0; k < 3; k++) {
      rod_scenario sc;
      cantilever(&sc, 8 << k, lay, true);
      rod_model m;
      rod_model_init(&m, &sc);
      sc.tip.release = false;
      sc.tip.mass = m.rho_area * sc.rod.length;
      rod_rfem *r = make(&sc);
      solve_static(r);
      double *w2 = malloc((size_t)r->nfree * sizeof(double));
      double *Z = malloc((size_t)r->nfree * r->nfree * sizeof(double));
      chain_modes(r, w2, Z);
      const double b = 1.2479174096064694 / r->L;
      err[k] =
          fabs(sqrt(w2[0]) / (b * b * sqrt(r->EI / r->model.rho_area)) - 1);
      free(w2);
      free(Z);
      rod_backend_rfem.destroy(r);
    }
    check_layout_order(lay, err);
  }
}
END_TEST

/* Start in mode m with amplitude A (rad scale) at rest, step N times of
 * dt, and estimate the frequency from the modal coordinate y = z^T M q:
 * a harmonic sequence obeys y_(k+1) + y_(k-1) = 2 cos(W dt) y_k, whose
 * least-squares estimate is exact for a pure discrete cosine. */
static double simulated_frequency(rod_rfem *r, const double *Z, int mode,
                                  double A, int N, double dt) {
  const int n = r->nlinks, f0 = r->first_free, nf = r->nfree;
  double *M = malloc((size_t)n * n * sizeof(double));
  double *y = malloc((size_t)(N + 1) * sizeof(double));
  double *Mz = malloc((size_t)nf * sizeof(double));
  double zmax = 0; /* A is the largest joint angle */
  for (int a = 0; a < nf; a++)
    zmax = fmax(zmax, fabs(Z[a + mode * nf]));
  rod_chain_update(r->chain, r->q, NULL);
  rod_chain_crba(r->chain, M);
  for (int a = 0; a < nf; a++) {
    Mz[a] = 0;
    for (int b = 0; b < nf; b++)
      Mz[a] += M[(f0 + a) + (size_t)(f0 + b) * n] * Z[b + mode * nf];
  }
  for (int a = 0; a < nf; a++) {
    r->q[f0 + a] = A * Z[a + mode * nf] / zmax;
    r->v[f0 + a] = 0;
  }
  r->t = 0.0;
  ck_assert_int_eq(rfem_start_dynamics(r), ROD_OK);
  for (int k = 0; k <= N; k++) {
    if (k) {
      rod_step_stats st;
      ck_assert_int_eq(rod_backend_rfem.step(r, k * dt, &st), ROD_OK);
    }
    y[k] = 0;
    for (int a = 0; a < nf; a++)
      y[k] += Mz[a] * r->q[f0 + a];
  }
  double num = 0, den = 0;
  for (int k = 1; k < N; k++) {
    num += y[k] * (y[k + 1] + y[k - 1]);
    den += 2 * y[k] * y[k];
  }
  free(M);
  free(y);
  free(Mz);
  return acos(num / den) / dt;
}

/* Each integrator's discrete frequency of a linear mode is known exactly:
 * generalized-alpha with rho_inf = 1 is the trapezoidal rule,
 * W = (2/dt) atan(omega dt / 2); RK45 at rtol 1e-11 gives omega; RK4 with
 * m substeps of h turns by arg R(i omega h) = atan2(y - y^3/6,
 * 1 - y^2/2 + y^4/24), y = omega h, per substep. Amplitude 1e-6 rad keeps
 * the nonlinear frequency shift near 1e-12; the Newton tolerance 1e-16
 * (scaled) is 1e-10 of the modal torques. */
static void check_linearised(bool planar) {
  rod_scenario sc;
  cantilever(&sc, planar ? 6 : 3, ROD_LAYOUT_CENTERED, planar);
  sc.solver.tolerance = 1e-16;
  for (int integ = 0; integ < 3; integ++) {
    sc.rfem.integrator = integ == 0   ? ROD_RFEM_GENALPHA
                         : integ == 1 ? ROD_RFEM_RK45
                                      : ROD_RFEM_RK4;
    sc.rfem.spectral_radius = 1.0;
    sc.rfem.rtol = 1e-11;
    rod_rfem *r = make(&sc);
    solve_static(r);
    const int nf = r->nfree;
    double *w2 = malloc((size_t)nf * sizeof(double));
    double *Z = malloc((size_t)nf * nf * sizeof(double));
    chain_modes(r, w2, Z);
    const int modes[2] = {0, 2};
    for (int i = 0; i < 2; i++) {
      double w = sqrt(w2[modes[i]]);
      double dt = 0.05 / w; /* 125 steps a period */
      sc.time.dt = dt;
      r->sc.time.dt = dt; /* RK4 picks its substeps from dt */
      double W = simulated_frequency(r, Z, modes[i], 1e-6, 600, dt);
      double expect = w;
      if (integ == 0) {
        expect = 2.0 / dt * atan(0.5 * w * dt);
      } else if (integ == 2) {
        const int m = r->rk4_substeps;
        double y = w * dt / m;
        expect = m / dt *
                 atan2(y - y * y * y / 6, 1 - y * y / 2 + y * y * y * y / 24);
      }
      ck_assert_msg(fabs(W / expect - 1) < 1e-9,
                    "planar %d integrator %d mode %d: %.15g vs %.15g", planar,
                    integ, modes[i], W, expect);
    }
    free(w2);
    free(Z);
    rod_backend_rfem.destroy(r);
  }
}

START_TEST(linearised_frequencies_planar) { check_linearised(true); }
END_TEST
START_TEST(linearised_frequencies_3d) { check_linearised(false); }
END_TEST

/* ---- energy ------------------------------------------------------------- */

typedef struct {
  double e0, max_dev, scale;
} energy_probe;

static int energy_sample(void *user, double t, const rod_sample *s,
                         const rod_step_stats *st, double wall) {
  (void)t;
  (void)st;
  (void)wall;
  energy_probe *p = user;
  double E = s->kinetic + s->elastic + s->gravity;
  if (p->scale == 0) {
    p->e0 = E;
    p->scale = s->elastic;
  }
  p->max_dev = fmax(p->max_dev, fabs(E - p->e0));
  return 0;
}

/* The weight release without damping or drag: kinetic + elastic + gravity
 * stays at its t = 0 value (the tip mass leaves the system at 0+). */
static double energy_drift(rod_rfem_integrator_kind integ, double dt,
                           bool planar, int n) {
  rod_scenario sc;
  cantilever(&sc, n, ROD_LAYOUT_CENTERED, planar);
  sc.rod.length = 0.408;
  sc.rod.diameter = 1.42e-3;
  sc.rod.bending_stiffness = 0.03803;
  sc.rod.density = 7621;
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.02;
  sc.time.dt = dt;
  sc.time.duration = 0.3;
  sc.rfem.integrator = integ;
  sc.rfem.spectral_radius = 1.0;
  sc.rfem.rtol = 1e-10;
  energy_probe p = {0, 0, 0};
  rod_sim_sink sink = {.sample = energy_sample, .user = &p};
  rod_sim_result res;
  rod_error err;
  ck_assert_int_eq(rod_sim_run(&sc, &sink, false, &res, &err), ROD_OK);
  return p.max_dev / p.scale;
}

/* The trapezoidal rule (rho_inf = 1) keeps a quadratic energy exactly and
 * this one to O(dt^2) once every mode is resolved: with 4 segments the
 * highest joint frequency is about 840 rad/s, omega dt <= 0.21 here (with
 * more segments the unresolved top modes make the observed order erratic
 * at these steps). */
START_TEST(energy_conserved_genalpha) {
  double e1 = energy_drift(ROD_RFEM_GENALPHA, 2.5e-4, true, 4);
  double e2 = energy_drift(ROD_RFEM_GENALPHA, 1.25e-4, true, 4);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 2) < 0.15 && e1 < 1e-5, "drift %.3g %.3g, order %.3f",
                e1, e2, p);
}
END_TEST

/* Dormand-Prince at rtol 1e-10 on the 3D chain (torsion included): about
 * 2.5 rtol of error per period (test_ivp) over 1.8 periods of the first
 * mode, twice that in a quadratic energy: 1e-9; measured 2e-10. */
START_TEST(energy_conserved_rk45) {
  double e = energy_drift(ROD_RFEM_RK45, 2e-3, false, 10);
  ck_assert_msg(e < 2e-9, "rk45 drift %.3g", e);
}
END_TEST

/* ---- joints ------------------------------------------------------------- */

/* Voigt: q'' + 2 z w q' + w^2 q = 0 with w^2 = k / I, 2 z w = c / I,
 * c = B / l (rod.bending_damping). */
START_TEST(voigt_joint_damped_oscillator) {
  rod_scenario sc;
  cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, true);
  sc.rod.bending_damping = 2e-3;
  sc.tip.preload[2] = -1e-3;
  sc.rfem.integrator = ROD_RFEM_RK45;
  sc.rfem.rtol = 1e-11;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const double m = r->model.rho_area, Ij = m / 3 + m * 1e-6 / 16;
  const double w = sqrt(1.0 / Ij), zeta = 2e-3 / (2 * Ij * w);
  const double q0 = r->q[1], wd = w * sqrt(1 - zeta * zeta);
  ROD_ASSERT_NEAR(q0, 1e-3 * cos(q0), 1e-17); /* k q = P L cos q */
  /* RK45's global error is about 2.5 atol per period (test_ivp), here
   * atol = rtol / n = 1e-11 rad over 1.4 periods */
  for (int k = 1; k <= 40; k++) {
    double t = 0.01 * k;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    double e = exp(-zeta * w * t);
    double q = q0 * e * (cos(wd * t) + zeta * w / wd * sin(wd * t));
    ROD_ASSERT_NEAR(r->q[1], q, 1e-10);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* The Maxwell element's update is exact: at rest Q decays as e^(-t/T)
 * (stress relaxation, Iwamura et al., eq. 6 with dq = 0), and at a constant
 * rate v it approaches the dashpot's k T v as k T v (1 - e^(-t/T)). */
START_TEST(maxwell_element_relaxes) {
  const double T = 0.3, h = 0.007;
  double E, w0, w1;
  rfem_maxwell_weights(h, T, &E, &w0, &w1);
  double Q = 2.0, Qv = 0.0, k = 5.0, v = 0.4;
  for (int i = 1; i <= 300; i++) {
    Q = E * Q;
    Qv = E * Qv + k * (w0 * v + w1 * v);
    double t = i * h;
    ROD_ASSERT_NEAR(Q, 2.0 * exp(-t / T), 1e-14);
    ROD_ASSERT_NEAR(Qv, k * T * v * (1 - exp(-t / T)), 1e-14);
  }
  /* small h / T: the weights tend to the trapezoidal h/2 each */
  rfem_maxwell_weights(1e-9, 1.0, &E, &w0, &w1);
  ROD_ASSERT_NEAR(w0 / 1e-9, 0.5 - 1e-9 / 3, 1e-15);
  ROD_ASSERT_NEAR(w1 / 1e-9, 0.5 - 1e-9 / 6, 1e-15);
}
END_TEST

/* A Maxwell joint under a rigid element: I v' = -Q, Q' = k v - Q / T, so
 * Q'' + Q' / T + (k / I) Q = 0 with Q(0) = k q0 (the spring carries the
 * static load) and Q'(0) = -Q0 / T: Q = Q0 e^(-t/2T) (cos wd t - sin wd t /
 * (2 T wd)), wd^2 = k / I - 1 / (4 T^2). The element creeps back to 0. */
static double maxwell_error(rod_rfem_integrator_kind ig, double dt) {
  rod_scenario sc;
  cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, true);
  sc.rfem.joint = ROD_JOINT_MAXWELL;
  sc.rfem.maxwell_time = 0.05;
  sc.tip.preload[2] = -1e-3;
  sc.rfem.integrator = ig;
  sc.rfem.rtol = 1e-11;
  sc.rfem.spectral_radius = 1.0;
  sc.time.dt = dt;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const double m = r->model.rho_area, Ij = m / 3 + m * 1e-6 / 16, T = 0.05;
  const double Q0 = r->Q[1], wd = sqrt(1.0 / Ij - 1 / (4 * T * T));
  ROD_ASSERT_NEAR(Q0, 1e-3 * cos(r->q[1]), 1e-17); /* k q = P L cos q */
  rod_sample s0; /* the spring's energy Q^2 / 2k = k q0^2 / 2 */
  rod_backend_rfem.sample(r, &s0);
  ROD_ASSERT_NEAR(s0.elastic, 0.5 * r->q[1] * r->q[1], 1e-20);
  double max_err = 0;
  for (int k = 1; k * dt <= 0.4 + 1e-12; k++) {
    double t = k * dt;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    double Q =
        Q0 * exp(-t / (2 * T)) * (cos(wd * t) - sin(wd * t) / (2 * T * wd));
    max_err = fmax(max_err, fabs(r->Q[1] - Q) / Q0);
  }
  /* the creep ends with the element back at 0 and the spring relaxed */
  rod_backend_rfem.destroy(r);
  return max_err;
}

/* RK45 within its tolerance (atol on Q is k rtol / n = 1e-11 N m, 1e-8 of
 * Q0; measured 5e-9); RK4 (one substep: h |lambda| = 0.22) at
 * fourth order; generalized-alpha with the exact Maxwell update at second
 * order. */
START_TEST(maxwell_joint_closed_form) {
  double e = maxwell_error(ROD_RFEM_RK45, 0.01);
  ck_assert_msg(e < 1e-8, "rk45 error %.3g", e);
  double e1 = maxwell_error(ROD_RFEM_RK4, 0.01);
  double e2 = maxwell_error(ROD_RFEM_RK4, 0.005);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 4) < 0.15, "rk4 order %.3f (%.3g %.3g)", p, e1, e2);
  e1 = maxwell_error(ROD_RFEM_GENALPHA, 2e-3);
  e2 = maxwell_error(ROD_RFEM_GENALPHA, 1e-3);
  p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 2) < 0.1, "genalpha order %.3f (%.3g %.3g)", p, e1,
                e2);
}
END_TEST

/* ---- motor -------------------------------------------------------------- */

/* A prescribed motor turns the clamp frame by Rot(axis, ref(t)) R(0). */
START_TEST(prescribed_motor_turns_clamp) {
  rod_scenario sc;
  cantilever(&sc, 5, ROD_LAYOUT_CENTERED, false);
  sc.environment.gravity[2] = -9.81;
  sc.motor.enabled = true;
  sc.motor.start = 0.02;
  sc.motor.ramp = 0.1;
  sc.motor.angle = 0.6;
  rod_rfem *r = make(&sc);
  solve_static(r);
  for (int k = 1; k <= 75; k++) {
    double t = 2e-3 * k, a, w;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    rod_motor_reference(&sc, t, &a, &w);
    rod_sample s;
    rod_backend_rfem.sample(r, &s);
    double turn[4], expect[4], axis[3] = {0, 1, 0};
    quat_axis_angle(turn, axis, a);
    quat_mul(expect, turn, r->model.base_quat);
    double dot = 0;
    for (int i = 0; i < 4; i++)
      dot += expect[i] * s.orientation[i];
    ROD_ASSERT_NEAR(fabs(dot), 1.0, 1e-14);
    /* the base point stays */
    for (int i = 0; i < 3; i++)
      ROD_ASSERT_NEAR(s.position[i], 0.0, 1e-15);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* A PD-driven motor (kp > 0) on a rotor settles where the static solve
 * with the final reference puts it: kp (ref - q0) balances gravity. The rod
 * damping (retardation 0.05 s) and kd make every mode decay within the
 * run (slowest rate about 10 1/s over 1.5 s: e^-15). */
START_TEST(pd_motor_settles_to_static) {
  rod_scenario sc;
  cantilever(&sc, 4, ROD_LAYOUT_CENTERED, true);
  sc.environment.gravity[2] = -9.81;
  sc.rod.bending_damping = 0.05;
  sc.motor.enabled = true;
  sc.motor.angle = 0.5;
  sc.motor.start = 0.0;
  sc.motor.ramp = 0.05;
  sc.motor.kp = 1.0;
  sc.motor.kd = 0.09;
  sc.motor.inertia = 1e-4;
  rod_rfem *r = make(&sc);
  solve_static(r);
  ck_assert_int_eq(r->first_free, 0);
  for (int k = 1; k <= 750; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, 2e-3 * k, &st), ROD_OK);
  }
  sc.motor.start = -1.0; /* the reference at its final value at t = 0 */
  rod_rfem *s = make(&sc);
  solve_static(s);
  ck_assert(s->q[0] > 0.5 + 0.01); /* gravity pulls it past the reference */
  for (int i = 0; i < r->nlinks; i++)
    ROD_ASSERT_NEAR(r->q[i], s->q[i], 1e-6);
  rod_backend_rfem.destroy(r);
  rod_backend_rfem.destroy(s);
}
END_TEST

/* Tip of the scenario with clamp direction, gravity and tip force turned
 * by Q (0.7 rad about (1, 2, 2)/3) and the base moved, turned back. */
static void turned_tip(const rod_scenario *a, double back[3]) {
  double Q[9], ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, turn[4], tb[3];
  quat_axis_angle(turn, ax, 0.7);
  quat_to_R(Q, turn);
  rod_scenario b = *a;
  m3_mul_v(b.base.direction, Q, a->base.direction);
  m3_mul_v(b.environment.gravity, Q, a->environment.gravity);
  m3_mul_v(b.tip.force, Q, a->tip.force);
  v3_set(b.base.position, 0.1, 0.2, 0.3);
  static_tip(&b, tb);
  v3_sub(tb, tb, b.base.position);
  m3_mul_tv(back, Q, tb);
}

/* Turning the whole problem turns the answer. The planar chain bends in
 * the plane of the clamp and gravity, which turns along: exact. The 3D
 * chain's joints are Euler angles (bending about d1, then d2, then
 * torsion): bending about both leaves a twist of q1 q2 / 2 in the torsion
 * spring, so the answer depends on how the load meets d1 and d2, by an
 * amount that falls at second order in the segments like the
 * discretisation error itself (measured 1.5e-4 at n = 12, 3.9e-5 at 24). */
START_TEST(rotation_invariance) {
  rod_scenario a;
  cantilever(&a, 12, ROD_LAYOUT_CENTERED, true);
  a.environment.gravity[2] = -9.81;
  a.rod.density = 2.0 / (9.81 * M_PI * 1e-6 / 4);
  a.tip.force[0] = 0.4;
  double ta[3], tb[3];
  static_tip(&a, ta);
  turned_tip(&a, tb);
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(tb[i], ta[i], 1e-12);
  a.rfem.planar = false;
  a.tip.force[1] = 0.4; /* out of the plane: a 3D answer */
  double e[2];
  for (int k = 0; k < 2; k++) {
    a.rfem.segments = 12 << k;
    static_tip(&a, ta);
    turned_tip(&a, tb);
    v3_sub(tb, tb, ta);
    e[k] = v3_norm(tb);
  }
  double p = rod_observed_order(e[0], e[1]);
  ck_assert_msg(fabs(p - 2) < 0.1 && e[0] < 3e-4, "order %.3f (%.3g %.3g)", p,
                e[0], e[1]);
}
END_TEST

/* In a planar problem the 3D chain moves like the planar one. */
START_TEST(planar_equals_3d_dynamics) {
  double tip[2][3];
  for (int planar = 0; planar < 2; planar++) {
    rod_scenario sc;
    cantilever(&sc, 8, ROD_LAYOUT_UNIFORM, planar);
    sc.environment.gravity[2] = -9.81;
    sc.tip.mass = 0.002;
    sc.rod.drag = 0.01;
    rod_rfem *r = make(&sc);
    solve_static(r);
    for (int k = 1; k <= 50; k++) {
      rod_step_stats st;
      ck_assert_int_eq(rod_backend_rfem.step(r, 2e-3 * k, &st), ROD_OK);
    }
    tip_of(r, tip[planar]);
    rod_backend_rfem.destroy(r);
  }
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(tip[0][i], tip[1][i], 1e-12);
}
END_TEST

/* Tip after 0.15 s of a weighted 4-segment chain swung by the motor
 * (0.6 rad, ramp from 0.02 to 0.12 s): prescribed (kp = 0) or by a PD
 * drive critically damped for the rigid rod (2.1e-3 kg m^2 with rotor). */
static void motor_tip(double kp, rod_rfem_integrator_kind ig, double dt,
                      double tip[3]) {
  rod_scenario sc;
  cantilever(&sc, 4, ROD_LAYOUT_CENTERED, true);
  sc.environment.gravity[2] = -9.81;
  sc.motor.enabled = true;
  sc.motor.angle = 0.6;
  sc.motor.start = 0.02;
  sc.motor.ramp = 0.1;
  sc.motor.kp = kp;
  sc.motor.inertia = 1e-4;
  sc.motor.kd = 2 * sqrt(kp * 2.1e-3);
  sc.rfem.integrator = ig;
  sc.rfem.rtol = 1e-11;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const int N = (int)lround(0.15 / dt);
  for (int k = 1; k <= N; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, dt * k, &st), ROD_OK);
  }
  tip_of(r, tip);
  rod_backend_rfem.destroy(r);
}

/* A stiff PD drive tracks the reference within tau / kp, so the rod moves
 * as under the prescribed rotation, whose inertial loads come from the
 * reference's acceleration: the difference falls as 1 / kp (measured
 * 2.2e-4 m at kp = 1e4, 2.3e-5 at 1e5). */
START_TEST(stiff_pd_motor_matches_prescribed) {
  double ref[3], a[3], b[3];
  motor_tip(0.0, ROD_RFEM_GENALPHA, 1e-4, ref);
  motor_tip(1e4, ROD_RFEM_GENALPHA, 1e-4, a);
  motor_tip(1e5, ROD_RFEM_GENALPHA, 1e-4, b);
  v3_sub(a, a, ref);
  v3_sub(b, b, ref);
  double ea = v3_norm(a), eb = v3_norm(b);
  ck_assert_msg(ea / eb > 8 && eb < 1e-4, "%.3g %.3g", ea, eb);
}
END_TEST

/* The straight chain's torsion decouples from bending: the torsion links'
 * own eigenproblem (polar inertia rho J l per element against G J / l) has
 * the free-clamped shaft's first frequency (pi / 2L) sqrt(G / rho) as its
 * limit, reached at second order (centered) or first order (uniform). */
START_TEST(torsion_frequency_converges) {
  for (int lay = 0; lay < 2; lay++) {
    double err[3];
    for (int k = 0; k < 3; k++) {
      rod_scenario sc;
      cantilever(&sc, 8 << k, lay, false);
      rod_rfem *r = make(&sc);
      solve_static(r);
      const int n = r->nlinks, nt = r->sc.rfem.segments;
      double *M = malloc((size_t)n * n * sizeof(double));
      double *A = malloc((size_t)nt * nt * sizeof(double));
      double *B = malloc((size_t)nt * nt * sizeof(double));
      double *w2 = malloc((size_t)nt * sizeof(double));
      rod_chain_crba(r->chain, M);
      for (int a = 0; a < nt; a++) /* torsion links are 3, 6, 9, ... */
        for (int b = 0; b < nt; b++) {
          B[a + b * nt] = M[(3 + 3 * a) + (size_t)(3 + 3 * b) * n];
          A[a + b * nt] = a == b ? r->k[3 + 3 * a] : 0.0;
        }
      ck_assert_int_eq(
          LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'L', nt, A, nt, B, nt, w2),
          0);
      double expect = M_PI / 2 * sqrt(sc.rod.shear_modulus / sc.rod.density);
      err[k] = fabs(sqrt(w2[0]) / expect - 1);
      free(M);
      free(A);
      free(B);
      free(w2);
      rod_backend_rfem.destroy(r);
    }
    check_layout_order(lay, err);
  }
}
END_TEST

/* The cosine ramp's acceleration jumps at its start and end; stepping
 * across a jump would see a ramp in the base acceleration, an O(dt) error
 * in the response (measured: first order, 4.7e-4 m at dt = 1e-4, before
 * the steps were split at the jumps). With the split and a restart of the
 * integrator there, generalized-alpha stays second order against RK45. */
START_TEST(genalpha_second_order_through_ramp) {
  double ref[3], a[3], b[3];
  motor_tip(0.0, ROD_RFEM_RK45, 1e-3, ref);
  motor_tip(0.0, ROD_RFEM_GENALPHA, 1e-4, a);
  motor_tip(0.0, ROD_RFEM_GENALPHA, 5e-5, b);
  v3_sub(a, a, ref);
  v3_sub(b, b, ref);
  double p = rod_observed_order(v3_norm(a), v3_norm(b));
  ck_assert_msg(fabs(p - 2) < 0.15 && v3_norm(a) < 3e-6,
                "order %.3f (%.3g %.3g)", p, v3_norm(a), v3_norm(b));
}
END_TEST

/* ---- drag ---------------------------------------------------------------- */

/* Antiderivatives without a sign change (u = a + b x > 0 on the element):
 * int u^2 dx = (u1^3 - u0^3) / (3b), int x u^2 dx = [u^4/4 - a u^3/3] / b^2;
 * across a sign change, the pieces with opposite signs. */
START_TEST(drag_integrals_exact) {
  double i0, i1;
  rfem_drag_integrals(0.5, 2.0, 0.3, &i0, &i1);
  double u0 = 0.5, u1 = 1.1;
  ROD_ASSERT_NEAR(i0, (u1 * u1 * u1 - u0 * u0 * u0) / 6.0, 1e-15);
  ROD_ASSERT_NEAR(
      i1,
      ((pow(u1, 4) - pow(u0, 4)) / 4 - 0.5 * (pow(u1, 3) - pow(u0, 3)) / 3) /
          4.0,
      1e-15);
  /* u = x - 0.1 on [0, 0.3]: -int_0^0.1 (x-0.1)^2 + int_0.1^0.3 (x-0.1)^2 */
  rfem_drag_integrals(-0.1, 1.0, 0.3, &i0, &i1);
  ROD_ASSERT_NEAR(i0, (-pow(0.1, 3) + pow(0.2, 3)) / 3, 1e-16);
  /* int x (x - 0.1)^2 = x^4/4 - 0.2 x^3/3 + 0.01 x^2/2 */
  double F01 = pow(0.1, 4) / 4 - 0.2 * pow(0.1, 3) / 3 + 0.01 * 0.01 / 2;
  double F03 = pow(0.3, 4) / 4 - 0.2 * pow(0.3, 3) / 3 + 0.01 * 0.09 / 2;
  ROD_ASSERT_NEAR(i1, -F01 + (F03 - F01), 1e-16);
  /* constant u */
  rfem_drag_integrals(-2.0, 0.0, 0.5, &i0, &i1);
  ROD_ASSERT_NEAR(i0, -4.0 * 0.5, 1e-15);
  ROD_ASSERT_NEAR(i1, -4.0 * 0.125, 1e-15);
}
END_TEST

/* A free rigid element spun about its joint slows by drag alone: with
 * u = w x along it, I w' = -C w |w| int x^3 dx = -C w |w| L^4 / 4, so
 * w(t) = w0 / (1 + C w0 L^4 t / (4 I)). EI = 1e-12 N m^2 leaves the spring
 * torque 1e-12 of the drag. Spun about d1 (the planar chain's axis without
 * loads) and about d2 (3D), through both drag components. */
START_TEST(drag_spins_down_element) {
  for (int planar = 0; planar < 2; planar++) {
    rod_scenario sc;
    cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, planar);
    sc.rod.bending_stiffness = 1e-12;
    sc.rod.drag = 0.5;
    sc.rfem.integrator = ROD_RFEM_RK45;
    sc.rfem.rtol = 1e-12;
    rod_rfem *r = make(&sc);
    solve_static(r);
    const int link = planar ? 1 : 2;
    const double w0 = 3.0, m = r->model.rho_area;
    const double Ij = m / 3 + m * 1e-6 / 16;
    r->v[link] = w0;
    ck_assert_int_eq(rfem_start_dynamics(r), ROD_OK);
    for (int k = 1; k <= 20; k++) {
      double t = 0.01 * k;
      rod_step_stats st;
      ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
      double w = w0 / (1 + 0.5 * w0 * t / (4 * Ij));
      ROD_ASSERT_NEAR(r->v[link], w, 1e-9 * w0);
    }
    rod_backend_rfem.destroy(r);
  }
}
END_TEST

/* The output velocities are the derivatives of the output positions along
 * the motion: v = (p(q + e dq) - p(q - e dq)) / (2 e) up to e^2 |p'''|
 * ~ 1e-11 m/s and round-off eps / e ~ 1e-10 m/s (e = 1e-6 s), on a bent 3D
 * state with every joint moving, the motor included. */
START_TEST(output_velocity_is_derivative) {
  rod_scenario sc;
  cantilever(&sc, 5, ROD_LAYOUT_CENTERED, false);
  sc.motor.enabled = true;
  sc.motor.kp = 1.0; /* a free motor joint: its rate is a state */
  sc.motor.inertia = 1e-3;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const int n = r->nlinks;
  double q[64], dq[64], vel[64], plus[64], minus[64];
  for (int i = 0; i < n; i++) {
    q[i] = 0.3 * sin(1.7 * i + 0.2);
    dq[i] = 2.0 * cos(0.9 * i + 0.4);
  }
  rod_sample s;
  memcpy(r->q, q, (size_t)n * sizeof(double));
  memcpy(r->v, dq, (size_t)n * sizeof(double));
  rod_backend_rfem.sample(r, &s);
  memcpy(vel, s.velocity, 3 * (size_t)s.points * sizeof(double));
  const double e = 1e-6;
  for (int sign = -1; sign <= 1; sign += 2) {
    for (int i = 0; i < n; i++)
      r->q[i] = q[i] + sign * e * dq[i];
    rod_backend_rfem.sample(r, &s);
    memcpy(sign > 0 ? plus : minus, s.position,
           3 * (size_t)s.points * sizeof(double));
  }
  for (int i = 0; i < 3 * s.points; i++)
    ROD_ASSERT_NEAR(vel[i], (plus[i] - minus[i]) / (2 * e), 1e-9);
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- scenarios ----------------------------------------------------------- */

static void run_scenario(const char *name, const char *backend,
                         double duration) {
  char path[1024];
  snprintf(path, sizeof path, "%s/scenarios/%s",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data", name);
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  char set[64];
  snprintf(set, sizeof set, "solver.backend=%s", backend);
  ck_assert_int_eq(rod_scenario_set(&sc, set, &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  sc.time.duration = duration;
  rod_sim_result res;
  ck_assert_int_eq(rod_sim_run(&sc, NULL, false, &res, &err), ROD_OK);
}

START_TEST(shipped_scenarios_run) {
  run_scenario("weight_release.ini", "rfem", 0.2);
  run_scenario("flexible_pendulum.ini", "rfem", 0.2);
  run_scenario("flexible_pendulum_pd.ini", "rfem", 0.2);
}
END_TEST

static Suite *rfem_suite(void) {
  Suite *s = suite_create("rfem");
  TCase *tg = tcase_create("geometry and statics");
  tcase_set_timeout(tg, 30);
  tcase_add_test(tg, layout_points_and_frames);
  tcase_add_test(tg, orientation_is_distal_element);
  tcase_add_test(tg, static_sag_equals_exact_chain);
  tcase_add_test(tg, linear_static_matches_closed_form);
  tcase_add_test(tg, impulse_acts_at_its_point);
  tcase_add_test(tg, static_converges_to_elastica);
  tcase_add_test(tg, static_approaches_kirchhoff);
  tcase_add_test(tg, internal_forces_balance_loads);
  suite_add_tcase(s, tg);
  TCase *td = tcase_create("dynamics");
  tcase_set_timeout(td, 30);
  tcase_add_test(td, aba_matches_crba_on_rod_chains);
  tcase_add_test(td, first_frequency_converges);
  tcase_add_test(td, end_mass_frequency_converges);
  tcase_add_test(td, linearised_frequencies_planar);
  tcase_add_test(td, linearised_frequencies_3d);
  tcase_add_test(td, energy_conserved_genalpha);
  tcase_add_test(td, energy_conserved_rk45);
  tcase_add_test(td, voigt_joint_damped_oscillator);
  tcase_add_test(td, maxwell_element_relaxes);
  tcase_add_test(td, maxwell_joint_closed_form);
  tcase_add_test(td, prescribed_motor_turns_clamp);
  tcase_add_test(td, pd_motor_settles_to_static);
  tcase_add_test(td, stiff_pd_motor_matches_prescribed);
  tcase_add_test(td, genalpha_second_order_through_ramp);
  tcase_add_test(td, torsion_frequency_converges);
  tcase_add_test(td, rotation_invariance);
  tcase_add_test(td, planar_equals_3d_dynamics);
  tcase_add_test(td, drag_integrals_exact);
  tcase_add_test(td, drag_spins_down_element);
  tcase_add_test(td, output_velocity_is_derivative);
  tcase_add_test(td, shipped_scenarios_run);
  suite_add_tcase(s, td);
  return s;
}

ROD_TEST_MAIN(rfem_suite)
