/* Checks of [tendon.NAME] that span several keys (rod_scenario_validate). */
#ifndef ROD_SCENARIO_TENDON_H
#define ROD_SCENARIO_TENDON_H

#include "rod/scenario.h"

/* ROD_EINVAL for a tendon given two routings (offset, helix,
 * routing_file) or two actuations (tension, tension_file), a helix of
 * negative radius, an end beyond the tip or a start not before it, or
 * tendons on a backend that does not carry them. */
int rod_scenario_check_tendons(const rod_scenario *sc, const char *file,
                               rod_error *err);

#endif
