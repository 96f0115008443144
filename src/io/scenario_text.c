/* A scenario as text: its canonical INI text (rod_scenario_to_ini: every
 * key of every section that is on, in the key tables' order, numbers in
 * the shortest form that reads back exactly), one key's value as text,
 * and a number key's address by name. */
#include "rod/scenario.h"

#include "scenario_keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
  case KEY_VEC2: {
    const double *v = (const double *)base;
    char a[32], b[32];
    rod_format_double(v[0], a, sizeof a);
    rod_format_double(v[1], b, sizeof b);
    snprintf(buf, size, "%s %s", a, b);
    break;
  }
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
    for (int i = 0; i < rod_family_count(sc, fam); i++) {
      const char *item = rod_family_item(sc, fam, i);
      emit(&o, "\n[%s.%s]\n", fam->prefix, item + fam->name_offset);
      emit_keys(&o, item, fam->keys, fam->nkeys);
    }
  }
  if (buf && size > 0 && o.used >= size)
    buf[size - 1] = '\0';
  return o.used;
}
