/* The key tables' defaults (scenario_defaults.c), for a whole scenario
 * (rod_scenario_default) and for a named section's item when the loader
 * makes it. Above the value parser (scenario_value.h). */
#ifndef ROD_SCENARIO_DEFAULTS_H
#define ROD_SCENARIO_DEFAULTS_H

#include "scenario_keys.h"

/* The default of every key of one table (n keys) into base, the scenario
 * or an item. */
void rod_key_defaults(char *base, const key_def *keys, size_t n);

#endif
