/* Cubic Hermite interpolation of sampled signals with slopes from local
 * Lagrange stencils (see signal/signal.h). */
#include "signal/signal.h"

/* Derivative at node i of the Lagrange polynomial through nodes
 * first .. first + k - 1 (i among them), applied to y:
 *   L_j'(t_i) = prod_{l != i, j} (t_i - t_l) / prod_{l != j} (t_j - t_l)
 *   L_i'(t_i) = sum_{l != i} 1 / (t_i - t_l). */
static double stencil_slope(const double *t, const double *y, size_t stride,
                            int first, int k, int i) {
  double slope = 0, self = 0;
  for (int j = first; j < first + k; j++) {
    if (j == i)
      continue;
    self += 1.0 / (t[i] - t[j]);
    double num = 1.0, den = t[j] - t[i];
    for (int l = first; l < first + k; l++) {
      if (l == i || l == j)
        continue;
      num *= t[i] - t[l];
      den *= t[j] - t[l];
    }
    slope += num / den * y[(size_t)j * stride];
  }
  return slope + self * y[(size_t)i * stride];
}

void rod_signal_slopes(const double *t, int n, const double *y, size_t stride,
                       double *dydt) {
  const int k = n < 5 ? n : 5;
  for (int i = 0; i < n; i++) {
    int first = i - k / 2;
    if (first < 0)
      first = 0;
    if (first > n - k)
      first = n - k;
    dydt[(size_t)i * stride] = stencil_slope(t, y, stride, first, k, i);
  }
}

/* The interval k with t[k] <= tq < t[k + 1], from the hint when it is close
 * (monotone queries), else by bisection. Requires t[0] <= tq < t[n - 1]. */
static int locate(const double *t, int n, double tq, int *hint) {
  int k = hint && *hint >= 0 && *hint < n - 1 && t[*hint] <= tq ? *hint : -1;
  if (k >= 0) {
    while (k < n - 2 && t[k + 1] <= tq)
      k++;
  } else {
    int lo = 0, hi = n - 1; /* t[lo] <= tq < t[hi] */
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (t[mid] <= tq)
        lo = mid;
      else
        hi = mid;
    }
    k = lo;
  }
  if (hint)
    *hint = k;
  return k;
}

double rod_signal_hermite(const double *t, int n, const double *y,
                          const double *dydt, size_t stride, double tq,
                          int *hint) {
  if (n == 1 || tq <= t[0])
    return y[0];
  if (tq >= t[n - 1])
    return y[(size_t)(n - 1) * stride];
  const int k = locate(t, n, tq, hint);
  const size_t a = (size_t)k * stride, b = a + stride;
  const double h = t[k + 1] - t[k], s = (tq - t[k]) / h;
  const double s2 = s * s, s3 = s2 * s;
  /* the cubic Hermite basis on [0, 1] */
  const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s;
  const double h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
  return h00 * y[a] + h10 * h * dydt[a] + h01 * y[b] + h11 * h * dydt[b];
}
