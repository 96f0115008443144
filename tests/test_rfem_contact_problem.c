/* The RFEM chain's contact problem and its rest against known answers: the
 * Delassus matrix of the articulated-body factorisation against the dense
 * mass matrix, the primal and dual forms of the impulse problem on the
 * chain to 1e-9, the heavy elastica resting on a frictionless table (clamp
 * moment and force against the small-deflection solution, converging with
 * the elements; the touchdown within an element of (72 EI h / w)^(1/4)),
 * and the resting chain staying at rest with the statics' contact forces
 * under both contact steps. The contact problems themselves:
 * test_contact. */
#include <lapacke.h>
#include <string.h>

#include "core/v3.h"
#include "elastica.h"
#include "rfem_contactutil.h"

/* A chain swinging down toward a table: cantilever_table.ini (3D chain
 * unless planar) a few steps after its release; nothing touches yet. */
static rod_rfem *swinging(bool planar, double friction) {
  rod_scenario sc;
  rod_test_load(&sc, "cantilever_table.ini");
  sc.rfem.planar = planar;
  sc.rfem.segments = 10;
  sc.plane.friction = friction;
  rod_rfem *r = make(&sc);
  rod_step_stats st;
  ck_assert_int_eq(rod_backend_rfem.solve_static(r, &st), ROD_OK);
  for (int i = 1; i <= 20; i++)
    ck_assert_int_eq(rod_backend_rfem.step(r, i * sc.time.dt, &st), ROD_OK);
  rod_chain_update(r->chain, r->q, r->v);
  return r;
}

/* ---- the Delassus matrix ---------------------------------------------------
 */

/* G = J M^-1 J^T by the ABA factorisation equals the dense product with
 * the CRBA mass matrix (Cholesky), for the normal and tangent rows of
 * every node and of the elements' inner points of a 3D chain; with the
 * implicit step's extra diagonal too. */
START_TEST(delassus_matches_dense) {
  rod_rfem *r = swinging(false, 0.3);
  rfem_contacts *c = r->contact;
  const int nl = r->nlinks, nf = r->nfree, f0 = r->first_free;
  int n = 0;
  for (int slot = 1; slot <= r->nelements; slot += 3)
    rfem_contact_eval(r, 0, slot, &c->list[n++]);
  const int rows = rfem_contact_jacobian(r, c->list, n, 3);
  ck_assert_int_eq(rows, 3 * n);
  double *M = calloc((size_t)nl * nl, sizeof(double));
  double *Y = calloc((size_t)nf * rows, sizeof(double));
  double *extra = calloc((size_t)nl, sizeof(double));
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < nl; i++)
      extra[i] = pass ? 0.37 * (i + 1) * 1e-6 : 0.0;
    ck_assert_int_eq(rfem_contact_delassus(r, rows, pass ? extra : NULL),
                     ROD_OK);
    rod_chain_crba(r->chain, M);
    double *Mf = calloc((size_t)nf * nf, sizeof(double));
    for (int b = 0; b < nf; b++)
      for (int a = 0; a < nf; a++)
        Mf[a + (size_t)b * nf] = M[(f0 + a) + (size_t)(f0 + b) * nl] +
                                 (a == b && pass ? extra[f0 + a] : 0.0);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < nf; j++)
        Y[j + (size_t)i * nf] = c->J[i + (size_t)j * rows];
    ck_assert_int_eq(
        LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', nf, rows, Mf, nf, Y, nf), 0);
    double gmax = 0, err = 0;
    for (int i = 0; i < rows; i++)
      for (int k = 0; k < rows; k++) {
        double s = 0;
        for (int j = 0; j < nf; j++)
          s += c->J[i + (size_t)j * rows] * Y[j + (size_t)k * nf];
        gmax = fmax(gmax, fabs(s));
        err = fmax(err, fabs(s - c->G[i + (size_t)k * rows]));
      }
    ck_assert_msg(err <= 1e-11 * gmax, "pass %d: |G - dense| = %g of %g", pass,
                  err, gmax);
    free(Mf);
  }
  free(M);
  free(Y);
  free(extra);
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- the impulse: primal and dual ------------------------------------------
 */

/* Several points of a chain swinging down put on the table (gap 0): the
 * impulse by the dual problem (Delassus matrix, active set) and by the
 * primal one (velocities in the metric of M, Goldfarb-Idnani) give the
 * same velocities to 1e-9; afterwards no point approaches the table, and
 * the kinetic energy did not grow. */
static void impulse_with(bool primal, const double *v0, double *vout,
                         double *ke) {
  rod_rfem *r = swinging(false, 0.0);
  rfem_contacts *c = r->contact;
  memcpy(r->v, v0, (size_t)r->nlinks * sizeof(double));
  rod_chain_update(r->chain, r->q, r->v);
  if (primal)
    ck_assert_int_eq(rfem_contact_set_primal(r), ROD_OK);
  int n = 0;
  for (int slot = 2; slot <= r->nelements; slot += 2) {
    rfem_contact_eval(r, 0, slot, &c->c[n]);
    c->c[n++].gap = 0.0;
  }
  c->count = n;
  ke[0] = rod_chain_kinetic_energy(r->chain);
  ck_assert_int_eq(rfem_contact_impulse(r), ROD_OK);
  ke[1] = rod_chain_kinetic_energy(r->chain);
  memcpy(vout, r->v, (size_t)r->nlinks * sizeof(double));
  /* J v+ >= 0 on every contact */
  const int rows = rfem_contact_jacobian(r, c->c, n, 1);
  double vmax = 0;
  for (int j = 0; j < r->nlinks; j++)
    vmax = fmax(vmax, fabs(v0[j]));
  for (int i = 0; i < rows; i++) {
    double u = 0;
    for (int j = 0; j < r->nfree; j++)
      u += c->J[i + (size_t)j * rows] * r->v[r->first_free + j];
    ck_assert_msg(u >= -1e-12 * vmax, "contact %d approaches at %g m/s", i, u);
  }
  rod_backend_rfem.destroy(r);
}

START_TEST(impulse_primal_equals_dual) {
  rod_rfem *r = swinging(false, 0.0);
  const int nl = r->nlinks;
  double *v0 = malloc((size_t)nl * sizeof(double));
  double *vd = malloc((size_t)nl * sizeof(double));
  double *vp = malloc((size_t)nl * sizeof(double));
  /* the swinging velocities and a twist that makes the contacts differ */
  for (int j = 0; j < nl; j++)
    v0[j] = r->v[j] + (j % 3 == 1 ? 0.3 * sin(j) : 0.0);
  rod_backend_rfem.destroy(r);
  double ked[2], kep[2];
  impulse_with(false, v0, vd, ked);
  impulse_with(true, v0, vp, kep);
  double vmax = 0, diff = 0, change = 0;
  for (int j = 0; j < nl; j++) {
    vmax = fmax(vmax, fabs(v0[j]));
    diff = fmax(diff, fabs(vd[j] - vp[j]));
    change = fmax(change, fabs(vd[j] - v0[j]));
  }
  ck_assert_msg(change > 1e-3 * vmax, "the impulse changed nothing");
  ck_assert_msg(diff <= 1e-9 * vmax, "primal and dual differ by %g of %g", diff,
                vmax);
  ck_assert(ked[1] <= ked[0] && kep[1] <= kep[0]);
  ROD_ASSERT_NEAR(ked[1], kep[1], 1e-9 * ked[0]);
  free(v0);
  free(vd);
  free(vp);
}
END_TEST

/* ---- the rod resting on a table --------------------------------------------
 */

/* Static state of rod_on_table.ini with n elements: clamp moment and the
 * vertical clamp force (N m, N), and the arclength of the first node that
 * the table pushes. */
static void resting(int n, double out[3]) {
  rod_scenario sc;
  rod_test_load(&sc, "rod_on_table.ini");
  sc.rfem.segments = n;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  ck_assert(s.contact_gap_min >= -r->contact->tol);
  out[0] = s.moment[1];
  out[1] = -s.force[2];
  out[2] = -1;
  for (int i = 0; i < s.points && out[2] < 0; i++)
    if (s.contact_active[i]) {
      ck_assert(s.contact_force[3 * i + 2] > 0);
      out[2] = s.s[i];
    }
  rod_backend_rfem.destroy(r);
}

/* Small-deflection heavy elastica clamped at height h over a frictionless
 * table, lying on it from s = a: EI w'''' = q with w = h, w' = 0 at the
 * clamp and w = w' = w'' = 0 at a give a = (72 EI h / q)^(1/4), the clamp
 * moment q a^2 / 6 and force 2 q a / 3. h / a = 0.004: the slope's
 * nonlinear terms are 1e-5 of these. The chain touches at its nodes:
 * moment and force converge with the elements (40, 80), the touchdown lies
 * within an element of a. */
START_TEST(rod_on_table_heavy_elastica) {
  rod_scenario sc;
  rod_test_load(&sc, "rod_on_table.ini");
  const double EI = sc.rod.bending_stiffness, d = sc.rod.diameter;
  const double q = sc.rod.density * M_PI * d * d / 4 * 9.81;
  const double h = sc.base.position[2] - d / 2;
  const double a = pow(72 * EI * h / q, 0.25);
  ROD_ASSERT_NEAR(a, 0.4638, 1e-4); /* the scenario's comment */
  const double M = q * a * a / 6, F = 2 * q * a / 3;
  double e_prev = INFINITY;
  for (int n = 40; n <= 80; n *= 2) {
    double o[3];
    resting(n, o);
    const double e = fmax(fabs(o[0] / M - 1), fabs(o[1] / F - 1));
    fprintf(stderr,
            "%d elements: moment %.9g (%.9g), force %.9g (%.9g), "
            "touchdown %.4g (%.4g)\n",
            n, o[0], M, o[1], F, o[2], a);
    ck_assert_msg(e < e_prev / 2, "%d elements: error %g after %g", n, e,
                  e_prev);
    ck_assert(fabs(o[2] - a) <= sc.rod.length / n);
    e_prev = e;
  }
  ck_assert_msg(e_prev < 1e-3, "80 elements: moment or force off by %g",
                e_prev);
}
END_TEST

/* Large deflection: a 2 m rod ten times softer clamped 0.3 m above the
 * table (its contact-free equilibrium is not found: the rod would hang far
 * below the table, and the statics go to the table directly). Its
 * touchdown lies 2.9 % beyond the small-deflection one; the chain's clamp
 * moment and force converge to the nonlinear reference with the elements (50,
 * 100) and lie within 1e-3 of it at 100. */
START_TEST(rod_on_table_large_deflection) {
  rod_scenario sc;
  rod_test_load(&sc, "rod_on_table.ini");
  sc.rod.length = 2.0;
  sc.rod.bending_stiffness *= 0.1;
  const double h = 0.3, d = sc.rod.diameter;
  sc.base.position[2] = h + d / 2;
  const double EI = sc.rod.bending_stiffness;
  const double q = sc.rod.density * M_PI * d * d / 4 * 9.81;
  double ref[3];
  heavy_on_table(EI, q, h, ref);
  const double a_lin = pow(72 * EI * h / q, 0.25);
  ck_assert_msg(ref[0] > 1.02 * a_lin,
                "the case is not nonlinear: a = %g, linear %g", ref[0], a_lin);
  double e_prev = INFINITY;
  for (int n = 50; n <= 100; n *= 2) {
    sc.rfem.segments = n;
    rod_sample s;
    rod_rfem *r = at_static(&sc, &s);
    ck_assert(s.contact_gap_min >= -r->contact->tol);
    const double e =
        fmax(fabs(s.moment[1] / ref[1] - 1), fabs(-s.force[2] / ref[2] - 1));
    fprintf(stderr, "%d elements: moment %.9g (%.9g), force %.9g (%.9g)\n", n,
            s.moment[1], ref[1], -s.force[2], ref[2]);
    ck_assert_msg(e < e_prev / 1.5, "%d elements: error %g after %g", n, e,
                  e_prev);
    e_prev = e;
    rod_backend_rfem.destroy(r);
  }
  ck_assert_msg(e_prev < 1e-3, "100 elements: off by %g", e_prev);
}
END_TEST

/* The resting chain run from its static state stays there: the contact
 * forces equal the statics' reactions, nothing moves and nothing enters
 * the table. */
static void rest(void) {
  rod_scenario sc;
  rod_test_load(&sc, "rod_on_table.ini");
  sc.rfem.segments = 20;
  rod_step_stats st;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  const int np = s.points;
  double *f0 = malloc(3 * (size_t)np * sizeof(double));
  memcpy(f0, s.contact_force, 3 * (size_t)np * sizeof(double));
  double fsum = 0;
  for (int i = 0; i < np; i++)
    fsum += f0[3 * i + 2];
  ck_assert(fsum > 0);
  for (int k = 1; k <= 10; k++) {
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    ck_assert(s.contact_gap_min >= -r->contact->tol);
    double vmax = 0, df = 0;
    for (int i = 0; i < np; i++) {
      vmax = fmax(vmax, v3_norm(s.velocity + 3 * i));
      for (int j = 0; j < 3; j++)
        df = fmax(df, fabs(s.contact_force[3 * i + j] - f0[3 * i + j]));
    }
    /* the tolerance of the step's contact conditions moves the points by
     * up to tol: velocities of tol / dt at most */
    ck_assert_msg(vmax <= r->contact->tol / sc.time.dt, "step %d: |v| = %g", k,
                  vmax);
    ck_assert_msg(df <= 1e-6 * fsum, "step %d: forces changed by %g of %g", k,
                  df, fsum);
  }
  free(f0);
  rod_backend_rfem.destroy(r);
}

START_TEST(rest_stays_at_rest) {
  integrator = ROD_RFEM_RK4;
  rest();
}
END_TEST

/* The same under generalized-alpha (the nonsmooth scheme: a resting
 * contact is its fixed point). */
START_TEST(rest_stays_at_rest_genalpha) {
  integrator = ROD_RFEM_GENALPHA;
  rest();
}
END_TEST

static Suite *rfem_contact_problem_suite(void) {
  Suite *s = suite_create("rfem_contact_problem");
  TCase *m = tcase_create("contact");
  tcase_set_timeout(m, 120);
  tcase_add_test(m, delassus_matches_dense);
  tcase_add_test(m, impulse_primal_equals_dual);
  tcase_add_test(m, rod_on_table_heavy_elastica);
  tcase_add_test(m, rod_on_table_large_deflection);
  tcase_add_test(m, rest_stays_at_rest);
  tcase_add_test(m, rest_stays_at_rest_genalpha);
  suite_add_tcase(s, m);
  return s;
}

ROD_TEST_MAIN(rfem_contact_problem_suite)
