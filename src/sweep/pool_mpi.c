/* The pool's jobs over the ranks of an MPI job (rod/parallel.h, pool.h):
 * the MPI module (mpi_module.h), which librod opens under a launcher.
 *
 * Rank 0 coordinates: its main thread hands out job numbers on request
 * (a worker's message carries the result of its previous job, rank 0
 * replies with the next job) while one more thread of rank 0 runs jobs
 * too. Every other rank serves: it asks, runs what it gets, asks again
 * with the result. Only rank 0's main thread calls MPI (thread level
 * funneled). Nobody spins in a blocking call: waiting ranks poll with
 * MPI_Iprobe and sleep between polls (20 us growing to 1 ms), so an idle
 * rank or rank 0's coordinator takes no core from the ranks that compute
 * when a node is oversubscribed. A worker between a coordinator's batches
 * (a calibration's steps) keeps its request pending until the next. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "rod/status.h"
#include "sweep/mpi_module.h"

enum { TAG_ASK = 11, TAG_JOB = 12 };
enum { CMD_FINISH = 0, CMD_JOB = 1 };

/* A worker's request: the job whose result follows (-1: none). */
typedef struct {
  int32_t job, kind;
} ask_head;

/* Rank 0's reply: a job of kind, its pool_job after the head. */
typedef struct {
  int32_t cmd, kind, job;
} job_head;

static int rank = 0, ranks = 1;
static bool started;
static int *idle; /* ranks whose request waits for a job */
static int nidle, finished;
static const rod_mpi_host *host; /* librod's pool_worker, pool_job_run */

/* Open MPI's messaging layer for a job whose ranks all run on this node,
 * unless the user chose one (OMPI_MCA_pml, which `mpirun --mca pml X`
 * sets too): ob1, its point-to-point layer over shared memory. Left to
 * itself Open MPI first probes UCX and the fabric libraries, which on one
 * node reach nothing shared memory does not, and that probe is most of
 * MPI_Init: mpirun -n 2 of a rank that only starts and stops took 0.45 s
 * with it, 0.24 s with ob1, against 0.13 s for mpirun alone (2 cores,
 * idle). A sweep sends a few small messages a case. Ranks on several
 * nodes (OMPI_COMM_WORLD_LOCAL_SIZE below OMPI_COMM_WORLD_SIZE) keep the
 * site's choice, which is what reaches the other nodes. */
static void choose_messaging(void) {
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!size || !local || strcmp(size, local) != 0 || getenv("OMPI_MCA_pml"))
    return;
  setenv("OMPI_MCA_pml", "ob1", 0);
}

static int mpi_start(const rod_mpi_host *h, int *argc, char ***argv, int *r,
                     int *n) {
  host = h;
  *r = 0;
  *n = 1;
  if (started)
    return ROD_OK;
  choose_messaging();
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS)
    return ROD_EIO;
  started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  idle = calloc((size_t)ranks, sizeof *idle);
  *r = rank;
  *n = ranks;
  return idle ? ROD_OK : ROD_ENOMEM;
}

/* Sleep between polls: from 20 us, doubling to 1 ms while nothing comes. */
static void pause_poll(long *ns) {
  struct timespec ts = {0, *ns};
  nanosleep(&ts, NULL);
  *ns = *ns * 2 > 1000000 ? 1000000 : *ns * 2;
}

/* Wait for a message of tag from src (MPI_ANY_SOURCE), polling; its source
 * and size. */
static int wait_message(int src, int tag, int *from, int *bytes) {
  long ns = 20000;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
      return ROD_EIO;
    if (flag) {
      *from = st.MPI_SOURCE;
      MPI_Get_count(&st, MPI_BYTE, bytes);
      return ROD_OK;
    }
    pause_poll(&ns);
  }
}

static int send_job(int to, int cmd, int kind, int job, const pool_job *in) {
  const size_t size = sizeof(job_head) + (cmd == CMD_JOB ? sizeof *in : 0);
  char *buf = malloc(size);
  if (!buf)
    return ROD_ENOMEM;
  job_head h = {cmd, kind, job};
  memcpy(buf, &h, sizeof h);
  if (cmd == CMD_JOB)
    memcpy(buf + sizeof h, in, sizeof *in);
  int e = MPI_Send(buf, (int)size, MPI_BYTE, to, TAG_JOB, MPI_COMM_WORLD);
  free(buf);
  return e == MPI_SUCCESS ? ROD_OK : ROD_EIO;
}

/* Receive a request of `bytes` from `from`; hand its result to done. */
static int take_request(pool_state *p, int from, int bytes, int *results) {
  char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!buf)
    return ROD_ENOMEM;
  if (MPI_Recv(buf, bytes, MPI_BYTE, from, TAG_ASK, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    free(buf);
    return ROD_EIO;
  }
  ask_head h = {-1, 0};
  if ((size_t)bytes >= sizeof h)
    memcpy(&h, buf, sizeof h);
  if (h.job >= 0 && p) {
    pthread_mutex_lock(&p->lock);
    p->ops->done(p->ops->user, h.job, buf + sizeof h, (size_t)bytes - sizeof h);
    pthread_mutex_unlock(&p->lock);
    (*results)++;
  }
  free(buf);
  idle[nidle++] = from;
  return ROD_OK;
}

static int mpi_run(const pool_ops *ops) {
  pool_state p = {.ops = ops, .status = ROD_OK};
  pthread_mutex_init(&p.lock, NULL);
  pthread_t local;
  const bool helper = pthread_create(&local, NULL, host->worker, &p) == 0;
  pool_job *in = malloc(sizeof *in);
  int st = in ? ROD_OK : ROD_ENOMEM;
  int given = 0, results = 0;
  bool exhausted = false;
  long ns = 20000;
  while (st == ROD_OK) {
    while (!exhausted && nidle > 0 && st == ROD_OK) {
      int job;
      pthread_mutex_lock(&p.lock);
      bool have = p.status == ROD_OK && ops->next(ops->user, &job, in);
      pthread_mutex_unlock(&p.lock);
      if (!have)
        exhausted = true;
      else if ((st = send_job(idle[--nidle], CMD_JOB, ops->kind, job, in)) ==
               ROD_OK)
        given++;
    }
    if (exhausted && results == given)
      break;
    int flag = 0;
    MPI_Status ms;
    if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &ms) !=
        MPI_SUCCESS) {
      st = ROD_EIO;
      break;
    }
    if (!flag) {
      pause_poll(&ns);
      continue;
    }
    ns = 20000;
    int bytes;
    MPI_Get_count(&ms, MPI_BYTE, &bytes);
    st = take_request(&p, ms.MPI_SOURCE, bytes, &results);
  }
  if (st != ROD_OK) { /* stop the local thread's loop too */
    pthread_mutex_lock(&p.lock);
    p.status = st;
    pthread_mutex_unlock(&p.lock);
  }
  if (helper)
    pthread_join(local, NULL);
  else
    host->worker(&p); /* no thread: rank 0 runs its share after */
  free(in);
  pthread_mutex_destroy(&p.lock);
  return st != ROD_OK ? st : p.status;
}

static int mpi_serve(const volatile int *stop) {
  if (!started || rank == 0)
    return ROD_OK;
  ask_head none = {-1, 0};
  if (MPI_Send(&none, sizeof none, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    return ROD_EIO;
  pool_job *in = malloc(sizeof *in);
  char *msg = malloc(sizeof(job_head) + sizeof *in);
  if (!in || !msg) {
    free(in);
    free(msg);
    return ROD_ENOMEM;
  }
  int st = ROD_OK;
  for (;;) {
    int from, bytes;
    if ((st = wait_message(0, TAG_JOB, &from, &bytes)) != ROD_OK)
      break;
    if ((size_t)bytes > sizeof(job_head) + sizeof *in ||
        MPI_Recv(msg, bytes, MPI_BYTE, 0, TAG_JOB, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      st = ROD_EIO;
      break;
    }
    job_head h;
    memcpy(&h, msg, sizeof h);
    if (h.cmd != CMD_JOB)
      break;
    memcpy(in, msg + sizeof h, sizeof *in);
    void *result;
    size_t size = host->job_run(h.kind, in, &result, stop, NULL, NULL);
    char *reply = malloc(sizeof(ask_head) + size);
    ask_head a = {h.job, h.kind};
    if (reply) {
      memcpy(reply, &a, sizeof a);
      if (size)
        memcpy(reply + sizeof a, result, size);
    }
    free(result);
    int e = reply
                ? MPI_Send(reply, (int)(sizeof a + size), MPI_BYTE, 0, TAG_ASK,
                           MPI_COMM_WORLD)
                : MPI_Send(&a, sizeof a, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD);
    free(reply);
    if (e != MPI_SUCCESS) {
      st = ROD_EIO;
      break;
    }
  }
  free(in);
  free(msg);
  return st;
}

static void mpi_finish(void) {
  if (!started)
    return;
  if (rank == 0) {
    /* every worker: its pending request answered with finish */
    int results = 0;
    while (finished < ranks - 1) {
      while (nidle > 0 && finished < ranks - 1) {
        send_job(idle[--nidle], CMD_FINISH, 0, -1, NULL);
        finished++;
      }
      int from, bytes;
      if (finished < ranks - 1 &&
          (wait_message(MPI_ANY_SOURCE, TAG_ASK, &from, &bytes) != ROD_OK ||
           take_request(NULL, from, bytes, &results) != ROD_OK))
        break;
    }
  }
  free(idle);
  idle = NULL;
  started = false;
  MPI_Finalize();
}

__attribute__((visibility("default")))
const rod_mpi_module rod_mpi_module_table = {.version = ROD_MPI_MODULE_VERSION,
                                             .size = sizeof(rod_mpi_module),
                                             .library_version = ROD_VERSION,
                                             .start = mpi_start,
                                             .serve = mpi_serve,
                                             .finish = mpi_finish,
                                             .run = mpi_run};
