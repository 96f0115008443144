/* libFuzzer target: the command line's --set overrides
 * (rod_scenario_set, "section.key=value"), one per line of the input,
 * then the cross-key checks; what validates must survive its canonical
 * text (rod_scenario_to_ini) read back onto the defaults. */
#include "fuzz_util.h"
#include "rod/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  rod_scenario *sc = rod_scenario_new(), *back = rod_scenario_new();
  rod_error err = {{0}, {0}, {0}, 0};
  if (!sc || !back)
    abort();
  bool ok = true;
  for (char *line = text, *next; line && ok; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    ok = rod_scenario_set(sc, line, &err) == ROD_OK;
  }
  if (ok && rod_scenario_validate(sc, &err) == ROD_OK) {
    size_t n = rod_scenario_to_ini(sc, NULL, 0);
    char *ini = malloc(n + 1), *ini2 = malloc(n + 1);
    if (!ini || !ini2)
      abort();
    rod_scenario_to_ini(sc, ini, n + 1);
    rod_error err2 = {{0}, {0}, {0}, 0};
    int st = rod_scenario_load_string(back, ini, "canonical.ini", &err2);
    if (st == ROD_OK)
      st = rod_scenario_validate(back, &err2);
    if (st != ROD_OK) {
      char msg[2048];
      rod_error_format(&err2, msg, sizeof msg);
      fprintf(stderr, "fuzz: canonical text does not load: %s\n", msg);
    }
    FUZZ_CHECK(st == ROD_OK);
    FUZZ_CHECK(rod_scenario_to_ini(back, ini2, n + 1) == n);
    FUZZ_CHECK(strcmp(ini, ini2) == 0);
    free(ini2);
    free(ini);
  }
  rod_scenario_free(back);
  rod_scenario_free(sc);
  free(text);
  return 0;
}
