/* What long work tells while it runs (docs/commands.md, Progress and the cost
 * of long work): on a terminal one line rewritten in place; with stderr not a
 * terminal (a job, a notebook, a log file) a plain line every minute; a run
 * estimated from its first steps to take more than 10 minutes says so once,
 * with the setting that makes its cost; work that reports nothing while it runs
 * (the static solve) shows its time so far. --quiet silences all of it. Every
 * command that runs long uses one cli_progress; it may be fed from several
 * threads. */
#ifndef ROD_CLI_PROGRESS_H
#define ROD_CLI_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>

#include "rod/sample.h"
#include "rod/scenario.h"

/* Work estimated above this (s) is said to be long, once. */
#define CLI_LONG_WORK 600.0

typedef struct {
  char source[256]; /* the scenario (or what the work is on), for messages */
  char label[96];   /* what runs now ("" or "bench dt = 0.001 s") */
  bool quiet, tty;
  pthread_mutex_t lock;
  double last_line; /* s, when the last line was printed (pipe) */
  double interval;  /* s between plain lines (pipe) */
  double started;   /* s, when the work began */
  bool shown;       /* a rewritten line stands on the terminal */
  bool told;        /* the long-work warning was given */
  /* the simulation now running (cli_progress_sim) */
  const rod_scenario *sc;
  int points;      /* the grid's nodes or the chain's elements */
  bool have_first; /* its first report: where the estimate starts */
  double t_first, wall_first;
  int steps_first;
  /* a wait shown by a thread of its own (cli_progress_wait) */
  pthread_t waiter;
  pthread_cond_t wake;
  bool waiting, stop_waiting;
  bool to_join; /* told to stop, not yet joined (it ends on its own) */
  char wait_text[128];
  double wait_start;
  /* the waited work's share done (0 to 1; < 0: not known), polled by the
   * waiting thread (cli_progress_wait_share) */
  double (*share)(const void *user);
  const void *share_user;
} cli_progress;

/* Start: source names the work in messages; quiet silences everything. */
void cli_progress_init(cli_progress *p, const char *source, bool quiet);
/* Erase the terminal's line and free what the progress holds. */
void cli_progress_end(cli_progress *p);

/* A simulation of sc starts (label: "" or what distinguishes it, e.g.
 * "compare, 16 elements"); sc is read until the next one starts. */
void cli_progress_sim(cli_progress *p, const rod_scenario *sc,
                      const char *label);
/* The simulation's report (rod_sim_sink's progress): at t of t_end (s),
 * after `steps` steps and `wall` s since it was made. The line, and the
 * long-work warning when the estimate first passes CLI_LONG_WORK. */
void cli_progress_step(cli_progress *p, double t, double t_end, int steps,
                       double wall);

/* Counted work (the cases of a sweep; one and many name a unit, "case"
 * and "cases"): the line, and the warning when the estimate from the
 * first ones passes CLI_LONG_WORK. */
void cli_progress_count(cli_progress *p, int done, int total, const char *one,
                        const char *many);

/* Free text for the line (calibrate: simulations and the residual). */
void cli_progress_note(cli_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Work that reports nothing until it ends (what: "solving the static
 * state"): a thread shows its time so far, on a terminal from the first
 * second on, in a pipe every minute, until cli_progress_waited or the
 * first cli_progress_step. Called from the thread that feeds p. */
void cli_progress_wait(cli_progress *p, const char *what);
void cli_progress_waited(cli_progress *p);
/* The same with the share done, share(user) (0 to 1, polled each second
 * from the waiting thread; < 0 while not known), shown beside the time:
 * "solving the static state: 40 % of the loads, 3 s so far". */
void cli_progress_wait_share(cli_progress *p, const char *what,
                             double (*share)(const void *user),
                             const void *user);

/* Erase the terminal's line before other output. */
void cli_progress_clear(cli_progress *p);

/* A sink that hands samples, ticks and the close to inner (NULL: none)
 * and its progress reports to p (cli_progress_step). */
typedef struct {
  rod_sim_sink inner;
  cli_progress *p;
} cli_progress_sink;
rod_sim_sink cli_progress_sink_of(cli_progress_sink *ps,
                                  const rod_sim_sink *inner, cli_progress *p);

/* "40 s", "12 min", "12 h", "3.2 days" */
void cli_duration(double seconds, char *buf, size_t size);

#endif
