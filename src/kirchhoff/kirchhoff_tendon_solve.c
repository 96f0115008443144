/* Displacement-controlled tendons (docs/tendons.md): the tension of a
 * tendon whose motor pulls in a given length follows from its length
 * constraint, solved around the step's (or the static state's) shooting.
 *
 * Tendon i's unknown xi_i gives its tension tau_i = max(xi_i, 0) and its
 * slack length max(-xi_i, 0) (m), and the constraint (the model of Till,
 * Aloi & Rucker 2019's dynamics example) is
 *
 *   g_i = b_i + l_i(tau) + max(-xi_i, 0) - (l0_i + b_i - dl_i(t)) (1 + c_i
 *   tau_i) = 0,
 *
 * l_i the tendon's length along its routing from start to end (the sweep's
 * quadrature of |p_i,s|, kr_tendon_lengths), l0_i that length on the
 * unloaded rod, b_i base_to_motor, dl_i the length the motor has pulled in
 * and c_i the compliance: the commanded length l* = l0 + b - dl stretched
 * by c tau l*. A slack tendon (xi < 0) carries nothing and its slack takes
 * up the length the rod does not need.
 *
 * For the unknowns xi the rod's shooting is solved to solver.tolerance
 * (its unknowns n(0), m(0) at fixed tensions), and the constraints by
 * Newton's method on xi with a Jacobian dg/dxi kept from solve to solve
 * and updated by Broyden's rule (its first value that of the weightless
 * straight rod: dl_i/dtau_j = -int r_i.K^-1 r_j ds (- int 1/EA ds on the
 * Cosserat rod, i = j), -c_i l*_i; a slack tendon's column is -e_i
 * exactly). The unknowns are predicted linearly in time from the last two
 * solves. The iteration stops when every Newton step of the tensions is
 * below solver.tolerance in the shooting's force unit EI / L^2. */
#include <math.h>
#include <string.h>

#include "core/solve_small.h"
#include "kirchhoff/kirchhoff_solve.h"

enum { KR_TENDON_ITERATIONS = 60, KR_TENDON_BACKTRACKS = 8 };

/* The weightless straight rod's dg/dxi for taut tendons (m/N). */
static void initial_jacobian(rod_kirchhoff *k) {
  static const double rk4[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
  const int nd = k->ndisp, n = k->sc.tendons.count, S = k->stages;
  const rod_rhs_const *rc = &k->rc;
  double *B = k->disp_B;
  memset(B, 0, sizeof k->disp_B);
  for (int j = 0; j < k->intervals; j++)
    for (int st = 0; st < S; st++) {
      const size_t p = (size_t)S * j + st;
      const double w = k->len[j] * (S == 4 ? rk4[st] : 1.0);
      const double *route = k->pt[p].route;
      for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++) {
          const double *ra = route + ROD_ROUTE * k->disp[a];
          const double *rb = route + ROD_ROUTE * k->disp[b];
          if (ra[6] == 0 || rb[6] == 0)
            continue;
          /* r_a . K^-1 r_b with K = (EI_1, EI_2): the moment tau (r x e3)
           * = tau (r_y, -r_x, 0) bends by u = K^-1 of it */
          double d = ra[1] * rb[1] / rc->K[0] + ra[0] * rb[0] / rc->K[1];
          if (rc->cosserat && a == b)
            d += 1.0 / rc->Kse[2];
          B[nd * a + b] -= w * d;
        }
    }
  (void)n;
  for (int a = 0; a < nd; a++) {
    const rod_tendon_def *t = &k->sc.tendons.item[k->disp[a]];
    const double lstar =
        k->tendon_rest[k->disp[a]] + t->base_to_motor - k->disp_dl[a];
    B[nd * a + a] -= t->compliance * lstar;
  }
  k->disp_have_B = true;
}

/* The constraints g (m) at the last sweep (its lengths into
 * k->tendon_length). */
static void constraints(rod_kirchhoff *k, double *g) {
  kr_tendon_lengths(k);
  for (int d = 0; d < k->ndisp; d++) {
    const int i = k->disp[d];
    const rod_tendon_def *t = &k->sc.tendons.item[i];
    const double xi = k->disp_xi[d], tau = fmax(xi, 0.0);
    const double lstar = k->tendon_rest[i] + t->base_to_motor - k->disp_dl[d];
    g[d] = t->base_to_motor + k->tendon_length[i] + fmax(-xi, 0.0) -
           lstar * (1.0 + t->compliance * tau);
    k->disp_residual[d] = g[d];
  }
}

/* The Jacobian at xi: B's columns of the taut tendons, -e_d of the slack
 * ones. */
static void effective_jacobian(const rod_kirchhoff *k, double *J) {
  const int nd = k->ndisp;
  for (int a = 0; a < nd; a++)
    for (int b = 0; b < nd; b++)
      J[nd * a + b] =
          k->disp_xi[b] >= 0 ? k->disp_B[nd * a + b] : (a == b ? -1.0 : 0.0);
}

/* Broyden's update of dx/dxi (the shooting's scaled unknowns by the
 * tendons' unknowns) from the last two solves. */
static void sensitivity_update(rod_kirchhoff *k, const double *x,
                               const double *x_old, const double *xi_old) {
  const int nd = k->ndisp;
  double dd = 0;
  for (int d = 0; d < nd; d++)
    dd += (k->disp_xi[d] - xi_old[d]) * (k->disp_xi[d] - xi_old[d]);
  if (!(dd > 0))
    return;
  for (int i = 0; i < 6; i++) {
    double r = x[i] - x_old[i];
    for (int d = 0; d < nd; d++)
      r -= k->disp_Sx[nd * i + d] * (k->disp_xi[d] - xi_old[d]);
    for (int d = 0; d < nd; d++)
      k->disp_Sx[nd * i + d] += r * (k->disp_xi[d] - xi_old[d]) / dd;
  }
}

/* The unknowns at time t from the last two solves, linear in time. */
static void predict(rod_kirchhoff *k, double t) {
  if (k->disp_n_past == 0)
    return;
  const double t1 = k->disp_past_t[0], t0 = k->disp_past_t[1];
  const double *x1 = k->disp_past_xi[0], *x0 = k->disp_past_xi[1];
  const bool linear = k->disp_n_past > 1 && t > t1 && t1 > t0;
  for (int d = 0; d < k->ndisp; d++)
    k->disp_xi[d] =
        linear ? x1[d] + (x1[d] - x0[d]) * (t - t1) / (t1 - t0) : x1[d];
}

static void remember(rod_kirchhoff *k, double t) {
  if (k->disp_n_past > 0 && t == k->disp_past_t[0]) {
    memcpy(k->disp_past_xi[0], k->disp_xi, sizeof k->disp_xi);
    return;
  }
  k->disp_past_t[1] = k->disp_past_t[0];
  memcpy(k->disp_past_xi[1], k->disp_past_xi[0], sizeof k->disp_xi);
  k->disp_past_t[0] = t;
  memcpy(k->disp_past_xi[0], k->disp_xi, sizeof k->disp_xi);
  if (k->disp_n_past < 2)
    k->disp_n_past++;
}

int kr_tendon_solve(rod_kirchhoff *k, double t, double *x,
                    kr_tendon_inner *inner, void *ctx) {
  if (k->ndisp == 0)
    return inner(k, ctx);
  enum { N = ROD_TENDONS_MAX };
  const int nd = k->ndisp;
  /* a tension off by dtau bends the rod as a moment dtau |r| would: the
   * steps stop where that is below the shooting's tolerance (in its
   * moment unit EI / L), the force unit's where the tendons run on the
   * axis */
  double rmax = 0;
  for (int d = 0; d < nd; d++)
    rmax = fmax(rmax, k->disp_rmax[d]);
  const double tol = k->sc.solver.tolerance *
                     (rmax > 0 ? k->moment_scale / rmax : k->force_scale);
  double g[N], g_old[N], xi_old[N], J[N * N], step[N], xi_good[N], x_old[6];
  bool have_old = false, have_good = k->disp_n_past > 0;
  memcpy(xi_good, k->disp_past_xi[0], sizeof xi_good);
  predict(k, t);
  k->disp_warm = false;
  int backtracks = 0, status = ROD_ENOCONV;
  const bool held = k->predict_hold;
  for (int it = 0; it < KR_TENDON_ITERATIONS; it++) {
    status = inner(k, ctx); /* poses the loads at xi (kr_tendon_set) */
    if (status != ROD_OK) {
      /* a shooting that fails at these tensions: halfway back to the
       * last ones it solved, from the prediction */
      if (!have_good || ++backtracks > KR_TENDON_BACKTRACKS)
        break;
      if (!k->predict_hold) /* and from the last step's state */
        kr_predict_hold(k, true);
      for (int d = 0; d < nd; d++)
        k->disp_xi[d] = 0.5 * (k->disp_xi[d] + xi_good[d]);
      have_old = false;
      k->disp_warm = false;
      continue;
    }
    if (x && have_old) /* the shooting's unknowns by the tensions */
      sensitivity_update(k, x, x_old, xi_old);
    memcpy(xi_good, k->disp_xi, sizeof xi_good);
    have_good = true;
    k->disp_warm = true;
    constraints(k, g);
    if (!k->disp_have_B)
      initial_jacobian(k);
    if (have_old) { /* Broyden's update of the taut columns, when no
                       tendon went slack or taut since */
      bool same = true;
      double dd = 0;
      for (int d = 0; d < nd; d++) {
        same = same && (k->disp_xi[d] >= 0) == (xi_old[d] >= 0);
        if (xi_old[d] >= 0)
          dd += (k->disp_xi[d] - xi_old[d]) * (k->disp_xi[d] - xi_old[d]);
      }
      if (same && dd > 0) {
        effective_jacobian(k, J);
        for (int a = 0; a < nd; a++) {
          double r = g[a] - g_old[a];
          for (int b = 0; b < nd; b++)
            r -= J[nd * a + b] * (k->disp_xi[b] - xi_old[b]);
          for (int b = 0; b < nd; b++)
            if (xi_old[b] >= 0)
              k->disp_B[nd * a + b] += r * (k->disp_xi[b] - xi_old[b]) / dd;
        }
      }
    }
    effective_jacobian(k, J);
    memcpy(step, g, sizeof g);
    if (!rod_solve_small(J, nd, step, 1)) {
      status = ROD_ESING;
      break;
    }
    bool done = true;
    for (int d = 0; d < nd; d++)
      done = done && !(fabs(step[d]) > tol);
    if (done) {
      remember(k, t);
      status = ROD_OK;
      break;
    }
    memcpy(xi_old, k->disp_xi, sizeof xi_old);
    memcpy(g_old, g, sizeof g_old);
    if (x)
      memcpy(x_old, x, sizeof x_old);
    have_old = true;
    for (int d = 0; d < nd; d++) {
      k->disp_xi[d] -= step[d];
      for (int i = 0; x && i < 6; i++) /* the next solve's start */
        x[i] -= k->disp_Sx[nd * i + d] * step[d];
    }
  }
  k->disp_warm = false;
  if (k->predict_hold && !held)
    kr_predict_hold(k, false);
  return status;
}
