/* What every rodsim command shares (cli.h): its messages on stderr, the
 * options common to run, static and bench, the scenario loaded with
 * --set, the warnings of a run whose time step or grid cannot follow the
 * rod (the first mode, k h, the statics' error), and the CSV tables of
 * bench and compare. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/escape.h"
#include "core/model.h"
#include "integrators/bdf.h"
#include "integrators/genalpha.h"
#include "io/outfile.h"

void cli_catch_signals(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past a file size limit, writes fail (EFBIG) instead of killing us */
  signal(SIGXFSZ, SIG_IGN);
}

/* Where cli_fail writes: stderr, or what cli_messages_to chose. */
static FILE *messages;

FILE *cli_messages_to(FILE *to) {
  FILE *before = messages ? messages : stderr;
  messages = to;
  return before;
}

/* One line on stderr (or where cli_messages_to sends it): "rodsim: " and
 * text, its bytes that are not printable UTF-8 (from arguments and files)
 * escaped. */
static void say(const char *text) {
  char shown[4 * 8192];
  rod_text_escape(text, shown, sizeof shown);
  fprintf(messages ? messages : stderr, "rodsim: %s\n", shown);
}

void cli_fail(const char *fmt, ...) {
  char text[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  say(text);
}

void cli_print_error(const rod_error *err) {
  char buf[1024];
  rod_error_format(err, buf, sizeof buf);
  say(buf);
}

double cli_realtime_ratio(const rod_sim_result *res) {
  return res->wall_time > 0 ? res->time / res->wall_time : INFINITY;
}

int cli_option(int argc, char **argv, int *i, const char *name,
               const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
    return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (*i + 1 >= argc) {
    cli_fail("%s: missing value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int cli_parse_numbers(const char *text, double *out, int max) {
  int n = 0;
  const char *p = text;
  for (;;) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) || n >= max)
      return -1;
    out[n++] = v;
    if (!*end)
      return n;
    if (*end != ',')
      return -1;
    p = end + 1;
  }
}

bool cli_is_help(const char *arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_common_arg(cli_common *c, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
    if (*i + 1 >= argc) {
      cli_fail("%s: missing file name", a);
      return -1;
    }
    c->output = argv[++*i];
    return 1;
  }
  if (strncmp(a, "--set=", 6) == 0 || strcmp(a, "--set") == 0) {
    const char *v = a[5] == '=' ? a + 6 : NULL;
    if (!v) {
      if (*i + 1 >= argc) {
        cli_fail("--set: missing SECTION.KEY=VALUE");
        return -1;
      }
      v = argv[++*i];
    }
    if (c->nsets >= CLI_MAX_SETS) {
      cli_fail("--set: too many overrides");
      return -1;
    }
    c->sets[c->nsets++] = v;
    return 1;
  }
  if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
    c->quiet = true;
    return 1;
  }
  if (strcmp(a, "--force") == 0) {
    c->force = true;
    return 1;
  }
  if (a[0] != '-' && !c->scenario) {
    c->scenario = a;
    return 1;
  }
  return 0;
}

/* Steps an impulse should span: loads are sampled at step times, so a hat
 * of fewer steps delivers its momentum poorly (and none at all once dt
 * reaches its duration). */
enum { CLI_IMPULSE_STEPS = 4 };

/* Largest k h a Kirchhoff/Cosserat run is warned about: beyond it the
 * grid does not resolve the step's length scale 1/k (rod_model_step_kh)
 * and shooting fails or the motion blows up. Measured over the shipped
 * scenarios with 20 to 150 nodes, dt 5 to 0.2 ms, alpha -0.48 and 0: RK4
 * failed from k h = 1.6 and converged at 0.5; Euler with alpha -0.48
 * created energy until it failed from k h = 0.26 (0.23 and 0.25 ran
 * well), with alpha = 0 it held to 0.5. The advice aims at k h = 0.3, or
 * lower where the limit is (README, Numerics). */
static const double cli_kh_rk4 = 1.0, cli_kh_euler = 0.5,
                    cli_kh_euler_undamped = 0.25, cli_kh_good = 0.3;

/* alpha below which BDF-alpha's numerical damping is too weak to hold a
 * coarse Euler grid */
static const double cli_alpha_undamped = -0.4;

int cli_nodes(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return rod_model_nodes(&m, sc);
}

/* k h beyond which auto history leaves stage records for cubic Hermite
 * (Kirchhoff, RK4; kirchhoff_backend.c), and the k h to advise for them */
static const double cli_kh_stage = 0.3, cli_kh_stage_aim = 0.2;

/* BDF-alpha's step must follow the rod's first bending mode: its error on
 * that mode (damping or phase lag, as a fraction of the amplitude) over
 * cli_mode_periods periods (or the run, if shorter) at most
 * cli_mode_error, else run warns. Over a long run the phase lag grows on
 * (as with any integrator); this catches a step too coarse for the
 * motion at all. */
static const double cli_mode_error = 0.05, cli_mode_periods = 2.0;

/* The error BDF-alpha makes on a mode of omega (1/s) over a time span at
 * step dt: the amplitude lost (or gained) or the phase lag (rad). */
static double mode_error(double alpha, double dt, double omega, double span) {
  if (omega * dt > 0.5 * M_PI) /* fewer than 4 steps a period */
    return INFINITY;
  double gain, phase;
  rod_bdf_alpha_mode(alpha, dt, omega, &gain, &phase);
  const double n = ceil(span / dt - 1e-9);
  return fmax(fabs(1.0 - pow(gain, n)), n * fabs(phase - omega * dt));
}

/* The error of the run's time scheme on a mode of omega over span:
 * BDF-alpha, or the chain's generalized-alpha (rfem.integrator =
 * genalpha); -1 for a scheme that controls its own step or is not
 * watched. */
static double scheme_mode_error(const rod_scenario *sc, double dt, double omega,
                                double span) {
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    return sc->rfem.integrator == ROD_RFEM_GENALPHA
               ? rod_genalpha_mode_error(
                     rod_genalpha_params_from_radius(sc->rfem.spectral_radius),
                     dt, omega, span)
               : -1.0;
  if (sc->time.scheme != ROD_SCHEME_BDF_ALPHA || sc->time.has_tolerance)
    return -1.0;
  return mode_error(sc->time.alpha, dt, omega, span);
}

/* Warn when a run's step cannot follow the rod's first bending mode, with
 * the step that would. */
static void warn_time_step(const rod_scenario *sc) {
  if (sc->time.duration <= 0)
    return;
  rod_model m;
  rod_model_init(&m, sc);
  const double w =
      rod_model_first_omega(&m, sc->tip.release ? 0.0 : sc->tip.mass);
  const double span =
      fmin(sc->time.duration, cli_mode_periods * 2.0 * M_PI / w);
  const double e = scheme_mode_error(sc, sc->time.dt, w, span);
  if (e <= cli_mode_error)
    return;
  double lo = 0.0, hi = sc->time.dt; /* the largest step that would do */
  for (int i = 0; i < 60; i++) {
    const double mid = 0.5 * (lo + hi);
    if (scheme_mode_error(sc, mid, w, span) <= cli_mode_error)
      lo = mid;
    else
      hi = mid;
  }
  const double p = pow(10.0, floor(log10(lo)) - 1);
  char scheme[64];
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    snprintf(scheme, sizeof scheme,
             "generalized-alpha with rfem.spectral_radius = %g",
             sc->rfem.spectral_radius);
  else
    snprintf(scheme, sizeof scheme, "BDF-alpha with alpha = %g",
             sc->time.alpha);
  cli_fail("%s: time.dt: warning: a step of %g s cannot follow the rod's "
           "first bending mode (about %.3g Hz, %.3g steps a period): "
           "%s errs by %s%.2g of its amplitude "
           "(damping and phase lag) within t = %.3g s: use time.dt = %.2g s "
           "or less",
           sc->source, sc->time.dt, w / (2 * M_PI),
           2 * M_PI / (w * sc->time.dt), scheme,
           isfinite(e) ? "" : "more than ", isfinite(e) ? e : 1.0, span,
           floor(lo / p) * p);
}

/* The chain's static tip error, second order in its elements: at most
 * cli_chain_static_c G L / n^2, G the growth of the static solutions
 * along the rod (rod_model_static_growth; the robustness study measured
 * 0.08 G to 0.22 G against the continuous rod, docs/validation.md). Warned
 * above cli_chain_static_error of L, with the elements for a tenth. */
static const double cli_chain_static_c = 0.25, cli_chain_static_error = 1e-2;

static void warn_chain_statics(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  const double G = rod_model_static_growth(&m, sc), n = sc->rfem.segments;
  const double e = cli_chain_static_c * G / (n * n);
  if (e <= cli_chain_static_error)
    return;
  cli_fail(
      "%s: rfem.segments: warning: %d elements may place the static "
      "tip %.2g of the rod's length from the continuous rod's (second "
      "order in the elements under these loads): use about %d "
      "elements for %.2g",
      sc->source, sc->rfem.segments, e,
      (int)ceil(sqrt(cli_chain_static_c * G / (0.1 * cli_chain_static_error))),
      0.1 * cli_chain_static_error);
}

/* Euler in arclength is first order: the static tip within
 * cli_euler_static_c kappa h L of the converged one, kappa the bound on
 * the static curvature (the robustness study: 0.24 kappa h L for w L^3 /
 * EI = 10 and a tip force P L^2 / EI = 1 on 118, 236 and 472 nodes,
 * 1.2 %, 0.6 %, 0.3 % of L, docs/validation.md). Warned above
 * cli_chain_static_error of L, with rk4 or the nodes for a tenth. */
static const double cli_euler_static_c = 0.25;

static void warn_euler_statics(const rod_scenario *sc, const rod_model *m) {
  rod_scenario st = *sc; /* the static loads: no strike */
  st.impulse.enabled = false;
  const double kappa = rod_model_curvature_bound(m, &st), L = m->length;
  const int n = rod_model_nodes(m, sc);
  const double e = cli_euler_static_c * kappa * L / (n - 1);
  if (e <= cli_chain_static_error)
    return;
  cli_fail("%s: space.integrator: warning: euler is first order: on %d "
           "nodes the static tip may lie %.2g of the rod's length from the "
           "converged one: use rk4, or about %d nodes for %.2g",
           sc->source, n, e,
           (int)ceil(cli_euler_static_c * kappa * L /
                     (0.1 * cli_chain_static_error)) +
               1,
           0.1 * cli_chain_static_error);
}

void cli_warn_sampling(const rod_scenario *sc) {
  warn_time_step(sc);
  if (sc->impulse.enabled &&
      sc->impulse.duration < CLI_IMPULSE_STEPS * sc->time.dt)
    cli_fail("%s: impulse.duration: warning: %g s spans fewer than %d steps "
             "of dt = %g s; the force is sampled at step times, so its "
             "momentum is not delivered accurately",
             sc->source, sc->impulse.duration, CLI_IMPULSE_STEPS, sc->time.dt);
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    warn_chain_statics(sc);
  if (sc->solver.backend != ROD_BACKEND_KIRCHHOFF)
    return;
  rod_model m;
  rod_model_init(&m, sc);
  if (sc->space.nodes == 0 && sc->space.integrator == ROD_SPACE_EULER)
    warn_euler_statics(sc, &m);
  if (sc->space.nodes == 0) { /* auto: resolved unless capped */
    int needed, n = rod_model_auto_nodes(&m, sc, &needed);
    if (needed > n)
      cli_fail("%s: space.nodes: warning: auto would need %d nodes for the "
               "length scale of a step of dt = %g s and the static "
               "curvature; the run takes %d (k h = %.2g): use a larger "
               "time.dt or set space.nodes",
               sc->source, needed, sc->time.dt, n, rod_model_step_kh(sc));
    return;
  }
  const bool euler = sc->space.integrator == ROD_SPACE_EULER;
  if (euler)
    warn_euler_statics(sc, &m);
  const double limit = !euler ? cli_kh_rk4
                       : sc->time.alpha < cli_alpha_undamped
                           ? cli_kh_euler_undamped
                           : cli_kh_euler;
  const double kh = rod_model_step_kh(sc);
  if (kh <= limit) {
    /* the Runge-Kutta schemes' auto history is their stage records */
    if (!euler && sc->space.history == ROD_HISTORY_AUTO &&
        sc->time.scheme == ROD_SCHEME_BDF_ALPHA &&
        m.kind == ROD_MODEL_KIRCHHOFF && sc->time.alpha > -0.5 &&
        kh > cli_kh_stage)
      cli_fail("%s: space.history: warning: at k h = %.2g (%d nodes, dt = "
               "%g s) auto takes cubic Hermite history, whose error "
               "~(k h)^4 grows as dt shrinks on a fixed grid (stage "
               "records, 100 times more accurate, grow beyond k h = %g): "
               "use about %d nodes, or space.nodes = auto",
               sc->source, kh, sc->space.nodes, sc->time.dt, cli_kh_stage,
               (int)ceil(kh / cli_kh_stage_aim * (sc->space.nodes - 1)) + 1);
    return;
  }
  const double aim = fmin(cli_kh_good, 0.8 * limit);
  const int advice = (int)ceil(kh / aim * (sc->space.nodes - 1)) + 1;
  cli_fail("%s: space.nodes: warning: %d nodes do not resolve the length "
           "scale of a step of dt = %g s (k h = %.2g, k^4 = rhoA c0^2 / EI); "
           "%s errs like (k h)%s, the shooting may fail and the motion blow "
           "up: use about %d nodes or more, or space.nodes = auto",
           sc->source, sc->space.nodes, sc->time.dt, kh,
           euler ? "Euler" : "RK4", euler ? "" : "^4", advice);
}

int cli_load(const cli_common *c, rod_scenario *sc) {
  rod_error err = {{0}, {0}, {0}, 0};
  if (!c->scenario) {
    cli_fail("missing SCENARIO.ini (see --help)");
    return CLI_BAD_INPUT;
  }
  rod_scenario_default(sc);
  if (rod_scenario_load(sc, c->scenario, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  for (int i = 0; i < c->nsets; i++) {
    if (rod_scenario_set(sc, c->sets[i], &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
  }
  if (c->output) {
    char a[1200];
    snprintf(a, sizeof a, "output.file=%s", c->output);
    if (rod_scenario_set(sc, a, &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
  }
  if (rod_scenario_validate(sc, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

int cli_table_args(int argc, char **argv, const char *command, const char *help,
                   const char *option, const char **value, rod_scenario *sc,
                   const char **csv_path, bool *force) {
  cli_common c = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    }
    if (strcmp(argv[i], option) == 0) {
      if (i + 1 >= argc) {
        cli_fail("%s: %s: missing LIST", command, option);
        return CLI_BAD_INPUT;
      }
      *value = argv[++i];
      continue;
    }
    int r = cli_common_arg(&c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("%s: unknown option '%s'", command, argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  *csv_path = c.output;
  *force = c.force;
  c.output = NULL;
  return cli_load(&c, sc);
}

/* The output rules of a table: an earlier table of this command is known
 * by its header's first line (into mark, of size 256). */
static rod_out_rules table_rules(const char *header, char *mark,
                                 const rod_scenario *sc, bool force) {
  snprintf(mark, 256, "%s", header);
  mark[strcspn(mark, "\n")] = '\0';
  rod_out_rules rules = {
      .kind = ROD_OUT_TEXT, .mark = mark, .key = "-o", .force = force};
  rod_out_add_scenario_inputs(&rules, sc);
  return rules;
}

int cli_table_check(const char *path, const char *header,
                    const rod_scenario *sc, bool force) {
  if (!path)
    return CLI_OK;
  char mark[256];
  rod_out_rules rules = table_rules(header, mark, sc, force);
  rod_error err = {{0}, {0}, {0}, 0};
  if (rod_outfile_check(path, &rules, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

int cli_table_open(cli_table *t, const char *path, const char *header,
                   const rod_scenario *sc, bool force) {
  t->path = path;
  t->file = NULL;
  t->out = NULL;
  if (path) {
    char mark[256];
    rod_out_rules rules = table_rules(header, mark, sc, force);
    rod_error err = {{0}, {0}, {0}, 0};
    if (rod_outfile_open(path, &rules, &t->out, &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
    if (!(t->file = rod_outfile_stream(t->out))) {
      rod_outfile_close(t->out, true);
      cli_fail("%s: cannot write", path);
      return CLI_BAD_INPUT;
    }
  }
  cli_table_row(t, header);
  return CLI_OK;
}

void cli_table_row(cli_table *t, const char *row) {
  fputs(row, stdout);
  fflush(stdout);
  if (t->file)
    fputs(row, t->file);
}

int cli_table_close(cli_table *t) {
  if (!t->file)
    return CLI_OK;
  rod_error err = {{0}, {0}, {0}, 0};
  int rc = CLI_OK;
  if (fclose(t->file) != 0) {
    cli_fail("%s: write error", t->path);
    rc = CLI_FAILED;
  } else if (rod_outfile_commit(t->out, &err) != ROD_OK) {
    cli_print_error(&err);
    rc = CLI_FAILED;
  }
  rod_outfile_close(t->out, rc != CLI_OK);
  return rc;
}

int cli_parse_list(const char *text, double *out, int max) {
  int n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) || !(v > 0) || n >= max)
      return -1;
    out[n++] = v;
    p = end;
    while (*p == ' ')
      p++;
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n > 0 ? n : -1;
}
