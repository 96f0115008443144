/* Shared pieces of the rodsim command line (docs/commands.md). */
#ifndef ROD_CLI_H
#define ROD_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "rod/scenario.h"
#include "rod/sim.h"

/* Exit statuses of docs/commands.md. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_BAD_INPUT = 2, CLI_INTERRUPTED = 130 };

#define CLI_MAX_SETS 256

/* Options every scenario command accepts. */
typedef struct {
  const char *scenario;
  const char *output; /* -o */
  const char *sets[CLI_MAX_SETS];
  int nsets;
  bool quiet;
  bool force; /* --force: replace an output rodsim did not write */
} cli_common;

/* Try to consume argv[*i] (and its value) as a common option or the
 * scenario path. Returns 1 if consumed, 0 if not an option of ours, -1 on a
 * usage error (already printed). */
int cli_common_arg(cli_common *c, int argc, char **argv, int *i);

/* Load the scenario with the --set overrides and -o; prints the one-line
 * error and returns CLI_BAD_INPUT on failure. */
int cli_load(const cli_common *c, rod_scenario *sc);

/* The library's warnings about sc of the kinds in what (ROD_WARN_UNITS,
 * ..., rod/scenario.h) on stderr, one line each: "rodsim: FILE: KEY:
 * warning: MESSAGE". */
void cli_warn_scenario(const rod_scenario *sc, int what);
/* Grid nodes of a Kirchhoff run: space.nodes, or what auto takes. */
int cli_nodes(const rod_scenario *sc);

/* Print "rodsim: FILE: KEY: MESSAGE" for err. */
void cli_print_error(const rod_error *err);

/* Print "rodsim: " and a formatted message on stderr. */
void cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* handler for SIGINT and SIGTERM, whatever their inherited disposition
 * (a shell starts background jobs with SIGINT ignored); SIGXFSZ ignored,
 * so that writes past a file size limit fail instead. */
void cli_catch_signals(void (*handler)(int));

/* Send cli_fail's lines to `to` (NULL: stderr) from now on; returns
 * where they went before (sweep: a case's warnings into its record). */
FILE *cli_messages_to(FILE *to);

/* Parse a comma-separated list of positive numbers; returns the count or -1
 * on a malformed or non-positive entry. */
int cli_parse_list(const char *text, double *out, int max);

/* The real-time ratio that run and bench print: simulated time / wall time
 * of the whole run (set-up, static state and every step; for run also the
 * writing of samples), INFINITY when no time was measured. */
double cli_realtime_ratio(const rod_sim_result *res);

/* "--name VALUE" or "--name=VALUE" at argv[*i]: 1 with *value set (and
 * *i past the value), 0 when argv[*i] is another argument, -1 (printed)
 * when the value is missing. */
int cli_option(int argc, char **argv, int *i, const char *name,
               const char **value);

/* Comma-separated finite numbers filling text: their count, or -1 (not
 * printed) if one is malformed or there are more than max. */
int cli_parse_numbers(const char *text, double *out, int max);

/* True when argv[i] is -h or --help. */
bool cli_is_help(const char *arg);

/* Commands that print a CSV table (bench, compare): the common options
 * plus one `--NAME VALUE` option; -o names the CSV file, not the HDF5
 * output; *quiet: --quiet was given. Loads the scenario into sc. Returns
 * CLI_OK, an exit code, or -1 after printing help (exit 0). */
int cli_table_args(int argc, char **argv, const char *command, const char *help,
                   const char *option, const char **value, rod_scenario *sc,
                   const char **csv_path, bool *force, bool *quiet);

/* A CSV table written to stdout and, when a path was given, to a file. */
typedef struct {
  FILE *file;
  const char *path;
  struct rod_outfile *out; /* the file's guard (io/outfile.h) */
} cli_table;

/* Open the table and write its header line; CLI_BAD_INPUT if the file
 * cannot be created, or replaces a file that is not an earlier table
 * with this header (unless force) or one the run of sc reads. */
int cli_table_open(cli_table *t, const char *path, const char *header,
                   const rod_scenario *sc, bool force);
/* The checks of cli_table_open (path NULL: none), without creating
 * anything: before work that comes first (a lock another writer holds
 * refused, io/outfile.h). CLI_BAD_INPUT, said, when it would fail. */
int cli_table_check(const char *path, const char *header,
                    const rod_scenario *sc, bool force);
void cli_table_row(cli_table *t, const char *row);
/* Close; CLI_FAILED on a write error. */
int cli_table_close(cli_table *t);

int cmd_run(int argc, char **argv);
int cmd_static(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_track(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* Ranks > 0 of an MPI job: serve rank 0's simulations (cmd_sweep.c). */
int cli_mpi_serve(void);

#endif
