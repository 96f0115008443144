/* rodsim bench: the time loop without output at one or more time steps;
 * one CSV row per dt (docs/commands.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rod/sim.h"

static const char *help =
    "usage: rodsim bench SCENARIO.ini [--dt LIST] [--set SECTION.KEY=VALUE]... "
    "[-o OUT.csv]\n\n"
    "Runs the scenario at each time step of LIST (comma separated, seconds;\n"
    "default: time.dt) without writing HDF5 and prints one CSV row per dt:\n"
    "dt,steps,wall_s,realtime_ratio,mean_iterations,integrations_per_step,"
    "fallbacks\n"
    "realtime_ratio = simulated time / wall time of the whole run (set-up,\n"
    "static state and every step), as rodsim run prints it; bench writes no\n"
    "output, so its ratio is the solver's alone.\n";

int cmd_bench(int argc, char **argv) {
  rod_scenario sc;
  const char *dt_list = NULL, *csv_path = NULL;
  bool force = false;
  int rc = cli_table_args(argc, argv, "bench", help, "--dt", &dt_list, &sc,
                          &csv_path, &force);
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
  for (int k = 0; k < ndt; k++) {
    rod_scenario run = sc;
    run.time.dt = dts[k];
    cli_warn_sampling(&run);
    rod_sim_result res;
    rod_error err = {{0}, {0}, {0}, 0};
    int st = rod_sim_run(&run, NULL, false, &res, &err);
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
  rc = cli_table_close(&table);
  return exit_code != CLI_OK ? exit_code : rc;
}
