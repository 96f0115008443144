/* The shape objective: the simulated centreline minus the measured one at
 * every measured point of every valid frame (m). Point k of K lies at
 * arclength k L / (K - 1) along the measured rod (the tracker resamples
 * at equal arclength from the clamp to the tip), so it is compared with
 * the simulated rod at that arclength. The simulation is sampled every
 * step; each node's x and z are interpolated to the frame's time by cubic
 * Hermite interpolation with O(h^4) slopes, as the trajectory objective
 * does for the tip, then along the rod to the point's arclength the same
 * way (the Kirchhoff grid's nodes are 4 mm apart on a 0.4 m rod, where a
 * linear interpolation would err by up to kappa h^2 / 8 ~ 1e-5 m at a
 * curvature kappa of 5 / m, the cubic by ~1e-9 m). The clamp's point is
 * left out: the model pins it. */
#include <math.h>
#include <stdlib.h>

#include "calibrate_internal.h"
#include "signal/signal.h"

typedef struct {
  int frames; /* valid frames */
  int *frame; /* their indices in the shape data */
  /* scratch, sized at the first run */
  int points, capacity;
  double *slopes_t; /* (capacity x points x 3) d/dt of every node */
  double *node;     /* (points x 2) x and z at one time */
  double *slopes_s; /* (points x 2) d/ds of those */
} shape_state;

static void release(calib_problem *p) {
  shape_state *s = p->state;
  if (s) {
    free(s->frame);
    free(s->slopes_t);
    free(s->node);
    free(s->slopes_s);
    free(s);
  }
  p->state = NULL;
}

static int init(calib_problem *p, const char *data_name, rod_error *err) {
  const rod_shape_data *d = p->shape;
  shape_state *s = calloc(1, sizeof *s);
  if (!s || !(s->frame = malloc((size_t)d->frames * sizeof *s->frame))) {
    free(s);
    return rod_error_set(err, ROD_ENOMEM, data_name, NULL, "out of memory");
  }
  p->state = s;
  for (int i = 0; i < d->frames; i++)
    if (d->valid[i])
      s->frame[s->frames++] = i;
  if (s->frames == 0)
    return rod_error_set(err, ROD_EINVAL, data_name, NULL,
                         "every frame is flagged (valid = 0)");
  p->m = 2 * s->frames * (d->points - 1);
  p->rms_scale = 1.0;
  p->sc.time.duration = fmax(d->t[s->frame[s->frames - 1]], 0.0);
  return ROD_OK;
}

/* Room for the run's samples and points (once: a fit's runs are alike). */
static int ensure(shape_state *s, const rod_recorder *rec) {
  if (s->points == rec->points && s->capacity >= rec->count)
    return ROD_OK;
  free(s->slopes_t);
  free(s->node);
  free(s->slopes_s);
  s->points = rec->points;
  s->capacity = rec->capacity;
  size_t n = (size_t)s->points;
  s->slopes_t = malloc((size_t)s->capacity * n * 3 * sizeof *s->slopes_t);
  s->node = malloc(2 * n * sizeof *s->node);
  s->slopes_s = malloc(2 * n * sizeof *s->slopes_s);
  if (!s->slopes_t || !s->node || !s->slopes_s) {
    s->points = 0;
    return ROD_ENOMEM;
  }
  return ROD_OK;
}

static int residuals(calib_problem *p, const rod_recorder *rec, double *r) {
  shape_state *s = p->state;
  const rod_shape_data *d = p->shape;
  const int n = rec->count, N = rec->points, K = d->points;
  const double t_end = d->t[s->frame[s->frames - 1]];
  if (n < 1 || !rec->rod || N < 2 ||
      rec->t[n - 1] < t_end - 1e-9 * (1 + fabs(t_end)) ||
      ensure(s, rec) != ROD_OK)
    return 1; /* the run stopped before the data ends */
  const size_t stride = 3 * (size_t)N;
  for (int j = 0; j < N && n >= 2; j++)
    for (int c = 0; c <= 2; c += 2)
      rod_signal_slopes(rec->t, n, rec->rod + 3 * j + c, stride,
                        s->slopes_t + 3 * j + c);
  const double length = rec->s[N - 1];
  int hint_t = 0;
  double *out = r;
  for (int f = 0; f < s->frames; f++) {
    const int i = s->frame[f];
    for (int j = 0; j < N; j++)
      for (int c = 0; c < 2; c++) {
        const double *y = rec->rod + 3 * j + 2 * c;
        s->node[2 * j + c] =
            n >= 2
                ? rod_signal_hermite(rec->t, n, y, s->slopes_t + 3 * j + 2 * c,
                                     stride, d->t[i], &hint_t)
                : y[0];
      }
    for (int c = 0; c < 2; c++)
      rod_signal_slopes(rec->s, N, s->node + c, 2, s->slopes_s + c);
    const double *meas = d->xz + (size_t)i * 2 * (size_t)K;
    int hint_s = 0;
    for (int k = 1; k < K; k++) {
      const double at = length * k / (K - 1);
      for (int c = 0; c < 2; c++)
        *out++ = rod_signal_hermite(rec->s, N, s->node + c, s->slopes_s + c, 2,
                                    at, &hint_s) -
                 meas[2 * k + c];
    }
  }
  return 0;
}

const calib_objective calib_shape = {
    .name = "shape",
    .keep_rod = true,
    .init = init,
    .residuals = residuals,
    .release = release,
};
