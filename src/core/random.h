/* Reproducible pseudo-random numbers for synthetic data (noisy tip
 * trajectories of the calibration tests and examples).
 *
 * Counter-based: deviate number `index` of stream `seed` is a pure function
 * of the two, so a sample's noise does not depend on how many other
 * samples or coordinates were drawn before it, and any platform draws the
 * same data. */
#ifndef ROD_RANDOM_H
#define ROD_RANDOM_H

#include <stdint.h>

/* Uniform on (0, 1): never 0 or 1. */
double rod_random_uniform(uint64_t seed, uint64_t index);

/* Standard normal (mean 0, variance 1). */
double rod_random_gaussian(uint64_t seed, uint64_t index);

#endif
