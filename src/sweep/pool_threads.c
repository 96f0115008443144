/* The jobs of pool.h on the threads of this process: each worker takes
 * the next job under the pool's lock, runs it (pool_jobs.c) and hands
 * its result back under the lock. */
#include <pthread.h>
#include <stdlib.h>

#include "rod/status.h"
#include "sweep/pool.h"

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
    size_t size =
        pool_job_run(o->kind, in, &result, o->stop, o->stop_fn, o->stop_user);
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
