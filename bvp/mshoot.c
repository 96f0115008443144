/* Modified simple shooting: multiple shooting against a reference
 * trajectory with a banded, reused Jacobian (see bvp/mshoot.h). */
#include "bvp/mshoot.h"

#include <lapacke.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "active.h"
#include "bvp/band.h"
#include "integrators/vecops.h"
#include "integrators/workspace.h"
#include "rod/status.h"

struct rod_mshoot {
  rod_bvp bvp;
  int max_nodes;
  int count;     /* interior nodes of the current structure */
  int *nodes;    /* grid indices, increasing */
  int jac_count; /* structure the factorised Jacobian belongs to */
  int *jac_nodes;
  bool jac_valid;
  double *scale;           /* ny */
  double *inv_scale;       /* ny: 1 / scale */
  const double *yref;      /* nnodes x ny, during a solve */
  const double *drift_ref; /* nnodes x ny: the drift test's reference */
  double *refs;            /* max_nodes x ny: each interior node's reference,
                              copied when the node is placed */
  int kl, ku, ldab;        /* band of the current structure */
  double *ab;              /* band storage, ldab x n */
  int klr, kur, ldabr;     /* band of the carried unknowns alone */
  double *abr;             /* its LU (reduced and banded), ldabr x na */
  lapack_int *ipiv;
  double *X, *Xt;          /* unknowns, trial unknowns */
  double *R, *Rt, *dX;     /* residuals, trial residuals, Newton step */
  double *y, *yn;          /* ny */
  double *dy;              /* ny x max(nx, ny): the carried tangents */
  double *dy0;             /* ny x nx: all tangents at s = 0 */
  double *col;             /* ny: a tangent carried unchanged */
  rod_active act_x, act_y; /* directions the sweeps carry */
  bool jac_reduced;        /* the stored Jacobian carried fewer */
  double *drdy;            /* nx x ny */
  double integrations;
  int jacobians;
  /* Broyden updates of the inverse Jacobian: H = J0^-1 + sum a_i b_i^T,
   * the first `folded` of them taken into the explicit inverse Hd */
  int updates, folded;
  bool stages; /* this solve's rod_mshoot_options.stages */
  bool chord;  /* plain chord iterations on rod_band_factor's LU (stages
                  of more than ROD_MSHOOT_FOLD unknowns) */
  double *bro_a, *bro_b; /* ROD_MSHOOT_UPDATES x nmax each */
  double *tmp;           /* nmax */
  /* Small systems keep the explicit inverse (ROD_MSHOOT_DENSE). */
  bool dense;
  double *Hd; /* n x n inverse Jacobian, column-major */
  /* With directions not carried (rod_mshoot_set_active) the Jacobian is
   * block diagonal: the dense inverse and the Broyden updates then live on
   * the carried unknowns (cmap) and residual rows (rmap) alone. */
  bool reduced;
  int na;           /* unknowns (= rows) in the inverse */
  int *cmap, *rmap; /* their indices in X and R */
  double *va, *vb;  /* na: gathered vectors */
  double *ta, *tb;  /* nmax: full-length Broyden vectors */
  double *sv;       /* nmax: the accepted step */
  double *lwork;    /* dgetri work */
  /* Jacobians from rod_bvp.tangents along the last evaluation's states
   * (rod_mshoot_set_along) */
  bool along;
  bool have_xe;    /* the last evaluation succeeded, at xe */
  double *xe;      /* nmax */
  double *seg_end; /* (max_nodes + 1) x ny: each segment's end state */
};

/* Largest system kept as an explicit inverse. Measured (LAPACK, block
 * bidiagonal with 8 x 8 blocks; inverse vs banded LU: factorisation and one
 * product or solve): n = 27: 15 vs 5 us, 0.5 vs 1.3 us; n = 59: 78 vs
 * 17 us, 2.4 vs 3.0 us; n = 123: 401 vs 49 us, 10.1 vs 6.0 us. With two
 * products per iteration, ~4 iterations per step and a refresh every 5
 * to 20 steps the inverse pays up to n = 45 to 70; whole runs: 128 -> 64
 * took the impulse at 0.2 ms (99 unknowns) from 1.00x to 1.24x real time
 * and the weight release at 0.1 ms from 0.60x to 0.74x, while 48 slowed
 * the weight release at 0.5 ms (51 unknowns) by 7%. */
enum { ROD_MSHOOT_DENSE = 64 };

/* Broyden updates kept before the Jacobian is recomputed. */
enum { ROD_MSHOOT_UPDATES = 24 };

/* Largest system of an implicit stage (rod_mshoot_options.stages) kept as
 * an explicit inverse with Broyden updates folded into it; larger ones
 * iterate as a plain chord on the band LU. Large steps on coarse grids
 * give few, strongly nonlinear unknowns, where the updates pay: esdirk4
 * on the weight release, 20 nodes at 4 ms (19 unknowns), took 32.1 ms
 * as a chord and 27.1 ms folded; at 2 ms 60.3 and 58.1 ms; at 0.7 ms on
 * 30 nodes (27 to 35 unknowns) and on the impulse (59 to 99) the chord
 * is as fast or faster (rodsim bench, best of 7 interleaved; 32 and 40
 * as thresholds changed nothing but the 0.7 ms case, 40 slowing it by
 * 13%). */
enum { ROD_MSHOOT_FOLD = 24 };

static int unknowns_of(const rod_mshoot *ms, int count) {
  return ms->bvp.nx + count * ms->bvp.ny;
}
int rod_mshoot_max_nodes(const rod_mshoot *ms) { return ms->max_nodes; }

int rod_mshoot_unknowns(const rod_mshoot *ms) {
  return unknowns_of(ms, ms->count);
}

/* The work vectors of the unknowns' length (nmax), by offset. */
static const size_t unknown_vectors[] = {
    offsetof(rod_mshoot, X),  offsetof(rod_mshoot, Xt),
    offsetof(rod_mshoot, R),  offsetof(rod_mshoot, Rt),
    offsetof(rod_mshoot, dX), offsetof(rod_mshoot, tmp),
    offsetof(rod_mshoot, va), offsetof(rod_mshoot, vb),
    offsetof(rod_mshoot, ta), offsetof(rod_mshoot, tb),
    offsetof(rod_mshoot, sv)};

void rod_mshoot_free(rod_mshoot *ms) {
  if (!ms)
    return;
  for (size_t i = 0; i < sizeof unknown_vectors / sizeof *unknown_vectors; i++)
    rod_work_free(*(double **)((char *)ms + unknown_vectors[i]));
  rod_work_free(ms->nodes);
  rod_work_free(ms->jac_nodes);
  rod_work_free(ms->refs);
  rod_work_free(ms->scale);
  rod_work_free(ms->inv_scale);
  rod_work_free(ms->ab);
  rod_work_free(ms->abr);
  rod_work_free(ms->ipiv);
  rod_work_free(ms->y);
  rod_work_free(ms->yn);
  rod_work_free(ms->dy);
  rod_work_free(ms->dy0);
  rod_work_free(ms->col);
  rod_work_free(ms->drdy);
  rod_work_free(ms->bro_a);
  rod_work_free(ms->bro_b);
  rod_work_free(ms->Hd);
  rod_work_free(ms->cmap);
  rod_work_free(ms->rmap);
  rod_work_free(ms->lwork);
  rod_work_free(ms->xe);
  rod_work_free(ms->seg_end);
  rod_work_free(ms);
}

rod_mshoot *rod_mshoot_alloc(const rod_bvp *bvp, const double *scale,
                             int max_nodes) {
  rod_mshoot *ms = rod_work_alloc(1, sizeof *ms);
  if (!ms)
    return NULL;
  ms->bvp = *bvp;
  if (max_nodes > bvp->nnodes - 2)
    max_nodes = bvp->nnodes - 2;
  if (max_nodes < 0)
    max_nodes = 0;
  ms->max_nodes = max_nodes;
  const size_t ny = (size_t)bvp->ny, nx = (size_t)bvp->nx;
  const size_t nmax = nx + (size_t)max_nodes * ny;
  const size_t k = nx > ny ? nx : ny;
  const size_t ldab_max = 3 * (nx + 2 * ny) + 1;
  ms->nodes = rod_work_alloc((size_t)max_nodes + 1, sizeof(int));
  ms->jac_nodes = rod_work_alloc((size_t)max_nodes + 1, sizeof(int));
  ms->refs = rod_work_alloc(((size_t)max_nodes + 1) * ny, sizeof(double));
  ms->scale = malloc(ny * sizeof(double));
  ms->inv_scale = malloc(ny * sizeof(double));
  ms->ab = rod_work_alloc(ldab_max * nmax, sizeof(double));
  ms->abr = rod_work_alloc(ldab_max * nmax, sizeof(double));
  bool vectors_ok = true;
  for (size_t i = 0; i < sizeof unknown_vectors / sizeof *unknown_vectors;
       i++) {
    double **v = (double **)((char *)ms + unknown_vectors[i]);
    *v = rod_work_alloc(nmax, sizeof(double));
    vectors_ok = vectors_ok && *v;
  }
  ms->ipiv = rod_work_alloc(nmax, sizeof(lapack_int));
  ms->y = rod_work_alloc(ny, sizeof(double));
  ms->yn = rod_work_alloc(ny, sizeof(double));
  ms->dy = rod_work_alloc(ny * k, sizeof(double));
  ms->dy0 = rod_work_alloc(ny * nx, sizeof(double));
  ms->col = rod_work_alloc(ny, sizeof(double));
  rod_active_all(&ms->act_x, bvp->nx);
  rod_active_all(&ms->act_y, bvp->ny);
  ms->drdy = rod_work_alloc(nx * ny, sizeof(double));
  ms->bro_a = rod_work_alloc(ROD_MSHOOT_UPDATES * nmax, sizeof(double));
  ms->bro_b = rod_work_alloc(ROD_MSHOOT_UPDATES * nmax, sizeof(double));
  const size_t nd = nmax < ROD_MSHOOT_DENSE ? nmax : ROD_MSHOOT_DENSE;
  ms->Hd = rod_work_alloc(nd * nd, sizeof(double));
  ms->cmap = rod_work_alloc(nmax, sizeof(int));
  ms->rmap = rod_work_alloc(nmax, sizeof(int));
  ms->lwork = rod_work_alloc(64 * nd, sizeof(double));
  ms->xe = rod_work_alloc(nmax, sizeof(double));
  ms->seg_end = rod_work_alloc(((size_t)max_nodes + 1) * ny, sizeof(double));
  if (!ms->xe || !ms->seg_end || !vectors_ok || !ms->bro_a || !ms->bro_b ||
      !ms->Hd || !ms->lwork || !ms->cmap || !ms->rmap || !ms->nodes ||
      !ms->jac_nodes || !ms->refs || !ms->scale || !ms->inv_scale || !ms->ab ||
      !ms->abr || !ms->ipiv || !ms->y || !ms->yn || !ms->dy || !ms->dy0 ||
      !ms->col || !ms->drdy) {
    rod_mshoot_free(ms);
    return NULL;
  }
  memcpy(ms->scale, scale, ny * sizeof(double));
  for (size_t l = 0; l < ny; l++)
    ms->inv_scale[l] = 1.0 / scale[l];
  return ms;
}

int rod_mshoot_node_count(const rod_mshoot *ms) { return ms->count; }

void rod_mshoot_set_along(rod_mshoot *ms, bool on) { ms->along = on; }
const int *rod_mshoot_nodes(const rod_mshoot *ms) { return ms->nodes; }
void rod_mshoot_forget_jacobian(rod_mshoot *ms) { ms->jac_valid = false; }

int rod_mshoot_set_active(rod_mshoot *ms, const int *active_x, int nx_count,
                          const int *active_y, int ny_count) {
  rod_active ax, ay;
  bool ok = rod_active_set(&ax, ms->bvp.nx, active_x, nx_count);
  ok = rod_active_set(&ay, ms->bvp.ny, active_y, ny_count) && ok;
  bool same =
      rod_active_equal(&ax, &ms->act_x) && rod_active_equal(&ay, &ms->act_y);
  if (!same && ms->jac_reduced)
    ms->jac_valid = false;
  ms->act_x = ax;
  ms->act_y = ay;
  return ok ? ROD_OK : ROD_EINVAL;
}

/* Band (kl sub-, ku superdiagonals) of a Jacobian with nx unknowns at
 * s = 0 and ny per node: rows are [c_1 .. c_m, r_end], columns [x, z_1 ..
 * z_m]; row block c_j couples z_(j-1) (x for j = 1) and z_j. */
static void band_of(int nx, int ny, int m, int *kl_out, int *ku_out) {
  int kl = 0, ku = 0;
  for (int j = 0; j <= m; j++) {
    int r0 = j * ny, r1 = j < m ? r0 + ny : r0 + nx;
    int c0 = j == 0 ? 0 : nx + (j - 1) * ny;
    int c1 = j < m ? nx + (j + 1) * ny : (m ? nx + m * ny : nx);
    kl = r1 - 1 - c0 > kl ? r1 - 1 - c0 : kl;
    ku = c1 - 1 - r0 > ku ? c1 - 1 - r0 : ku;
  }
  *kl_out = kl;
  *ku_out = ku;
}

static void set_band(rod_mshoot *ms) {
  band_of(ms->bvp.nx, ms->bvp.ny, ms->count, &ms->kl, &ms->ku);
  ms->ldab = 2 * ms->kl + ms->ku + 1; /* room for the LU's fill */
}

static inline void band_set(rod_mshoot *ms, int i, int j, double v) {
  ms->ab[(size_t)j * ms->ldab + (ms->kl + ms->ku + i - j)] = v;
}

static void node_state(const rod_mshoot *ms, int j, const double *z,
                       double *y) {
  const int ny = ms->bvp.ny;
  const double *ref = ms->refs + (size_t)j * ny;
  for (int l = 0; l < ny; l++)
    y[l] = ref[l] + ms->scale[l] * z[l];
}

/* Insert interior node g at position pos (its z = 0: the reference, the
 * drift test's). */
static void insert_node(rod_mshoot *ms, int pos, int g, double *X) {
  const int nx = ms->bvp.nx, ny = ms->bvp.ny;
  int n_old = unknowns_of(ms, ms->count), at = nx + pos * ny;
  memmove(X + at + ny, X + at, (size_t)(n_old - at) * sizeof(double));
  memset(X + at, 0, (size_t)ny * sizeof(double));
  memmove(ms->nodes + pos + 1, ms->nodes + pos,
          (size_t)(ms->count - pos) * sizeof(int));
  double *r = ms->refs + (size_t)pos * ny;
  memmove(r + ny, r, (size_t)(ms->count - pos) * ny * sizeof(double));
  memcpy(r, ms->drift_ref + (size_t)g * ny, (size_t)ny * sizeof(double));
  ms->nodes[pos] = g;
  ms->count++;
}

/* Each interior node's reference from yref. */
static void copy_refs(rod_mshoot *ms) {
  const size_t ny = (size_t)ms->bvp.ny;
  for (int j = 0; j < ms->count; j++)
    memcpy(ms->refs + j * ny, ms->yref + (size_t)ms->nodes[j] * ny,
           ny * sizeof(double));
}

static double drift_of(const rod_mshoot *ms, const double *y, int g) {
  const int ny = ms->bvp.ny;
  const double *ref = ms->drift_ref + (size_t)g * ny;
  double d = 0, sum = 0; /* branch-free: sum carries a NaN or inf */
  for (int l = 0; l < ny; l++) {
    double t = fabs(y[l] - ref[l]) * ms->inv_scale[l];
    d = t > d ? t : d;
    sum += t;
  }
  return isfinite(sum) ? d : INFINITY;
}

/* Tangent of direction q at the end of segment seg: carried by the sweep,
 * or (a direction not carried, rod_mshoot_set_active) its start value. */
static const double *segment_tangent(rod_mshoot *ms, int seg, int q) {
  const int ny = ms->bvp.ny;
  const rod_active *act = seg == 0 ? &ms->act_x : &ms->act_y;
  int a = act->slot[q];
  if (a >= 0)
    return ms->dy + (size_t)a * ny;
  if (seg == 0)
    return ms->dy0 + (size_t)q * ny;
  memset(ms->col, 0, (size_t)ny * sizeof(double));
  ms->col[q] = ms->scale[q];
  return ms->col;
}

/* Residual R at X; with jac also the banded Jacobian. drift > 0 (only with
 * X's new nodes at z = 0) places a node wherever a segment strays from the
 * reference by more than drift. along (with jac, X the last evaluation's
 * unknowns): the tangents by rod_bvp.tangents along that evaluation's
 * states; 1 when the problem cannot. */
static int evaluate(rod_mshoot *ms, double *X, double *R, bool jac,
                    double drift, bool along) {
  const rod_bvp *b = &ms->bvp;
  const int nx = b->nx, ny = b->ny, last = b->nnodes - 1;
  const double *s = ms->scale;
  if (jac) {
    set_band(ms);
    memset(ms->ab, 0,
           (size_t)ms->ldab * unknowns_of(ms, ms->count) * sizeof(double));
  }
  double work = 0; /* whole-rod sweeps */
  if (!along)
    ms->have_xe = false;
  for (int seg = 0; seg <= ms->count; seg++) {
    int a = seg == 0 ? 0 : ms->nodes[seg - 1];
    int k = 0;
    const rod_active *act = seg == 0 ? &ms->act_x : &ms->act_y;
    if (seg == 0) {
      b->start(b->user, X, ms->y, jac ? ms->dy0 : NULL);
      if (jac) {
        k = act->count;
        for (int q = 0; q < k; q++)
          memcpy(ms->dy + (size_t)q * ny, ms->dy0 + (size_t)act->idx[q] * ny,
                 (size_t)ny * sizeof(double));
      }
    } else {
      node_state(ms, seg - 1, X + nx + (size_t)(seg - 1) * ny, ms->y);
      if (jac) {
        k = act->count;
        memset(ms->dy, 0, (size_t)ny * k * sizeof(double));
        for (int q = 0; q < k; q++)
          ms->dy[(size_t)q * ny + act->idx[q]] = s[act->idx[q]];
      }
    }
    int e = seg == ms->count ? last : ms->nodes[seg];
    int st;
    double *y_end = ms->seg_end + (size_t)seg * ny;
    if (along) {
      memcpy(ms->y, y_end, (size_t)ny * sizeof(double));
      double w = b->tangents(b->user, a, e, y_end, k, ms->dy);
      if (w < 0)
        return 1;
      work += w;
      st = 0;
    } else if (drift > 0 && b->node) { /* the segment, then its drift */
      st = b->propagate(b->user, a, e, ms->y, k, ms->dy);
      work += (1.0 + k) * (e - a) / last; /* what was integrated */
      if (st >= 0)
        for (int g = a + 1; g < e && g < last; g++) {
          const double *yg = b->node(b->user, g);
          if (drift_of(ms, yg, g) > drift && ms->count < ms->max_nodes) {
            memcpy(ms->y, yg, (size_t)ny * sizeof(double));
            insert_node(ms, seg, g, X);
            e = g;
            st = 0;
            break;
          }
        }
    } else {
      if (drift > 0) { /* interval by interval, watching the drift */
        int g = a;
        st = 0;
        while (g < e && st == 0) {
          st = b->propagate(b->user, g, g + 1, ms->y, k, ms->dy);
          g++;
          if (st < 0 || g == e || g == last)
            continue;
          if ((st > 0 || drift_of(ms, ms->y, g) > drift) &&
              ms->count < ms->max_nodes) {
            insert_node(ms, seg, g, X);
            e = g;
            st = 0;
          }
        }
      } else {
        st = b->propagate(b->user, a, e, ms->y, k, ms->dy);
      }
      work += (1.0 + k) * (e - a) / last;
    }
    if (st != 0) {
      ms->integrations += work;
      return st;
    }
    if (!along)
      memcpy(y_end, ms->y, (size_t)ny * sizeof(double));
    const int n = unknowns_of(ms, ms->count);
    const int col0 = seg == 0 ? 0 : nx + (seg - 1) * ny;
    const int row0 = seg * ny;
    (void)n;
    if (seg < ms->count) { /* continuity at node seg */
      node_state(ms, seg, X + nx + (size_t)seg * ny, ms->yn);
      for (int l = 0; l < ny; l++)
        R[row0 + l] = (ms->y[l] - ms->yn[l]) * ms->inv_scale[l];
      if (jac) {
        for (int q = 0; q < act->n; q++) {
          const double *t = segment_tangent(ms, seg, q);
          for (int l = 0; l < ny; l++)
            band_set(ms, row0 + l, col0 + q, t[l] / s[l]);
        }
        for (int l = 0; l < ny; l++)
          band_set(ms, row0 + l, nx + seg * ny + l, -1.0);
      }
    } else {
      b->end(b->user, ms->y, R + row0, jac ? ms->drdy : NULL);
      if (jac)
        for (int q = 0; q < act->n; q++) {
          const double *t = segment_tangent(ms, seg, q);
          for (int i = 0; i < nx; i++) {
            double sum = 0;
            for (int l = 0; l < ny; l++)
              sum += ms->drdy[(size_t)l * nx + i] * t[l];
            band_set(ms, row0 + i, col0 + q, sum);
          }
        }
    }
  }
  ms->integrations += work;
  if (jac)
    ms->jacobians++;
  const int n = unknowns_of(ms, ms->count);
  for (int i = 0; i < n; i++)
    if (!isfinite(R[i]))
      return 1;
  if (!along) {
    memcpy(ms->xe, X, (size_t)n * sizeof(double));
    ms->have_xe = true;
  }
  return 0;
}

static double norm2(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}
static double norm_inf(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s = fabs(v[i]) > s ? fabs(v[i]) : s;
  return s;
}

/* Unknowns and rows the inverse works on: all, or (directions not carried)
 * the carried ones, x's and each node's, with their residual rows. */
static void set_maps(rod_mshoot *ms) {
  const int nx = ms->bvp.nx, ny = ms->bvp.ny, m = ms->count;
  const rod_active *ax = &ms->act_x, *ay = &ms->act_y;
  int c = 0;
  for (int q = 0; q < ax->count; q++)
    ms->cmap[c++] = ax->idx[q];
  for (int seg = 0; seg < m; seg++)
    for (int q = 0; q < ay->count; q++)
      ms->cmap[c++] = nx + seg * ny + ay->idx[q];
  int r = 0;
  for (int seg = 0; seg < m; seg++)
    for (int q = 0; q < ay->count; q++)
      ms->rmap[r++] = seg * ny + ay->idx[q];
  for (int q = 0; q < ax->count; q++)
    ms->rmap[r++] = m * ny + ax->idx[q];
  ms->na = c;
}

static double band_get(const rod_mshoot *ms, int i, int j) {
  return (i - j <= ms->kl && j - i <= ms->ku)
             ? ms->ab[(size_t)j * ms->ldab + (ms->kl + ms->ku + i - j)]
             : 0.0;
}

/* Residual and factorised Jacobian at X. */
static int refresh_jacobian(rod_mshoot *ms, double *X) {
  const int n = unknowns_of(ms, ms->count);
  int st = 1;
  if (ms->along && ms->bvp.tangents && ms->have_xe &&
      memcmp(ms->xe, X, (size_t)n * sizeof(double)) == 0)
    st = evaluate(ms, X, ms->R, true, 0.0, true);
  if (st != 0)
    st = evaluate(ms, X, ms->R, true, 0.0, false);
  if (st != 0)
    return st;
  lapack_int info;
  ms->jac_reduced = ms->act_x.count < ms->bvp.nx ||
                    (ms->count > 0 && ms->act_y.count < ms->bvp.ny);
  set_maps(ms);
  ms->reduced = ms->jac_reduced;
  if (!ms->reduced)
    ms->na = n;
  ms->dense = ms->na <= (ms->stages ? ROD_MSHOOT_FOLD : ROD_MSHOOT_DENSE);
  ms->chord = ms->stages && !ms->dense;
  if (ms->dense) {
    const int na = ms->na;
    for (int j = 0; j < na; j++)
      for (int i = 0; i < na; i++)
        ms->Hd[(size_t)j * na + i] =
            ms->reduced ? band_get(ms, ms->rmap[i], ms->cmap[j])
                        : band_get(ms, i, j);
    info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, na, na, ms->Hd, na, ms->ipiv);
    if (info == 0)
      info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, na, ms->Hd, na, ms->ipiv,
                                 ms->lwork, 64 * na);
  } else if (ms->reduced) {
    /* the carried unknowns keep the block structure, with blocks of the
     * carried sizes: a band half as wide on half the unknowns (impulse at
     * 0.1 ms, planar: 155 unknowns with 12 + 10 diagonals instead of 310
     * with 25 + 21) */
    const int na = ms->na;
    band_of(ms->act_x.count, ms->act_y.count, ms->count, &ms->klr, &ms->kur);
    const int kl = ms->klr, ku = ms->kur, ld = 2 * kl + ku + 1;
    ms->ldabr = ld;
    memset(ms->abr, 0, (size_t)ld * na * sizeof(double));
    for (int j = 0; j < na; j++) {
      const int i0 = j - ku > 0 ? j - ku : 0;
      const int i1 = j + kl < na - 1 ? j + kl : na - 1;
      for (int i = i0; i <= i1; i++)
        ms->abr[(size_t)j * ld + kl + ku + i - j] =
            band_get(ms, ms->rmap[i], ms->cmap[j]);
    }
    info = ms->chord ? rod_band_factor(na, kl, ku, ms->abr, ld, ms->ipiv)
                     : LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, na, na, kl, ku,
                                           ms->abr, ld, ms->ipiv);
  } else {
    info = ms->chord
               ? rod_band_factor(n, ms->kl, ms->ku, ms->ab, ms->ldab, ms->ipiv)
               : LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, n, n, ms->kl, ms->ku,
                                     ms->ab, ms->ldab, ms->ipiv);
  }
  if (info != 0)
    return ROD_ESING;
  ms->jac_valid = true;
  ms->updates = ms->folded = 0;
  ms->jac_count = ms->count;
  memcpy(ms->jac_nodes, ms->nodes, (size_t)ms->count * sizeof(int));
  return 0;
}

static bool same_structure(const rod_mshoot *ms) {
  return ms->jac_count == ms->count &&
         memcmp(ms->jac_nodes, ms->nodes, (size_t)ms->count * sizeof(int)) == 0;
}

static double dot(const double *a, const double *b, int n) {
  return rod_dot(a, b, n);
}

/* out = H v (trans: H^T v) with H = J0^-1 + sum a_i b_i^T on vectors of
 * the inverse's size na; out != v. */
static void apply_reduced(rod_mshoot *ms, bool trans, const double *v,
                          double *out) {
  const int n = ms->na;
  if (ms->dense) {
    const double *H = ms->Hd;
    if (trans) {
      for (int j = 0; j < n; j++)
        out[j] = dot(H + (size_t)j * n, v, n);
    } else {
      memset(out, 0, (size_t)n * sizeof(double));
      for (int j = 0; j < n; j++) {
        const double *c = H + (size_t)j * n;
        for (int i = 0; i < n; i++)
          out[i] += c[i] * v[j];
      }
    }
  } else {
    const bool r = ms->reduced; /* which band holds the LU */
    const int kl = r ? ms->klr : ms->kl, ku = r ? ms->kur : ms->ku;
    const int ld = r ? ms->ldabr : ms->ldab;
    const double *ab = r ? ms->abr : ms->ab;
    memcpy(out, v, (size_t)n * sizeof(double));
    if (ms->chord)
      rod_band_solve(n, kl, ku, ab, ld, ms->ipiv, trans, out);
    else
      LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, kl, ku, 1, ab,
                          ld, ms->ipiv, out, n);
  }
  for (int i = 0; i < ms->updates - ms->folded; i++) {
    const double *a = ms->bro_a + (size_t)i * n, *b = ms->bro_b + (size_t)i * n;
    if (trans) {
      double c = dot(a, v, n);
      for (int j = 0; j < n; j++)
        out[j] += b[j] * c;
    } else {
      double c = dot(b, v, n);
      for (int j = 0; j < n; j++)
        out[j] += a[j] * c;
    }
  }
}

static void gather(const int *map, int m, const double *v, double *out) {
  for (int i = 0; i < m; i++)
    out[i] = v[map[i]];
}

/* out = H v (trans: H^T v) on full-length vectors (n); out != v. H maps
 * residuals to unknowns, H^T unknowns to residuals. */
static void apply_inverse(rod_mshoot *ms, int n, bool trans, const double *v,
                          double *out) {
  if (!ms->reduced) {
    apply_reduced(ms, trans, v, out);
    return;
  }
  const int *in_map = trans ? ms->cmap : ms->rmap;
  const int *out_map = trans ? ms->rmap : ms->cmap;
  gather(in_map, ms->na, v, ms->va);
  apply_reduced(ms, trans, ms->va, ms->vb);
  memset(out, 0, (size_t)n * sizeof(double));
  for (int i = 0; i < ms->na; i++)
    out[out_map[i]] = ms->vb[i];
}

/* The updates held beside the explicit inverse into it: Hd += a b^T
 * each (their sum does not depend on the order). One pass over Hd per
 * update, where holding them costs 4 na per product with H and a fresh
 * Jacobian (tangent sweeps, LU and inverse) after ROD_MSHOOT_UPDATES of
 * them. Measured on the stages of esdirk4 (weight release, 30 nodes,
 * 0.7 ms, 35 unknowns, about 7 products per stage), instructions of 0.7 s:
 * 1.81e9 held, 1.70e9 folded. */
static void fold_update(rod_mshoot *ms) {
  const int na = ms->na;
  for (int u = 0; u < ms->updates - ms->folded; u++) {
    const double *a = ms->bro_a + (size_t)u * na,
                 *b = ms->bro_b + (size_t)u * na;
    for (int j = 0; j < na; j++) {
      double *c = ms->Hd + (size_t)j * na;
      const double bj = b[j];
      for (int i = 0; i < na; i++)
        c[i] += a[i] * bj;
    }
  }
  ms->folded = ms->updates;
}

/* Broyden's good update after the accepted step s = t dX, where
 * dX = -H R, with residual Rt there: H += (s - H y) (s^T H) / (s^T H y),
 * y = Rt - R (Sherman-Morrison of J += (y - J s) s^T / s^T s). As
 * H y = H Rt + dX, the one product v = H Rt gives the update and the next
 * step -H_new Rt = -(v + a (b . Rt)), written to next (which may be dX):
 * two products with H per iteration instead of three. False when H is to
 * be recomputed. */
static bool broyden_update(rod_mshoot *ms, int n, double t, double *next) {
  const bool fold = ms->stages && ms->dense;
  if (!fold && ms->updates - ms->folded >= ROD_MSHOOT_UPDATES) {
    ms->jac_valid = false; /* enough: recompute at the next need */
    return false;
  }
  double *v = ms->tmp, *a = ms->ta, *b = ms->tb, *sv = ms->sv;
  apply_inverse(ms, n, false, ms->Rt, v);
  for (int i = 0; i < n; i++) {
    a[i] = v[i] + ms->dX[i]; /* H y */
    sv[i] = t * ms->dX[i];
  }
  double den = dot(sv, a, n);
  if (!(fabs(den) > 1e-12 * sqrt(dot(sv, sv, n) * dot(a, a, n)))) {
    for (int i = 0; i < n; i++) /* no update: the chord step */
      next[i] = -v[i];
    return true;
  }
  for (int i = 0; i < n; i++)
    a[i] = (sv[i] - a[i]) / den;
  apply_inverse(ms, n, true, sv, b); /* b = H^T s, before this update */
  const size_t slot = (size_t)(ms->updates - ms->folded);
  double *ka = ms->bro_a + slot * ms->na;
  double *kb = ms->bro_b + slot * ms->na;
  if (ms->reduced) {
    gather(ms->cmap, ms->na, a, ka);
    gather(ms->rmap, ms->na, b, kb);
  } else {
    memcpy(ka, a, (size_t)n * sizeof(double));
    memcpy(kb, b, (size_t)n * sizeof(double));
  }
  ms->updates++;
  if (fold)
    fold_update(ms);
  double c = dot(b, ms->Rt, n);
  for (int i = 0; i < n; i++)
    next[i] = -(v[i] + a[i] * c);
  return true;
}

/* An iteration that leaves more than this share of the residual asks for
 * a fresh Jacobian next time: 0.5 with Broyden updates held beside the
 * inverse; 0.9 on the implicit stages (rod_mshoot_options.stages), for
 * the folded updates (esdirk4, impulse on 44 nodes at 0.45 ms and weight
 * release on 30 nodes at 0.7 ms: 0.5, 0.7 and 0.9 took 3.50e9, 3.30e9 and
 * 3.29e9 instructions, and 1.73e9 at 0.5, 1.70e9 at 0.9) as for the plain
 * chord (rodsim bench, best of 5; impulse 0.5 s at time.tolerance = 1e-5,
 * weight release 2 s at 5e-6: at 0.2, 0.5, 0.9, 0.97 and 1 the impulse
 * took 0.184, 0.151, 0.130, 0.129 and 0.131 s, the weight release 0.312,
 * 0.268, 0.256, 0.260 and 0.259 s). A fresh Jacobian costs about eight
 * sweeps; an old one still gains a factor of 3 to 10 per iteration. */
static const double broyden_slow = 0.5, stage_slow = 0.9;

/* Chord Newton, with Broyden updates unless the stage's plain chord, and
 * backtracking on the current node structure. */
static int newton(rod_mshoot *ms, const rod_mshoot_options *opt, int *iters,
                  double *res) {
  const int n = unknowns_of(ms, ms->count);
  double rn = norm2(ms->R, n);
  *res = norm_inf(ms->R, n);
  bool fresh = false;
  bool have_step = false; /* dX = -H R from the last Broyden update */
  while (*res > opt->tolerance) {
    if (*iters >= opt->max_iterations)
      return ROD_ENOCONV;
    if (!ms->jac_valid || !same_structure(ms)) {
      int st = refresh_jacobian(ms, ms->X);
      if (st != 0)
        return st < 0 ? st : ROD_ENONFINITE;
      fresh = true;
      have_step = false;
      rn = norm2(ms->R, n);
      *res = norm_inf(ms->R, n);
      if (*res <= opt->tolerance)
        break;
    }
    if (!have_step) {
      apply_inverse(ms, n, false, ms->R, ms->dX);
      for (int i = 0; i < n; i++)
        ms->dX[i] = -ms->dX[i];
    }
    have_step = false;
    bool accepted = false;
    for (double t = 1.0; t >= 1.0 / 64; t *= 0.5) {
      for (int i = 0; i < n; i++)
        ms->Xt[i] = ms->X[i] + t * ms->dX[i];
      int st = evaluate(ms, ms->Xt, ms->Rt, false, 0.0, false);
      (*iters)++;
      if (st < 0)
        return st;
      double rt = st == 0 ? norm2(ms->Rt, n) : INFINITY;
      if (rt <= (1.0 - 1e-4 * t) * rn) {
        accepted = true;
        have_step = !ms->chord && broyden_update(ms, n, t, ms->dX);
        memcpy(ms->X, ms->Xt, (size_t)n * sizeof(double));
        memcpy(ms->R, ms->Rt, (size_t)n * sizeof(double));
        if (rt > (ms->stages ? stage_slow : broyden_slow) * rn && !fresh)
          ms->jac_valid = false; /* slow: a fresh Jacobian next time */
        rn = rt;
        *res = norm_inf(ms->R, n);
        break;
      }
      if (!fresh)
        break; /* an old Jacobian: refresh before shortening the step */
    }
    if (!accepted) {
      if (fresh)
        return ROD_ENOCONV;
      ms->jac_valid = false;
      /* the last evaluation was a rejected trial: restore R at X */
      int st = evaluate(ms, ms->X, ms->R, false, 0.0, false);
      if (st != 0)
        return st < 0 ? st : ROD_ENONFINITE;
    }
    fresh = false;
  }
  /* The last evaluation was at X (an accepted trial or a refresh). */
  return ROD_OK;
}

static void regular_nodes(rod_mshoot *ms, int spacing) {
  ms->count = 0;
  if (spacing <= 0)
    return;
  for (int g = spacing; g < ms->bvp.nnodes - 1 && ms->count < ms->max_nodes;
       g += spacing)
    ms->nodes[ms->count++] = g;
}

int rod_mshoot_solve(rod_mshoot *ms, double *x, const double *yref,
                     const rod_mshoot_options *opt, rod_shooting_stats *stats) {
  const int nx = ms->bvp.nx;
  ms->yref = yref;
  ms->drift_ref = opt->drift_ref ? opt->drift_ref : yref;
  const int attempts = opt->attempts > 0 ? opt->attempts : 5;
  ms->integrations = 0;
  ms->jacobians = 0;
  if (!opt->reuse_jacobian)
    ms->jac_valid = false;
  ms->stages = opt->stages;
  int spacing = opt->spacing, iters = 0, status = ROD_ENOCONV;
  double res = INFINITY;
  for (int attempt = 0; attempt < attempts; attempt++) {
    regular_nodes(ms, spacing);
    copy_refs(ms);
    memcpy(ms->X, x, (size_t)nx * sizeof(double));
    memset(ms->X + nx, 0, (size_t)ms->count * ms->bvp.ny * sizeof(double));
    int st = evaluate(ms, ms->X, ms->R, false, opt->drift, false);
    iters++;
    if (st < 0) {
      status = st;
      break;
    }
    status = st == 0 ? newton(ms, opt, &iters, &res) : ROD_ENONFINITE;
    if (status == ROD_OK || status == ROD_EINVAL)
      break;
    /* finer segments from the same guess, with a fresh Jacobian */
    int s_now = ms->count ? ms->nodes[0] : ms->bvp.nnodes - 1;
    spacing = s_now / 2;
    ms->jac_valid = false;
    if (spacing < 1)
      break;
  }
  if (status == ROD_OK)
    memcpy(x, ms->X, (size_t)nx * sizeof(double));
  if (stats) {
    stats->iterations = iters;
    stats->integrations = ms->integrations;
    stats->jacobians = ms->jacobians;
    stats->residual = res;
    stats->stop = status == ROD_OK ? ROD_LM_CONVERGED : ROD_LM_NO_PROGRESS;
  }
  return status;
}

/* The band of the last evaluation as a dense n x n matrix. */
static void dense_of_band(const rod_mshoot *ms, int n, double *J) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      int d = ms->kl + ms->ku + i - j;
      J[(size_t)j * n + i] = (i - j <= ms->kl && j - i <= ms->ku)
                                 ? ms->ab[(size_t)j * ms->ldab + d]
                                 : 0.0;
    }
}

/* R and the dense Jacobian at X of the current structure: tangents
 * integrated with the states, or (along) carried along an evaluation of
 * the states at X. */
static int dense_jacobian(rod_mshoot *ms, const double *X, const double *yref,
                          double *R, double *J, bool along) {
  ms->yref = yref;
  copy_refs(ms);
  const int n = unknowns_of(ms, ms->count);
  memcpy(ms->Xt, X, (size_t)n * sizeof(double));
  ms->jac_valid = false; /* the band will hold an unfactorised matrix */
  if (along && evaluate(ms, ms->Xt, R, false, 0.0, false) != 0)
    return ROD_ENONFINITE;
  if (evaluate(ms, ms->Xt, R, true, 0.0, along) != 0)
    return along ? ROD_EINVAL : ROD_ENONFINITE;
  dense_of_band(ms, n, J);
  return ROD_OK;
}

int rod_mshoot_dense_jacobian(rod_mshoot *ms, const double *X,
                              const double *yref, double *R, double *J) {
  return dense_jacobian(ms, X, yref, R, J, false);
}

int rod_mshoot_dense_jacobian_along(rod_mshoot *ms, const double *X,
                                    const double *yref, double *R, double *J) {
  if (!ms->bvp.tangents)
    return ROD_EINVAL;
  return dense_jacobian(ms, X, yref, R, J, true);
}
