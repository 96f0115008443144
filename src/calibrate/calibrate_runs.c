/* Simulations of a calibration step run side by side: the base point and
 * the forward-difference points of the Jacobian are independent runs
 * (rod_sim_run keeps no shared mutable state), so a pool of threads takes
 * them one by one from a shared counter. */
#include <pthread.h>
#include <stdio.h>

#include "calibrate_internal.h"

typedef struct {
  calib_run **runs; /* the pending ones */
  int count;
  int next;    /* the next run to take, under lock */
  int started; /* runs started, under lock */
  pthread_mutex_t lock;
  rod_calib_stop_fn stop;
  void *stop_user;
} run_pool;

/* The sink of a run: the record, and the fit's stop asked every step. */
typedef struct {
  rod_sim_sink record;
  const run_pool *pool;
} run_sink;

static int rs_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  run_sink *rs = user;
  return rs->record.sample(rs->record.user, t, s, st, wall);
}

static int rs_tick(void *user) {
  run_sink *rs = user;
  return rs->pool->stop(rs->pool->stop_user) ? ROD_EINTR : ROD_OK;
}

static void run_one(calib_run *run, const run_pool *pool) {
  run->pending = false;
  run->rec->count = 0; /* reuse the record sized for the fit */
  run_sink rs = {rod_recorder_sink(run->rec), pool};
  rod_sim_sink sink = {
      .sample = rs_sample, .tick = pool->stop ? rs_tick : NULL, .user = &rs};
  rod_sim_result res;
  rod_error err = {{0}, {0}, {0}, 0};
  run->status = rod_sim_run(&run->sc, &sink, false, &res, &err);
  run->message[0] = '\0';
  if (run->status == ROD_OK)
    return;
  if (res.message[0])
    snprintf(run->message, sizeof run->message, "%s", res.message);
  else
    rod_error_format(&err, run->message, sizeof run->message);
}

static void *worker(void *arg) {
  run_pool *pool = arg;
  for (;;) {
    pthread_mutex_lock(&pool->lock);
    int i = pool->next < pool->count ? pool->next++ : -1;
    const bool stopped = i >= 0 && pool->stop && pool->stop(pool->stop_user);
    pool->started += i >= 0 && !stopped;
    pthread_mutex_unlock(&pool->lock);
    if (i < 0)
      return NULL;
    if (stopped) {
      calib_run *run = pool->runs[i];
      run->pending = false;
      run->status = ROD_EINTR;
      snprintf(run->message, sizeof run->message, "interrupted");
      continue;
    }
    run_one(pool->runs[i], pool);
  }
}

int calib_run_all(calib_run *runs, int count, int threads,
                  rod_calib_stop_fn stop, void *stop_user) {
  calib_run *pending[1 + ROD_CALIB_MAX_KEYS]; /* base and one per key */
  run_pool pool = {.runs = pending,
                   .count = 0,
                   .next = 0,
                   .started = 0,
                   .stop = stop,
                   .stop_user = stop_user};
  for (int i = 0; i < count && pool.count < 1 + ROD_CALIB_MAX_KEYS; i++)
    if (runs[i].pending)
      pending[pool.count++] = &runs[i];
  if (pool.count == 0)
    return 0;
  pthread_mutex_init(&pool.lock, NULL);
  if (threads > pool.count)
    threads = pool.count;
  pthread_t helper[64];
  int started = 0;
  while (started < threads - 1 && started < 64 &&
         pthread_create(&helper[started], NULL, worker, &pool) == 0)
    started++;
  /* the calling thread works too, so the runs finish even if no helper
   * thread could be started */
  worker(&pool);
  for (int k = 0; k < started; k++)
    pthread_join(helper[k], NULL);
  pthread_mutex_destroy(&pool.lock);
  return pool.started;
}
