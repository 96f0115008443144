/* The BDF-alpha time history along s (integrators/history.h): the values
 * and s-derivatives of two time levels and the last rate at every
 * interval end (or point), the history term H at ends and midpoints, and
 * a step's acceptance into the history. Sized once; no allocation in a
 * step. */
#include "integrators/history.h"

#include <stdlib.h>
#include <string.h>

struct rod_history {
  int intervals, width, stride;
  size_t count;            /* records: 2 * intervals, or points */
  size_t size;             /* count * width */
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

static rod_history *alloc_count(int intervals, int width, int stride,
                                size_t count) {
  if (width < 1 || stride < width)
    return NULL;
  rod_history *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->intervals = intervals;
  h->width = width;
  h->stride = stride;
  h->count = count;
  h->size = count * (size_t)width;
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

rod_history *rod_history_alloc(int intervals, int width, int stride) {
  return alloc_count(intervals, width, stride, 2 * (size_t)intervals);
}

rod_history *rod_history_alloc_points(int points, int width, int stride) {
  return alloc_count(0, width, stride, (size_t)points);
}

/* dst (count x width) = the first width of every stride values of src */
static void gather(const rod_history *h, double *dst, const double *src) {
  if (h->stride == h->width) {
    memcpy(dst, src, h->size * sizeof(double));
    return;
  }
  const size_t w = (size_t)h->width, st = (size_t)h->stride;
  for (size_t r = 0; r < h->count; r++)
    memcpy(dst + r * w, src + r * st, w * sizeof(double));
}

void rod_history_rest(rod_history *h, const double *val, const double *der) {
  size_t bytes = h->size * sizeof(double);
  gather(h, h->val1, val);
  gather(h, h->val2, val);
  if (der) {
    gather(h, h->der1, der);
    gather(h, h->der2, der);
  } else {
    memset(h->der1, 0, bytes);
    memset(h->der2, 0, bytes);
  }
  memset(h->rate, 0, bytes);
  memset(h->rate_der, 0, bytes);
}

/* The loops below with the record sizes as constants where they can be
 * (the rod's 9 of 12 values), so that the compiler unrolls and vectorises
 * them as it does a flat loop. */
#if defined(__GNUC__)
#define ROD_INLINE __attribute__((always_inline)) static inline
#else
#define ROD_INLINE static inline
#endif

ROD_INLINE void combine_records(size_t count, size_t w, size_t st,
                                const rod_bdf_coeffs *c, const double *a,
                                const double *b, const double *r, double *out) {
  const double c1 = c->c1, c2 = c->c2, d1 = c->d1;
  for (size_t k = 0; k < count; k++, a += w, b += w, r += w, out += st)
    for (size_t i = 0; i < w; i++)
      out[i] = c1 * a[i] + c2 * b[i] + d1 * r[i];
}

/* out[i] = c1 a[i] + c2 b[i] + d1 r[i] for the width values of every
 * record, out at the records' stride, a, b, r packed. */
static void combine(const rod_history *h, const rod_bdf_coeffs *c,
                    const double *a, const double *b, const double *r,
                    double *out) {
  const size_t w = (size_t)h->width, st = (size_t)h->stride;
  if (w == st)
    combine_records(1, h->size, h->size, c, a, b, r, out);
  else if (w == 9 && st == 12)
    combine_records(h->count, 9, 12, c, a, b, r, out);
  else
    combine_records(h->count, w, st, c, a, b, r, out);
}

ROD_INLINE void accept_records(size_t count, size_t w, size_t st, double c0,
                               const double *in, const double *H,
                               double *packed, double *rate) {
  for (size_t k = 0; k < count; k++, in += st, H += st, packed += w, rate += w)
    for (size_t i = 0; i < w; i++) {
      packed[i] = in[i];
      rate[i] = c0 * in[i] + H[i];
    }
}

/* Accept one level: packed[i] = in[i], rate[i] = c0 in[i] + H[i] for the
 * width values of every record (in and H at the records' stride). */
static void accept(const rod_history *h, double c0, const double *in,
                   const double *H, double *packed, double *rate) {
  const size_t w = (size_t)h->width, st = (size_t)h->stride;
  if (w == st)
    accept_records(1, h->size, h->size, c0, in, H, packed, rate);
  else if (w == 9 && st == 12)
    accept_records(h->count, 9, 12, c0, in, H, packed, rate);
  else
    accept_records(h->count, w, st, c0, in, H, packed, rate);
}

void rod_history_terms(const rod_history *h, const rod_bdf_coeffs *c,
                       const double *len, bool hermite, double *H_ends,
                       double *Hs_ends, double *H_mid) {
  combine(h, c, h->val1, h->val2, h->rate, H_ends);
  combine(h, c, h->der1, h->der2, h->rate_der, Hs_ends);
  const size_t w = (size_t)h->width, st = (size_t)h->stride;
  for (int j = 0; j < h->intervals; j++) {
    const double *a = H_ends + (size_t)(2 * j) * st;
    const double *b = a + st;
    const double *as = Hs_ends + (size_t)(2 * j) * st;
    const double *bs = as + st;
    double *mid = H_mid + (size_t)j * st;
    /* cubic Hermite at the midpoint: (a + b)/2 + len (a' - b') / 8 */
    double k = hermite ? 0.125 * len[j] : 0.0;
    for (size_t i = 0; i < w; i++)
      mid[i] = 0.5 * (a[i] + b[i]) + k * (as[i] - bs[i]);
  }
}

void rod_history_point_terms(const rod_history *h, const rod_bdf_coeffs *c,
                             double *H) {
  combine(h, c, h->val1, h->val2, h->rate, H);
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
  accept(h, c->c0, val, H_ends, h->val1, h->rate);
  if (der && Hs_ends)
    accept(h, c->c0, der, Hs_ends, h->der1, h->rate_der);
}

size_t rod_history_levels(rod_history *h, double *arr[6], int *width) {
  arr[0] = h->val1;
  arr[1] = h->der1;
  arr[2] = h->val2;
  arr[3] = h->der2;
  arr[4] = h->rate;
  arr[5] = h->rate_der;
  *width = h->width;
  return h->count;
}
