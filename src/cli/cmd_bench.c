/* rodsim bench: the time loop without output at one or more time steps;
 * one CSV row per dt (docs/commands.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "rod/sim.h"

static const char *help =
    "usage: rodsim bench SCENARIO.ini [--dt LIST] [--set SECTION.KEY=VALUE]... "
    "[-o OUT.csv] [--quiet]\n\n"
    "Runs the scenario at each time step of LIST (comma separated, seconds;\n"
    "default: time.dt) without writing HDF5 and prints one CSV row per dt:\n"
    "dt,steps,wall_s,realtime_ratio,mean_iterations,integrations_per_step,"
    "fallbacks\n"
    "realtime_ratio = simulated time / wall time of the whole run (set-up,\n"
    "static state and every step), as rodsim run prints it; bench writes no\n"
    "output, so its ratio is the solver's alone. On a terminal a line shows\n"
    "each run's progress; a run estimated to take more than 10 minutes says\n"
    "so (--quiet: neither).\n";

int cmd_bench(int argc, char **argv) {
  rod_scenario sc;
  const char *dt_list = NULL, *csv_path = NULL;
  bool force = false, quiet = false;
  int rc = cli_table_args(argc, argv, "bench", help, "--dt", &dt_list, &sc,
                          &csv_path, &force, &quiet);
  if (rc != CLI_OK)
    return rc < 0 ? CLI_OK : rc;
  double dts[256];
  int ndt = 1;
  dts[0] = sc.time.dt;
  if (dt_list && (ndt = cli_parse_list(dt_list, dts, 256)) < 0) {
    cli_fail("%s: --dt: expected a comma-separated list of time steps > 0 "
             "(got %s)",
             sc.source, dt_list);
    return CLI_BAD_INPUT;
  }
  cli_table table;
  rc = cli_table_open(&table, csv_path,
                      "dt,steps,wall_s,realtime_ratio,mean_iterations,"
                      "integrations_per_step,fallbacks\n",
                      &sc, force);
  if (rc != CLI_OK)
    return rc;
  int exit_code = CLI_OK;
  cli_progress pr;
  cli_progress_init(&pr, sc.source, quiet);
  for (int k = 0; k < ndt; k++) {
    rod_scenario run = sc;
    run.time.dt = dts[k];
    cli_warn_scenario(&run,
                      k == 0 ? ROD_WARN_ALL : ROD_WARN_ALL & ~ROD_WARN_UNITS);
    char label[64];
    snprintf(label, sizeof label, "bench, dt = %g s", dts[k]);
    cli_progress_sim(&pr, &run, label);
    cli_progress_sink ps;
    rod_sim_sink sink = cli_progress_sink_of(&ps, NULL, &pr);
    rod_sim_result res;
    rod_error err = {{0}, {0}, {0}, 0};
    cli_progress_wait(&pr, "solving the static state");
    int st = rod_sim_run(&run, &sink, false, &res, &err);
    cli_progress_waited(&pr);
    cli_progress_clear(&pr);
    if (st != ROD_OK && !res.message[0]) {
      cli_print_error(&err);
      exit_code = CLI_BAD_INPUT;
      break;
    }
    if (st != ROD_OK) {
      cli_fail("%s: dt = %g: %s", sc.source, dts[k], res.message);
      exit_code = CLI_FAILED;
    }
    double ratio = cli_realtime_ratio(&res);
    char row[512];
    snprintf(row, sizeof row, "%.6g,%d,%.6g,%.6g,%.4f,%.4f,%d\n", dts[k],
             res.steps, res.wall_time, ratio,
             res.steps ? (double)res.iterations / res.steps : 0.0,
             res.steps ? (double)res.integrations / res.steps : 0.0,
             res.fallbacks);
    cli_table_row(&table, row);
  }
  cli_progress_end(&pr);
  rc = cli_table_close(&table);
  return exit_code != CLI_OK ? exit_code : rc;
}
