/* Synthetic tip and shape data for tests and examples: a simulation with
 * known parameters, sampled like a camera and with seeded Gaussian
 * noise. */
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

/* Run sc (every step sampled) into a new recorder. */
static int run_recorded(const rod_scenario *sc, bool keep_rod,
                        rod_recorder **out, rod_error *err) {
  rod_scenario run = *sc;
  run.output.every = 1;
  run.time.error_estimate = false;
  *out = rod_recorder_alloc(&run, keep_rod);
  if (!*out)
    return rod_error_set(err, ROD_ENOMEM, sc->source, NULL, "out of memory");
  rod_sim_sink sink = rod_recorder_sink(*out);
  rod_sim_result res;
  int st = rod_sim_run(&run, &sink, false, &res, err);
  if (st != ROD_OK && res.message[0])
    rod_error_set(err, st, sc->source, NULL, "%s", res.message);
  if (st != ROD_OK) {
    rod_recorder_free(*out);
    *out = NULL;
  }
  return st;
}

static int frames_of(const rod_scenario *sc, double rate) {
  return (int)floor(sc->time.duration * rate + 1e-9) + 1;
}

int rod_calib_synthesize(const rod_scenario *sc, double rate, double noise,
                         uint64_t seed, const bool coords[3],
                         rod_tip_data **out, rod_error *err) {
  *out = NULL;
  if (!(rate > 0) || !(noise >= 0) || !(coords[0] || coords[1] || coords[2]))
    return rod_error_set(err, ROD_EINVAL, sc->source, NULL,
                         "synthetic data: rate > 0, noise >= 0 and a "
                         "coordinate needed");
  rod_recorder *rec;
  int st = run_recorded(sc, false, &rec, err);
  if (st != ROD_OK)
    return st;
  rod_tip_data *d = rod_tip_data_alloc(frames_of(sc, rate));
  double *slopes = malloc(3 * (size_t)rec->capacity * sizeof *slopes);
  if (d && slopes) {
    sample_tip(rec, rate, noise, seed, coords, slopes, d);
    *out = d;
    d = NULL;
  } else {
    st = rod_error_set(err, ROD_ENOMEM, sc->source, NULL, "out of memory");
  }
  free(slopes);
  rod_recorder_free(rec);
  rod_tip_data_free(d);
  return st;
}

/* The run's points 1..K-1 at every frame: the shape objective's residuals
 * against a shape of zeros, so a fit of the same scenario reproduces them
 * exactly. */
static int sample_shape(const rod_scenario *sc, const rod_recorder *rec,
                        rod_shape_data *d, rod_error *err) {
  calib_problem p = {.sc = *sc, .shape = d};
  int st = calib_shape.init(&p, sc->source, err);
  double *r = st == ROD_OK ? malloc((size_t)p.m * sizeof *r) : NULL;
  if (st == ROD_OK && !r)
    st = rod_error_set(err, ROD_ENOMEM, sc->source, NULL, "out of memory");
  if (st == ROD_OK && calib_shape.residuals(&p, rec, r) != 0)
    st = rod_error_set(err, ROD_EINVAL, sc->source, NULL,
                       "the run ends before the frames");
  const int K = d->points;
  for (int i = 0; st == ROD_OK && i < d->frames; i++) {
    double *xz = d->xz + (size_t)i * 2 * (size_t)K;
    xz[0] = sc->base.position[0];
    xz[1] = sc->base.position[2];
    for (int k = 1; k < K; k++)
      for (int c = 0; c < 2; c++)
        xz[2 * k + c] =
            r[((size_t)i * (size_t)(K - 1) + (size_t)(k - 1)) * 2 + (size_t)c];
    d->length[i] = rec->s[rec->points - 1];
  }
  free(r);
  calib_shape.release(&p);
  return st;
}

int rod_calib_synthesize_shape(const rod_scenario *sc, double rate, int points,
                               double noise, uint64_t seed,
                               rod_shape_data **out, rod_error *err) {
  *out = NULL;
  if (!(rate > 0) || !(noise >= 0) || points < 2)
    return rod_error_set(err, ROD_EINVAL, sc->source, NULL,
                         "synthetic shape: rate > 0, noise >= 0 and 2 or "
                         "more points needed");
  rod_recorder *rec;
  int st = run_recorded(sc, true, &rec, err);
  if (st != ROD_OK)
    return st;
  const int n = frames_of(sc, rate);
  rod_shape_data *d = rod_shape_alloc(points, n);
  for (int i = 0; d && i < n; i++)
    if (rod_shape_append(d) == i)
      d->t[i] = i / rate;
  if (!d || d->frames != n)
    st = rod_error_set(err, ROD_ENOMEM, sc->source, NULL, "out of memory");
  if (st == ROD_OK)
    st = sample_shape(sc, rec, d, err);
  const size_t K2 = 2 * (size_t)points;
  for (int i = 0; st == ROD_OK && i < n; i++)
    for (size_t j = 2; j < K2; j++) /* the clamp's point stays exact */
      d->xz[(size_t)i * K2 + j] +=
          noise * rod_random_gaussian(seed, (uint64_t)i * K2 + j);
  rod_recorder_free(rec);
  if (st != ROD_OK) {
    rod_shape_free(d);
    return st;
  }
  *out = d;
  return ROD_OK;
}
