/* A sweep directory (rod/sweep.h): opening it (the locks, the index made
 * or checked against the definition, the cases the files say are done),
 * handing out its cases as a queue and recording each one's result. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rod/parallel.h"
#include "sweep/pool.h"
#include "sweep_internal.h"

struct rod_sweep {
  char dir[ROD_PATH_MAX];
  char index_path[ROD_PATH_MAX + 16];
  const rod_sweep_def *def;
  rod_scenario *base;
  rod_sweep_options o;
  sweep_index *ix; /* open throughout, or (shards) between ix_begin/end */
  bool transient;  /* shards: the index opened for each access, under
                      index.lock, as other shards write it too */
  int lock_fd, shard_fd, index_fd;
  int next;   /* the next case to consider */
  int status; /* ROD_EIO once the index could not be written */
  rod_sweep_report rep;
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- the index, held or opened for each access ----------------------------
 */

static int ix_begin(rod_sweep *s) {
  if (!s->transient)
    return ROD_OK;
  s->index_fd = sweep_lock(s->dir, "index.lock", true, true);
  rod_error err;
  if (s->index_fd < 0 ||
      sweep_index_open(s->index_path, &s->ix, &err) != ROD_OK) {
    sweep_unlock(s->index_fd);
    s->index_fd = -1;
    return ROD_EIO;
  }
  return ROD_OK;
}

static void ix_end(rod_sweep *s) {
  if (!s->transient)
    return;
  sweep_index_close(s->ix);
  s->ix = NULL;
  sweep_unlock(s->index_fd);
  s->index_fd = -1;
}

static bool in_shard(const rod_sweep *s, int c) {
  return s->o.shards <= 1 || c % s->o.shards == s->o.shard;
}

static bool to_run(const rod_sweep *s, int status) {
  return status == ROD_CASE_PENDING || status == ROD_CASE_RUNNING ||
         status == ROD_CASE_INTERRUPTED ||
         (s->o.retry_failed &&
          (status == ROD_CASE_FAILED || status == ROD_CASE_REFUSED));
}

/* The status a run file says it has: complete, another, or -1 (none). */
static int file_says(const char *path) {
  if (access(path, F_OK) != 0)
    return -1;
  rod_case_record rec;
  rod_case_record_init(&rec, ROD_CASE_FAILED);
  return rod_sweep_summarize(path, &rec) == ROD_OK ? rec.status : -1;
}

/* Trust the files: a case the index calls complete whose file is not is
 * run again; a case the index has not recorded whose file is complete (the
 * sweep was killed between the two) is recorded from its file. */
static int reconcile(rod_sweep *s) {
  char path[ROD_PATH_MAX + 32];
  int st = ROD_OK;
  for (int c = 0; c < sweep_index_cases(s->ix) && st == ROD_OK; c++) {
    if (!in_shard(s, c))
      continue;
    const int status = sweep_index_status(s->ix, c);
    sweep_case_path(s->dir, c, path, sizeof path);
    if (status == ROD_CASE_COMPLETE) {
      if (file_says(path) != ROD_CASE_COMPLETE)
        st = sweep_index_set_status(s->ix, c, ROD_CASE_PENDING);
      else
        s->rep.done_before++;
    } else if (to_run(s, status)) {
      rod_case_record rec;
      rod_case_record_init(&rec, ROD_CASE_FAILED);
      if (access(path, F_OK) == 0 &&
          rod_sweep_summarize(path, &rec) == ROD_OK &&
          rec.status == ROD_CASE_COMPLETE) {
        st = sweep_index_record(s->ix, c, &rec);
        s->rep.recovered++;
        s->rep.done_before++;
      } else if (status == ROD_CASE_RUNNING) {
        /* it ran when the sweep was killed: pending again, so that a
         * running case is always one that runs now */
        st = sweep_index_set_status(s->ix, c, ROD_CASE_PENDING);
      }
    }
  }
  return st;
}

/* Make dir (one level) unless it is there; ROD_EINVAL naming it. */
static int make_dir(const char *dir, rod_error *err) {
  struct stat st;
  if (stat(dir, &st) == 0)
    return S_ISDIR(st.st_mode) ? ROD_OK
                               : rod_error_set(err, ROD_EINVAL, dir, "",
                                               "is a file, not a directory "
                                               "(-o names the sweep's "
                                               "directory)");
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return rod_error_set(err, ROD_EINVAL, dir, "", "cannot create (%s)",
                         strerror(errno));
  return ROD_OK;
}

/* The locks of dir: the whole sweep (shared between its shards), and
 * the shard's own. */
static int take_locks(rod_sweep *s, rod_error *err) {
  const bool shards = s->o.shards > 1;
  s->lock_fd = sweep_lock(s->dir, "sweep.lock", !shards, false);
  if (s->lock_fd < 0)
    return errno == EWOULDBLOCK
               ? rod_error_set(err, ROD_EINVAL, s->dir, "",
                               "another sweep is running in this directory "
                               "(refused; wait for it, or use another "
                               "directory)")
               : rod_error_set(err, ROD_EINVAL, s->dir, "", "cannot lock (%s)",
                               strerror(errno));
  if (!shards)
    return ROD_OK;
  char name[64];
  snprintf(name, sizeof name, "shard-%d-of-%d.lock", s->o.shard, s->o.shards);
  s->shard_fd = sweep_lock(s->dir, name, true, false);
  if (s->shard_fd < 0)
    return rod_error_set(err, ROD_EINVAL, s->dir, "",
                         "shard %d/%d is already running in this directory "
                         "(refused)",
                         s->o.shard, s->o.shards);
  return ROD_OK;
}

/* The index made, or opened and checked to hold this sweep. */
static int open_index(rod_sweep *s, rod_error *err) {
  size_t need = rod_scenario_to_ini(s->base, NULL, 0) + 1;
  char *text = malloc(need);
  if (!text)
    return rod_error_set(err, ROD_ENOMEM, s->dir, "", "out of memory");
  rod_scenario_to_ini(s->base, text, need);
  sweep_identity id = {s->def, text, s->o.static_only};
  int st;
  if (access(s->index_path, F_OK) != 0) {
    st = sweep_index_create(s->index_path, &id, &s->ix, err);
  } else {
    st = sweep_index_open(s->index_path, &s->ix, err);
    char why[400];
    if (st == ROD_OK &&
        (sweep_index_differs(s->ix, &id, why, sizeof why), why[0]))
      st = rod_error_set(err, ROD_EINVAL, s->dir, "",
                         "holds a different sweep (%s); use another "
                         "directory",
                         why);
  }
  free(text);
  if (st == ROD_OK && reconcile(s) != ROD_OK)
    st = rod_error_set(err, ROD_EIO, s->index_path, "",
                       "cannot write the index");
  return st;
}

int rod_sweep_open(rod_sweep **out, const char *dir, const rod_scenario *base,
                   const rod_sweep_def *d, const rod_sweep_options *o,
                   rod_error *err) {
  *out = NULL;
  if (d->ncases < 1)
    return rod_error_set(err, ROD_EINVAL, dir, "", "the sweep has no cases");
  if (o->shards > 1 && (o->shard < 0 || o->shard >= o->shards))
    return rod_error_set(err, ROD_EINVAL, "--shard", "",
                         "shard %d of %d: expected 0 to %d", o->shard,
                         o->shards, o->shards - 1);
  int st = make_dir(dir, err);
  if (st != ROD_OK)
    return st;
  rod_sweep *s = calloc(1, sizeof *s);
  if (!s || !(s->base = malloc(sizeof *s->base))) {
    free(s);
    return rod_error_set(err, ROD_ENOMEM, dir, "", "out of memory");
  }
  snprintf(s->dir, sizeof s->dir, "%s", dir);
  snprintf(s->index_path, sizeof s->index_path, "%s/index.h5", dir);
  *s->base = *base;
  s->def = d;
  s->o = *o;
  s->lock_fd = s->shard_fd = s->index_fd = -1;
  s->transient = o->shards > 1;
  s->rep.cases = d->ncases;
  s->rep.ranks = rod_mpi_size();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  st = take_locks(s, err);
  if (st == ROD_OK && s->transient) {
    s->index_fd = sweep_lock(s->dir, "index.lock", true, true);
    if (s->index_fd < 0)
      st = rod_error_set(err, ROD_EIO, dir, "", "cannot lock the index");
  }
  if (st == ROD_OK)
    st = open_index(s, err);
  ix_end(s);
  if (st != ROD_OK) {
    rod_sweep_close(s);
    return st;
  }
  *out = s;
  return ROD_OK;
}

/* ---- handing out cases -----------------------------------------------------
 */

/* Record case c: warnings the scenario deserves, the index, the caller. */
static void record(rod_sweep *s, int c, rod_case_record *rec) {
  if (s->o.warn && rec->status != ROD_CASE_REFUSED) {
    rod_scenario *sc = malloc(sizeof *sc);
    rod_error err;
    char text[ROD_SWEEP_TEXT] = "";
    if (sc &&
        rod_sweep_case_scenario(s->def, s->base, c, NULL, sc, &err) == ROD_OK)
      s->o.warn(s->o.user, sc, text, sizeof text);
    free(sc);
    if (text[0]) { /* the command line's warnings first, as run says them */
      char runs[ROD_SWEEP_TEXT];
      snprintf(runs, sizeof runs, "%s", rec->warning);
      snprintf(rec->warning, sizeof rec->warning, "%s", text);
      sweep_append(rec->warning, sizeof rec->warning, runs);
    }
  }
  if (ix_begin(s) != ROD_OK || sweep_index_record(s->ix, c, rec) != ROD_OK)
    s->status = ROD_EIO;
  ix_end(s);
  s->rep.ran++;
  if (s->o.on_case)
    s->o.on_case(s->o.user, c, rec);
}

/* Claim the next case to run: its scenario into sc; -1 when none is left
 * (or stopped). A case whose scenario is refused is recorded so at once. */
static int claim(rod_sweep *s, rod_scenario *sc) {
  char path[ROD_PATH_MAX + 32];
  while (s->status == ROD_OK && !(s->o.stop && *s->o.stop)) {
    if (s->next >= s->def->ncases)
      return -1;
    const int c = s->next++;
    if (!in_shard(s, c))
      continue;
    if (ix_begin(s) != ROD_OK) {
      s->status = ROD_EIO;
      return -1;
    }
    const int status = sweep_index_status(s->ix, c);
    ix_end(s);
    if (!to_run(s, status))
      continue;
    sweep_case_path(s->dir, c, path, sizeof path);
    rod_error err = {{0}, {0}, {0}, 0};
    if (rod_sweep_case_scenario(s->def, s->base, c, path, sc, &err) != ROD_OK) {
      rod_case_record rec;
      rod_case_record_init(&rec, ROD_CASE_REFUSED);
      rod_error_format(&err, rec.message, sizeof rec.message);
      record(s, c, &rec);
      continue;
    }
    if (ix_begin(s) != ROD_OK ||
        sweep_index_set_status(s->ix, c, ROD_CASE_RUNNING) != ROD_OK)
      s->status = ROD_EIO;
    ix_end(s);
    return s->status == ROD_OK ? c : -1;
  }
  return -1;
}

int rod_sweep_next(rod_sweep *s, rod_scenario *sc) {
  rod_scenario *scratch = sc ? NULL : malloc(sizeof *scratch);
  if (!sc && !scratch)
    return -1;
  int c = claim(s, sc ? sc : scratch);
  free(scratch);
  return c;
}

int rod_sweep_record(rod_sweep *s, int c, const rod_case_record *rec) {
  if (c < 0 || c >= s->def->ncases)
    return ROD_EINVAL;
  rod_case_record copy = *rec;
  record(s, c, &copy);
  return s->status;
}

static bool pool_next(void *user, int *job, pool_job *in) {
  rod_sweep *s = user;
  *job = claim(s, &in->sc);
  in->flag = s->o.static_only;
  return *job >= 0;
}

static void pool_done(void *user, int job, const void *result, size_t size) {
  rod_sweep *s = user;
  rod_case_record rec;
  if (size == sizeof rec) {
    memcpy(&rec, result, sizeof rec);
  } else {
    rod_case_record_init(&rec, ROD_CASE_FAILED);
    snprintf(rec.message, sizeof rec.message, "no result (out of memory)");
  }
  record(s, job, &rec);
}

/* The cores this process may run on: those of its affinity mask (taskset,
 * a cpuset, mpirun's binding of a rank to one core), else the online
 * ones. */
static int usable_cores(void) {
  cpu_set_t set;
  long n = sched_getaffinity(0, sizeof set, &set) == 0
               ? CPU_COUNT(&set)
               : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

int rod_sweep_run(rod_sweep *s, rod_sweep_report *rep, rod_error *err) {
  const double t0 = now();
  s->next = 0;
  s->rep.threads = rod_mpi_size() > 1 ? 1
                   : s->o.threads > 0 ? s->o.threads
                                      : usable_cores();
  pool_ops ops = {.kind = POOL_CASE,
                  .next = pool_next,
                  .done = pool_done,
                  .stop = s->o.stop,
                  .user = s};
  int st = pool_run(&ops, s->rep.threads);
  if (st == ROD_OK)
    st = s->status;
  memset(s->rep.counts, 0, sizeof s->rep.counts);
  if (ix_begin(s) == ROD_OK) {
    for (int c = 0; c < sweep_index_cases(s->ix); c++) {
      int k = sweep_index_status(s->ix, c);
      if (k >= 0 && k < ROD_CASE_STATUSES)
        s->rep.counts[k]++;
    }
    ix_end(s);
  }
  s->rep.wall_time = now() - t0;
  *rep = s->rep;
  if (st != ROD_OK)
    return rod_error_set(err, st, s->index_path, "",
                         st == ROD_ENOMEM ? "out of memory"
                                          : "cannot write the index");
  if (s->o.stop && *s->o.stop)
    return ROD_EINTR;
  return ROD_OK;
}

int rod_sweep_cases(const rod_sweep *s) { return s->def->ncases; }

int rod_sweep_status(const rod_sweep *s, int c) {
  if (c < 0 || c >= s->def->ncases)
    return -1;
  rod_sweep *w = (rod_sweep *)s;
  if (ix_begin(w) != ROD_OK)
    return -1;
  int status = sweep_index_status(w->ix, c);
  ix_end(w);
  return status;
}

int rod_sweep_get_record(const rod_sweep *s, int c, rod_case_record *rec) {
  if (c < 0 || c >= s->def->ncases || !rec)
    return ROD_EINVAL;
  rod_sweep *w = (rod_sweep *)s;
  int st = ix_begin(w);
  if (st != ROD_OK)
    return st;
  st = sweep_index_read(w->ix, c, rec);
  ix_end(w);
  return st;
}

const char *rod_sweep_index(const rod_sweep *s) { return s->index_path; }

int rod_sweep_close(rod_sweep *s) {
  if (!s)
    return ROD_OK;
  int st = s->transient ? ROD_OK : sweep_index_close(s->ix);
  if (s->transient && s->ix) {
    sweep_index_close(s->ix);
    sweep_unlock(s->index_fd);
  }
  sweep_unlock(s->shard_fd);
  sweep_unlock(s->lock_fd);
  free(s->base);
  free(s);
  return st;
}
