/* The rod's model from a scenario (core/model.h; Till & Rucker 2017,
 * Table I): section, stiffness and damping, precurvature and its
 * integral along s, the clamp's frame, and the estimates both backends and
 * the command line size a run by: the wavenumber a time step resolves,
 * the first bending frequency, the curvature bound, the static error's
 * growth and space.nodes = auto. */
#include "core/model.h"

#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "integrators/bdf.h"
#include "integrators/dirk.h"

/* I = pi (d^4 - d_i^4) / 64 (m^4) of the scenario's section (written so
 * that a solid section's value has the bits of pi d^4 / 64). */
static double section_second_moment(const rod_scenario *sc) {
  const double d = sc->rod.diameter, di = sc->rod.inner_diameter;
  return M_PI * d * d * d * d / 64.0 - M_PI * di * di * di * di / 64.0;
}

double rod_model_bending_stiffness(const rod_scenario *sc) {
  return sc->rod.has_bending_stiffness
             ? sc->rod.bending_stiffness
             : sc->rod.youngs_modulus * section_second_moment(sc);
}

double rod_model_shear_coefficient(const rod_scenario *sc) {
  if (sc->rod.has_shear_coefficient)
    return sc->rod.shear_coefficient;
  const double nu = sc->rod.youngs_modulus / (2.0 * sc->rod.shear_modulus) - 1;
  const double r = sc->rod.inner_diameter / sc->rod.diameter;
  const double m2 = r * r, a = (1 + m2) * (1 + m2);
  return 6.0 * (1 + nu) * a / ((7 + 6 * nu) * a + (20 + 12 * nu) * m2);
}

void rod_model_set_precurvature_table(rod_model *m, const double *rows,
                                      int count) {
  m->precurvature_table = rows;
  m->precurvature_rows = count;
}

void rod_model_precurvature(const rod_model *m, double s, double u[3],
                            double us[3]) {
  if (m->precurvature_rows <= 0) {
    v3_copy(u, m->precurvature);
    v3_set(us, 0, 0, 0);
    return;
  }
  const double *t = m->precurvature_table;
  const int n = m->precurvature_rows;
  if (n == 1) {
    v3_copy(u, t + 1);
    v3_set(us, 0, 0, 0);
    return;
  }
  /* the interval [s_k, s_k+1) holding s, by bisection */
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t[4 * mid] <= s)
      lo = mid;
    else
      hi = mid;
  }
  const double *a = t + 4 * lo, *b = t + 4 * hi;
  const double h = b[0] - a[0], x = (s - a[0]) / h;
  for (int i = 0; i < 3; i++) {
    us[i] = (b[1 + i] - a[1 + i]) / h;
    u[i] = a[1 + i] + x * (b[1 + i] - a[1 + i]);
  }
}

void rod_model_precurvature_integral(const rod_model *m, double a, double b,
                                     double out[3]) {
  if (m->precurvature_rows <= 1) {
    double u[3], us[3];
    rod_model_precurvature(m, a, u, us);
    v3_scale(out, b - a, u);
    return;
  }
  /* trapezoids between a, the table's knots inside (a, b), and b */
  v3_set(out, 0, 0, 0);
  const double *t = m->precurvature_table;
  double x0 = a, u0[3], us[3];
  rod_model_precurvature(m, a, u0, us);
  for (int i = 0; i <= m->precurvature_rows; i++) {
    const double x1 = i < m->precurvature_rows ? t[4 * i] : b;
    if (x1 <= x0 || (i < m->precurvature_rows && x1 >= b))
      continue;
    double u1[3];
    rod_model_precurvature(m, x1, u1, us);
    for (int c = 0; c < 3; c++)
      out[c] += 0.5 * (x1 - x0) * (u0[c] + u1[c]);
    x0 = x1;
    v3_copy(u0, u1);
  }
}

bool rod_model_straight(const rod_model *m) {
  const double *u = m->precurvature;
  if (m->precurvature_rows <= 0)
    return u[0] == 0 && u[1] == 0 && u[2] == 0;
  for (int i = 0; i < m->precurvature_rows; i++)
    for (int c = 1; c < 4; c++)
      if (m->precurvature_table[4 * i + c] != 0)
        return false;
  return true;
}

double rod_model_step_wavenumber(const rod_model *m, double c0) {
  return pow(m->rho_area * c0 * c0 / m->K[0], 0.25);
}

double rod_model_run_wavenumber(const rod_model *m, const rod_scenario *sc) {
  const rod_dirk_table *t = rod_dirk_for(sc->time.scheme);
  if (t) /* the first step may take sdirk4 (kirchhoff_dirk.c) */
    return rod_model_step_wavenumber(
        m, fmax(rod_dirk_c0(t, sc->time.dt),
                rod_dirk_c0(&rod_dirk_sdirk4, sc->time.dt)));
  double c0 = rod_bdf_alpha(sc->time.alpha, sc->time.dt).c0;
  double c0_be = rod_bdf_backward_euler(sc->time.dt).c0;
  return rod_model_step_wavenumber(m, c0 > c0_be ? c0 : c0_be);
}

/* beta_1 L of the first bending mode of a clamped-free beam */
static const double beta1_L = 1.875104068711961;

double rod_model_first_omega(const rod_model *m, double tip_mass) {
  const double L = m->length;
  const double w0 = beta1_L * beta1_L / (L * L) * sqrt(m->K[0] / m->rho_area);
  /* the rod's modal mass at the tip, from k = 3 EI / L^3 */
  const double m1 = 3.0 * m->K[0] / (L * L * L * w0 * w0);
  return w0 * sqrt(m1 / (m1 + tip_mass));
}

/* A bound on the curvature the loads alone make: |moment of every load
 * about any section| / EI (1/m); with full_lever, every point force at
 * the lever of the tip, L, whatever its place (its short modes: below). */
static double load_curvature_bound(const rod_model *m, const rod_scenario *sc,
                                   bool full_lever) {
  const double L = m->length, g = v3_norm(m->gravity);
  /* a force F at s has a moment of at most |F| s about any section; a
   * distributed w, w L^2 / 2 */
  double M = 0.5 * m->rho_area * g * L * L;
  double tip[3];
  v3_add(tip, sc->tip.force, sc->tip.preload);
  double weight = sc->tip.mass * g;
  M += (v3_norm(tip) + weight) * L + v3_norm(sc->tip.moment);
  if (!sc->tip.release)
    M += weight * v3_norm(sc->tip.offset);
  if (sc->impulse.enabled)
    M += fabs(sc->impulse.peak) *
         (full_lever ? L : fmin(sc->impulse.position, L));
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_load_def *l = &sc->loads.item[i];
    double s = l->position.tip || full_lever ? L : fmin(l->position.s, L);
    M += v3_norm(l->force) * s + v3_norm(l->moment);
  }
  return M / fmin(m->K[0], m->K[1]);
}

double rod_model_curvature_bound(const rod_model *m, const rod_scenario *sc) {
  double u = v3_norm(m->precurvature);
  for (int i = 0; i < m->precurvature_rows; i++)
    u = fmax(u, v3_norm(m->precurvature_table + 4 * i + 1));
  return load_curvature_bound(m, sc, false) + u;
}

double rod_model_static_growth(const rod_model *m, const rod_scenario *sc) {
  const double L = m->length, g = v3_norm(m->gravity);
  const double EI = fmin(m->K[0], m->K[1]), w = m->rho_area * g;
  double tip[3];
  v3_add(tip, sc->tip.force, sc->tip.preload);
  double F = v3_norm(tip) + sc->tip.mass * g;
  for (int i = 0; i < sc->loads.count; i++)
    F += v3_norm(sc->loads.item[i].force);
  /* the integral of sqrt((F + w (L - s)) / EI) over [0, L] */
  if (w * L < 1e-12 * F)
    return L * sqrt(F / EI);
  return 2.0 / (3.0 * w * sqrt(EI)) * (pow(F + w * L, 1.5) - pow(F, 1.5));
}

/* Targets of space.nodes = auto. */
static const double auto_kh = 0.2, auto_kappa_h = 0.25;

/* beta h of the shortest mode a tolerance asks the grid to carry
 * (rod_model_tolerance_wavenumber): chosen by measurement with esdirk4
 * (validation/workprec.py; largest tip error against the reference, cost
 * as spatial sweeps, steps x nodes). Weight release at 5e-6 m (beta L =
 * 23.9): 25, 30, 40, 70 nodes err 0.104, 0.081, 0.077, 0.078 mm for 66k,
 * 98k, 163k, 346k node-steps; impulse at 5e-6 m (beta L = 34.5): 43 nodes
 * 0.077 mm, at 1e-5 (29.0) 36, 40, 44, 50 nodes 0.128, 0.106, 0.077,
 * 0.067 mm. A finer grid carries modes of amplitude below the tolerance,
 * whose local errors the controller then follows with smaller steps
 * (weight release 3256 steps on 30 nodes, 4948 on 70) for no accuracy. */
static const double tolerance_beta_h = 0.82;

double rod_model_tolerance_wavenumber(const rod_model *m,
                                      const rod_scenario *sc) {
  const double L = m->length;
  const rod_dirk_table *t = rod_dirk_for(sc->time.scheme);
  const bool modal = t && t->modal_estimate;
  const double A = load_curvature_bound(m, sc, modal) * L * L / 3.0; /* m */
  return beta1_L / L * pow(A / sc->time.tolerance, 0.25);
}

int rod_model_auto_nodes(const rod_model *m, const rod_scenario *sc,
                         int *needed) {
  const double L = m->length;
  const bool tolerance =
      sc->time.has_tolerance && rod_dirk_for(sc->time.scheme) != NULL;
  const double kL =
      tolerance ? rod_model_tolerance_wavenumber(m, sc) * L / tolerance_beta_h
                : rod_model_run_wavenumber(m, sc) * L / auto_kh;
  const double kappa = rod_model_curvature_bound(m, sc);
  double n = fmax(kL, kappa * L / auto_kappa_h);
  n = fmin(ceil(n), 1e9) + 1;
  n = fmax(n, ROD_AUTO_NODES_MIN);
  if (needed)
    *needed = (int)n;
  return (int)fmin(n, ROD_AUTO_NODES_MAX);
}

int rod_model_nodes(const rod_model *m, const rod_scenario *sc) {
  return sc->space.nodes > 0 ? sc->space.nodes
                             : rod_model_auto_nodes(m, sc, NULL);
}

double rod_model_step_kh(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return rod_model_run_wavenumber(&m, sc) * m.length /
         (rod_model_nodes(&m, sc) - 1);
}

void rod_frame_from_tangent(double quat[4], const double d_in[3]) {
  double d[3];
  v3_copy(d, d_in);
  v3_normalize(d);
  /* q = normalise(1 + e3.d, e3 x d); e3 x d = (-d_y, d_x, 0) */
  double w = 1.0 + d[2];
  if (w < 1e-12) { /* d = -e3: half turn about y, the limit from +x, which
                      keeps a rod in the x-z plane on the planar path */
    quat[0] = 0;
    quat[1] = 0;
    quat[2] = 1;
    quat[3] = 0;
    return;
  }
  double x = -d[1], y = d[0], z = 0.0;
  double n = sqrt(w * w + x * x + y * y + z * z);
  quat[0] = w / n;
  quat[1] = x / n;
  quat[2] = y / n;
  quat[3] = z / n;
}

void rod_model_init(rod_model *m, const rod_scenario *sc) {
  memset(m, 0, sizeof *m);
  const double d = sc->rod.diameter, di = sc->rod.inner_diameter;
  m->kind = sc->rod.model;
  m->length = sc->rod.length;
  m->area = M_PI * d * d / 4.0 - M_PI * di * di / 4.0;
  m->second_moment = section_second_moment(sc);
  m->polar_moment = 2.0 * m->second_moment;
  m->rho_area = sc->rod.density * m->area;
  if (sc->rod.rotary_inertia == ROD_ROTARY_ON) {
    m->rho_inertia[0] = m->rho_inertia[1] = sc->rod.density * m->second_moment;
    m->rho_inertia[2] = sc->rod.density * m->polar_moment;
  }
  double EI = rod_model_bending_stiffness(sc);
  m->K[0] = m->K[1] = EI;
  m->K[2] = sc->rod.shear_modulus * m->polar_moment;
  m->shear_coefficient = rod_model_shear_coefficient(sc);
  m->Kse[0] = m->Kse[1] =
      m->shear_coefficient * sc->rod.shear_modulus * m->area;
  m->Kse[2] = sc->rod.youngs_modulus * m->area;
  m->retardation = sc->rod.bending_damping / EI;
  m->retardation_se = sc->rod.has_shear_retardation ? sc->rod.shear_retardation
                                                    : m->retardation;
  m->drag_model = sc->rod.drag_model;
  for (int i = 0; i < 3; i++) {
    m->drag[i] = sc->rod.drag;
    m->gravity[i] = sc->environment.gravity[i];
    m->base_position[i] = sc->base.position[i];
    m->precurvature[i] = sc->rod.precurvature[i];
  }
  if (m->drag_model == ROD_DRAG_NORMAL)
    m->drag[2] = sc->rod.drag_tangential;
  rod_frame_from_tangent(m->base_quat, sc->base.direction);
  quat_to_R(m->base_R, m->base_quat);
}
