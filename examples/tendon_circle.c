/* Closed-loop control of a tendon-driven continuum robot (docs/tendons.md,
 * "Closed-loop control"): the tip of the four-tendon robot of
 * data/scenarios/tendon_statics.ini follows a circle of 5 cm radius, 2 s a
 * turn, about its rest position, in a dynamic run (the bending damping and
 * air drag of the public dynamics example of Till, Aloi & Rucker 2019,
 * steps of 5 ms). Each step the tensions come from the model:
 *
 *   - the model: the tip's static position f(T) (x, y: the circle's plane)
 *     from a second simulation of the robot that only solves its static
 *     state, every 50 ms at the tensions then, and its Jacobian J = df/dT,
 *     by forward differences every 0.5 s and by Broyden's secant update in
 *     between; between renewals the linear model f(T_j) + J (T - T_j);
 *   - inverse statics: the next step's tensions solve model(T) = q by the
 *     minimum-norm step T += J^+ (q - model(T)), where q is the target at
 *     the step's end, plus the rod's first-mode lag (a / w1^2 + 2 zeta v /
 *     w1: the quasi-static tip that leads the tip along the target, from
 *     the cantilever's first mode w1 and its Kelvin-Voigt damping ratio
 *     zeta), plus the integral of the tip's error times K = zeta w1 (gain
 *     margin 2 on the first mode);
 *   - pull only: the two tendons of an antagonistic pair (Jacobian columns
 *     opposite) differ by what the step asks and the slacker one is at 0 N
 *     (equal tensions on a pair move the tip along the rod only).
 *
 * usage: tendon_circle [SCENARIO] [-o OUT.h5] [--turns N] [--radius R]
 *                      [--period P] [--statics-only]
 * It prints the tracking error (RMS and largest, m) on the circle after a
 * lead-in of one turn (the radius grows from 0 by a quintic), and the
 * real-time ratio. cc tendon_circle.c $(pkg-config --cflags --libs rod) */
#include <math.h>
#include <rod/rod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NT = ROD_MAX_TENDONS };

typedef struct {
  double centre[2], radius, period; /* m, m, s */
} circle;

/* The target at time t (s): position, velocity and acceleration in the
 * circle's plane (m, m/s, m/s^2); the radius grows over the first turn by
 * 10 x^3 - 15 x^4 + 6 x^5 (zero velocity and acceleration at its ends). */
static void target(const circle *c, double t, double p[2], double v[2],
                   double a[2]) {
  const double w = 2 * M_PI / c->period, x = fmin(t / c->period, 1.0);
  const double in = x < 1.0, tl = c->period;
  const double r = c->radius * x * x * x * (10 - 15 * x + 6 * x * x);
  const double r1 = in * c->radius * 30 * x * x * (1 - x) * (1 - x) / tl;
  const double r2 = in * c->radius * 60 * x * (1 - x) * (1 - 2 * x) / tl / tl;
  const double u[2] = {cos(w * t), sin(w * t)}, n[2] = {-u[1], u[0]};
  for (int i = 0; i < 2; i++) {
    p[i] = c->centre[i] + r * u[i];
    v[i] = r1 * u[i] + r * w * n[i];
    a[i] = r2 * u[i] + 2 * r1 * w * n[i] - r * w * w * u[i];
  }
}

/* The model: a simulation of the robot that takes no step and has no
 * sink, so it solves its static state again at each call, and the linear
 * model f + J (T' - T) of its tip (x, y) about the tensions T. */
typedef struct {
  rod_sim *sim;
  const rod_scenario *sc;
  int nt, solves;
  double *xyz;                   /* its points x 3 */
  double T[NT], f[2], J[2 * NT]; /* N, m, m/N (row-major, 2 x nt) */
  double miss;                   /* m: the largest |f(T') - linear model| */
} model;

/* The static tip (m) under the tensions T. */
static int model_tip(model *m, const double *T, double tip[3]) {
  for (int i = 0; i < m->nt; i++)
    rod_sim_set_tendon(m->sim, m->sc->tendons.item[i].name, T[i]);
  m->solves++;
  if (rod_sim_static(m->sim) != ROD_OK ||
      rod_sim_get_positions(m->sim, m->xyz) != ROD_OK)
    return fprintf(stderr, "model: %s\n", rod_sim_error(m->sim)), 1;
  memcpy(tip, m->xyz + 3 * (rod_sim_points(m->sim) - 1), 3 * sizeof *tip);
  return 0;
}

/* The linear model's tip at T (m). */
static void model_predict(const model *m, const double *T, double p[2]) {
  p[0] = m->f[0], p[1] = m->f[1];
  for (int j = 0; j < m->nt; j++) {
    p[0] += m->J[j] * (T[j] - m->T[j]);
    p[1] += m->J[m->nt + j] * (T[j] - m->T[j]);
  }
}

/* The model renewed at T: f = f(T), with J by forward differences of 0.01
 * N (the tip is near linear in the tensions: the truncation is 1e-5 of J,
 * the static solves' tolerance 1e-6 of it) when jacobian, else by
 * Broyden's update, the secant along T - T_j. The first call sets J. */
static int model_renew(model *m, const double *T, bool jacobian) {
  double tip[3], p[2], dT[NT], dd = 0;
  model_predict(m, T, p);
  if (model_tip(m, T, tip))
    return 1;
  const double miss[2] = {tip[0] - p[0], tip[1] - p[1]};
  if (m->solves > 1)
    m->miss = fmax(m->miss, hypot(miss[0], miss[1]));
  for (int j = 0; j < m->nt; j++)
    dT[j] = T[j] - m->T[j], dd += dT[j] * dT[j];
  for (int j = 0; j < m->nt && !jacobian && dd > 0; j++) {
    m->J[j] += miss[0] * dT[j] / dd;
    m->J[m->nt + j] += miss[1] * dT[j] / dd;
  }
  m->f[0] = tip[0], m->f[1] = tip[1];
  memcpy(m->T, T, (size_t)m->nt * sizeof *T);
  for (int i = 0; i < m->nt && jacobian; i++) {
    const double h = 0.01;
    double Th[NT];
    memcpy(Th, T, (size_t)m->nt * sizeof *T);
    Th[i] += h;
    if (model_tip(m, Th, tip))
      return 1;
    m->J[i] = (tip[0] - m->f[0]) / h;
    m->J[m->nt + i] = (tip[1] - m->f[1]) / h;
  }
  return 0;
}

/* dT = J^+ w = J^T (J J^T)^-1 w: the smallest change of the tensions that
 * moves the linear model's tip by w. */
static void min_norm_step(const double *J, int nt, const double w[2],
                          double *dT) {
  double a = 0, b = 0, d = 0;
  for (int i = 0; i < nt; i++) {
    a += J[i] * J[i];
    b += J[i] * J[nt + i];
    d += J[nt + i] * J[nt + i];
  }
  const double det = a * d - b * b;
  const double y0 = (d * w[0] - b * w[1]) / det;
  const double y1 = (a * w[1] - b * w[0]) / det;
  for (int i = 0; i < nt; i++)
    dT[i] = J[i] * y0 + J[nt + i] * y1;
}

/* Each tendon's antagonist: the tendon whose Jacobian column is most
 * opposite to its own (cosine below -0.9), or -1. */
static void antagonists(const double *J, int nt, int *pair) {
  for (int i = 0; i < nt; i++) {
    double best = -0.9;
    pair[i] = -1;
    for (int j = 0; j < nt; j++) {
      const double c = (J[i] * J[j] + J[nt + i] * J[nt + j]) /
                       (hypot(J[i], J[nt + i]) * hypot(J[j], J[nt + j]));
      if (j != i && c < best)
        best = c, pair[i] = j;
    }
  }
}

/* Pull only: a pair's slacker tendon to 0 N, the other less by as much (an
 * unpaired tendon: at least 0 N). */
static void pull_only(double *T, const int *pair, int nt) {
  for (int i = 0; i < nt; i++) {
    const int o = pair[i];
    const double m = o < 0 ? fmin(T[i], 0) : fmin(T[i], T[o]);
    T[i] -= m;
    if (o >= 0)
      T[o] -= m;
  }
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* OpenBLAS's server threads spin beside the solver's small matrices: one
 * thread, as rodsim does (docs/numerics.md); weak, for other BLAS. */
void openblas_set_num_threads(int num_threads) __attribute__((weak));

int main(int argc, char **argv) {
  const char *path = "data/scenarios/tendon_statics.ini", *out = NULL;
  const double dt = 5e-3, every = 0.05; /* s: the step, the model's renewal */
  double turns = 2;
  circle c = {{0, 0}, 0.05, 2.0};
  int lag = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--turns") && i + 1 < argc)
      turns = atof(argv[++i]);
    else if (!strcmp(argv[i], "--radius") && i + 1 < argc)
      c.radius = atof(argv[++i]);
    else if (!strcmp(argv[i], "--period") && i + 1 < argc)
      c.period = atof(argv[++i]);
    else if (!strcmp(argv[i], "--statics-only"))
      lag = 0;
    else if (argv[i][0] != '-')
      path = argv[i];
    else
      return fprintf(stderr, "tendon_circle: unknown option %s\n", argv[i]), 2;
  }
  if (!(turns > 0 && c.radius > 0 && c.period > 0))
    return fprintf(stderr, "tendon_circle: --turns, --radius and --period "
                           "must be > 0\n"),
           2;
  if (openblas_set_num_threads)
    openblas_set_num_threads(1);

  /* The robot in a dynamic run: its scenario with the damping (N m^2 s)
   * and drag (kg/m^2) of the public dynamics example, steps of dt */
  const double t_end = c.period * (1 + turns);
  char dts[32], ends[32];
  snprintf(dts, sizeof dts, "%.17g", dt);
  snprintf(ends, sizeof ends, "%.17g", t_end);
  rod_scenario *sc = rod_scenario_new();
  rod_error err;
  if (!sc || rod_scenario_load(sc, path, &err) ||
      rod_scenario_set_key(sc, "time", "dt", dts, &err) ||
      rod_scenario_set_key(sc, "time", "duration", ends, &err) ||
      rod_scenario_set_key(sc, "time", "error_estimate", "false", &err) ||
      rod_scenario_set_key(sc, "rod", "bending_damping", "5e-4", &err) ||
      rod_scenario_set_key(sc, "rod", "drag", "1e-4", &err) ||
      rod_scenario_set_key(sc, "space", "nodes", "auto", &err))
    return fprintf(stderr, "%s: %s: %s\n", err.file, err.key, err.message), 2;
  const int nt = sc->tendons.count;
  if (nt < 2)
    return fprintf(stderr, "%s: needs two tendons or more\n", path), 2;

  /* The cantilever's first mode (Euler-Bernoulli, rad/s), its damping
   * ratio (Kelvin-Voigt: B w1 / 2 EI) and the loop's gain (1/s) */
  const double d = sc->rod.diameter, di = sc->rod.inner_diameter;
  const double L = sc->rod.length,
               rhoA = sc->rod.density * M_PI / 4 * (d * d - di * di);
  const double EI =
      sc->rod.has_bending_stiffness
          ? sc->rod.bending_stiffness
          : sc->rod.youngs_modulus * M_PI / 64 * (pow(d, 4) - pow(di, 4));
  const double w1 = 1.8751040687 * 1.8751040687 * sqrt(EI / rhoA) / (L * L);
  const double zeta = sc->rod.bending_damping * w1 / (2 * EI);
  const double K = zeta * w1;

  rod_sim *sim;
  model m = {.sc = sc, .nt = nt};
  if (rod_sim_create(sc, &sim, &err) || rod_sim_create(sc, &m.sim, &err))
    return fprintf(stderr, "%s: %s: %s\n", err.file, err.key, err.message), 2;
  const int n = rod_sim_points(sim);
  double *xyz = malloc(3 * (size_t)n * sizeof *xyz);
  m.xyz = malloc(3 * (size_t)rod_sim_points(m.sim) * sizeof *m.xyz);
  if (!xyz || !m.xyz)
    return fputs("tendon_circle: out of memory\n", stderr), 1;
  double T[NT] = {0}, z[2] = {0, 0}, Tmax = 0, model_wall = 0;
  int pair[NT];
  for (int i = 0; i < nt; i++)
    rod_sim_set_tendon(sim, sc->tendons.item[i].name, 0.0);
  if ((out && rod_sim_open_output(sim, out)) || rod_sim_static(sim) ||
      rod_sim_get_positions(sim, xyz))
    return fprintf(stderr, "%s\n", rod_sim_error(sim)), 1;
  const double *tip = xyz + 3 * (n - 1);
  c.centre[0] = tip[0], c.centre[1] = tip[1];

  const int steps = (int)lround(t_end / dt), renew = (int)lround(every / dt);
  double sum2 = 0, emax = 0, lead = 0, zmin = INFINITY, zmax = -INFINITY;
  int tracked = 0;
  const double wall0 = seconds();
  const clock_t cpu0 = clock();
  for (int k = 0; k < steps; k++) {
    const double t = k * dt;
    double p[2], v[2], a[2], q[2], e[2], dT[NT];
    target(&c, t, p, v, a);
    e[0] = p[0] - tip[0], e[1] = p[1] - tip[1];
    if (k % renew == 0) { /* the model at the tensions now */
      const double w0 = seconds();
      if (model_renew(&m, T, k % (10 * renew) == 0))
        return 1;
      if (k == 0)
        antagonists(m.J, nt, pair);
      model_wall += seconds() - w0;
    }
    /* the quasi-static tip to ask for at the step's end, less the model's */
    target(&c, t + dt, p, v, a);
    model_predict(&m, T, q);
    for (int i = 0; i < 2; i++) {
      z[i] += K * dt * e[i];
      q[i] =
          p[i] + z[i] - q[i] + lag * (a[i] / (w1 * w1) + 2 * zeta * v[i] / w1);
    }
    min_norm_step(m.J, nt, q, dT);
    for (int i = 0; i < nt; i++)
      T[i] += dT[i];
    pull_only(T, pair, nt);
    for (int i = 0; i < nt; i++) {
      rod_sim_set_tendon(sim, sc->tendons.item[i].name, T[i]);
      Tmax = fmax(Tmax, T[i]);
    }
    if (rod_sim_step(sim) || rod_sim_get_positions(sim, xyz))
      return fprintf(stderr, "%s\n", rod_sim_error(sim)), 1;
    const double now = hypot(p[0] - tip[0], p[1] - tip[1]);
    zmin = fmin(zmin, tip[2]), zmax = fmax(zmax, tip[2]);
    if (t + dt < c.period * (1 - 1e-9)) {
      lead = fmax(lead, now);
    } else {
      sum2 += now * now, emax = fmax(emax, now);
      tracked++;
    }
  }
  const double wall = seconds() - wall0;
  const double cpu = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
  if (out && rod_sim_close_output(sim, NULL))
    return fprintf(stderr, "%s\n", rod_sim_error(sim)), 1;

  printf("tendon_circle: %s, %d tendons, %d nodes, dt %g s, %s\n", path, nt, n,
         dt, lag ? "first-mode lag fed forward" : "statics only");
  printf("circle: radius %g m about (%.6f, %.6f) m, %g s a turn, %g turns "
         "after a lead-in of one\n",
         c.radius, c.centre[0], c.centre[1], c.period, turns);
  printf("loop: K = %.4g 1/s, first mode %.4g rad/s, damping ratio %.4g\n", K,
         w1, zeta);
  printf("tracking error (the tip in the circle's plane): rms %.4g m, max "
         "%.4g m on the circle; max %.4g m in the lead-in\n",
         sqrt(sum2 / tracked), emax, lead);
  printf("model: %d static solves, the linear model off by at most %.3g m "
         "at a renewal\n",
         m.solves, m.miss);
  printf("tensions 0 to %.4g N; tip height %.6f to %.6f m\n", Tmax, zmin, zmax);
  printf("real time: %g s simulated in %.3f s, real-time ratio %.2f (CPU "
         "%.3f s; %.0f %% of the time in the model)\n",
         t_end, wall, t_end / wall, cpu, 100 * model_wall / wall);
  free(xyz);
  free(m.xyz);
  rod_sim_free(m.sim);
  rod_sim_free(sim);
  rod_scenario_free(sc);
  return 0;
}
