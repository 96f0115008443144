/* The features objective of Till & Rucker 2017, section III.A: the first peak,
 * the first valley and the final peak of the tip's z after release, and the
 * oscillation frequency.
 *
 * Every feature is measured the same way on the data and on the
 * simulation, the simulation being resampled at the data's times (and
 * beyond the data's end at the data's mean interval):
 * - frequency: rod_signal_frequency over the data's window (0, t_end];
 * - peaks and valley: rod_signal_extremum, a biweight-weighted parabola
 *   over +-T/8 around the extremum (T the data's period), near the times
 *   the fitted sine predicts. The fit averages the data's noise, and its
 *   bias (5e-4 of the swing for a sine) is the same on both sides;
 * - the final peak is the last peak of the data whose window ends before
 *   the data do, K periods after the first; the simulation's final peak is
 *   its own K-th after its first, so a simulation whose frequency is off
 *   compares the same swing of the decay rather than whichever of its
 *   peaks happens to lie near the data's.
 * The extremum fit is smooth in the samples, so the features are smooth
 * functions of the parameters, as forward differences need.
 *
 * Weights: the three extrema are divided by the data's first half swing
 * A = (first peak - first valley) / 2 and the frequency by the data's
 * frequency, so each residual is a relative error: 1 % of the swing
 * weighs as much as 1 % of the frequency. rms_scale = A reports the rms
 * residual in metres of swing. */
#include <math.h>
#include <stdlib.h>

#include "calibrate_internal.h"
#include "signal/signal.h"

typedef struct {
  double first_peak, first_valley, final_peak; /* m, world z */
  double frequency;                            /* Hz */
  int periods; /* from the first peak to the final one */
} features;

typedef struct {
  features data;
  double swing;      /* m, A */
  double half_width; /* s, T / 8 of the data */
  int first;         /* first data sample after t = 0 */
  int window;        /* data samples after t = 0 */
  int grid;          /* resampling points: the window, then the extension */
  double *t, *z;     /* (grid) resampling times and the simulation's z */
} features_state;

/* Features of z on times t (n samples, the first `window` of them in the
 * data's window). f->periods < 0: take the last peak whose fitting window
 * fits in the data window and set f->periods; else the peak f->periods
 * after the first. Returns > 0 if a feature cannot be found. */
static int extract(const double *t, const double *z, int n, int window,
                   double half_width, features *f) {
  rod_signal_sine sine;
  if (rod_signal_frequency(t, z, 1, window, &sine) != ROD_OK)
    return 1;
  const double T = 1.0 / sine.frequency, omega = 2 * M_PI * sine.frequency;
  /* maxima of the fitted sine: omega (t - tmid) + phase = pi/2 + 2 pi k;
   * the first one whose window starts after the release */
  double t_max = sine.tmid + (M_PI / 2 - sine.phase) / omega;
  t_max += T * ceil((t[0] + half_width - t_max) / T);
  double tp, tv, tf;
  if (rod_signal_extremum(t, z, 1, n, t_max, half_width, 1, &tp,
                          &f->first_peak) != ROD_OK ||
      rod_signal_extremum(t, z, 1, n, tp + T / 2, half_width, -1, &tv,
                          &f->first_valley) != ROD_OK)
    return 1;
  if (f->periods < 0)
    f->periods = (int)floor((t[window - 1] - half_width - tp) / T);
  if (f->periods < 1)
    return 2;
  const double guess = tp + f->periods * T;
  if (guess + half_width > t[n - 1] ||
      rod_signal_extremum(t, z, 1, n, guess, half_width, 1, &tf,
                          &f->final_peak) != ROD_OK)
    return 1;
  f->frequency = sine.frequency;
  return 0;
}

/* The data's features; the resampling grid. */
static int prepare(calib_problem *p, features_state *s, const char *name,
                   rod_error *err) {
  const rod_tip_data *d = p->data;
  if (!d->has[2])
    return rod_error_set(err, ROD_EINVAL, name, NULL,
                         "the features objective needs a z column");
  while (s->first < d->n && d->t[s->first] <= 0)
    s->first++;
  s->window = d->n - s->first;
  const double *t = d->t + s->first;
  /* the data's z as a contiguous column, in the buffer the simulation's
   * z will use */
  for (int i = 0; i < s->window; i++)
    s->z[i] = d->xyz[3 * (s->first + i) + 2];
  rod_signal_sine sine;
  if (s->window < 8 ||
      rod_signal_frequency(t, s->z, 1, s->window, &sine) != ROD_OK)
    return rod_error_set(err, ROD_EINVAL, name, "z",
                         "no oscillation after t = 0 (fewer than two "
                         "upward crossings of z about its mean)");
  s->half_width = 0.125 / sine.frequency;
  s->data.periods = -1;
  int st = extract(t, s->z, s->window, s->window, s->half_width, &s->data);
  if (st == 2)
    return rod_error_set(err, ROD_EINVAL, name, "z",
                         "the features objective needs a final peak at "
                         "least one period after the first (%.3g s of "
                         "data at %.3g Hz)",
                         t[s->window - 1], sine.frequency);
  if (st != 0)
    return rod_error_set(err, ROD_EINVAL, name, "z",
                         "cannot locate the first peak and valley of z");
  s->swing = 0.5 * (s->data.first_peak - s->data.first_valley);
  p->rms_scale = s->swing;
  return ROD_OK;
}

static int init(calib_problem *p, const char *name, rod_error *err) {
  const rod_tip_data *d = p->data;
  features_state *s = calloc(1, sizeof *s);
  if (!s)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  p->state = s;
  p->m = 4;
  s->z = malloc((size_t)d->n * sizeof *s->z);
  if (!s->z)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  int st = prepare(p, s, name, err);
  if (st != ROD_OK)
    return st;
  /* Simulate 25 % beyond the data (plus a quarter period), so that a
   * simulation up to 20 % slower than the data still reaches its final
   * peak; the extension is sampled at the data's mean interval. */
  const double t0 = d->t[s->first], t_end = d->t[d->n - 1];
  const double step = (t_end - t0) / (s->window - 1);
  p->sc.time.duration = 1.25 * t_end + 2 * s->half_width;
  const int extension = (int)floor((p->sc.time.duration - t_end) / step);
  s->grid = s->window + extension;
  free(s->z);
  s->t = malloc((size_t)s->grid * sizeof *s->t);
  s->z = malloc((size_t)s->grid * sizeof *s->z);
  if (!s->t || !s->z)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  for (int i = 0; i < s->window; i++)
    s->t[i] = d->t[s->first + i];
  for (int k = 1; k <= extension; k++)
    s->t[s->window + k - 1] = t_end + k * step;
  return ROD_OK;
}

static int residuals(calib_problem *p, const rod_recorder *rec, double *r) {
  features_state *s = p->state;
  const int n = rec->count;
  if (n < 2 || rec->t[n - 1] < s->t[s->grid - 1])
    return 1;
  calib_resample(rec, 2, s->t, s->grid, p->slopes, s->z, 1);
  features sim = {.periods = s->data.periods};
  if (extract(s->t, s->z, s->grid, s->window, s->half_width, &sim) != 0)
    return 1;
  r[0] = (sim.first_peak - s->data.first_peak) / s->swing;
  r[1] = (sim.first_valley - s->data.first_valley) / s->swing;
  r[2] = (sim.final_peak - s->data.final_peak) / s->swing;
  r[3] = (sim.frequency - s->data.frequency) / s->data.frequency;
  return 0;
}

static void release(calib_problem *p) {
  features_state *s = p->state;
  if (s) {
    free(s->t);
    free(s->z);
  }
  free(s);
  p->state = NULL;
}

const calib_objective calib_features = {
    .name = "features",
    .init = init,
    .residuals = residuals,
    .release = release,
};
