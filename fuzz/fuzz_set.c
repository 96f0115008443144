/* libFuzzer target: the command line's --set overrides
 * (rod_scenario_set, "section.key=value"), one per line of the input,
 * then the cross-key checks; what validates must survive its canonical
 * text (canonical.h) and goes the whole path of a run under a budget
 * (simulate.h). */
#include "canonical.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  rod_scenario *sc = rod_scenario_new();
  rod_error err = {{0}, {0}, {0}, 0};
  if (!sc)
    abort();
  bool ok = true;
  for (char *line = text, *next; line && ok; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    ok = rod_scenario_set(sc, line, &err) == ROD_OK;
  }
  if (ok && rod_scenario_validate(sc, &err) == ROD_OK) {
    fuzz_check_canonical(sc);
    fuzz_simulate(sc);
  }
  rod_scenario_free(sc);
  free(text);
  return 0;
}
