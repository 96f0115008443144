/* The routing of a tendon at an arclength (core/tendon_route.h): offset,
 * helix or a routing table's natural cubic spline. */
#include "core/tendon_route.h"

#include <math.h>

/* The natural cubic spline of column c (1 x, 2 y) of the routing table
 * tab with second derivatives mm (rows x 2) at s, clamped to the table:
 * its value, first and second derivative into out[0], out[2], out[4]. */
static void route_spline(const rod_table *tab, const double *mm, int c,
                         double s, double *out) {
  const int n = tab->rows;
  if (n == 1) {
    out[0] = rod_table_at(tab, 0, c);
    out[2] = out[4] = 0.0;
    return;
  }
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (rod_table_at(tab, mid, 0) <= s)
      lo = mid;
    else
      hi = mid;
  }
  const double s0 = rod_table_at(tab, lo, 0), s1 = rod_table_at(tab, hi, 0);
  const double h = s1 - s0, y0 = rod_table_at(tab, lo, c);
  const double y1 = rod_table_at(tab, hi, c);
  const double m0 = mm[2 * lo + c - 1], m1 = mm[2 * hi + c - 1];
  const double B = fmin(fmax((s - s0) / h, 0.0), 1.0), A = 1.0 - B;
  /* y = A y0 + B y1 + ((A^3 - A) m0 + (B^3 - B) m1) h^2 / 6 */
  out[0] = A * y0 + B * y1 +
           ((A * A * A - A) * m0 + (B * B * B - B) * m1) * h * h / 6.0;
  out[2] = (y1 - y0) / h - (3.0 * A * A - 1.0) * h * m0 / 6.0 +
           (3.0 * B * B - 1.0) * h * m1 / 6.0;
  out[4] = A * m0 + B * m1;
}

void rod_tendon_route(const rod_scenario *sc, const rod_inputs *in, int i,
                      double s, double rt[6]) {
  const rod_tendon_def *t = &sc->tendons.item[i];
  const rod_table *tab = in ? in->tendon_route[i] : NULL;
  if (tab) {
    route_spline(tab, in->tendon_route_m[i], 1, s, rt);
    route_spline(tab, in->tendon_route_m[i], 2, s, rt + 1);
  } else if (t->helix[0] > 0) { /* r = rho (cos a, sin a), a = 2 pi n s / L
                                   + phi */
    const double rho = t->helix[0],
                 w = 2.0 * M_PI * t->helix[1] / sc->rod.length;
    const double a = w * s + t->helix[2], c = cos(a), sn = sin(a);
    rt[0] = rho * c;
    rt[1] = rho * sn;
    rt[2] = -rho * w * sn;
    rt[3] = rho * w * c;
    rt[4] = -rho * w * w * c;
    rt[5] = -rho * w * w * sn;
  } else {
    rt[0] = t->offset[0];
    rt[1] = t->offset[1];
    rt[2] = rt[3] = rt[4] = rt[5] = 0.0;
  }
}

double rod_tendon_end(const rod_scenario *sc, const rod_tendon_def *t) {
  return t->end.tip ? sc->rod.length : t->end.s;
}
