/* The grid in time (docs/contact.md, "The grid in time"). The static
 * state places a grid node where the rod leaves a plane (the free span's
 * moment across the plane zero; kirchhoff_touchdown.c) and at a point
 * contact on a curved body (where the rod is tangent to it). In a run the
 * boundary moves with the rod; before each step whose boundary has left
 * its node by more than kr_regrid_fraction (kr_regrid_point) of the
 * intervals beside it, the
 * node moves to the boundary and the grid is made uniform again on each
 * side of it (between the clamp, the point loads' nodes, the boundaries'
 * and the tip, which never move: the node count and every node's index
 * stay, so the same nodes stay pressed).
 *
 * The solution has a kink at a boundary (the table's point force there:
 * n jumps, the curvature's slope with it), so everything carried onto the
 * new grid is interpolated within the stretch between two such nodes
 * only, never across one, by cubics in s:
 * - BDF-alpha's history (levels i-1, i-2 and the rate at i-1): each
 *   record, node records (space.history = hermite, linear: values and
 *   slopes at both ends of every interval) as stage records (stage: at
 *   every RK4 stage), moves with its point by the change of the cubic
 *   through the four nearest nodes' records of its stretch. The records
 *   keep what the grid attaches to the nodes: RK4's inner stages lie off
 *   that cubic by O(h^2), and on the lying stretch the lumped contact
 *   forces make the slopes jump at every node. A record taken from the
 *   old interval holding its new point instead took, at a node moving
 *   left past its old place, the left limit for the right one: the rod
 *   lying on the table jumped to 3e-3 m/s after every move;
 * - the past solutions (the predictors' series) by the same cubics, the
 *   contacts' accepted positions, the forces scaled by each node's share
 *   of the rod.
 * Interpolation errors O(h^4) with the node moved by a fraction of an
 * interval: below the scheme's O(dt^2) local error.
 *
 * Samples stay on the output grid (/rod/s, the static state's): each is
 * interpolated onto it the same way (the positions by cubic Hermite from
 * the nodes' positions and tangents d3 on the Kirchhoff rod), the clamp
 * and the tip exactly; a node's contact force is split between the two
 * output nodes around it in proportion (their sum and first moment kept;
 * on a curved body each share turned to the normal at its point).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_regrid.h"

/* A boundary's distance from its node, in intervals beside it, that
 * moves the node. The clamp moment's error grows with it (first order);
 * each move changes the step's solution by as much, which BDF turns into
 * a velocity, and the boundary of a rod shaken so moves again: at 5e-4 on
 * 200 nodes the node hunted at rest (rod_on_table.ini after the turn of
 * docs/contact.md: the touchdown +-1e-5 m, the clamp moment +-1.4e-6),
 * at 0.002 the rod came to rest (-2.5e-7 off the static state, as the
 * static state's own -2.0e-7). A move costs less than a sweep. */
static const double kr_regrid_fraction = 0.002;

/* The same for a point contact on a curved body (the tangency): the
 * force off it by d errs at first order, d times the force, with no
 * shaking of a free span's moment across a boundary to make the node
 * hunt. */
static const double kr_regrid_point = 1e-5;

/* A boundary farther than this many intervals from its node (after an
 * impact) is left alone: the cubics would extrapolate too far. */
static const double kr_regrid_reach = 1.0;

/* A node moves by at most this many intervals a step (towards a boundary
 * farther off). The rod at rest on rod_on_table.ini on 50 nodes (hermite
 * history, whose rest state is the static one only to O((k h)^4)) moved
 * by 0.1, 0.2, 0.3 of an interval at once shook its tip at 4e-5 to
 * 1.4e-4 m/s for three steps, by 0.03 not at all (9.5e-6 m/s, its own
 * speed unmoved); a slowly moving boundary moves its node by less than
 * 0.01 of an interval a step. */
static const double kr_regrid_step = 0.05;

/* A node follows its boundary while the intervals on its two sides stay
 * within this ratio: the node count on each side is the static state's,
 * and a boundary travelling far from where the static state put it would
 * leave one side with few long intervals (the rod lifted off a table at
 * its tip, the lift-off moving 10 intervals of 50 nodes towards the clamp:
 * the lifted span on 3 intervals, its tip's rise 5 % off against the
 * fixed grid's 0.45 %). Beyond it the node stays, and the boundary crosses
 * nodes as on the fixed grid. */
static const double kr_regrid_balance = 1.5;

enum { KR_SAMPLE_VALUES = 16 };

int kr_regrid_alloc(rod_kirchhoff *k) {
  const size_t N = (size_t)k->nodes, I = (size_t)k->intervals;
  size_t big = N * KR_NODE;
  const size_t P = (size_t)k->stages * I * KR_HW, E = 2 * I * KR_HW;
  big = big > P ? big : P;
  big = big > E ? big : E;
  k->s_out = malloc(N * sizeof(double));
  k->rg_s = malloc(N * sizeof(double));
  k->rg_buf = malloc(2 * big * sizeof(double));
  k->rg_node = malloc(N * KR_SAMPLE_VALUES * sizeof(double));
  k->rg_scale = malloc(N * sizeof(double));
  k->out_cforce = malloc(N * 3 * sizeof(double));
  k->out_cactive = malloc(N);
  if (!k->s_out || !k->rg_s || !k->rg_buf || !k->rg_node || !k->rg_scale ||
      !k->out_cforce || !k->out_cactive)
    return ROD_ENOMEM;
  memcpy(k->s_out, k->s, N * sizeof(double));
  return ROD_OK;
}

void kr_regrid_free(rod_kirchhoff *k) {
  free(k->s_out);
  free(k->rg_s);
  free(k->rg_buf);
  free(k->rg_node);
  free(k->rg_scale);
  free(k->out_cforce);
  free(k->out_cactive);
}

void kr_regrid_static_done(rod_kirchhoff *k) {
  memcpy(k->s_out, k->s, (size_t)k->nodes * sizeof(double));
  k->regrids = 0;
  k->nkinks = 0;
}

/* The nodes no interpolation crosses, ascending: the clamp, the point
 * loads', the tendons' ends, the kinks (node[0 .. nk - 1], ascending) and
 * the tip; returns how many. */
static int breaks(const rod_kirchhoff *k, const int *node, int nk, int *b) {
  int fix[KR_FIXED_NODES], n = 0, p = 0, q = 0;
  const int nf = kr_fixed_nodes(k, fix);
  b[n++] = 0;
  while (p < nf || q < nk) {
    const int a = p < nf ? fix[p] : k->nodes;
    const int c = q < nk ? node[q] : k->nodes;
    const int v = a < c ? a : c;
    if (a == v)
      p++;
    if (c == v)
      q++;
    if (v > b[n - 1] && v < k->nodes - 1)
      b[n++] = v;
  }
  b[n++] = k->nodes - 1;
  return n;
}

/* The stretch (b[f], b[f + 1]) of grid s holding x. */
static int stretch_of(const double *s, const int *b, int nb, double x) {
  int f = 0;
  while (f + 2 < nb && s[b[f + 1]] <= x)
    f++;
  return f;
}

/* The interval of grid s within nodes A..B holding x (the first or last
 * one beyond them); right: x at a node belongs to the interval before
 * it. */
static int interval_of(const double *s, int A, int B, double x, bool right) {
  int i = A;
  if (right)
    while (i + 1 < B && s[i + 1] < x)
      i++;
  else
    while (i + 1 < B && s[i + 1] <= x)
      i++;
  return i;
}

/* Lagrange weights at x through the nodes first .. first + m - 1 of s:
 * the cubic (m = 4, fewer on short stretches) of the nodes A..B around
 * the interval i; returns first, *m the count. */
static int lagrange_around(const double *s, int A, int B, int i, double x,
                           double w[4], int *m) {
  const int n = B - A + 1 < 4 ? B - A + 1 : 4;
  int first = i - (n - 1) / 2;
  first = first < A ? A : first > B - n + 1 ? B - n + 1 : first;
  for (int a = 0; a < n; a++) {
    double v = 1.0;
    for (int c = 0; c < n; c++)
      if (c != a)
        v *= (x - s[first + c]) / (s[first + a] - s[first + c]);
    w[a] = v;
  }
  *m = n;
  return first;
}

/* The same around the interval holding x. */
static int lagrange(const double *s, int A, int B, double x, double w[4],
                    int *m) {
  return lagrange_around(s, A, B, interval_of(s, A, B, x, false), x, w, m);
}

/* Cubic Hermite on [0, h] at t (may lie outside): value and slope of the
 * values a, b with slopes da, db at the ends. */
static void hermite(double a, double da, double b, double db, double h,
                    double t, double *v, double *dv) {
  const double u = t / h, u2 = u * u, u3 = u2 * u;
  *v = (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * h * da +
       (-2 * u3 + 3 * u2) * b + (u3 - u2) * h * db;
  *dv = (6 * u2 - 6 * u) / h * a + (3 * u2 - 4 * u + 1) * da +
        (-6 * u2 + 6 * u) / h * b + (3 * u2 - 2 * u) * db;
}

/* The record of rec at a node of the stretch ending at node B (its own
 * limit there). */
typedef const double *(*node_record)(const rod_kirchhoff *k, const double *rec,
                                     int node, int B, int w);

/* Add to r (w values) the change from xo to x of the cubic through the
 * node records f of the stretch A..B of the old grid around its interval
 * i. */
static void shift(const rod_kirchhoff *k, node_record f, const double *rec,
                  int A, int B, int i, double xo, double x, double *r, int w) {
  double wo[4], wn[4];
  int m;
  /* Euler's records hold interval starts only: no left limit at B */
  const int Bn = k->stages == 1 ? B - 1 : B;
  lagrange_around(k->rg_s, A, Bn, i, xo, wo, &m);
  const int first = lagrange_around(k->rg_s, A, Bn, i, x, wn, &m);
  for (int a = 0; a < m; a++) {
    const double *v = f(k, rec, first + a, B, w), d = wn[a] - wo[a];
    for (int c = 0; c < w; c++)
      r[c] += d * v[c];
  }
}

/* Node records (both ends of every interval): the right limit at a node,
 * the left limit at the stretch's last node. */
static const double *end_node(const rod_kirchhoff *k, const double *rec,
                              int node, int B, int w) {
  (void)k;
  return rec + (size_t)(node < B ? 2 * node : 2 * (B - 1) + 1) * w;
}

/* Node history (records at both ends of every interval, values and
 * slopes): each record moves with its end by the change of its stretch's
 * cubic through the node records around its interval (values and slopes
 * each; old and oldd copies of val and der). */
static void carry_node_records(const rod_kirchhoff *k, const int *b, int nb,
                               const double *old, const double *oldd,
                               double *val, double *der, int w) {
  const double *so = k->rg_s, *sn = k->s;
  const size_t n = 2 * (size_t)k->intervals * w;
  memcpy(val, old, n * sizeof(double));
  memcpy(der, oldd, n * sizeof(double));
  for (int j = 0; j < k->intervals; j++) {
    const int f = stretch_of(sn, b, nb, 0.5 * (sn[j] + sn[j + 1]));
    for (int e = 0; e < 2; e++) {
      if (sn[j + e] == so[j + e])
        continue; /* unmoved */
      const size_t r = (size_t)(2 * j + e) * w;
      shift(k, end_node, old, b[f], b[f + 1], j, so[j + e], sn[j + e], val + r,
            w);
      shift(k, end_node, oldd, b[f], b[f + 1], j, so[j + e], sn[j + e], der + r,
            w);
    }
  }
}

/* The record of stage st of interval i at node `node` (i or i + 1) as a
 * node's value: the interval's first stage at its start, its last at its
 * end (Euler's one stage serves both). */
static const double *stage_node(const rod_kirchhoff *k, const double *rec,
                                int i, int node, int w) {
  const int S = k->stages;
  const int st = node == i || S == 1 ? 0 : S - 1;
  return rec + ((size_t)S * i + st) * w;
}

/* Stage records as node records: the interval's first stage at a node,
 * the last interval's last stage at the stretch's last node. */
static const double *stage_at(const rod_kirchhoff *k, const double *rec,
                              int node, int B, int w) {
  const int i = node < B ? node : B - 1;
  return stage_node(k, rec, i, node, w);
}

/* Stage history (records at every stage point): each record moves with
 * its stage point by the change of its stretch's cubic through the node
 * records around its interval (RK4's inner stages lie off that cubic by
 * O(h^2); the offset stays). */
static void carry_stage_records(const rod_kirchhoff *k, const int *b, int nb,
                                const double *old, double *val, int w) {
  const int S = k->stages;
  const double *so = k->rg_s, *sn = k->s;
  for (int j = 0; j < k->intervals; j++) {
    if (sn[j] == so[j] && sn[j + 1] == so[j + 1])
      continue; /* unmoved */
    const int f = stretch_of(sn, b, nb, 0.5 * (sn[j] + sn[j + 1]));
    const int A = b[f], B = b[f + 1];
    for (int st = 0; st < S; st++) {
      const double cst = k->integ->c[st];
      const double x = sn[j] + cst * (sn[j + 1] - sn[j]);
      const double xo = so[j] + cst * (so[j + 1] - so[j]);
      double *r = val + ((size_t)S * j + st) * w;
      memcpy(r, old + ((size_t)S * j + st) * w, (size_t)w * sizeof(double));
      shift(k, stage_at, old, A, B, j, xo, x, r, w);
    }
  }
}

/* A node solution (nodes x KR_NODE, right limits) onto the new grid:
 * each node's values move by the change of the cubic of its stretch's old
 * nodes around it (a break node in the stretch it starts), n at a
 * stretch's last node its left limit (n + the jump there: jump, nodes x 3,
 * or NULL). */
static void carry_nodes(const rod_kirchhoff *k, const int *b, int nb, double *y,
                        double *old, const double *jump) {
  const size_t N = (size_t)k->nodes;
  memcpy(old, y, N * KR_NODE * sizeof(double));
  const double *so = k->rg_s, *sn = k->s;
  for (int j = 1; j + 1 < k->nodes; j++) {
    if (sn[j] == so[j])
      continue; /* the clamp's, the tip's, a point load's: unmoved */
    const int f = stretch_of(sn, b, nb, sn[j]);
    const int A = b[f], B = b[f + 1];
    double wo[4], wn[4];
    int m;
    lagrange_around(so, A, B, j, so[j], wo, &m);
    const int first = lagrange_around(so, A, B, j, sn[j], wn, &m);
    double *r = y + (size_t)j * KR_NODE;
    for (int a = 0; a < m; a++) {
      const double *src = old + (size_t)(first + a) * KR_NODE;
      const double d = wn[a] - wo[a];
      for (int c = 0; c < KR_NODE; c++)
        r[c] += d * src[c];
      if (first + a == B && jump)
        for (int c = 0; c < 3; c++)
          r[ROD_Y_N + c] += d * jump[3 * B + c];
    }
  }
}

/* The new grid: the kinks node[b] at z[b], uniform between the breaks.
 * False, the grid unchanged, when a stretch would not be whole. */
static bool place(rod_kirchhoff *k, const int *node, const double *z, int nk,
                  const int *b, int nb) {
  double fs[KR_FIXED_NODES + KR_KINKS];
  for (int f = 0; f < nb; f++) {
    fs[f] = k->s[b[f]];
    for (int q = 0; q < nk; q++)
      if (node[q] == b[f])
        fs[f] = z[q];
  }
  for (int f = 0; f + 1 < nb; f++)
    if (!(fs[f + 1] > fs[f]))
      return false;
  for (int f = 0; f + 1 < nb; f++) {
    const int A = b[f], B = b[f + 1];
    for (int j = A; j < B; j++)
      k->s[j] = fs[f] + (fs[f + 1] - fs[f]) * (j - A) / (B - A);
  }
  return true;
}

/* Each node's share of the rod (half its intervals) on grid s. */
static double share(const double *s, int n, int j) {
  return 0.5 * ((j + 1 < n ? s[j + 1] : s[j]) - (j > 0 ? s[j - 1] : s[j]));
}

bool kr_regrid_to(rod_kirchhoff *k, const int *node, const double *z, int nk) {
  int b[KR_FIXED_NODES + KR_KINKS];
  const int nb = breaks(k, node, nk, b);
  const size_t N = (size_t)k->nodes;
  memcpy(k->rg_s, k->s, N * sizeof(double));
  if (!place(k, node, z, nk, b, nb))
    return false;
  /* the history, every level */
  double *arr[6];
  int w;
  if (k->history_kind == ROD_HISTORY_STAGE) {
    const size_t n = rod_history_levels(k->stage_hist, arr, &w);
    for (int l = 0; l < 6; l += 2) {
      memcpy(k->rg_buf, arr[l], n * (size_t)w * sizeof(double));
      carry_stage_records(k, b, nb, k->rg_buf, arr[l], w);
    }
  } else {
    const size_t n = rod_history_levels(k->hist, arr, &w);
    double *cp = k->rg_buf + n * (size_t)w;
    for (int l = 0; l < 6; l += 2) {
      memcpy(k->rg_buf, arr[l], n * (size_t)w * sizeof(double));
      memcpy(cp, arr[l + 1], n * (size_t)w * sizeof(double));
      carry_node_records(k, b, nb, k->rg_buf, cp, arr[l], arr[l + 1], w);
    }
  }
  /* the past solutions (the predictors' series) */
  carry_nodes(k, b, nb, k->sol_y, k->rg_buf, k->loads.contact);
  for (int l = 0; l + 1 < k->n_sol && l < KR_PAST - 1; l++)
    carry_nodes(k, b, nb, k->sol_prev[l], k->rg_buf, NULL);
  for (int j = 0; j < k->nodes; j++)
    memcpy(k->lp_z + (size_t)j * ROD_NY, k->sol_y + (size_t)j * KR_NODE,
           ROD_NY * sizeof(double));
  k->have_jacobian_c0 = false; /* the Jacobians are the old grid's */
  k->mshoot_c0 = -1.0;
  /* the contacts: a lying node's force in proportion to its share, a
   * boundary's kept (its point force) */
  if (k->contact) {
    for (int j = 0; j < k->nodes; j++) {
      k->rg_scale[j] = share(k->s, k->nodes, j) / share(k->rg_s, k->nodes, j);
      for (int q = 0; q < nk; q++)
        if (node[q] == j)
          k->rg_scale[j] = 1.0;
    }
    kr_contact_regridded(k, k->rg_scale);
  }
  kr_grid_changed(k);
  k->nkinks = nk;
  memcpy(k->kink, node, (size_t)nk * sizeof(int));
  k->regrids++;
  return true;
}

void kr_regrid(rod_kirchhoff *k) {
  if (!k->contact || !k->sc.space.follow_contact || k->scheme ||
      k->steps == 0 || kr_contact_restart(k))
    return;
  int node[KR_KINKS];
  double z[KR_KINKS];
  bool point[KR_KINKS];
  /* the boundaries of the accepted solution */
  double *last = k->node_y;
  k->node_y = k->sol_y;
  const int nk = kr_contact_boundaries(k, node, z, point, KR_KINKS);
  k->node_y = last;
  int b[KR_FIXED_NODES + KR_KINKS];
  const int nb = breaks(k, node, nk, b);
  bool move = false;
  for (int q = 0; q < nk; q++) {
    const int j = node[q];
    const double h = fmin(k->s[j + 1] - k->s[j], k->s[j] - k->s[j - 1]);
    const double d = fabs(z[q] - k->s[j]);
    if (d > kr_regrid_reach * h)
      return;
    z[q] = k->s[j] +
           fmax(fmin(z[q] - k->s[j], kr_regrid_step * h), -kr_regrid_step * h);
    /* the intervals on its two sides after the move (the breaks around
     * it as they are) */
    int f = 0;
    while (f + 1 < nb && b[f] != j)
      f++;
    const double hl = (z[q] - k->s[b[f - 1]]) / (j - b[f - 1]);
    const double hr = (k->s[b[f + 1]] - z[q]) / (b[f + 1] - j);
    if (fmax(hl, hr) > kr_regrid_balance * fmin(hl, hr))
      z[q] = k->s[j]; /* followed as far as it may: stays */
    else
      move = move || d > (point[q] ? kr_regrid_point : kr_regrid_fraction) * h;
  }
  if (move)
    kr_regrid_to(k, node, z, nk);
}

/* The sample's quantities at the current grid's nodes: position, the
 * orientation's quaternion, world velocity, n and m (KR_SAMPLE_VALUES). */
static void node_quantities(rod_kirchhoff *k) {
  for (int j = 0; j < k->nodes; j++) {
    const double *y = k->sol_y + (size_t)j * KR_NODE;
    double *r = k->rg_node + (size_t)j * KR_SAMPLE_VALUES, R[9];
    quat_to_R(R, y + ROD_Y_H);
    v3_copy(r, y + ROD_NY + ROD_Q_P);
    memcpy(r + 3, y + ROD_Y_H, 4 * sizeof(double));
    m3_mul_v(r + 7, R, y + ROD_Y_Q);
    v3_copy(r + 10, y + ROD_Y_N);
    v3_copy(r + 13, y + ROD_Y_M);
  }
}

/* The tangent d3 (Kirchhoff: p_s) of node j. */
static void tangent(const rod_kirchhoff *k, int j, double d3[3]) {
  double R[9];
  quat_to_R(R, k->sol_y + (size_t)j * KR_NODE + ROD_Y_H);
  v3_set(d3, R[2], R[5], R[8]);
}

/* Output node o at x from the stretch A..B of the current grid. */
static void sample_point(rod_kirchhoff *k, int A, int B, double x, int o) {
  double wt[4], r[KR_SAMPLE_VALUES] = {0};
  int m;
  const int first = lagrange(k->s, A, B, x, wt, &m);
  for (int a = 0; a < m; a++) {
    const int j = first + a;
    const double *q = k->rg_node + (size_t)j * KR_SAMPLE_VALUES;
    for (int c = 0; c < KR_SAMPLE_VALUES; c++)
      r[c] += wt[a] * q[c];
    if (j == B && k->loads.contact) /* n's left limit there */
      for (int c = 0; c < 3; c++)
        r[10 + c] += wt[a] * k->loads.contact[3 * j + c];
  }
  if (k->model.kind != ROD_MODEL_COSSERAT) { /* p by cubic Hermite, p_s = d3 */
    const int i = interval_of(k->s, A, B, x, false);
    double da[3], db[3], dv;
    tangent(k, i, da);
    tangent(k, i + 1, db);
    const double *pa = k->rg_node + (size_t)i * KR_SAMPLE_VALUES;
    const double *pb = pa + KR_SAMPLE_VALUES;
    for (int c = 0; c < 3; c++)
      hermite(pa[c], da[c], pb[c], db[c], k->s[i + 1] - k->s[i], x - k->s[i],
              r + c, &dv);
  }
  double hn = 0;
  for (int c = 0; c < 4; c++)
    hn += r[3 + c] * r[3 + c];
  hn = (r[3] < 0 ? -1.0 : 1.0) / sqrt(hn); /* unit, w >= 0 */
  v3_copy(k->out_pos + 3 * o, r);
  for (int c = 0; c < 4; c++)
    k->out_quat[4 * o + c] = hn * r[3 + c];
  v3_copy(k->out_vel + 3 * o, r + 7);
  v3_copy(k->out_n + 3 * o, r + 10);
  v3_copy(k->out_m + 3 * o, r + 13);
}

/* Add w F turned with the shortest arc from the unit normal a to the
 * unit normal b to r: F's normal and tangential parts kept (Rodrigues,
 * c = a x b: F + c x F + c x (c x F) / (1 + a . b)). */
static void add_turned(double r[3], double w, const double F[3],
                       const double a[3], const double b[3]) {
  double c[3], cf[3], ccf[3];
  v3_cross(c, a, b);
  v3_cross(cf, c, F);
  v3_cross(ccf, c, cf);
  v3_axpy(r, w, F);
  v3_axpy(r, w, cf);
  v3_axpy(r, w / (1.0 + v3_dot(a, b)), ccf);
}

/* A node's contact force split between the output nodes around it. On a
 * curved body each share turns with the body's normal from the node's
 * place to the output point's (the output points' positions are the
 * sample's): a share pushed along the node's normal lay off the normal at
 * its point by the arc between them, and two nodes' shares met there along
 * different normals (sliding round a bar: 4.6e-3 rad off). The sum and
 * first moment are kept to second order in the arc (a plane's shares
 * exactly, unturned). */
void kr_regrid_sample_contact(rod_kirchhoff *k, rod_sample *out) {
  const int N = k->nodes;
  const double *so = k->s_out;
  memset(k->out_cforce, 0, 3 * (size_t)N * sizeof(double));
  for (int j = 0; j < N; j++) {
    const double *F = k->loads.contact + 3 * j;
    if (F[0] == 0 && F[1] == 0 && F[2] == 0)
      continue;
    const int i = interval_of(so, 0, N - 1, k->s[j], false);
    const double u = fmin(fmax((k->s[j] - so[i]) / (so[i + 1] - so[i]), 0), 1);
    const rod_obstacle *o = kr_contact_pressing(k, j);
    if (!o || o->kind == ROD_OBSTACLE_PLANE) {
      v3_axpy(k->out_cforce + 3 * i, 1.0 - u, F);
      v3_axpy(k->out_cforce + 3 * (i + 1), u, F);
      continue;
    }
    double a[3], b[3];
    rod_obstacle_distance(o, k->sol_y + (size_t)j * KR_NODE + ROD_NY + ROD_Q_P,
                          a);
    for (int e = 0; e < 2; e++) {
      const int q = i + e;
      rod_obstacle_distance(o, k->out_pos + 3 * q, b);
      add_turned(k->out_cforce + 3 * q, e ? u : 1.0 - u, F, a, b);
    }
  }
  for (int j = 0; j < N; j++) {
    const double *F = k->out_cforce + 3 * j;
    k->out_cactive[j] = F[0] != 0 || F[1] != 0 || F[2] != 0;
  }
  out->contact_force = k->out_cforce;
  out->contact_active = k->out_cactive;
}

void kr_regrid_sample(rod_kirchhoff *k) {
  int b[KR_FIXED_NODES + KR_KINKS];
  const int nb = breaks(k, k->kink, k->nkinks, b);
  node_quantities(k);
  for (int o = 0; o < k->nodes; o++) {
    const double x = k->s_out[o];
    const int f = stretch_of(k->s, b, nb, x);
    sample_point(k, b[f], b[f + 1], x, o);
  }
  /* the clamp and the tip exactly (their places never move) */
  for (int e = 0; e < 2; e++) {
    const int j = e ? k->nodes - 1 : 0;
    const double *r = k->rg_node + (size_t)j * KR_SAMPLE_VALUES;
    v3_copy(k->out_pos + 3 * j, r);
    v3_copy(k->out_vel + 3 * j, r + 7);
    v3_copy(k->out_n + 3 * j, r + 10);
    v3_copy(k->out_m + 3 * j, r + 13);
  }
}
