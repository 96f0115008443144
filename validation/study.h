/* What the study programs share: start-up and the scenario they study. */
#ifndef ROD_VALIDATION_STUDY_H
#define ROD_VALIDATION_STUDY_H

#include "rod/scenario.h"

/* Single-threaded OpenBLAS, then the scenario of argv[1] into sc. On a
 * missing argument or bad scenario: one line on stderr naming the program
 * (and usage, its arguments after the scenario), and false. */
bool study_start(int argc, char **argv, const char *program, const char *usage,
                 rod_scenario *sc);

#endif
