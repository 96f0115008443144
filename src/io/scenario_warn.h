/* The list the scenario's warning checks add to (rod_scenario_warnings,
 * rod/scenario.h): the unit slips (scenario_units.c) and the advice on
 * the static state, the time step and the grid (scenario_advice.c). */
#ifndef ROD_SCENARIO_WARN_H
#define ROD_SCENARIO_WARN_H

#include "rod/scenario.h"

typedef struct {
  rod_warning *out; /* the caller's array, of max entries */
  int max;
  int count; /* warnings found, also past max */
} rod_warning_list;

/* Add a warning about key (formatted message, one line); one past max is
 * counted, not written. */
void rod_warning_add(rod_warning_list *w, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Values far outside what rods and their materials are: lengths and
 * diameters, density and moduli (ROD_WARN_UNITS). */
void rod_scenario_warn_units(const rod_scenario *sc, rod_warning_list *w);

#endif
