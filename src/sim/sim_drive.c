/* Loads, tendons' tensions and the clamp's motion set between steps
 * (rod/sim.h): checked (every value finite and within ROD_SIM_MAX_INPUT)
 * and handed to the backend; a tendon's tension and length read back. */
#include "sim/sim_object.h"

#include "core/v3.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* every value finite and within ROD_SIM_MAX_INPUT */
#define NOT_FINITE "every value must be finite and at most %g in magnitude"

/* Hand the drive to the backend; on refusal restore the previous one. */
static int apply_drive(rod_sim *sim, const rod_drive *old) {
  int st = sim->ops->set_drive(sim->self, &sim->drive, &sim->err);
  if (st != ROD_OK) {
    sim->drive = *old;
    return st;
  }
  /* loads that change in time do work: the energy balance no longer
   * tells a discretisation that creates energy */
  sim->watch.active = false;
  rod_errest_drive(&sim->est, &sim->drive);
  return ROD_OK;
}

/* Every component finite and within ROD_SIM_MAX_INPUT (NULL: zero). */
static bool finite3(const double *v) {
  for (int i = 0; v && i < 3; i++)
    if (!(fabs(v[i]) <= ROD_SIM_MAX_INPUT))
      return false;
  return true;
}

static void copy3(double *dst, const double *src) {
  for (int i = 0; i < 3; i++)
    dst[i] = src ? src[i] : 0.0;
}

int rod_sim_set_tip_load(rod_sim *sim, const double force[3],
                         const double moment[3]) {
  if (!sim)
    return ROD_EINVAL;
  if (!finite3(force) || !finite3(moment))
    return rod_sim_fail(sim, ROD_EINVAL, "tip", NOT_FINITE, ROD_SIM_MAX_INPUT);
  rod_drive old = sim->drive;
  sim->drive.tip = true;
  copy3(sim->drive.tip_force, force);
  copy3(sim->drive.tip_moment, moment);
  return apply_drive(sim, &old);
}

int rod_sim_set_load(rod_sim *sim, const char *name, const double force[3],
                     const double moment[3]) {
  if (!sim)
    return ROD_EINVAL;
  if (!name)
    return rod_sim_fail(sim, ROD_EINVAL, "load", "no name (NULL)");
  int i = 0;
  while (i < sim->sc.loads.count && strcmp(sim->sc.loads.item[i].name, name))
    i++;
  char label[96];
  snprintf(label, sizeof label, "[load.%s]", name);
  if (i == sim->sc.loads.count)
    return rod_sim_fail(sim, ROD_EINVAL, label,
                        "no such section in the scenario");
  if (!finite3(force) || !finite3(moment))
    return rod_sim_fail(sim, ROD_EINVAL, label, NOT_FINITE, ROD_SIM_MAX_INPUT);
  rod_drive old = sim->drive;
  sim->drive.load[i] = true;
  copy3(sim->drive.load_force[i], force);
  copy3(sim->drive.load_moment[i], moment);
  return apply_drive(sim, &old);
}

/* The index of [tendon.NAME] in the scenario, or -1 with the error set. */
static int tendon_index(rod_sim *sim, const char *name) {
  if (!name) {
    rod_sim_fail(sim, ROD_EINVAL, "tendon", "no name (NULL)");
    return -1;
  }
  for (int i = 0; i < sim->sc.tendons.count; i++)
    if (!strcmp(sim->sc.tendons.item[i].name, name))
      return i;
  char label[96];
  snprintf(label, sizeof label, "[tendon.%s]", name);
  rod_sim_fail(sim, ROD_EINVAL, label, "no such section in the scenario");
  return -1;
}

int rod_sim_set_tendon(rod_sim *sim, const char *name, double tension) {
  if (!sim)
    return ROD_EINVAL;
  const int i = tendon_index(sim, name);
  if (i < 0)
    return ROD_EINVAL;
  if (!(tension >= 0 && tension <= ROD_SIM_MAX_INPUT))
    return rod_sim_fail(sim, ROD_EINVAL, "tendon",
                        "the tension must be finite, >= 0 and at most %g N "
                        "(got %g)",
                        ROD_SIM_MAX_INPUT, tension);
  if (sim->sc.tendons.item[i].displacement_file[0])
    return rod_sim_fail(sim, ROD_EINVAL, "tendon",
                        "%s is displacement-controlled: its tension follows "
                        "from displacement_file",
                        name);
  rod_drive old = sim->drive;
  sim->drive.tendon[i] = true;
  sim->drive.tendon_tension[i] = tension;
  return apply_drive(sim, &old);
}

int rod_sim_get_tendon(rod_sim *sim, const char *name, double *tension,
                       double *length) {
  if (!sim)
    return ROD_EINVAL;
  const int i = tendon_index(sim, name);
  if (i < 0)
    return ROD_EINVAL;
  int st = rod_sim_current_sample(sim);
  if (st != ROD_OK)
    return st;
  if (i >= sim->cur.tendons)
    return rod_sim_fail(sim, ROD_EUNSUPPORTED, "solver.backend",
                        "the %s backend gives no tendons", sim->ops->name);
  if (tension)
    *tension = sim->cur.tendon_tension[i];
  if (length)
    *length = sim->cur.tendon_length[i];
  return ROD_OK;
}

/* The world angular velocity (rad/s) that turns h0 into h1 in time dt:
 * the rotation vector of h1 h0^-1 over dt. */
static void angular_velocity(const double h0[4], const double h1[4], double dt,
                             double w[3]) {
  const double c[4] = {h0[0], -h0[1], -h0[2], -h0[3]};
  double d[4];
  quat_mul(d, h1, c);
  if (d[0] < 0) /* the shorter way round */
    for (int i = 0; i < 4; i++)
      d[i] = -d[i];
  double s = v3_norm(d + 1);
  double angle = 2.0 * atan2(s, d[0]);
  double f = s > 0 ? angle / (s * dt) : 2.0 / dt; /* small angles: 2 v */
  v3_scale(w, f, d + 1);
}

int rod_sim_set_base(rod_sim *sim, const double position[3],
                     const double orientation[4], const double velocity[3],
                     const double angular_velocity_world[3]) {
  if (!sim)
    return ROD_EINVAL;
  if (!position || !orientation)
    return rod_sim_fail(sim, ROD_EINVAL, "base",
                        "no position or orientation (NULL)");
  double n = 0;
  for (int i = 0; i < 4; i++)
    n += orientation[i] * orientation[i];
  if (!finite3(position) || !isfinite(n) || !finite3(velocity) ||
      !finite3(angular_velocity_world))
    return rod_sim_fail(sim, ROD_EINVAL, "base", NOT_FINITE, ROD_SIM_MAX_INPUT);
  if (!(fabs(n - 1.0) < 1e-6))
    return rod_sim_fail(
        sim, ROD_EINVAL, "base",
        "orientation must be a unit quaternion w x y z (|h|^2 = %g)", n);
  rod_drive old = sim->drive;
  rod_drive *d = &sim->drive;
  const double dt = sim->sc.time.dt;
  d->base = true;
  copy3(d->base_position, position);
  for (int i = 0; i < 4; i++)
    d->base_orientation[i] = orientation[i] / sqrt(n);
  if (velocity)
    copy3(d->base_velocity, velocity);
  else
    for (int i = 0; i < 3; i++)
      d->base_velocity[i] = (position[i] - sim->base_p[i]) / dt;
  if (angular_velocity_world)
    copy3(d->base_angular_velocity, angular_velocity_world);
  else
    angular_velocity(sim->base_h, d->base_orientation, dt,
                     d->base_angular_velocity);
  return apply_drive(sim, &old);
}
