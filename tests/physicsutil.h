/* Test helpers of the physics suites (physics, loads, tip_body,
 * base_motion): a sink that keeps the whole rod of every sample, runs of a
 * scenario into it, the straight steel rod of these tests and its
 * stiffnesses. */
#ifndef ROD_TEST_PHYSICSUTIL_H
#define ROD_TEST_PHYSICSUTIL_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "rod/sim.h"

/* ---- a sink that keeps the whole rod of every sample -------------------- */

enum { MAXPTS = 512, MAXSAMPLES = 4096 };

typedef struct {
  int count, points;
  double t[MAXSAMPLES];
  double s[MAXPTS];
  double *pos;                                  /* samples x points x 3 */
  double *quat;                                 /* samples x points x 4 */
  double *vel;                                  /* samples x points x 3 */
  double moment[MAXPTS * 3], force[MAXPTS * 3]; /* of the last sample */
  double kinetic[MAXSAMPLES];
} rod_states;

static inline int keep_sample(void *user, double t, const rod_sample *s,
                              const rod_step_stats *st, double wall) {
  (void)st;
  (void)wall;
  rod_states *r = user;
  ck_assert_int_le(s->points, MAXPTS);
  ck_assert_int_lt(r->count, MAXSAMPLES);
  const int i = r->count++, n = s->points;
  r->points = n;
  r->t[i] = t;
  memcpy(r->s, s->s, (size_t)n * sizeof(double));
  memcpy(r->pos + (size_t)i * n * 3, s->position, (size_t)n * 3 * 8);
  memcpy(r->quat + (size_t)i * n * 4, s->orientation, (size_t)n * 4 * 8);
  memcpy(r->vel + (size_t)i * n * 3, s->velocity, (size_t)n * 3 * 8);
  if (s->force)
    memcpy(r->force, s->force, (size_t)n * 3 * 8);
  if (s->moment)
    memcpy(r->moment, s->moment, (size_t)n * 3 * 8);
  r->kinetic[i] = s->kinetic;
  return 0;
}

static inline rod_states *states_alloc(int samples) {
  rod_states *r = calloc(1, sizeof *r);
  r->pos = calloc((size_t)samples * MAXPTS * 3, sizeof(double));
  r->quat = calloc((size_t)samples * MAXPTS * 4, sizeof(double));
  r->vel = calloc((size_t)samples * MAXPTS * 3, sizeof(double));
  return r;
}

static inline void states_free(rod_states *r) {
  free(r->pos);
  free(r->quat);
  free(r->vel);
  free(r);
}

/* Run sc (static only: the t = 0 sample) and keep every sample. */
static inline rod_states *simulate(const rod_scenario *sc, bool static_only) {
  rod_error err;
  ck_assert_msg(rod_scenario_validate(sc, &err) == ROD_OK, "%s: %s", err.key,
                err.message);
  int samples = static_only ? 1 : rod_sim_step_count(sc) + 2;
  rod_states *r = states_alloc(samples);
  rod_sim_sink sink = {.sample = keep_sample, .user = r};
  rod_sim_result res;
  int st = rod_sim_run(sc, &sink, static_only, &res, &err);
  ck_assert_msg(st == ROD_OK, "run failed: %s", res.message);
  return r;
}

static inline const double *point_pos(const rod_states *r, int sample, int j) {
  return r->pos + ((size_t)sample * r->points + j) * 3;
}
static inline const double *point_quat(const rod_states *r, int sample, int j) {
  return r->quat + ((size_t)sample * r->points + j) * 4;
}

/* A steel rod along +x without gravity: the scenario of these tests. */
static inline void straight_rod(rod_scenario *sc, rod_backend_kind backend) {
  rod_scenario_default(sc);
  sc->environment.gravity[2] = 0.0;
  sc->solver.backend = backend;
  sc->solver.tolerance = 1e-10;
  sc->space.nodes = 50;
  sc->rfem.segments = 40;
}

static inline double bending_stiffness(const rod_scenario *sc) {
  return rod_model_bending_stiffness(sc);
}

static inline double torsion_stiffness(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return m.K[2];
}

/* Rotation angle (rad) between two unit quaternions. */
static inline double quat_angle(const double *a, const double *b) {
  double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2.0 * acos(fmin(1.0, d));
}

#endif
