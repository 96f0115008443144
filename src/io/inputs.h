/* The data files a scenario names (docs/files.md): the precurvature
 * u*(s), the loads in time of [load.NAME] and the clamp's motion, read
 * and checked once by a backend when it is made. */
#ifndef ROD_IO_INPUTS_H
#define ROD_IO_INPUTS_H

#include "core/tables.h"
#include "io/table.h"
#include "rod/scenario.h"

/* Read every file of sc into a new rod_inputs (free with
 * rod_inputs_free). ROD_EIO or ROD_EINVAL with err = {scenario, the key,
 * "FILE: line N: what is wrong"} for a file that cannot be read or
 * breaks its rules (times or arclengths that do not increase, a
 * precurvature that does not cover [0, L], ...). */
int rod_inputs_load(const rod_scenario *sc, rod_inputs **out, rod_error *err);
void rod_inputs_free(rod_inputs *in);

#endif
