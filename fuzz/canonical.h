/* The property both scenario targets check: a scenario that validates
 * survives its own canonical text (rod_scenario_to_ini), read back onto
 * the defaults: it validates and prints the same text. */
#ifndef ROD_FUZZ_CANONICAL_H
#define ROD_FUZZ_CANONICAL_H

#include "fuzz_util.h"
#include "rod/scenario.h"

static inline char *fuzz_ini_of(const rod_scenario *sc) {
  size_t n = rod_scenario_to_ini(sc, NULL, 0);
  char *buf = malloc(n + 1);
  if (!buf)
    abort();
  FUZZ_CHECK(rod_scenario_to_ini(sc, buf, n + 1) == n);
  return buf;
}

static inline void fuzz_check_canonical(const rod_scenario *sc) {
  rod_scenario *back = rod_scenario_new();
  if (!back)
    abort();
  char *ini = fuzz_ini_of(sc);
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_scenario_load_string(back, ini, "canonical.ini", &err);
  if (st == ROD_OK)
    st = rod_scenario_validate(back, &err);
  if (st != ROD_OK) {
    char msg[2048];
    rod_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "fuzz: canonical text does not load: %s\n%s\n", msg, ini);
  }
  FUZZ_CHECK(st == ROD_OK);
  char *ini2 = fuzz_ini_of(back);
  FUZZ_CHECK(strcmp(ini, ini2) == 0);
  free(ini2);
  free(ini);
  rod_scenario_free(back);
}

#endif
