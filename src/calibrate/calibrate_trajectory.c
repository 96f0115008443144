/* The trajectory objective: simulated minus measured tip at every data
 * sample and coordinate (m). The simulation is sampled every time step and
 * interpolated to the data's times by cubic Hermite interpolation with
 * O(h^4) slopes (signal/signal.h): for the weight release at dt = 2 ms the
 * interpolation error of the first mode, A (omega dt)^4 / 384 ~ 1e-8 m, is
 * far below any camera's noise. Data before t = 0 see the static state,
 * which is the rod's state until the release. */
#include <math.h>
#include <stdlib.h>

#include "calibrate_internal.h"

typedef struct {
  int ncoords;
  int coord[3]; /* the data's coordinates, 0 x, 1 y, 2 z */
} trajectory_state;

static int init(calib_problem *p, const char *data_name, rod_error *err) {
  const rod_tip_data *d = p->data;
  trajectory_state *s = calloc(1, sizeof *s);
  if (!s)
    return rod_error_set(err, ROD_ENOMEM, data_name, NULL, "out of memory");
  p->state = s;
  for (int c = 0; c < 3; c++)
    if (d->has[c])
      s->coord[s->ncoords++] = c;
  if (s->ncoords == 0)
    return rod_error_set(err, ROD_EINVAL, data_name, NULL,
                         "no x, y or z column to fit");
  p->m = d->n * s->ncoords;
  p->rms_scale = 1.0;
  p->sc.time.duration = fmax(d->t[d->n - 1], 0.0);
  return ROD_OK;
}

static int residuals(calib_problem *p, const rod_recorder *rec, double *r) {
  const trajectory_state *s = p->state;
  const rod_tip_data *d = p->data;
  const int n = rec->count;
  const double t_end = d->t[d->n - 1];
  if (n < 1 || rec->t[n - 1] < t_end - 1e-9 * (1 + fabs(t_end)))
    return 1; /* the run stopped before the data ends */
  for (int k = 0; k < s->ncoords; k++) {
    const int c = s->coord[k];
    calib_resample(rec, c, d->t, d->n, p->slopes, r + k, s->ncoords);
    for (int i = 0; i < d->n; i++)
      r[(size_t)i * s->ncoords + k] -= d->xyz[3 * i + c];
  }
  return 0;
}

static void release(calib_problem *p) {
  free(p->state);
  p->state = NULL;
}

const calib_objective calib_trajectory = {
    .name = "trajectory",
    .init = init,
    .residuals = residuals,
    .release = release,
};
