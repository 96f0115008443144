/* The two kinds of job of pool.h: a sweep's case (its record), and a run
 * whose samples go back to the coordinator (the calibration's
 * simulations), packed into one buffer and unpacked into a recorder. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rod/sim.h"
#include "rod/sweep.h"
#include "sweep/pool.h"

/* A POOL_SAMPLES result: this head, then t, tip (3 per sample), kinetic,
 * elastic and gravity energies, and with the whole rod s (points) and the
 * positions (points x 3 per sample), all doubles. */
typedef struct {
  int32_t status, count, points, keep_rod;
  char message[400];
} samples_head;

static size_t samples_doubles(int count, int points, bool keep_rod) {
  size_t n = 7 * (size_t)count;
  if (keep_rod)
    n += (size_t)points + (size_t)count * (size_t)points * 3;
  return n;
}

/* The sink of a POOL_SAMPLES run: the record, and the stops asked at
 * every step. */
typedef struct {
  rod_sim_sink record;
  const volatile int *stop;
  int (*stop_fn)(void *);
  void *stop_user;
} samples_sink;

static int ss_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  samples_sink *ss = user;
  return ss->record.sample(ss->record.user, t, s, st, wall);
}

static int ss_tick(void *user) {
  const samples_sink *ss = user;
  const bool stop =
      (ss->stop && *ss->stop) || (ss->stop_fn && ss->stop_fn(ss->stop_user));
  return stop ? ROD_EINTR : ROD_OK;
}

static size_t run_samples(const pool_job *in, void **out,
                          const volatile int *stop, int (*stop_fn)(void *),
                          void *stop_user) {
  samples_head head = {.status = ROD_ENOMEM, .keep_rod = in->flag};
  rod_recorder *rec = rod_recorder_alloc(&in->sc, in->flag);
  if (rec) {
    samples_sink ss = {rod_recorder_sink(rec), stop, stop_fn, stop_user};
    rod_sim_sink sink = {.sample = ss_sample,
                         .tick = stop || stop_fn ? ss_tick : NULL,
                         .user = &ss};
    rod_sim_result res;
    rod_error err = {{0}, {0}, {0}, 0};
    head.status = rod_sim_run(&in->sc, &sink, false, &res, &err);
    if (head.status != ROD_OK && res.message[0])
      snprintf(head.message, sizeof head.message, "%s", res.message);
    else if (head.status != ROD_OK)
      rod_error_format(&err, head.message, sizeof head.message);
    head.count = rec->count;
    head.points = rec->points;
  } else {
    snprintf(head.message, sizeof head.message, "out of memory");
  }
  const bool rod = rec && in->flag && rec->rod && head.count > 0;
  head.keep_rod = rod;
  const size_t nd = samples_doubles(head.count, head.points, rod);
  char *buf = malloc(sizeof head + nd * sizeof(double));
  *out = buf;
  if (!buf) {
    rod_recorder_free(rec);
    return 0;
  }
  memcpy(buf, &head, sizeof head);
  double *d = (double *)(buf + sizeof head);
  const size_t n = (size_t)head.count;
  const double *parts[] = {rec ? rec->t : NULL, rec ? rec->tip : NULL,
                           rec ? rec->kinetic : NULL, rec ? rec->elastic : NULL,
                           rec ? rec->gravity : NULL};
  const size_t widths[] = {1, 3, 1, 1, 1};
  for (int k = 0; k < 5 && n; k++) {
    memcpy(d, parts[k], widths[k] * n * sizeof(double));
    d += widths[k] * n;
  }
  if (rod) {
    memcpy(d, rec->s, (size_t)head.points * sizeof(double));
    d += head.points;
    memcpy(d, rec->rod, n * (size_t)head.points * 3 * sizeof(double));
  }
  rod_recorder_free(rec);
  return sizeof head + nd * sizeof(double);
}

/* *p reallocated to n elements of size bytes each (at least one). */
static bool resize_of(void **p, size_t n, size_t size) {
  void *q = realloc(*p, (n ? n : 1) * size);
  if (q)
    *p = q;
  return q != NULL;
}

static bool resize(double **p, size_t n) {
  return resize_of((void **)p, n, sizeof(double));
}

int pool_samples_unpack(const void *result, size_t size, rod_recorder *rec,
                        char *message, size_t message_size) {
  samples_head head;
  if (size < sizeof head) {
    snprintf(message, message_size, "no result (out of memory)");
    return ROD_ENOMEM;
  }
  memcpy(&head, result, sizeof head);
  snprintf(message, message_size, "%s", head.message);
  const size_t n = (size_t)head.count, N = (size_t)head.points;
  if (size !=
      sizeof head + samples_doubles(head.count, head.points, head.keep_rod) *
                        sizeof(double))
    return ROD_EINVAL;
  if (head.count > rec->capacity) {
    bool ok = resize(&rec->t, n) && resize(&rec->tip, 3 * n) &&
              resize(&rec->kinetic, n) && resize(&rec->elastic, n) &&
              resize(&rec->gravity, n) && resize(&rec->integrations, n) &&
              resize_of((void **)&rec->iterations, n, sizeof(int)) &&
              resize_of((void **)&rec->method, n, sizeof(int)) &&
              (!rec->rod || resize(&rec->rod, 3 * n * N));
    if (!ok)
      return ROD_ENOMEM;
    rec->capacity = head.count;
  }
  const double *d = (const double *)((const char *)result + sizeof head);
  double *parts[] = {rec->t, rec->tip, rec->kinetic, rec->elastic,
                     rec->gravity};
  const size_t widths[] = {1, 3, 1, 1, 1};
  for (int k = 0; k < 5; k++) {
    memcpy(parts[k], d, widths[k] * n * sizeof(double));
    d += widths[k] * n;
  }
  /* the solver's effort per sample does not travel with the samples */
  memset(rec->iterations, 0, n * sizeof(int));
  memset(rec->integrations, 0, n * sizeof(double));
  memset(rec->method, 0, n * sizeof(int));
  rec->count = head.count;
  rec->points = head.points;
  if (head.keep_rod && rec->keep_rod) {
    if (!resize(&rec->s, N) ||
        !resize(&rec->rod, (size_t)rec->capacity * N * 3))
      return ROD_ENOMEM;
    memcpy(rec->s, d, N * sizeof(double));
    memcpy(rec->rod, d + N, n * N * 3 * sizeof(double));
  }
  return head.status;
}

static size_t run_case(const pool_job *in, void **out,
                       const volatile int *stop) {
  rod_case_record *rec = malloc(sizeof *rec);
  *out = rec;
  if (!rec)
    return 0;
  rod_sweep_run_case(&in->sc, in->flag, stop, rec);
  return sizeof *rec;
}

size_t pool_job_run(int kind, const pool_job *in, void **out,
                    const volatile int *stop, int (*stop_fn)(void *),
                    void *stop_user) {
  *out = NULL;
  if (kind == POOL_CASE)
    return run_case(in, out, stop);
  if (kind == POOL_SAMPLES)
    return run_samples(in, out, stop, stop_fn, stop_user);
  return 0;
}
