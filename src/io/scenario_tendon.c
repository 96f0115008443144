/* Checks of the tendons' sections ([tendon.NAME], scenario_tendon.h): one
 * routing each, and a backend that carries them. */
#include "scenario_tendon.h"

#include <stdio.h>

int rod_scenario_check_tendons(const rod_scenario *sc, const char *file,
                               rod_error *err) {
  for (int i = 0; i < sc->tendons.count; i++) {
    const rod_tendon_def *t = &sc->tendons.item[i];
    char label[96];
    if (sc->solver.backend != ROD_BACKEND_KIRCHHOFF) {
      snprintf(label, sizeof label, "[tendon.%s]", t->name);
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "tendons need solver.backend = kirchhoff");
    }
    snprintf(label, sizeof label, "tendon.%s.helix", t->name);
    if (t->helix[0] < 0)
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "the radius must be >= 0 (got %g)", t->helix[0]);
    if (t->helix[0] > 0 && (t->offset[0] != 0 || t->offset[1] != 0))
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "give either offset or helix, not both");
  }
  return ROD_OK;
}
