#include "integrators/history.h"

#include <stdlib.h>
#include <string.h>

struct rod_history {
  int intervals, width;
  size_t size;             /* 2 * intervals * width */
  double *val1, *der1;     /* level i-1 */
  double *val2, *der2;     /* level i-2 */
  double *rate, *rate_der; /* y_t at level i-1 */
};

void rod_history_free(rod_history *h) {
  if (!h)
    return;
  free(h->val1);
  free(h->der1);
  free(h->val2);
  free(h->der2);
  free(h->rate);
  free(h->rate_der);
  free(h);
}

static rod_history *alloc_size(int intervals, int width, size_t size) {
  rod_history *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->intervals = intervals;
  h->width = width;
  h->size = size;
  h->val1 = calloc(h->size, sizeof(double));
  h->der1 = calloc(h->size, sizeof(double));
  h->val2 = calloc(h->size, sizeof(double));
  h->der2 = calloc(h->size, sizeof(double));
  h->rate = calloc(h->size, sizeof(double));
  h->rate_der = calloc(h->size, sizeof(double));
  if (!h->val1 || !h->der1 || !h->val2 || !h->der2 || !h->rate ||
      !h->rate_der) {
    rod_history_free(h);
    return NULL;
  }
  return h;
}

rod_history *rod_history_alloc(int intervals, int width) {
  return alloc_size(intervals, width, 2 * (size_t)intervals * (size_t)width);
}

rod_history *rod_history_alloc_points(int points, int width) {
  return alloc_size(0, width, (size_t)points * (size_t)width);
}

void rod_history_rest(rod_history *h, const double *val, const double *der) {
  size_t bytes = h->size * sizeof(double);
  memcpy(h->val1, val, bytes);
  memcpy(h->val2, val, bytes);
  if (der) {
    memcpy(h->der1, der, bytes);
    memcpy(h->der2, der, bytes);
  } else {
    memset(h->der1, 0, bytes);
    memset(h->der2, 0, bytes);
  }
  memset(h->rate, 0, bytes);
  memset(h->rate_der, 0, bytes);
}

void rod_history_terms(const rod_history *h, const rod_bdf_coeffs *c,
                       const double *len, bool hermite, double *H_ends,
                       double *Hs_ends, double *H_mid) {
  const size_t n = h->size;
  for (size_t i = 0; i < n; i++) {
    H_ends[i] = c->c1 * h->val1[i] + c->c2 * h->val2[i] + c->d1 * h->rate[i];
    Hs_ends[i] =
        c->c1 * h->der1[i] + c->c2 * h->der2[i] + c->d1 * h->rate_der[i];
  }
  const int w = h->width;
  for (int j = 0; j < h->intervals; j++) {
    const double *a = H_ends + (size_t)(2 * j) * w;
    const double *b = a + w;
    const double *as = Hs_ends + (size_t)(2 * j) * w;
    const double *bs = as + w;
    double *mid = H_mid + (size_t)j * w;
    /* cubic Hermite at the midpoint: (a + b)/2 + len (a' - b') / 8 */
    double k = hermite ? 0.125 * len[j] : 0.0;
    for (int i = 0; i < w; i++)
      mid[i] = 0.5 * (a[i] + b[i]) + k * (as[i] - bs[i]);
  }
}

void rod_history_point_terms(const rod_history *h, const rod_bdf_coeffs *c,
                             double *H) {
  for (size_t i = 0; i < h->size; i++)
    H[i] = c->c1 * h->val1[i] + c->c2 * h->val2[i] + c->d1 * h->rate[i];
}

void rod_history_push(rod_history *h, const rod_bdf_coeffs *c,
                      const double *val, const double *der,
                      const double *H_ends, const double *Hs_ends) {
  /* rotate buffers: level i-2 <- level i-1 <- new */
  double *t = h->val2;
  h->val2 = h->val1;
  h->val1 = t;
  t = h->der2;
  h->der2 = h->der1;
  h->der1 = t;
  for (size_t i = 0; i < h->size; i++) {
    h->val1[i] = val[i];
    h->rate[i] = c->c0 * val[i] + H_ends[i];
  }
  if (der && Hs_ends) {
    for (size_t i = 0; i < h->size; i++) {
      h->der1[i] = der[i];
      h->rate_der[i] = c->c0 * der[i] + Hs_ends[i];
    }
  }
}
