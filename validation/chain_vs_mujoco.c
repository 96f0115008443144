/* The RFEM chain against MuJoCo's hinge chain (docs/validation.md, The
 * chain against MuJoCo; built where libmujoco is found): the same chain of rigid elements, built
 * once by rodsim (solver.backend = rfem) and once as a MuJoCo model (bodies
 * with the elements' masses and inertias, hinge joints with the joints'
 * stiffness E I / l or G J / l and damping B / l), released from rodsim's
 * static state. For each integrator of each program it finds the cheapest
 * setting whose tip stays within the accuracy (default 1 mm) of a converged
 * reference over the run, then times those settings side by side: the
 * runs interleaved, the best of --repeat, the dynamics alone (the model
 * and static state made before the clock starts), no output.
 *
 *   chain_vs_mujoco SCENARIO.ini [--set SECTION.KEY=VALUE]... [--accuracy M]
 *                   [--repeat N]
 *
 * The scenario: a released tip mass or none, no drag, motor, loads or
 * contact, rfem.layout = centered (what the MuJoCo model mirrors). The
 * tip is compared every 10 ms; steps are 10 ms / k. Prints a table. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rod/sim.h"
#include "study.h"

enum { MAX_SAMPLES = 100000 };
static const double SAMPLE = 0.01; /* s between tip comparisons */

typedef struct {
  int samples;
  double *tip; /* samples x 3 */
} trajectory;

static double now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double max_distance(const trajectory *a, const trajectory *b) {
  double e = 0;
  const int n = a->samples < b->samples ? a->samples : b->samples;
  for (int i = 0; i < n; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
      const double d = a->tip[3 * i + k] - b->tip[3 * i + k];
      d2 += d * d;
    }
    if (!(sqrt(d2) <= e))
      e = sqrt(d2);
  }
  return a->samples == b->samples ? e : INFINITY;
}

/* ---- rodsim ------------------------------------------------------------ */

static void set_key(rod_scenario *sc, const char *assignment) {
  rod_error err;
  if (rod_scenario_set(sc, assignment, &err) != ROD_OK) {
    char buf[1024];
    rod_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "chain_vs_mujoco: %s\n", buf);
    exit(2);
  }
}

static rod_sim *rodsim_make(const rod_scenario *sc) {
  rod_sim *sim;
  rod_error err;
  if (rod_sim_create(sc, &sim, &err) != ROD_OK ||
      rod_sim_static(sim) != ROD_OK) {
    fprintf(stderr, "chain_vs_mujoco: rodsim: %s\n", err.message);
    exit(1);
  }
  return sim;
}

/* The tip every SAMPLE s from t = 0 (steps of time.dt dividing it); the
 * dynamics' wall and CPU time in *wall, *cpu. */
static int rodsim_run(const rod_scenario *sc, trajectory *out, double *wall,
                      double *cpu) {
  rod_sim *sim = rodsim_make(sc);
  const int n = rod_sim_points(sim);
  double *pos = malloc(3 * (size_t)n * sizeof(double));
  const int per = (int)lround(SAMPLE / sc->time.dt);
  const int samples = (int)lround(sc->time.duration / SAMPLE) + 1;
  int st = ROD_OK;
  rod_sim_get_positions(sim, pos);
  memcpy(out->tip, pos + 3 * (n - 1), 3 * sizeof(double));
  const double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
  for (int s = 1; s < samples && st == ROD_OK; s++) {
    for (int i = 0; i < per && st == ROD_OK; i++)
      st = rod_sim_step(sim);
    rod_sim_get_positions(sim, pos);
    memcpy(out->tip + 3 * s, pos + 3 * (n - 1), 3 * sizeof(double));
  }
  *wall = now(CLOCK_MONOTONIC) - w0;
  *cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
  out->samples = st == ROD_OK ? samples : 0;
  free(pos);
  rod_sim_free(sim);
  return st;
}

/* ---- the MuJoCo model ---------------------------------------------------- */

/* Rrel = Ra^T Rb of two unit quaternions (w x y z), row-major. */
static void quat_R(const double *q, double R[9]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

static void relative(const double *qa, const double *qb, double E[9]) {
  double A[9], B[9];
  quat_R(qa, A);
  quat_R(qb, B);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      E[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

typedef struct {
  mjModel *m;
  mjData *d;
  int tip_site;
  int nq;
  double qpos0[3 * 1000];
} mj_chain;

/* The chain of sc as MJCF (rfem_build.c's centered layout): body e0, the
 * half element fixed to the clamp, then elements 1..n each on its hinge(s)
 * at its proximal end, the solid cylinder's mass and inertia about its
 * centre; the initial joint angles from rodsim's static state. */
static void mj_build(const rod_scenario *sc, mj_chain *mc) {
  const int n = sc->rfem.segments;
  const bool planar = sc->rfem.planar;
  const int per = planar ? 1 : 3;
  rod_sim *sim = rodsim_make(sc);
  const int np = rod_sim_points(sim);
  double *quat = malloc(4 * (size_t)np * sizeof(double));
  double *pos = malloc(3 * (size_t)np * sizeof(double));
  rod_sim_get_orientations(sim, quat);
  rod_sim_get_positions(sim, pos);
  rod_sim_free(sim);
  if (np != n + 2 || per * n > 3000) {
    fprintf(stderr, "chain_vs_mujoco: not a centered chain\n");
    exit(2);
  }
  const double L = sc->rod.length, l = L / n, dia = sc->rod.diameter;
  const double rhoA = sc->rod.density * M_PI * dia * dia / 4;
  const double I2 = M_PI * pow(dia, 4) / 64;
  const double EI = sc->rod.has_bending_stiffness ? sc->rod.bending_stiffness
                                                  : sc->rod.youngs_modulus * I2;
  const double GJ = sc->rod.shear_modulus * 2 * I2;
  const double tau_r = sc->rod.bending_damping / EI;
  /* the bending axis of the planar chain in the material frame: the
   * relative turn of the static state's first bent element */
  double axis[3] = {0, 1, 0};
  if (planar) {
    double g[3], d[3], a[3], R0[9];
    memcpy(g, sc->environment.gravity, sizeof g);
    memcpy(d, sc->base.direction, sizeof d);
    a[0] = d[1] * g[2] - d[2] * g[1];
    a[1] = d[2] * g[0] - d[0] * g[2];
    a[2] = d[0] * g[1] - d[1] * g[0];
    const double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    quat_R(quat, R0);
    for (int i = 0; i < 3; i++) /* R0^T a */
      axis[i] = (R0[i] * a[0] + R0[3 + i] * a[1] + R0[6 + i] * a[2]) / na;
  }
  size_t cap = 4096 + 1024 * (size_t)n, len = 0;
  char *xml = malloc(cap);
#define OUT(...) len += (size_t)snprintf(xml + len, cap - len, __VA_ARGS__)
  OUT("<mujoco model='rfem_chain'>\n <option gravity='%.17g %.17g %.17g'>\n"
      "  <flag contact='disable'/>\n </option>\n <worldbody>\n",
      sc->environment.gravity[0], sc->environment.gravity[1],
      sc->environment.gravity[2]);
  OUT("  <body name='e0' pos='%.17g %.17g %.17g' quat='%.17g %.17g %.17g "
      "%.17g'>\n",
      sc->base.position[0], sc->base.position[1], sc->base.position[2], quat[0],
      quat[1], quat[2], quat[3]);
  for (int j = 1; j <= n; j++) {
    const double el = j == n ? 0.5 * l : l, prev = j == 1 ? 0.5 * l : l;
    const double mass = rhoA * el;
    const double I1 = mass * (3 * dia * dia + 4 * el * el) / 48;
    const double I3 = mass * dia * dia / 8;
    OUT("%*s<body name='e%d' pos='0 0 %.17g'>\n", j + 2, "", j, prev);
    for (int m = 0; m < per; m++) {
      const double k = m == 2 ? GJ / l : EI / l;
      const double ax[3] = {planar ? axis[0] : m == 0,
                            planar ? axis[1] : m == 1,
                            planar ? axis[2] : m == 2};
      OUT("%*s<joint type='hinge' axis='%.17g %.17g %.17g' stiffness='%.17g' "
          "damping='%.17g'/>\n",
          j + 3, "", ax[0], ax[1], ax[2], k, tau_r * k);
    }
    OUT("%*s<inertial pos='0 0 %.17g' mass='%.17g' diaginertia='%.17g %.17g "
        "%.17g'/>\n",
        j + 3, "", 0.5 * el, mass, I1, I1, I3);
    OUT("%*s<geom type='capsule' fromto='0 0 0 0 0 %.17g' size='%.17g' "
        "contype='0' conaffinity='0'/>\n",
        j + 3, "", el, 0.5 * dia);
    if (j == n)
      OUT("%*s<site name='tip' pos='0 0 %.17g'/>\n", j + 3, "", el);
  }
  for (int j = n; j >= 1; j--)
    OUT("%*s</body>\n", j + 2, "");
  OUT("  </body>\n </worldbody>\n</mujoco>\n");
#undef OUT
  char path[] = "/tmp/chain_vs_mujoco_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, xml, len) != (ssize_t)len) {
    fprintf(stderr, "chain_vs_mujoco: cannot write the model\n");
    exit(1);
  }
  close(fd);
  char error[1000] = "";
  mc->m = mj_loadXML(path, NULL, error, sizeof error);
  unlink(path);
  free(xml);
  if (!mc->m) {
    fprintf(stderr, "chain_vs_mujoco: MuJoCo: %s\n", error);
    exit(1);
  }
  mc->d = mj_makeData(mc->m);
  mc->tip_site = mj_name2id(mc->m, mjOBJ_SITE, "tip");
  mc->nq = mc->m->nq;
  /* joint angles of the static state: element j's turn from element j - 1
   * (point j: element j, point 0 the half element fixed to the clamp) */
  for (int j = 1; j <= n; j++) {
    double E[9];
    relative(quat + 4 * (j - 1), quat + 4 * j, E);
    double *q = mc->qpos0 + per * (j - 1);
    if (planar) {
      const double s =
          0.5 * ((E[7] - E[5]) * axis[0] + (E[2] - E[6]) * axis[1] +
                 (E[3] - E[1]) * axis[2]);
      q[0] = atan2(s, 0.5 * (E[0] + E[4] + E[8] - 1));
    } else { /* E = Rx(a) Ry(b) Rz(c) */
      q[1] = asin(fmax(-1.0, fmin(1.0, E[2])));
      q[0] = atan2(-E[5], E[8]);
      q[2] = atan2(-E[1], E[0]);
    }
  }
  /* the same static tip in both */
  memcpy(mc->d->qpos, mc->qpos0, (size_t)mc->nq * sizeof(double));
  mj_kinematics(mc->m, mc->d);
  const double *tp = mc->d->site_xpos + 3 * mc->tip_site;
  const double *rp = pos + 3 * (np - 1);
  const double gap = sqrt((tp[0] - rp[0]) * (tp[0] - rp[0]) +
                          (tp[1] - rp[1]) * (tp[1] - rp[1]) +
                          (tp[2] - rp[2]) * (tp[2] - rp[2]));
  printf("static tip: rodsim %.9f %.9f %.9f m, MuJoCo's model %.3g m from it\n",
         rp[0], rp[1], rp[2], gap);
  free(quat);
  free(pos);
}

static int mj_run(mj_chain *mc, const rod_scenario *sc, int integrator, int k,
                  trajectory *out, double *wall, double *cpu) {
  mjModel *m = mc->m;
  mjData *d = mc->d;
  mj_resetData(m, d);
  m->opt.integrator = integrator;
  m->opt.timestep = SAMPLE / k;
  memcpy(d->qpos, mc->qpos0, (size_t)mc->nq * sizeof(double));
  const int samples = (int)lround(sc->time.duration / SAMPLE) + 1;
  mj_kinematics(m, d);
  memcpy(out->tip, d->site_xpos + 3 * mc->tip_site, 3 * sizeof(double));
  const double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
  bool finite = true;
  for (int s = 1; s < samples && finite; s++) {
    for (int i = 0; i < k; i++)
      mj_step(m, d);
    mj_kinematics(m, d); /* mj_step leaves the poses of the step's start */
    const double *p = d->site_xpos + 3 * mc->tip_site;
    memcpy(out->tip + 3 * s, p, 3 * sizeof(double));
    finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) &&
             fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e3;
  }
  *wall = now(CLOCK_MONOTONIC) - w0;
  *cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
  out->samples = finite ? samples : 0;
  return finite ? 0 : 1;
}

/* ---- the candidates ---------------------------------------------------- */

typedef struct {
  const char *program, *method;
  int mj_integrator;  /* MuJoCo's, or -1: rodsim */
  const char *rodsim; /* rfem.integrator */
  int k;              /* steps per SAMPLE; rk45: -log10 rtol times 2 */
  double error, wall, cpu;
  long steps;
} candidate;

static void rodsim_setting(const rod_scenario *base, const candidate *c,
                           rod_scenario *sc) {
  *sc = *base;
  char buf[64];
  snprintf(buf, sizeof buf, "rfem.integrator=%s", c->rodsim);
  set_key(sc, buf);
  if (!strcmp(c->rodsim, "rk45")) {
    snprintf(buf, sizeof buf, "rfem.rtol=%.3g", pow(10.0, -0.5 * c->k));
    set_key(sc, buf);
    set_key(sc, "time.dt=0.01");
  } else {
    snprintf(buf, sizeof buf, "time.dt=%.17g", SAMPLE / c->k);
    set_key(sc, buf);
  }
}

static double evaluate(candidate *c, const rod_scenario *base, mj_chain *mc,
                       const trajectory *ref, trajectory *tr) {
  double wall, cpu;
  int st;
  if (c->mj_integrator >= 0) {
    st = mj_run(mc, base, c->mj_integrator, c->k, tr, &wall, &cpu);
  } else {
    rod_scenario sc;
    rodsim_setting(base, c, &sc);
    st = rodsim_run(&sc, tr, &wall, &cpu);
  }
  c->error = st ? INFINITY : max_distance(tr, ref);
  return c->error;
}

/* The fewest steps (or the loosest rtol) within the accuracy: doubling,
 * then bisection on k (the error taken as falling with k). */
static bool cheapest(candidate *c, const rod_scenario *base, mj_chain *mc,
                     const trajectory *ref, trajectory *tr, double accuracy,
                     int kmax) {
  int lo = c->k - 1, hi = c->k; /* lo fails, hi is tried */
  while (evaluate(c, base, mc, ref, tr) > accuracy) {
    lo = hi;
    hi = c->mj_integrator < 0 && !strcmp(c->rodsim, "rk45") ? hi + 1 : 2 * hi;
    if (hi > kmax)
      return false;
    c->k = hi;
  }
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    c->k = mid;
    if (evaluate(c, base, mc, ref, tr) <= accuracy)
      hi = mid;
    else
      lo = mid;
  }
  c->k = hi;
  evaluate(c, base, mc, ref, tr);
  return true;
}

/* MuJoCo's warnings (an unstable step resets its state) stay quiet: an
 * unstable setting shows as its error. */
static void quiet(const char *msg) { (void)msg; }

int main(int argc, char **argv) {
  mju_user_warning = quiet;
  rod_scenario base;
  const char *usage =
      "[--set SECTION.KEY=VALUE]... [--accuracy M] [--repeat N] [--only WHO]";
  if (!study_start(argc, argv, "chain_vs_mujoco", usage, &base))
    return 2;
  double accuracy = 1e-3;
  int repeat = 5;
  const char *only = NULL;
  set_key(&base, "solver.backend=rfem");
  set_key(&base, "time.error_estimate=false");
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc)
      set_key(&base, argv[++i]);
    else if (!strcmp(argv[i], "--accuracy") && i + 1 < argc)
      accuracy = atof(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: chain_vs_mujoco SCENARIO.ini %s\n", usage);
      return 2;
    }
  }
  rod_error err;
  if (rod_scenario_validate(&base, &err) != ROD_OK) {
    char buf[1024];
    rod_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "chain_vs_mujoco: %s\n", buf);
    return 2;
  }
  if (base.rod.drag > 0 || base.motor.enabled || base.impulse.enabled ||
      base.loads.count || base.plane.enabled || base.obstacles.count ||
      base.tendons.count || !base.tip.release ||
      base.rfem.layout != ROD_LAYOUT_CENTERED) {
    fprintf(stderr, "chain_vs_mujoco: the scenario must have no drag, motor, "
                    "impulse, loads, contact or tendons, a released tip mass "
                    "and rfem.layout = centered\n");
    return 2;
  }
  const int samples = (int)lround(base.time.duration / SAMPLE) + 1;
  if (samples > MAX_SAMPLES)
    return 2;
  trajectory ref = {0, malloc(3 * (size_t)samples * sizeof(double))};
  trajectory mref = {0, malloc(3 * (size_t)samples * sizeof(double))};
  trajectory tr = {0, malloc(3 * (size_t)samples * sizeof(double))};
  mj_chain *mc = calloc(1, sizeof *mc);
  mj_build(&base, mc);

  /* the converged references: rodsim's RK45 at rtol 1e-11, MuJoCo's RK4
   * at 10 ms / 4000 (2.5 us); they must agree (the same chain) */
  double wall, cpu;
  candidate refc = {"rodsim", "rk45", -1, "rk45", 22, 0, 0, 0, 0};
  rod_scenario rsc;
  rodsim_setting(&base, &refc, &rsc);
  if (rodsim_run(&rsc, &ref, &wall, &cpu) != ROD_OK)
    return 1;
  mj_run(mc, &base, mjINT_RK4, 4000, &mref, &wall, &cpu);
  double motion = 0;
  for (int i = 0; i < samples; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++)
      d2 += pow(ref.tip[3 * i + k] - ref.tip[k], 2);
    motion = fmax(motion, sqrt(d2));
  }
  printf("references: rodsim rk45 at rtol 1e-11 and MuJoCo RK4 at 2.5 us "
         "differ by at most %.3g m over %g s (the tip moves %.4g m)\n",
         max_distance(&mref, &ref), base.time.duration, motion);

  candidate cand[] = {
      {"MuJoCo", "Euler", mjINT_EULER, NULL, 1, 0, 0, 0, 0},
      {"MuJoCo", "implicit", mjINT_IMPLICIT, NULL, 1, 0, 0, 0, 0},
      {"MuJoCo", "RK4", mjINT_RK4, NULL, 1, 0, 0, 0, 0},
      {"rodsim", "genalpha", -1, "genalpha", 1, 0, 0, 0, 0},
      {"rodsim", "rk45", -1, "rk45", 6, 0, 0, 0, 0},
  };
  const int nc = (int)(sizeof cand / sizeof cand[0]);
  bool found[sizeof cand / sizeof cand[0]];
  for (int c = 0; c < nc; c++) {
    found[c] =
        (!only || strstr(only, cand[c].method)) &&
        cheapest(&cand[c], &base, mc, &ref, &tr, accuracy,
                 cand[c].mj_integrator < 0 && !strcmp(cand[c].rodsim, "rk45")
                     ? 24
                     : 20000);
    cand[c].wall = cand[c].cpu = INFINITY;
  }
  for (int r = 0; r < repeat; r++) /* interleaved: the load hits all alike */
    for (int c = 0; c < nc; c++) {
      if (!found[c])
        continue;
      if (cand[c].mj_integrator >= 0) {
        mj_run(mc, &base, cand[c].mj_integrator, cand[c].k, &tr, &wall, &cpu);
      } else {
        rodsim_setting(&base, &cand[c], &rsc);
        rodsim_run(&rsc, &tr, &wall, &cpu);
      }
      cand[c].wall = fmin(cand[c].wall, wall);
      cand[c].cpu = fmin(cand[c].cpu, cpu);
    }
  double loadavg[3] = {0, 0, 0};
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf %lf %lf", loadavg, loadavg + 1, loadavg + 2) != 3)
      loadavg[0] = -1;
    fclose(f);
  }
  printf("\n%d elements (%s), %g s, tip within %g mm of the reference; best "
         "of %d, interleaved, load average %.1f\n\n",
         base.rfem.segments, base.rfem.planar ? "planar" : "3D",
         base.time.duration, 1e3 * accuracy, repeat, loadavg[0]);
  printf("| program | integrator | setting | tip error (mm) | CPU time (ms) | "
         "wall time (ms) | real-time ratio |\n|---|---|---|---|---|---|---|\n");
  for (int c = 0; c < nc; c++) {
    if (!found[c]) {
      if (!only || strstr(only, cand[c].method))
        printf("| %s | %s | none within %g mm | | | | |\n", cand[c].program,
               cand[c].method, 1e3 * accuracy);
      continue;
    }
    char setting[64];
    if (cand[c].mj_integrator < 0 && !strcmp(cand[c].rodsim, "rk45"))
      snprintf(setting, sizeof setting, "rtol %.3g",
               pow(10.0, -0.5 * cand[c].k));
    else
      snprintf(setting, sizeof setting, "dt %.4g ms", 1e3 * SAMPLE / cand[c].k);
    printf("| %s | %s | %s | %.3f | %.2f | %.2f | %.0fx |\n", cand[c].program,
           cand[c].method, setting, 1e3 * cand[c].error, 1e3 * cand[c].cpu,
           1e3 * cand[c].wall, base.time.duration / cand[c].wall);
  }
  free(ref.tip);
  free(mref.tip);
  free(tr.tip);
  mj_deleteData(mc->d);
  mj_deleteModel(mc->m);
  free(mc);
  return 0;
}
