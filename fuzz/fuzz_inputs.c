/* libFuzzer target: the scenario's data files, read by rod_inputs_load
 * through the shared CSV table reader: the precurvature file
 * (rod.precurvature_file), a load's force and moment tables
 * ([load.NAME] force_file, moment_file) and the clamp's motion
 * (base.motion_file, with its splines). The first byte picks the file. */
#include <math.h>

#include "fuzz_util.h"
#include "io/inputs.h"

static const char *const keys[4] = {
    "rod.precurvature_file", "load.push.force_file", "load.push.moment_file",
    "base.motion_file"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const char *key = keys[data[0] % 4];
  const char *path = fuzz_file(data + 1, size - 1, ".csv");
  rod_scenario *sc = rod_scenario_new();
  if (!sc)
    abort();
  char set[1024];
  snprintf(set, sizeof set, "%s=%s", key, path);
  rod_error err = {{0}, {0}, {0}, 0};
  FUZZ_CHECK(rod_scenario_set(sc, set, &err) == ROD_OK);
  rod_inputs *in = NULL;
  if (rod_inputs_load(sc, &in, &err) == ROD_OK) {
    const rod_table *t = in->precurvature ? in->precurvature
                         : in->force[0]   ? in->force[0]
                         : in->moment[0]  ? in->moment[0]
                                          : in->base;
    FUZZ_CHECK(t && t->rows >= 1);
    for (int i = 0; i < t->rows * t->cols; i++)
      FUZZ_CHECK(isfinite(t->data[i]));
    for (int i = 1; i < t->rows; i++)
      FUZZ_CHECK(rod_table_at(t, i, 0) > rod_table_at(t, i - 1, 0));
    rod_inputs_free(in);
  } else {
    FUZZ_CHECK(in == NULL);
  }
  rod_scenario_free(sc);
  return 0;
}
