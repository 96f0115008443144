/* The sweep's definition (rod/sweep.h): --vary lists and ranges, the
 * Latin hypercube over ranges, the [sweep] section, and the table of case
 * texts they make against a base scenario. */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"
#include "io/datafile.h"
#include "sweep_internal.h"

rod_sweep_def *rod_sweep_def_new(void) {
  return calloc(1, sizeof(rod_sweep_def));
}

static void free_axes(rod_sweep_def *d) {
  for (int a = 0; a < d->naxes; a++)
    sweep_texts_free(d->axes[a].texts, (size_t)d->axes[a].n);
  free(d->axes);
  d->axes = NULL;
  d->naxes = 0;
}

static void free_table(rod_sweep_def *d) {
  sweep_texts_free(d->keys, (size_t)d->nkeys);
  sweep_texts_free(d->texts, (size_t)d->ncases * (size_t)d->nkeys);
  d->keys = d->texts = NULL;
  d->nkeys = d->ncases = 0;
}

void rod_sweep_def_free(rod_sweep_def *d) {
  if (!d)
    return;
  free_axes(d);
  sweep_texts_free(d->csv_keys, (size_t)d->csv_nkeys);
  sweep_texts_free(d->csv_texts, (size_t)d->csv_rows * (size_t)d->csv_nkeys);
  free_table(d);
  free(d);
}

/* A finite number filling text, or false. */
static bool number(const char *text, double *v) {
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  return end != text && *end == '\0' && errno != ERANGE && isfinite(*v);
}

/* The text of a generated value: 15 significant digits, what a user
 * types (0.2:0.4:3 gives 0.3, not 0.30000000000000004); the case's value
 * is that text's. */
static char *value_text(double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  return sweep_trimmed(buf, strlen(buf));
}

/* Whether d already varies key (any block). */
static bool has_key(const rod_sweep_def *d, const char *key) {
  for (int a = 0; a < d->naxes; a++)
    if (strcmp(d->axes[a].key, key) == 0)
      return true;
  for (int k = 0; k < d->csv_nkeys; k++)
    if (strcmp(d->csv_keys[k], key) == 0)
      return true;
  return false;
}

/* The fields of a range "START:STOP[:COUNT][:log]" into axis; false with
 * why when it is malformed. */
static bool parse_range(const char *text, sweep_axis *axis, char *why,
                        size_t size) {
  char copy[256], *field[5];
  int nf = 0;
  snprintf(copy, sizeof copy, "%s", text);
  for (char *p = copy; nf < 5 && p;) {
    field[nf++] = p;
    p = strchr(p, ':');
    if (p)
      *p++ = '\0';
  }
  axis->log = nf >= 3 && strcmp(field[nf - 1], "log") == 0;
  const int numeric = nf - (axis->log ? 1 : 0);
  if (nf > 4 || numeric < 2 || numeric > 3) {
    snprintf(why, size, "expected V1,V2,... or START:STOP:COUNT[:log] (got %s)",
             text);
    return false;
  }
  if (!number(field[0], &axis->start) || !number(field[1], &axis->stop)) {
    snprintf(why, size, "START and STOP must be numbers (got %s)", text);
    return false;
  }
  axis->count = 0; /* no count: a Latin hypercube axis */
  if (numeric == 3) {
    char *end;
    errno = 0;
    long n = strtol(field[2], &end, 10);
    if (end == field[2] || *end || errno || n < 1 || n > 100000000) {
      snprintf(why, size, "COUNT must be a whole number from 1 (got %s)",
               field[2]);
      return false;
    }
    axis->count = (int)n;
  }
  if (axis->start == axis->stop && axis->count != 1) {
    snprintf(why, size, "empty range: START = STOP (got %s)", text);
    return false;
  }
  if (axis->log && !(axis->start > 0 && axis->stop > 0)) {
    snprintf(why, size, "a log range needs START and STOP > 0 (got %s)", text);
    return false;
  }
  return true;
}

/* The comma-separated list "V1,V2,..." into axis; false with why. */
static bool parse_list(const char *text, sweep_axis *axis, char *why,
                       size_t size) {
  int n = 1;
  for (const char *p = text; *p; p++)
    n += *p == ',';
  axis->texts = calloc((size_t)n, sizeof(char *));
  if (!axis->texts) {
    snprintf(why, size, "out of memory");
    return false;
  }
  const char *p = text;
  for (int i = 0; i < n; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    axis->texts[i] = sweep_trimmed(p, len);
    axis->n = i + 1;
    if (!axis->texts[i] || !axis->texts[i][0]) {
      snprintf(why, size, "empty value in the list (got %s)", text);
      return false;
    }
    p = comma ? comma + 1 : p + len;
  }
  return true;
}

int rod_sweep_def_vary(rod_sweep_def *d, const char *spec, const char *source,
                       rod_error *err) {
  const char *eq = strchr(spec, '=');
  const char *dot = strchr(spec, '.');
  if (!eq || !dot || dot > eq)
    return rod_error_set(err, ROD_EINVAL, source, "",
                         "expected SECTION.KEY=V1,V2,... or "
                         "SECTION.KEY=START:STOP:COUNT[:log] (got %s)",
                         spec);
  sweep_axis axis = {0};
  char *key = sweep_trimmed(spec, (size_t)(eq - spec));
  if (!key)
    return rod_error_set(err, ROD_ENOMEM, source, "", "out of memory");
  snprintf(axis.key, sizeof axis.key, "%s", key);
  const bool long_key = strlen(key) >= sizeof axis.key;
  free(key);
  if (long_key)
    return rod_error_set(err, ROD_EINVAL, source, axis.key, "key too long");
  if (has_key(d, axis.key))
    return rod_error_set(err, ROD_EINVAL, source, axis.key,
                         "varied twice (one --vary, or one CSV column, a key)");
  const char *values = eq + 1;
  while (*values == ' ' || *values == '\t')
    values++;
  char why[300];
  bool ok;
  if (!*values) {
    snprintf(why, sizeof why, "empty range: no values after '='");
    ok = false;
  } else if (strchr(values, ':') && !strchr(values, ',')) {
    axis.kind = SWEEP_RANGE;
    ok = parse_range(values, &axis, why, sizeof why);
  } else {
    axis.kind = SWEEP_LIST;
    ok = parse_list(values, &axis, why, sizeof why);
  }
  if (!ok) {
    sweep_texts_free(axis.texts, (size_t)axis.n);
    return rod_error_set(err, ROD_EINVAL, source, axis.key, "%s", why);
  }
  sweep_axis *grown = realloc(d->axes, (size_t)(d->naxes + 1) * sizeof *grown);
  if (!grown) {
    sweep_texts_free(axis.texts, (size_t)axis.n);
    return rod_error_set(err, ROD_ENOMEM, source, "", "out of memory");
  }
  d->axes = grown;
  d->axes[d->naxes++] = axis;
  return ROD_OK;
}

int rod_sweep_def_samples(rod_sweep_def *d, int n, uint64_t seed,
                          const char *source, rod_error *err) {
  if (n < 1)
    return rod_error_set(err, ROD_EINVAL, source, "samples",
                         "must be at least 1 (got %d)", n);
  d->samples = n;
  d->seed = seed;
  return ROD_OK;
}

/* ---- the [sweep] section ---------------------------------------------------
 */

typedef struct {
  rod_sweep_def *d;
  rod_sweep_section *out;
  const char *path;
  char folder[ROD_PATH_MAX];
  rod_error *err;
  int status;
  bool seed_given;
  uint64_t seed;
  int samples;
} section_ctx;

static int section_key(void *user, const char *section, const char *name,
                       const char *value) {
  section_ctx *x = user;
  if (strcmp(section, "sweep") != 0 || x->status != ROD_OK)
    return 1;
  char *end;
  if (strchr(name, '.')) { /* SECTION.KEY = values, as --vary */
    char spec[ROD_SWEEP_TEXT + 128];
    snprintf(spec, sizeof spec, "%s=%s", name, value);
    x->status = rod_sweep_def_vary(x->d, spec, x->path, x->err);
    x->out->has_cases = true;
  } else if (strcmp(name, "cases") == 0) {
    char csv[2 * ROD_PATH_MAX];
    snprintf(csv, sizeof csv, "%s%s", value[0] == '/' ? "" : x->folder, value);
    x->status = rod_sweep_def_csv(x->d, csv, x->err);
    x->out->has_cases = true;
  } else if (strcmp(name, "samples") == 0 || strcmp(name, "threads") == 0) {
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < 1 || v > 100000000)
      x->status = rod_error_set(x->err, ROD_EINVAL, x->path, "",
                                "sweep.%s: expected a whole number from 1 "
                                "(got %s)",
                                name, value);
    else if (name[0] == 's')
      x->samples = (int)v, x->out->has_cases = true;
    else
      x->out->threads = (int)v;
  } else if (strcmp(name, "seed") == 0) {
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (end == value || *end || errno || value[0] == '-')
      x->status = rod_error_set(x->err, ROD_EINVAL, x->path, "",
                                "sweep.seed: expected a whole number from 0 "
                                "(got %s)",
                                value);
    x->seed = v;
    x->seed_given = true;
  } else {
    x->status = rod_error_set(x->err, ROD_EINVAL, x->path, "",
                              "sweep.%s: unknown key (SECTION.KEY to vary, "
                              "cases, samples, seed, threads)",
                              name);
  }
  return 1;
}

int rod_sweep_def_section(rod_sweep_def *d, const char *path,
                          rod_sweep_section *out, rod_error *err) {
  memset(out, 0, sizeof *out);
  section_ctx x = {.d = d, .out = out, .path = path, .err = err};
  snprintf(x.folder, sizeof x.folder, "%s", path);
  char *slash = strrchr(x.folder, '/');
  if (slash)
    slash[1] = '\0';
  else
    x.folder[0] = '\0';
  FILE *f;
  if (rod_datafile_fopen(path, false, ROD_DATA_MAX_SCENARIO, &f, err) != ROD_OK)
    return ROD_EINVAL;
  ini_parse_file(f, section_key, &x);
  fclose(f);
  if (x.status == ROD_OK && x.samples > 0)
    x.status = rod_sweep_def_samples(d, x.samples, x.seed_given ? x.seed : 0,
                                     path, err);
  return x.status;
}

/* ---- the table of cases ----------------------------------------------------
 */

/* Latin hypercube: for axis j, sample i lies in stratum perm_j(i) of n,
 * at a uniform offset inside it; perm_j a Fisher-Yates shuffle. Every
 * draw is rod_random(seed, counter) with counters fixed by (j, i), so the
 * samples do not depend on anything but seed, n and the axes' order. */
static int hypercube(const rod_sweep_def *d, const sweep_axis *axis, int j,
                     char **out) {
  const int n = d->samples;
  int *perm = malloc((size_t)n * sizeof *perm);
  if (!perm)
    return ROD_ENOMEM;
  for (int i = 0; i < n; i++)
    perm[i] = i;
  const uint64_t base = (uint64_t)j * 2 * (uint64_t)n;
  for (int i = n - 1; i > 0; i--) {
    int k = (int)(rod_random_uniform(d->seed, base + (uint64_t)i) * (i + 1));
    int t = perm[i];
    perm[i] = perm[k];
    perm[k] = t;
  }
  int st = ROD_OK;
  for (int i = 0; i < n && st == ROD_OK; i++) {
    double u = (perm[i] +
                rod_random_uniform(d->seed, base + (uint64_t)n + (uint64_t)i)) /
               n;
    double v =
        axis->log
            ? exp(log(axis->start) + u * (log(axis->stop) - log(axis->start)))
            : axis->start + u * (axis->stop - axis->start);
    out[i] = value_text(v);
    if (!out[i])
      st = ROD_ENOMEM;
  }
  free(perm);
  return st;
}

/* Value i of a list or counted range axis. */
static char *axis_value(const sweep_axis *a, int i) {
  if (a->kind == SWEEP_LIST)
    return sweep_trimmed(a->texts[i], strlen(a->texts[i]));
  if (a->count == 1)
    return value_text(a->start);
  double u = (double)i / (a->count - 1);
  double v = a->log ? exp(log(a->start) + u * (log(a->stop) - log(a->start)))
                    : a->start + u * (a->stop - a->start);
  if (i == a->count - 1)
    v = a->stop; /* the end exactly as given */
  return value_text(v);
}

/* Whether key names a scenario key: known to the key table, or accepted
 * by --set on a copy of base (the named sections [load.NAME] and
 * [obstacle.NAME]). The value's own problems are the case's. */
static int check_key(const rod_scenario *base, rod_scenario *scratch,
                     const char *key, const char *value, const char *source,
                     rod_error *err) {
  const char *dot = strrchr(key, '.');
  char section[96], text[64];
  if (!dot || dot == key || !dot[1])
    return rod_error_set(err, ROD_EINVAL, source, key,
                         "names no scenario key (expected SECTION.KEY)");
  snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
  if (rod_scenario_get_text(base, section, dot + 1, text, sizeof text) ==
      ROD_OK)
    return ROD_OK;
  *scratch = *base;
  char assignment[ROD_SWEEP_TEXT + 128];
  snprintf(assignment, sizeof assignment, "%s=%s", key, value);
  rod_error e = {{0}, {0}, {0}, 0};
  if (rod_scenario_set(scratch, assignment, &e) != ROD_OK &&
      strstr(e.message, "unknown"))
    return rod_error_set(err, ROD_EINVAL, source, key, "%s", e.message);
  return ROD_OK;
}

/* The blocks of the product in order: the CSV rows, each list or counted
 * range, then the hypercube samples. */
static int table_shape(rod_sweep_def *d, rod_error *err, int *nkeys,
                       int *ncases) {
  int keys = d->csv_nkeys, sampled = 0;
  double cases = d->csv_rows > 0 ? d->csv_rows : 1;
  for (int a = 0; a < d->naxes; a++) {
    const sweep_axis *x = &d->axes[a];
    keys++;
    if (x->kind == SWEEP_RANGE && x->count == 0)
      sampled++;
    else
      cases *= x->kind == SWEEP_LIST ? x->n : x->count;
  }
  if (sampled && d->samples < 1)
    return rod_error_set(err, ROD_EINVAL, "--vary", "",
                         "a range START:STOP without COUNT needs --samples N "
                         "(a Latin hypercube), or give START:STOP:COUNT");
  if (!sampled && d->samples > 0)
    return rod_error_set(err, ROD_EINVAL, "--samples", "",
                         "needs ranges --vary SECTION.KEY=START:STOP to "
                         "sample");
  if (sampled)
    cases *= d->samples;
  if (keys == 0)
    return rod_error_set(err, ROD_EINVAL, "sweep", "",
                         "no cases: give --vary, --cases or a [sweep] "
                         "section");
  if (cases > 1e7)
    return rod_error_set(err, ROD_EINVAL, "sweep", "",
                         "%.3g cases are more than 10 million", cases);
  *nkeys = keys;
  *ncases = (int)cases;
  return ROD_OK;
}

/* Fill the table column by column: a block of size n whose values repeat
 * every `inner` cases (the blocks after it). */
static int fill_table(rod_sweep_def *d) {
  const size_t K = (size_t)d->nkeys;
  int col = 0;
  long inner = d->ncases;
  long rows = d->csv_rows > 0 ? d->csv_rows : 1;
  inner /= rows;
  for (int k = 0; k < d->csv_nkeys; k++, col++) {
    if (!(d->keys[col] = sweep_trimmed(d->csv_keys[k], strlen(d->csv_keys[k]))))
      return ROD_ENOMEM;
    for (int c = 0; c < d->ncases; c++) {
      const char *t =
          d->csv_texts[(size_t)(c / inner) * (size_t)d->csv_nkeys + (size_t)k];
      if (!(d->texts[(size_t)c * K + (size_t)col] =
                sweep_trimmed(t, strlen(t))))
        return ROD_ENOMEM;
    }
  }
  for (int a = 0; a < d->naxes; a++) {
    const sweep_axis *x = &d->axes[a];
    if (x->kind == SWEEP_RANGE && x->count == 0)
      continue;
    const int n = x->kind == SWEEP_LIST ? x->n : x->count;
    inner /= n;
    if (!(d->keys[col] = sweep_trimmed(x->key, strlen(x->key))))
      return ROD_ENOMEM;
    for (int c = 0; c < d->ncases; c++)
      if (!(d->texts[(size_t)c * K + (size_t)col] =
                axis_value(x, (int)((c / inner) % n))))
        return ROD_ENOMEM;
    col++;
  }
  for (int a = 0, j = 0; a < d->naxes; a++) {
    const sweep_axis *x = &d->axes[a];
    if (!(x->kind == SWEEP_RANGE && x->count == 0))
      continue;
    if (!(d->keys[col] = sweep_trimmed(x->key, strlen(x->key))))
      return ROD_ENOMEM;
    /* the sample block is the innermost: case c is sample c mod n */
    char **samples = calloc((size_t)d->samples, sizeof(char *));
    bool ok = samples && hypercube(d, x, j++, samples) == ROD_OK;
    for (int c = 0; ok && c < d->ncases; c++) {
      const char *t = samples[c % d->samples];
      ok = (d->texts[(size_t)c * K + (size_t)col] =
                sweep_trimmed(t, strlen(t))) != NULL;
    }
    sweep_texts_free(samples, samples ? (size_t)d->samples : 0);
    if (!ok)
      return ROD_ENOMEM;
    col++;
  }
  return ROD_OK;
}

int rod_sweep_def_build(rod_sweep_def *d, const rod_scenario *base,
                        rod_error *err) {
  if (d->keys && d->naxes == 0 && d->csv_nkeys == 0)
    return ROD_OK; /* a table given directly */
  free_table(d);
  int nkeys = 0, ncases = 0;
  int st = table_shape(d, err, &nkeys, &ncases);
  if (st != ROD_OK)
    return st;
  d->nkeys = nkeys;
  d->ncases = ncases;
  d->keys = calloc((size_t)nkeys, sizeof(char *));
  d->texts = calloc((size_t)nkeys * (size_t)ncases, sizeof(char *));
  if (!d->keys || !d->texts || fill_table(d) != ROD_OK) {
    free_table(d);
    return rod_error_set(err, ROD_ENOMEM, "sweep", "", "out of memory");
  }
  rod_scenario *scratch = malloc(sizeof *scratch);
  if (!scratch)
    return rod_error_set(err, ROD_ENOMEM, "sweep", "", "out of memory");
  for (int k = 0; k < nkeys && st == ROD_OK; k++)
    st = check_key(base, scratch, d->keys[k], d->texts[k],
                   k < d->csv_nkeys ? d->csv_path : "--vary", err);
  free(scratch);
  return st;
}

int rod_sweep_def_table(rod_sweep_def *d, int nkeys, const char *const *keys,
                        int ncases, const char *const *texts, rod_error *err) {
  free_axes(d);
  free_table(d);
  d->samples = 0;
  if (nkeys < 1 || ncases < 1)
    return rod_error_set(err, ROD_EINVAL, "sweep", "", "no cases");
  d->keys = calloc((size_t)nkeys, sizeof(char *));
  d->texts = calloc((size_t)nkeys * (size_t)ncases, sizeof(char *));
  d->nkeys = nkeys;
  d->ncases = ncases;
  bool ok = d->keys && d->texts;
  for (int k = 0; ok && k < nkeys; k++)
    ok = (d->keys[k] = sweep_trimmed(keys[k], strlen(keys[k]))) != NULL;
  for (size_t i = 0; ok && i < (size_t)nkeys * (size_t)ncases; i++)
    ok = (d->texts[i] = sweep_trimmed(texts[i], strlen(texts[i]))) != NULL;
  if (!ok) {
    free_table(d);
    return rod_error_set(err, ROD_ENOMEM, "sweep", "", "out of memory");
  }
  return ROD_OK;
}

int rod_sweep_def_cases(const rod_sweep_def *d) { return d->ncases; }
int rod_sweep_def_keys(const rod_sweep_def *d) { return d->nkeys; }
const char *rod_sweep_def_key(const rod_sweep_def *d, int k) {
  return k >= 0 && k < d->nkeys ? d->keys[k] : NULL;
}
const char *rod_sweep_def_text(const rod_sweep_def *d, int c, int k) {
  if (c < 0 || c >= d->ncases || k < 0 || k >= d->nkeys)
    return NULL;
  return d->texts[(size_t)c * (size_t)d->nkeys + (size_t)k];
}

int rod_sweep_case_scenario(const rod_sweep_def *d, const rod_scenario *base,
                            int c, const char *path, rod_scenario *out,
                            rod_error *err) {
  *out = *base;
  char assignment[ROD_SWEEP_TEXT + ROD_PATH_MAX];
  for (int k = 0; k < d->nkeys; k++) {
    snprintf(assignment, sizeof assignment, "%s=%s", d->keys[k],
             rod_sweep_def_text(d, c, k));
    int st = rod_scenario_set(out, assignment, err);
    if (st != ROD_OK)
      return st;
  }
  if (path) {
    snprintf(assignment, sizeof assignment, "output.file=%s", path);
    int st = rod_scenario_set(out, assignment, err);
    if (st != ROD_OK)
      return st;
  }
  return rod_scenario_validate(out, err);
}
