/* The routing of a tendon ([tendon.NAME], docs/tendons.md) in the
 * cross-section's material frame at an arclength: a straight offset, a
 * helix, or the natural cubic spline through a routing table's rows. Both
 * backends read it: the Kirchhoff rod at its evaluation points, the RFEM
 * chain at its disks. */
#ifndef ROD_CORE_TENDON_ROUTE_H
#define ROD_CORE_TENDON_ROUTE_H

#include "core/tables.h"
#include "rod/scenario.h"

/* Tendon i's routing at arclength s (m): rt = (x, y, x', y', x'', y''), m,
 * 1 and 1/m; a table's spline is clamped to its rows. */
void rod_tendon_route(const rod_scenario *sc, const rod_inputs *in, int i,
                      double s, double rt[6]);

/* Where tendon t is anchored (m of arclength). */
double rod_tendon_end(const rod_scenario *sc, const rod_tendon_def *t);

#endif
