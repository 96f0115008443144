/* Simulations as jobs handed out one at a time to whoever asks: the
 * threads of this process, or the ranks of an MPI job (rod/parallel.h),
 * rank 0 coordinating. A job is a scenario with what to make of it (its
 * kind); every rank runs the same kinds, so a job's result does not
 * depend on where it ran. Cases of very different cost balance
 * themselves: a worker asks for the next job when it is done. */
#ifndef ROD_SWEEP_POOL_H
#define ROD_SWEEP_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "rod/recorder.h"
#include "rod/scenario.h"

/* What a job makes of its scenario. */
enum {
  POOL_CASE = 1, /* a sweep's case: run into its output.file, summarize;
                    result: a rod_case_record */
  POOL_SAMPLES   /* a run into memory (calibration); result: its samples,
                    pool_samples_unpack */
};

/* A job's input: its kind's flag and the scenario. */
typedef struct {
  int flag; /* POOL_CASE: static only; POOL_SAMPLES: keep the whole rod */
  rod_scenario sc;
} pool_job;

typedef struct {
  int kind;
  /* The coordinator, under the pool's lock: the next job (its number and
   * input), false when there is none left. */
  bool (*next)(void *user, int *job, pool_job *in);
  /* The coordinator, under the pool's lock: job's result (size bytes). */
  void (*done)(void *user, int job, const void *result, size_t size);
  const volatile int *stop;
  /* Asked at every time step of a POOL_SAMPLES job run on this process's
   * threads, besides *stop (may be NULL; the calibration's stop, which
   * must be safe to call from any thread). */
  int (*stop_fn)(void *stop_user);
  void *stop_user;
  void *user;
} pool_ops;

/* Run every job ops hands out: on `threads` threads here (the caller's
 * among them), or, on rank 0 of an MPI job of more than one rank, on one
 * thread here and every other rank. ROD_OK, ROD_ENOMEM, ROD_EIO (MPI). */
int pool_run(const pool_ops *ops, int threads);

/* Run one job of kind: its result in a new buffer (*out, free() it;
 * NULL when out of memory), returns its bytes. *stop (may be NULL) or
 * stop_fn (may be NULL) non-zero stops the run after its step. */
size_t pool_job_run(int kind, const pool_job *in, void **out,
                    const volatile int *stop, int (*stop_fn)(void *),
                    void *stop_user);

/* POOL_SAMPLES: a result into rec (sized by rod_recorder_alloc for the
 * run's scenario): the run's status, and its message (message_size
 * bytes); ROD_ENOMEM when rec has no room for it. */
int pool_samples_unpack(const void *result, size_t size, rod_recorder *rec,
                        char *message, size_t message_size);

/* The threads working on ops: the next job under the lock, run it, its
 * result under the lock, until none is left (or status is set). */
typedef struct {
  const pool_ops *ops;
  pthread_mutex_t lock;
  int status;
} pool_state;
void *pool_worker(void *state);

/* ops on `threads` threads, the caller's among them (so the jobs run even
 * if no thread can be started). */
int pool_threads(const pool_ops *ops, int threads);

#endif
