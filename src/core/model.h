/* Physical model of the rod derived from a scenario: cross-section, stiffness
 * and damping matrices, loads and the clamp frame (Till & Rucker 2017, Table
 * I). All matrices are diagonal for the solid circular section and stored as
 * their diagonals. */
#ifndef ROD_MODEL_H
#define ROD_MODEL_H

#include "rod/scenario.h"

typedef struct {
  rod_model_kind kind;
  double length;        /* m */
  double area;          /* m^2, A = pi d^2 / 4 */
  double second_moment; /* m^4, I = pi d^4 / 64 */
  double polar_moment;  /* m^4, J = pi d^4 / 32 */
  double rho_area;      /* kg/m, rho A */
  double K[3];          /* N m^2, bending and torsion stiffness EI, EI, GJ */
  double Kse[3];        /* N, shear and extension stiffness GA, GA, EA */
  /* s, Kelvin-Voigt retardation time B/EI: B = tau K and B_se = tau K_se */
  double retardation;
  double drag[3];          /* kg/m^2, square-law drag C (diagonal) */
  double gravity[3];       /* m/s^2, world frame */
  double precurvature[3];  /* 1/m, u* (constant along s) */
  double base_position[3]; /* m */
  double base_quat[4];     /* material frame R(0) as w, x, y, z */
  double base_R[9];        /* R(0), row-major */
} rod_model;

/* Derive the model from a validated scenario. */
void rod_model_init(rod_model *m, const rod_scenario *sc);

/* The shortest-arc rotation taking e3 to the unit vector d (a half turn
 * about x when d = -e3), as a unit quaternion w, x, y, z. */
void rod_frame_from_tangent(double quat[4], const double d[3]);

/* Bending stiffness EI (N m^2) of the scenario: bending_stiffness if given,
 * else E I of the solid section. */
double rod_model_bending_stiffness(const rod_scenario *sc);

/* Wavenumber k (1/m) of the time-discrete rod for the BDF coefficient c0
 * (1/s): it varies along s like exp(k s / sqrt 2), k^4 = rhoA c0^2 / EI
 * (docs/numerics.md). */
double rod_model_step_wavenumber(const rod_model *m, double c0);

/* The largest k of a run of the scenario: over the start-up step
 * (backward Euler) and the BDF-alpha steps. */
double rod_model_run_wavenumber(const rod_model *m, const rod_scenario *sc);

/* The largest k h of a run of the scenario on its grid of space.nodes
 * (nominal spacing h = L / (nodes - 1)). RK4 in arclength errs like
 * (k h)^4, Euler like k h. */
double rod_model_step_kh(const rod_scenario *sc);

#endif
