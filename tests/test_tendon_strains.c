/* The tendons' constitutive law at one evaluation point (rod_tendon.h)
 * against a second solution of it: the closed-form path of one taut tendon
 * on the Cosserat rod against Newton's method on all six strains, the
 * start from the last solve at a point against a start from the
 * tendon-free strains, and the tangent of both against differences. */
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"
#include "scenarioutil.h"

/* Uniform in [-1, 1) from a fixed sequence. */
static double rnd(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return ((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

/* Random constants of a step (the ranges of test_tendon.c's tangent test:
 * shear compliances up to 2.5e-4 / N, tensions up to 20 N at up to 2 cm,
 * a strong coupling), taut tendons the first `taut` of three. */
static void random_problem(unsigned *seed, bool cosserat, int taut,
                           rod_rhs_const *c, rod_hist_point *hp, double *route,
                           double *y) {
  memset(c, 0, sizeof *c);
  c->cosserat = cosserat;
  c->c0 = 300 * (1 + rnd(seed));
  c->rho_area = 0.02 * (1.5 + rnd(seed));
  c->tau_fac = 1e-3 * (1 + rnd(seed));
  for (int i = 0; i < 3; i++) {
    c->ki[i] = 5 * (1.5 + rnd(seed));
    c->kse[i] = 1e-4 * (1.5 + rnd(seed));
    c->K[i] = 1.0 / c->ki[i];
    c->Kse[i] = 1.0 / c->kse[i];
    c->av0[i] = (i == 2 ? 1.0 : 0.0) + 1e-3 * rnd(seed);
    c->loads.ns_dead[i] = rnd(seed);
  }
  c->ntendons = 3;
  for (int i = 0; i < 3; i++) {
    c->tension[i] = i < taut ? 10 * (1 + rnd(seed)) + 0.1 : 0.0;
    for (int j = 0; j < ROD_ROUTE; j++)
      route[ROD_ROUTE * i + j] = 0.02 * rnd(seed) * (j < 2 ? 1 : 3);
    route[ROD_ROUTE * i + 6] = 1.0;
  }
  for (int i = 0; i < 3; i++) {
    hp->Q[i] = rnd(seed);
    hp->U[i] = rnd(seed);
    hp->V[i] = 1e-3 * rnd(seed);
    hp->W[i] = 0;
  }
  for (int i = 0; i < ROD_NY; i++)
    y[i] = 0.2 * rnd(seed);
  y[ROD_Y_H] += 1.5;
}

static double strain_gap(const rod_rhs_work *a, const double *u,
                         const double *v) {
  double d = 0, s = 0;
  for (int i = 0; i < 3; i++) {
    d = fmax(d, fmax(fabs(a->u[i] - u[i]), fabs(a->v[i] - v[i])));
    s = fmax(s, fmax(fabs(u[i]), fabs(v[i])));
  }
  return d / s;
}

/* One taut tendon on the Cosserat rod (two slack ones beside it): the
 * strains of rod_rhs_eval (rod_tendon_single) against Newton's method on
 * the six strains (rod_tendon_newton) from the tendon-free ones, 1e-12
 * relative; the law's residual at them below 1e-12 of K u and Kse v (the
 * rounding of the strains themselves). */
START_TEST(single_tendon_matches_newton_on_six_strains) {
  unsigned seed = 5;
  double route[3 * ROD_ROUTE], y[ROD_NY];
  for (int trial = 0; trial < 400; trial++) {
    rod_rhs_const c;
    rod_hist_point hp;
    random_problem(&seed, true, 1, &c, &hp, route, y);
    rod_rhs_point pt = {
        {0.3 * rnd(&seed), 0.3 * rnd(&seed), 0}, route, NULL, NULL};
    double f[ROD_NY];
    rod_rhs_work wk;
    rod_rhs_eval(&c, &hp, &pt, y, f, &wk, true);
    ck_assert_msg(wk.tL[35] < 0, "trial %d: not the single path", trial);
    /* u0, v0 as rod_rhs_eval forms them, then all six by Newton */
    double R[9], Rtm[3], Rtn[3], u0[3], v0[3], u[3], v[3], kd[3], ksd[3];
    double Lf[36];
    quat_to_R(R, y + ROD_Y_H);
    m3_mul_tv(Rtm, R, y + ROD_Y_M);
    m3_mul_tv(Rtn, R, y + ROD_Y_N);
    for (int i = 0; i < 3; i++) {
      u0[i] = c.ki[i] * Rtm[i] + (pt.ustar[i] - c.tau_fac * hp.U[i]);
      v0[i] = c.kse[i] * Rtn[i] + (c.av0[i] - c.tau_fac_se * hp.V[i]);
      u[i] = u0[i];
      v[i] = v0[i];
      kd[i] = 1.0 / c.ki[i];
      ksd[i] = 1.0 / c.kse[i];
    }
    ck_assert(rod_tendon_newton(c.ntendons, c.tension, route, kd, ksd, 6, u0,
                                v0, u, v, Lf, 30));
    const double gap = strain_gap(&wk, u, v);
    ck_assert_msg(gap < 1e-12, "trial %d: strains off by %.3g", trial, gap);
    /* the law at rod_rhs_eval's strains */
    double t[3], rxt[3];
    const double r[3] = {route[0], route[1], 0};
    rod_tendon_tangent(route, wk.u, wk.v, t);
    v3_cross(rxt, r, t);
    double res = 0, scale = 0;
    for (int i = 0; i < 3; i++) {
      const double tu = kd[i] * (wk.u[i] - u0[i]),
                   tv = ksd[i] * (wk.v[i] - v0[i]);
      res = fmax(res, fmax(fabs(tu + c.tension[0] * rxt[i]),
                           fabs(tv + c.tension[0] * t[i])));
      /* the strains' own rounding: kd |u|, ksd |v| */
      scale = fmax(scale, fmax(kd[i] * fabs(wk.u[i]), ksd[i] * fabs(wk.v[i])));
    }
    ck_assert_msg(res < 1e-12 * scale, "trial %d: residual %.3g of %.3g", trial,
                  res, scale);
  }
}
END_TEST

/* Evaluations at one point that keep the tendons' share (pt.tz) and start
 * from it, as the sweeps do, along a path of states (each a small step from
 * the last, then a large jump): the strains of a start from the tendon-free
 * ones within 1e-12 relative, and rod_rhs_tangent after each warm start
 * against central differences (1e-7, as test_tendon.c). Both models, one
 * and three taut tendons. */
START_TEST(start_from_last_solve_changes_nothing) {
  unsigned seed = 23;
  double route[3 * ROD_ROUTE], y[ROD_NY], dy[ROD_NY];
  for (int trial = 0; trial < 120; trial++) {
    const bool cosserat = trial % 2;
    const int taut = trial % 4 < 2 ? 1 : 3;
    rod_rhs_const c;
    rod_hist_point hp;
    random_problem(&seed, cosserat, taut, &c, &hp, route, y);
    double tz[6];
    tz[0] = NAN;
    rod_rhs_point warm = {
        {0.3 * rnd(&seed), 0.3 * rnd(&seed), 0}, route, tz, NULL};
    rod_rhs_point cold = warm;
    cold.tz = NULL;
    for (int k = 0; k < 12; k++) {
      const double size = k == 8 ? 0.2 : 1e-3 / (1 + k);
      for (int i = 0; i < ROD_NY; i++) {
        y[i] += size * rnd(&seed);
        dy[i] = rnd(&seed);
      }
      double f[ROD_NY], fc[ROD_NY], df[ROD_NY], fp[ROD_NY], fm[ROD_NY];
      double yp[ROD_NY], ym[ROD_NY];
      rod_rhs_work wk, wc, wp, wm;
      rod_rhs_eval(&c, &hp, &cold, y, fc, &wc, true);
      rod_rhs_eval(&c, &hp, &warm, y, f, &wk, true);
      const double gap = strain_gap(&wk, wc.u, wc.v);
      ck_assert_msg(gap < 1e-12, "trial %d/%d: strains off by %.3g", trial, k,
                    gap);
      rod_rhs_tangent(&c, y, &wk, dy, df, true);
      const double e = 1e-6;
      for (int i = 0; i < ROD_NY; i++) {
        yp[i] = y[i] + e * dy[i];
        ym[i] = y[i] - e * dy[i];
      }
      rod_rhs_eval(&c, &hp, &cold, yp, fp, &wp, true);
      rod_rhs_eval(&c, &hp, &cold, ym, fm, &wm, true);
      double scale = 0, diff = 0;
      for (int i = 0; i < ROD_NY; i++) {
        const double fd = (fp[i] - fm[i]) / (2 * e);
        scale = fmax(scale, fabs(fd));
        diff = fmax(diff, fabs(fd - df[i]));
      }
      ck_assert_msg(diff < 1e-7 * scale,
                    "trial %d/%d: tangent off by %.3g of %.3g", trial, k, diff,
                    scale);
    }
  }
}
END_TEST

static Suite *tendon_strains_suite(void) {
  Suite *s = suite_create("tendon_strains");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, single_tendon_matches_newton_on_six_strains);
  tcase_add_test(tc, start_from_last_solve_changes_nothing);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_strains_suite)
