/* Simulations of a calibration step run side by side: the base points and
 * the forward-difference points of the Jacobian (one per parameter and
 * data set) are independent runs, handed to the sweep's pool
 * (sweep/pool.h) as jobs of kind POOL_SAMPLES: on this process's threads,
 * or under MPI on every rank, each run's samples coming back into its
 * record. A run's samples do not depend on where it ran, so neither does
 * the fit. */
#include <stdio.h>

#include "calibrate_internal.h"
#include "rod/parallel.h"
#include "sweep/pool.h"

typedef struct {
  calib_run *runs;
  int count;
  int next;    /* the next run to look at, under the pool's lock */
  int started; /* runs handed out */
  rod_calib_stop_fn stop;
  void *stop_user;
} run_queue;

/* Mark a run that will not run now as interrupted. */
static void not_run(calib_run *run) {
  run->pending = false;
  run->status = ROD_EINTR;
  snprintf(run->message, sizeof run->message, "interrupted");
}

static bool next_run(void *user, int *job, pool_job *in) {
  run_queue *q = user;
  while (q->next < q->count && !q->runs[q->next].pending)
    q->next++;
  if (q->next >= q->count)
    return false;
  if (q->stop && q->stop(q->stop_user)) {
    for (int i = q->next; i < q->count; i++)
      if (q->runs[i].pending)
        not_run(&q->runs[i]);
    q->next = q->count;
    return false;
  }
  calib_run *run = &q->runs[q->next];
  run->pending = false;
  in->flag = run->rec->keep_rod;
  in->sc = run->sc;
  *job = q->next++;
  q->started++;
  return true;
}

static void run_done(void *user, int job, const void *result, size_t size) {
  run_queue *q = user;
  calib_run *run = &q->runs[job];
  run->message[0] = '\0';
  run->status = pool_samples_unpack(result, size, run->rec, run->message,
                                    sizeof run->message);
  if (run->status != ROD_OK && !run->message[0])
    snprintf(run->message, sizeof run->message, "%s",
             rod_strerror(run->status));
}

int calib_workers(int threads) {
  const int ranks = rod_mpi_size();
  return ranks > 1 ? ranks : threads;
}

int calib_run_all(calib_run *runs, int count, int threads,
                  rod_calib_stop_fn stop, void *stop_user) {
  run_queue q = {
      .runs = runs, .count = count, .stop = stop, .stop_user = stop_user};
  pool_ops ops = {.kind = POOL_SAMPLES,
                  .next = next_run,
                  .done = run_done,
                  .stop_fn = stop,
                  .stop_user = stop_user,
                  .user = &q};
  int pending = 0;
  for (int i = 0; i < count; i++)
    if (runs[i].pending) { /* until its result comes back */
      pending++;
      runs[i].status = ROD_EIO;
      snprintf(runs[i].message, sizeof runs[i].message,
               "no result came back from the pool");
    }
  if (pending == 0)
    return 0;
  pool_run(&ops, threads > pending ? pending : threads);
  for (int i = 0; i < count; i++) /* not handed out: the pool stopped */
    if (runs[i].pending)
      runs[i].pending = false;
  return q.started;
}
