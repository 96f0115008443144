/* Progress and the cost of long work on stderr (progress.h,
 * docs/commands.md, Progress and the cost of long work). */
#include "progress.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* s between the plain lines written when stderr is not a terminal; the
 * environment's RODSIM_PROGRESS_INTERVAL (s, not documented: for the tests,
 * which cannot wait minutes) replaces it */
static const double pipe_interval = 60.0;

static double line_interval(void) {
  const char *env = getenv("RODSIM_PROGRESS_INTERVAL");
  char *end;
  const double s = env ? strtod(env, &end) : 0.0;
  return env && end != env && !*end && s >= 0 && s < 1e6 ? s : pipe_interval;
}
/* s of steps (or of counted work) before the cost is estimated: the
 * first step or case alone says little */
static const double estimate_after = 1.0;
/* s before a wait shows on a terminal */
static const double wait_shown_after = 1.0;
/* The scale of the shipped scenarios' runs (the weight release: 1000
 * steps on 49 nodes): the long-work warning names the setting furthest
 * beyond it, the steps or the points a step solves. */
static const double usual_steps = 1000.0, usual_points = 50.0;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void cli_duration(double s, char *buf, size_t size) {
  if (!isfinite(s))
    snprintf(buf, size, "?");
  else if (s < 90)
    snprintf(buf, size, "%.0f s", s);
  else if (s < 90 * 60)
    snprintf(buf, size, "%.0f min", s / 60);
  else if (s < 48 * 3600)
    snprintf(buf, size, "%.2g h", s / 3600);
  else
    snprintf(buf, size, "%.2g days", s / 86400);
}

/* A short time: "0.72 ms", "1.5 s" */
static void short_time(double s, char *buf, size_t size) {
  if (s < 1e-3)
    snprintf(buf, size, "%.2g us", s * 1e6);
  else if (s < 1.0)
    snprintf(buf, size, "%.2g ms", s * 1e3);
  else
    snprintf(buf, size, "%.2g s", s);
}

void cli_progress_init(cli_progress *p, const char *source, bool quiet) {
  memset(p, 0, sizeof *p);
  snprintf(p->source, sizeof p->source, "%s", source ? source : "");
  p->quiet = quiet;
  p->tty = isatty(STDERR_FILENO);
  p->interval = line_interval();
  pthread_mutex_init(&p->lock, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&p->wake, &ca);
  pthread_condattr_destroy(&ca);
  p->started = p->last_line = now();
}

/* Under the lock: erase the terminal's line. */
static void erase(cli_progress *p) {
  if (p->shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = false;
  }
}

/* Under the lock: the line, rewritten on a terminal (text), or a plain
 * line (plain) once a minute. */
static void line(cli_progress *p, const char *text, const char *plain) {
  if (p->quiet)
    return;
  const char *sep = p->label[0] ? ": " : "";
  if (p->tty) {
    fprintf(stderr, "\rrodsim: %s%s%s\033[K", p->label, sep, text);
    fflush(stderr);
    p->shown = true;
    return;
  }
  const double t = now();
  if (t - p->last_line < p->interval)
    return;
  p->last_line = t;
  fprintf(stderr, "rodsim: %s: %s%s%s\n", p->source, p->label, sep, plain);
  fflush(stderr);
}

/* Under the lock: the long-work warning, once, on a line of its own. */
static void tell(cli_progress *p, const char *what, double total,
                 const char *why) {
  if (p->told || p->quiet)
    return;
  p->told = true;
  erase(p);
  char took[32];
  cli_duration(total, took, sizeof took);
  cli_fail("%s: warning: %s%s%s%s will take about %s: %s", p->source, what,
           p->label[0] ? " (" : "", p->label, p->label[0] ? ")" : "", took,
           why);
  fflush(stderr);
}

/* The waiting thread told to stop joined: by now it has ended, or ends at
 * once (it prints nothing more once told). */
static void join_waiter(cli_progress *p) {
  if (p->to_join)
    pthread_join(p->waiter, NULL);
  p->to_join = false;
}

void cli_progress_end(cli_progress *p) {
  cli_progress_waited(p);
  join_waiter(p);
  pthread_mutex_lock(&p->lock);
  erase(p);
  pthread_mutex_unlock(&p->lock);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
}

void cli_progress_clear(cli_progress *p) {
  pthread_mutex_lock(&p->lock);
  erase(p);
  pthread_mutex_unlock(&p->lock);
}

void cli_progress_sim(cli_progress *p, const rod_scenario *sc,
                      const char *label) {
  const int points = sc->solver.backend == ROD_BACKEND_RFEM ? sc->rfem.segments
                                                            : cli_nodes(sc);
  pthread_mutex_lock(&p->lock);
  p->sc = sc;
  p->points = points;
  p->have_first = false;
  snprintf(p->label, sizeof p->label, "%s", label ? label : "");
  pthread_mutex_unlock(&p->lock);
}

/* Why a run costs what it costs: the setting furthest beyond the usual
 * scale, the steps or the points each step solves. */
static void cost_of_run(const cli_progress *p, double steps, double step_wall,
                        double t_end, char *buf, size_t size) {
  const rod_scenario *sc = p->sc;
  char each[32], grid[64];
  short_time(step_wall, each, sizeof each);
  const bool chain = sc->solver.backend == ROD_BACKEND_RFEM;
  const char *points = chain ? "elements" : "nodes";
  const int count = p->points;
  if (chain)
    snprintf(grid, sizeof grid, "rfem.segments = %d", count);
  else if (sc->space.nodes > 0)
    snprintf(grid, sizeof grid, "space.nodes = %d", count);
  else
    snprintf(grid, sizeof grid, "space.nodes = auto (%d nodes)", count);
  if (steps / usual_steps >= p->points / usual_points) {
    if (sc->time.has_tolerance)
      snprintf(buf, size,
               "time.tolerance = %g m takes about %.2g steps over "
               "time.duration = %g s, %s each on %d %s",
               sc->time.tolerance, steps, t_end, each, count, points);
    else
      snprintf(buf, size,
               "time.dt = %g s over time.duration = %g s gives %.2g steps, %s "
               "each on %d %s",
               sc->time.dt, t_end, steps, each, count, points);
  } else {
    snprintf(buf, size,
             "%s makes each step take %s, over %.2g steps to t = %g s", grid,
             each, steps, t_end);
  }
}

void cli_progress_step(cli_progress *p, double t, double t_end, int steps,
                       double wall) {
  cli_progress_waited(p); /* the steps report from here on */
  pthread_mutex_lock(&p->lock);
  if (!p->have_first) {
    p->have_first = true;
    p->t_first = t;
    p->wall_first = wall;
    p->steps_first = steps;
    pthread_mutex_unlock(&p->lock); /* nothing to tell yet */
    return;
  }
  const double span = wall - p->wall_first, done = t - p->t_first;
  const int taken = steps - p->steps_first;
  const double left =
      span > 0 && done > 0 ? span * (t_end - t) / done : INFINITY;
  if (p->sc && !p->told && span >= estimate_after && taken > 0 &&
      isfinite(left) && wall + left > CLI_LONG_WORK) {
    char why[320], first[96];
    const double total_steps = steps + taken * (t_end - t) / done;
    cost_of_run(p, total_steps, span / taken, t_end, why, sizeof why);
    snprintf(first, sizeof first, " (estimated from its first %d steps)",
             steps);
    strncat(why, first, sizeof why - strlen(why) - 1);
    tell(p, "this run", wall + left, why);
  }
  char eta[32], text[192], plain[192];
  cli_duration(left, eta, sizeof eta);
  const double rate = span > 0 ? taken / span : 0.0;
  snprintf(text, sizeof text, "t = %.4g / %.4g s  %.0f steps/s  ETA %s", t,
           t_end, rate, eta);
  snprintf(plain, sizeof plain,
           "t = %.4g / %.4g s (%.1f %%), %.0f steps/s, about %s left", t, t_end,
           t_end > 0 ? 100 * t / t_end : 100.0, rate, eta);
  line(p, text, plain);
  pthread_mutex_unlock(&p->lock);
}

void cli_progress_count(cli_progress *p, int done, int total, const char *one,
                        const char *many) {
  pthread_mutex_lock(&p->lock);
  const double spent = now() - p->started;
  const double left =
      done > 0 ? spent * (total - done) / done : (double)INFINITY;
  if (done > 0 && done < total && spent >= estimate_after &&
      spent + left > CLI_LONG_WORK) {
    char what[64], each[32], why[128];
    snprintf(what, sizeof what, "the %d %s", total, many);
    short_time(spent / done, each, sizeof each);
    snprintf(why, sizeof why, "%s a %s so far, over the first %d", each, one,
             done);
    tell(p, what, spent + left, why);
  }
  char eta[32], text[160], plain[160];
  cli_duration(left, eta, sizeof eta);
  snprintf(text, sizeof text, "%d / %d %s  ETA %s", done, total, many, eta);
  snprintf(plain, sizeof plain, "%d / %d %s, about %s left", done, total, many,
           eta);
  line(p, text, plain);
  pthread_mutex_unlock(&p->lock);
}

void cli_progress_note(cli_progress *p, const char *fmt, ...) {
  char text[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&p->lock);
  line(p, text, text);
  pthread_mutex_unlock(&p->lock);
}

/* The waiting thread: the time so far, each second, until woken. */
static void *wait_main(void *arg) {
  cli_progress *p = arg;
  pthread_mutex_lock(&p->lock);
  while (!p->stop_waiting) {
    const double waited = now() - p->wait_start;
    char so_far[32], text[256];
    cli_duration(waited, so_far, sizeof so_far);
    const double share = p->share ? p->share(p->share_user) : -1.0;
    if (!p->tty || waited >= wait_shown_after) {
      if (share >= 0)
        snprintf(text, sizeof text,
                 "%s: %.0f %% of the loads, %s so far (Ctrl-C stops)",
                 p->wait_text, 100.0 * share, so_far);
      else
        snprintf(text, sizeof text, "%s: %s so far (Ctrl-C stops)",
                 p->wait_text, so_far);
      line(p, text, text);
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 1;
    pthread_cond_timedwait(&p->wake, &p->lock, &until);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

void cli_progress_wait(cli_progress *p, const char *what) {
  if (p->quiet || p->waiting)
    return;
  join_waiter(p);
  pthread_mutex_lock(&p->lock);
  snprintf(p->wait_text, sizeof p->wait_text, "%s", what);
  p->wait_start = now();
  p->stop_waiting = false;
  pthread_mutex_unlock(&p->lock);
  /* signals go to the threads that do the work, not to this one */
  sigset_t block, before;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &before);
  p->waiting = pthread_create(&p->waiter, NULL, wait_main, p) == 0;
  pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void cli_progress_wait_share(cli_progress *p, const char *what,
                             double (*share)(const void *user),
                             const void *user) {
  if (p->quiet || p->waiting)
    return;
  pthread_mutex_lock(&p->lock);
  p->share = share;
  p->share_user = user;
  pthread_mutex_unlock(&p->lock);
  cli_progress_wait(p, what);
}

/* The waiting thread is told to stop and its line erased, under the lock
 * it prints under; it is joined later (join_waiter), not here: a thread
 * made just before a short wait may not have run yet, and waiting for it
 * to start only to end took 1 ms of a 40 ms run's critical path. */
void cli_progress_waited(cli_progress *p) {
  if (!p->waiting)
    return;
  pthread_mutex_lock(&p->lock);
  p->stop_waiting = true;
  pthread_cond_signal(&p->wake);
  p->share = NULL;
  erase(p);
  pthread_mutex_unlock(&p->lock);
  p->waiting = false;
  p->to_join = true;
}

static int ps_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  cli_progress_sink *ps = user;
  return ps->inner.sample(ps->inner.user, t, s, st, wall);
}

static int ps_tick(void *user) {
  cli_progress_sink *ps = user;
  return ps->inner.tick(ps->inner.user);
}

static int ps_close(void *user, const char *status) {
  cli_progress_sink *ps = user;
  return ps->inner.close(ps->inner.user, status);
}

static void ps_progress(void *user, double t, double t_end, int steps,
                        double wall) {
  cli_progress_sink *ps = user;
  if (ps->inner.progress)
    ps->inner.progress(ps->inner.user, t, t_end, steps, wall);
  cli_progress_step(ps->p, t, t_end, steps, wall);
}

rod_sim_sink cli_progress_sink_of(cli_progress_sink *ps,
                                  const rod_sim_sink *inner, cli_progress *p) {
  memset(ps, 0, sizeof *ps);
  if (inner)
    ps->inner = *inner;
  ps->p = p;
  rod_sim_sink s = {.sample = ps->inner.sample ? ps_sample : NULL,
                    .tick = ps->inner.tick ? ps_tick : NULL,
                    .progress = ps_progress,
                    .close = ps->inner.close ? ps_close : NULL,
                    .user = ps};
  return s;
}
