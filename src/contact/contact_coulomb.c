/* Coulomb friction as a nonlinear complementarity problem on the friction
 * cones: w = G l + b with, per contact (normal n, tangents t1, t2),
 *   separation  l = 0, w_n >= 0;
 *   sticking    w = 0, |l_t| <= mu l_n;
 *   sliding     w_n = 0, |l_t| = mu l_n, w_t = -c l_t with c > 0
 * (maximal dissipation). Nonsmooth block Gauss-Seidel (Jean & Moreau 1992;
 * Acary & Brogliato 2008, ch. 12) solves each contact's 3 x 3 problem
 * exactly with the others' forces fixed and sweeps until the forces settle.
 * A fixed point satisfies all the conditions at once. */
#include <math.h>
#include <string.h>

#include "contact/contact_solver.h"
#include "core/v3.h"
#include "rod/status.h"

/* Solve the 3 x 3 system W x = r (column-major) by Cramer's rule;
 * false when W is singular. */
static bool solve3(const double *W, const double *r, double *x) {
  const double a = W[0], b = W[3], c = W[6], d = W[1], e = W[4], f = W[7];
  const double g = W[2], h = W[5], i = W[8];
  const double A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
  const double det = a * A + b * B + c * C;
  if (!(fabs(det) > 0))
    return false;
  x[0] =
      (r[0] * A + b * (f * r[2] - r[1] * i) + c * (r[1] * h - e * r[2])) / det;
  x[1] =
      (a * (r[1] * i - f * r[2]) + r[0] * B + c * (d * r[2] - r[1] * g)) / det;
  x[2] =
      (a * (e * r[2] - r[1] * h) + b * (r[1] * g - d * r[2]) + r[0] * C) / det;
  return true;
}

/* The sliding state for the sliding direction s = (cos phi, sin phi):
 * l_t = -mu l_n s and w_n = 0 give l_n; then w_t. Returns false where the
 * normal force would not be positive. */
typedef struct {
  double ln, wt[2];
} slide_state;

static bool slide_at(const double *W, const double *q, double mu, double phi,
                     slide_state *out) {
  const double s0 = cos(phi), s1 = sin(phi);
  /* w_n = W_nn l_n + W_nt l_t + q_n = l_n (W_nn - mu W_nt s) + q_n */
  const double D = W[0] - mu * (W[3] * s0 + W[6] * s1);
  if (!(D > 0))
    return false;
  const double ln = -q[0] / D;
  if (!(ln > 0))
    return false;
  out->ln = ln;
  for (int k = 0; k < 2; k++) { /* w_t = W_tn l_n + W_tt l_t + q_t */
    const int r = 1 + k;
    out->wt[k] = W[r] * ln - mu * ln * (W[r + 3] * s0 + W[r + 6] * s1) + q[r];
  }
  return true;
}

/* w_t x s: zero where the sliding velocity is along s. */
static double slide_cross(const slide_state *st, double phi) {
  return st->wt[0] * sin(phi) - st->wt[1] * cos(phi);
}

int rod_contact_coulomb_local(const double *W, const double *q, double mu,
                              double *l) {
  if (q[0] >= 0) { /* separation */
    l[0] = l[1] = l[2] = 0.0;
    return ROD_OK;
  }
  if (mu <= 0) { /* frictionless: the tangents are free */
    l[0] = -q[0] / W[0];
    l[1] = l[2] = 0.0;
    return ROD_OK;
  }
  double r[3] = {-q[0], -q[1], -q[2]}, stick[3] = {0, 0, 0};
  const bool sticks = solve3(W, r, stick) && stick[0] > 0 &&
                      hypot(stick[1], stick[2]) <= mu * stick[0];
  /* sliding: scan the direction for a root of w_t x s with w_t . s > 0,
   * then bisect it. Where sticking and sliding both solve the problem (a
   * contact whose tangential motion is nearly blocked: the law is not
   * unique there), the solution with the smaller normal force. */
  double best = sticks ? stick[0] : INFINITY;
  v3_copy(l, stick);
  enum { SCAN = 64 };
  double prev_phi = 0, prev_f = 0;
  bool prev_ok = false;
  for (int k = 0; k <= SCAN; k++) {
    /* offset from the axes, where symmetric problems have their roots; the
     * last point is the first turned once round */
    const double phi = 2.0 * M_PI * (k + 0.371) / SCAN;
    slide_state st;
    bool ok = slide_at(W, q, mu, phi, &st);
    double f = ok ? slide_cross(&st, phi) : 0.0;
    if (ok && prev_ok && (f == 0 || (f > 0) != (prev_f > 0))) {
      double lo = prev_phi, hi = phi, flo = prev_f;
      for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        slide_state sm;
        if (!slide_at(W, q, mu, mid, &sm))
          break;
        double fm = slide_cross(&sm, mid);
        if ((fm > 0) == (flo > 0)) {
          lo = mid;
          flo = fm;
        } else {
          hi = mid;
        }
      }
      const double phi_r = 0.5 * (lo + hi);
      slide_state sr;
      if (slide_at(W, q, mu, phi_r, &sr) &&
          sr.wt[0] * cos(phi_r) + sr.wt[1] * sin(phi_r) >= 0 && sr.ln < best) {
        best = sr.ln;
        l[0] = sr.ln;
        l[1] = -mu * sr.ln * cos(phi_r);
        l[2] = -mu * sr.ln * sin(phi_r);
      }
    }
    prev_phi = phi;
    prev_f = f;
    prev_ok = ok;
  }
  if (isfinite(best))
    return ROD_OK;
  /* no solution: the sticking force projected on the cone */
  v3_copy(l, stick);
  if (!(l[0] > 0)) {
    l[0] = l[1] = l[2] = 0.0;
  } else {
    double t = hypot(l[1], l[2]);
    if (t > mu * l[0]) {
      l[1] *= mu * l[0] / t;
      l[2] *= mu * l[0] / t;
    }
  }
  return ROD_ENOCONV;
}

int rod_contact_coulomb(rod_contact_solver *s, int nc, const double *G,
                        const double *b, const double *mu, double tolerance,
                        int max_sweeps, double *l, rod_contact_stats *st) {
  const int m = 3 * nc;
  if (nc < 0 || m > s->mmax)
    return ROD_EINVAL;
  int status = ROD_ENOCONV, sweep = 0;
  double change = 0;
  for (sweep = 1; sweep <= max_sweeps; sweep++) {
    change = 0;
    double largest = 0;
    for (int k = 0; k < nc; k++) {
      double W[9], q[3], lk[3];
      for (int r = 0; r < 3; r++) {
        const int i = 3 * k + r;
        double acc = b[i];
        for (int j = 0; j < m; j++)
          acc += G[i + (size_t)j * m] * l[j];
        for (int c = 0; c < 3; c++) {
          W[r + 3 * c] = G[i + (size_t)(3 * k + c) * m];
          acc -= W[r + 3 * c] * l[3 * k + c];
        }
        q[r] = acc;
      }
      rod_contact_coulomb_local(W, q, mu[k], lk);
      for (int r = 0; r < 3; r++) {
        change = fmax(change, fabs(lk[r] - l[3 * k + r]));
        l[3 * k + r] = lk[r];
        largest = fmax(largest, fabs(lk[r]));
      }
    }
    if (change <= tolerance * largest) {
      status = ROD_OK;
      break;
    }
  }
  if (st) {
    st->iterations = sweep > max_sweeps ? max_sweeps : sweep;
    /* the normal conditions' violation, in units of b */
    double res = 0;
    for (int k = 0; k < nc; k++) {
      double wn = b[3 * k];
      for (int j = 0; j < m; j++)
        wn += G[3 * k + (size_t)j * m] * l[j];
      res = fmax(res, -wn);
      if (l[3 * k] > 0)
        res = fmax(res, fabs(wn));
    }
    st->residual = res;
  }
  return status;
}
