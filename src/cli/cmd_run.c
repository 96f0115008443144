/* rodsim run / rodsim static: simulate and log to HDF5. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rod/logger.h"
#include "rod/sim.h"

static const char *run_help =
    "usage: rodsim run SCENARIO.ini [-o OUT.h5] [--set SECTION.KEY=VALUE]... "
    "[--quiet]\n\n"
    "Solves the static initial state (t = 0), then simulates time.duration\n"
    "seconds in steps of time.dt, writing the HDF5 file of docs/hdf5.md\n"
    "(output.file, or OUT.h5), and prints one line: steps, wall time, the\n"
    "real-time ratio (simulated time / wall time of the whole run, writing\n"
    "the file included) and the solver's effort. Exit status: 0 complete,\n"
    "1 the solver failed (every converged step is kept), 2 bad input.\n";

static const char *static_help =
    "usage: rodsim static SCENARIO.ini [-o OUT.h5] [--set "
    "SECTION.KEY=VALUE]...\n\n"
    "Solves the static equilibrium (the t = 0 state of run) and writes it as\n"
    "a one-sample HDF5 file; prints the tip position and the clamp "
    "reaction.\n";

typedef struct {
  rod_sim_sink logger;
  bool show;
} progress_sink;

static int ps_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  progress_sink *p = user;
  return p->logger.sample(p->logger.user, t, s, st, wall);
}
static int ps_tick(void *user) {
  progress_sink *p = user;
  return p->logger.tick(p->logger.user);
}
static void ps_progress(void *user, double t, double t_end, int steps,
                        double wall) {
  progress_sink *p = user;
  if (!p->show)
    return;
  double rate = steps / wall;
  double eta = t > 0 ? wall * (t_end - t) / t : 0;
  fprintf(stderr, "\rrodsim: t = %.4f / %.4f s  %.0f steps/s  ETA %.1f s   ", t,
          t_end, rate, eta);
  fflush(stderr);
}

/* Capture the last static sample for the summary of `rodsim static`. */
typedef struct {
  progress_sink *inner;
  double tip[3], force0[3], moment0[3];
  int points;
} static_capture;

static int sc_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  static_capture *c = user;
  c->points = s->points;
  memcpy(c->tip, s->position + 3 * (s->points - 1), sizeof c->tip);
  if (s->force) {
    memcpy(c->force0, s->force, sizeof c->force0);
    memcpy(c->moment0, s->moment, sizeof c->moment0);
  }
  return ps_sample(c->inner, t, s, st, wall);
}

static int run_common(int argc, char **argv, bool static_only) {
  cli_common c = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(static_only ? static_help : run_help, stdout);
      return CLI_OK;
    }
    int r = cli_common_arg(&c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("%s: unknown option '%s'", static_only ? "static" : "run",
               argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  rod_scenario sc;
  int rc = cli_load(&c, &sc);
  if (rc != CLI_OK)
    return rc;
  cli_warn_sampling(&sc);
  rod_error err = {{0}, {0}, {0}, 0};
  rod_sim *sim;
  if (rod_sim_create(&sc, &sim, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  const char *backend = rod_sim_backend(sim);
  rod_logger *lg;
  if (rod_logger_open(&lg, sc.output.file, &sc, backend, &err) != ROD_OK) {
    cli_print_error(&err);
    rod_sim_free(sim);
    return CLI_BAD_INPUT;
  }
  progress_sink ps = {rod_logger_sink(lg), isatty(2) && !c.quiet};
  static_capture cap = {.inner = &ps};
  rod_sim_sink sink = {.sample = static_only ? sc_sample : ps_sample,
                       .tick = ps_tick,
                       .progress = ps_progress,
                       .user = static_only ? (void *)&cap : (void *)&ps};
  rod_sim_set_sink(sim, &sink);
  int st = rod_sim_static(sim);
  if (st == ROD_OK && !static_only)
    st = rod_sim_advance_to(sim, sc.time.duration);
  int fst = rod_sim_flush(sim); /* the last step, also after a stop */
  if (st == ROD_OK)
    st = fst;
  rod_sim_result res;
  rod_sim_get_result(sim, &res);
  if (st != ROD_OK && !res.message[0])
    rod_sim_get_error(sim, &err);
  rod_sim_free(sim);
  if (ps.show)
    fputs("\r\033[K", stderr);
  char status[sizeof err.message];
  if (st == ROD_OK)
    snprintf(status, sizeof status, "complete");
  else
    snprintf(status, sizeof status, "%s",
             res.message[0] ? res.message : err.message);
  int cst = rod_logger_close(lg, status);
  if (res.statics.stable == 1 && res.statics.note[0])
    fprintf(stderr, "rodsim: %s: static state: %s\n", sc.source,
            res.statics.note);
  if (res.energy_grew) {
    char hint[160];
    if (sc.solver.backend == ROD_BACKEND_RFEM)
      snprintf(hint, sizeof hint,
               "try a smaller time.dt or rfem.integrator = "
               "rk45");
    else if (sc.space.integrator == ROD_SPACE_EULER)
      snprintf(hint, sizeof hint,
               "space.integrator = euler, %d nodes, time.alpha = %g: try "
               "rk4, more nodes or alpha closer to 0",
               sc.space.nodes, sc.time.alpha);
    else
      snprintf(hint, sizeof hint,
               "space.integrator = rk4, %d nodes, time.alpha = %g: try more "
               "nodes or alpha closer to 0",
               sc.space.nodes, sc.time.alpha);
    fprintf(stderr,
            "rodsim: %s: warning: with nothing working on the rod its energy "
            "grew from %.4g J to %.4g J by t = %.6g s, so the discretisation "
            "creates energy here (%s)\n",
            sc.source, res.energy_before, res.energy_after, res.energy_time,
            hint);
  }
  if (st == ROD_OK && cst != ROD_OK) {
    cli_fail("%s: output.file: cannot write %s (%s)", sc.source, sc.output.file,
             rod_strerror(cst));
    return CLI_FAILED;
  }
  if (st != ROD_OK) {
    if (err.message[0] && !res.message[0]) {
      cli_print_error(&err);
      return st == ROD_EINVAL ? CLI_BAD_INPUT : CLI_FAILED;
    }
    cli_fail("%s: %s; %d samples kept in %s", sc.source, res.message,
             res.samples, sc.output.file);
    return CLI_FAILED;
  }
  if (static_only) {
    printf("%s: static equilibrium (%s, %d points)\n", sc.source, backend,
           cap.points);
    printf("  tip position     %.9g %.9g %.9g m\n", cap.tip[0], cap.tip[1],
           cap.tip[2]);
    printf("  clamp force n(0) %.9g %.9g %.9g N\n", cap.force0[0],
           cap.force0[1], cap.force0[2]);
    printf("  clamp moment m(0) %.9g %.9g %.9g N m\n", cap.moment0[0],
           cap.moment0[1], cap.moment0[2]);
    const rod_static_report *sr = &res.statics;
    if (sr->stable == 1)
      printf("  stability        stable (%s%s)\n",
             sr->path_steps ? "load continuation" : "one direct solve",
             sr->folds ? ", past a fold" : "");
    printf("  wall time %.3g s -> %s\n", res.wall_time, sc.output.file);
    return CLI_OK;
  }
  double ratio = cli_realtime_ratio(&res);
  printf("%s: %d steps to t = %.6g s in %.3g s (real-time ratio %.3g), "
         "mean iterations %.2f, integrations/step %.2f, fallbacks %d -> %s\n",
         sc.source, res.steps, res.time, res.wall_time, ratio,
         res.steps ? (double)res.iterations / res.steps : 0.0,
         res.steps ? (double)res.integrations / res.steps : 0.0, res.fallbacks,
         sc.output.file);
  return CLI_OK;
}

int cmd_run(int argc, char **argv) { return run_common(argc, argv, false); }
int cmd_static(int argc, char **argv) { return run_common(argc, argv, true); }
