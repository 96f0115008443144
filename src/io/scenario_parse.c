/* Reading a scenario: single keys by section and name (rod_scenario_set_key,
 * --set's SECTION.KEY=VALUE), named sections made with their defaults,
 * unknown sections and keys with the nearest known one, file names taken
 * from the scenario file's folder; and INI text from a file or a string
 * (Debian's libinih), with line numbers, keys given twice and sections
 * without keys. Each value is parsed by scenario_value.c. */
#include "rod/scenario.h"

#include "io/datafile.h"
#include "scenario_defaults.h"
#include "scenario_keys.h"
#include "scenario_value.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where key k of the scenario (item == NULL) or of a named section's item
 * lives. */
static char *key_address(rod_scenario *sc, void *item, const key_def *k) {
  return (item ? (char *)item : (char *)sc) + k->offset;
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
  int st = rod_key_parse_value(address, k, raw, file, label, err);
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
  rod_key_defaults(it, f->keys, f->nkeys);
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
  if (strcmp(section, "fit") == 0 || strcmp(section, "sweep") == 0)
    return ROD_OK; /* calibrate's and sweep's, ignored elsewhere */
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
  if (strcmp(section, "sweep") == 0)
    return rod_error_set(err, ROD_EINVAL, "--set", "",
                         "[sweep] is read by rodsim sweep (--vary), not set");
  return set_key_from(sc, section, name, eq + 1, "--set", NULL, err);
}

/* ---- INI text ---------------------------------------------------------- */

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
      } else if (strcmp(name, "fit") != 0 && strcmp(name, "sweep") != 0 &&
                 !rod_known_section(name)) {
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
