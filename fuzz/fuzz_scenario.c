/* libFuzzer target: scenario INI text (rod_scenario_load_string, the reader
 * of `rodsim run FILE`), then the cross-key checks. A scenario that loads
 * and validates must survive its own canonical text (rod_scenario_to_ini):
 * read back onto the defaults it validates and prints the same text. */
#include "fuzz_util.h"
#include "rod/scenario.h"

static char *ini_of(const rod_scenario *sc) {
  size_t n = rod_scenario_to_ini(sc, NULL, 0);
  char *buf = malloc(n + 1);
  if (!buf)
    abort();
  FUZZ_CHECK(rod_scenario_to_ini(sc, buf, n + 1) == n);
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  rod_scenario *sc = rod_scenario_new(), *back = rod_scenario_new();
  rod_error err = {{0}, {0}, {0}, 0};
  if (!sc || !back)
    abort();
  if (rod_scenario_load_string(sc, text, "fuzz.ini", &err) == ROD_OK &&
      rod_scenario_validate(sc, &err) == ROD_OK) {
    char *ini = ini_of(sc);
    rod_error err2 = {{0}, {0}, {0}, 0};
    int st = rod_scenario_load_string(back, ini, "canonical.ini", &err2);
    if (st == ROD_OK)
      st = rod_scenario_validate(back, &err2);
    if (st != ROD_OK) {
      char msg[2048];
      rod_error_format(&err2, msg, sizeof msg);
      fprintf(stderr, "fuzz: canonical text does not load: %s\n%s\n", msg, ini);
    }
    FUZZ_CHECK(st == ROD_OK);
    char *ini2 = ini_of(back);
    FUZZ_CHECK(strcmp(ini, ini2) == 0);
    free(ini2);
    free(ini);
  }
  rod_scenario_free(back);
  rod_scenario_free(sc);
  free(text);
  return 0;
}
