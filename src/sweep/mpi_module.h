/* The MPI module's table: the pool's MPI side (pool_mpi.c, rod/parallel.h)
 * is built as a module of its own (rod_mpi.so, linked with libmpi) that
 * librod opens (pool.c, core/module.h) only when the process was started
 * by an MPI launcher, so that every other process, a sweep's or a single
 * run's, loads none of MPI's libraries (libmpi, its runtime, hwloc,
 * libevent: about 3 ms of every start). The module calls back into
 * librod through the host's table it is given at its start, so it links
 * no librod of its own. */
#ifndef ROD_SWEEP_MPI_MODULE_H
#define ROD_SWEEP_MPI_MODULE_H

#include <stddef.h>

#include "sweep/pool.h"

#define ROD_MPI_MODULE_FILE "rod_mpi.so"
#define ROD_MPI_MODULE_SYMBOL "rod_mpi_module_table"
/* raised whenever a member below or of rod_mpi_host changes */
#define ROD_MPI_MODULE_VERSION 1

/* What the module calls of librod (pool.h). */
typedef struct {
  void *(*worker)(void *state);
  size_t (*job_run)(int kind, const pool_job *in, void **out,
                    const volatile int *stop, int (*stop_fn)(void *),
                    void *stop_user);
} rod_mpi_host;

typedef struct {
  /* rod_module_head (core/module.h): ROD_MPI_MODULE_VERSION, sizeof
   * (rod_mpi_module), ROD_VERSION of the build */
  int version;
  unsigned size;
  const char *library_version;
  /* rod/parallel.h's calls once the module is open; start is given the
   * host's table, which it keeps */
  int (*start)(const rod_mpi_host *host, int *argc, char ***argv, int *rank,
               int *size);
  int (*serve)(const volatile int *stop);
  void (*finish)(void);
  /* pool.h's pool_mpi_run */
  int (*run)(const pool_ops *ops);
} rod_mpi_module;

#endif
