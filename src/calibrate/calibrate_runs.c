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
  int next; /* the next run to take, under lock */
  pthread_mutex_t lock;
} run_pool;

static void run_one(calib_run *run) {
  run->pending = false;
  run->rec->count = 0; /* reuse the record sized for the fit */
  rod_sim_sink sink = rod_recorder_sink(run->rec);
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
    pthread_mutex_unlock(&pool->lock);
    if (i < 0)
      return NULL;
    run_one(pool->runs[i]);
  }
}

int calib_run_all(calib_run *runs, int count, int threads) {
  calib_run *pending[1 + ROD_CALIB_MAX_KEYS]; /* base and one per key */
  run_pool pool = {.runs = pending, .count = 0, .next = 0};
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
  return pool.count;
}
