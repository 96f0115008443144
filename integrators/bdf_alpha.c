#include "integrators/bdf.h"

rod_bdf_coeffs rod_bdf_alpha(double alpha, double dt) {
  rod_bdf_coeffs c;
  double den = dt * (1.0 + alpha);
  c.c0 = (1.5 + alpha) / den;
  c.c1 = -2.0 / dt; /* (-2 - 2 alpha) / (dt (1 + alpha)) */
  c.c2 = (0.5 + alpha) / den;
  c.d1 = alpha / (1.0 + alpha);
  return c;
}

rod_bdf_coeffs rod_bdf_backward_euler(double dt) {
  rod_bdf_coeffs c = {1.0 / dt, -1.0 / dt, 0.0, 0.0};
  return c;
}
