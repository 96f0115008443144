#include "core/model.h"

#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "integrators/bdf.h"

double rod_model_bending_stiffness(const rod_scenario *sc) {
  double d = sc->rod.diameter;
  double I = M_PI * d * d * d * d / 64.0;
  return sc->rod.has_bending_stiffness ? sc->rod.bending_stiffness
                                       : sc->rod.youngs_modulus * I;
}

double rod_model_step_wavenumber(const rod_model *m, double c0) {
  return pow(m->rho_area * c0 * c0 / m->K[0], 0.25);
}

double rod_model_run_wavenumber(const rod_model *m, const rod_scenario *sc) {
  double c0 = rod_bdf_alpha(sc->time.alpha, sc->time.dt).c0;
  double c0_be = rod_bdf_backward_euler(sc->time.dt).c0;
  return rod_model_step_wavenumber(m, c0 > c0_be ? c0 : c0_be);
}

double rod_model_step_kh(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return rod_model_run_wavenumber(&m, sc) * m.length / (sc->space.nodes - 1);
}

void rod_frame_from_tangent(double quat[4], const double d_in[3]) {
  double d[3];
  v3_copy(d, d_in);
  v3_normalize(d);
  /* q = normalise(1 + e3.d, e3 x d); e3 x d = (-d_y, d_x, 0) */
  double w = 1.0 + d[2];
  if (w < 1e-12) { /* d = -e3: half turn about x */
    quat[0] = 0;
    quat[1] = 1;
    quat[2] = 0;
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
  double d = sc->rod.diameter;
  m->kind = sc->rod.model;
  m->length = sc->rod.length;
  m->area = M_PI * d * d / 4.0;
  m->second_moment = M_PI * d * d * d * d / 64.0;
  m->polar_moment = 2.0 * m->second_moment;
  m->rho_area = sc->rod.density * m->area;
  double EI = rod_model_bending_stiffness(sc);
  m->K[0] = m->K[1] = EI;
  m->K[2] = sc->rod.shear_modulus * m->polar_moment;
  m->Kse[0] = m->Kse[1] = sc->rod.shear_modulus * m->area;
  m->Kse[2] = sc->rod.youngs_modulus * m->area;
  m->retardation = sc->rod.bending_damping / EI;
  for (int i = 0; i < 3; i++) {
    m->drag[i] = sc->rod.drag;
    m->gravity[i] = sc->environment.gravity[i];
    m->base_position[i] = sc->base.position[i];
    m->precurvature[i] = 0.0;
  }
  rod_frame_from_tangent(m->base_quat, sc->base.direction);
  quat_to_R(m->base_R, m->base_quat);
}
