/* rodsim sweep: many runs of one scenario into a directory, with an index
 * (docs/scale.md); and the serving side of the other ranks of an MPI job. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "rod/parallel.h"
#include "rod/sweep.h"

static const char *help =
    "usage: rodsim sweep SCENARIO.ini -o DIR [--vary KEY=V1,V2,...]...\n"
    "                    [--vary KEY=START:STOP:COUNT[:log]]...\n"
    "                    [--cases CASES.csv] [--samples N [--seed S]]\n"
    "                    [--threads N] [--shard I/N] [--retry-failed]\n"
    "                    [--static] [--set SECTION.KEY=VALUE]... [--quiet]\n\n"
    "Runs the scenario once per case, each as `rodsim run` runs it with the\n"
    "case's keys set (--static: as `rodsim static`), into DIR/case-NNNNN.h5,\n"
    "and keeps DIR/index.h5: the keys, each case's values, status, message,\n"
    "wall time and summary figures (docs/scale.md). The cases are every\n"
    "combination of the --vary lists and ranges (COUNT values from START to\n"
    "STOP, evenly or in log), times the rows of CASES.csv (a header of\n"
    "SECTION.KEY names, a row of values per case), times N Latin hypercube\n"
    "samples over the ranges given without COUNT (--samples, stream S). A\n"
    "[sweep] section of the scenario may hold the same (vary = ..., cases =,\n"
    "samples =, seed =, threads =); the options replace it.\n\n"
    "Running it again on DIR continues: complete cases are not run again, a\n"
    "case that was running when the sweep was killed is; failed and refused\n"
    "cases only with --retry-failed. Another sweep on DIR is refused.\n"
    "Cases run N at a time on threads (default: the cores it may run on), or\n"
    "under `mpirun -n K` / `srun` on every rank; --shard I/N runs the cases c\n"
    "with c mod N = I (a Slurm job array on one DIR).\n\n"
    "Exit status: 0 every case complete, 1 a case failed or was refused (or\n"
    "the index could not be written), 2 bad input, 130 interrupted (SIGINT,\n"
    "SIGTERM: the running cases stop after their step, the next run\n"
    "continues them).\n";

/* SIGINT and SIGTERM stop the sweep after the running cases' steps; a
 * second signal ends the process at once (the index and files stay
 * whole: the next run continues). */
static volatile sig_atomic_t stopping;
_Static_assert(sizeof(sig_atomic_t) == sizeof(int),
               "the library reads the flag as an int");

static void on_signal(int sig) {
  if (stopping) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  stopping = sig;
}

static void catch_signals(void) { cli_catch_signals(on_signal); }

static const volatile int *stop_flag(void) {
  return (const volatile int *)&stopping;
}

int cli_mpi_serve(void) {
  catch_signals();
  return rod_mpi_serve(stop_flag()) == ROD_OK ? CLI_OK : CLI_FAILED;
}

enum { MAX_VARY = 64 };

typedef struct {
  cli_common c;
  const char *vary[MAX_VARY];
  int nvary;
  const char *cases, *samples, *seed, *threads, *shard;
  bool retry_failed, static_only;
} sweep_args;

/* A whole number from lo to hi, or -1 (printed). */
static long whole(const char *option, const char *text, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno || v < lo || v > hi) {
    cli_fail("%s: expected a whole number from %ld to %ld (got '%s')", option,
             lo, hi, text);
    return -1;
  }
  return v;
}

/* Parse argv; CLI_OK, CLI_BAD_INPUT (printed), or -1 after --help. */
static int parse(sweep_args *a, int argc, char **argv) {
  static const char *const names[] = {"--cases", "--samples", "--seed",
                                      "--threads", "--shard"};
  const char **slots[] = {&a->cases, &a->samples, &a->seed, &a->threads,
                          &a->shard};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    }
    const char *v = NULL;
    int r = cli_option(argc, argv, &i, "--vary", &v);
    if (r > 0) {
      if (a->nvary == MAX_VARY) {
        cli_fail("--vary: at most %d", MAX_VARY);
        return CLI_BAD_INPUT;
      }
      a->vary[a->nvary++] = v;
      continue;
    }
    for (int k = 0; k < 5 && r == 0; k++)
      r = cli_option(argc, argv, &i, names[k], slots[k]);
    if (r == 0 && strcmp(argv[i], "--retry-failed") == 0) {
      a->retry_failed = true;
      r = 1;
    }
    if (r == 0 && strcmp(argv[i], "--static") == 0) {
      a->static_only = true;
      r = 1;
    }
    if (r == 0)
      r = cli_common_arg(&a->c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("sweep: unknown option '%s' (see rodsim sweep --help)", argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  if (!a->c.output) {
    cli_fail("sweep: missing -o DIR, the sweep's directory (see rodsim sweep "
             "--help)");
    return CLI_BAD_INPUT;
  }
  if (a->seed && !a->samples) {
    cli_fail("--seed: needs --samples N");
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* --shard I/N into o. */
static int shard(const char *text, rod_sweep_options *o) {
  int i, n, used = 0;
  if (sscanf(text, "%d/%d%n", &i, &n, &used) != 2 || text[used] || n < 1 ||
      i < 0 || i >= n) {
    cli_fail("--shard: expected I/N with 0 <= I < N (got '%s')", text);
    return CLI_BAD_INPUT;
  }
  o->shard = i;
  o->shards = n;
  return CLI_OK;
}

/* The definition from the options, or else the [sweep] section. */
static int define(const sweep_args *a, const rod_scenario *base,
                  rod_sweep_def *d, rod_sweep_options *o) {
  rod_error err = {{0}, {0}, {0}, 0};
  rod_sweep_section section;
  const bool options = a->nvary > 0 || a->cases || a->samples;
  rod_sweep_def *ignored = options ? rod_sweep_def_new() : NULL;
  int st = rod_sweep_def_section(options ? ignored : d, a->c.scenario, &section,
                                 &err);
  rod_sweep_def_free(ignored);
  for (int k = 0; k < a->nvary && st == ROD_OK; k++)
    st = rod_sweep_def_vary(d, a->vary[k], "--vary", &err);
  if (st == ROD_OK && a->cases)
    st = rod_sweep_def_csv(d, a->cases, &err);
  if (st != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  if (a->samples) {
    long n = whole("--samples", a->samples, 1, 10000000);
    long long seed = 0;
    if (n < 0 ||
        (a->seed && (seed = whole("--seed", a->seed, 0, 2147483647L)) < 0))
      return CLI_BAD_INPUT;
    rod_sweep_def_samples(d, (int)n, (uint64_t)seed, "--samples", &err);
  }
  o->threads = section.threads;
  if (a->threads) {
    long n = whole("--threads", a->threads, 1, 256);
    if (n < 0)
      return CLI_BAD_INPUT;
    o->threads = (int)n;
  }
  if (rod_sweep_def_build(d, base, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* A case's keys, "rod.length=0.3, rod.drag=0" (cut to fit). */
static void describe(const rod_sweep_def *d, int c, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < rod_sweep_def_keys(d) && used + 1 < size; k++)
    used +=
        (size_t)snprintf(buf + used, size - used, "%s%s=%s", k ? ", " : "",
                         rod_sweep_def_key(d, k), rod_sweep_def_text(d, c, k));
}

typedef struct {
  const rod_sweep_def *def;
  const char *dir;
  bool quiet;
  int done, to_run;
  cli_progress line; /* progress.h: rewritten on a terminal, a plain line
                        every minute in a pipe, the cost of long work */
} progress;

/* Each case as it is recorded: a failure or refusal on its own line, and
 * the progress line with the cases run of those to run now. */
static void on_case(void *user, int c, const rod_case_record *rec) {
  progress *p = user;
  p->done++;
  if (p->quiet)
    return;
  if (rec->status == ROD_CASE_FAILED || rec->status == ROD_CASE_REFUSED) {
    char keys[300];
    describe(p->def, c, keys, sizeof keys);
    cli_progress_clear(&p->line);
    fprintf(stderr, "rodsim: %s: case %d (%s) %s: %s\n", p->dir, c, keys,
            rod_case_status_name(rec->status), rec->message);
  }
  cli_progress_count(&p->line, p->done, p->to_run, "case", "cases");
}

/* The cases of this shard that rod_sweep_run will run: pending, running and
 * interrupted ones, failed and refused ones with --retry-failed. */
static int cases_to_run(const rod_sweep *s, const rod_sweep_options *o) {
  int n = 0;
  for (int c = 0; c < rod_sweep_cases(s); c++) {
    if (o->shards > 1 && c % o->shards != o->shard)
      continue;
    const int st = rod_sweep_status(s, c);
    n += st == ROD_CASE_PENDING || st == ROD_CASE_RUNNING ||
         st == ROD_CASE_INTERRUPTED ||
         (o->retry_failed && (st == ROD_CASE_FAILED || st == ROD_CASE_REFUSED));
  }
  return n;
}

/* The command line's warnings about a case's scenario (unit slips, time step,
 * grid, impulse), as `rodsim run` prints them, into one line of the record. */
static void warn(void *user, const rod_scenario *sc, char *buf, size_t size) {
  (void)user;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return;
  FILE *before = cli_messages_to(f);
  cli_warn_scenario(sc, ROD_WARN_ALL);
  cli_messages_to(before == stderr ? NULL : before);
  fclose(f);
  buf[0] = '\0';
  size_t used = 0;
  for (char *line = text; line && *line && used + 1 < size;) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    const char *body = strncmp(line, "rodsim: ", 8) == 0 ? line + 8 : line;
    used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "; " : "",
                             body);
    line = end ? end + 1 : NULL;
  }
  if (used >= size)
    buf[size - 1] = '\0';
  free(text);
}

static int summary(const sweep_args *a, const rod_sweep_report *r, int st) {
  const int *n = r->counts;
  if (!a->c.quiet || st != ROD_OK)
    printf("%s: %d cases: %d complete, %d failed, %d refused, %d to run "
           "(%d run now in %.3g s, %d %s%s%s) -> %s/index.h5\n",
           a->c.output, r->cases, n[ROD_CASE_COMPLETE], n[ROD_CASE_FAILED],
           n[ROD_CASE_REFUSED],
           n[ROD_CASE_PENDING] + n[ROD_CASE_RUNNING] + n[ROD_CASE_INTERRUPTED],
           r->ran, r->wall_time, r->ranks > 1 ? r->ranks : r->threads,
           r->ranks > 1 ? "ranks" : "thread",
           r->ranks > 1 || r->threads == 1 ? "" : "s",
           r->recovered ? ", some recorded from their complete files" : "",
           a->c.output);
  if (st == ROD_EINTR) {
    cli_fail("%s: interrupted (%s); run the same command again to continue",
             a->c.output, stopping == SIGTERM ? "SIGTERM" : "SIGINT");
    return CLI_INTERRUPTED;
  }
  if (n[ROD_CASE_FAILED] + n[ROD_CASE_REFUSED] > 0)
    return CLI_FAILED;
  return CLI_OK;
}

int cmd_sweep(int argc, char **argv) {
  sweep_args a = {0};
  int rc = parse(&a, argc, argv);
  if (rc != CLI_OK)
    return rc < 0 ? CLI_OK : rc;
  const char *dir = a.c.output;
  a.c.output = NULL; /* -o names the directory, not output.file */
  rod_scenario *base = malloc(sizeof *base);
  rod_sweep_def *d = rod_sweep_def_new();
  rod_sweep_options o = {.static_only = a.static_only,
                         .retry_failed = a.retry_failed,
                         .stop = stop_flag(),
                         .on_case = on_case,
                         .warn = warn};
  if (!base || !d) {
    cli_fail("out of memory");
    rc = CLI_FAILED;
  }
  if (rc == CLI_OK)
    rc = cli_load(&a.c, base);
  if (rc == CLI_OK)
    rc = define(&a, base, d, &o);
  if (rc == CLI_OK && a.shard)
    rc = shard(a.shard, &o);
  progress p = {.def = d, .dir = dir, .quiet = a.c.quiet};
  cli_progress_init(&p.line, dir, a.c.quiet);
  o.user = &p;
  rod_sweep *s = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  if (rc == CLI_OK) {
    catch_signals();
    int st = rod_sweep_open(&s, dir, base, d, &o, &err);
    if (st != ROD_OK) {
      cli_print_error(&err);
      rc = st == ROD_EINVAL ? CLI_BAD_INPUT : CLI_FAILED;
    } else {
      p.to_run = cases_to_run(s, &o);
    }
  }
  if (rc == CLI_OK) {
    rod_sweep_report rep;
    int st = rod_sweep_run(s, &rep, &err);
    cli_progress_clear(&p.line);
    a.c.output = dir;
    if (st != ROD_OK && st != ROD_EINTR) {
      cli_print_error(&err);
      rc = CLI_FAILED;
    } else {
      rc = summary(&a, &rep, st);
    }
    if (rod_sweep_close(s) != ROD_OK && rc == CLI_OK) {
      cli_fail("%s/index.h5: cannot close the index", dir);
      rc = CLI_FAILED;
    }
  }
  cli_progress_end(&p.line);
  rod_sweep_def_free(d);
  free(base);
  return rc;
}
