/* One value of a scenario key (scenario_value.c): parsed from its text
 * under the key's type and checked against its range rule. The loader,
 * the defaults and the checks of rod_scenario_validate read it; it reads
 * the key tables (scenario_keys.h) only. */
#ifndef ROD_SCENARIO_VALUE_H
#define ROD_SCENARIO_VALUE_H

#include "scenario_keys.h"

/* Parse raw (blanks and a trailing "# comment" dropped) as the value of k
 * into base, the key's place. label names the key and file the source in
 * messages (err may be NULL). ROD_OK or ROD_EINVAL. */
int rod_key_parse_value(char *base, const key_def *k, const char *raw,
                        const char *file, const char *label, rod_error *err);

/* The n numbers v of key k against its range rule; value is their text as
 * given, for the message. ROD_OK or ROD_EINVAL. */
int rod_key_check_range(const key_def *k, const char *label, const double *v,
                        int n, const char *file, const char *value,
                        rod_error *err);

#endif
