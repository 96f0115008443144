/* Scenario keys, defaults, parsing, range checks and canonical INI text
 * (CONTRACT.md section 2). The key table below is the single source of
 * truth: adding a key here makes it parsed, validated, defaulted and
 * written out. */
#include "rod/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum {
  KEY_DOUBLE,
  KEY_VEC3,
  KEY_INT,
  KEY_BOOL,
  KEY_ENUM,
  KEY_STRING
} key_type;

/* Range rules. */
typedef enum {
  RANGE_ANY,      /* any finite value */
  RANGE_POSITIVE, /* > 0 */
  RANGE_NONNEG,   /* >= 0 */
  RANGE_CLOSED,   /* [lo, hi] */
  RANGE_AT_LEAST, /* >= lo (integers) */
  RANGE_NONZERO   /* vectors: not the zero vector */
} range_rule;

typedef struct {
  const char *section;
  const char *name;
  key_type type;
  size_t offset;
  const char *default_text;
  range_rule range;
  double lo, hi;
  const char *const *choices; /* KEY_ENUM: NULL-terminated names */
  size_t present_offset;      /* bool set when given; 0 = always present */
} key_def;

static const char *const model_names[] = {"kirchhoff", "cosserat", NULL};
static const char *const backend_names[] = {"kirchhoff", "rfem", NULL};
static const char *const space_names[] = {"euler", "rk4", NULL};
static const char *const history_names[] = {"auto", "hermite", "linear",
                                            "stage", NULL};
static const char *const startup_names[] = {"euler", "paper", NULL};
static const char *const strategy_names[] = {"auto", "paper", "simple",
                                             "modified", NULL};
static const char *const planar_names[] = {"auto", "off", NULL};
static const char *const layout_names[] = {"centered", "uniform", NULL};
static const char *const rfem_int_names[] = {"genalpha", "rk45", "rk4", NULL};
static const char *const joint_names[] = {"voigt", "maxwell", NULL};

#define OFF(member) offsetof(rod_scenario, member)
#define D(sec, key, member, def, rule, lo, hi)                                 \
  { sec, key, KEY_DOUBLE, OFF(member), def, rule, lo, hi, NULL, 0 }
#define V(sec, key, member, def, rule)                                         \
  { sec, key, KEY_VEC3, OFF(member), def, rule, 0, 0, NULL, 0 }
#define I(sec, key, member, def, lo, hi)                                       \
  { sec, key, KEY_INT, OFF(member), def, RANGE_AT_LEAST, lo, hi, NULL, 0 }
#define E(sec, key, member, def, names)                                        \
  { sec, key, KEY_ENUM, OFF(member), def, RANGE_ANY, 0, 0, names, 0 }
#define B(sec, key, member, def)                                               \
  { sec, key, KEY_BOOL, OFF(member), def, RANGE_ANY, 0, 0, NULL, 0 }

static const key_def keys[] = {
    E("rod", "model", rod.model, "kirchhoff", model_names),
    D("rod", "length", rod.length, "0.408", RANGE_POSITIVE, 0, 0),
    D("rod", "diameter", rod.diameter, "1.42e-3", RANGE_POSITIVE, 0, 0),
    D("rod", "density", rod.density, "7800", RANGE_POSITIVE, 0, 0),
    D("rod", "youngs_modulus", rod.youngs_modulus, "200e9", RANGE_POSITIVE, 0,
      0),
    D("rod", "shear_modulus", rod.shear_modulus, "80e9", RANGE_POSITIVE, 0, 0),
    {"rod", "bending_stiffness", KEY_DOUBLE, OFF(rod.bending_stiffness), NULL,
     RANGE_POSITIVE, 0, 0, NULL, OFF(rod.has_bending_stiffness)},
    D("rod", "bending_damping", rod.bending_damping, "0", RANGE_NONNEG, 0, 0),
    D("rod", "drag", rod.drag, "0", RANGE_NONNEG, 0, 0),
    V("environment", "gravity", environment.gravity, "0 0 -9.81", RANGE_ANY),
    V("base", "position", base.position, "0 0 0", RANGE_ANY),
    V("base", "direction", base.direction, "1 0 0", RANGE_NONZERO),
    D("tip", "mass", tip.mass, "0", RANGE_NONNEG, 0, 0),
    V("tip", "preload", tip.preload, "0 0 0", RANGE_ANY),
    V("tip", "force", tip.force, "0 0 0", RANGE_ANY),
    D("impulse", "peak", impulse.peak, "5", RANGE_ANY, 0, 0),
    D("impulse", "duration", impulse.duration, "0.016", RANGE_POSITIVE, 0, 0),
    D("impulse", "start", impulse.start, "0", RANGE_ANY, 0, 0),
    D("impulse", "position", impulse.position, "0.0458", RANGE_NONNEG, 0, 0),
    V("impulse", "direction", impulse.direction, "0 0 1", RANGE_NONZERO),
    V("motor", "axis", motor.axis, "0 1 0", RANGE_NONZERO),
    D("motor", "angle", motor.angle, "0.785398", RANGE_ANY, 0, 0),
    D("motor", "start", motor.start, "0", RANGE_ANY, 0, 0),
    D("motor", "ramp", motor.ramp, "0.5", RANGE_POSITIVE, 0, 0),
    D("motor", "kp", motor.kp, "0", RANGE_NONNEG, 0, 0),
    D("motor", "kd", motor.kd, "0", RANGE_NONNEG, 0, 0),
    D("motor", "inertia", motor.inertia, "0", RANGE_NONNEG, 0, 0),
    D("time", "dt", time.dt, "2e-3", RANGE_POSITIVE, 0, 0),
    D("time", "duration", time.duration, "2.0", RANGE_NONNEG, 0, 0),
    D("time", "alpha", time.alpha, "-0.48", RANGE_CLOSED, -0.5, 0.0),
    E("time", "startup", time.startup, "euler", startup_names),
    I("space", "nodes", space.nodes, "100", 2, 10000000),
    E("space", "integrator", space.integrator, "rk4", space_names),
    E("space", "history", space.history, "auto", history_names),
    E("solver", "backend", solver.backend, "kirchhoff", backend_names),
    D("solver", "tolerance", solver.tolerance, "1e-8", RANGE_POSITIVE, 0, 0),
    I("solver", "max_iterations", solver.max_iterations, "500", 1, 1000000000),
    E("solver", "strategy", solver.strategy, "auto", strategy_names),
    E("solver", "planar", solver.planar, "auto", planar_names),
    I("rfem", "segments", rfem.segments, "10", 1, 100000),
    E("rfem", "layout", rfem.layout, "centered", layout_names),
    B("rfem", "planar", rfem.planar, "false"),
    E("rfem", "integrator", rfem.integrator, "genalpha", rfem_int_names),
    D("rfem", "spectral_radius", rfem.spectral_radius, "0.9", RANGE_CLOSED, 0,
      1),
    D("rfem", "rtol", rfem.rtol, "1e-8", RANGE_POSITIVE, 0, 0),
    E("rfem", "joint", rfem.joint, "voigt", joint_names),
    D("rfem", "maxwell_time", rfem.maxwell_time, "0", RANGE_NONNEG, 0, 0),
    {"output", "file", KEY_STRING, OFF(output.file), "rodsim.h5", RANGE_ANY, 0,
     0, NULL, 0},
    I("output", "every", output.every, "1", 1, 1000000000),
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Sections whose absence means "off"; any key set in them turns them on. */
static bool *optional_flag(rod_scenario *sc, const char *section) {
  if (strcmp(section, "impulse") == 0)
    return &sc->impulse.enabled;
  if (strcmp(section, "motor") == 0)
    return &sc->motor.enabled;
  return NULL;
}

static bool known_section(const char *section) {
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(keys[i].section, section) == 0)
      return true;
  return false;
}

static const key_def *find_key(const char *section, const char *name) {
  for (size_t i = 0; i < NKEYS; i++)
    if (strcmp(keys[i].section, section) == 0 &&
        strcmp(keys[i].name, name) == 0)
      return &keys[i];
  return NULL;
}

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

static void format_double(double v, char *buf, size_t size) {
  /* Shortest of %.15g..%.17g that reads back exactly. */
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

static const char *key_label(const key_def *k, char *buf, size_t size) {
  snprintf(buf, size, "%s.%s", k->section, k->name);
  return buf;
}

static int check_range(const key_def *k, const double *v, int n,
                       const char *file, const char *value, rod_error *err) {
  char label[96];
  key_label(k, label, sizeof label);
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
      format_double(k->lo, lo, sizeof lo);
      format_double(k->hi, hi, sizeof hi);
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

static int number_error(int status, const key_def *k, const char *file,
                        const char *value, const char *what, rod_error *err) {
  char label[96];
  key_label(k, label, sizeof label);
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

static int assign(rod_scenario *sc, const key_def *k, const char *raw,
                  const char *file, rod_error *err) {
  char value[1024];
  char label[96];
  clean_value(raw, value, sizeof value);
  key_label(k, label, sizeof label);
  char *base = (char *)sc + k->offset;
  if (value[0] == '\0' && k->type != KEY_STRING)
    return rod_error_set(err, ROD_EINVAL, file, label, "missing value");
  switch (k->type) {
  case KEY_DOUBLE: {
    const char *end;
    double v;
    int st = parse_double(value, &end, &v);
    if (st == ROD_OK && !only_space(end))
      st = ROD_EFORMAT;
    if (st != ROD_OK)
      return number_error(st, k, file, value, "not a number", err);
    if ((st = check_range(k, &v, 1, file, value, err)) != ROD_OK)
      return st;
    *(double *)base = v;
    break;
  }
  case KEY_VEC3: {
    const char *p = value;
    double v[3];
    for (int i = 0; i < 3; i++) {
      int st = parse_double(p, &p, &v[i]);
      if (st != ROD_OK)
        return number_error(st, k, file, value,
                            "expected three numbers separated by spaces", err);
      if (i < 2 && !isspace((unsigned char)*p))
        return number_error(ROD_EFORMAT, k, file, value,
                            "expected three numbers separated by spaces", err);
    }
    if (!only_space(p))
      return number_error(ROD_EFORMAT, k, file, value,
                          "expected three numbers separated by spaces", err);
    int st = check_range(k, v, 3, file, value, err);
    if (st != ROD_OK)
      return st;
    memcpy(base, v, sizeof v);
    break;
  }
  case KEY_INT: {
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || !only_space(end) || errno == ERANGE)
      return number_error(ROD_EFORMAT, k, file, value, "must be an integer",
                          err);
    double dv = (double)v;
    int st = check_range(k, &dv, 1, file, value, err);
    if (st != ROD_OK)
      return st;
    *(int *)base = (int)v;
    break;
  }
  case KEY_BOOL: {
    bool b;
    if (!parse_bool(value, &b))
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "must be true or false (got %s)", value);
    *(bool *)base = b;
    break;
  }
  case KEY_ENUM: {
    for (int i = 0; k->choices[i]; i++) {
      if (strcmp(value, k->choices[i]) == 0) {
        *(int *)base = i;
        goto done;
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
    if (value[0] == '\0')
      return rod_error_set(err, ROD_EINVAL, file, label, "must not be empty");
    snprintf(base, sizeof sc->output.file, "%s", value);
    break;
  }
done:
  if (k->present_offset)
    *(bool *)((char *)sc + k->present_offset) = true;
  bool *flag = optional_flag(sc, k->section);
  if (flag)
    *flag = true;
  return ROD_OK;
}

int rod_scenario_set_key(rod_scenario *sc, const char *section,
                         const char *name, const char *value, rod_error *err) {
  const char *file = sc->source[0] ? sc->source : "scenario";
  char label[200];
  snprintf(label, sizeof label, "%s.%s", section, name);
  if (strcmp(section, "fit") == 0)
    return ROD_OK; /* written by calibrate, ignored elsewhere */
  if (!known_section(section)) {
    snprintf(label, sizeof label, "[%s]", section);
    return rod_error_set(err, ROD_EINVAL, file, label, "unknown section");
  }
  const key_def *k = find_key(section, name);
  if (!k)
    return rod_error_set(err, ROD_EINVAL, file, label, "unknown key");
  return assign(sc, k, value, file, err);
}

void rod_scenario_default(rod_scenario *sc) {
  memset(sc, 0, sizeof *sc);
  for (size_t i = 0; i < NKEYS; i++) {
    if (!keys[i].default_text)
      continue;
    int st = assign(sc, &keys[i], keys[i].default_text, "defaults", NULL);
    (void)st; /* the defaults are valid by construction (tested) */
  }
  sc->impulse.enabled = false;
  sc->motor.enabled = false;
  sc->rod.has_bending_stiffness = false;
  sc->source[0] = '\0';
}

/* ---- file loading ------------------------------------------------------ */

typedef struct {
  rod_scenario *sc;
  rod_error *err;
  int status;
  FILE *fp;
  /* keys already seen, to reject duplicates: one bit per key */
  unsigned char seen[NKEYS];
} load_ctx;

static int ini_handler_cb(void *user, const char *section, const char *name,
                          const char *value) {
  load_ctx *ctx = user;
  if (ctx->status != ROD_OK)
    return 0;
  if (section[0] == '\0') {
    char label[160];
    snprintf(label, sizeof label, "%s", name);
    ctx->status = rod_error_set(ctx->err, ROD_EINVAL, ctx->sc->source, label,
                                "key outside any [section]");
    return 0;
  }
  const key_def *k = find_key(section, name);
  if (k) {
    size_t idx = (size_t)(k - keys);
    if (ctx->seen[idx]) {
      char label[96];
      ctx->status = rod_error_set(ctx->err, ROD_EINVAL, ctx->sc->source,
                                  key_label(k, label, sizeof label),
                                  "given twice (got %s)", value);
      return 0;
    }
    ctx->seen[idx] = 1;
  }
  ctx->status = rod_scenario_set_key(ctx->sc, section, name, value, ctx->err);
  return ctx->status == ROD_OK;
}

/* fgets-style reader that also notices "[section]" headers, so that an
 * optional section present without keys is turned on with its defaults. */
static char *reader_cb(char *str, int num, void *stream) {
  load_ctx *ctx = stream;
  char *line = fgets(str, num, ctx->fp);
  if (!line)
    return NULL;
  const char *p = line;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '[') {
    char name[64];
    if (sscanf(p + 1, " %63[^] \t]", name) == 1) {
      bool *flag = optional_flag(ctx->sc, name);
      if (flag)
        *flag = true;
    }
  }
  return line;
}

int rod_scenario_load(rod_scenario *sc, const char *path, rod_error *err) {
  snprintf(sc->source, sizeof sc->source, "%s", path);
  FILE *fp = fopen(path, "r");
  if (!fp)
    return rod_error_set(err, ROD_EIO, path, "", "cannot open: %s",
                         strerror(errno));
  load_ctx ctx = {.sc = sc, .err = err, .status = ROD_OK, .fp = fp};
  memset(ctx.seen, 0, sizeof ctx.seen);
  /* Debian's libinih exposes its options as globals: comments start with
   * ';' or '#' (also after a value), no multi-line values, long lines. */
  ini_start_comment_prefixes = ";#";
  ini_inline_comment_prefixes = ";";
  ini_allow_multiline = false;
  ini_stop_on_first_error = true;
  ini_use_stack = false;
  ini_allow_realloc = true;
  ini_max_line = 65536;
  int line = ini_parse_stream(reader_cb, &ctx, ini_handler_cb, &ctx);
  bool read_error = ferror(fp) != 0;
  fclose(fp);
  if (ctx.status != ROD_OK)
    return ctx.status;
  if (read_error)
    return rod_error_set(err, ROD_EIO, path, "", "read error");
  if (line != 0) {
    char where[32];
    snprintf(where, sizeof where, "line %d", line);
    return rod_error_set(err, ROD_EINVAL, path, where,
                         "not a [section] or key = value line");
  }
  return ROD_OK;
}

int rod_scenario_set(rod_scenario *sc, const char *assignment, rod_error *err) {
  const char *eq = strchr(assignment, '=');
  const char *dot = strchr(assignment, '.');
  const char *file = sc->source[0] ? sc->source : "--set";
  if (!eq || !dot || dot > eq)
    return rod_error_set(err, ROD_EINVAL, file, "--set",
                         "expected SECTION.KEY=VALUE (got %s)", assignment);
  char section[64], name[64];
  size_t ls = (size_t)(dot - assignment), ln = (size_t)(eq - dot - 1);
  if (ls == 0 || ln == 0 || ls >= sizeof section || ln >= sizeof name)
    return rod_error_set(err, ROD_EINVAL, file, "--set",
                         "expected SECTION.KEY=VALUE (got %s)", assignment);
  memcpy(section, assignment, ls);
  section[ls] = '\0';
  memcpy(name, dot + 1, ln);
  name[ln] = '\0';
  if (strcmp(section, "fit") == 0)
    return rod_error_set(err, ROD_EINVAL, file, "--set",
                         "[fit] is written by calibrate, not set");
  return rod_scenario_set_key(sc, section, name, eq + 1, err);
}

int rod_scenario_validate(const rod_scenario *sc, rod_error *err) {
  const char *file = sc->source[0] ? sc->source : "scenario";
  char v[64];
  if (sc->impulse.enabled && sc->impulse.position > sc->rod.length) {
    format_double(sc->impulse.position, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "impulse.position",
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  if (sc->rfem.joint == ROD_JOINT_MAXWELL && !(sc->rfem.maxwell_time > 0)) {
    format_double(sc->rfem.maxwell_time, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rfem.maxwell_time",
                         "must be > 0 for maxwell joints (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.kp > 0 &&
      sc->solver.backend == ROD_BACKEND_KIRCHHOFF) {
    format_double(sc->motor.kp, v, sizeof v);
    return rod_error_set(
        err, ROD_EINVAL, file, "motor.kp",
        "a PD-driven motor (kp > 0) needs solver.backend = rfem (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.kp > 0 && !(sc->motor.inertia > 0) &&
      sc->solver.backend == ROD_BACKEND_RFEM) {
    /* a massless rotor under PD is a stiff constraint the chain cannot
     * integrate; the contract's default inertia 0 only suits kp = 0 */
    format_double(sc->motor.inertia, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "motor.inertia",
                         "must be > 0 when motor.kp > 0 (got %s)", v);
  }
  return ROD_OK;
}

/* ---- canonical text ---------------------------------------------------- */

static void value_text(const rod_scenario *sc, const key_def *k, char *buf,
                       size_t size) {
  const char *base = (const char *)sc + k->offset;
  switch (k->type) {
  case KEY_DOUBLE:
    format_double(*(const double *)base, buf, size);
    break;
  case KEY_VEC3: {
    const double *v = (const double *)base;
    char a[32], b[32], c[32];
    format_double(v[0], a, sizeof a);
    format_double(v[1], b, sizeof b);
    format_double(v[2], c, sizeof c);
    snprintf(buf, size, "%s %s %s", a, b, c);
    break;
  }
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
    snprintf(buf, size, "%s", base);
    break;
  }
}

int rod_scenario_get_text(const rod_scenario *sc, const char *section,
                          const char *name, char *buf, size_t size) {
  const key_def *k = find_key(section, name);
  if (!k)
    return ROD_EINVAL;
  if (k->present_offset &&
      !*(const bool *)((const char *)sc + k->present_offset)) {
    snprintf(buf, size, "%s", "");
    return ROD_OK;
  }
  value_text(sc, k, buf, size);
  return ROD_OK;
}

double *rod_scenario_double_key(rod_scenario *sc, const char *section,
                                const char *name) {
  const key_def *k = find_key(section, name);
  if (!k || k->type != KEY_DOUBLE)
    return NULL;
  return (double *)((char *)sc + k->offset);
}

size_t rod_scenario_to_ini(const rod_scenario *sc, char *buf, size_t size) {
  size_t used = 0;
  const char *current = NULL;
  char value[1100];
#define EMIT(...)                                                              \
  do {                                                                         \
    int n_ = snprintf(buf ? buf + (used < size ? used : size) : NULL,          \
                      buf && used < size ? size - used : 0, __VA_ARGS__);      \
    if (n_ > 0)                                                                \
      used += (size_t)n_;                                                      \
  } while (0)
  for (size_t i = 0; i < NKEYS; i++) {
    const key_def *k = &keys[i];
    bool *flag = optional_flag((rod_scenario *)sc, k->section);
    if (flag && !*flag)
      continue;
    if (k->present_offset &&
        !*(const bool *)((const char *)sc + k->present_offset))
      continue;
    if (!current || strcmp(current, k->section) != 0) {
      EMIT("%s[%s]\n", current ? "\n" : "", k->section);
      current = k->section;
    }
    value_text(sc, k, value, sizeof value);
    EMIT("%s = %s\n", k->name, value);
  }
#undef EMIT
  return used;
}
