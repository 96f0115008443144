/* The grid of the Kirchhoff backend: space.nodes points, uniform, with a
 * node exactly at every point load inside the rod (where n and m jump; Till
 * & Rucker 2017, III.B) and where a tendon starts or ends, the nodes that
 * never move, its intervals, and the history between the nodes that the
 * grid allows (space.history). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"

/* Ascending doubles, for qsort. */
static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Uniform grid of space.nodes points, with a node exactly at every point
 * load inside the rod and where a tendon starts or ends: the nearest
 * interior node of the uniform grid moves there, or, when that node is the
 * clamp, the tip or another load's, a node is added. */
int kr_build_grid(rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  const double L = sc->rod.length;
  const int n0 = rod_model_nodes(&k->model, sc);
  double pos[KR_MAX_POINTS + 2 * ROD_MAX_TENDONS];
  const int np = kr_loads_positions(sc, pos);
  /* nodes also where tendons start and end (their loads change there) */
  const int nb = kr_tendon_breaks(sc, pos, np);
  k->s = malloc((size_t)(n0 + nb) * sizeof(double));
  if (!k->s)
    return ROD_ENOMEM;
  for (int j = 0; j < n0; j++)
    k->s[j] = L * j / (n0 - 1);
  k->s[n0 - 1] = L;
  int n = n0, moved[KR_MAX_POINTS + 2 * ROD_MAX_TENDONS], nmoved = 0;
  for (int p = 0; p < nb; p++) {
    const int j = (int)lround(pos[p] / L * (n0 - 1));
    bool taken = false;
    for (int m = 0; m < nmoved; m++)
      taken = taken || moved[m] == j;
    if (j >= 1 && j <= n0 - 2 && !taken) {
      k->s[j] = pos[p];
      moved[nmoved++] = j;
    } else {
      k->s[n++] = pos[p];
    }
  }
  if (n > n0)
    qsort(k->s, (size_t)n, sizeof *k->s, compare_doubles);
  k->nodes = n;
  k->intervals = n - 1;
  k->len = malloc((size_t)(n - 1) * sizeof(double));
  k->point_left = calloc((size_t)(np > 0 ? np : 1) * ROD_NY, sizeof(double));
  if (!k->len || !k->point_left || kr_loads_place(k, pos, np) != ROD_OK)
    return ROD_ENOMEM;
  k->s_base = malloc((size_t)n * sizeof(double));
  if (!k->s_base)
    return ROD_ENOMEM;
  memcpy(k->s_base, k->s, (size_t)n * sizeof(double));
  k->len_max = 0;
  for (int j = 0; j + 1 < n; j++) {
    k->len[j] = k->s[j + 1] - k->s[j];
    k->len_max = fmax(k->len_max, k->len[j]);
  }
  return ROD_OK;
}

/* Largest k h of the run on the grid's longest interval: the time-discrete
 * rod varies along s on the length 1/k, k^4 = rhoA c0^2 / EI
 * (docs/numerics.md), and RK4 on an interval h errs like (k h)^4. */
static double max_kh(const rod_kirchhoff *k) {
  double kk = rod_model_run_wavenumber(&k->model, &k->sc);
  double h = 0;
  for (int j = 0; j < k->intervals; j++)
    h = k->len[j] > h ? k->len[j] : h;
  return kk * h;
}

/* History between grid nodes for RK4 (space.history = auto): a record per
 * stage makes rest states exact fixed points and removes the (k h)^4 error
 * of interpolated node records (frequency errors 1e-7 instead of 1e-5 at
 * k h = 0.1), but its spurious (-1)^i rate mode is neutral under the
 * trapezoidal rule and grows once k h exceeds about 0.4 even with
 * alpha = -0.48 (measured; validation/history_study.py). So: stage records
 * where they are safe, cubic Hermite interpolation otherwise.
 * Cosserat: stage records grow already from k h = 0.23 (a thick rod,
 * L/d = 20, alpha = -0.48, a strike at the tip; stable at 0.21, and the
 * limit may fall further with thickness), while cubic Hermite held there
 * up to k h = 0.95: hermite throughout. */
rod_history_kind kr_choose_history(const rod_kirchhoff *k) {
  const rod_scenario *sc = &k->sc;
  if (sc->space.history != ROD_HISTORY_AUTO)
    return sc->space.history;
  if (k->scheme) /* L-stable: the stage records' spurious mode is damped */
    return ROD_HISTORY_STAGE;
  if (sc->space.integrator == ROD_SPACE_EULER)
    return ROD_HISTORY_STAGE; /* Euler's only stage is the node */
  if (k->model.kind == ROD_MODEL_COSSERAT)
    return ROD_HISTORY_HERMITE;
  if (sc->time.alpha > -0.5 + 1e-9 && max_kh(k) <= 0.3)
    return ROD_HISTORY_STAGE;
  return ROD_HISTORY_HERMITE;
}

int kr_fixed_nodes(const rod_kirchhoff *k, int *node) {
  double pos[2 * ROD_MAX_TENDONS];
  const int nt = kr_tendon_breaks(&k->sc, pos, 0);
  int n = 0, p = 0;
  node[n++] = 0;
  for (int j = 1; j < k->nodes - 1; j++) {
    while (p < k->loads.npoints && k->loads.point_node[p] < j)
      p++;
    bool fixed = p < k->loads.npoints && k->loads.point_node[p] == j;
    for (int t = 0; t < nt && !fixed; t++)
      fixed = k->s_base[j] == pos[t];
    if (fixed)
      node[n++] = j;
  }
  node[n++] = k->nodes - 1;
  return n;
}

void kr_grid_changed(rod_kirchhoff *k) {
  k->len_max = 0;
  for (int j = 0; j < k->intervals; j++) {
    k->len[j] = k->s[j + 1] - k->s[j];
    k->len_max = fmax(k->len_max, k->len[j]);
  }
  kr_set_precurvature(k);
}
