/* pool_run (pool.h): the ranks of an MPI job when there are more than
 * one, else the threads of this process (pool_threads.c); and the calls
 * of rod/parallel.h, which open the MPI module (mpi_module.h: pool_mpi.c,
 * built when MPI was found) only when an MPI launcher started the
 * process, and otherwise make one rank. */
#include "sweep/pool.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/module.h"
#include "rod/parallel.h"
#include "rod/status.h"
#include "sweep/mpi_module.h"

static const rod_mpi_module *mpi; /* open and started */
static int this_rank = 0, ranks = 1;
static char why[3 * PATH_MAX]; /* why it did not start */

bool rod_mpi_built(void) { return ROD_HAVE_MPI; }

/* Whether an MPI launcher started this process as one of more than one
 * rank: a job of one rank (mpirun -n 1), whose size the launcher names,
 * is run as a process alone, without MPI's start (half a second of
 * mpirun's, on 2 cores at a load of 15). */
static bool launched(void) {
  const char *sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    const char *n = getenv(sizes[i]);
    if (n && strcmp(n, "1") == 0)
      return false;
  }
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                        "MPI_LOCALNRANKS", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i]))
      return true;
  return false;
}

int rod_mpi_start(int *argc, char ***argv, int *rank, int *size) {
  *rank = this_rank;
  *size = ranks;
  if (mpi || !ROD_HAVE_MPI || !launched())
    return ROD_OK;
  static const rod_mpi_host host = {pool_worker, pool_job_run};
  const rod_mpi_module *m =
      rod_module_open(ROD_MPI_MODULE_FILE, ROD_MPI_MODULE_SYMBOL,
                      ROD_MPI_MODULE_VERSION, sizeof *m, why, sizeof why);
  if (!m)
    return ROD_EIO;
  int st = m->start(&host, argc, argv, rank, size);
  if (st == ROD_OK) {
    mpi = m;
    this_rank = *rank;
    ranks = *size;
  } else {
    snprintf(why, sizeof why, "%s",
             st == ROD_ENOMEM ? "out of memory" : "MPI_Init failed");
  }
  return st;
}

const char *rod_mpi_error(void) { return why; }

int rod_mpi_size(void) { return ranks; }

int rod_mpi_serve(const volatile int *stop) {
  return mpi ? mpi->serve(stop) : ROD_OK;
}

void rod_mpi_finish(void) {
  if (mpi)
    mpi->finish();
  mpi = NULL;
  this_rank = 0;
  ranks = 1;
}

int pool_run(const pool_ops *ops, int threads) {
  if (mpi && ranks > 1)
    return mpi->run(ops);
  return pool_threads(ops, threads < 1 ? 1 : threads);
}
