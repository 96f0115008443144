/* What the tracer's pieces share (rod/trace.h): its state, the rod signal
 * sampled between pixels, and medians. */
#ifndef ROD_TRACE_SAMPLE_H
#define ROD_TRACE_SAMPLE_H

#include <math.h>
#include <stddef.h>

#include "rod/trace.h"

enum {
  TRACE_PROFILE_MAX = 1024, /* samples across the rod, half-pixel spacing */
  TRACE_RING = 720          /* samples on a circle around the clamp */
};

struct rod_tracer {
  rod_trace_options o;
  int width, height;                    /* of the frames */
  int capacity;                         /* points a trace may hold */
  double *xy;                           /* (capacity x 2) the trace */
  double *widths, *contrasts, *scratch; /* (capacity) per centre */
  int centres;                          /* measured in the last trace */
  double profile[TRACE_PROFILE_MAX], sorted[TRACE_PROFILE_MAX];
  /* settled by the first successful trace */
  bool calibrated;
  double rod_width;    /* px */
  double rod_contrast; /* fraction of full scale */
  double start[2];     /* unit direction at the clamp */
  bool have_start;
  /* the frame being traced */
  const rod_image *img, *bg;
};

/* The rod signal at (x, y) by bilinear interpolation: larger on the rod
 * (ref - I for a dark rod, I - ref for a bright one, ref the background
 * image or 1 resp. 0); NAN outside the image's pixel centres. */
static inline double trace_signal(const struct rod_tracer *t, double x,
                                  double y) {
  const int w = t->width, h = t->height;
  if (!(x >= 0 && y >= 0 && x <= w - 1 && y <= h - 1))
    return NAN;
  int x0 = (int)x, y0 = (int)y;
  x0 -= x0 == w - 1 && w > 1;
  y0 -= y0 == h - 1 && h > 1;
  const int x1 = x0 + (w > 1), y1 = y0 + (h > 1);
  const double fx = x - x0, fy = y - y0;
  const size_t r0 = (size_t)y0 * (size_t)w, r1 = (size_t)y1 * (size_t)w;
  const float *I = t->img->lum;
  double a = I[r0 + x0] + fx * (I[r0 + x1] - I[r0 + x0]);
  double b = I[r1 + x0] + fx * (I[r1 + x1] - I[r1 + x0]);
  double lum = a + fy * (b - a), ref = t->o.polarity == ROD_POLARITY_DARK;
  if (t->bg) {
    const float *B = t->bg->lum;
    a = B[r0 + x0] + fx * (B[r0 + x1] - B[r0 + x0]);
    b = B[r1 + x0] + fx * (B[r1 + x1] - B[r1 + x0]);
    ref = a + fy * (b - a);
  }
  return t->o.polarity == ROD_POLARITY_DARK ? ref - lum : lum - ref;
}

/* The level a fixed threshold sets on the signal, or NAN when the level
 * is measured (threshold 0). */
static inline double trace_fixed_level(const struct rod_tracer *t) {
  if (!(t->o.threshold > 0))
    return NAN;
  if (t->bg || t->o.polarity == ROD_POLARITY_BRIGHT)
    return t->o.threshold;
  return 1.0 - t->o.threshold; /* 1 - I > 1 - threshold */
}

/* The median of the n finite values of v (NAN if none), using scratch
 * (room for n); v is left as it is. */
double trace_median(const double *v, int n, double *scratch);

/* Where the rod leaves the clamp: the strongest arc of signal on a circle
 * around the origin (within max_angle rad of t->start when near is set),
 * its direction, angular width times radius (a first rod width, px) and
 * contrast above the circle's median. false if no arc stands out of the
 * circle's noise. */
bool trace_find_start(struct rod_tracer *t, bool near, double max_angle,
                      double dir[2], double *width, double *contrast);

#endif
