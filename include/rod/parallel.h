/* Simulations spread over the ranks of an MPI job (docs/scale.md): under
 * `mpirun -n K` or `srun`, rank 0 runs the command and hands out its
 * simulations (a sweep's cases, a calibration's Jacobian) one at a time
 * to whichever rank asks, while every other rank serves them until rank 0
 * is done. Built with MPI only when it was found (meson -Dmpi=auto);
 * without it everything runs on rank 0 alone.
 *
 *   int rank, size;
 *   rod_mpi_start(&argc, &argv, &rank, &size);
 *   if (rank > 0) return rod_mpi_serve(&stop);
 *   ... the command, on rank 0 ...
 *   rod_mpi_finish();
 */
#ifndef ROD_PARALLEL_H
#define ROD_PARALLEL_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this build has MPI. */
bool rod_mpi_built(void);

/* Initialize MPI (thread level funneled) when the process was started by
 * an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx: its
 * environment says so) as one of more than one rank; otherwise (a job of
 * one rank among them) do nothing, and load none of MPI's libraries (they
 * are in a module librod opens only then). rank and size: this process's rank and the ranks of the job (0
 * and 1 without MPI). ROD_EIO when MPI cannot be initialized. */
int rod_mpi_start(int *argc, char ***argv, int *rank, int *size);

/* Why rod_mpi_start failed, one line ("" when it did not). */
const char *rod_mpi_error(void);

/* The ranks of the job (1 without MPI or before rod_mpi_start). */
int rod_mpi_size(void);

/* Rank > 0: run the simulations rank 0 hands out until it finishes; *stop
 * (may be NULL) non-zero stops the one running (SIGTERM), whose
 * interruption rank 0 records. Returns 0, or ROD_EIO when MPI failed. */
int rod_mpi_serve(const volatile int *stop);

/* Rank 0: release the serving ranks; every rank: finalize MPI. A no-op
 * without MPI. */
void rod_mpi_finish(void);

#ifdef __cplusplus
}
#endif

#endif
