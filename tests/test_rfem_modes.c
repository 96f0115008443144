/* The RFEM chain's dynamics against the linear theory: the articulated-body
 * algorithm against the mass matrix (CRBA and Cholesky), the linearised
 * chain's generalised eigenvalues (LAPACKE dsygv) against each
 * integrator's discrete frequency, Euler-Bernoulli's first frequency with
 * and without an end mass, and the torsion frequency. */
#include <float.h>
#include <lapacke.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_free_step.h"
#include "rfemutil.h"

/* ---- the articulated-body algorithm ------------------------------------ */

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

/* ---- torsion ------------------------------------------------------------ */

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

static Suite *rfem_modes_suite(void) {
  Suite *s = suite_create("rfem_modes");
  TCase *td = tcase_create("linear dynamics");
  tcase_set_timeout(td, 30);
  tcase_add_test(td, aba_matches_crba_on_rod_chains);
  tcase_add_test(td, first_frequency_converges);
  tcase_add_test(td, end_mass_frequency_converges);
  tcase_add_test(td, linearised_frequencies_planar);
  tcase_add_test(td, linearised_frequencies_3d);
  tcase_add_test(td, torsion_frequency_converges);
  suite_add_tcase(s, td);
  return s;
}

ROD_TEST_MAIN(rfem_modes_suite)
