/* Counter-based random numbers (see core/random.h). */
#include "core/random.h"

#include <math.h>

/* The 64-bit finaliser of MurmurHash3 (Appleby): a bijection whose output
 * bits each depend on every input bit, applied to the seed-mixed counter.
 * Two rounds with the golden-ratio increment between them decorrelate
 * neighbouring counters and seeds. */
static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdu;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53u;
  k ^= k >> 33;
  return k;
}

static uint64_t hash(uint64_t seed, uint64_t index) {
  return mix(mix(seed + 0x9e3779b97f4a7c15u) ^ (index * 0x9e3779b97f4a7c15u));
}

double rod_random_uniform(uint64_t seed, uint64_t index) {
  /* 53 random bits, offset by half a step: strictly inside (0, 1) */
  return ((double)(hash(seed, index) >> 11) + 0.5) * 0x1.0p-53;
}

double rod_random_gaussian(uint64_t seed, uint64_t index) {
  /* Box-Muller on two uniforms drawn from the even and odd counters */
  double u1 = rod_random_uniform(seed, 2 * index);
  double u2 = rod_random_uniform(seed, 2 * index + 1);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
