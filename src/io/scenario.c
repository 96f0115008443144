/* Scenario files: defaults, parsing, range checks, named sections and the
 * canonical INI text, all driven by the key tables of scenario_keys.c. */
#include "rod/scenario.h"

#include "io/datafile.h"
#include "scenario_contact.h"
#include "scenario_keys.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- number parsing ---------------------------------------------------- */

/* Parse one finite double filling the whole of [s, end); ROD_EFORMAT for a
 * malformed number, ROD_ENONFINITE for nan/inf. */
static int parse_double(const char *s, const char **end, double *out) {
  while (isspace((unsigned char)*s))
    s++;
  if (!*s)
    return ROD_EFORMAT;
  char *e;
  errno = 0;
  double v = strtod(s, &e);
  if (e == s)
    return ROD_EFORMAT;
  if (!isfinite(v))
    return ROD_ENONFINITE;
  if (errno == ERANGE && fabs(v) > 1.0)
    return ROD_ENONFINITE;
  *end = e;
  *out = v;
  return ROD_OK;
}

static bool only_space(const char *s) {
  while (isspace((unsigned char)*s))
    s++;
  return *s == '\0';
}

static int check_range(const key_def *k, const char *label, const double *v,
                       int n, const char *file, const char *value,
                       rod_error *err) {
  if (k->range == RANGE_NONZERO && n == 3) {
    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "must not be the zero vector (got %s)", value);
    return ROD_OK;
  }
  for (int i = 0; i < n; i++) {
    switch (k->range) {
    case RANGE_POSITIVE:
      if (!(v[i] > 0))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be > 0 (got %s)", value);
      break;
    case RANGE_NONNEG:
      if (!(v[i] >= 0))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be >= 0 (got %s)", value);
      break;
    case RANGE_CLOSED: {
      char lo[32], hi[32];
      rod_format_double(k->lo, lo, sizeof lo);
      rod_format_double(k->hi, hi, sizeof hi);
      if (!(v[i] >= k->lo && v[i] <= k->hi))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be in [%s, %s] (got %s)", lo, hi, value);
      break;
    }
    case RANGE_AT_LEAST:
      if (!(v[i] >= k->lo))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be >= %.0f (got %s)", k->lo, value);
      if (!(v[i] <= k->hi))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be <= %.0f (got %s)", k->hi, value);
      break;
    default:
      break;
    }
  }
  return ROD_OK;
}

static int number_error(int status, const char *label, const char *file,
                        const char *value, const char *what, rod_error *err) {
  if (status == ROD_ENONFINITE)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be a finite number (got %s)", value);
  return rod_error_set(err, ROD_EINVAL, file, label, "%s (got %s)", what,
                       value);
}

static bool parse_bool(const char *s, bool *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = true;
      return true;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = false;
      return true;
    }
  }
  return false;
}

/* Copy value without surrounding blanks and without a trailing "# comment"
 * (inih strips "; comment" itself). */
static void clean_value(const char *value, char *out, size_t size) {
  while (isspace((unsigned char)*value))
    value++;
  snprintf(out, size, "%s", value);
  for (char *p = out; *p; p++) {
    if (*p == '#' && (p == out || isspace((unsigned char)p[-1]))) {
      *p = '\0';
      break;
    }
  }
  size_t n = strlen(out);
  while (n > 0 && isspace((unsigned char)out[n - 1]))
    out[--n] = '\0';
}

/* Where key k of the scenario (item == NULL) or of a named section's item
 * lives. */
static char *key_address(rod_scenario *sc, void *item, const key_def *k) {
  return (item ? (char *)item : (char *)sc) + k->offset;
}

/* Parse raw as the value of k into base. label names the key in
 * messages. */
static int assign_value(char *base, const key_def *k, const char *raw,
                        const char *file, const char *label, rod_error *err) {
  char value[ROD_PATH_MAX + 64];
  clean_value(raw, value, sizeof value);
  if (value[0] == '\0' && k->type != KEY_STRING && k->type != KEY_FILE)
    return rod_error_set(err, ROD_EINVAL, file, label, "missing value");
  switch (k->type) {
  case KEY_ARCLENGTH:
  case KEY_DOUBLE: {
    if (k->type == KEY_ARCLENGTH && strcmp(value, "tip") == 0) {
      ((rod_arclength *)base)->tip = true;
      ((rod_arclength *)base)->s = 0;
      return ROD_OK;
    }
    const char *end;
    double v;
    int st = parse_double(value, &end, &v);
    if (st == ROD_OK && !only_space(end))
      st = ROD_EFORMAT;
    if (st != ROD_OK)
      return number_error(st, label, file, value,
                          k->type == KEY_ARCLENGTH
                              ? "must be tip or a number of metres"
                              : "not a number",
                          err);
    if ((st = check_range(k, label, &v, 1, file, value, err)) != ROD_OK)
      return st;
    if (k->type == KEY_ARCLENGTH) {
      ((rod_arclength *)base)->tip = false;
      ((rod_arclength *)base)->s = v;
    } else {
      *(double *)base = v;
    }
    return ROD_OK;
  }
  case KEY_VEC3: {
    const char *p = value;
    double v[3];
    for (int i = 0; i < 3; i++) {
      int st = parse_double(p, &p, &v[i]);
      if (st != ROD_OK)
        return number_error(st, label, file, value,
                            "expected three numbers separated by spaces", err);
      if (i < 2 && !isspace((unsigned char)*p))
        return number_error(ROD_EFORMAT, label, file, value,
                            "expected three numbers separated by spaces", err);
    }
    if (!only_space(p))
      return number_error(ROD_EFORMAT, label, file, value,
                          "expected three numbers separated by spaces", err);
    int st = check_range(k, label, v, 3, file, value, err);
    if (st != ROD_OK)
      return st;
    memcpy(base, v, sizeof v);
    return ROD_OK;
  }
  case KEY_INT_AUTO:
    if (strcmp(value, "auto") == 0) {
      *(int *)base = 0;
      return ROD_OK;
    }
    /* fall through */
  case KEY_INT: {
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || !only_space(end) || errno == ERANGE)
      return number_error(ROD_EFORMAT, label, file, value,
                          k->type == KEY_INT_AUTO ? "must be an integer or auto"
                                                  : "must be an integer",
                          err);
    double dv = (double)v;
    int st = check_range(k, label, &dv, 1, file, value, err);
    if (st != ROD_OK)
      return st;
    *(int *)base = (int)v;
    return ROD_OK;
  }
  case KEY_BOOL: {
    bool b;
    if (!parse_bool(value, &b))
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "must be true or false (got %s)", value);
    *(bool *)base = b;
    return ROD_OK;
  }
  case KEY_ENUM: {
    for (int i = 0; k->choices[i]; i++) {
      if (strcmp(value, k->choices[i]) == 0) {
        *(int *)base = i;
        return ROD_OK;
      }
    }
    char list[256] = "";
    for (int i = 0; k->choices[i]; i++) {
      strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
      strncat(list, k->choices[i], sizeof list - strlen(list) - 1);
    }
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be one of %s (got %s)", list, value);
  }
  case KEY_STRING:
  case KEY_FILE: /* an empty file name means none */
    if (value[0] == '\0' && k->type == KEY_STRING)
      return rod_error_set(err, ROD_EINVAL, file, label, "must not be empty");
    if (strlen(value) >= k->size)
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "longer than %zu characters", k->size - 1);
    snprintf(base, k->size, "%s", value);
    return ROD_OK;
  }
  return ROD_EINVAL;
}

/* A relative input file name of a scenario file, taken from the folder
 * dir of that file and made absolute, so that the effective scenario
 * (written to the HDF5 file, or by calibrate elsewhere) still names it. */
static int resolve_file(char *value, size_t size, const char *dir,
                        const char *file, const char *label, rod_error *err) {
  if (!dir || !value[0] || value[0] == '/')
    return ROD_OK;
  char joined[2 * ROD_PATH_MAX + 2];
  snprintf(joined, sizeof joined, "%s/%s", dir, value);
  if (strlen(joined) >= size)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "longer than %zu characters with the scenario's "
                         "folder %s",
                         size - 1, dir);
  snprintf(value, size, "%s", joined);
  return ROD_OK;
}

/* Set key k of the scenario (item NULL) or of a named section's item; dir
 * is the folder of the scenario file the value comes from (NULL: from the
 * command line or code, names stay as given). */
static int assign(rod_scenario *sc, void *item, const char *section,
                  const key_def *k, const char *raw, const char *file,
                  const char *dir, rod_error *err) {
  char label[160];
  snprintf(label, sizeof label, "%s.%s", section, k->name);
  char *address = key_address(sc, item, k);
  int st = assign_value(address, k, raw, file, label, err);
  if (st == ROD_OK && k->type == KEY_FILE)
    st = resolve_file(address, k->size, dir, file, label, err);
  if (st != ROD_OK)
    return st;
  if (k->present_offset)
    *(bool *)((char *)sc + k->present_offset) = true;
  bool *flag = rod_optional_flag(sc, section);
  if (flag)
    *flag = true;
  return ROD_OK;
}

/* Defaults of every key of one table into base (the scenario or an
 * item). */
static void set_defaults(char *base, const key_def *keys, size_t n) {
  for (size_t i = 0; i < n; i++) {
    /* "" is an optional text (a file name) that is absent by default */
    if (!keys[i].default_text || !keys[i].default_text[0])
      continue;
    int st = assign_value(base + keys[i].offset, &keys[i], keys[i].default_text,
                          "defaults", keys[i].name, NULL);
    (void)st; /* the defaults are valid by construction (tested) */
  }
}

/* A named section's item called name, made (with its defaults) when new. */
static int family_item(rod_scenario *sc, const section_family *f,
                       const char *section, const char *name, const char *file,
                       void **item, rod_error *err) {
  char label[160];
  snprintf(label, sizeof label, "[%s]", section);
  size_t len = strlen(name);
  if (len == 0 || len >= ROD_NAME_MAX)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "[%s.NAME] needs a name of 1 to %d letters, digits, _ "
                         "or - after the dot",
                         f->prefix, ROD_NAME_MAX - 1);
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "[%s.NAME]: a name may hold only letters, digits, _ "
                           "and -",
                           f->prefix);
  int *count = (int *)((char *)sc + f->count_offset);
  char *items = (char *)sc + f->array_offset;
  for (int i = 0; i < *count; i++) {
    char *it = items + (size_t)i * f->item_size;
    if (strcmp(it + f->name_offset, name) == 0) {
      *item = it;
      return ROD_OK;
    }
  }
  if (*count >= f->max)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "more than %d [%s.NAME] sections", f->max, f->prefix);
  char *it = items + (size_t)(*count)++ * f->item_size;
  memset(it, 0, f->item_size);
  snprintf(it + f->name_offset, ROD_NAME_MAX, "%s", name);
  set_defaults(it, f->keys, f->nkeys);
  *item = it;
  return ROD_OK;
}

/* An unknown section or key, with the nearest known one. */
static int unknown(const char *section, const char *name, const char *file,
                   bool section_unknown, rod_error *err) {
  char label[200], near[160];
  if (section_unknown) {
    snprintf(label, sizeof label, "[%s]", section);
    if (rod_nearest_section(section, near, sizeof near))
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "unknown section (did you mean [%s]? see rodsim "
                           "keys)",
                           near);
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "unknown section (see rodsim keys)");
  }
  snprintf(label, sizeof label, "%s.%s", section, name);
  if (rod_nearest_key(section, name, near, sizeof near))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "unknown key (did you mean %s?)", near);
  return rod_error_set(err, ROD_EINVAL, file, label,
                       "unknown key (see rodsim keys)");
}

/* Set section.name from text; file names the source in messages, dir is
 * the folder of a scenario file (assign). */
static int set_key_from(rod_scenario *sc, const char *section, const char *name,
                        const char *value, const char *file, const char *dir,
                        rod_error *err) {
  if (strcmp(section, "fit") == 0)
    return ROD_OK; /* written by calibrate, ignored elsewhere */
  const char *item_name;
  const section_family *f = rod_find_family(section, &item_name);
  if (f) {
    const key_def *k = rod_family_key(f, name);
    if (!k)
      return unknown(section, name, file, false, err);
    void *item;
    int st = family_item(sc, f, section, item_name, file, &item, err);
    if (st != ROD_OK)
      return st;
    return assign(sc, item, section, k, value, file, dir, err);
  }
  if (!rod_known_section(section))
    return unknown(section, name, file, true, err);
  const key_def *k = rod_find_key(section, name);
  if (!k)
    return unknown(section, name, file, false, err);
  return assign(sc, NULL, section, k, value, file, dir, err);
}

int rod_scenario_set_key(rod_scenario *sc, const char *section,
                         const char *name, const char *value, rod_error *err) {
  return set_key_from(sc, section, name, value,
                      sc->source[0] ? sc->source : "scenario", NULL, err);
}

void rod_scenario_default(rod_scenario *sc) {
  memset(sc, 0, sizeof *sc);
  set_defaults((char *)sc, rod_keys, rod_nkeys);
  sc->impulse.enabled = false;
  sc->motor.enabled = false;
  sc->plane.enabled = false;
  sc->rod.has_bending_stiffness = false;
  sc->time.has_tolerance = false;
  sc->output.has_interval = false;
  sc->source[0] = '\0';
}

/* ---- file loading ------------------------------------------------------ */

/* Keys of a file, to reject one given twice: "section.key" per key. */
enum { SEEN_MAX = 512 };

typedef struct {
  rod_scenario *sc;
  rod_error *err;
  int status;
  FILE *fp;
  int line; /* lines read so far */
  int nseen;
  char seen[SEEN_MAX][96];
  char dir[ROD_PATH_MAX]; /* the file's folder, absolute when it can be */
} load_ctx;

static int ini_handler_cb(void *user, const char *section, const char *name,
                          const char *value) {
  load_ctx *ctx = user;
  if (ctx->status != ROD_OK)
    return 0;
  if (section[0] == '\0') {
    ctx->status = rod_error_set(ctx->err, ROD_EINVAL, ctx->sc->source, name,
                                "key outside any [section]");
  } else {
    char label[96];
    snprintf(label, sizeof label, "%s.%s", section, name);
    for (int i = 0; i < ctx->nseen; i++)
      if (strcmp(ctx->seen[i], label) == 0)
        ctx->status = rod_error_set(ctx->err, ROD_EINVAL, ctx->sc->source,
                                    label, "given twice (got %s)", value);
    if (ctx->status == ROD_OK && ctx->nseen < SEEN_MAX)
      snprintf(ctx->seen[ctx->nseen++], sizeof ctx->seen[0], "%s", label);
    if (ctx->status == ROD_OK)
      ctx->status = set_key_from(ctx->sc, section, name, value, ctx->sc->source,
                                 ctx->dir[0] ? ctx->dir : NULL, ctx->err);
  }
  if (ctx->status != ROD_OK && ctx->err)
    ctx->err->line = ctx->line;
  return ctx->status == ROD_OK;
}

/* fgets-style reader that counts lines and notices "[section]" headers, so
 * that an optional section or a named one present without keys is turned
 * on (made) with its defaults. */
static char *reader_cb(char *str, int num, void *stream) {
  load_ctx *ctx = stream;
  char *line = fgets(str, num, ctx->fp);
  if (!line)
    return NULL;
  ctx->line++;
  const char *p = line;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '[' && ctx->status == ROD_OK) {
    char name[160];
    if (sscanf(p + 1, " %159[^]]", name) == 1) {
      size_t n = strlen(name);
      while (n > 0 && isspace((unsigned char)name[n - 1]))
        name[--n] = '\0';
      bool *flag = rod_optional_flag(ctx->sc, name);
      const char *item_name;
      const section_family *f = rod_find_family(name, &item_name);
      void *item;
      if (flag) {
        *flag = true;
      } else if (f) {
        ctx->status = family_item(ctx->sc, f, name, item_name, ctx->sc->source,
                                  &item, ctx->err);
      } else if (strcmp(name, "fit") != 0 && !rod_known_section(name)) {
        ctx->status = unknown(name, "", ctx->sc->source, true, ctx->err);
      }
      if (ctx->status != ROD_OK && ctx->err)
        ctx->err->line = ctx->line;
    }
  }
  return line;
}

/* The folder of the file at path, absolute where realpath() finds it. */
static void file_folder(const char *path, char *dir, size_t size) {
  char copy[ROD_PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  char *slash = strrchr(copy, '/');
  if (slash == copy)
    copy[1] = '\0'; /* "/x.ini": the root */
  else if (slash)
    *slash = '\0';
  else
    snprintf(copy, sizeof copy, ".");
  char *real = realpath(copy, NULL);
  snprintf(dir, size, "%s", real ? real : copy);
  free(real);
}

/* Read the INI text of fp on top of sc; name labels messages, dir is the
 * folder that file names in it are relative to ("": names stay as given,
 * relative to the working directory). */
static int load_stream(rod_scenario *sc, FILE *fp, const char *name,
                       const char *dir, rod_error *err) {
  load_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return rod_error_set(err, ROD_ENOMEM, name, "", "out of memory");
  ctx->sc = sc;
  ctx->err = err;
  ctx->status = ROD_OK;
  ctx->fp = fp;
  snprintf(ctx->dir, sizeof ctx->dir, "%s", dir);
  /* Debian's libinih exposes its options as globals: comments start with
   * ';' or '#' (also after a value), no multi-line values, long lines. */
  ini_start_comment_prefixes = ";#";
  ini_inline_comment_prefixes = ";";
  ini_allow_multiline = false;
  ini_stop_on_first_error = true;
  ini_use_stack = false;
  ini_allow_realloc = true;
  ini_max_line = 65536;
  int line = ini_parse_stream(reader_cb, ctx, ini_handler_cb, ctx);
  bool read_error = ferror(fp) != 0;
  int status = ctx->status;
  free(ctx);
  if (status != ROD_OK)
    return status;
  if (read_error)
    return rod_error_set(err, ROD_EIO, name, "", "read error");
  if (line != 0) {
    int st = rod_error_set(err, ROD_EINVAL, name, "",
                           "not a [section] or key = value line");
    if (err)
      err->line = line;
    return st;
  }
  return ROD_OK;
}

int rod_scenario_load(rod_scenario *sc, const char *path, rod_error *err) {
  snprintf(sc->source, sizeof sc->source, "%s", path);
  FILE *fp;
  int opened = rod_datafile_fopen(path, false, ROD_DATA_MAX_SCENARIO, &fp, err);
  if (opened != ROD_OK)
    return opened;
  char dir[ROD_PATH_MAX];
  file_folder(path, dir, sizeof dir);
  int st = load_stream(sc, fp, path, dir, err);
  fclose(fp);
  return st;
}

int rod_scenario_load_string(rod_scenario *sc, const char *text,
                             const char *name, rod_error *err) {
  snprintf(sc->source, sizeof sc->source, "%s", name ? name : "scenario");
  size_t n = strlen(text);
  /* fmemopen of zero bytes fails on older C libraries: read "\n" */
  FILE *fp = n ? fmemopen((void *)text, n, "r") : fmemopen("\n", 1, "r");
  if (!fp)
    return rod_error_set(err, ROD_ENOMEM, sc->source, "", "out of memory");
  /* text has no folder: its file names stay as given, relative to the
   * working directory, as on the command line (so that a scenario read
   * back from its own text, rod_scenario_to_ini, is the same) */
  int st = load_stream(sc, fp, sc->source, "", err);
  fclose(fp);
  return st;
}

rod_scenario *rod_scenario_new(void) {
  rod_scenario *sc = malloc(sizeof *sc);
  if (sc)
    rod_scenario_default(sc);
  return sc;
}

void rod_scenario_free(rod_scenario *sc) { free(sc); }

int rod_scenario_set(rod_scenario *sc, const char *assignment, rod_error *err) {
  /* a problem with an override is the command line's, not the file's */
  const char *eq = strchr(assignment, '=');
  const char *dot = strchr(assignment, '.');
  if (!eq || !dot || dot > eq)
    return rod_error_set(err, ROD_EINVAL, "--set", "",
                         "expected SECTION.KEY=VALUE (got %s)", assignment);
  /* the key is after the last dot before '=': [load.NAME] sections have
   * dots of their own */
  const char *key_dot = dot;
  for (const char *p = dot; p < eq; p++)
    if (*p == '.')
      key_dot = p;
  char section[160], name[64];
  size_t ls = (size_t)(key_dot - assignment), ln = (size_t)(eq - key_dot - 1);
  if (ls == 0 || ln == 0 || ls >= sizeof section || ln >= sizeof name)
    return rod_error_set(err, ROD_EINVAL, "--set", "",
                         "expected SECTION.KEY=VALUE (got %s)", assignment);
  memcpy(section, assignment, ls);
  section[ls] = '\0';
  memcpy(name, key_dot + 1, ln);
  name[ln] = '\0';
  if (strcmp(section, "fit") == 0)
    return rod_error_set(err, ROD_EINVAL, "--set", "",
                         "[fit] is written by calibrate, not set");
  return set_key_from(sc, section, name, eq + 1, "--set", NULL, err);
}

/* The range rules of one table checked on the values in base: what the
 * loader checks, for scenarios filled in code. */
static int check_table(const char *base, const char *section,
                       const key_def *keys, size_t n, const char *file,
                       rod_error *err) {
  for (size_t i = 0; i < n; i++) {
    const key_def *k = &keys[i];
    const char *p = base + k->offset;
    char label[160], text[128];
    snprintf(label, sizeof label, "%s.%s", section, k->name);
    double v[3];
    int count = 0;
    switch (k->type) {
    case KEY_DOUBLE:
      v[0] = *(const double *)p;
      count = 1;
      break;
    case KEY_ARCLENGTH:
      if (((const rod_arclength *)p)->tip)
        continue;
      v[0] = ((const rod_arclength *)p)->s;
      count = 1;
      break;
    case KEY_VEC3:
      memcpy(v, p, sizeof v);
      count = 3;
      break;
    case KEY_INT_AUTO:
      if (*(const int *)p == 0)
        continue;
      /* fall through */
    case KEY_INT:
      v[0] = *(const int *)p;
      count = 1;
      break;
    case KEY_ENUM: {
      int c = *(const int *)p, nc = 0;
      while (k->choices[nc])
        nc++;
      if (c < 0 || c >= nc)
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "not one of its choices (got %d)", c);
      continue;
    }
    default:
      continue;
    }
    if (k->present_offset && !*(const bool *)(base + k->present_offset))
      continue;
    if (count == 3) {
      char a[32], b[32], c[32];
      rod_format_double(v[0], a, sizeof a);
      rod_format_double(v[1], b, sizeof b);
      rod_format_double(v[2], c, sizeof c);
      snprintf(text, sizeof text, "%s %s %s", a, b, c);
    } else {
      rod_format_double(v[0], text, sizeof text);
    }
    for (int j = 0; j < count; j++)
      if (!isfinite(v[j]))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be a finite number (got %s)", text);
    int st = check_range(k, label, v, count, file, text, err);
    if (st != ROD_OK)
      return st;
  }
  return ROD_OK;
}

/* Every key's range, for a scenario set in code as for one loaded. */
static int check_ranges(const rod_scenario *sc, const char *file,
                        rod_error *err) {
  for (size_t i = 0; i < rod_nkeys; i++) {
    const key_def *k = &rod_keys[i];
    bool *flag = rod_optional_flag((rod_scenario *)sc, k->section);
    if ((flag && !*flag) ||
        (k->present_offset &&
         !*(const bool *)((const char *)sc + k->present_offset)))
      continue;
    int st = check_table((const char *)sc, k->section, k, 1, file, err);
    if (st != ROD_OK)
      return st;
  }
  for (size_t f = 0; f < rod_nfamilies; f++) {
    const section_family *fam = &rod_families[f];
    int count = *(const int *)((const char *)sc + fam->count_offset);
    for (int i = 0; i < count; i++) {
      const char *item =
          (const char *)sc + fam->array_offset + (size_t)i * fam->item_size;
      char section[96];
      snprintf(section, sizeof section, "%s.%s", fam->prefix,
               item + fam->name_offset);
      int st = check_table(item, section, fam->keys, fam->nkeys, file, err);
      if (st != ROD_OK)
        return st;
    }
  }
  return ROD_OK;
}

static bool nonzero3(const double v[3]) {
  return v[0] != 0 || v[1] != 0 || v[2] != 0;
}

static void vec_text(const double v[3], char *buf, size_t size) {
  char a[32], b[32], c[32];
  rod_format_double(v[0], a, sizeof a);
  rod_format_double(v[1], b, sizeof b);
  rod_format_double(v[2], c, sizeof c);
  snprintf(buf, size, "%s %s %s", a, b, c);
}

/* The cross-section, precurvature and drag keys that depend on each
 * other. */
static int check_geometry(const rod_scenario *sc, const char *file,
                          rod_error *err) {
  char v[96], w[32];
  if (!(sc->rod.inner_diameter < sc->rod.diameter)) {
    rod_format_double(sc->rod.inner_diameter, v, sizeof v);
    rod_format_double(sc->rod.diameter, w, sizeof w);
    return rod_error_set(err, ROD_EINVAL, file, "rod.inner_diameter",
                         "must be < rod.diameter = %s (got %s)", w, v);
  }
  if (sc->rod.precurvature_file[0] && nonzero3(sc->rod.precurvature)) {
    vec_text(sc->rod.precurvature, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rod.precurvature",
                         "give rod.precurvature or rod.precurvature_file, "
                         "not both (got %s and %s)",
                         v, sc->rod.precurvature_file);
  }
  if (sc->rod.drag_model == ROD_DRAG_PAPER && sc->rod.drag_tangential != 0) {
    rod_format_double(sc->rod.drag_tangential, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rod.drag_tangential",
                         "applies to rod.drag_model = normal only; paper uses "
                         "rod.drag along every material axis (got %s)",
                         v);
  }
  return ROD_OK;
}

/* A positive finite quantity derived from the keys (an area, a stiffness,
 * a frequency), or the key responsible named with why it cannot be: a
 * value that a double overflows or underflows to 0 (a diameter of 1e-200 m
 * has no representable area) makes every later number meaningless. */
static int derived(double value, const char *what, const char *key,
                   double given, const char *file, rod_error *err) {
  if (isfinite(value) && value > 0)
    return ROD_OK;
  char g[64];
  rod_format_double(given, g, sizeof g);
  return rod_error_set(err, ROD_EINVAL, file, key,
                       "%s %s: no number a double holds (got %s)", what,
                       value == 0 ? "underflows to 0" : "overflows", g);
}

/* The rod's section, stiffness, mass and first bending frequency (m^2,
 * N m^2, kg/m, rad/s: omega_1 = (1.875 / L)^2 sqrt(EI / (rho A)) of the
 * cantilever) must be positive finite numbers. */
static int check_scale(const rod_scenario *sc, const char *file,
                       rod_error *err) {
  const double d = sc->rod.diameter, di = sc->rod.inner_diameter;
  const double area = M_PI * (d * d - di * di) / 4.0;
  const double second = M_PI * (d * d * d * d - di * di * di * di) / 64.0;
  const double ei = sc->rod.has_bending_stiffness
                        ? sc->rod.bending_stiffness
                        : sc->rod.youngs_modulus * second;
  const double gj = sc->rod.shear_modulus * 2.0 * second;
  const double rho_a = sc->rod.density * area;
  const double k = 1.875 / sc->rod.length;
  const double omega = k * k * sqrt(ei / rho_a);
  int st;
  if ((st = derived(area, "the section's area pi (d^2 - d_i^2) / 4",
                    "rod.diameter", d, file, err)) != ROD_OK ||
      (st = derived(second, "the section's second moment", "rod.diameter", d,
                    file, err)) != ROD_OK ||
      (st = derived(ei, "the bending stiffness",
                    sc->rod.has_bending_stiffness ? "rod.bending_stiffness"
                                                  : "rod.youngs_modulus",
                    sc->rod.has_bending_stiffness ? sc->rod.bending_stiffness
                                                  : sc->rod.youngs_modulus,
                    file, err)) != ROD_OK ||
      (st = derived(gj, "the torsional stiffness", "rod.shear_modulus",
                    sc->rod.shear_modulus, file, err)) != ROD_OK ||
      (st = derived(rho_a, "the mass per length", "rod.density",
                    sc->rod.density, file, err)) != ROD_OK ||
      (st = derived(omega, "the first bending frequency", "rod.length",
                    sc->rod.length, file, err)) != ROD_OK)
    return st;
  return ROD_OK;
}

/* Steps and samples are counted in int: a run of more is refused, with
 * the count (time.duration 1e300 s would otherwise run no step at all). */
static int check_counts(const rod_scenario *sc, const char *file,
                        rod_error *err) {
  const double steps = sc->time.duration / sc->time.dt;
  if (!(steps < INT_MAX - 2))
    return rod_error_set(err, ROD_EINVAL, file, "time.duration",
                         "%.3g s at time.dt = %.3g s is %.3g steps, more than "
                         "a run can count (%d): use a larger time.dt or a "
                         "shorter time.duration",
                         sc->time.duration, sc->time.dt, steps, INT_MAX - 3);
  if (sc->output.has_interval) {
    const double samples = sc->time.duration / sc->output.interval;
    if (!(samples < INT_MAX - 2))
      return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                           "%.3g s over time.duration = %.3g s is %.3g "
                           "samples, more than a file can count (%d)",
                           sc->output.interval, sc->time.duration, samples,
                           INT_MAX - 3);
  }
  return ROD_OK;
}

/* The time scheme, step-size control and output times. */
static int validate_time(const rod_scenario *sc, const char *file,
                         rod_error *err) {
  char v[64];
  const bool dirk = sc->time.scheme != ROD_SCHEME_BDF_ALPHA;
  const bool kirchhoff = sc->solver.backend == ROD_BACKEND_KIRCHHOFF;
  if (dirk && !kirchhoff)
    return rod_error_set(err, ROD_EINVAL, file, "time.scheme",
                         "applies to the kirchhoff backend; rfem integrates "
                         "with rfem.integrator (got solver.backend = rfem)");
  if (dirk && sc->space.history != ROD_HISTORY_AUTO &&
      sc->space.history != ROD_HISTORY_STAGE)
    return rod_error_set(err, ROD_EINVAL, file, "space.history",
                         "the Runge-Kutta schemes keep a record per stage: "
                         "use auto or stage with time.scheme != bdf-alpha");
  if (sc->time.has_tolerance && kirchhoff && !dirk)
    return rod_error_set(err, ROD_EINVAL, file, "time.tolerance",
                         "needs a scheme with an error estimate: time.scheme "
                         "= esdirk3, esdirk4 or sdirk4 (got bdf-alpha)");
  if (sc->time.has_tolerance && !kirchhoff &&
      sc->rfem.integrator != ROD_RFEM_GENALPHA)
    return rod_error_set(err, ROD_EINVAL, file, "time.tolerance",
                         "applies to rfem.integrator = genalpha (rk45 has "
                         "rfem.tolerance)");
  if (sc->output.has_interval && (sc->plane.enabled || sc->obstacles.count > 0))
    return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                         "contact forces between steps cannot be "
                         "interpolated: use output.every with contact");
  if (sc->output.has_interval && sc->output.every > 1) {
    snprintf(v, sizeof v, "%d", sc->output.every);
    return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                         "give output.every or output.interval, not both "
                         "(output.every = %s)",
                         v);
  }
  return ROD_OK;
}

/* The attached tip body's keys mean nothing for a released mass. */
static int check_tip(const rod_scenario *sc, const char *file, rod_error *err) {
  char v[96];
  const struct {
    const char *key;
    const double *value;
  } body[] = {{"tip.inertia", sc->tip.inertia}, {"tip.offset", sc->tip.offset}};
  for (int i = 0; i < 2; i++)
    if (sc->tip.release && nonzero3(body[i].value)) {
      vec_text(body[i].value, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, body[i].key,
                           "describes a body attached to the tip: needs "
                           "tip.release = false (got %s)",
                           v);
    }
  return ROD_OK;
}

/* A [load.NAME]: on the rod, and either constant with a ramp or
 * tabulated. */
static int check_load(const rod_scenario *sc, const rod_load_def *l,
                      const char *file, rod_error *err) {
  char label[96], v[96];
  snprintf(label, sizeof label, "load.%s.position", l->name);
  if (!l->position.tip && l->position.s > sc->rod.length) {
    rod_format_double(l->position.s, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  const struct {
    const char *key, *file_key;
    const double *value;
    const char *path;
  } part[] = {{"force", "force_file", l->force, l->force_file},
              {"moment", "moment_file", l->moment, l->moment_file}};
  for (int i = 0; i < 2; i++) {
    if (!part[i].path[0])
      continue;
    if (nonzero3(part[i].value)) {
      snprintf(label, sizeof label, "load.%s.%s", l->name, part[i].key);
      vec_text(part[i].value, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "give %s or %s, not both (got %s and %s)",
                           part[i].key, part[i].file_key, v, part[i].path);
    }
    if (l->ramp != 0) {
      snprintf(label, sizeof label, "load.%s.ramp", l->name);
      rod_format_double(l->ramp, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "applies to a constant force and moment, not to "
                           "%s (got %s)",
                           part[i].file_key, v);
    }
  }
  return ROD_OK;
}

/* The clamp moved along a table: not together with the motor's own motion
 * of the clamp. */
static int check_base_motion(const rod_scenario *sc, const char *file,
                             rod_error *err) {
  if (!sc->base.motion_file[0])
    return ROD_OK;
  if (sc->motor.enabled)
    return rod_error_set(err, ROD_EINVAL, file, "base.motion_file",
                         "moves the clamp, as [motor] does: give one of them "
                         "(got %s with [motor])",
                         sc->base.motion_file);
  return ROD_OK;
}

int rod_scenario_validate(const rod_scenario *sc, rod_error *err) {
  const char *file = sc->source[0] ? sc->source : "scenario";
  char v[64];
  int st = check_ranges(sc, file, err);
  if (st != ROD_OK)
    return st;
  if (sc->impulse.enabled && sc->impulse.position > sc->rod.length) {
    rod_format_double(sc->impulse.position, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "impulse.position",
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  if (sc->rfem.joint == ROD_JOINT_MAXWELL && !(sc->rfem.maxwell_time > 0)) {
    rod_format_double(sc->rfem.maxwell_time, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rfem.maxwell_time",
                         "must be > 0 for maxwell joints (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.kp > 0 &&
      sc->solver.backend == ROD_BACKEND_KIRCHHOFF) {
    rod_format_double(sc->motor.kp, v, sizeof v);
    return rod_error_set(
        err, ROD_EINVAL, file, "motor.kp",
        "a PD-driven motor (kp > 0) needs solver.backend = rfem (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.kp > 0 && !(sc->motor.inertia > 0) &&
      sc->solver.backend == ROD_BACKEND_RFEM) {
    /* a massless rotor under PD is a stiff constraint the chain cannot
     * integrate; the default inertia 0 only suits kp = 0 */
    rod_format_double(sc->motor.inertia, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "motor.inertia",
                         "must be > 0 when motor.kp > 0 (got %s)", v);
  }
  if ((st = check_geometry(sc, file, err)) != ROD_OK ||
      (st = check_scale(sc, file, err)) != ROD_OK ||
      (st = check_counts(sc, file, err)) != ROD_OK ||
      (st = check_tip(sc, file, err)) != ROD_OK)
    return st;
  for (int i = 0; i < sc->loads.count; i++)
    if ((st = check_load(sc, &sc->loads.item[i], file, err)) != ROD_OK)
      return st;
  if ((st = check_base_motion(sc, file, err)) != ROD_OK ||
      (st = validate_time(sc, file, err)) != ROD_OK)
    return st;
  return rod_scenario_check_contact(sc, file, err);
}

/* ---- canonical text ---------------------------------------------------- */

static void value_text(const char *base, const key_def *k, char *buf,
                       size_t size) {
  switch (k->type) {
  case KEY_ARCLENGTH:
    if (((const rod_arclength *)base)->tip)
      snprintf(buf, size, "tip");
    else
      rod_format_double(((const rod_arclength *)base)->s, buf, size);
    break;
  case KEY_DOUBLE:
    rod_format_double(*(const double *)base, buf, size);
    break;
  case KEY_VEC3: {
    const double *v = (const double *)base;
    char a[32], b[32], c[32];
    rod_format_double(v[0], a, sizeof a);
    rod_format_double(v[1], b, sizeof b);
    rod_format_double(v[2], c, sizeof c);
    snprintf(buf, size, "%s %s %s", a, b, c);
    break;
  }
  case KEY_INT_AUTO:
    if (*(const int *)base == 0) {
      snprintf(buf, size, "auto");
      break;
    }
    /* fall through */
  case KEY_INT:
    snprintf(buf, size, "%d", *(const int *)base);
    break;
  case KEY_BOOL:
    snprintf(buf, size, "%s", *(const bool *)base ? "true" : "false");
    break;
  case KEY_ENUM:
    snprintf(buf, size, "%s", k->choices[*(const int *)base]);
    break;
  case KEY_STRING:
  case KEY_FILE:
    snprintf(buf, size, "%s", base);
    break;
  }
}

int rod_scenario_get_text(const rod_scenario *sc, const char *section,
                          const char *name, char *buf, size_t size) {
  const key_def *k = rod_find_key(section, name);
  if (!k)
    return ROD_EINVAL;
  if (k->present_offset &&
      !*(const bool *)((const char *)sc + k->present_offset)) {
    snprintf(buf, size, "%s", "");
    return ROD_OK;
  }
  value_text((const char *)sc + k->offset, k, buf, size);
  return ROD_OK;
}

double *rod_scenario_double_key(rod_scenario *sc, const char *section,
                                const char *name) {
  const key_def *k = rod_find_key(section, name);
  if (!k || k->type != KEY_DOUBLE)
    return NULL;
  return (double *)((char *)sc + k->offset);
}

/* Appends to a text buffer like snprintf: `used` counts what the whole
 * text needs. */
typedef struct {
  char *buf;
  size_t size, used;
} text_out;

static void emit(text_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void emit(text_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bool room = o->buf && o->used < o->size;
  int n = vsnprintf(room ? o->buf + o->used : NULL,
                    room ? o->size - o->used : 0, fmt, ap);
  va_end(ap);
  if (n > 0)
    o->used += (size_t)n;
}

/* key = value lines of one table's keys in base (strings left out when
 * empty: an absent file name). */
static void emit_keys(text_out *o, const char *base, const key_def *keys,
                      size_t n) {
  char value[ROD_PATH_MAX + 64];
  for (size_t i = 0; i < n; i++) {
    if ((keys[i].type == KEY_STRING || keys[i].type == KEY_FILE) &&
        !base[keys[i].offset])
      continue;
    value_text(base + keys[i].offset, &keys[i], value, sizeof value);
    emit(o, "%s = %s\n", keys[i].name, value);
  }
}

size_t rod_scenario_to_ini(const rod_scenario *sc, char *buf, size_t size) {
  text_out o = {buf, size, 0};
  const char *current = NULL;
  for (size_t i = 0; i < rod_nkeys; i++) {
    const key_def *k = &rod_keys[i];
    bool *flag = rod_optional_flag((rod_scenario *)sc, k->section);
    if (flag && !*flag)
      continue;
    if (k->present_offset &&
        !*(const bool *)((const char *)sc + k->present_offset))
      continue;
    if (!current || strcmp(current, k->section) != 0) {
      emit(&o, "%s[%s]\n", current ? "\n" : "", k->section);
      current = k->section;
    }
    emit_keys(&o, (const char *)sc, k, 1);
  }
  for (size_t f = 0; f < rod_nfamilies; f++) {
    const section_family *fam = &rod_families[f];
    int count = *(const int *)((const char *)sc + fam->count_offset);
    for (int i = 0; i < count; i++) {
      const char *item =
          (const char *)sc + fam->array_offset + (size_t)i * fam->item_size;
      emit(&o, "\n[%s.%s]\n", fam->prefix, item + fam->name_offset);
      emit_keys(&o, item, fam->keys, fam->nkeys);
    }
  }
  if (buf && size > 0 && o.used >= size)
    buf[size - 1] = '\0';
  return o.used;
}

/* ---- the reference of the keys ----------------------------------------- */

static const char *type_name(key_type t) {
  switch (t) {
  case KEY_DOUBLE:
    return "number";
  case KEY_VEC3:
    return "vector";
  case KEY_INT:
    return "integer";
  case KEY_INT_AUTO:
    return "integer or auto";
  case KEY_BOOL:
    return "boolean";
  case KEY_ENUM:
    return "choice";
  case KEY_STRING:
    return "text";
  case KEY_FILE:
    return "file";
  case KEY_ARCLENGTH:
    return "arclength";
  }
  return "";
}

static void range_text(const key_def *k, char *buf, size_t size) {
  char lo[32], hi[32];
  buf[0] = '\0';
  if (k->type == KEY_ENUM) {
    for (int i = 0; k->choices[i]; i++) {
      size_t used = strlen(buf);
      snprintf(buf + used, size - used, "%s%s", i ? ", " : "", k->choices[i]);
    }
    return;
  }
  if (k->type == KEY_BOOL) {
    snprintf(buf, size, "true, false");
    return;
  }
  const char *pre = k->type == KEY_ARCLENGTH ? "tip, or " : "";
  const char *each = k->type == KEY_VEC3 ? "each " : "";
  switch (k->range) {
  case RANGE_POSITIVE:
    snprintf(buf, size, "%s%s> 0", pre, each);
    break;
  case RANGE_NONNEG:
    snprintf(buf, size, "%s%s>= 0", pre, each);
    break;
  case RANGE_CLOSED:
    rod_format_double(k->lo, lo, sizeof lo);
    rod_format_double(k->hi, hi, sizeof hi);
    snprintf(buf, size, "%s%s[%s, %s]", pre, each, lo, hi);
    break;
  case RANGE_AT_LEAST:
    snprintf(buf, size, "%s%.0f to %.0f",
             k->type == KEY_INT_AUTO ? "auto, or " : "", k->lo, k->hi);
    break;
  case RANGE_NONZERO:
    snprintf(buf, size, "not zero");
    break;
  case RANGE_ANY:
    if (k->type != KEY_STRING && k->type != KEY_FILE)
      snprintf(buf, size, "%sfinite", pre);
    break;
  }
}

int rod_scenario_key_count(void) {
  size_t n = rod_nkeys;
  for (size_t f = 0; f < rod_nfamilies; f++)
    n += rod_families[f].nkeys;
  return (int)n;
}

int rod_scenario_key_info(int i, rod_key_info *out) {
  if (i < 0 || i >= rod_scenario_key_count())
    return ROD_EINVAL;
  const key_def *k;
  const char *section;
  if ((size_t)i < rod_nkeys) {
    k = &rod_keys[i];
    section = k->section;
  } else {
    size_t j = (size_t)i - rod_nkeys, f = 0;
    while (j >= rod_families[f].nkeys)
      j -= rod_families[f++].nkeys;
    k = &rod_families[f].keys[j];
    section = rod_families[f].label;
  }
  out->section = section;
  out->name = k->name;
  out->type = type_name(k->type);
  out->default_text = k->default_text ? k->default_text : "";
  out->unit = k->unit;
  out->doc = k->doc;
  range_text(k, out->range, sizeof out->range);
  return ROD_OK;
}

const char *rod_scenario_section_doc(const char *section) {
  const char *dot = strchr(section, '.');
  if (dot) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - section), section);
    for (size_t f = 0; f < rod_nfamilies; f++)
      if (strcmp(rod_families[f].prefix, prefix) == 0)
        return rod_families[f].doc;
    return "";
  }
  return rod_section_doc(section);
}
