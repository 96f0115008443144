/* Output between steps (output.interval): the last accepted samples of a
 * run, and the state at any time between the last two. Positions by cubic
 * Hermite interpolation with the velocities (error O(h^4) whatever the
 * scheme), the other fields by cubic Lagrange interpolation through the
 * last four samples (O(h^4) too; fewer samples early in the run give lower
 * degrees), the tendons' tensions, lengths and works so too. No contact fields
 * (output.interval is refused with contact).
 * Buffers are allocated once. */
#ifndef ROD_DENSE_H
#define ROD_DENSE_H

#include "rod/sim.h"

enum { ROD_DENSE_KEEP = 4 };

typedef struct {
  int points, count;             /* count: samples kept (<= ROD_DENSE_KEEP) */
  double t[ROD_DENSE_KEEP];      /* s, newest first */
  double *field[ROD_DENSE_KEEP]; /* per sample: position, orientation,
                                    velocity, force, moment */
  /* J: kinetic, elastic, gravity, the tendons' work and their
   * friction's (rod_sample) */
  double energy[ROD_DENSE_KEEP][5];
  /* the tendons' tensions and lengths (N, m), like the energies */
  int tendons;
  double tendon[ROD_DENSE_KEEP][2 * ROD_MAX_TENDONS];
  double tendon_out[2 * ROD_MAX_TENDONS];
  bool has_force, has_moment;
  double *out; /* the interpolated sample's arrays */
  const double *s;
} rod_dense;

int rod_dense_init(rod_dense *d, int points);
void rod_dense_free(rod_dense *d);
/* Keep the sample at time t (the newest). */
void rod_dense_push(rod_dense *d, double t, const rod_sample *s);
/* The state at time t, between the two newest samples, into out (arrays
 * owned by d, valid until the next call). */
void rod_dense_eval(rod_dense *d, double t, rod_sample *out);

#endif
