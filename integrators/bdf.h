/* BDF-alpha time discretisation (Till & Rucker 2017, II.B, Celaya et al.):
 *   y_t(i) = c0 y(i) + c1 y(i-1) + c2 y(i-2) + d1 y_t(i-1)
 * alpha = -0.5 is the trapezoidal rule, alpha = 0 BDF2. */
#ifndef ROD_BDF_H
#define ROD_BDF_H

typedef struct {
  double c0, c1, c2; /* 1/s */
  double d1;         /* dimensionless */
} rod_bdf_coeffs;

/* c0 = (1.5 + a) / (dt (1 + a)), c1 = -2 / dt, c2 = (0.5 + a) / (dt (1 + a)),
 * d1 = a / (1 + a). */
rod_bdf_coeffs rod_bdf_alpha(double alpha, double dt);

/* One step of BDF-alpha on a mode y_t = i omega y (omega in 1/s): the
 * principal root z of its characteristic equation as gain |z| and phase
 * arg z (rad; exact: 1 and omega dt). */
void rod_bdf_alpha_mode(double alpha, double dt, double omega, double *gain,
                        double *phase);

/* Backward Euler, y_t(i) = (y(i) - y(i-1)) / dt: the start-up step. */
rod_bdf_coeffs rod_bdf_backward_euler(double dt);

#endif
