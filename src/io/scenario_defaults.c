/* A scenario's defaults: every key's default text from the key tables
 * (scenario_keys.c) parsed as a value given would be, the optional
 * sections off, and the scenario made and freed. */
#include "scenario_defaults.h"

#include <stdlib.h>
#include <string.h>

#include "scenario_value.h"

void rod_key_defaults(char *base, const key_def *keys, size_t n) {
  for (size_t i = 0; i < n; i++) {
    /* "" is an optional text (a file name) that is absent by default */
    if (!keys[i].default_text || !keys[i].default_text[0])
      continue;
    int st = rod_key_parse_value(base + keys[i].offset, &keys[i],
                                 keys[i].default_text, "defaults", keys[i].name,
                                 NULL);
    (void)st; /* the defaults are valid by construction (tested) */
  }
}

void rod_scenario_default(rod_scenario *sc) {
  memset(sc, 0, sizeof *sc);
  rod_key_defaults((char *)sc, rod_keys, rod_nkeys);
  sc->impulse.enabled = false;
  sc->motor.enabled = false;
  sc->plane.enabled = false;
  sc->rod.has_bending_stiffness = false;
  sc->time.has_tolerance = false;
  sc->output.has_interval = false;
  sc->source[0] = '\0';
}

rod_scenario *rod_scenario_new(void) {
  rod_scenario *sc = malloc(sizeof *sc);
  if (sc)
    rod_scenario_default(sc);
  return sc;
}

void rod_scenario_free(rod_scenario *sc) { free(sc); }
