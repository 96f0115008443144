/* The bodies of a scenario against its clamp, and the combinations of
 * contact this build does not solve (docs/contact.md). */
#include "scenario_contact.h"

#include <stdio.h>

#include "contact/contact.h"
#include "scenario_keys.h"

/* The first body's section, for messages. */
static const char *first_body(const rod_scenario *sc, char *buf, size_t n) {
  if (sc->plane.enabled)
    return "[plane]";
  snprintf(buf, n, "[obstacle.%s]", sc->obstacles.item[0].name);
  return buf;
}

int rod_scenario_check_contact(const rod_scenario *sc, const char *file,
                               rod_error *err) {
  if (!sc->plane.enabled && sc->obstacles.count == 0)
    return ROD_OK;
  rod_contact_world w;
  rod_contact_world_init(&w, sc);
  for (int i = 0; i < w.count; i++) {
    double n[3];
    const double d = rod_obstacle_distance(&w.item[i], sc->base.position, n);
    if (d < w.rod_radius) {
      char dt[32], rt[32];
      rod_format_double(d, dt, sizeof dt);
      rod_format_double(w.rod_radius, rt, sizeof rt);
      return rod_error_set(
          err, ROD_EINVAL, file, w.item[i].label,
          "contains the clamp: base.position is %s m from its surface, less "
          "than the rod's radius %s m",
          dt, rt);
    }
  }
  char label[96];
  const char *body = first_body(sc, label, sizeof label);
  if (sc->base.motion_file[0]) /* the contact stepper goes back to a
                                  step's start, where the clamp was */
    return rod_error_set(err, ROD_EUNSUPPORTED, file, "base.motion_file",
                         "a clamp moved along a tabulated path with contact "
                         "(%s) is not supported by this build",
                         body);
  if (sc->solver.backend == ROD_BACKEND_RFEM &&
      sc->rfem.integrator == ROD_RFEM_GENALPHA && sc->time.has_tolerance)
    return rod_error_set(err, ROD_EUNSUPPORTED, file, "time.tolerance",
                         "contact (%s) with generalized-alpha steps sized by "
                         "their error is not supported by this build (the "
                         "nonsmooth scheme steps by time.dt)",
                         body);
  return ROD_OK;
}

int rod_scenario_check_contact_motion(const rod_scenario *sc, const char *file,
                                      rod_error *err) {
  if ((!sc->plane.enabled && sc->obstacles.count == 0) ||
      sc->solver.backend != ROD_BACKEND_KIRCHHOFF)
    return ROD_OK;
  char label[96];
  const char *body = first_body(sc, label, sizeof label);
  const char *key = NULL, *what = NULL;
  if (sc->time.scheme != ROD_SCHEME_BDF_ALPHA) {
    key = "time.scheme";
    what = "with a Runge-Kutta scheme in time";
  } else if (sc->time.has_tolerance) {
    key = "time.tolerance";
    what = "with steps sized by their error";
  }
  if (!key)
    return ROD_OK;
  return rod_error_set(err, ROD_EUNSUPPORTED, file, key,
                       "contact (%s) on the Kirchhoff/Cosserat rod %s is not "
                       "supported by this build (solver.backend = rfem "
                       "solves it; rodsim static solves the static state)",
                       body, what);
}
