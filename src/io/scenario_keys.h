/* The scenario's key tables: one entry per key with its type, place in
 * rod_scenario, default, range, unit and meaning. Parsing, range checks,
 * defaults, the canonical INI text and `rodsim keys` all read these tables,
 * so they cannot disagree. */
#ifndef ROD_SCENARIO_KEYS_H
#define ROD_SCENARIO_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "rod/scenario.h"

typedef enum {
  KEY_DOUBLE,
  KEY_VEC2, /* two numbers (a point of the cross-section) */
  KEY_VEC3,
  KEY_INT,
  KEY_INT_AUTO, /* an integer, or "auto" (stored as 0) */
  KEY_BOOL,
  KEY_ENUM,
  KEY_STRING,
  KEY_FILE,     /* an input file's name: relative names in a scenario file
                   are taken from that file's folder */
  KEY_ARCLENGTH /* rod_arclength: "tip" or a number of metres */
} key_type;

/* Range rules. */
typedef enum {
  RANGE_ANY,      /* any finite value */
  RANGE_POSITIVE, /* > 0 */
  RANGE_NONNEG,   /* >= 0 */
  RANGE_CLOSED,   /* [lo, hi] */
  RANGE_AT_LEAST, /* integers in [lo, hi] */
  RANGE_NONZERO   /* vectors: not the zero vector */
} range_rule;

typedef struct {
  const char *section; /* "rod"; for named sections the family ("load") */
  const char *name;
  key_type type;
  size_t offset; /* in rod_scenario, or in the family's item struct */
  size_t size;   /* KEY_STRING, KEY_FILE: capacity of the buffer */
  const char *default_text; /* NULL: absent unless given */
  range_rule range;
  double lo, hi;
  const char *const *choices; /* KEY_ENUM: NULL-terminated names */
  size_t present_offset;      /* bool set when given; 0 = always present */
  const char *unit;           /* SI unit, "" for none */
  const char *doc;            /* meaning, one sentence or two */
} key_def;

/* Named sections "[PREFIX.NAME]" (any number up to max): an array of item
 * structs in rod_scenario with a count, each item's keys at offsets in the
 * item, its name in a char[ROD_NAME_MAX] at name_offset. */
typedef struct {
  const char *prefix;
  const char *label; /* "PREFIX.NAME", for the reference */
  const char *doc;
  size_t array_offset, count_offset, item_size, name_offset;
  int max;
  const key_def *keys;
  size_t nkeys;
} section_family;

extern const key_def rod_keys[];
extern const size_t rod_nkeys;
extern const section_family rod_families[];
extern const size_t rod_nfamilies;

/* The enabled flag of an optional section ([impulse], [motor], [plane]),
 * NULL for a section that is always on. */
bool *rod_optional_flag(rod_scenario *sc, const char *section);
/* One-line description of a section, "" if none. */
const char *rod_section_doc(const char *section);

const key_def *rod_find_key(const char *section, const char *name);
bool rod_known_section(const char *section);
/* The family of "PREFIX.NAME" and NAME's start, or NULL. */
const section_family *rod_find_family(const char *section, const char **name);
const key_def *rod_family_key(const section_family *f, const char *name);
/* How many items of family f sc holds, and item i's struct. */
int rod_family_count(const rod_scenario *sc, const section_family *f);
const char *rod_family_item(const rod_scenario *sc, const section_family *f,
                            int i);

/* The nearest known "section.key" (or section) to a misspelt one, for
 * "did you mean ...?"; NULL when nothing is close. */
const char *rod_nearest_key(const char *section, const char *name, char *buf,
                            size_t size);
const char *rod_nearest_section(const char *section, char *buf, size_t size);

/* Shortest of %.15g..%.17g that reads back exactly. */
void rod_format_double(double v, char *buf, size_t size);

#endif
