/* One case of a sweep: its scenario run as `rodsim run` runs it (the
 * simulation object, the HDF5 logger as its sink, the same sampling and
 * status), so its file is the one `rodsim run` with the same --set writes,
 * bit for bit; then its record: how it ended and what it warned. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/scenario_contact.h"
#include "io/writers.h"
#include "rod/export.h"
#include "rod/logger.h"
#include "rod/sim.h"
#include "sweep_internal.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void rod_case_record_init(rod_case_record *rec, int status) {
  memset(rec, 0, sizeof *rec);
  rec->status = status;
  rec->wall_time = rec->time = NAN;
  for (int c = 0; c < 3; c++)
    rec->tip_final[c] = rec->tip_min[c] = rec->tip_max[c] = NAN;
  rec->frequency = rec->energy_drift = rec->error_estimate = NAN;
}

size_t rod_case_record_size(void) { return sizeof(rod_case_record); }

void sweep_case_path(const char *dir, int c, char *out, size_t size) {
  snprintf(out, size, "%s/case-%05d.h5", dir, c);
}

void sweep_format(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

void sweep_append(char *buf, size_t size, const char *text) {
  if (!text[0])
    return;
  size_t used = strlen(buf);
  if (used + 1 >= size)
    return;
  snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

/* The logger's sink, stopped by *stop after the step in progress. */
typedef struct {
  rod_sim_sink logger;
  const volatile int *stop;
} case_sink;

static int cs_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  case_sink *c = user;
  return c->logger.sample(c->logger.user, t, s, st, wall);
}

static int cs_tick(void *user) {
  case_sink *c = user;
  if (c->stop && *c->stop)
    return ROD_EINTR;
  return c->logger.tick(c->logger.user);
}

/* What the run warns about as `rodsim run` does on stderr, on one line. */
/* The run's error estimate above 1% of the tip's motion, with the setting
 * (time.dt or time.tolerance, key) that would bring it within. */
static void warn_estimate(rod_case_record *rec, const rod_sim_result *res,
                          const char *key, double setting) {
  if (!(res->tip_motion > 0))
    return;
  char text[ROD_SWEEP_TEXT];
  sweep_format(text, sizeof text,
               "%s: the tip's error is estimated at %.3g mm, %.2g%% of its "
               "motion; %s = %g would bring it within 1%%",
               key, res->error_estimate * 1e3,
               100 * res->error_estimate / res->tip_motion, key, setting);
  sweep_append(rec->warning, sizeof rec->warning, text);
}

static void run_warnings(const rod_scenario *sc, const rod_sim_result *res,
                         rod_case_record *rec) {
  char text[ROD_SWEEP_TEXT];
  if (res->statics.stable == 1 && res->statics.note[0]) {
    sweep_format(text, sizeof text, "static state: %s", res->statics.note);
    sweep_append(rec->warning, sizeof rec->warning, text);
  }
  if (res->implausible[0]) {
    sweep_format(text, sizeof text, "at t = %.6g s %s", res->implausible_time,
                 res->implausible);
    sweep_append(rec->warning, sizeof rec->warning, text);
  }
  if (res->error_estimate_dt > 0 && res->error_estimate_dt < sc->time.dt)
    warn_estimate(rec, res, "time.dt", res->error_estimate_dt);
  if (res->error_estimate_tolerance > 0 &&
      res->error_estimate_tolerance < sc->time.tolerance)
    warn_estimate(rec, res, "time.tolerance", res->error_estimate_tolerance);
  if (res->energy_grew) {
    sweep_format(text, sizeof text,
                 "with nothing working on the rod its energy grew from %.9g J "
                 "to %.9g J by t = %.6g s",
                 res->energy_before, res->energy_after, res->energy_time);
    sweep_append(rec->warning, sizeof rec->warning, text);
  }
}

static int refuse(rod_case_record *rec, const rod_error *err) {
  rec->status = ROD_CASE_REFUSED;
  rod_error_format(err, rec->message, sizeof rec->message);
  return rec->status;
}

/* The size check of `rodsim run`: refused above output.max_size. */
static bool too_large(const rod_scenario *sc, int points, bool static_only,
                      rod_case_record *rec) {
  if (sc->output.max_size <= 0)
    return false;
  rod_scenario one = *sc;
  if (static_only)
    one.time.duration = 0;
  const double bytes = rod_logger_estimate(&one, points, false);
  if (bytes <= sc->output.max_size)
    return false;
  rec->status = ROD_CASE_REFUSED;
  sweep_format(rec->message, sizeof rec->message,
               "%s: output.max_size: %s would take up to %.3g GB before "
               "compression, more than the limit of %.3g GB",
               sc->source, sc->output.file, bytes / 1e9,
               sc->output.max_size / 1e9);
  return true;
}

/* OUT.xdmf beside the case's file, as `rodsim run` keeps it
 * (rod/export.h): one rodsim wrote for an earlier file of the name is
 * removed before the run writes; with output.xdmf a new one is written
 * at the close (rod_logger_close_xdmf), its failure a warning. */
static void xdmf_remove_stale(const rod_scenario *sc) {
  char xdmf[ROD_PATH_MAX + 8];
  if (rod_export_xdmf_name(sc->output.file, xdmf, sizeof xdmf) == ROD_OK &&
      rod_export_is_xdmf(xdmf))
    unlink(xdmf);
}

static void xdmf_warn(const char *xdmf, const rod_error *err,
                      rod_case_record *rec) {
  char why[ROD_SWEEP_TEXT], text[ROD_SWEEP_TEXT];
  rod_error_format(err, why, sizeof why);
  sweep_format(text, sizeof text, "output.xdmf: %s not written (%s)", xdmf,
               why);
  sweep_append(rec->warning, sizeof rec->warning, text);
}

/* The run of a created simulation into its file; rec's status and
 * message. */
static void run_to_file(rod_sim *sim, rod_scenario *sc, bool static_only,
                        const volatile int *stop, rod_case_record *rec) {
  rod_error err = {{0}, {0}, {0}, 0};
  rod_logger *lg = NULL;
  if (rod_logger_open_points(&lg, sc->output.file, sc, rod_sim_backend(sim),
                             rod_sim_points(sim), &err) != ROD_OK) {
    refuse(rec, &err);
    return;
  }
  xdmf_remove_stale(sc);
  case_sink cs = {rod_logger_sink(lg), stop};
  rod_sim_sink sink = {.sample = cs_sample, .tick = cs_tick, .user = &cs};
  rod_sim_set_sink(sim, &sink);
  int st = rod_sim_static(sim);
  if (st == ROD_OK && stop && *stop)
    st = ROD_EINTR;
  if (st == ROD_OK && !static_only)
    st = rod_sim_advance_to(sim, sc->time.duration);
  int fst = rod_sim_flush(sim); /* the last step, also after a stop */
  if (st == ROD_OK)
    st = fst;
  rod_sim_result res;
  rod_sim_get_result(sim, &res);
  rod_sim_get_error(sim, &err);
  const char *why = res.message[0] ? res.message : err.message;
  const char *status = st == ROD_OK      ? "complete"
                       : st == ROD_EINTR ? "interrupted"
                                         : why;
  /* the static state refused as the input's: no sample, no file */
  const bool refused = st == ROD_EINVAL && rod_logger_appended(lg) == 0;
  char xdmf[ROD_PATH_MAX + 8];
  const bool described =
      sc->output.xdmf && !refused &&
      rod_export_xdmf_name(sc->output.file, xdmf, sizeof xdmf) == ROD_OK;
  rod_error xdmf_err = {{0}, {0}, {0}, 0};
  rod_logger_end end = {.told = true, .made = true}; /* how it ended */
  int cst = rod_logger_close_told(lg, status, described ? xdmf : NULL,
                                  &xdmf_err, &end);
  char io[128];
  snprintf(io, sizeof io, "%s",
           end.write_errno ? strerror(end.write_errno) : "");
  if (xdmf_err.message[0])
    xdmf_warn(xdmf, &xdmf_err, rec);
  run_warnings(sc, &res, rec);
  rec->time = res.time;
  /* the run's own estimate (rod_sim_error_estimate), which the file's
   * /error_estimate holds too for a case recorded after a restart */
  const double est = rod_sim_error_estimate(sim);
  rec->error_estimate = est >= 0 ? est : NAN;
  if (st == ROD_EINTR) {
    rec->status = ROD_CASE_INTERRUPTED;
    sweep_format(rec->message, sizeof rec->message,
                 "interrupted at t = %.6g s; %d samples kept", res.time,
                 res.samples);
  } else if (io[0] || (st == ROD_OK && cst != ROD_OK)) {
    rec->status = ROD_CASE_FAILED;
    sweep_format(rec->message, sizeof rec->message,
                 "output.file: cannot write %s (%s); stopped at t = %.6g s",
                 sc->output.file, io[0] ? io : rod_strerror(cst), res.time);
  } else if (refused) {
    unlink(sc->output.file); /* refused as input: no file, as run */
    refuse(rec, &err);
  } else if (st != ROD_OK) {
    rec->status = ROD_CASE_FAILED;
    sweep_format(rec->message, sizeof rec->message, "%s; %d samples kept", why,
                 res.samples);
  } else {
    rec->status = ROD_CASE_COMPLETE;
  }
}

int rod_sweep_run_case(const rod_scenario *in, bool static_only,
                       const volatile int *stop, rod_case_record *rec) {
  const double t0 = now();
  rod_case_record_init(rec, ROD_CASE_FAILED);
  rod_scenario *sc = malloc(sizeof *sc);
  if (!sc) {
    sweep_format(rec->message, sizeof rec->message, "out of memory");
    return rec->status;
  }
  *sc = *in;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_sim *sim = NULL;
  if (!static_only &&
      rod_scenario_check_contact_motion(sc, sc->source, &err) != ROD_OK)
    refuse(rec, &err);
  else if (rod_sim_create(sc, &sim, &err) != ROD_OK)
    refuse(rec, &err);
  if (sim) {
    const int every = static_only ? 1 : rod_sim_output_every(sim);
    if (sc->output.every == 0)
      sc->output.every = every;
    if (!too_large(sc, rod_sim_points(sim), static_only, rec))
      run_to_file(sim, sc, static_only, stop, rec);
    rod_sim_free(sim);
  }
  const int status = rec->status;
  const double wall = now() - t0; /* the run itself: set-up to file closed */
  const double est = rec->error_estimate;
  if (status != ROD_CASE_REFUSED)
    rod_sweep_summarize(sc->output.file, rec);
  if (isfinite(est))
    rec->error_estimate = est; /* the run's, up to its last step */
  rec->status = status;        /* how the run ended, not what the file says */
  rec->wall_time = wall;
  free(sc);
  return rec->status;
}
