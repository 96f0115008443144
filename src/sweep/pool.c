/* pool_run (pool.h): the ranks of an MPI job (pool_mpi.c) when there are
 * more than one, else the threads of this process (pool_threads.c); and,
 * in a build without MPI, the one-rank functions of rod/parallel.h. */
#include "sweep/pool.h"

#include "config.h"
#include "rod/parallel.h"
#include "rod/status.h"

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
