/* libFuzzer target: scenario INI text (rod_scenario_load_string, the reader
 * of `rodsim run FILE`), then the cross-key checks; what validates must
 * survive its canonical text (canonical.h), and goes the whole path of a
 * run under a budget: built, its static state solved, a few steps taken
 * (simulate.h). */
#include "canonical.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  rod_scenario *sc = rod_scenario_new();
  rod_error err = {{0}, {0}, {0}, 0};
  if (!sc)
    abort();
  if (rod_scenario_load_string(sc, text, "fuzz.ini", &err) == ROD_OK &&
      rod_scenario_validate(sc, &err) == ROD_OK) {
    fuzz_check_canonical(sc);
    fuzz_simulate(sc);
  }
  rod_scenario_free(sc);
  free(text);
  return 0;
}
