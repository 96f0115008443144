/* rodsim compare: the Kirchhoff rod as the reference, RFEM at each segment
 * count, one CSV row per count (docs/commands.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "rod/compare.h"
#include "rod/recorder.h"
#include "rod/sim.h"

static const char *help =
    "usage: rodsim compare SCENARIO.ini --segments LIST [--set "
    "SECTION.KEY=VALUE]... [-o OUT.csv] [--quiet]\n\n"
    "Runs the scenario with the Kirchhoff backend (the reference) and with\n"
    "RFEM for each segment count in LIST (comma separated), all at the\n"
    "scenario's dt, and prints one CSV row per count:\n"
    "segments,frequency_hz,reference_frequency_hz,freq_error,tip_rms_error,"
    "tip_max_error,wall_s,reference_wall_s\n"
    "freq_error = frequency / reference - 1 (dominant frequency of the tip z\n"
    "after t = 0); tip errors in metres over common times. On a terminal a\n"
    "line shows each run's progress; a run estimated to take more than 10\n"
    "minutes says so (--quiet: neither).\n";

/* Run sc into a new recorder, its progress shown under label; returns the
 * exit code of a failure. */
static int simulate(const rod_scenario *sc, cli_progress *pr, const char *label,
                    rod_recorder **out, double *wall) {
  rod_recorder *r = rod_recorder_alloc(sc, false);
  if (!r) {
    cli_fail("out of memory");
    return CLI_FAILED;
  }
  rod_sim_sink record = rod_recorder_sink(r);
  cli_progress_sink ps;
  rod_sim_sink sink = cli_progress_sink_of(&ps, &record, pr);
  rod_sim_result res;
  rod_error err = {{0}, {0}, {0}, 0};
  cli_progress_sim(pr, sc, label);
  cli_progress_wait(pr, "solving the static state");
  int st = rod_sim_run(sc, &sink, false, &res, &err);
  cli_progress_waited(pr);
  cli_progress_clear(pr);
  *wall = res.wall_time;
  if (st != ROD_OK) {
    if (res.message[0])
      cli_fail("%s: %s backend: %s", sc->source,
               sc->solver.backend == ROD_BACKEND_RFEM ? "rfem" : "kirchhoff",
               res.message);
    else
      cli_print_error(&err);
    rod_recorder_free(r);
    return res.message[0] ? CLI_FAILED : CLI_BAD_INPUT;
  }
  *out = r;
  return CLI_OK;
}

int cmd_compare(int argc, char **argv) {
  rod_scenario sc;
  const char *list = NULL, *csv_path = NULL;
  bool force = false, quiet = false;
  int rc = cli_table_args(argc, argv, "compare", help, "--segments", &list, &sc,
                          &csv_path, &force, &quiet);
  if (rc != CLI_OK)
    return rc < 0 ? CLI_OK : rc;
  if (!list) {
    cli_fail("%s: --segments: missing (e.g. --segments 5,10,20)", sc.source);
    return CLI_BAD_INPUT;
  }
  double counts[256];
  int nc = cli_parse_list(list, counts, 256);
  for (int i = 0; i < nc; i++)
    if (counts[i] != floor(counts[i]) || counts[i] > 100000)
      nc = -1;
  if (nc < 0) {
    cli_fail("%s: --segments: expected a comma-separated list of positive "
             "integers (got %s)",
             sc.source, list);
    return CLI_BAD_INPUT;
  }
  static const char header[] =
      "segments,frequency_hz,reference_frequency_hz,freq_error,"
      "tip_rms_error,tip_max_error,wall_s,reference_wall_s\n";
  /* -o refused before the reference's run */
  if ((rc = cli_table_check(csv_path, header, &sc, force)) != CLI_OK)
    return rc;
  sc.time.error_estimate = false; /* the comparison is against the reference */
  rod_scenario ref_sc = sc;
  ref_sc.solver.backend = ROD_BACKEND_KIRCHHOFF;
  rod_recorder *ref = NULL;
  double ref_wall, ref_hz = NAN;
  cli_warn_scenario(&sc, ROD_WARN_UNITS);
  cli_progress pr;
  cli_progress_init(&pr, sc.source, quiet);
  rc = simulate(&ref_sc, &pr, "compare, the Kirchhoff rod", &ref, &ref_wall);
  if (rc != CLI_OK) {
    cli_progress_end(&pr);
    return rc;
  }
  if (rod_compare_frequency(ref, &ref_hz) != ROD_OK)
    cli_fail("%s: the reference tip does not oscillate over two periods; "
             "frequencies left empty",
             sc.source);
  cli_table table;
  rc = cli_table_open(&table, csv_path, header, &sc, force);
  if (rc != CLI_OK) {
    cli_progress_end(&pr);
    rod_recorder_free(ref);
    return rc;
  }
  int exit_code = CLI_OK;
  for (int i = 0; i < nc; i++) {
    rod_scenario run = sc;
    run.solver.backend = ROD_BACKEND_RFEM;
    run.rfem.segments = (int)counts[i];
    rod_recorder *r = NULL;
    double wall;
    char label[64];
    snprintf(label, sizeof label, "compare, %d elements", run.rfem.segments);
    rc = simulate(&run, &pr, label, &r, &wall);
    if (rc != CLI_OK) {
      exit_code = rc;
      continue;
    }
    double hz = NAN;
    rod_compare_result cmp;
    rod_compare_frequency(r, &hz);
    rod_compare_tips(r, ref, &cmp);
    char row[512];
    snprintf(row, sizeof row, "%d,%.10g,%.10g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
             (int)counts[i], hz, ref_hz, hz / ref_hz - 1.0, cmp.rms_error,
             cmp.max_error, wall, ref_wall);
    cli_table_row(&table, row);
    rod_recorder_free(r);
  }
  cli_progress_end(&pr);
  rod_recorder_free(ref);
  rc = cli_table_close(&table);
  return exit_code != CLI_OK ? exit_code : rc;
}
