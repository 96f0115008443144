/* The in-memory recorder of rod/recorder.h: a sink keeping times, tip
 * positions, energies and solver effort per sample (and the whole rod on
 * request) in arrays sized from the sampling plan. */
#include "rod/recorder.h"

#include <stdlib.h>
#include <string.h>

void rod_recorder_free(rod_recorder *r) {
  if (!r)
    return;
  free(r->t);
  free(r->tip);
  free(r->kinetic);
  free(r->elastic);
  free(r->gravity);
  free(r->rod);
  free(r->s);
  free(r->iterations);
  free(r->integrations);
  free(r->method);
  free(r);
}

/* Samples the recorder holds before it first grows. */
static const int first_block = 1 << 14;

rod_recorder *rod_recorder_alloc(const rod_scenario *sc, bool keep_rod) {
  rod_recorder *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  /* room for the run's samples up to a first block; a longer run doubles
   * it as it goes (grow), so a 12-hour run asks for memory only as its
   * samples come, not for all of them at its start */
  const int samples = rod_sim_sample_count(sc);
  r->capacity =
      samples < first_block ? (samples > 0 ? samples : 1) : first_block;
  r->keep_rod = keep_rod;
  size_t c = (size_t)r->capacity;
  r->t = malloc(c * sizeof(double));
  r->tip = malloc(3 * c * sizeof(double));
  r->kinetic = malloc(c * sizeof(double));
  r->elastic = malloc(c * sizeof(double));
  r->gravity = malloc(c * sizeof(double));
  r->iterations = malloc(c * sizeof(int));
  r->integrations = malloc(c * sizeof(double));
  r->method = malloc(c * sizeof(int));
  if (!r->t || !r->tip || !r->kinetic || !r->elastic || !r->gravity ||
      !r->iterations || !r->integrations || !r->method) {
    rod_recorder_free(r);
    return NULL;
  }
  return r;
}

static bool grow_array(void **p, size_t size) {
  void *q = realloc(*p, size);
  if (q)
    *p = q;
  return q != NULL;
}

/* Twice the room: a run longer than the first block, or one with
 * step-size control and no output.interval, which delivers more samples
 * than rod_sim_sample_count can know. */
static int grow(rod_recorder *r, int points) {
  size_t c = 2 * (size_t)r->capacity;
  bool ok = grow_array((void **)&r->t, c * sizeof(double)) &&
            grow_array((void **)&r->tip, 3 * c * sizeof(double)) &&
            grow_array((void **)&r->kinetic, c * sizeof(double)) &&
            grow_array((void **)&r->elastic, c * sizeof(double)) &&
            grow_array((void **)&r->gravity, c * sizeof(double)) &&
            grow_array((void **)&r->iterations, c * sizeof(int)) &&
            grow_array((void **)&r->integrations, c * sizeof(double)) &&
            grow_array((void **)&r->method, c * sizeof(int)) &&
            (!r->rod ||
             grow_array((void **)&r->rod, c * points * 3 * sizeof(double)));
  if (!ok)
    return ROD_ENOMEM;
  r->capacity = (int)c;
  return ROD_OK;
}

static int record(void *user, double t, const rod_sample *s,
                  const rod_step_stats *st, double wall) {
  (void)wall;
  rod_recorder *r = user;
  if (r->count >= r->capacity && grow(r, s->points) != ROD_OK)
    return ROD_ENOMEM;
  if (r->count == 0) {
    /* sized at the first sample of the first run; a recorder reused for
     * another run of the same rod (calibrate) keeps its buffers */
    if (r->keep_rod && (!r->rod || r->points != s->points)) {
      free(r->rod);
      free(r->s);
      r->rod = malloc((size_t)r->capacity * s->points * 3 * sizeof(double));
      r->s = malloc((size_t)s->points * sizeof(double));
      if (!r->rod || !r->s)
        return ROD_ENOMEM;
    }
    r->points = s->points;
    if (r->keep_rod)
      memcpy(r->s, s->s, (size_t)s->points * sizeof(double));
  }
  if (s->points != r->points)
    return ROD_EINVAL;
  int i = r->count++;
  r->t[i] = t;
  memcpy(r->tip + 3 * i, s->position + 3 * (s->points - 1), 3 * sizeof(double));
  r->kinetic[i] = s->kinetic;
  r->elastic[i] = s->elastic;
  r->gravity[i] = s->gravity;
  r->iterations[i] = st->iterations;
  r->integrations[i] = st->integrations;
  r->method[i] = st->method;
  if (r->keep_rod)
    memcpy(r->rod + (size_t)i * s->points * 3, s->position,
           (size_t)s->points * 3 * sizeof(double));
  return ROD_OK;
}

rod_sim_sink rod_recorder_sink(rod_recorder *r) {
  rod_sim_sink s = {.sample = record, .user = r};
  return s;
}
