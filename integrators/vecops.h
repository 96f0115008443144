/* Dot product of long vectors for the solvers' linear algebra (bvp/,
 * integrators/). */
#ifndef ROD_VECOPS_H
#define ROD_VECOPS_H

/* u . v with four partial sums: a single sum waits on each addition's
 * latency (4 cycles), which made the transposed inverse products of
 * modified shooting at small dt four times slower than the plain ones. */
static inline double rod_dot(const double *u, const double *v, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += u[i] * v[i];
    s1 += u[i + 1] * v[i + 1];
    s2 += u[i + 2] * v[i + 2];
    s3 += u[i + 3] * v[i + 3];
  }
  for (; i < n; i++)
    s0 += u[i] * v[i];
  return (s0 + s1) + (s2 + s3);
}

#endif
