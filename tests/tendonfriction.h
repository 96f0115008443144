/* The friction example's robot for the tendon friction suites
 * (test_tendon_friction*.c): data/scenarios/tendon_friction.ini on a
 * given grid and time scheme, and the width of the hysteresis loop its
 * motor traces pulling in and letting out. */
#ifndef ROD_TENDONFRICTION_H
#define ROD_TENDONFRICTION_H

#include "core/loads.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "scenarioutil.h"

/* data/scenarios/tendon_friction.ini with friction beta (s/m) on `nodes`
 * points of the integrator integ, with the motor's table csv (written into
 * dir) unless csv is NULL. */
static inline void rod_test_friction_rod(rod_scenario *sc, const char *dir,
                                         const char *csv, double beta,
                                         int nodes, rod_space_kind integ) {
  rod_test_load(sc, "tendon_friction.ini");
  rod_tendon_def *t = &sc->tendons.item[0];
  t->friction = beta;
  sc->space.nodes = nodes;
  sc->space.integrator = integ;
  if (csv) {
    rod_test_write(dir, "dl.csv", csv);
    snprintf(t->displacement_file, sizeof t->displacement_file, "%s/dl.csv",
             dir);
  }
}

/* Its tendon under tension control instead: the table csv (t,T; written
 * into dir), no compliance, no base_to_motor. */
static inline void rod_test_friction_tension(rod_scenario *sc, const char *dir,
                                             const char *csv) {
  rod_tendon_def *t = &sc->tendons.item[0];
  t->displacement_file[0] = 0;
  t->compliance = 0;
  t->base_to_motor = 0;
  rod_test_write(dir, "tension.csv", csv);
  snprintf(t->tension_file, sizeof t->tension_file, "%s/tension.csv", dir);
}

/* The width of a loop: the largest distance of x between its rising
 * branch (lu, xu: nu points, lu increasing) and its falling one (ld, xd:
 * nd points, ld decreasing) at the same l, over 41 values of l in [lo,
 * hi], the branches linear between their points. */
static inline double rod_test_branch_width(const double *lu, const double *xu,
                                           int nu, const double *ld,
                                           const double *xd, int nd, double lo,
                                           double hi) {
  double width = 0;
  for (int g = 0; g <= 40; g++) {
    const double l = lo + (hi - lo) * g / 40.0;
    double a = 0, b = 0;
    for (int i = 0; i + 1 < nu; i++) /* l rises */
      if (lu[i] <= l && l <= lu[i + 1])
        a = xu[i] + (xu[i + 1] - xu[i]) * (l - lu[i]) / (lu[i + 1] - lu[i]);
    for (int i = 0; i + 1 < nd; i++) /* l falls */
      if (ld[i + 1] <= l && l <= ld[i])
        b = xd[i] + (xd[i + 1] - xd[i]) * (l - ld[i]) / (ld[i + 1] - ld[i]);
    width = fmax(width, fabs(a - b));
  }
  return width;
}

/* The loop of the tip's x against the length pulled in: the motor pulls
 * in 16.19 mm over T seconds after 2 s at rest, holds 2 s and lets it out
 * over T; its width is the largest distance of the two branches at the
 * same length (between 10 % and 90 % of the ramp, the branches sampled at
 * the steps and interpolated linearly). On 40 Euler points at 50 ms, by
 * the time scheme `scheme`. */
static inline double rod_test_loop_width(const char *dir,
                                         rod_scheme_kind scheme, double beta,
                                         double T) {
  char csv[256];
  const double D = 0.01619;
  snprintf(csv, sizeof csv,
           "t,dl\n0,0\n2,0\n%.17g,%.17g\n%.17g,%.17g\n%.17g,0\n", 2 + T, D,
           4 + T, D, 4 + 2 * T);
  rod_scenario sc;
  rod_test_friction_rod(&sc, dir, csv, beta, 40, ROD_SPACE_EULER);
  sc.time.scheme = scheme;
  void *self = rod_test_backend(&sc, 0);
  rod_kirchhoff *k = self;
  enum { MAX = 1024 };
  static double xu[MAX], lu[MAX], xd[MAX], ld[MAX];
  int nu = 0, nd = 0;
  const int steps = (int)((4 + 2 * T) / sc.time.dt + 0.5);
  ck_assert(steps < MAX);
  for (int i = 1; i <= steps; i++) {
    const double t = i * sc.time.dt;
    rod_test_step(self, t);
    rod_sample s;
    rod_backend_kirchhoff.sample(self, &s);
    const double dl = rod_tendon_displacement(k->inputs, 0, t);
    const double x = s.position[3 * (s.points - 1)];
    if (t > 2 && t < 2 + T) {
      lu[nu] = dl;
      xu[nu++] = x;
    } else if (t > 4 + T && t < 4 + 2 * T) {
      ld[nd] = dl;
      xd[nd++] = x;
    }
  }
  rod_backend_kirchhoff.destroy(self);
  return rod_test_branch_width(lu, xu, nu, ld, xd, nd, 0.1 * D, 0.9 * D);
}

#endif
