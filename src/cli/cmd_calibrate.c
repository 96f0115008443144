/* rodsim calibrate: fit [rod] keys to a measured tip trajectory or shape,
 * or to several experiments' trajectories at once, and write the fitted
 * scenario with its [fit] section (docs/commands.md, docs/files.md). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "io/outfile.h"
#include "progress.h"
#include "rod/calibrate.h"
#include "rod/parallel.h"

static const char *help =
    "usage: rodsim calibrate SCENARIO.ini --data TIP.csv|SHAPE.h5 [--data "
    "TIP.csv]...\n"
    "                        [--set SECTION.KEY=VALUE]... [OPTIONS]\n"
    "       rodsim calibrate [--set SECTION.KEY=VALUE]...\n"
    "                        --experiment A.ini --data A.csv [--set "
    "SECTION.KEY=VALUE]...\n"
    "                        --experiment B.ini --data B.csv [--set "
    "SECTION.KEY=VALUE]...\n"
    "                        [OPTIONS]\n"
    "options: [--fit KEYS] [--objective trajectory|features|shape]\n"
    "         [--threads N] [-o FITTED.ini] [--quiet]\n"
    "         [--ensemble N [--seed S] [--ensemble-dir DIR]]\n\n"
    "Fits the [rod] keys in KEYS (comma separated; default\n"
    "bending_stiffness,density,drag) to the tip trajectory in TIP.csv (t and\n"
    "any of x, y, z; t = 0 is the release, earlier rows are the static\n"
    "state) or the shape file SHAPE.h5 (rodsim track --shape) by\n"
    "Levenberg-Marquardt over log-parameters, starting from the scenario's\n"
    "values (a drag of 0 starts from that of a cylinder in air). Samples the\n"
    "tracker flagged (valid = 0) are left out. The Jacobian's simulations\n"
    "run in parallel on N threads (default: the online cores), or on every\n"
    "rank under mpirun or srun.\n\n"
    "Several data sets (joint fit): each --data on the one SCENARIO.ini, or\n"
    "each in an --experiment group with its own scenario and --sets (those\n"
    "before the first --experiment apply to every group, a group's own\n"
    "after them). The keys are shared and fitted to every set at once, each\n"
    "set's residuals divided by its noise, estimated from its data (their\n"
    "fourth differences); the start is the first set's scenario's. A joint\n"
    "fit takes tip CSVs.\n\n"
    "Objectives:\n"
    "  trajectory  simulated minus measured tip at every sample (default\n"
    "              for a tip CSV)\n"
    "  features    first peak, first valley, final peak and frequency of z\n"
    "              after release (Till & Rucker 2017, section III.A)\n"
    "  shape       simulated minus measured centreline at every point of\n"
    "              every frame (default for a shape file)\n\n"
    "Writes the (first set's) scenario with the fitted values and a [fit]\n"
    "section (keys, std_error, start, rms_residual, iterations, simulations;\n"
    "of a joint fit each set's data, noise and rms residual) to FITTED.ini\n"
    "(default: standard output); a summary goes to standard error.\n"
    "SIGINT (Ctrl-C) or SIGTERM stops the fit within a time step and writes\n"
    "the best point simulated so far, marked not converged; a second one\n"
    "ends it at once.\n"
    "--ensemble N then runs N draws of the keys from the fit's covariance\n"
    "(stream S, default 1) as a sweep in DIR (default FITTED_ensemble; of a\n"
    "joint fit DIR/set-1, DIR/set-2, ...: rodsim sweep's index and case\n"
    "files, continued when run again) and writes the band of the tip (mean,\n"
    "5 % and 95 % quantiles of x, y, z at every sample) into the [fit]\n"
    "section.\n"
    "Exit status: 0 fitted; 1 a simulation failed or the fit did not\n"
    "converge (the best point is written); 2 bad input; 130 interrupted\n"
    "(the best point so far is written).\n";

enum { MAX_GROUP_SETS = 64 };

/* One data set: its file, and in an --experiment group its scenario and
 * its own --sets. */
typedef struct {
  const char *data, *scenario;
  const char *sets[MAX_GROUP_SETS];
  int nsets;
} data_set;

typedef struct {
  cli_common c;
  const char *fit, *objective, *threads, *ensemble, *seed, *ensemble_dir;
  data_set set[ROD_CALIB_MAX_SETS];
  int nsets;
  bool groups; /* --experiment given */
} calibrate_args;

/* --experiment, --data and a group's --set; 1 consumed, 0 not ours, -1
 * bad (printed). */
static int set_arg(calibrate_args *a, int argc, char **argv, int *i) {
  const char *v = NULL;
  int r = cli_option(argc, argv, i, "--experiment", &v);
  if (r == 1) {
    if (a->nsets == ROD_CALIB_MAX_SETS) {
      cli_fail("--experiment: at most %d data sets", ROD_CALIB_MAX_SETS);
      return -1;
    }
    a->groups = true;
    a->set[a->nsets++].scenario = v;
    return 1;
  }
  if (r < 0 || (r = cli_option(argc, argv, i, "--data", &v)) < 0)
    return -1;
  if (r == 1) {
    if (a->groups && a->set[a->nsets - 1].data) {
      cli_fail("--experiment %s: a second --data (%s): give each data set "
               "an --experiment of its own",
               a->set[a->nsets - 1].scenario, v);
      return -1;
    }
    if (!a->groups && a->nsets == ROD_CALIB_MAX_SETS) {
      cli_fail("--data: at most %d data sets", ROD_CALIB_MAX_SETS);
      return -1;
    }
    a->set[a->groups ? a->nsets - 1 : a->nsets++].data = v;
    return 1;
  }
  if (a->groups &&
      (strcmp(argv[*i], "--set") == 0 || strncmp(argv[*i], "--set=", 6) == 0)) {
    data_set *g = &a->set[a->nsets - 1];
    if (cli_option(argc, argv, i, "--set", &v) < 0)
      return -1;
    if (g->nsets == MAX_GROUP_SETS) {
      cli_fail("--set: too many overrides in --experiment %s", g->scenario);
      return -1;
    }
    g->sets[g->nsets++] = v;
    return 1;
  }
  return 0;
}

/* Parse argv; CLI_OK, CLI_BAD_INPUT (printed), or -1 after --help. */
static int parse(calibrate_args *a, int argc, char **argv) {
  static const char *const names[] = {"--fit",     "--objective",
                                      "--threads", "--ensemble",
                                      "--seed",    "--ensemble-dir"};
  const char **slots[] = {&a->fit,      &a->objective, &a->threads,
                          &a->ensemble, &a->seed,      &a->ensemble_dir};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    }
    int r = set_arg(a, argc, argv, &i);
    for (int k = 0; k < 6 && r == 0; k++)
      r = cli_option(argc, argv, &i, names[k], slots[k]);
    if (r == 0)
      r = cli_common_arg(&a->c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("calibrate: unknown option '%s' (see rodsim calibrate --help)",
               argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  if (a->groups && a->c.scenario) {
    cli_fail("calibrate: %s: either SCENARIO.ini with --data, or "
             "--experiment groups, not both",
             a->c.scenario);
    return CLI_BAD_INPUT;
  }
  for (int e = 0; e < a->nsets; e++)
    if (!a->set[e].data) {
      cli_fail("--experiment %s: missing --data TIP.csv", a->set[e].scenario);
      return CLI_BAD_INPUT;
    }
  if (a->nsets == 0) {
    cli_fail("calibrate: missing --data TIP.csv or SHAPE.h5 (see rodsim "
             "calibrate --help)");
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* The options from the arguments; prints and returns CLI_BAD_INPUT. */
static int options(const calibrate_args *a, const rod_scenario *sc, bool shape,
                   rod_calib_options *o) {
  *o = rod_calib_default_options();
  if (shape)
    o->objective = ROD_CALIB_SHAPE;
  if (a->objective && strcmp(a->objective, "features") == 0)
    o->objective = ROD_CALIB_FEATURES;
  else if (a->objective && strcmp(a->objective, "trajectory") == 0)
    o->objective = ROD_CALIB_TRAJECTORY;
  else if (a->objective && strcmp(a->objective, "shape") == 0) {
    if (!shape) {
      cli_fail("--objective: shape needs a shape file (rodsim track --shape) "
               "as --data, not %s",
               a->set[0].data);
      return CLI_BAD_INPUT;
    }
  } else if (a->objective) {
    cli_fail("--objective: expected trajectory, features or shape (got '%s')",
             a->objective);
    return CLI_BAD_INPUT;
  }
  if (a->threads) {
    char *end;
    errno = 0;
    long n = strtol(a->threads, &end, 10);
    if (end == a->threads || *end || errno || n < 1 || n > 64) {
      cli_fail("--threads: expected a count from 1 to 64 (got '%s')",
               a->threads);
      return CLI_BAD_INPUT;
    }
    o->threads = (int)n;
  }
  rod_error err = {{0}, {0}, {0}, 0};
  if (a->fit && rod_calib_set_keys(o, a->fit, sc->source, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* The [rod] key's unit from the scenario's key table. */
static const char *unit_of(const char *key) {
  for (int i = 0; i < rod_scenario_key_count(); i++) {
    rod_key_info k;
    if (rod_scenario_key_info(i, &k) == ROD_OK &&
        strcmp(k.section, "rod") == 0 && strcmp(k.name, key) == 0)
      return k.unit;
  }
  return "";
}

/* The measured data: a tip CSV or a shape file. */
typedef struct {
  rod_tip_data *tip;
  rod_shape_data *shape;
} measured;

static void summary(const rod_calib_options *o, const rod_calib_result *r,
                    const measured *d, const char *const *names) {
  const char *data_name = names[0];
  const char *coords[3] = {"x", "y", "z"};
  const char *objective = o->objective == ROD_CALIB_FEATURES ? "features"
                          : o->objective == ROD_CALIB_SHAPE  ? "shape"
                                                             : "trajectory";
  char have[16] = "";
  for (int c = 0; d->tip && c < 3; c++)
    if (d->tip->has[c])
      snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
               have[0] ? "," : "", coords[c]);
  if (d->shape)
    fprintf(stderr,
            "calibrate: %d keys to %d frames of %d points (x,z) of %s, %s "
            "objective\n",
            o->nkeys, d->shape->frames, d->shape->points, data_name, objective);
  else if (r->sets > 1)
    fprintf(stderr,
            "calibrate: %d keys to %d data sets at once, %s objective\n",
            o->nkeys, r->sets, objective);
  else
    fprintf(stderr,
            "calibrate: %d keys to %d samples (t,%s) of %s, %s "
            "objective\n",
            o->nkeys, d->tip->n, have, data_name, objective);
  if (r->skipped > 0)
    fprintf(stderr, "  %d flagged %s (valid = 0) left out\n", r->skipped,
            d->shape ? "frames" : "samples");
  for (int j = 0; j < o->nkeys; j++)
    fprintf(stderr, "  %-18s %-12.7g +- %-9.3g %-8s (start %.6g)\n", o->keys[j],
            r->value[j], r->std_error[j], unit_of(o->keys[j]), r->initial[j]);
  const bool ranks = rod_mpi_size() > 1;
  fprintf(stderr,
          "  rms residual %.3g m; %d iterations, %d simulations on %d "
          "%s%s, %.1f s\n",
          r->rms_residual, r->iterations, r->simulations, r->threads,
          ranks ? "rank" : "thread", r->threads == 1 ? "" : "s", r->wall_time);
  if (r->stop == ROD_CALIB_STOP_INTERRUPTED)
    fputs("  (interrupted: the best point simulated so far, not converged; "
          "its errors unknown)\n",
          stderr);
  for (int j = 0; j < o->nkeys && r->stop != ROD_CALIB_STOP_INTERRUPTED; j++)
    if (!isfinite(r->std_error[j])) {
      fputs("  (an infinite error: the data do not determine that key)\n",
            stderr);
      break;
    }
  for (int e = 0; r->sets > 1 && e < r->sets; e++)
    fprintf(stderr,
            "  set %d: %s: %d residuals, noise %.3g m (weight %.3g), rms "
            "residual %.3g m\n",
            e + 1, names[e], r->set[e].residuals, r->set[e].noise,
            r->set[e].weight, r->set[e].rms_residual);
  if (r->prefit_simulations > 0)
    fprintf(stderr, "  (a features pre-fit took %d of the simulations%s)\n",
            r->prefit_simulations,
            r->from_prefit ? " and gave the start" : "; its result was worse");
}

/* The fit's progress: the line of progress.h. */
static void progress(const double *values, double rms, int simulations,
                     void *user) {
  (void)values;
  cli_progress_note(user, "calibrate: %d simulations, rms residual %.4g m",
                    simulations, rms);
}

/* SIGINT and SIGTERM stop the fit: the library asks stop_asked at every
 * time step of its simulations and returns the best point so far. A
 * second signal ends the process at once. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
  if (interrupted) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  interrupted = sig;
}

static int stop_asked(void *user) {
  (void)user;
  return interrupted != 0;
}

/* The fitted scenario and its [fit] section to path (or stdout). */
static int write_fitted(const char *path, const rod_out_rules *rules,
                        const rod_scenario *fitted, const rod_calib_options *o,
                        const rod_calib_result *r, const char *extra) {
  size_t n = rod_scenario_to_ini(fitted, NULL, 0);
  size_t m = rod_calib_fit_section(o, r, NULL, 0);
  char *text = malloc(n + m + strlen(extra) + 2);
  if (!text) {
    cli_fail("out of memory");
    return CLI_FAILED;
  }
  rod_scenario_to_ini(fitted, text, n + 1);
  text[n] = '\n';
  rod_calib_fit_section(o, r, text + n + 1, m + 1);
  strcpy(text + n + 1 + m, extra);
  bool to_stdout = !path || strcmp(path, "-") == 0;
  rod_outfile *out = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  if (!to_stdout && rod_outfile_open(path, rules, &out, &err) != ROD_OK) {
    cli_print_error(&err);
    free(text);
    return CLI_BAD_INPUT;
  }
  FILE *f = to_stdout ? stdout : rod_outfile_stream(out);
  int rc = CLI_OK;
  if (!f || fputs(text, f) < 0 || (!to_stdout && fclose(f) != 0)) {
    cli_fail("%s: cannot write (%s)", to_stdout ? "stdout" : path,
             strerror(errno));
    rc = CLI_BAD_INPUT;
  } else if (out && rod_outfile_commit(out, &err) != ROD_OK) {
    cli_print_error(&err);
    rc = CLI_FAILED;
  }
  rod_outfile_close(out, rc != CLI_OK);
  free(text);
  return rc;
}

/* -o: a fitted scenario rodsim wrote (its [fit] section's first line), a
 * new file, or any with --force; never a scenario, its data files or the
 * data fitted. */
static rod_out_rules fitted_rules(const calibrate_args *a,
                                  const rod_scenario *sc, int count) {
  rod_out_rules r = {.kind = ROD_OUT_TEXT,
                     .mark = "; rodsim calibrate",
                     .key = "-o",
                     .force = a->c.force};
  for (int e = 0; e < count; e++) {
    rod_out_add_scenario_inputs(&r, &sc[e]);
    rod_out_add_input(&r, a->set[e].data);
  }
  return r;
}

/* Set e's scenario: its own (a group's) or the command's, with the
 * command's --sets and then the group's. */
static int load_set(const calibrate_args *a, int e, rod_scenario *sc) {
  cli_common c = a->c;
  c.output = NULL; /* -o names the fitted scenario, not output.file */
  const data_set *g = &a->set[e];
  if (a->groups)
    c.scenario = g->scenario;
  for (int k = 0; k < g->nsets; k++) {
    if (c.nsets >= CLI_MAX_SETS) {
      cli_fail("--set: too many overrides");
      return CLI_BAD_INPUT;
    }
    c.sets[c.nsets++] = g->sets[k];
  }
  return cli_load(&c, sc);
}

/* The lines of a joint fit's [fit] section that name its sets. */
static void sets_text(const calibrate_args *a, const rod_scenario *sc,
                      int count, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int e = 0; count > 1 && e < count && n < size; e++)
    n += (size_t)snprintf(buf + n, size - n, "data_%d = %s ; %s\n", e + 1,
                          a->set[e].data, sc[e].source);
}

/* Read the data sets: one shape file alone, or tip CSVs. */
static int read_data(const calibrate_args *a, bool shape, measured *d,
                     rod_tip_data **tips) {
  rod_error err = {{0}, {0}, {0}, 0};
  for (int e = 0; e < a->nsets; e++) {
    if (e > 0 && rod_shape_is_hdf5(a->set[e].data)) {
      cli_fail("%s: a shape file is fitted alone: a joint fit takes tip "
               "CSVs",
               a->set[e].data);
      return CLI_BAD_INPUT;
    }
    if (shape && a->nsets > 1) {
      cli_fail("%s: a shape file is fitted alone: a joint fit takes tip "
               "CSVs",
               a->set[0].data);
      return CLI_BAD_INPUT;
    }
    int st = shape ? rod_shape_read(a->set[e].data, &d->shape, &err)
                   : rod_tip_read(a->set[e].data, &tips[e], &err);
    if (st != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
  }
  d->tip = tips[0];
  return CLI_OK;
}

/* --ensemble N and --seed S; CLI_BAD_INPUT (printed). n = 0: none. */
static int ensemble_args(const calibrate_args *a, int *n, uint64_t *seed) {
  *n = 0;
  *seed = 1;
  char *end;
  if (a->ensemble) {
    errno = 0;
    long v = strtol(a->ensemble, &end, 10);
    if (end == a->ensemble || *end || errno || v < 2 || v > 1000000) {
      cli_fail("--ensemble: expected a count of draws from 2 to 1000000 "
               "(got '%s')",
               a->ensemble);
      return CLI_BAD_INPUT;
    }
    *n = (int)v;
  }
  if (a->seed) {
    errno = 0;
    unsigned long long v = strtoull(a->seed, &end, 10);
    if (end == a->seed || *end || errno || a->seed[0] == '-') {
      cli_fail("--seed: expected a whole number from 0 (got '%s')", a->seed);
      return CLI_BAD_INPUT;
    }
    *seed = v;
  }
  if ((a->seed || a->ensemble_dir) && !a->ensemble) {
    cli_fail("%s: only with --ensemble N",
             a->seed ? "--seed" : "--ensemble-dir");
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* The ensemble's folder: --ensemble-dir, else FITTED (less .ini) with
 * _ensemble, else calibrate_ensemble. */
static void ensemble_dir(const calibrate_args *a, const char *fitted_path,
                         char *out, size_t size) {
  if (a->ensemble_dir) {
    snprintf(out, size, "%s", a->ensemble_dir);
    return;
  }
  if (!fitted_path || strcmp(fitted_path, "-") == 0) {
    snprintf(out, size, "calibrate_ensemble");
    return;
  }
  size_t len = strlen(fitted_path);
  if (len > 4 && strcmp(fitted_path + len - 4, ".ini") == 0)
    len -= 4;
  snprintf(out, size, "%.*s_ensemble", (int)len, fitted_path);
}

/* The ensemble's cases done: the progress line. */
typedef struct {
  cli_progress *pr;
  int done, total;
} ensemble_progress;

static void ensemble_case(void *user, int c, const rod_case_record *rec) {
  ensemble_progress *ep = user;
  (void)c;
  (void)rec;
  cli_progress_count(ep->pr, ++ep->done, ep->total, "case", "cases");
}

/* The draws of every set's ensemble through the sweep, their bands into
 * text (the [fit] lines, appended at *used). CLI_OK, or the exit status
 * (printed). */
static int run_ensembles(const calibrate_args *a, const rod_scenario *fitted,
                         const rod_calib_options *o, const rod_calib_result *r,
                         int n, uint64_t seed, const char *dir, char **text,
                         size_t *used, cli_progress *pr) {
  const int count = a->nsets;
  if (count > 1 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
    cli_fail("%s: cannot make the ensemble's folder (%s)", dir,
             strerror(errno));
    return CLI_BAD_INPUT;
  }
  for (int e = 0; e < count; e++) {
    char where[ROD_PATH_MAX + 16];
    if (count > 1)
      snprintf(where, sizeof where, "%s/set-%d", dir, e + 1);
    else
      snprintf(where, sizeof where, "%s", dir);
    ensemble_progress ep = {pr, 0, n};
    cli_progress_init(pr, fitted[e].source, a->c.quiet); /* its own pace */
    rod_sweep_options so = {.threads = o->threads,
                            .stop = (const volatile int *)&interrupted,
                            .on_case = ensemble_case,
                            .user = &ep};
    rod_sweep_report rep;
    rod_calib_band *band;
    rod_error err = {{0}, {0}, {0}, 0};
    int st = rod_calib_ensemble(&fitted[e], o, r, n, seed, where, &so, &rep,
                                &band, &err);
    cli_progress_end(pr);
    if (st == ROD_EINTR)
      return CLI_INTERRUPTED;
    if (st != ROD_OK) {
      cli_print_error(&err);
      return st == ROD_EINVAL ? CLI_BAD_INPUT : CLI_FAILED;
    }
    double wide[3] = {0, 0, 0};
    for (int i = 0; i < band->samples; i++)
      for (int c = 0; c < 3; c++)
        wide[c] = fmax(wide[c], band->q95[3 * i + c] - band->q05[3 * i + c]);
    if (!a->c.quiet)
      fprintf(stderr,
              "  ensemble%s%s: %d draws (seed %llu) in %s: %d complete (%d "
              "run now), %d left out; the tip's 5-95 %% band at most %.3g mm "
              "wide in x, %.3g mm in z\n",
              count > 1 ? " of " : "", count > 1 ? a->set[e].data : "", n,
              (unsigned long long)seed, where, band->cases, rep.ran,
              band->failed, wide[0] * 1e3, wide[2] * 1e3);
    size_t need =
        rod_calib_band_lines(band, e + 1, NULL, 0) + 200 + strlen(where);
    char *grown = realloc(*text, *used + need + 1);
    if (!grown) {
      rod_calib_band_free(band);
      cli_fail("out of memory");
      return CLI_FAILED;
    }
    *text = grown;
    *used += (size_t)snprintf(*text + *used, need + 1,
                              "ensemble_%d = %d draws, seed %llu, %d complete "
                              "; %s\n",
                              e + 1, n, (unsigned long long)seed, band->cases,
                              where);
    *used += rod_calib_band_lines(band, e + 1, *text + *used, need + 1);
    rod_calib_band_free(band);
  }
  return CLI_OK;
}

int cmd_calibrate(int argc, char **argv) {
  calibrate_args a = {0};
  int rc = parse(&a, argc, argv);
  if (rc != CLI_OK)
    return rc < 0 ? CLI_OK : rc;
  const char *fitted_path = a.c.output;
  const int count = a.nsets;
  rod_scenario *sc = malloc(2 * (size_t)count * sizeof *sc);
  if (!sc) {
    cli_fail("out of memory");
    return CLI_FAILED;
  }
  rod_scenario *fitted = sc + count;
  rod_calib_options o;
  const bool shape = rod_shape_is_hdf5(a.set[0].data);
  for (int e = 0; e < count && rc == CLI_OK; e++)
    rc = load_set(&a, e, &sc[e]);
  int draws = 0;
  uint64_t seed = 1;
  if (rc == CLI_OK)
    rc = options(&a, &sc[0], shape, &o);
  if (rc == CLI_OK)
    rc = ensemble_args(&a, &draws, &seed);
  if (rc != CLI_OK) {
    free(sc);
    return rc;
  }
  rod_out_rules rules = fitted_rules(&a, sc, count);
  rod_error err = {{0}, {0}, {0}, 0};
  if (fitted_path && strcmp(fitted_path, "-") != 0 &&
      rod_outfile_check(fitted_path, &rules, &err) != ROD_OK) {
    cli_print_error(&err); /* before the fit's minutes */
    free(sc);
    return CLI_BAD_INPUT;
  }
  measured data = {NULL, NULL};
  rod_tip_data *tips[ROD_CALIB_MAX_SETS] = {NULL};
  if ((rc = read_data(&a, shape, &data, tips)) != CLI_OK) {
    for (int e = 0; e < count; e++)
      rod_tip_data_free(tips[e]);
    rod_shape_free(data.shape);
    free(sc);
    return rc;
  }
  cli_progress pr;
  cli_progress_init(&pr, sc[0].source, a.c.quiet);
  o.progress = progress;
  o.progress_user = &pr;
  o.stop = stop_asked;
  rod_calib_result r;
  rod_calib_experiment ex[ROD_CALIB_MAX_SETS];
  const char *names[ROD_CALIB_MAX_SETS];
  for (int e = 0; e < count; e++) {
    ex[e] = (rod_calib_experiment){&sc[e], tips[e], a.set[e].data};
    names[e] = a.set[e].data;
  }
  cli_catch_signals(on_signal);
  int st = shape ? rod_calib_fit_shape(&sc[0], data.shape, a.set[0].data, &o,
                                       fitted, &r, &err)
                 : rod_calib_fit_joint(ex, count, &o, fitted, &r, &err);
  cli_progress_end(&pr);
  if (st == ROD_OK && !a.c.quiet)
    summary(&o, &r, &data, names);
  for (int e = 0; e < count; e++)
    rod_tip_data_free(tips[e]);
  rod_shape_free(data.shape);
  if (st != ROD_OK) {
    cli_print_error(&err);
    free(sc);
    return st == ROD_EINVAL ? CLI_BAD_INPUT : CLI_FAILED;
  }
  size_t used = ROD_CALIB_MAX_SETS * 1100;
  char *extra = malloc(used);
  if (!extra) {
    free(sc);
    cli_fail("out of memory");
    return CLI_FAILED;
  }
  sets_text(&a, sc, count, extra, used);
  used = strlen(extra);
  int erc = CLI_OK;
  if (draws > 0 && r.stop != ROD_CALIB_STOP_INTERRUPTED) {
    char dir[ROD_PATH_MAX];
    ensemble_dir(&a, fitted_path, dir, sizeof dir);
    erc =
        run_ensembles(&a, fitted, &o, &r, draws, seed, dir, &extra, &used, &pr);
  }
  rc = write_fitted(fitted_path, &rules, &fitted[0], &o, &r, extra);
  free(extra);
  if (rc == CLI_OK && erc == CLI_INTERRUPTED) {
    cli_fail("%s: the ensemble was interrupted (%s); the fit is written "
             "without its band, the same command continues the ensemble",
             sc[0].source, interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
    free(sc);
    return CLI_INTERRUPTED;
  }
  if (rc == CLI_OK)
    rc = erc;
  if (r.stop == ROD_CALIB_STOP_INTERRUPTED) {
    cli_fail("%s: interrupted (%s) after %d simulations; the best point so "
             "far is written, not converged",
             sc[0].source, interrupted == SIGTERM ? "SIGTERM" : "SIGINT",
             r.simulations);
    free(sc);
    return rc == CLI_OK ? 130 : rc;
  }
  if (rc == CLI_OK && !r.converged) {
    cli_fail("%s: the fit did not converge in %d iterations (the best point "
             "is written)",
             sc[0].source, r.iterations);
    rc = CLI_FAILED;
  }
  free(sc);
  return rc;
}
