/* The fitted keys: parsing the list, starting values, writing values into a
 * scenario, and the [fit] section (docs/files.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate_internal.h"

rod_calib_options rod_calib_default_options(void) {
  rod_calib_options o = {
      .objective = ROD_CALIB_TRAJECTORY,
      .nkeys = 3,
      .keys = {"bending_stiffness", "density", "drag"},
      .threads = 0,
      .fd_step = 0.0,
      .max_iterations = 100,
      .step_tolerance = 1e-6,
      .prefit = true,
  };
  return o;
}

/* One key of a list: trimmed, "rod." prefix removed; checks that it names
 * a numeric [rod] key not already in o. */
static int add_key(rod_calib_options *o, const char *token, size_t len,
                   const char *file, rod_error *err) {
  while (len > 0 && (*token == ' ' || *token == '\t'))
    token++, len--;
  while (len > 0 && (token[len - 1] == ' ' || token[len - 1] == '\t'))
    len--;
  char name[64], full[80];
  if (len == 0 || len >= sizeof name)
    return rod_error_set(err, ROD_EINVAL, file, NULL,
                         "fit keys: expected a comma-separated list of [rod] "
                         "keys");
  memcpy(name, token, len);
  name[len] = '\0';
  const char *dot = strchr(name, '.');
  if (dot && strncmp(name, "rod.", 4) != 0)
    return rod_error_set(err, ROD_EINVAL, file, name,
                         "cannot be fitted: only [rod] keys can");
  const char *key = dot ? dot + 1 : name;
  snprintf(full, sizeof full, "rod.%s", key);
  rod_scenario probe;
  rod_scenario_default(&probe);
  char text[64];
  if (rod_scenario_get_text(&probe, "rod", key, text, sizeof text) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, file, full,
                         "unknown [rod] key to fit");
  if (!rod_scenario_double_key(&probe, "rod", key))
    return rod_error_set(err, ROD_EINVAL, file, full,
                         "cannot be fitted: not a number");
  for (int j = 0; j < o->nkeys; j++)
    if (strcmp(o->keys[j], key) == 0)
      return rod_error_set(err, ROD_EINVAL, file, full,
                           "listed twice among the fit keys");
  if (o->nkeys == ROD_CALIB_MAX_KEYS || strlen(key) >= sizeof o->keys[0])
    return rod_error_set(err, ROD_EINVAL, file, full, "too many fit keys");
  strcpy(o->keys[o->nkeys++], key);
  return ROD_OK;
}

int rod_calib_set_keys(rod_calib_options *o, const char *list, const char *file,
                       rod_error *err) {
  o->nkeys = 0;
  const char *p = list;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int st = add_key(o, p, len, file, err);
    if (st != ROD_OK)
      return st;
    if (!comma)
      return ROD_OK;
    p = comma + 1;
  }
}

/* Drag of a circular cylinder across still air per unit length and
 * squared speed, 0.5 rho_air C_D d (kg/m^2): rho_air = 1.204 kg/m^3 (20 C),
 * C_D = 1.2 for Reynolds numbers 1e2..1e5. The start for a drag of 0,
 * which log-parameters cannot represent. */
static double drag_prior(const rod_scenario *sc) {
  return 0.5 * 1.204 * 1.2 * sc->rod.diameter;
}

int calib_start_value(const rod_scenario *sc, const char *key, double *value,
                      rod_error *err) {
  rod_scenario copy = *sc; /* rod_scenario_double_key wants it writable */
  const double *v = rod_scenario_double_key(&copy, "rod", key);
  char full[64];
  snprintf(full, sizeof full, "rod.%s", key);
  if (!v)
    return rod_error_set(err, ROD_EINVAL, sc->source, full,
                         "cannot be fitted: not a numeric [rod] key");
  *value = *v;
  if (strcmp(key, "bending_stiffness") == 0 && !sc->rod.has_bending_stiffness)
    *value = sc->rod.youngs_modulus * M_PI * pow(sc->rod.diameter, 4) / 64;
  else if (strcmp(key, "drag") == 0 && *value == 0)
    *value = drag_prior(sc);
  if (!(*value > 0))
    return rod_error_set(err, ROD_EINVAL, sc->source, full,
                         "cannot be fitted from 0 (the fit works in "
                         "log-parameters): give a positive start value");
  return ROD_OK;
}

int calib_apply(rod_scenario *sc, int nkeys, const char (*keys)[32],
                const double *values, rod_error *err) {
  for (int j = 0; j < nkeys; j++) {
    char text[40];
    snprintf(text, sizeof text, "%.17g", values[j]);
    int st = rod_scenario_set_key(sc, "rod", keys[j], text, err);
    if (st != ROD_OK)
      return st;
  }
  return rod_scenario_validate(sc, err);
}

void calib_describe(int nkeys, const char (*keys)[32], const double *values,
                    char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int j = 0; j < nkeys && used < size; j++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s=%.6g",
                             j ? ", " : "", keys[j], values[j]);
}

/* A joint fit's lines: each set's noise, weight and rms residual. */
static size_t sets_lines(const rod_calib_result *res, char *buf, size_t size) {
  if (res->sets < 2) {
    buf[0] = '\0';
    return 0;
  }
  const char *names[3] = {"noise", "weight", "set_rms_residual"};
  const char *notes[3] = {" ; m, each data set's, from its data",
                          " ; 1/m, of its residuals", " ; m, each set's"};
  size_t n = 0;
  for (int k = 0; k < 3 && n < size; k++) {
    n += (size_t)snprintf(buf + n, size - n, "%s =", names[k]);
    for (int e = 0; e < res->sets && n < size; e++) {
      const rod_calib_set *s = &res->set[e];
      const double v = k == 0 ? s->noise : k == 1 ? s->weight : s->rms_residual;
      n += (size_t)snprintf(buf + n, size - n, " %.3g", v);
    }
    if (n < size)
      n += (size_t)snprintf(buf + n, size - n, "%s\n", notes[k]);
  }
  return n;
}

size_t rod_calib_fit_section(const rod_calib_options *o,
                             const rod_calib_result *res, char *buf,
                             size_t size) {
  char keys[ROD_CALIB_MAX_KEYS * 33] = "", errors[ROD_CALIB_MAX_KEYS * 16] = "";
  char starts[ROD_CALIB_MAX_KEYS * 20] = "";
  char sets[3 * (40 + ROD_CALIB_MAX_SETS * 12)];
  size_t nk = 0, ne = 0, ns = 0;
  for (int j = 0; j < o->nkeys; j++) {
    nk += (size_t)snprintf(keys + nk, sizeof keys - nk, "%s%s", j ? "," : "",
                           o->keys[j]);
    ne += (size_t)snprintf(errors + ne, sizeof errors - ne, "%s%.3g",
                           j ? " " : "", res->std_error[j]);
    ns += (size_t)snprintf(starts + ns, sizeof starts - ns, "%s%.10g",
                           j ? " " : "", res->initial[j]);
  }
  sets_lines(res, sets, sizeof sets);
  return (size_t)snprintf(buf, size,
                          "[fit]\n"
                          "; rodsim calibrate, %s objective, %d residuals%s%s\n"
                          "keys = %s\n"
                          "std_error = %s\n"
                          "start = %s\n"
                          "rms_residual = %.3g\n"
                          "iterations = %d\n"
                          "simulations = %d\n"
                          "%s",
                          o->objective == ROD_CALIB_FEATURES ? "features"
                          : o->objective == ROD_CALIB_SHAPE  ? "shape"
                                                             : "trajectory",
                          res->residuals,
                          res->sets > 1 ? " of several data sets" : "",
                          res->converged ? ""
                          : res->stop == ROD_CALIB_STOP_INTERRUPTED
                              ? " (interrupted, not converged)"
                              : " (not converged)",
                          keys, errors, starts, res->rms_residual,
                          res->iterations, res->simulations, sets);
}
