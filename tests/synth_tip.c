/* synth_tip: synthetic tip CSV of a scenario (rod_calib_synthesize), for
 * calibration examples and measurements; the generating parameters go
 * into '#' comments at the top of the file.
 *
 *   synth_tip SCENARIO.ini [--rate HZ] [--noise M] [--seed N]
 *             [--set SECTION.KEY=VALUE]... [-o TIP.csv]
 *
 * Defaults: 1000 Hz, no noise, seed 1, columns t,x,z, standard output.
 * Positions are rounded to 1 um, as a camera's data would be: the rounding
 * adds 0.3 um rms, nothing next to any realistic noise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rod/calibrate.h"

void openblas_set_num_threads(int num_threads);

static int usage(void) {
  fputs("usage: synth_tip SCENARIO.ini [--rate HZ] [--noise M] [--seed N] "
        "[--set SECTION.KEY=VALUE]... [-o TIP.csv]\n",
        stderr);
  return 2;
}

static void comments(FILE *f, const rod_scenario *sc, double rate, double noise,
                     unsigned long long seed) {
  fprintf(f,
          "# synthetic tip trajectory: tests/synth_tip %s (rodsim "
          "simulation)\n"
          "# rod: bending_stiffness %.10g N m^2, density %.10g kg/m^3, drag "
          "%.10g kg/m^2, tip.mass %.10g kg\n"
          "# time.dt %g s, space.nodes %d, %g s at %g Hz\n"
          "# noise: Gaussian, sd %g m on x and z, rod_random seed %llu; "
          "rounded to 1 um\n",
          sc->source, sc->rod.bending_stiffness, sc->rod.density, sc->rod.drag,
          sc->tip.mass, sc->time.dt, sc->space.nodes, sc->time.duration, rate,
          noise, seed);
}

int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  if (argc < 2)
    return usage();
  rod_scenario sc;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_scenario_default(&sc);
  if (rod_scenario_load(&sc, argv[1], &err) != ROD_OK) {
    fprintf(stderr, "synth_tip: %s: %s: %s\n", err.file, err.key, err.message);
    return 2;
  }
  double rate = 1000, noise = 0;
  unsigned long long seed = 1;
  const char *out = NULL;
  for (int i = 2; i < argc; i++) {
    if (i + 1 >= argc)
      return usage();
    const char *a = argv[i], *v = argv[++i];
    if (strcmp(a, "--rate") == 0)
      rate = atof(v);
    else if (strcmp(a, "--noise") == 0)
      noise = atof(v);
    else if (strcmp(a, "--seed") == 0)
      seed = strtoull(v, NULL, 10);
    else if (strcmp(a, "-o") == 0)
      out = v;
    else if (strcmp(a, "--set") != 0 ||
             rod_scenario_set(&sc, v, &err) != ROD_OK)
      return usage();
  }
  if (!sc.rod.has_bending_stiffness) {
    fputs("synth_tip: the scenario needs rod.bending_stiffness\n", stderr);
    return 2;
  }
  const bool xz[3] = {true, false, true};
  rod_tip_data *d;
  if (rod_calib_synthesize(&sc, rate, noise, seed, xz, &d, &err) != ROD_OK) {
    fprintf(stderr, "synth_tip: %s\n", err.message);
    return 1;
  }
  for (int i = 0; i < 3 * d->n; i++)
    if (isfinite(d->xyz[i]))
      d->xyz[i] = round(d->xyz[i] * 1e6) / 1e6;
  FILE *f = out ? fopen(out, "w") : stdout;
  int st = f ? ROD_OK : ROD_EIO;
  if (f) {
    comments(f, &sc, rate, noise, seed);
    st = rod_tip_write_stream(f, out ? out : "stdout", d, &err);
    if (out && fclose(f) != 0)
      st = ROD_EIO;
  }
  rod_tip_data_free(d);
  if (st != ROD_OK)
    fprintf(stderr, "synth_tip: cannot write %s\n", out ? out : "stdout");
  return st == ROD_OK ? 0 : 1;
}
