/* rodsim run / rodsim static: simulate and log to HDF5. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "io/logger_file.h"
#include "io/scenario_contact.h"
#include "io/writers.h"
#include "progress.h"
#include "rod/export.h"
#include "rod/logger.h"
#include "rod/sim.h"

static const char *run_help =
    "usage: rodsim run SCENARIO.ini [-o OUT.h5] [--set SECTION.KEY=VALUE]... "
    "[--force] [--quiet]\n\n"
    "Solves the static initial state (t = 0), then simulates time.duration\n"
    "seconds in steps of time.dt, writing the HDF5 file described in\n"
    "  " ROD_DOCDIR "/hdf5.md\n"
    "(output.file, or OUT.h5; every step, or with output.every = auto\n"
    "every k-th past 100 MB, said on stderr), and prints one line: steps,\n"
    "wall time, the real-time ratio (simulated time / wall time of the\n"
    "whole run, writing the file included) and the solver's effort. Exit\n"
    "status: 0 complete, 1 the solver failed or the file could not be\n"
    "written (every converged step is kept), 2 bad input, 130 interrupted\n"
    "by SIGINT or SIGTERM (the step in progress is finished and written;\n"
    "the file's status says \"interrupted\"; during the static solve the\n"
    "process ends at once and the file, with no sample yet, is removed).\n"
    "OUT.h5 replaces only an HDF5 file rodsim wrote (or, with --force, any\n"
    "regular file), never the scenario or its data files (docs/files.md).\n"
    "Progress goes to stderr: on a terminal a line rewritten in place,\n"
    "otherwise a plain line every minute; a run estimated to take more than\n"
    "10 minutes says so once, naming the setting that makes its cost\n"
    "(--quiet: none of it).\n";

static const char *static_help =
    "usage: rodsim static SCENARIO.ini [-o OUT.h5] [--set "
    "SECTION.KEY=VALUE]... [--force]\n\n"
    "Solves the static equilibrium (the t = 0 state of run) and writes it as\n"
    "a one-sample HDF5 file; prints the tip position and the clamp "
    "reaction.\n";

/* SIGINT and SIGTERM end the run after the step in progress: its samples
 * are written, the file's status says "interrupted" and rodsim exits 130.
 * A second signal ends the process at once (the file then holds what was
 * flushed). The handlers are installed whatever the inherited disposition:
 * a shell starts background jobs with SIGINT ignored. */
static volatile sig_atomic_t interrupted;

/* During the static solve, which has no step to finish and cannot be
 * stopped half-way (it may take minutes on a rod that does not settle), a
 * signal ends the process at once: the file, which holds no sample yet, is
 * removed and the line in static_message said (both prepared before). */
static volatile sig_atomic_t in_static;
static const rod_logger *static_logger; /* its file removed at a signal */
static char static_message[3 * ROD_PATH_MAX];

static void on_signal(int sig) {
  if (in_static) {
    rod_logger_discard_now(static_logger); /* only what this process made */
    ssize_t w = write(2, static_message, strlen(static_message));
    (void)w;
    _exit(130);
  }
  if (interrupted) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  interrupted = sig;
}

static void catch_signals(void) { cli_catch_signals(on_signal); }

typedef struct {
  rod_sim_sink logger;
  cli_progress *progress;
} progress_sink;

static int ps_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  progress_sink *p = user;
  return p->logger.sample(p->logger.user, t, s, st, wall);
}
static int ps_tick(void *user) {
  progress_sink *p = user;
  if (interrupted)
    return ROD_EINTR;
  return p->logger.tick(p->logger.user);
}
/* The static solve's share of the loads reached (rod_sim_static_progress),
 * for the waiting line. */
static double static_share(const void *sim) {
  return rod_sim_static_progress(sim);
}

static void ps_progress(void *user, double t, double t_end, int steps,
                        double wall) {
  progress_sink *p = user;
  cli_progress_step(p->progress, t, t_end, steps, wall);
}

/* Runs whose file would be larger than this before compression are
 * warned about (B). */
static const double large_file = 1e9;

/* The run's error estimate (time.error_estimate, docs/numerics.md): a
 * line of the summary, and a warning above 1% of the tip's motion naming
 * the time.dt that would meet it. */
static void report_estimate(const rod_scenario *sc, const rod_sim_result *res) {
  if (res->error_estimate < 0)
    return;
  const double share =
      res->tip_motion > 0 ? res->error_estimate / res->tip_motion : 0;
  /* a tip that moves less than a millionth of the rod's length (the
   * estimate's floor, rod_sim_result) rests: a share of that motion is
   * a share of rounding */
  if (res->tip_motion < 1e-6 * sc->rod.length)
    printf("  error estimate: largest tip error %.3g mm (the tip rests: it "
           "moved %.3g mm)",
           res->error_estimate * 1e3, res->tip_motion * 1e3);
  else
    printf("  error estimate: largest tip error %.3g mm (%.2g%% of the "
           "tip's motion, %.3g mm)",
           res->error_estimate * 1e3, 100 * share, res->tip_motion * 1e3);
  if (res->error_estimate_until < res->time - 1e-9 * sc->time.dt)
    printf(" up to t = %.6g s, where its companion at 2 time.dt failed",
           res->error_estimate_until);
  printf("\n");
  if (res->error_estimate_tolerance > 0 &&
      res->error_estimate_tolerance < sc->time.tolerance)
    fprintf(stderr,
            "rodsim: %s: time.tolerance: warning: the tip's error is "
            "estimated at %.3g mm, %.2g%% of its motion; time.tolerance = %g "
            "would bring it within 1%% (docs/numerics.md, the run's error "
            "estimate)\n",
            sc->source, res->error_estimate * 1e3, 100 * share,
            res->error_estimate_tolerance);
  if (res->error_estimate_dt > 0 && res->error_estimate_dt < sc->time.dt)
    fprintf(stderr,
            "rodsim: %s: time.dt: warning: the tip's error is estimated at "
            "%.3g mm, %.2g%% of its motion; time.dt = %g would bring it "
            "within 1%%%s (docs/numerics.md, the run's error estimate)\n",
            sc->source, res->error_estimate * 1e3, 100 * share,
            res->error_estimate_dt,
            sc->time.scheme == ROD_SCHEME_BDF_ALPHA &&
                    sc->solver.backend == ROD_BACKEND_KIRCHHOFF
                ? ", or time.scheme = esdirk4 at larger steps"
                : "");
}

/* The file's size before compression: a warning above 1 GB, a refusal
 * above output.max_size. */
static int check_size(const rod_scenario *sc, int points, bool static_only) {
  /* a static run's one sample: its scenario with no time to simulate (a
   * copy of 100 kB, made only then: on the stack it took 22 page faults) */
  rod_scenario *one = NULL;
  if (static_only) {
    if (!(one = malloc(sizeof *one)))
      return CLI_OK; /* no estimate: the writes say what fails */
    *one = *sc;
    one->time.duration = 0;
  }
  const rod_scenario *run = one ? one : sc;
  const double bytes = rod_logger_estimate(run, points, false);
  const int samples = rod_sim_step_count(run) / run->output.every + 2;
  free(one);
  if (sc->output.max_size > 0 && bytes > sc->output.max_size) {
    cli_fail("%s: output.max_size: %s would take up to %.3g GB before "
             "compression (%d samples of %d points), more than the limit of "
             "%.3g GB; raise output.every or output.max_size",
             sc->source, sc->output.file, bytes / 1e9, samples, points,
             sc->output.max_size / 1e9);
    return CLI_BAD_INPUT;
  }
  if (bytes > large_file)
    cli_fail("%s: output.file: warning: %s will take up to %.3g GB before "
             "compression (%d samples of %d points; output.compression = %d); "
             "raise output.every to write fewer samples",
             sc->source, sc->output.file, bytes / 1e9, samples, points,
             sc->output.compression);
  return CLI_OK;
}

/* output.every = auto chose to skip steps: say so (not with --quiet). */
static void note_auto_every(const rod_scenario *sc, int every, bool quiet) {
  if (every <= 1 || quiet)
    return;
  fprintf(stderr,
          "rodsim: %s: output.every: auto writes every %d steps (%.4g s "
          "apart) to keep %s within %.0f MB before compression; "
          "output.every = 1 writes every step\n",
          sc->source, every, every * sc->time.dt, sc->output.file,
          ROD_OUTPUT_AUTO_BYTES / 1e6);
}

static void warn_energy(const rod_scenario *sc, const rod_sim_result *res) {
  char hint[160];
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    snprintf(hint, sizeof hint,
             "try a smaller time.dt or rfem.integrator = rk45");
  else if (sc->space.integrator == ROD_SPACE_EULER)
    snprintf(hint, sizeof hint,
             "space.integrator = euler, %d nodes, time.alpha = %g: try rk4, "
             "more nodes or alpha closer to 0",
             cli_nodes(sc), sc->time.alpha);
  else
    snprintf(hint, sizeof hint,
             "space.integrator = rk4, %d nodes, time.alpha = %g: try more "
             "nodes or alpha closer to 0",
             cli_nodes(sc), sc->time.alpha);
  /* 4 significant digits, more when those would print the two energies
   * alike (17 tell any two doubles apart) */
  char before[32], after[32];
  for (int digits = 4; digits <= 17; digits++) {
    snprintf(before, sizeof before, "%.*g", digits, res->energy_before);
    snprintf(after, sizeof after, "%.*g", digits, res->energy_after);
    if (strcmp(before, after) != 0)
      break;
  }
  fprintf(stderr,
          "rodsim: %s: warning: with nothing working on the rod its energy "
          "grew from %s J to %s J by t = %.6g s, so the discretisation "
          "creates energy here (%s)\n",
          sc->source, before, after, res->energy_time, hint);
}

/* The summary of `rodsim static`: the tip and the clamp's reaction. */
static void print_static(rod_sim *sim, const rod_scenario *sc,
                         const rod_sim_result *res) {
  const int n = rod_sim_points(sim);
  double *p = malloc(3 * sizeof(double) * (size_t)n * 3);
  if (!p)
    return;
  double *f = p + 3 * n, *m = f + 3 * n;
  rod_sim_get_positions(sim, p);
  bool forces = rod_sim_get_forces(sim, f) == ROD_OK &&
                rod_sim_get_moments(sim, m) == ROD_OK;
  const double *tip = p + 3 * (n - 1);
  printf("%s: static equilibrium (%s, %d points)\n", sc->source,
         rod_sim_backend(sim), n);
  printf("  tip position     %.9g %.9g %.9g m\n", tip[0], tip[1], tip[2]);
  if (forces) {
    printf("  clamp force n(0) %.9g %.9g %.9g N\n", f[0], f[1], f[2]);
    printf("  clamp moment m(0) %.9g %.9g %.9g N m\n", m[0], m[1], m[2]);
  }
  const rod_static_report *sr = &res->statics;
  if (sr->stable == 1)
    printf("  stability        stable (%s%s)\n",
           sr->path_steps ? "load continuation" : "one direct solve",
           sr->folds ? ", past a fold" : "");
  printf("  wall time %.3g s -> %s\n", res->wall_time, sc->output.file);
  free(p);
}

/* OUT.xdmf beside the run's file (rod/export.h, docs/hdf5.md): one that
 * rodsim wrote for an earlier file of this name is removed when the run
 * starts writing (it would describe samples this file does not hold), and
 * with output.xdmf a new one is written when the file is closed. A run
 * killed in between leaves none: `rodsim export --xdmf` makes it. */
static void xdmf_remove_stale(rod_logger *lg, const rod_scenario *sc) {
  char xdmf[ROD_PATH_MAX + 8];
  if (rod_export_xdmf_name(sc->output.file, xdmf, sizeof xdmf) == ROD_OK &&
      rod_export_is_xdmf(xdmf))
    rod_logger_remove_later(lg, xdmf);
}

/* Where output.xdmf asks for the XDMF description (NULL: nowhere). */
static const char *xdmf_target(const rod_scenario *sc, char *xdmf,
                               size_t size) {
  return sc->output.xdmf &&
                 rod_export_xdmf_name(sc->output.file, xdmf, size) == ROD_OK
             ? xdmf
             : NULL;
}

static void xdmf_warn(const rod_scenario *sc, const char *xdmf,
                      const rod_error *err) {
  char why[1024];
  rod_error_format(err, why, sizeof why);
  cli_fail("%s: output.xdmf: warning: %s not written (%s); rodsim export "
           "%s --xdmf makes it",
           sc->source, xdmf, why, sc->output.file);
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
  /* A signal while the run is set up (the scenario read, the model and
   * the file made, which take seconds on a loaded machine or a huge grid)
   * ends the process at once, as during the static solve: no file yet. */
  snprintf(static_message, sizeof static_message,
           "rodsim: interrupted before the run started; no file written\n");
  in_static = 1;
  catch_signals();
  rod_run_file_warm_up(); /* while the scenario is read and the model made */
  rod_scenario sc;
  int rc = cli_load(&c, &sc);
  if (rc != CLI_OK)
    return rc;
  cli_warn_scenario(&sc, static_only ? ROD_WARN_UNITS | ROD_WARN_STATICS
                                     : ROD_WARN_ALL);
  rod_error err = {{0}, {0}, {0}, 0};
  if (!static_only &&
      rod_scenario_check_contact_motion(&sc, sc.source, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  rod_sim *sim;
  if (rod_sim_create(&sc, &sim, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  /* output.every = auto: chosen for the file (a static file: its one
   * sample) */
  const int every = static_only ? 1 : rod_sim_output_every(sim);
  if (sc.output.every == 0 && !static_only)
    note_auto_every(&sc, every, c.quiet);
  if (sc.output.every == 0)
    sc.output.every = every;
  rc = check_size(&sc, rod_sim_points(sim), static_only);
  rod_logger *lg = NULL;
  rod_out_rules rules = {
      .kind = ROD_OUT_HDF5, .key = "output.file", .force = c.force};
  rod_out_add_scenario_inputs(&rules, &sc);
  if (rc == CLI_OK &&
      rod_logger_open_with(&lg, sc.output.file, &sc, rod_sim_backend(sim),
                           &rules, rod_sim_points(sim), &err) != ROD_OK) {
    cli_print_error(&err);
    rc = CLI_BAD_INPUT;
  }
  if (rc != CLI_OK) {
    rod_sim_free(sim);
    return rc;
  }
  xdmf_remove_stale(lg, &sc);
  catch_signals();
  cli_progress pr;
  cli_progress_init(&pr, sc.source, c.quiet);
  cli_progress_sim(&pr, &sc, "");
  progress_sink ps = {rod_logger_sink(lg), &pr};
  rod_sim_sink sink = {.sample = ps_sample,
                       .tick = ps_tick,
                       .progress = ps_progress,
                       .user = &ps};
  rod_sim_set_sink(sim, &sink);
  static_logger = lg;
  snprintf(static_message, sizeof static_message,
           "%srodsim: %s: interrupted during the static solve; %s not "
           "written (it held no sample)\n",
           pr.tty && !pr.quiet ? "\r\033[K" : "", sc.source, sc.output.file);
  in_static = !interrupted;
  /* the static solve's time so far and the loads its path has reached */
  cli_progress_wait_share(&pr, "solving the static state", static_share, sim);
  int st = rod_sim_static(sim);
  cli_progress_waited(&pr);
  in_static = 0;
  if (st == ROD_OK && interrupted)
    st = ROD_EINTR;
  if (st == ROD_OK && !static_only)
    st = rod_sim_advance_to(sim, sc.time.duration);
  int fst = rod_sim_flush(sim); /* the last step, also after a stop */
  if (st == ROD_OK)
    st = fst;
  rod_sim_result res;
  rod_sim_get_result(sim, &res);
  rod_sim_get_error(sim, &err);
  cli_progress_end(&pr);
  const char *why = res.message[0] ? res.message : err.message;
  const char *status = st == ROD_OK      ? "complete"
                       : st == ROD_EINTR ? "interrupted"
                                         : why;
  /* the static state refused as the input's (a body between two grid
   * nodes): no file */
  const bool refused = st == ROD_EINVAL && rod_logger_appended(lg) == 0;
  static_logger = NULL;
  char xdmf[ROD_PATH_MAX + 8];
  const char *xdmf_path = xdmf_target(&sc, xdmf, sizeof xdmf);
  rod_error xdmf_err = {{0}, {0}, {0}, 0};
  rod_logger_end end = {.told = true, .made = true}; /* how it ended */
  int cst = refused
                ? rod_logger_discard(lg)
                : rod_logger_close_told(lg, status, xdmf_path, &xdmf_err, &end);
  char io[128]; /* why a write failed */
  snprintf(io, sizeof io, "%s",
           end.write_errno ? strerror(end.write_errno) : "");
  const bool told = end.told; /* the file's status says why */
  const long kept = end.kept;
  if (xdmf_err.message[0])
    xdmf_warn(&sc, xdmf, &xdmf_err);
  if (res.statics.stable == 1 && res.statics.note[0])
    fprintf(stderr, "rodsim: %s: static state: %s\n", sc.source,
            res.statics.note);
  if (res.implausible[0])
    fprintf(stderr, "rodsim: %s: warning: at t = %.6g s %s\n", sc.source,
            res.implausible_time, res.implausible);
  if (res.energy_grew)
    warn_energy(&sc, &res);
  if (static_only && st == ROD_OK && cst == ROD_OK)
    print_static(sim, &sc, &res);
  rod_sim_free(sim);
  if (st == ROD_EINTR) {
    cli_fail("%s: interrupted (%s) at t = %.6g s; %d samples kept in %s",
             sc.source, interrupted == SIGTERM ? "SIGTERM" : "SIGINT", res.time,
             res.samples, sc.output.file);
    return CLI_INTERRUPTED;
  }
  if (io[0] && !end.made) {
    cli_fail("%s: output.file: cannot make %s: %s; stopped at t = %.6g s, "
             "no file written",
             sc.source, sc.output.file, io, res.time);
    return CLI_FAILED;
  }
  if (io[0]) {
    cli_fail("%s: output.file: cannot write %s: %s; stopped at t = %.6g s, "
             "the file keeps the %ld samples written before (%s)",
             sc.source, sc.output.file, io, res.time, kept,
             told ? "its status says why" : "its status stays \"running\"");
    return CLI_FAILED;
  }
  if (st == ROD_OK && cst != ROD_OK) {
    cli_fail("%s: output.file: cannot write %s (%s)", sc.source, sc.output.file,
             rod_strerror(cst));
    return CLI_FAILED;
  }
  if (refused) { /* one line naming the key */
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  if (st != ROD_OK) {
    cli_fail("%s: %s; %d samples kept in %s", sc.source, why, res.samples,
             sc.output.file);
    return CLI_FAILED;
  }
  if (static_only)
    return CLI_OK;
  double ratio = cli_realtime_ratio(&res);
  printf("%s: %d steps to t = %.6g s in %.3g s (real-time ratio %.3g), "
         "mean iterations %.2f, integrations/step %.2f, fallbacks %d -> %s\n",
         sc.source, res.steps, res.time, res.wall_time, ratio,
         res.steps ? (double)res.iterations / res.steps : 0.0,
         res.steps ? (double)res.integrations / res.steps : 0.0, res.fallbacks,
         sc.output.file);
  report_estimate(&sc, &res);
  if (sc.time.has_tolerance) {
    printf("  step-size control: %d steps rejected or retried, %d accepted "
           "above time.tolerance\n",
           res.rejected, res.over_tolerance);
    if (res.over_tolerance > 0)
      fprintf(stderr,
              "rodsim: %s: time.tolerance: warning: %d of %d steps exceed "
              "%g m: the error asked for steps smaller than the grid "
              "resolves (k h <= 1; more space.nodes allow smaller steps) or "
              "the shooting solves, so they were taken at the smallest "
              "possible (a release or strike excites modes no step "
              "resolves)\n",
              sc.source, res.over_tolerance, res.steps, sc.time.tolerance);
  }
  return CLI_OK;
}

int cmd_run(int argc, char **argv) { return run_common(argc, argv, false); }
int cmd_static(int argc, char **argv) { return run_common(argc, argv, true); }
