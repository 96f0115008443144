/* The reference of the scenario's keys (`rodsim keys`, docs/scenario.md):
 * each key's section, type, default, range, unit and meaning from the key
 * tables (scenario_keys.c), and each section's description. */
#include "rod/scenario.h"

#include "scenario_keys.h"

#include <stdio.h>
#include <string.h>

static const char *type_name(key_type t) {
  switch (t) {
  case KEY_DOUBLE:
    return "number";
  case KEY_VEC2:
    return "pair";
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
  const char *each = k->type == KEY_VEC3 || k->type == KEY_VEC2 ? "each " : "";
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
