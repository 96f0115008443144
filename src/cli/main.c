/* rodsim: command-line front end (docs/commands.md). */
#include <hdf5.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "rod/parallel.h"

static const struct {
  const char *name;
  int (*fn)(int, char **);
  const char *summary;
} commands[] = {
    {"run", cmd_run, "static initial state, then the dynamic simulation"},
    {"static", cmd_static, "the static equilibrium only (t = 0 of run)"},
    {"bench", cmd_bench, "real-time ratio and solver effort per time step"},
    {"compare", cmd_compare,
     "RFEM against the Kirchhoff rod, per segment count"},
    {"track", cmd_track,
     "the rod's tip and shape from video or PNG frames (tip CSV, shape file)"},
    {"render", cmd_render, "a synthetic video of a run (noise, blur, camera)"},
    {"calibrate", cmd_calibrate, "fit [rod] keys to a measured tip trajectory"},
    {"sweep", cmd_sweep,
     "many runs of a scenario (a grid, a CSV, samples), threads or MPI"},
    {"keys", cmd_keys, "every scenario key: default, unit, range, meaning"},
    {"export", cmd_export,
     "a run's file for ParaView and VisIt (XDMF beside it, or VTK files)"},
};

static void usage(FILE *out) {
  fprintf(
      out,
      "usage: rodsim COMMAND [ARGS...]\n"
      "       rodsim --help | --version | COMMAND --help\n\n"
      "Simulates slender elastic rods: Kirchhoff/Cosserat rods by BDF-alpha\n"
      "in time and shooting in arclength (Till & Rucker 2017), and a\n"
      "rigid-finite-element chain for comparison. Output: HDF5.\n\n"
      "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nInstalled with rodsim (meson install):\n"
               "  scenarios to start from  " ROD_DATADIR "/scenarios\n"
               "  documentation            " ROD_DOCDIR "\n"
               "    (README.md; commands.md, scenario.md: every key; hdf5.md: "
               "the output)\n");
}

/* OpenBLAS's own threads only slow down the small matrices here (and
 * calibrate runs simulations in parallel itself). The pthread build starts
 * its server threads when it loads, and they spin on sched_yield for about
 * 0.1 s before sleeping: on this 2-core machine that took 10-15% off a
 * 0.1 s run (weight release, rodsim bench). One thread, and the idle
 * servers shut down (weak: other OpenBLAS builds may lack the call). */
void openblas_set_num_threads(int num_threads);
void blas_thread_shutdown_(void) __attribute__((weak));

static int command(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_BAD_INPUT;
  }
  if (cli_is_help(argv[1])) {
    usage(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    printf("rodsim %s\n", ROD_VERSION);
    return CLI_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].fn(argc - 1, argv + 1);
  cli_fail("unknown command '%s' (see rodsim --help)", argv[1]);
  return CLI_BAD_INPUT;
}

/* Freed memory stays with the process: a sweep or a calibration runs case
 * after case in one process, each allocating its simulation's workspaces
 * (megabytes) and freeing them at its end. glibc gave those pages back to
 * the kernel (heap trimmed above 128 kB free, large blocks by mmap) and the
 * next case faulted them in again: under MPI, where Open MPI's memory hooks
 * keep glibc from raising those limits itself, 480 more page faults a case
 * and 75 ms a weight-release case instead of 67 ms. Up to 64 MB freed is
 * kept for reuse, blocks up to 32 MB come from the heap. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv) {
  keep_freed_memory();
  /* HDF5's exit handler would close a file whose close failed (a write
   * error) a second time and crash; every file is closed explicitly */
  H5dont_atexit();
  openblas_set_num_threads(1);
  if (blas_thread_shutdown_)
    blas_thread_shutdown_();
  /* Under mpirun or srun, rank 0 runs the command and the other ranks
   * serve its simulations (sweep, calibrate: docs/scale.md) */
  int rank, ranks;
  if (rod_mpi_start(&argc, &argv, &rank, &ranks) != ROD_OK) {
    cli_fail("MPI: cannot initialize: %s", rod_mpi_error());
    return CLI_FAILED;
  }
  int rc = rank > 0 ? cli_mpi_serve() : command(argc, argv);
  rod_mpi_finish();
  return rc;
}
