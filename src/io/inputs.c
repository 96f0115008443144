/* The scenario's data files (io/inputs.h), read by the shared CSV reader
 * (io/table.h) and checked against the scenario. */
#include "io/inputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const precurvature_columns[4] = {"s", "u1", "u2", "u3"};
static const char *const force_columns[4] = {"t", "Fx", "Fy", "Fz"};
static const char *const moment_columns[4] = {"t", "Mx", "My", "Mz"};
static const char *const base_columns[7] = {"t",  "x",  "y", "z",
                                            "rx", "ry", "rz"};
static const char *const route_columns[3] = {"s", "x", "y"};
static const char *const tension_columns[2] = {"t", "T"};
static const char *const displacement_columns[2] = {"t", "dl"};

void rod_inputs_free(rod_inputs *in) {
  if (!in)
    return;
  rod_table_free(in->precurvature);
  for (int i = 0; i < ROD_MAX_LOADS; i++) {
    rod_table_free(in->force[i]);
    rod_table_free(in->moment[i]);
  }
  rod_table_free(in->base);
  free(in->base_m);
  for (int i = 0; i < ROD_MAX_TENDONS; i++) {
    rod_table_free(in->tendon_route[i]);
    free(in->tendon_route_m[i]);
    rod_table_free(in->tendon_tension[i]);
    rod_table_free(in->tendon_displacement[i]);
  }
  free(in);
}

/* The file of scenario key `key` into *t; a problem is the key's, with the
 * file's own message (its name and line) after it. Missing columns read 0
 * (the file gives only some components). */
static int read_file(const rod_scenario *sc, const char *key, const char *path,
                     const char *const *names, int ncols, rod_table **t,
                     rod_error *err) {
  rod_error inner = {{0}, {0}, {0}, 0};
  int st = rod_table_read(path, names, ncols, t, &inner);
  if (st != ROD_OK) {
    char what[1024];
    rod_error_format(&inner, what, sizeof what);
    return rod_error_set(err, st, sc->source[0] ? sc->source : "scenario", key,
                         "%s", what);
  }
  rod_table *tab = *t;
  for (int i = 0; i < tab->rows * tab->cols; i++)
    if (isnan(tab->data[i]))
      tab->data[i] = 0.0;
  return ROD_OK;
}

/* Second derivatives m (rows) of the natural cubic spline through the
 * table's times and its column col: the tridiagonal system of continuous
 * slopes, m_0 = m_(n-1) = 0, by Thomas' algorithm; work holds rows. */
static void natural_spline(const rod_table *tab, int col, double *m,
                           double *work) {
  const int n = tab->rows;
  for (int i = 0; i < n; i++)
    m[i] = 0.0;
  if (n < 3)
    return;
  /* forward elimination on rows 1 .. n-2 */
  for (int i = 1; i < n - 1; i++) {
    const double t0 = rod_table_at(tab, i - 1, 0), t1 = rod_table_at(tab, i, 0);
    const double t2 = rod_table_at(tab, i + 1, 0);
    const double y0 = rod_table_at(tab, i - 1, col);
    const double y1 = rod_table_at(tab, i, col);
    const double y2 = rod_table_at(tab, i + 1, col);
    const double h0 = t1 - t0, h1 = t2 - t1;
    double diag = 2.0 * (h0 + h1);
    double rhs = 6.0 * ((y2 - y1) / h1 - (y1 - y0) / h0);
    if (i > 1) { /* eliminate the sub-diagonal h0 */
      diag -= h0 * work[i - 1];
      rhs -= h0 * m[i - 1];
    }
    work[i] = h1 / diag; /* the super-diagonal over the pivot */
    m[i] = rhs / diag;
  }
  for (int i = n - 3; i >= 1; i--)
    m[i] -= work[i] * m[i + 1];
}

/* The second derivatives of the natural cubic splines through the columns
 * 1 .. nc of tab into a new *out (rows x nc); key names the file's key. */
static int splines(const rod_scenario *sc, const char *key,
                   const rod_table *tab, int nc, double **out, rod_error *err) {
  const int n = tab->rows;
  *out = calloc((size_t)n * (size_t)nc, sizeof(double));
  double *m = malloc((size_t)n * sizeof(double));
  double *work = malloc((size_t)n * sizeof(double));
  if (!*out || !m || !work) {
    free(m);
    free(work);
    return rod_error_set(err, ROD_ENOMEM, sc->source, key, "out of memory");
  }
  for (int c = 0; c < nc; c++) {
    natural_spline(tab, 1 + c, m, work);
    for (int i = 0; i < n; i++)
      (*out)[nc * i + c] = m[i];
  }
  free(m);
  free(work);
  return ROD_OK;
}

static int load_base(const rod_scenario *sc, rod_inputs *in, rod_error *err) {
  int st = read_file(sc, "base.motion_file", sc->base.motion_file, base_columns,
                     7, &in->base, err);
  if (st != ROD_OK)
    return st;
  return splines(sc, "base.motion_file", in->base, 6, &in->base_m, err);
}

/* Tendon i's routing and tension files: the routing covering [start, end],
 * tensions >= 0. */
static int load_tendon(const rod_scenario *sc, rod_inputs *in, int i,
                       rod_error *err) {
  const rod_tendon_def *t = &sc->tendons.item[i];
  char key[96];
  int st = ROD_OK;
  if (t->routing_file[0]) {
    snprintf(key, sizeof key, "tendon.%s.routing_file", t->name);
    st = read_file(sc, key, t->routing_file, route_columns, 3,
                   &in->tendon_route[i], err);
    if (st != ROD_OK)
      return st;
    const rod_table *r = in->tendon_route[i];
    const double end = t->end.tip ? sc->rod.length : t->end.s;
    const double slack = 1e-12 * sc->rod.length;
    const double first = rod_table_at(r, 0, 0);
    const double last = rod_table_at(r, r->rows - 1, 0);
    if (!(first <= t->start + slack && last >= end - slack))
      return rod_error_set(err, ROD_EINVAL, sc->source, key,
                           "%s: s must cover the tendon's [start, end] = "
                           "[%.15g, %.15g] (got %.15g to %.15g)",
                           t->routing_file, t->start, end, first, last);
    st = splines(sc, key, r, 2, &in->tendon_route_m[i], err);
    if (st != ROD_OK)
      return st;
  }
  if (t->tension_file[0]) {
    snprintf(key, sizeof key, "tendon.%s.tension_file", t->name);
    st = read_file(sc, key, t->tension_file, tension_columns, 2,
                   &in->tendon_tension[i], err);
    if (st != ROD_OK)
      return st;
    const rod_table *T = in->tendon_tension[i];
    for (int j = 0; j < T->rows; j++)
      if (rod_table_at(T, j, 1) < 0)
        return rod_error_set(err, ROD_EINVAL, sc->source, key,
                             "%s: the tension must be >= 0 (got %.15g at t = "
                             "%.15g)",
                             t->tension_file, rod_table_at(T, j, 1),
                             rod_table_at(T, j, 0));
  }
  if (t->displacement_file[0]) {
    snprintf(key, sizeof key, "tendon.%s.displacement_file", t->name);
    st = read_file(sc, key, t->displacement_file, displacement_columns, 2,
                   &in->tendon_displacement[i], err);
    if (st != ROD_OK)
      return st;
  }
  return ROD_OK;
}

static int load_precurvature(const rod_scenario *sc, rod_inputs *in,
                             rod_error *err) {
  const char *key = "rod.precurvature_file";
  int st = read_file(sc, key, sc->rod.precurvature_file, precurvature_columns,
                     4, &in->precurvature, err);
  if (st != ROD_OK)
    return st;
  const rod_table *t = in->precurvature;
  const double L = sc->rod.length, slack = 1e-12 * L;
  const double first = rod_table_at(t, 0, 0);
  const double last = rod_table_at(t, t->rows - 1, 0);
  if (!(first <= slack && last >= L - slack))
    return rod_error_set(err, ROD_EINVAL, sc->source, key,
                         "%s: s must cover [0, rod.length = %.15g] (got "
                         "%.15g to %.15g)",
                         sc->rod.precurvature_file, L, first, last);
  return ROD_OK;
}

int rod_inputs_load(const rod_scenario *sc, rod_inputs **out, rod_error *err) {
  *out = NULL;
  rod_inputs *in = calloc(1, sizeof *in);
  if (!in)
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  int st = ROD_OK;
  if (sc->rod.precurvature_file[0])
    st = load_precurvature(sc, in, err);
  for (int i = 0; st == ROD_OK && i < sc->loads.count; i++) {
    const rod_load_def *l = &sc->loads.item[i];
    char key[96];
    if (l->force_file[0]) {
      snprintf(key, sizeof key, "load.%s.force_file", l->name);
      st = read_file(sc, key, l->force_file, force_columns, 4, &in->force[i],
                     err);
    }
    if (st == ROD_OK && l->moment_file[0]) {
      snprintf(key, sizeof key, "load.%s.moment_file", l->name);
      st = read_file(sc, key, l->moment_file, moment_columns, 4, &in->moment[i],
                     err);
    }
  }
  if (st == ROD_OK && sc->base.motion_file[0])
    st = load_base(sc, in, err);
  for (int i = 0; st == ROD_OK && i < sc->tendons.count; i++)
    st = load_tendon(sc, in, i, err);
  if (st != ROD_OK) {
    rod_inputs_free(in);
    return st;
  }
  *out = in;
  return ROD_OK;
}
