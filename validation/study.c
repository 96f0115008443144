#include "study.h"

#include <stdio.h>

#include "rod/status.h"

void openblas_set_num_threads(int num_threads);

bool study_start(int argc, char **argv, const char *program, const char *usage,
                 rod_scenario *sc) {
  openblas_set_num_threads(1);
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCENARIO.ini %s\n", program, usage);
    return false;
  }
  rod_error err;
  rod_scenario_default(sc);
  if (rod_scenario_load(sc, argv[1], &err) != ROD_OK) {
    char buf[1024];
    rod_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "%s: %s\n", program, buf);
    return false;
  }
  return true;
}
