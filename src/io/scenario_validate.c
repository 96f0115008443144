/* A scenario's checks (rod_scenario_validate), for scenarios loaded and
 * filled in code alike: every key's range rule, then what spans several
 * keys (cross-section, scales, counts, time and output, tip, point loads,
 * the clamp's motion, the contact bodies of scenario_contact.c). */
#include "rod/scenario.h"

#include "scenario_contact.h"
#include "scenario_keys.h"
#include "scenario_tendon.h"
#include "scenario_value.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The range rules of one table checked on the values in base: what the
 * loader checks, for scenarios filled in code. */
static int check_table(const char *base, const char *section,
                       const key_def *keys, size_t n, const char *file,
                       rod_error *err) {
  for (size_t i = 0; i < n; i++) {
    const key_def *k = &keys[i];
    const char *p = base + k->offset;
    char label[160], text[128];
    snprintf(label, sizeof label, "%s.%s", section, k->name);
    double v[3];
    int count = 0;
    switch (k->type) {
    case KEY_DOUBLE:
      v[0] = *(const double *)p;
      count = 1;
      break;
    case KEY_ARCLENGTH:
      if (((const rod_arclength *)p)->tip)
        continue;
      v[0] = ((const rod_arclength *)p)->s;
      count = 1;
      break;
    case KEY_VEC2:
      memcpy(v, p, 2 * sizeof v[0]);
      count = 2;
      break;
    case KEY_VEC3:
      memcpy(v, p, sizeof v);
      count = 3;
      break;
    case KEY_INT_AUTO:
      if (*(const int *)p == 0)
        continue;
      /* fall through */
    case KEY_INT:
      v[0] = *(const int *)p;
      count = 1;
      break;
    case KEY_ENUM: {
      int c = *(const int *)p, nc = 0;
      while (k->choices[nc])
        nc++;
      if (c < 0 || c >= nc)
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "not one of its choices (got %d)", c);
      continue;
    }
    default:
      continue;
    }
    if (k->present_offset && !*(const bool *)(base + k->present_offset))
      continue;
    if (count == 3) {
      char a[32], b[32], c[32];
      rod_format_double(v[0], a, sizeof a);
      rod_format_double(v[1], b, sizeof b);
      rod_format_double(v[2], c, sizeof c);
      snprintf(text, sizeof text, "%s %s %s", a, b, c);
    } else {
      rod_format_double(v[0], text, sizeof text);
    }
    for (int j = 0; j < count; j++)
      if (!isfinite(v[j]))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be a finite number (got %s)", text);
    int st = rod_key_check_range(k, label, v, count, file, text, err);
    if (st != ROD_OK)
      return st;
  }
  return ROD_OK;
}

/* Every key's range, for a scenario set in code as for one loaded. */
static int check_ranges(const rod_scenario *sc, const char *file,
                        rod_error *err) {
  for (size_t i = 0; i < rod_nkeys; i++) {
    const key_def *k = &rod_keys[i];
    bool *flag = rod_optional_flag((rod_scenario *)sc, k->section);
    if ((flag && !*flag) ||
        (k->present_offset &&
         !*(const bool *)((const char *)sc + k->present_offset)))
      continue;
    int st = check_table((const char *)sc, k->section, k, 1, file, err);
    if (st != ROD_OK)
      return st;
  }
  for (size_t f = 0; f < rod_nfamilies; f++) {
    const section_family *fam = &rod_families[f];
    for (int i = 0; i < rod_family_count(sc, fam); i++) {
      const char *item = rod_family_item(sc, fam, i);
      char section[96];
      snprintf(section, sizeof section, "%s.%s", fam->prefix,
               item + fam->name_offset);
      int st = check_table(item, section, fam->keys, fam->nkeys, file, err);
      if (st != ROD_OK)
        return st;
    }
  }
  return ROD_OK;
}

static bool nonzero3(const double v[3]) {
  return v[0] != 0 || v[1] != 0 || v[2] != 0;
}

static void vec_text(const double v[3], char *buf, size_t size) {
  char a[32], b[32], c[32];
  rod_format_double(v[0], a, sizeof a);
  rod_format_double(v[1], b, sizeof b);
  rod_format_double(v[2], c, sizeof c);
  snprintf(buf, size, "%s %s %s", a, b, c);
}

/* The cross-section, precurvature and drag keys that depend on each
 * other. */
static int check_geometry(const rod_scenario *sc, const char *file,
                          rod_error *err) {
  char v[96], w[32];
  if (!(sc->rod.inner_diameter < sc->rod.diameter)) {
    rod_format_double(sc->rod.inner_diameter, v, sizeof v);
    rod_format_double(sc->rod.diameter, w, sizeof w);
    return rod_error_set(err, ROD_EINVAL, file, "rod.inner_diameter",
                         "must be < rod.diameter = %s (got %s)", w, v);
  }
  if (sc->rod.precurvature_file[0] && nonzero3(sc->rod.precurvature)) {
    vec_text(sc->rod.precurvature, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rod.precurvature",
                         "give rod.precurvature or rod.precurvature_file, "
                         "not both (got %s and %s)",
                         v, sc->rod.precurvature_file);
  }
  if (sc->rod.drag_model == ROD_DRAG_PAPER && sc->rod.drag_tangential != 0) {
    rod_format_double(sc->rod.drag_tangential, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rod.drag_tangential",
                         "applies to rod.drag_model = normal only; paper uses "
                         "rod.drag along every material axis (got %s)",
                         v);
  }
  return ROD_OK;
}

/* A positive finite quantity derived from the keys (an area, a stiffness,
 * a frequency), or the key responsible named with why it cannot be: a
 * value that a double overflows or underflows to 0 (a diameter of 1e-200 m
 * has no representable area) makes every later number meaningless. */
static int derived(double value, const char *what, const char *key,
                   double given, const char *file, rod_error *err) {
  if (isfinite(value) && value > 0)
    return ROD_OK;
  char g[64];
  rod_format_double(given, g, sizeof g);
  return rod_error_set(err, ROD_EINVAL, file, key,
                       "%s %s: no number a double holds (got %s)", what,
                       value == 0 ? "underflows to 0" : "overflows", g);
}

/* The rod's section, stiffness, mass and first bending frequency (m^2,
 * N m^2, kg/m, rad/s: omega_1 = (1.875 / L)^2 sqrt(EI / (rho A)) of the
 * cantilever) must be positive finite numbers. */
static int check_scale(const rod_scenario *sc, const char *file,
                       rod_error *err) {
  const double d = sc->rod.diameter, di = sc->rod.inner_diameter;
  const double area = M_PI * (d * d - di * di) / 4.0;
  const double second = M_PI * (d * d * d * d - di * di * di * di) / 64.0;
  const double ei = sc->rod.has_bending_stiffness
                        ? sc->rod.bending_stiffness
                        : sc->rod.youngs_modulus * second;
  const double gj = sc->rod.shear_modulus * 2.0 * second;
  const double rho_a = sc->rod.density * area;
  const double k = 1.875 / sc->rod.length;
  const double omega = k * k * sqrt(ei / rho_a);
  int st;
  if ((st = derived(area, "the section's area pi (d^2 - d_i^2) / 4",
                    "rod.diameter", d, file, err)) != ROD_OK ||
      (st = derived(second, "the section's second moment", "rod.diameter", d,
                    file, err)) != ROD_OK ||
      (st = derived(ei, "the bending stiffness",
                    sc->rod.has_bending_stiffness ? "rod.bending_stiffness"
                                                  : "rod.youngs_modulus",
                    sc->rod.has_bending_stiffness ? sc->rod.bending_stiffness
                                                  : sc->rod.youngs_modulus,
                    file, err)) != ROD_OK ||
      (st = derived(gj, "the torsional stiffness", "rod.shear_modulus",
                    sc->rod.shear_modulus, file, err)) != ROD_OK ||
      (st = derived(rho_a, "the mass per length", "rod.density",
                    sc->rod.density, file, err)) != ROD_OK ||
      (st = derived(omega, "the first bending frequency", "rod.length",
                    sc->rod.length, file, err)) != ROD_OK)
    return st;
  return ROD_OK;
}

/* Steps and samples are counted in int: a run of more is refused, with
 * the count (time.duration 1e300 s would otherwise run no step at all). */
static int check_counts(const rod_scenario *sc, const char *file,
                        rod_error *err) {
  const double steps = sc->time.duration / sc->time.dt;
  if (!(steps < INT_MAX - 2))
    return rod_error_set(err, ROD_EINVAL, file, "time.duration",
                         "%.3g s at time.dt = %.3g s is %.3g steps, more than "
                         "a run can count (%d): use a larger time.dt or a "
                         "shorter time.duration",
                         sc->time.duration, sc->time.dt, steps, INT_MAX - 3);
  if (sc->output.has_interval) {
    const double samples = sc->time.duration / sc->output.interval;
    if (!(samples < INT_MAX - 2))
      return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                           "%.3g s over time.duration = %.3g s is %.3g "
                           "samples, more than a file can count (%d)",
                           sc->output.interval, sc->time.duration, samples,
                           INT_MAX - 3);
  }
  return ROD_OK;
}

/* The time scheme, step-size control and output times. */
static int validate_time(const rod_scenario *sc, const char *file,
                         rod_error *err) {
  char v[64];
  const bool dirk = sc->time.scheme != ROD_SCHEME_BDF_ALPHA;
  const bool kirchhoff = sc->solver.backend == ROD_BACKEND_KIRCHHOFF;
  if (dirk && !kirchhoff)
    return rod_error_set(err, ROD_EINVAL, file, "time.scheme",
                         "applies to the kirchhoff backend; rfem integrates "
                         "with rfem.integrator (got solver.backend = rfem)");
  if (dirk && sc->space.history != ROD_HISTORY_AUTO &&
      sc->space.history != ROD_HISTORY_STAGE)
    return rod_error_set(err, ROD_EINVAL, file, "space.history",
                         "the Runge-Kutta schemes keep a record per stage: "
                         "use auto or stage with time.scheme != bdf-alpha");
  if (sc->time.has_tolerance && kirchhoff && !dirk)
    return rod_error_set(err, ROD_EINVAL, file, "time.tolerance",
                         "needs a scheme with an error estimate: time.scheme "
                         "= esdirk3, esdirk4, sdirk4 or esdirk5 (got "
                         "bdf-alpha)");
  if (sc->time.has_tolerance && !kirchhoff &&
      sc->rfem.integrator != ROD_RFEM_GENALPHA)
    return rod_error_set(err, ROD_EINVAL, file, "time.tolerance",
                         "applies to rfem.integrator = genalpha (rk45 has "
                         "rfem.tolerance)");
  if (sc->output.has_interval && (sc->plane.enabled || sc->obstacles.count > 0))
    return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                         "contact forces between steps cannot be "
                         "interpolated: use output.every with contact");
  if (sc->output.has_interval && sc->output.every > 1) {
    snprintf(v, sizeof v, "%d", sc->output.every);
    return rod_error_set(err, ROD_EINVAL, file, "output.interval",
                         "give output.every or output.interval, not both "
                         "(output.every = %s)",
                         v);
  }
  return ROD_OK;
}

/* The attached tip body's keys mean nothing for a released mass. */
static int check_tip(const rod_scenario *sc, const char *file, rod_error *err) {
  char v[96];
  const struct {
    const char *key;
    const double *value;
  } body[] = {{"tip.inertia", sc->tip.inertia}, {"tip.offset", sc->tip.offset}};
  for (int i = 0; i < 2; i++)
    if (sc->tip.release && nonzero3(body[i].value)) {
      vec_text(body[i].value, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, body[i].key,
                           "describes a body attached to the tip: needs "
                           "tip.release = false (got %s)",
                           v);
    }
  return ROD_OK;
}

/* A [load.NAME]: on the rod, and either constant with a ramp or
 * tabulated. */
static int check_load(const rod_scenario *sc, const rod_load_def *l,
                      const char *file, rod_error *err) {
  char label[96], v[96];
  snprintf(label, sizeof label, "load.%s.position", l->name);
  if (!l->position.tip && l->position.s > sc->rod.length) {
    rod_format_double(l->position.s, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  const struct {
    const char *key, *file_key;
    const double *value;
    const char *path;
  } part[] = {{"force", "force_file", l->force, l->force_file},
              {"moment", "moment_file", l->moment, l->moment_file}};
  for (int i = 0; i < 2; i++) {
    if (!part[i].path[0])
      continue;
    if (nonzero3(part[i].value)) {
      snprintf(label, sizeof label, "load.%s.%s", l->name, part[i].key);
      vec_text(part[i].value, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "give %s or %s, not both (got %s and %s)",
                           part[i].key, part[i].file_key, v, part[i].path);
    }
    if (l->ramp != 0) {
      snprintf(label, sizeof label, "load.%s.ramp", l->name);
      rod_format_double(l->ramp, v, sizeof v);
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "applies to a constant force and moment, not to "
                           "%s (got %s)",
                           part[i].file_key, v);
    }
  }
  return ROD_OK;
}

/* The clamp moved along a table: not together with the motor's own motion
 * of the clamp. */
static int check_base_motion(const rod_scenario *sc, const char *file,
                             rod_error *err) {
  if (!sc->base.motion_file[0])
    return ROD_OK;
  if (sc->motor.enabled)
    return rod_error_set(err, ROD_EINVAL, file, "base.motion_file",
                         "moves the clamp, as [motor] does: give one of them "
                         "(got %s with [motor])",
                         sc->base.motion_file);
  return ROD_OK;
}

int rod_scenario_validate(const rod_scenario *sc, rod_error *err) {
  const char *file = sc->source[0] ? sc->source : "scenario";
  char v[64];
  int st = check_ranges(sc, file, err);
  if (st != ROD_OK)
    return st;
  if (sc->impulse.enabled && sc->impulse.position > sc->rod.length) {
    rod_format_double(sc->impulse.position, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "impulse.position",
                         "must be within the rod, <= rod.length (got %s)", v);
  }
  if (sc->rfem.joint == ROD_JOINT_MAXWELL && !(sc->rfem.maxwell_time > 0)) {
    rod_format_double(sc->rfem.maxwell_time, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "rfem.maxwell_time",
                         "must be > 0 for maxwell joints (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.kp > 0 &&
      sc->solver.backend == ROD_BACKEND_KIRCHHOFF) {
    rod_format_double(sc->motor.kp, v, sizeof v);
    return rod_error_set(
        err, ROD_EINVAL, file, "motor.kp",
        "a PD-driven motor (kp > 0) needs solver.backend = rfem (got %s)", v);
  }
  if (sc->motor.enabled && sc->motor.control == ROD_MOTOR_COMPUTED_TORQUE &&
      !(sc->motor.kp > 0))
    return rod_error_set(err, ROD_EINVAL, file, "motor.control",
                         "computed_torque drives a joint: it needs motor.kp "
                         "> 0 (the clamp follows the reference exactly at 0)");
  if (sc->motor.enabled && sc->motor.kp > 0 && !(sc->motor.inertia > 0) &&
      sc->solver.backend == ROD_BACKEND_RFEM) {
    /* a massless rotor under PD is a stiff constraint the chain cannot
     * integrate; the default inertia 0 only suits kp = 0 */
    rod_format_double(sc->motor.inertia, v, sizeof v);
    return rod_error_set(err, ROD_EINVAL, file, "motor.inertia",
                         "must be > 0 when motor.kp > 0 (got %s)", v);
  }
  if ((st = check_geometry(sc, file, err)) != ROD_OK ||
      (st = check_scale(sc, file, err)) != ROD_OK ||
      (st = check_counts(sc, file, err)) != ROD_OK ||
      (st = check_tip(sc, file, err)) != ROD_OK)
    return st;
  for (int i = 0; i < sc->loads.count; i++)
    if ((st = check_load(sc, &sc->loads.item[i], file, err)) != ROD_OK)
      return st;
  if ((st = check_base_motion(sc, file, err)) != ROD_OK ||
      (st = validate_time(sc, file, err)) != ROD_OK)
    return st;
  if ((st = rod_scenario_check_tendons(sc, file, err)) != ROD_OK)
    return st;
  return rod_scenario_check_contact(sc, file, err);
}
