/* The jobs of pool.h on the threads of this process, and the two kinds of
 * job: a sweep's case, and a run whose samples go back to the
 * coordinator (the calibration's simulations). */
#include "sweep/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rod/parallel.h"
#include "rod/sim.h"
#include "rod/sweep.h"

/* ---- the kinds of job ---------------------------------------------------- */

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

static size_t run_samples(const pool_job *in, void **out) {
  samples_head head = {.status = ROD_ENOMEM, .keep_rod = in->flag};
  rod_recorder *rec = rod_recorder_alloc(&in->sc, in->flag);
  if (rec) {
    rod_sim_sink sink = rod_recorder_sink(rec);
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

static bool resize(double **p, size_t n) {
  double *q = realloc(*p, (n ? n : 1) * sizeof(double));
  if (q)
    *p = q;
  return q != NULL;
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
              resize(&rec->gravity, n) &&
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
                    const volatile int *stop) {
  *out = NULL;
  if (kind == POOL_CASE)
    return run_case(in, out, stop);
  if (kind == POOL_SAMPLES)
    return run_samples(in, out);
  return 0;
}

/* ---- threads ----------------------------------------------------------------
 */

void *pool_worker(void *arg) {
  pool_state *p = arg;
  const pool_ops *o = p->ops;
  pool_job *in = malloc(sizeof *in);
  if (!in) {
    pthread_mutex_lock(&p->lock);
    p->status = ROD_ENOMEM;
    pthread_mutex_unlock(&p->lock);
    return NULL;
  }
  for (;;) {
    int job;
    pthread_mutex_lock(&p->lock);
    bool have = p->status == ROD_OK && o->next(o->user, &job, in);
    pthread_mutex_unlock(&p->lock);
    if (!have)
      break;
    void *result;
    size_t size = pool_job_run(o->kind, in, &result, o->stop);
    pthread_mutex_lock(&p->lock);
    o->done(o->user, job, result, result ? size : 0);
    pthread_mutex_unlock(&p->lock);
    free(result);
  }
  free(in);
  return NULL;
}

int pool_threads(const pool_ops *ops, int threads) {
  pool_state p = {.ops = ops, .status = ROD_OK};
  pthread_mutex_init(&p.lock, NULL);
  pthread_t helper[256];
  int started = 0;
  while (started < threads - 1 && started < 256 &&
         pthread_create(&helper[started], NULL, pool_worker, &p) == 0)
    started++;
  pool_worker(&p);
  for (int k = 0; k < started; k++)
    pthread_join(helper[k], NULL);
  pthread_mutex_destroy(&p.lock);
  return p.status;
}

int pool_run(const pool_ops *ops, int threads) {
  if (rod_mpi_size() > 1)
    return pool_mpi_run(ops);
  return pool_threads(ops, threads < 1 ? 1 : threads);
}

#if !ROD_HAVE_MPI
/* Without MPI: one rank, nothing to start or serve. */
bool rod_mpi_built(void) { return false; }
int rod_mpi_start(int *argc, char ***argv, int *rank, int *size) {
  (void)argc;
  (void)argv;
  *rank = 0;
  *size = 1;
  return 0;
}
int rod_mpi_size(void) { return 1; }
int rod_mpi_serve(const volatile int *stop) {
  (void)stop;
  return 0;
}
void rod_mpi_finish(void) {}
int pool_mpi_run(const pool_ops *ops) { return pool_threads(ops, 1); }
#endif
