/* Output between steps (sim/dense.h): the last samples kept, and a sample
 * at any time between the last two by Hermite and Lagrange
 * interpolation. */
#include "sim/dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Layout of a sample: the blocks position (points x 3), orientation (x 4),
 * velocity, force, moment (x 3), at these offsets times points. */
enum { D_POS = 0, D_QUAT = 3, D_VEL = 7, D_N = 10, D_M = 13, D_WIDTH = 16 };

int rod_dense_init(rod_dense *d, int points) {
  memset(d, 0, sizeof *d);
  d->points = points;
  const size_t n = (size_t)points * D_WIDTH;
  bool ok = (d->out = calloc(n, sizeof(double))) != NULL;
  for (int i = 0; i < ROD_DENSE_KEEP && ok; i++)
    ok = (d->field[i] = calloc(n, sizeof(double))) != NULL;
  if (!ok) {
    rod_dense_free(d);
    return ROD_ENOMEM;
  }
  return ROD_OK;
}

void rod_dense_free(rod_dense *d) {
  free(d->out);
  for (int i = 0; i < ROD_DENSE_KEEP; i++)
    free(d->field[i]);
  memset(d, 0, sizeof *d);
}

static void put(double *f, int width, int off, int points, const double *src) {
  double *dst = f + (size_t)off * points;
  if (src)
    memcpy(dst, src, (size_t)points * width * sizeof(double));
  else
    memset(dst, 0, (size_t)points * width * sizeof(double));
}

void rod_dense_push(rod_dense *d, double t, const rod_sample *s) {
  double *oldest = d->field[ROD_DENSE_KEEP - 1];
  memmove(d->field + 1, d->field, (ROD_DENSE_KEEP - 1) * sizeof d->field[0]);
  memmove(d->t + 1, d->t, (ROD_DENSE_KEEP - 1) * sizeof d->t[0]);
  memmove(d->energy + 1, d->energy, (ROD_DENSE_KEEP - 1) * sizeof d->energy[0]);
  memmove(d->tendon + 1, d->tendon, (ROD_DENSE_KEEP - 1) * sizeof d->tendon[0]);
  d->field[0] = oldest;
  d->t[0] = t;
  const int n = d->points; /* the backend's points, fixed for a run */
  put(oldest, 3, D_POS, n, s->position);
  put(oldest, 4, D_QUAT, n, s->orientation);
  put(oldest, 3, D_VEL, n, s->velocity);
  put(oldest, 3, D_N, n, s->force);
  put(oldest, 3, D_M, n, s->moment);
  d->has_force = s->force != NULL;
  d->has_moment = s->moment != NULL;
  d->energy[0][0] = s->kinetic;
  d->energy[0][1] = s->elastic;
  d->energy[0][2] = s->gravity;
  d->energy[0][3] = s->tendon_work;
  d->energy[0][4] = s->tendon_friction_work;
  d->tendons = s->tendons;
  for (int i = 0; i < s->tendons; i++) {
    d->tendon[0][i] = s->tendon_tension[i];
    d->tendon[0][ROD_MAX_TENDONS + i] = s->tendon_length[i];
  }
  d->s = s->s;
  if (d->count < ROD_DENSE_KEEP)
    d->count++;
}

void rod_dense_eval(rod_dense *d, double t, rod_sample *out) {
  memset(out, 0, sizeof *out); /* no contact fields */
  const int n = d->count;
  double w[ROD_DENSE_KEEP];
  for (int l = 0; l < n; l++) { /* Lagrange weights */
    double p = 1.0;
    for (int m = 0; m < n; m++)
      if (m != l)
        p *= (t - d->t[m]) / (d->t[l] - d->t[m]);
    w[l] = p;
  }
  const size_t size = (size_t)d->points * D_WIDTH;
  for (size_t i = 0; i < size; i++) {
    double v = 0;
    for (int l = 0; l < n; l++)
      v += w[l] * d->field[l][i];
    d->out[i] = v;
  }
  /* positions: cubic Hermite between the two newest samples */
  const size_t P = (size_t)d->points;
  if (n >= 2) {
    const double h = d->t[0] - d->t[1], th = (t - d->t[1]) / h;
    const double h00 = (1 + 2 * th) * (1 - th) * (1 - th),
                 h10 = th * (1 - th) * (1 - th), h01 = th * th * (3 - 2 * th),
                 h11 = th * th * (th - 1);
    const double *pa = d->field[1] + D_POS * P, *va = d->field[1] + D_VEL * P;
    const double *pb = d->field[0] + D_POS * P, *vb = d->field[0] + D_VEL * P;
    for (size_t i = 0; i < 3 * P; i++)
      d->out[D_POS * P + i] =
          h00 * pa[i] + h * h10 * va[i] + h01 * pb[i] + h * h11 * vb[i];
  }
  for (size_t j = 0; j < P; j++) { /* unit quaternions */
    double *q = d->out + D_QUAT * P + 4 * j;
    double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4 && r > 0; i++)
      q[i] /= r;
  }
  out->points = d->points;
  out->s = d->s;
  out->kinetic = out->elastic = out->gravity = 0;
  for (int l = 0; l < n; l++) {
    out->kinetic += w[l] * d->energy[l][0];
    out->elastic += w[l] * d->energy[l][1];
    out->gravity += w[l] * d->energy[l][2];
    out->tendon_work += w[l] * d->energy[l][3];
    out->tendon_friction_work += w[l] * d->energy[l][4];
  }
  for (int i = 0; i < 2 * ROD_MAX_TENDONS; i++) {
    d->tendon_out[i] = 0;
    for (int l = 0; l < n; l++)
      d->tendon_out[i] += w[l] * d->tendon[l][i];
    if (i < ROD_MAX_TENDONS) /* a tension never negative */
      d->tendon_out[i] = fmax(d->tendon_out[i], 0.0);
  }
  out->tendons = d->tendons;
  out->tendon_tension = d->tendons > 0 ? d->tendon_out : NULL;
  out->tendon_length = d->tendons > 0 ? d->tendon_out + ROD_MAX_TENDONS : NULL;
  out->position = d->out + D_POS * P;
  out->orientation = d->out + D_QUAT * P;
  out->velocity = d->out + D_VEL * P;
  out->force = d->has_force ? d->out + D_N * P : NULL;
  out->moment = d->has_moment ? d->out + D_M * P : NULL;
}
