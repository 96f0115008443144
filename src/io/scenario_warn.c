/* The list the scenario's warning checks add to (scenario_warn.h): one
 * warning, its key and its one-line message, added to the caller's
 * array. Below the unit slips (scenario_units.c) and the advice
 * (scenario_advice.c), which both add to it. */
#include <stdarg.h>
#include <stdio.h>

#include "scenario_warn.h"

void rod_warning_add(rod_warning_list *w, const char *key, const char *fmt,
                     ...) {
  if (w->count < w->max) {
    rod_warning *out = &w->out[w->count];
    snprintf(out->key, sizeof out->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
  }
  w->count++;
}
