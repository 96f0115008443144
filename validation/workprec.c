/* One run of a work-precision study (validation/workprec.py): the scenario
 * with --set overrides, the tip trajectory at every sample into a CSV
 * (t,x,y,z and the run's error estimate there, m, -1 when it makes none;
 * full precision) and one line of cost on stdout:
 *   steps,rejected,wall_s,realtime_ratio,integrations_per_step,status,cpu_s,
 *   over_tolerance
 * Wall time is of the whole run (static solve included), as rodsim bench;
 * cpu_s is the process's CPU time, steadier on a shared machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rod/sim.h"
#include "study.h"

typedef struct {
  FILE *f;
} tip_sink;

static int on_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *stats, double wall) {
  (void)stats;
  (void)wall;
  tip_sink *ts = user;
  const double *p = s->position + 3 * (s->points - 1);
  fprintf(ts->f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", t, p[0], p[1], p[2],
          s->has_error_estimate ? s->error_estimate : -1.0);
  return 0;
}

int main(int argc, char **argv) {
  rod_scenario sc;
  const char *usage = "[--set SECTION.KEY=VALUE]... --tip OUT.csv";
  if (!study_start(argc, argv, "workprec", usage, &sc))
    return 2;
  const char *tip = NULL;
  rod_error err;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      if (rod_scenario_set(&sc, argv[++i], &err) != ROD_OK) {
        char buf[1024];
        rod_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "workprec: %s\n", buf);
        return 2;
      }
    } else if (!strcmp(argv[i], "--tip") && i + 1 < argc) {
      tip = argv[++i];
    } else {
      fprintf(stderr, "usage: workprec SCENARIO.ini %s\n", usage);
      return 2;
    }
  }
  if (!tip || rod_scenario_validate(&sc, &err) != ROD_OK) {
    if (tip) {
      char buf[1024];
      rod_error_format(&err, buf, sizeof buf);
      fprintf(stderr, "workprec: %s\n", buf);
    } else {
      fprintf(stderr, "usage: workprec SCENARIO.ini %s\n", usage);
    }
    return 2;
  }
  tip_sink ts = {fopen(tip, "w")};
  if (!ts.f) {
    fprintf(stderr, "workprec: %s: cannot write\n", tip);
    return 2;
  }
  fprintf(ts.f, "t,x,y,z,error_estimate\n");
  rod_sim_sink sink = {.sample = on_sample, .user = &ts};
  rod_sim_result res;
  const clock_t c0 = clock();
  int st = rod_sim_run(&sc, &sink, false, &res, &err);
  const double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  fclose(ts.f);
  printf("%d,%d,%.6g,%.6g,%.4f,%d,%.6g,%d\n", res.steps, res.rejected,
         res.wall_time, res.wall_time > 0 ? res.time / res.wall_time : 0.0,
         res.steps ? res.integrations / res.steps : 0.0, st, cpu,
         res.over_tolerance);
  if (st != ROD_OK)
    fprintf(stderr, "workprec: %s\n", res.message);
  return st == ROD_OK ? 0 : 1;
}
