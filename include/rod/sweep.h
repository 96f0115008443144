/* Many runs of one scenario (docs/scale.md): a sweep is a table of cases,
 * each the scenario with some keys set, run as `rodsim run` runs it into
 * DIR/case-NNNNN.h5, and an index, DIR/index.h5, of every case's status,
 * message, wall time and summary figures.
 *
 *   rod_sweep_def *d = rod_sweep_def_new();
 *   rod_sweep_def_vary(d, "rod.length=0.2:0.4:5", "--vary", &err);
 *   rod_sweep_def_build(d, &base, &err);
 *   rod_sweep *s;
 *   rod_sweep_open(&s, "out", &base, d, &opts, &err);  (creates or continues)
 *   rod_sweep_run(s, &report, &err);
 *   rod_sweep_close(s);
 *
 * The cases are a queue, not a loop: whoever is free (a thread, an MPI
 * rank: rod/parallel.h) takes the next, so cases of very different cost
 * balance themselves. A case is done when its file says "complete" and the
 * index says so; opening the same sweep again continues it (the files are
 * trusted, not the index alone). The index is written in place, a few
 * bytes a case, never rewritten whole, and opens after a kill at any
 * moment (docs/scale.md). The library never prints. */
#ifndef ROD_SWEEP_H
#define ROD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rod/scenario.h"
#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the definition: which cases ----------------------------------------
 * Cases are the product of blocks, the first block varying slowest: the
 * rows of a cases CSV, one block per --vary list or range with a count,
 * and the Latin hypercube samples over the ranges without a count. */

typedef struct rod_sweep_def rod_sweep_def;

rod_sweep_def *rod_sweep_def_new(void);
void rod_sweep_def_free(rod_sweep_def *d);

/* "SECTION.KEY=V1,V2,..." (the values as text, any type the key takes),
 * "SECTION.KEY=START:STOP:COUNT" (COUNT values, evenly spaced),
 * "...:COUNT:log" (spaced evenly in log), or for --samples
 * "SECTION.KEY=START:STOP[:log]". source names the origin in messages
 * ("--vary", or the scenario file of a [sweep] section). ROD_EINVAL with
 * err = {source, the key, why}: no '=', an empty list or value, a COUNT
 * below 1, a log range through 0, a key given twice. */
int rod_sweep_def_vary(rod_sweep_def *d, const char *spec, const char *source,
                       rod_error *err);

/* The rows of a CSV file as cases: a header of SECTION.KEY names, then one
 * row of values per case (a value with a comma in double quotes; lines
 * starting with '#' are comments). ROD_EINVAL naming the file (and line):
 * no header, a header naming no key (checked by rod_sweep_def_build), a
 * row of another width, no rows. */
int rod_sweep_def_csv(rod_sweep_def *d, const char *path, rod_error *err);

/* n Latin hypercube samples over the ranges START:STOP without a count
 * (one stratum of [START, STOP) per sample and key, stream `seed` of
 * rod_random: the same samples on any machine). n >= 1. */
int rod_sweep_def_samples(rod_sweep_def *d, int n, uint64_t seed,
                          const char *source, rod_error *err);

/* The settings of a [sweep] section besides the cases. */
typedef struct {
  int threads;    /* 0: not given */
  bool has_cases; /* vary, cases or samples given */
} rod_sweep_section;

/* Read the [sweep] section of the scenario file at path into d: a line
 * SECTION.KEY = VALUES per varied key (VALUES as after --vary KEY=),
 * cases = FILE.csv (relative to the scenario's folder), samples = N, seed
 * = S, threads = N. No section: ROD_OK with nothing set. */
int rod_sweep_def_section(rod_sweep_def *d, const char *path,
                          rod_sweep_section *out, rod_error *err);

/* The cases as a table of texts given directly (the calibration's
 * ensemble): nkeys SECTION.KEY names and ncases x nkeys values,
 * row-major. Replaces what d held. */
int rod_sweep_def_table(rod_sweep_def *d, int nkeys, const char *const *keys,
                        int ncases, const char *const *texts, rod_error *err);

/* Every case of d against the base scenario (after its --set): the table
 * of texts is made and each key checked to exist (an unknown key is
 * ROD_EINVAL naming it). A value a case's scenario refuses is that case's
 * problem (it is "refused" when it runs), not the sweep's. ROD_EINVAL for
 * no cases at all. */
int rod_sweep_def_build(rod_sweep_def *d, const rod_scenario *base,
                        rod_error *err);

/* After rod_sweep_def_build: cases, keys, key k's name, case c's text of
 * key k. */
int rod_sweep_def_cases(const rod_sweep_def *d);
int rod_sweep_def_keys(const rod_sweep_def *d);
const char *rod_sweep_def_key(const rod_sweep_def *d, int k);
const char *rod_sweep_def_text(const rod_sweep_def *d, int c, int k);

/* Case c's scenario: base with case c's keys set as --set sets them and
 * output.file = path, validated. ROD_EINVAL with err when refused. */
int rod_sweep_case_scenario(const rod_sweep_def *d, const rod_scenario *base,
                            int c, const char *path, rod_scenario *out,
                            rod_error *err);

/* ---- one case ------------------------------------------------------------ */

typedef enum {
  ROD_CASE_PENDING = 0,
  ROD_CASE_RUNNING,     /* handed out, or the sweep stopped while it ran */
  ROD_CASE_COMPLETE,    /* its file says complete */
  ROD_CASE_FAILED,      /* the solver failed or the file could not be
                           written (message says why) */
  ROD_CASE_REFUSED,     /* its scenario is bad input (message) */
  ROD_CASE_INTERRUPTED, /* stopped by a signal; runs again on restart */
  ROD_CASE_STATUSES
} rod_case_status;

/* "pending", "running", ... (NULL for another value). */
const char *rod_case_status_name(int status);

enum { ROD_SWEEP_TEXT = 256 };

/* What a case left: its status and the summary figures of its file
 * (docs/scale.md); NaN where a figure is not defined. */
typedef struct {
  int status;            /* rod_case_status */
  double wall_time;      /* s, of the case's run (set-up to file closed) */
  double time;           /* s, simulated time reached */
  double tip_final[3];   /* m, the tip at the last sample */
  double tip_min[3];     /* m, each coordinate's least over the samples */
  double tip_max[3];     /* m, and greatest */
  double frequency;      /* Hz, the dominant frequency of the tip coordinate
                            that moves most after t = 0 (rod/signal.h, as
                            `compare`); NaN: no oscillation to measure */
  double energy_drift;   /* J, the rod's mechanical energy (with the energy
                            contacts took out) at the end minus after the
                            first step: drag and damping make it negative */
  double error_estimate; /* m, the run's estimate of its largest tip error
                            (rod_sim_error_estimate; after a restart the
                            largest value of the file's /error_estimate),
                            NaN when the run makes none */
  char message[ROD_SWEEP_TEXT]; /* why it failed, was refused or stopped */
  char warning[ROD_SWEEP_TEXT]; /* what the run warned about ("" none) */
} rod_case_record;

/* A record of status with every figure NaN and no text. */
void rod_case_record_init(rod_case_record *rec, int status);

/* Run sc as `rodsim run` runs it (static_only: `rodsim static`) into its
 * output.file, then summarize the file into rec. *stop (may be NULL)
 * non-zero stops the run after the step in progress (interrupted).
 * Returns rec->status. Thread-safe: cases may run side by side. */
int rod_sweep_run_case(const rod_scenario *sc, bool static_only,
                       const volatile int *stop, rod_case_record *rec);

/* The summary figures of the run file at path into rec (its status from
 * the file's); ROD_EIO when it cannot be read. */
int rod_sweep_summarize(const char *path, rod_case_record *rec);

/* ---- a sweep directory -----------------------------------------------------
 */

typedef struct {
  bool static_only;         /* cases as `rodsim static` (one sample, t = 0) */
  bool retry_failed;        /* run failed and refused cases again */
  int shard, shards;        /* run only the cases c with c mod shards == shard
                               (Slurm job arrays on one DIR); shards <= 1: all */
  int threads;              /* cases at once in this process (no MPI); 0: the
                               cores it may run on (its affinity) */
  const volatile int *stop; /* non-zero: hand out no more cases and stop
                               the running ones (SIGINT) */
  /* After each case recorded (may be NULL): for progress and messages. */
  void (*on_case)(void *user, int c, const rod_case_record *rec);
  /* The warnings a case's scenario deserves before it runs, into buf
   * (may be NULL; the command line's own checks). */
  void (*warn)(void *user, const rod_scenario *sc, char *buf, size_t size);
  void *user;
} rod_sweep_options;

/* What rod_sweep_run did. */
typedef struct {
  int cases;       /* in the sweep */
  int done_before; /* complete when it started (files and index) */
  int recovered;   /* complete files the index had not recorded */
  int ran;         /* cases run now */
  int counts[ROD_CASE_STATUSES]; /* statuses of the whole sweep at the end */
  int ranks;                     /* MPI ranks (1 without) */
  int threads;                   /* cases at once in this process */
  double wall_time;              /* s */
} rod_sweep_report;

typedef struct rod_sweep rod_sweep;

/* Open the sweep d of base in dir: create dir (one level) and the index,
 * or continue the sweep found there (a case whose file is complete but the
 * index is not is recorded from its file; a case that was running is
 * pending again). ROD_EINVAL with err naming dir: dir is a file, holds a
 * different sweep (err says what differs), or another sweep writes it
 * now; ROD_EIO when the index cannot be made or read. */
int rod_sweep_open(rod_sweep **out, const char *dir, const rod_scenario *base,
                   const rod_sweep_def *d, const rod_sweep_options *o,
                   rod_error *err);

/* Run every case still to run (pending, running, interrupted; failed and
 * refused with retry_failed) of this shard: on o->threads threads, or
 * over the ranks of MPI (rod/parallel.h) when it runs on more than one.
 * ROD_OK when every case ran (whatever its status); ROD_EINTR after stop;
 * ROD_EIO when the index could not be written. */
int rod_sweep_run(rod_sweep *s, rod_sweep_report *rep, rod_error *err);

/* For a caller that runs the cases itself (Python's executors): claim the
 * next case to run (its index status becomes running), its scenario into
 * sc (may be NULL); -1 when none is left. Then rod_sweep_record its
 * record when it ran (rod_sweep_run_case on any machine). */
int rod_sweep_next(rod_sweep *s, rod_scenario *sc);
int rod_sweep_record(rod_sweep *s, int c, const rod_case_record *rec);

int rod_sweep_cases(const rod_sweep *s);
/* The status of case c in the index. */
int rod_sweep_status(const rod_sweep *s, int c);
/* Case c's record as the index holds it (status, texts, wall time,
 * figures): ROD_EINVAL for c out of range, ROD_EIO when unreadable. */
int rod_sweep_get_record(const rod_sweep *s, int c, rod_case_record *rec);
/* DIR/index.h5 */
const char *rod_sweep_index(const rod_sweep *s);

/* Close the index and release dir. NULL is a no-op. */
int rod_sweep_close(rod_sweep *s);

/* sizeof(rod_case_record), for bindings that move records as bytes. */
size_t rod_case_record_size(void);

#ifdef __cplusplus
}
#endif

#endif
