/* The loads room of the Kirchhoff backend (kirchhoff_loads.h): the
 * scenario's loads on the grid and at a time (the distributed ones of the
 * model, the point loads of core/loads.h on their nodes, the tip loads with
 * an attached body's), and every question the rooms above ask about them.
 * The sweeps read the values through rod_loads.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/loads.h"
#include "kirchhoff/kirchhoff_loads.h"
#include "kirchhoff/kirchhoff_rod.h"

/* Ascending doubles, for qsort. */
static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Index of the value v in the ascending array a[0..n), -1 if absent. */
static int find_value(const double *a, int n, double v) {
  for (int i = 0; i < n; i++)
    if (a[i] == v)
      return i;
  return -1;
}

int kr_loads_positions(const rod_scenario *sc, double *pos) {
  const double L = sc->rod.length;
  int n = 0;
  if (sc->impulse.enabled && sc->impulse.position > 0 &&
      sc->impulse.position < L)
    pos[n++] = sc->impulse.position;
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    if (!a->tip && a->s < L && find_value(pos, n, a->s) < 0)
      pos[n++] = a->s;
  }
  qsort(pos, (size_t)n, sizeof *pos, compare_doubles);
  return n;
}

int kr_loads_place(rod_kirchhoff *k, const double *pos, int np) {
  const rod_scenario *sc = &k->sc;
  const double L = sc->rod.length;
  const int n = k->nodes;
  rod_loads_nodes *ld = &k->loads;
  ld->npoints = np;
  ld->node_point = malloc((size_t)n * sizeof(int));
  ld->next_point = malloc((size_t)n * sizeof(int));
  if (!ld->node_point || !ld->next_point)
    return ROD_ENOMEM;
  for (int j = 0; j < n; j++)
    ld->node_point[j] = -1;
  for (int p = 0; p < np; p++) {
    ld->point_node[p] = find_value(k->s, n, pos[p]);
    ld->node_point[ld->point_node[p]] = p;
  }
  for (int j = n - 1, next = n; j >= 0; j--) {
    ld->next_point[j] = next;
    if (ld->node_point[j] >= 0)
      next = j;
  }
  /* who loads where: a point's index, -2 the tip, -1 nowhere (the clamp) */
  ld->impulse_point = -1;
  if (sc->impulse.enabled)
    ld->impulse_point = sc->impulse.position >= L ? -2
                        : sc->impulse.position > 0
                            ? find_value(pos, np, sc->impulse.position)
                            : -1;
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    ld->load_point[i] = a->tip || a->s >= L ? -2 : find_value(pos, np, a->s);
  }
  return ROD_OK;
}

int kr_loads_contact_alloc(rod_kirchhoff *k) {
  k->loads.contact = calloc(3 * (size_t)k->nodes, sizeof(double));
  return k->loads.contact ? ROD_OK : ROD_ENOMEM;
}

void kr_loads_free(rod_kirchhoff *k) {
  free(k->loads.node_point);
  free(k->loads.next_point);
  free(k->loads.contact);
}

void kr_loads_distributed(const rod_model *m, rod_loads_const *L) {
  L->drag_normal = m->drag_model == ROD_DRAG_NORMAL;
  for (int i = 0; i < 3; i++) {
    L->drag[i] = m->drag[i];
    L->ns_dead[i] = -m->rho_area * m->gravity[i];
    L->gravity[i] = m->gravity[i];
  }
}

void kr_loads_set(rod_kirchhoff *k, double t, bool static_state) {
  rod_loads_nodes *ld = &k->loads;
  if (k->tip_body) /* its weight at its centre: kr_tip_body_loads */
    v3_scale(k->body_weight, k->body_mass, k->model.gravity);
  for (int p = 0; p < ld->npoints; p++) {
    v3_set(ld->point_force[p], 0, 0, 0);
    v3_set(ld->point_moment[p], 0, 0, 0);
  }
  rod_point_load pl[ROD_MAX_POINT_LOADS];
  const int n =
      rod_point_loads(&k->sc, k->inputs, &k->drive, t, static_state, pl);
  for (int i = 0; i < n; i++) {
    const int p = pl[i].source == ROD_POINT_TIP ? -3
                  : pl[i].source == ROD_POINT_IMPULSE
                      ? ld->impulse_point
                      : ld->load_point[pl[i].source];
    if (p == -3) { /* the tip loads themselves */
      v3_copy(ld->tip_force, pl[i].force);
      v3_copy(ld->tip_moment, pl[i].moment);
    } else if (p >= 0) {
      v3_add(ld->point_force[p], ld->point_force[p], pl[i].force);
      v3_add(ld->point_moment[p], ld->point_moment[p], pl[i].moment);
    } else if (p == -2) {
      v3_add(ld->tip_force, ld->tip_force, pl[i].force);
      v3_add(ld->tip_moment, ld->tip_moment, pl[i].moment);
    } /* -1: at s = 0 the clamp takes the force, no effect on the rod */
  }
}

bool kr_loads_tip(const rod_kirchhoff *k, const double *y, double F[3],
                  double M[3], double *dF, double *dM) {
  v3_copy(F, k->loads.tip_force);
  v3_copy(M, k->loads.tip_moment);
  if (!k->tip_body)
    return false;
  double Fb[3], Mb[3];
  kr_tip_body_loads(k, y, Fb, Mb, dF, dM);
  v3_add(F, F, Fb);
  v3_add(M, M, Mb);
  return true;
}

bool kr_loads_planar(const rod_kirchhoff *k) {
  const rod_loads_nodes *ld = &k->loads;
  const rod_loads_const *c = &k->rc.loads;
  if (c->ns_dead[1] != 0 || c->gravity[1] != 0 || k->rc.ntendons > 0)
    return false; /* (tendons: the 3D right-hand side only) */
  if (ld->tip_force[1] != 0 || ld->tip_moment[0] != 0 ||
      ld->tip_moment[2] != 0 || k->body_offset[1] != 0)
    return false;
  for (int p = 0; p < ld->npoints; p++)
    if (ld->point_force[p][1] != 0 || ld->point_moment[p][0] != 0 ||
        ld->point_moment[p][2] != 0)
      return false;
  if (ld->contact) /* the contact forces at the nodes */
    for (int i = 0; i < k->nodes; i++)
      if (ld->contact[3 * i + 1] != 0)
        return false;
  return true;
}

void kr_loads_straight(const rod_kirchhoff *k, const double d[3], double n0[3],
                       double m0[3]) {
  const rod_loads_nodes *ld = &k->loads;
  const double L = k->model.length;
  /* n(s) = F + sum of loads beyond s; int_0^L n ds = F L + w L^2/2 + F_k
   * s_k */
  double w[3], moment_arm[3];
  v3_scale(w, -1.0, k->rc.loads.ns_dead); /* rhoA g + fbar, N/m */
  for (int i = 0; i < 3; i++) {
    const double tip = ld->tip_force[i] + k->body_weight[i];
    n0[i] = tip + w[i] * L;
    moment_arm[i] = tip * L + 0.5 * w[i] * L * L;
  }
  v3_copy(m0, ld->tip_moment);
  for (int p = 0; p < ld->npoints; p++) {
    v3_axpy(n0, 1.0, ld->point_force[p]);
    v3_axpy(moment_arm, k->s[ld->point_node[p]], ld->point_force[p]);
    v3_add(m0, m0, ld->point_moment[p]);
  }
  double arm[3];
  v3_cross(arm, d, moment_arm);
  v3_add(m0, arm, m0);
}

void kr_loads_vectors(const rod_kirchhoff *k, const double **f, int *nf,
                      const double **m, int *nm) {
  const rod_loads_nodes *ld = &k->loads;
  *nf = *nm = 0;
  f[(*nf)++] = k->rc.loads.gravity;
  f[(*nf)++] = ld->tip_force;
  for (int p = 0; p < ld->npoints; p++)
    f[(*nf)++] = ld->point_force[p];
  m[(*nm)++] = ld->tip_moment;
  for (int p = 0; p < ld->npoints; p++)
    m[(*nm)++] = ld->point_moment[p];
}

void kr_loads_dead(const rod_kirchhoff *k, kr_dead_loads *d) {
  const rod_loads_nodes *ld = &k->loads;
  memset(d, 0, sizeof *d);
  v3_copy(d->tip_force, ld->tip_force);
  v3_copy(d->tip_moment, ld->tip_moment);
  v3_copy(d->ns_dead, k->rc.loads.ns_dead);
  v3_copy(d->body_weight, k->body_weight);
  memcpy(d->point_force, ld->point_force, sizeof d->point_force);
  memcpy(d->point_moment, ld->point_moment, sizeof d->point_moment);
  for (int p = 0; p < ld->npoints; p++)
    d->jump += v3_norm(ld->point_force[p]);
}

void kr_loads_scale(rod_kirchhoff *k, const kr_dead_loads *d, double f) {
  rod_loads_nodes *ld = &k->loads;
  for (int i = 0; i < 3; i++) {
    ld->tip_force[i] = f * d->tip_force[i];
    ld->tip_moment[i] = f * d->tip_moment[i];
    k->rc.loads.ns_dead[i] = f * d->ns_dead[i];
    k->body_weight[i] = f * d->body_weight[i];
    for (int p = 0; p < ld->npoints; p++) {
      ld->point_force[p][i] = f * d->point_force[p][i];
      ld->point_moment[p][i] = f * d->point_moment[p][i];
    }
  }
}

double kr_loads_size(const kr_dead_loads *d, double L) {
  return fmax(v3_norm(d->tip_force) + d->jump + v3_norm(d->ns_dead) * L +
                  v3_norm(d->body_weight),
              v3_norm(d->tip_moment) / L);
}
