/* Checks of the tendons' sections ([tendon.NAME], scenario_tendon.h): one
 * routing and one actuation each, and where it runs within the rod. */
#include "scenario_tendon.h"

#include <stdio.h>

#include "core/tendon_route.h"
#include "scenario_keys.h"

static int check_one(const rod_scenario *sc, const rod_tendon_def *t,
                     const char *file, rod_error *err) {
  char label[96], v[32];
  snprintf(label, sizeof label, "tendon.%s.helix", t->name);
  if (t->helix[0] < 0)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "the radius must be >= 0 (got %g)", t->helix[0]);
  if (t->helix[0] > 0 && (t->offset[0] != 0 || t->offset[1] != 0))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "give either offset or helix, not both");
  snprintf(label, sizeof label, "tendon.%s.routing_file", t->name);
  if (t->routing_file[0] &&
      (t->helix[0] > 0 || t->offset[0] != 0 || t->offset[1] != 0))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "give one routing: offset, helix or routing_file");
  snprintf(label, sizeof label, "tendon.%s.tension_file", t->name);
  if (t->tension_file[0] && t->tension != 0)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "give either tension or tension_file, not both");
  snprintf(label, sizeof label, "tendon.%s.displacement_file", t->name);
  if (t->displacement_file[0] && (t->tension != 0 || t->tension_file[0]))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "give one actuation: tension, tension_file or "
                         "displacement_file");
  if (t->displacement_file[0] && sc->obstacles.count > 0)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "displacement control is not supported with "
                         "obstacles (use tension or tension_file)");
  /* on the chain the tension is the stretch's, explicit in its length
   * (docs/tendons.md): a rigid tendon would be a constraint it lacks */
  if (t->displacement_file[0] && sc->solver.backend == ROD_BACKEND_RFEM &&
      !(t->compliance > 0))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "displacement control on the rfem backend needs a "
                         "compliance > 0 (or solver.backend = kirchhoff)");
  snprintf(label, sizeof label, "tendon.%s.%s", t->name,
           t->compliance != 0 ? "compliance" : "base_to_motor");
  if (!t->displacement_file[0] && (t->compliance != 0 || t->base_to_motor != 0))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "applies to displacement control only (give "
                         "displacement_file)");
  snprintf(label, sizeof label, "tendon.%s.friction", t->name);
  if (t->friction > 0 && sc->solver.backend != ROD_BACKEND_RFEM &&
      (sc->plane.enabled || sc->obstacles.count > 0))
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "is not supported with contact on the kirchhoff "
                         "backend (docs/tendons.md; the rfem backend "
                         "carries it)");
  const double end = rod_tendon_end(sc, t);
  snprintf(label, sizeof label, "tendon.%s.end", t->name);
  if (end > sc->rod.length) {
    rod_format_double(end, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  snprintf(label, sizeof label, "tendon.%s.start", t->name);
  if (!(t->start < end)) {
    rod_format_double(t->start, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be before the end where the tendon is "
                         "anchored (got %s)",
                         v);
  }
  return ROD_OK;
}

int rod_scenario_check_tendons(const rod_scenario *sc, const char *file,
                               rod_error *err) {
  for (int i = 0; i < sc->tendons.count; i++) {
    int st = check_one(sc, &sc->tendons.item[i], file, err);
    if (st != ROD_OK)
      return st;
  }
  return ROD_OK;
}
