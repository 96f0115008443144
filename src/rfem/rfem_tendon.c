/* Tendons on the RFEM chain (rfem_tendon.h): each tendon runs straight
 * from disk to disk, one disk per element at its node (the centered
 * layout's nodes s = k L / n, the uniform layout's element centres, the
 * clamp and the tip), between its start and its anchor; its length is the
 * polygon's, L(q) = sum |p_(k+1) - p_k|, and its loads the generalized
 * forces -tau dL/dq, which are the point forces tau (c_out - c_in) on the
 * disks (c the unit chords): the virtual work of a tendon of tension tau
 * whose path length depends on the joint angles. Where it starts it leaves
 * towards its motor (or a sheath that takes its pull, docs/tendons.md), so
 * the start disk feels tau c_out only, the anchor -tau c_in. */
#include "rfem/rfem_tendon.h"

#include <stdlib.h>
#include <string.h>

#include "core/loads.h"
#include "core/solve_small.h"
#include "core/tendon_route.h"
#include "core/v3.h"

/* The disk of tendon i at arclength s: on the element holding s (the
 * clamp's body, link 0, at s = 0), at the routing's offset. */
static void disk_at(const rod_rfem *r, int i, double s, rfem_disk *d) {
  double rt[6];
  rod_tendon_route(&r->sc, r->inputs, i, s, rt);
  double s0 = 0.0;
  d->link = 0;
  if (s > 0) {
    int e = 0;
    while (e + 1 < r->nelements && r->el[e + 1].s0 <= s)
      e++;
    d->link = r->el[e].link;
    s0 = r->el[e].s0;
  }
  v3_set(d->x, rt[0], rt[1], s - s0);
}

/* Where tendon i passes arclength s on the straight unloaded chain (its
 * routing's offset in a cross-section s along the axis), m. */
static void rest_point(const rod_rfem *r, int i, double s, double p[3]) {
  double rt[6];
  rod_tendon_route(&r->sc, r->inputs, i, s, rt);
  v3_set(p, rt[0], rt[1], s);
}

/* The chain's nodes (m), ascending, into s; returns how many (n + 2 at
 * most): centered k l (k = 0..n), uniform 0, (k - 1/2) l, L. */
static int nodes(const rod_rfem *r, double *s) {
  const int n = r->sc.rfem.segments;
  const double l = r->L / n;
  int m = 0;
  if (r->sc.rfem.layout == ROD_LAYOUT_CENTERED) {
    for (int k = 0; k <= n; k++)
      s[m++] = k == n ? r->L : k * l;
    return m;
  }
  s[m++] = 0.0;
  for (int k = 1; k <= n; k++)
    s[m++] = (k - 0.5) * l;
  s[m++] = r->L;
  return m;
}

void rfem_tendon_free(rfem_tendons *t) {
  if (!t)
    return;
  free(t->first);
  free(t->disk);
  free(t->world);
  free(t->dL);
  free(t->U);
  free(t->Z);
  free(t);
}

int rfem_tendon_create(rod_rfem *r) {
  const rod_scenario *sc = &r->sc;
  const int count = sc->tendons.count;
  r->tendons = NULL;
  if (count == 0)
    return ROD_OK;
  const int nn = r->sc.rfem.segments + 2;
  rfem_tendons *t = calloc(1, sizeof *t);
  double *s = malloc((size_t)nn * sizeof(double));
  if (!t || !s) {
    free(t);
    free(s);
    return ROD_ENOMEM;
  }
  t->count = count;
  t->first = calloc((size_t)count + 1, sizeof(int));
  t->disk = calloc((size_t)count * (size_t)nn, sizeof(rfem_disk));
  t->world = calloc(3 * (size_t)count * (size_t)nn, sizeof(double));
  const size_t nl = (size_t)rod_chain_size(r->chain);
  t->dL = calloc(nl, sizeof(double));
  t->U = calloc(nl * (size_t)count, sizeof(double));
  t->Z = calloc(nl * (size_t)count, sizeof(double));
  if (!t->first || !t->disk || !t->world || !t->dL || !t->U || !t->Z) {
    free(s);
    rfem_tendon_free(t);
    return ROD_ENOMEM;
  }
  const int m = nodes(r, s);
  int k = 0;
  for (int i = 0; i < count; i++) {
    const rod_tendon_def *td = &sc->tendons.item[i];
    const double a = td->start, b = rod_tendon_end(sc, td);
    t->first[i] = k;
    double prev[3];
    rest_point(r, i, a, prev);
    disk_at(r, i, a, &t->disk[k++]);
    for (int j = 0; j <= m; j++) {
      const bool last = j == m;
      if (!last && !(s[j] > a && s[j] < b))
        continue;
      const double sj = last ? b : s[j];
      double p[3], d[3];
      rest_point(r, i, sj, p); /* the chord on the straight chain */
      v3_sub(d, p, prev);
      t->rest[i] += v3_norm(d);
      v3_copy(prev, p);
      disk_at(r, i, sj, &t->disk[k++]);
    }
  }
  t->first[count] = k;
  free(s);
  r->tendons = t;
  return ROD_OK;
}

void rfem_tendon_forces(rod_rfem *r, double t, double scale, double *fext) {
  rfem_tendons *td = r->tendons;
  const int nd = td->first[td->count];
  for (int k = 0; k < nd; k++)
    rod_chain_point(r->chain, td->disk[k].link, td->disk[k].x,
                    td->world + 3 * k, NULL);
  for (int i = 0; i < td->count; i++) {
    td->length[i] = 0.0;
    for (int k = td->first[i]; k + 1 < td->first[i + 1]; k++) {
      double c[3];
      v3_sub(c, td->world + 3 * (k + 1), td->world + 3 * k);
      td->length[i] += v3_norm(c);
    }
    const rod_tendon_def *def = &r->sc.tendons.item[i];
    double T;
    td->spring[i] = 0.0;
    if (def->displacement_file[0]) {
      /* b + L = l* (1 + c tau) for tau (N), taut or slack */
      const double b = def->base_to_motor;
      const double lstar =
          td->rest[i] + b - rod_tendon_displacement(r->inputs, i, t);
      const double k = 1.0 / (def->compliance * lstar); /* N/m */
      T = scale * k * (b + td->length[i] - lstar);
      if (T > 0)
        td->spring[i] = scale * k;
      else
        T = 0.0;
    } else {
      T = scale * rod_tendon_tension(&r->sc, r->inputs, &r->drive, i, t);
    }
    td->tension[i] = T;
    for (int k = td->first[i]; k + 1 < td->first[i + 1]; k++) {
      double c[3];
      v3_sub(c, td->world + 3 * (k + 1), td->world + 3 * k);
      const double len = v3_norm(c);
      const rfem_disk *A = &td->disk[k], *B = &td->disk[k + 1];
      if (!(T > 0) || !(len > 0) || A->link == B->link)
        continue;         /* a chord within one body pulls it not at all */
      double F[3], mF[3]; /* tau c on A, -tau c on B */
      v3_scale(F, T / len, c);
      v3_scale(mF, -1.0, F);
      rod_chain_add_point_force(r->chain, A->link, A->x, F, fext);
      rod_chain_add_point_force(r->chain, B->link, B->x, mF, fext);
    }
  }
}

/* n -= tau c, m -= (p_k - p) x tau c for the chord c from disk k to k + 1 of
 * a tendon of tension tau. */
static void remove_pull(const rfem_tendons *td, int k, double tau,
                        const double p[3], double n[3], double m[3]) {
  double c[3], d[3], f[3], mo[3];
  v3_sub(c, td->world + 3 * (k + 1), td->world + 3 * k);
  const double len = v3_norm(c);
  if (!(len > 0) || !(tau > 0))
    return;
  v3_scale(f, tau / len, c);
  v3_sub(d, td->world + 3 * k, p);
  v3_cross(mo, d, f);
  v3_sub(n, n, f);
  v3_sub(m, m, mo);
}

void rfem_tendon_ends(const rod_rfem *r, const double p0[3], double n0[3],
                      double m0[3], const double pL[3], double nL[3],
                      double mL[3]) {
  const rfem_tendons *td = r->tendons;
  for (int i = 0; i < td->count; i++) {
    const rod_tendon_def *t = &r->sc.tendons.item[i];
    const int a = td->first[i], b = td->first[i + 1] - 1;
    /* at the clamp when its disk is on the body whose joint gives n(0)
     * (centered: link 0; uniform: its first chord crosses joint 1, inside) */
    if (t->start <= 0 && td->disk[a].link >= r->el[0].link)
      remove_pull(td, a, td->tension[i], p0, n0, m0);
    if (rod_tendon_end(&r->sc, t) >= r->L) /* the chord into the anchor */
      remove_pull(td, b - 1, td->tension[i], pL, nL, mL);
  }
}

/* The world axis of joint j and its origin. */
static void joint_axis(const rod_rfem *r, int j, double a[3], double o[3]) {
  double R[9];
  rod_chain_pose(r->chain, j, R, o);
  m3_mul_v(a, R, rod_chain_get_link(r->chain, j)->axis);
}

/* The unit chord c from disk k to disk k + 1 and its length, or 0 when it
 * crosses no joint (both disks on one body) or has no length: then its
 * length depends on no joint angle. */
static double crossing_chord(const rfem_tendons *td, int k, double c[3]) {
  v3_sub(c, td->world + 3 * (k + 1), td->world + 3 * k);
  const double len = v3_norm(c);
  if (td->disk[k + 1].link <= td->disk[k].link || !(len > 0))
    return 0.0;
  v3_scale(c, 1.0 / len, c);
  return len;
}

/* J = a_j x (B - o_j): how the point B of a body beyond joint j moves with
 * q_j; the joint's world axis a_j into a. */
static void joint_jacobian(const rod_rfem *r, int j, const double B[3],
                           double a[3], double J[3]) {
  double o[3], d[3];
  joint_axis(r, j, a, o);
  v3_sub(d, B, o);
  v3_cross(J, a, d);
}

/* A displacement-controlled tendon's tension follows its length, tau =
 * k (b + L - l*) while taut: G = -tau dL/dq gains dG/dq = -k dL/dq dL/dq^T
 * beside -tau d^2 L / dq^2. Its g = dL/dq, from the chords that cross
 * each joint: c . a_j x (B - o_j). */
static void spring_gradient(const rod_rfem *r, int i, double *g) {
  const rfem_tendons *td = r->tendons;
  memset(g, 0, (size_t)rod_chain_size(r->chain) * sizeof *g);
  for (int d = td->first[i]; d + 1 < td->first[i + 1]; d++) {
    double c[3], aj[3], Jj[3];
    if (crossing_chord(td, d, c) == 0.0)
      continue;
    const double *B = td->world + 3 * (d + 1);
    for (int j = td->disk[d].link + 1; j <= td->disk[d + 1].link; j++) {
      joint_jacobian(r, j, B, aj, Jj);
      g[j] += v3_dot(c, Jj);
    }
  }
}

/* K[j + m ld] -= k g_j g_m (the static Newton solve's whole Jacobian) */
static void tendon_spring(const rod_rfem *r, int i, double *K, int ld) {
  const rfem_tendons *td = r->tendons;
  const int n = rod_chain_size(r->chain);
  double *g = td->dL;
  spring_gradient(r, i, g);
  for (int j = 0; j < n; j++)
    for (int m = 0; g[j] != 0 && m < n; m++)
      K[j + (size_t)m * ld] -= td->spring[i] * g[j] * g[m];
}

void rfem_tendon_factor(rod_rfem *r, double beta_p, int f0) {
  rfem_tendons *td = r->tendons;
  const size_t n = (size_t)rod_chain_size(r->chain);
  td->m = 0;
  for (int i = 0; i < td->count; i++) {
    if (!(td->spring[i] > 0))
      continue;
    double *u = td->U + n * (size_t)td->m, *z = td->Z + n * (size_t)td->m;
    spring_gradient(r, i, u);
    if (f0)
      u[0] = 0.0;
    rod_chain_mass_solve(r->chain, u, z);
    if (f0)
      z[0] = 0.0;
    td->W[td->m++] = beta_p * td->spring[i];
  }
}

void rfem_tendon_correct(const rod_rfem *r, double *x) {
  const rfem_tendons *td = r->tendons;
  const int m = td->m;
  if (m == 0)
    return;
  const size_t n = (size_t)rod_chain_size(r->chain);
  double C[ROD_MAX_TENDONS * ROD_MAX_TENDONS], y[ROD_MAX_TENDONS];
  for (int a = 0; a < m; a++) {
    const double *ua = td->U + n * (size_t)a;
    y[a] = 0.0;
    for (size_t j = 0; j < n; j++)
      y[a] += ua[j] * x[j];
    for (int b = 0; b < m; b++) {
      const double *zb = td->Z + n * (size_t)b;
      double d = a == b ? 1.0 / td->W[a] : 0.0;
      for (size_t j = 0; j < n; j++)
        d += ua[j] * zb[j];
      C[m * a + b] = d;
    }
  }
  if (!rod_solve_small(C, m, y, 1))
    return;
  for (int b = 0; b < m; b++) {
    const double *zb = td->Z + n * (size_t)b;
    for (size_t j = 0; j < n; j++)
      x[j] -= zb[j] * y[b];
  }
}

/* dG/dq of the tendons into K (K[i + j ld], ld > 0), or only its diagonal
 * times -scale into d (ld = 0: d[j] -= scale dG_j/dq_j). */
static void tendon_hessian(const rod_rfem *r, double *K, int ld, double scale) {
  const rfem_tendons *td = r->tendons;
  for (int i = 0; i < td->count; i++) {
    const double T = td->tension[i];
    if (!(T > 0))
      continue;
    if (td->spring[i] > 0 && ld > 0)
      tendon_spring(r, i, K, ld);
    for (int k = td->first[i]; k + 1 < td->first[i + 1]; k++) {
      /* the chord from A to B is a function of the joints between their
       * bodies only (the others move both rigidly): with J_j = a_j x (B -
       * o_j), d len / dq_j = c . J_j and, for j <= m,
       * d^2 len / dq_j dq_m = (J_j . J_m - (c . J_j)(c . J_m)) / len
       *                      + c . a_j x (a_m x (B - o_m)) */
      const int la = td->disk[k].link, lb = td->disk[k + 1].link;
      const double *B = td->world + 3 * (k + 1);
      double c[3];
      const double len = crossing_chord(td, k, c);
      if (len == 0.0)
        continue;
      for (int j = la + 1; j <= lb; j++) {
        double aj[3], Jj[3];
        joint_jacobian(r, j, B, aj, Jj);
        for (int m = j; m <= (ld > 0 ? lb : j); m++) {
          double am[3], Jm[3], w[3];
          joint_jacobian(r, m, B, am, Jm);
          v3_cross(w, aj, Jm); /* a_j x (a_m x (B - o_m)) */
          const double H =
              (v3_dot(Jj, Jm) - v3_dot(c, Jj) * v3_dot(c, Jm)) / len +
              v3_dot(c, w);
          if (ld == 0) {
            K[j] += scale * T * H;
            continue;
          }
          K[j + (size_t)m * ld] -= T * H;
          if (m != j)
            K[m + (size_t)j * ld] -= T * H;
        }
      }
    }
  }
}

void rfem_tendon_stiffness(const rod_rfem *r, double *K, int ld) {
  tendon_hessian(r, K, ld, 0.0);
}

void rfem_tendon_iteration(const rod_rfem *r, double beta_p, double *extra) {
  tendon_hessian(r, extra, 0, beta_p);
}
