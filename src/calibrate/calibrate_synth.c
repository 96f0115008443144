/* Synthetic tip data for tests and examples: a simulation with known
 * parameters, sampled like a camera and with seeded Gaussian noise. */
#include <math.h>
#include <stdlib.h>

#include "calibrate_internal.h"
#include "core/random.h"

/* Tip samples at i / rate, by the interpolation the trajectory objective
 * uses, so a fit of the same scenario reproduces them exactly. */
static void sample_tip(const rod_recorder *rec, double rate, double noise,
                       uint64_t seed, const bool coords[3], double *slopes,
                       rod_tip_data *d) {
  for (int i = 0; i < d->n; i++)
    d->t[i] = i / rate;
  for (int c = 0; c < 3; c++) {
    d->has[c] = coords[c];
    if (!coords[c])
      continue;
    calib_resample(rec, c, d->t, d->n, slopes, d->xyz + c, 3);
    for (int i = 0; i < d->n; i++)
      d->xyz[3 * i + c] += noise * rod_random_gaussian(seed, 3 * i + c);
  }
}

int rod_calib_synthesize(const rod_scenario *sc, double rate, double noise,
                         uint64_t seed, const bool coords[3],
                         rod_tip_data **out, rod_error *err) {
  *out = NULL;
  if (!(rate > 0) || !(noise >= 0) || !(coords[0] || coords[1] || coords[2]))
    return rod_error_set(err, ROD_EINVAL, sc->source, NULL,
                         "synthetic data: rate > 0, noise >= 0 and a "
                         "coordinate needed");
  rod_scenario run = *sc;
  run.output.every = 1;
  rod_recorder *rec = rod_recorder_alloc(&run, false);
  const int n = (int)floor(run.time.duration * rate + 1e-9) + 1;
  rod_tip_data *d = rod_tip_data_alloc(n);
  double *slopes =
      rec ? malloc(3 * (size_t)rec->capacity * sizeof *slopes) : NULL;
  int st = ROD_ENOMEM;
  if (rec && d && slopes) {
    rod_sim_sink sink = rod_recorder_sink(rec);
    rod_sim_result res;
    st = rod_sim_run(&run, &sink, false, &res, err);
    if (st != ROD_OK && res.message[0])
      rod_error_set(err, st, sc->source, NULL, "%s", res.message);
  } else {
    rod_error_set(err, st, sc->source, NULL, "out of memory");
  }
  if (st == ROD_OK) {
    sample_tip(rec, rate, noise, seed, coords, slopes, d);
    *out = d;
    d = NULL;
  }
  free(slopes);
  rod_recorder_free(rec);
  rod_tip_data_free(d);
  return st;
}
