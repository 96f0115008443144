/* Physical model of the rod derived from a scenario: cross-section, stiffness
 * and damping matrices, drag, precurvature, loads and the clamp frame (Till &
 * Rucker 2017, Table I). All matrices are diagonal for the circular section
 * (solid or a tube) and stored as their diagonals. */
#ifndef ROD_MODEL_H
#define ROD_MODEL_H

#include <stdbool.h>

#include "rod/scenario.h"

typedef struct {
  rod_model_kind kind;
  double length;        /* m */
  double area;          /* m^2, A = pi (d^2 - d_i^2) / 4 */
  double second_moment; /* m^4, I = pi (d^4 - d_i^4) / 64 */
  double polar_moment;  /* m^4, J = 2 I */
  double rho_area;      /* kg/m, rho A */
  /* kg m, the cross-section's rotary inertia per length rho (I, I, J)
   * (material frame); zero when rod.rotary_inertia = off */
  double rho_inertia[3];
  double K[3];   /* N m^2, bending and torsion stiffness EI, EI, GJ */
  double Kse[3]; /* N, shear and extension stiffness kGA, kGA, EA */
  double shear_coefficient; /* k of the shear stiffness (cosserat) */
  /* s, Kelvin-Voigt retardation time B/EI: B = tau K and B_se = tau K_se */
  double retardation;
  /* s, that of shear and extension: B_se = tau_se K_se */
  double retardation_se;
  rod_drag_kind drag_model;
  /* kg/m^2, square-law drag: paper C (diagonal); normal (C_n, C_n, C_t) */
  double drag[3];
  double gravity[3]; /* m/s^2, world frame */
  /* 1/m, u* in the material frame: constant, or (when precurvature_rows >
   * 0) the table of rows s, u1, u2, u3 interpolated linearly (borrowed from
   * the backend's inputs, rod_model_set_precurvature_table) */
  double precurvature[3];
  const double *precurvature_table;
  int precurvature_rows;
  double base_position[3]; /* m */
  double base_quat[4];     /* material frame R(0) as w, x, y, z */
  double base_R[9];        /* R(0), row-major */
} rod_model;

/* Derive the model from a validated scenario (a precurvature file's table
 * is set apart, rod_model_set_precurvature_table). */
void rod_model_init(rod_model *m, const rod_scenario *sc);

/* u*(s) from rows of (s, u1, u2, u3) (m, 1/m), strictly increasing in s,
 * covering [0, length]; the model keeps the pointer. */
void rod_model_set_precurvature_table(rod_model *m, const double *rows,
                                      int count);

/* u*(s) (1/m) and its derivative d(u*)/ds (1/m^2) at arclength s (m),
 * material frame. */
void rod_model_precurvature(const rod_model *m, double s, double u[3],
                            double us[3]);

/* The integral of u* over [a, b] (m; rad), exact for the linear
 * interpolant. */
void rod_model_precurvature_integral(const rod_model *m, double a, double b,
                                     double out[3]);

/* True when u* is zero along the whole rod. */
bool rod_model_straight(const rod_model *m);

/* Shear coefficient k of the scenario: rod.shear_coefficient if given,
 * else Cowper's (1966) value for a circular tube of diameter ratio
 * r = d_i / d, nu = E / (2 G) - 1:
 *   k = 6 (1 + nu)(1 + r^2)^2 / ((7 + 6 nu)(1 + r^2)^2 + (20 + 12 nu) r^2),
 * 6 (1 + nu) / (7 + 6 nu) for a solid section. */
double rod_model_shear_coefficient(const rod_scenario *sc);

/* The shortest-arc rotation taking e3 to the unit vector d (a half turn
 * about y when d = -e3), as a unit quaternion w, x, y, z. */
void rod_frame_from_tangent(double quat[4], const double d[3]);

/* Bending stiffness EI (N m^2) of the scenario: bending_stiffness if given,
 * else E I of the section. */
double rod_model_bending_stiffness(const rod_scenario *sc);

/* Wavenumber k (1/m) of the time-discrete rod for the BDF coefficient c0
 * (1/s): it varies along s like exp(k s / sqrt 2), k^4 = rhoA c0^2 / EI
 * (docs/numerics.md). */
double rod_model_step_wavenumber(const rod_model *m, double c0);

/* The largest k of a run of the scenario: over the start-up step
 * (backward Euler) and the BDF-alpha steps. */
double rod_model_run_wavenumber(const rod_model *m, const rod_scenario *sc);

/* The wavenumber (1/m) of the shortest clamped-free bending mode whose
 * amplitude exceeds time.tolerance when the loads excite the modes as a
 * step load does, a_n = A (beta_1 / beta_n)^4 with A = kappa L^2 / 3 the
 * deflection of the loads' curvature bound (kappa without the
 * precurvature): beta = (1.8751 / L) (A / tolerance)^(1/4). Under a
 * scheme with rod_dirk_table.modal_estimate, kappa takes every point
 * force at the full lever L: a force F at s moves the tip by
 * F phi_n(s) phi_n(L) / (EI beta_n^4 L) in mode n (phi_n normalised to
 * a mean square of 1 along the rod), and |phi_n(s)| reaches 2, as at the
 * tip, for every mode with beta_n s above about 2 (the impulse's strike
 * at s = L / 11: modes 4 and up). */
double rod_model_tolerance_wavenumber(const rod_model *m,
                                      const rod_scenario *sc);

/* space.nodes = auto (docs/numerics.md): the fewest grid nodes, at least
 * ROD_AUTO_NODES_MIN, with k h <= 0.2 for the run's steps (RK4's error
 * (k h)^4, cubic Hermite and stage history both stable there, Euler within
 * its limit with alpha < -0.4), or under time.tolerance (a Runge-Kutta
 * scheme) beta h <= 0.82 for the tolerance's wavenumber above, and kappa h
 * <= 0.25 for a bound on the static curvature (|moment of every load about
 * any section| / EI + |u*|; RK4's static error about 1e-8 L there). Capped
 * at ROD_AUTO_NODES_MAX; *needed (may be NULL) is the count before the
 * cap. */
enum { ROD_AUTO_NODES_MIN = 20, ROD_AUTO_NODES_MAX = 4000 };
int rod_model_auto_nodes(const rod_model *m, const rod_scenario *sc,
                         int *needed);

/* The grid nodes of the scenario: space.nodes, or its auto choice. */
int rod_model_nodes(const rod_model *m, const rod_scenario *sc);

/* Angular frequency (1/s) of the first bending mode of the straight
 * clamped rod (Euler-Bernoulli: beta_1^2 / L^2 sqrt(EI / rhoA)), with a
 * mass tip_mass (kg) at its tip by Rayleigh's quotient (the rod's modal
 * mass 3 EI / (L^3 omega_0^2) = 0.243 rhoA L there). */
double rod_model_first_omega(const rod_model *m, double tip_mass);

/* How much the static problem's solutions can grow along the rod: the
 * integral of sqrt(|n(s)| / EI) over s for a bound |n(s)| <= the tip's
 * forces + the weight beyond s (a tension or compression n makes
 * perturbations grow like exp of it; w L^3 / EI = 1000 alone gives
 * 2/3 sqrt(1000) = 21). Shooting resolves its unknowns to about
 * 1e-16 exp(this). */
double rod_model_static_growth(const rod_model *m, const rod_scenario *sc);

/* An upper bound of the rod's curvature (1/m) under the scenario's loads:
 * the largest moment any load can have about a section, over EI, plus
 * the largest |u*|. */
double rod_model_curvature_bound(const rod_model *m, const rod_scenario *sc);

/* The largest k h of a run of the scenario on its grid of space.nodes
 * (nominal spacing h = L / (nodes - 1)). RK4 in arclength errs like
 * (k h)^4, Euler like k h. */
double rod_model_step_kh(const rod_scenario *sc);

#endif
