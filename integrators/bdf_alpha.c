/* BDF-alpha's coefficients c0, c1, c2, d1 (integrators/bdf.h; Till &
 * Rucker 2017, II.B), backward Euler's (the start-up step), and
 * the gain and phase per step of the scheme on a mode y_t = i omega y. */
#include "integrators/bdf.h"

#include <complex.h>
#include <math.h>

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

void rod_bdf_alpha_mode(double alpha, double dt, double omega, double *gain,
                        double *phase) {
  /* y_t = i omega y in the scheme: (c0 - i w) z^2 + (c1 + i w d1) z + c2 */
  const rod_bdf_coeffs c = rod_bdf_alpha(alpha, dt);
  const double complex A = c.c0 - I * omega, B = c.c1 + I * omega * c.d1;
  const double complex d = csqrt(B * B - 4.0 * A * c.c2);
  const double complex z1 = (-B + d) / (2.0 * A), z2 = (-B - d) / (2.0 * A);
  const double complex z = cabs(z1) > cabs(z2) ? z1 : z2;
  *gain = cabs(z);
  *phase = carg(z);
}
