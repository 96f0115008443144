/* Checks of [plane] and [obstacle.NAME] that span several keys
 * (rod_scenario_validate). */
#ifndef ROD_SCENARIO_CONTACT_H
#define ROD_SCENARIO_CONTACT_H

#include "rod/scenario.h"

/* ROD_EINVAL when a body contains the clamp (base.position closer to it
 * than the rod's radius: the clamped end would start inside it). */
int rod_scenario_check_contact(const rod_scenario *sc, const char *file,
                               rod_error *err);

/* ROD_EUNSUPPORTED for a motion with contact this build does not solve:
 * the Kirchhoff/Cosserat rod's with a Runge-Kutta scheme, time.tolerance
 * or restitution. */
int rod_scenario_check_contact_motion(const rod_scenario *sc, const char *file,
                                      rod_error *err);

#endif
