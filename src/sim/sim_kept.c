/* The state kept from before each step (sim_object.h): a copy of the
 * current sample's arrays, made once the step is taken, so that after a
 * step whose state is not finite (a failed step) the getters give the
 * state before it. Below the time loop (sim.c) and the getters
 * (sim_state.c); it calls neither. */
#include "sim/sim_object.h"

#include <stdlib.h>
#include <string.h>

void rod_sim_kept_free(rod_sim_kept *k) {
  free(k->values);
  free(k->active);
  memset(k, 0, sizeof *k);
}

/* The arrays of src into dst's own, when src has them (NULL stays). */
static const double *keep(const double *src, double **at, size_t n) {
  if (!src)
    return NULL;
  double *dst = *at;
  memcpy(dst, src, n * sizeof *dst);
  *at += n;
  return dst;
}

int rod_sim_keep_state(rod_sim *sim) {
  rod_sim_kept *k = &sim->kept;
  const rod_sample *s = &sim->cur;
  const int n = s->points;
  if (k->capacity < n) { /* once, with the static state */
    rod_sim_kept_free(k);
    k->values = malloc((size_t)n * 20 * sizeof(double));
    k->active = malloc((size_t)n);
    if (!k->values || !k->active) {
      rod_sim_kept_free(k);
      return ROD_ENOMEM;
    }
    k->capacity = n;
  }
  const size_t N = (size_t)n;
  double *at = k->values; /* 1 + 3 + 4 + 3 + 3 + 3 + 3 = 20 per point */
  k->s = *s;
  k->s.s = keep(s->s, &at, N);
  k->s.position = keep(s->position, &at, 3 * N);
  k->s.orientation = keep(s->orientation, &at, 4 * N);
  k->s.velocity = keep(s->velocity, &at, 3 * N);
  k->s.force = keep(s->force, &at, 3 * N);
  k->s.moment = keep(s->moment, &at, 3 * N);
  k->s.contact_force = keep(s->contact_force, &at, 3 * N);
  if (s->contact_active) {
    memcpy(k->active, s->contact_active, N);
    k->s.contact_active = k->active;
  }
  return ROD_OK;
}

void rod_sim_restore_state(rod_sim *sim) {
  sim->cur = sim->kept.s;
  sim->cur_valid = true;
}
