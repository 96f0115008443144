/* rodsim bench: the time loop without output at one or more time steps;
 * one CSV row per dt (CONTRACT.md section 1). */
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
    "realtime_ratio = simulated time / wall time of the whole run.\n";

int cmd_bench(int argc, char **argv) {
  cli_common c = {0};
  const char *dt_list = NULL;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return CLI_OK;
    }
    if (strcmp(argv[i], "--dt") == 0) {
      if (i + 1 >= argc) {
        cli_fail("bench: --dt: missing LIST");
        return CLI_BAD_INPUT;
      }
      dt_list = argv[++i];
      continue;
    }
    int r = cli_common_arg(&c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("bench: unknown option '%s'", argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  const char *csv_path = c.output;
  c.output = NULL;
  rod_scenario sc;
  int rc = cli_load(&c, &sc);
  if (rc != CLI_OK)
    return rc;
  double dts[256];
  int ndt = 1;
  dts[0] = sc.time.dt;
  if (dt_list && (ndt = cli_parse_list(dt_list, dts, 256)) < 0) {
    cli_fail("%s: --dt: expected a comma-separated list of time steps > 0 "
             "(got %s)",
             sc.source, dt_list);
    return CLI_BAD_INPUT;
  }
  FILE *csv = NULL;
  if (csv_path && !(csv = fopen(csv_path, "w"))) {
    cli_fail("%s: cannot write", csv_path);
    return CLI_BAD_INPUT;
  }
  const char *header = "dt,steps,wall_s,realtime_ratio,mean_iterations,"
                       "integrations_per_step,fallbacks\n";
  fputs(header, stdout);
  if (csv)
    fputs(header, csv);
  int exit_code = CLI_OK;
  for (int k = 0; k < ndt; k++) {
    rod_scenario run = sc;
    run.time.dt = dts[k];
    rod_sim_result res;
    rod_error err = {{0}, {0}, {0}};
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
    double ratio = res.wall_time > 0 ? res.time / res.wall_time : INFINITY;
    char row[512];
    snprintf(row, sizeof row, "%.6g,%d,%.6g,%.6g,%.4f,%.4f,%d\n", dts[k],
             res.steps, res.wall_time, ratio,
             res.steps ? (double)res.iterations / res.steps : 0.0,
             res.steps ? (double)res.integrations / res.steps : 0.0,
             res.fallbacks);
    fputs(row, stdout);
    fflush(stdout);
    if (csv)
      fputs(row, csv);
  }
  if (csv && fclose(csv) != 0) {
    cli_fail("%s: write error", csv_path);
    return CLI_FAILED;
  }
  return exit_code;
}
