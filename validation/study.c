#include "study.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rod/status.h"

void openblas_set_num_threads(int num_threads);

bool study_start(int argc, char **argv, const char *program, const char *usage,
                 rod_scenario *sc) {
  /* OpenBLAS starts its worker threads as the shared library loads, before
   * main, and they spin for about 0.1 s: a second core's CPU time in every
   * measurement of a short run (the impulse's 0.15 s took 0.25 s of CPU).
   * The tool starts again with one thread from the outset. */
  if (!getenv("OPENBLAS_NUM_THREADS")) {
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv); /* on failure: on, with the threads */
  }
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
