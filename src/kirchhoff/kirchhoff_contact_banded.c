/* The static contact problem's Newton model over the nodes, banded
 * (docs/contact.md, docs/numerics.md): one update of the forces in time
 * linear in the nodes.
 *
 * At the solution of the rod at the forces F (last sweep at it), the
 * sweep's linearisation is local: node j + 1's states follow from node
 * j's by the interval's RK4 map, dy_(j+1) = A_j dy_j - n_(j+1) dF_(j+1)
 * (the contact force's jump of n), the positions by the trapezoidal rule
 * of p_s = R v, dp_(j+1) = dp_j + h_j / 2 (D_j dy_j + D_(j+1) dy_(j+1)),
 * and the gap of node i by its position, dg_i = grad d . dp_i. With the
 * clamp's rotation fixed (dh_0 = 0, dp_0 = 0) and the tip's conditions
 * linearised (dr/dy dy_tip = -r), these equations and one row per node
 * for the contact conditions form a banded system of (states + positions
 * + 1) unknowns per node: the compliance C = d gap / d F is its Schur
 * complement, never formed (a dense C costs a sweep per column and an
 * eigen-decomposition per update, quadratic and cubic in the pressed
 * nodes).
 *
 * The linear complementarity problem gap + dg >= 0 _|_ F' >= 0 on that
 * model is solved by the primal-dual active-set method (Hintermueller,
 * Ito and Kunisch 2003: semismooth Newton on min(F', gap + dg) = 0): the
 * active nodes' rows hold their gaps at zero, the others' forces at zero,
 * one banded LU (LAPACK dgbsv) per active set, the set updated to the
 * nodes whose force pushes or whose gap would be negative, until it
 * repeats. Each iteration is linear in the nodes. The model's error (the
 * trapezoidal positions against RK4's quadrature, O(h^2) of the
 * response) only slows the outer Newton on the forces
 * (kirchhoff_contact_newton.c), whose fixed point is the contact solution
 * whatever the model. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "kirchhoff/kirchhoff_contact_data.h"

/* Unknowns of the model per node: the states it carries (ns), the
 * position (np) and the force. A rod in the x-z plane (k->planar) carries
 * h0, h2, n_x, n_z, m_y and p_x, p_z; else h, n, m (10) and p (3). In the
 * statics q = w = 0 and c0 = 0: no state drives them (rod_rhs.h), so the
 * model leaves them out. */
typedef struct {
  int ns, np, nh, ne; /* states, positions, clamp rows (dh), end rows */
  int B;              /* unknowns per node: ns + np + 1 */
  int kl, ku, ldab;   /* the band (LAPACK's storage) */
  int st[10];         /* the states' indices in y */
  int pc[3];          /* the positions' components */
  int er[6];          /* the end residual's rows */
} kr_band_layout;

static void layout(kr_band_layout *L, bool planar) {
  static const int st2[5] = {ROD_Y_H, ROD_Y_H + 2, ROD_Y_N, ROD_Y_N + 2,
                             ROD_Y_M + 1};
  static const int pc2[2] = {0, 2}, er2[3] = {0, 2, 4};
  if (planar) {
    L->ns = 5, L->np = 2, L->nh = 2, L->ne = 3;
    memcpy(L->st, st2, sizeof st2);
    memcpy(L->pc, pc2, sizeof pc2);
    memcpy(L->er, er2, sizeof er2);
  } else {
    L->ns = 10, L->np = 3, L->nh = 4, L->ne = 6;
    for (int i = 0; i < 10; i++)
      L->st[i] = i;
    for (int i = 0; i < 3; i++)
      L->pc[i] = i;
    for (int i = 0; i < 6; i++)
      L->er[i] = i;
  }
  L->B = L->ns + L->np + 1;
  /* rows of node j + 1's block start at (j + 1) B - ne; the farthest
   * entries below the diagonal are the positions' on node j's states,
   * above it the states' on node j + 1's force */
  L->kl = 2 * L->B - L->ne - 2;
  L->ku = L->B - 1 + L->ne;
  L->ldab = 2 * L->kl + L->ku + 1;
}

/* the workspace's sizes (kirchhoff_contact_data.h) hold the 3D layout */
_Static_assert(KR_BAND_UNKNOWNS == 14 && KR_BAND_LDAB == 2 * 20 + 19 + 1,
               "the band's workspace");

/* Active-set iterations from the current forces' set before the
 * interior-point method finds one, and after it. */
enum { KR_BAND_SETS = 4, KR_BAND_SETS_AFTER = 8 };

/* Entry (r, c) of the band matrix ab (LAPACK's dgbsv storage). */
static inline double *at(const kr_band_layout *L, double *ab, int r, int c) {
  return ab + (size_t)(L->kl + L->ku + r - c) + (size_t)c * L->ldab;
}

/* d p_s / d y (np x ns, column-major) at the states y: p_s = R v,
 * Kirchhoff v = e3, Cosserat v = kse .* R^T n + av (rod_rhs.h); a turn
 * dtheta = 2 vec(conj(h) dh) / |h|^2 (body frame) moves it by R (dtheta x
 * v + dv), dv = kse .* (R^T n x dtheta + R^T dn). The tendons' share of
 * dv is left out (a model). */
static void ps_tangent(const rod_kirchhoff *k, const kr_band_layout *L,
                       const double *y, double *D) {
  const double *h = y + ROD_Y_H, *n = y + ROD_Y_N;
  double R[9], v[3] = {0, 0, 1}, Rtn[3];
  quat_to_R(R, h);
  m3_mul_tv(Rtn, R, n);
  const bool cosserat = k->rc.cosserat;
  if (cosserat)
    for (int i = 0; i < 3; i++)
      v[i] = k->rc.kse[i] * Rtn[i] + k->rc.av0[i];
  const double s =
      2.0 / (h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3]);
  for (int b = 0; b < L->ns; b++) {
    double dy[ROD_NY] = {0};
    dy[L->st[b]] = 1.0;
    const double *dh = dy + ROD_Y_H, *dn = dy + ROD_Y_N;
    const double th[3] = {
        s * (h[0] * dh[1] - h[1] * dh[0] - h[2] * dh[3] + h[3] * dh[2]),
        s * (h[0] * dh[2] + h[1] * dh[3] - h[2] * dh[0] - h[3] * dh[1]),
        s * (h[0] * dh[3] - h[1] * dh[2] + h[2] * dh[1] - h[3] * dh[0])};
    double t[3], dv[3] = {0, 0, 0};
    if (cosserat) {
      double a[3], c[3];
      v3_cross(a, Rtn, th);
      m3_mul_tv(c, R, dn);
      for (int i = 0; i < 3; i++)
        dv[i] = k->rc.kse[i] * (a[i] + c[i]);
    }
    v3_cross(t, th, v);
    v3_add(t, t, dv);
    double dps[3];
    m3_mul_v(dps, R, t);
    for (int c = 0; c < L->np; c++)
      D[c + L->np * b] = dps[L->pc[c]];
  }
}

/* The right-hand side of the states at stage `stage` of interval j and
 * its tangent on the nd directions dy (ROD_NY each) into f and df; the
 * directions' d p_s into dps (np each, by D). */
static void stage_rhs(const rod_kirchhoff *k, const kr_band_layout *L, int j,
                      int stage, const double *y, const double *dy, int nd,
                      double *f, double *df, double *dps) {
  const size_t p = (size_t)k->stages * j + stage;
  rod_rhs_work wk;
  if (k->planar)
    rod_rhs_eval_planar(&k->rc, &k->hp[p], &k->pt[p], y, f, &wk, k->general);
  else
    rod_rhs_eval(&k->rc, &k->hp[p], &k->pt[p], y, f, &wk, k->general);
  double D[3 * 10];
  ps_tangent(k, L, y, D);
  for (int d = 0; d < nd; d++) {
    const double *e = dy + ROD_NY * d;
    if (k->planar)
      rod_rhs_tangent_planar(&k->rc, y, &wk, e, df + ROD_NY * d, k->general);
    else
      rod_rhs_tangent(&k->rc, y, &wk, e, df + ROD_NY * d, k->general);
    for (int c = 0; c < L->np; c++) {
      double v = 0;
      for (int b = 0; b < L->ns; b++)
        v += D[c + L->np * b] * e[L->st[b]];
      dps[c + L->np * d] = v;
    }
  }
}

/* The interval's map from node j's states y (the sweep's RK4 or Euler
 * step, as kirchhoff_sweep.c takes it, with the positions as the
 * quadratures integrate them): its derivative A = d y_(j+1) / d y_j (the
 * model's states, ns x ns) and P = d (p_(j+1) - p_j) / d y_j (np x ns),
 * column-major. */
static void interval_map(const rod_kirchhoff *k, const kr_band_layout *L, int j,
                         const double *y0, double *A, double *P) {
  enum { M = ROD_NY * 10 };
  const int ns = L->ns, np = L->np, n = ROD_NY * ns;
  const double h = k->len[j];
  double y[ROD_NY], yt[ROD_NY], f[ROD_NY], dy[M], dyt[M], df[M], acc[M];
  double dps[3 * 10], pacc[3 * 10];
  memcpy(y, y0, sizeof y);
  memset(dy, 0, sizeof dy);
  for (int b = 0; b < ns; b++)
    dy[ROD_NY * b + L->st[b]] = 1.0;
  if (k->stages != 4) { /* Euler */
    stage_rhs(k, L, j, 0, y, dy, ns, f, df, dps);
    for (int i = 0; i < n; i++)
      acc[i] = dy[i] + h * df[i];
    for (int i = 0; i < np * ns; i++)
      pacc[i] = h * dps[i];
  } else {
    static const double cst[4] = {0.5, 0.5, 1.0, 0.0}, wst[4] = {1, 2, 2, 1};
    memcpy(yt, y, sizeof yt);
    memcpy(dyt, dy, sizeof dyt);
    memset(acc, 0, sizeof acc);
    memset(pacc, 0, sizeof pacc);
    for (int st = 0; st < 4; st++) {
      stage_rhs(k, L, j, st, yt, dyt, ns, f, df, dps);
      for (int i = 0; i < n; i++)
        acc[i] += wst[st] * df[i];
      for (int i = 0; i < np * ns; i++)
        pacc[i] += wst[st] * dps[i];
      for (int i = 0; i < ROD_NY; i++)
        yt[i] = y[i] + cst[st] * h * f[i];
      for (int i = 0; i < n; i++)
        dyt[i] = dy[i] + cst[st] * h * df[i];
    }
    for (int i = 0; i < n; i++)
      acc[i] = dy[i] + h / 6.0 * acc[i];
    for (int i = 0; i < np * ns; i++)
      pacc[i] *= h / 6.0;
  }
  for (int b = 0; b < ns; b++)
    for (int a = 0; a < ns; a++)
      A[a + ns * b] = acc[ROD_NY * b + L->st[a]];
  memcpy(P, pacc, (size_t)(np * ns) * sizeof(double));
}

/* The model's rows that do not depend on the active set, into ab (and
 * the right-hand side into rhs): the clamp, the intervals and the tip,
 * at the last sweep (the solution at the forces applied). */
static void assemble(rod_kirchhoff *k, const kr_band_layout *L, double *ab,
                     double *rhs) {
  kr_contact *c = k->contact;
  const int N = k->nodes, B = L->B, ns = L->ns, np = L->np;
  const size_t nz = (size_t)B * N;
  memset(ab, 0, (size_t)L->ldab * nz * sizeof(double));
  memset(rhs, 0, nz * sizeof(double));
  /* the clamp: dh_0 = 0, dp_0 = 0 (the force row is set per active set) */
  for (int a = 0; a < L->nh; a++)
    *at(L, ab, a, a) = 1.0;
  for (int e = 0; e < np; e++)
    *at(L, ab, L->nh + e, ns + e) = 1.0;
  double A[10 * 10], P[3 * 10];
  for (int j = 0; j + 1 < N; j++) {
    const int r0 = (j + 1) * B - L->ne; /* node j + 1's block */
    const int cj = j * B, cn = (j + 1) * B;
    interval_map(k, L, j, k->node_y + (size_t)j * KR_NODE, A, P);
    /* dy_(j+1) - A_j dy_j + n_(j+1) F'_(j+1) = n_(j+1) F_(j+1) */
    for (int a = 0; a < ns; a++) {
      *at(L, ab, r0 + a, cn + a) = 1.0;
      for (int b = 0; b < ns; b++)
        *at(L, ab, r0 + a, cj + b) = -A[a + ns * b];
      const int sa = L->st[a] - ROD_Y_N;
      if (sa >= 0 && sa < 3) {
        const double nrm = c->normal[3 * (j + 1) + sa];
        *at(L, ab, r0 + a, cn + B - 1) = nrm;
        rhs[r0 + a] = nrm * c->f[3 * (j + 1)];
      }
    }
    /* dp_(j+1) - dp_j - P_j dy_j = 0 */
    for (int e = 0; e < np; e++) {
      const int r = r0 + ns + e;
      *at(L, ab, r, cn + ns + e) = 1.0;
      *at(L, ab, r, cj + ns + e) = -1.0;
      for (int b = 0; b < ns; b++)
        *at(L, ab, r, cj + b) = -P[e + np * b];
    }
  }
  /* the tip: dr/dy dy_tip = -r */
  double r[6], drdy[6 * ROD_NY];
  k->bvp.end(k, k->node_y + (size_t)(N - 1) * KR_NODE, r, drdy);
  const int re = N * B - L->ne, ct = (N - 1) * B;
  for (int e = 0; e < L->ne; e++) {
    for (int b = 0; b < ns; b++)
      *at(L, ab, re + e, ct + b) = drdy[(size_t)L->st[b] * 6 + L->er[e]];
    rhs[re + e] = -r[L->er[e]];
  }
}

/* Node i's contact row: cg grad d . dp_i + cf F_i = r. The active-set
 * method's rows hold the gap (1, 0, -gap) or the force (0, 1, 0), the
 * interior-point method's linearise F_i w_i = mu. */
static int condition_row(const kr_band_layout *L, int i) {
  return i * L->B - L->ne + L->ns + L->np; /* node 0's: nh + np */
}

static void set_row(const kr_contact *c, const kr_band_layout *L, double *ab,
                    int i, double cg, double cf) {
  const int r = condition_row(L, i);
  const int cp = i * L->B + L->ns, cf_col = i * L->B + L->B - 1;
  for (int e = 0; e < L->np; e++)
    *at(L, ab, r, cp + e) = cg * c->bgrad[3 * i + L->pc[e]];
  *at(L, ab, r, cf_col) = cf;
}

_Static_assert(sizeof(lapack_int) == sizeof(int), "LAPACK's pivots are int");

/* The band with node i's row (cg[i], cf[i]) factorised (c->band). */
static int factor(kr_contact *c, const kr_band_layout *L, int N,
                  const double *cg, const double *cf) {
  const size_t nz = (size_t)L->B * N, band = (size_t)L->ldab * nz;
  memcpy(c->band, c->band0, band * sizeof(double));
  for (int i = 0; i < N; i++)
    set_row(c, L, c->band, i, cg[i], cf[i]);
  return LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, (lapack_int)nz, (lapack_int)nz,
                             L->kl, L->ku, c->band, L->ldab,
                             (lapack_int *)c->bpiv) == 0
             ? ROD_OK
             : ROD_ESING;
}

/* The factorised model solved with node i's row's right-hand side r[i]:
 * the solution in c->brhs; the candidates' forces into F and the model's
 * gap changes grad d . dp into G (m each). */
static int solve(kr_contact *c, const kr_band_layout *L, int N, int m,
                 const double *r, double *F, double *G) {
  const size_t nz = (size_t)L->B * N;
  memcpy(c->brhs, c->brhs0, nz * sizeof(double));
  for (int i = 0; i < N; i++)
    c->brhs[condition_row(L, i)] = r[i];
  if (LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', (lapack_int)nz, L->kl, L->ku,
                          1, c->band, L->ldab, (lapack_int *)c->bpiv, c->brhs,
                          (lapack_int)nz) != 0)
    return ROD_ESING;
  for (int a = 0; a < m; a++) {
    const int i = c->cand[a];
    const double *z = c->brhs + (size_t)i * L->B;
    double dg = 0;
    for (int e = 0; e < L->np; e++)
      dg += c->bgrad[3 * i + L->pc[e]] * z[L->ns + e];
    F[a] = z[L->B - 1];
    G[a] = dg;
  }
  return ROD_OK;
}

/* The primal-dual active-set method from the active set act (nodes),
 * at most its iterations: ROD_OK with the set settled, the forces in F
 * and the gap changes in G (candidates). Rounding's share of a force or a
 * gap keeps its node as it is (a node at zero gap and zero force). */
static int active_set(kr_contact *c, const kr_band_layout *L, int N, int m,
                      int its, double *F, double *G) {
  double *cg = c->ipm, *cf = cg + N, *r = cf + N;
  signed char *act = c->bact;
  const double *gap = c->b;
  for (int it = 0; it < its; it++) {
    for (int i = 0; i < N; i++) {
      cg[i] = 0, cf[i] = 1, r[i] = 0;
    }
    for (int a = 0; a < m; a++) {
      const int i = c->cand[a];
      if (act[i])
        cg[i] = 1, cf[i] = 0, r[i] = -gap[a];
    }
    int s = factor(c, L, N, cg, cf);
    if (s == ROD_OK)
      s = solve(c, L, N, m, r, F, G);
    if (s != ROD_OK)
      return s;
    double fsum = 0;
    for (int a = 0; a < m; a++)
      fsum += fabs(F[a]);
    const double eps_f = 1e-12 * fsum, eps_g = 1e-3 * c->tol;
    bool same = true;
    for (int a = 0; a < m; a++) {
      const int i = c->cand[a];
      const bool now = act[i] ? F[a] > -eps_f : gap[a] + G[a] < -eps_g;
      same = same && now == (act[i] != 0);
      act[i] = now;
    }
    if (same)
      return ROD_OK;
  }
  return ROD_ENOCONV;
}

/* Interior-point iterations at most, and the reduction of the mean
 * complementarity F_i w_i that ends them. */
enum { KR_IPM_ITERATIONS = 30 };
static const double kr_ipm_reduction = 1e-10, kr_ipm_stall = 1e-6;

/* The longest step toward the Newton point (forces Fn, gaps gap + Gn)
 * from forces f > 0 and gaps w > 0 that keeps both positive, `fraction`
 * of the way to the boundary, at most 1. */
static double to_boundary(int m, const double *f, const double *w,
                          const double *gap, const double *Fn, const double *Gn,
                          double fraction) {
  double step = 1.0;
  for (int a = 0; a < m; a++) {
    const double df = Fn[a] - f[a], dw = gap[a] + Gn[a] - w[a];
    if (df < 0)
      step = fmin(step, -fraction * f[a] / df);
    if (dw < 0)
      step = fmin(step, -fraction * w[a] / dw);
  }
  return step;
}

/* The model's complementarity problem by a primal-dual interior-point
 * method (Mehrotra's predictor-corrector; Wright, "Primal-Dual
 * Interior-Point Methods", 1997, ch. 10, for monotone LCPs): forces F > 0
 * and gaps w > 0 of the candidates, each Newton step on F_i w_i = sigma
 * mu and w = gap + grad d . dp one banded LU (the rows w_i dF_i + F_i dw_i)
 * and two solves. Its end sets the active set: the nodes whose force,
 * relative to the largest, exceeds their gap relative to the largest. */
static int interior_point(kr_contact *c, const kr_band_layout *L, int N, int m,
                          double fscale, double *F, double *G) {
  double *cg = c->ipm, *cf = cg + N, *r = cf + N;
  double *f = r + N, *w = f + m, *Fa = w + m, *Ga = Fa + m;
  const double *gap = c->b;
  /* a start inside: every force the mean the loads may need, every gap
   * at least the mean gap's size */
  double gs = c->tol, fs = 0;
  for (int a = 0; a < m; a++) {
    gs = fmax(gs, fabs(gap[a]) / m);
    fs += c->f[3 * c->cand[a]];
  }
  fs = fs > 0 ? fs / m : 1e-3 * fscale;
  for (int a = 0; a < m; a++) {
    f[a] = fmax(c->f[3 * c->cand[a]], fs);
    w[a] = fmax(gap[a], gs);
  }
  double mu0 = 0;
  for (int a = 0; a < m; a++)
    mu0 += f[a] * w[a] / m;
  for (int it = 0; it < KR_IPM_ITERATIONS; it++) {
    double mu = 0;
    for (int a = 0; a < m; a++)
      mu += f[a] * w[a] / m;
    if (mu <= kr_ipm_reduction * mu0)
      break;
    for (int i = 0; i < N; i++)
      cg[i] = 0, cf[i] = 1, r[i] = 0;
    for (int a = 0; a < m; a++) {
      const int i = c->cand[a];
      cg[i] = f[a], cf[i] = w[a];
      r[i] = f[a] * w[a] - f[a] * gap[a]; /* affine: sigma = 0 */
    }
    int s = factor(c, L, N, cg, cf);
    if (s == ROD_OK)
      s = solve(c, L, N, m, r, Fa, Ga);
    if (s != ROD_OK)
      return s;
    /* the affine step's length and complementarity */
    const double al = to_boundary(m, f, w, gap, Fa, Ga, 1.0);
    double mua = 0;
    for (int a = 0; a < m; a++) {
      const double df = Fa[a] - f[a], dw = gap[a] + Ga[a] - w[a];
      mua += (f[a] + al * df) * (w[a] + al * dw) / m;
    }
    const double sigma = pow(mua / mu, 3);
    for (int a = 0; a < m; a++) {
      const int i = c->cand[a];
      const double df = Fa[a] - f[a], dw = gap[a] + Ga[a] - w[a];
      r[i] = sigma * mu - df * dw + f[a] * w[a] - f[a] * gap[a];
    }
    s = solve(c, L, N, m, r, F, G);
    if (s != ROD_OK)
      return s;
    const double step = to_boundary(m, f, w, gap, F, G, 0.995);
    for (int a = 0; a < m; a++) {
      f[a] += step * (F[a] - f[a]);
      w[a] += step * (gap[a] + G[a] - w[a]);
    }
    if (step < kr_ipm_stall) /* the rounding's floor of F w */
      break;
  }
  double fmaxv = 0, wmaxv = 0;
  for (int a = 0; a < m; a++) {
    fmaxv = fmax(fmaxv, f[a]);
    wmaxv = fmax(wmaxv, w[a]);
  }
  for (int a = 0; a < m; a++)
    c->bact[c->cand[a]] = f[a] * wmaxv > w[a] * fmaxv;
  return ROD_OK;
}

int kr_contact_banded_update(rod_kirchhoff *k, int m, double *dw) {
  kr_contact *c = k->contact;
  const int N = k->nodes;
  kr_band_layout L;
  layout(&L, k->planar);
  assemble(k, &L, c->band0, c->brhs0);
  int s;
  /* the gaps' gradients: the nearest body's normal, but inside a box the
   * direction the node pushes along (newton_update: the normal at its
   * place before the load step; inside, the nearest face may be a side's,
   * along which the rod lying over an edge gives no response) */
  for (int a = 0; a < m; a++) {
    const int i = c->cand[a];
    const rod_obstacle *o = &c->world.item[kr_contact_body_of(k, i)];
    const bool inside = o->kind == ROD_OBSTACLE_BOX && c->gap[i] < 0;
    v3_copy(c->bgrad + 3 * i, inside ? c->normal + 3 * i : c->gnorm + 3 * i);
  }
  /* the active set from the current forces and gaps; every other node's
   * force 0 */
  memset(c->bact, 0, (size_t)N);
  for (int a = 0; a < m; a++) {
    const int i = c->cand[a];
    c->bact[i] = c->f[3 * i] > 0 || c->b[a] < 0;
  }
  double *F = c->l, *G = dw;
  s = active_set(c, &L, N, m, KR_BAND_SETS, F, G);
  if (s == ROD_ENOCONV) {
    s = interior_point(c, &L, N, m, k->force_scale, F, G);
    if (s == ROD_OK)
      s = active_set(c, &L, N, m, KR_BAND_SETS_AFTER, F, G);
  }
  if (s != ROD_OK)
    return s;
  for (int a = 0; a < m; a++) {
    const int i = c->cand[a];
    c->g0[a] = c->f[3 * i];
    c->l[a] = c->bact[i] ? fmax(F[a], 0.0) : 0.0;
  }
  return ROD_OK;
}
