/* The centreline traced from the clamp (rod/trace.h). */
#include <stdlib.h>
#include <string.h>

#include "track/trace_sample.h"

/* Profile samples every half pixel: finer than the pixels, so the
 * crossings' linear interpolation sees the edge's shape, not the grid. */
static const double profile_spacing = 0.5;

/* Before the first frame has measured the rod: the first width guess
 * from the clamp's arc is used, no less than this (px). */
static const double min_width = 1.0;

/* The turn between steps is extrapolated, at most this much (rad). */
static const double max_turn = 0.6;

/* A profile whose rod run is wider than this many rod widths (plus 2 px)
 * does not cross the rod alone (the clamp, a crossing of the rod with
 * itself, or something else in view): the trace coasts along its
 * prediction, for at most coast_steps steps. */
static const double wide_factor = 2.5;
enum { COAST_STEPS = 3 };

/* Each good frame moves the rod's contrast this fraction of the way to
 * its own: a drift of exposure over a sequence is followed, a single odd
 * frame is not. */
static const double contrast_follow = 0.2;

rod_tracer *rod_tracer_alloc(const rod_trace_options *o, int width,
                             int height) {
  if (width < 1 || height < 1 || !isfinite(o->origin[0]) ||
      !isfinite(o->origin[1]) || !isfinite(o->direction[0]) ||
      !isfinite(o->direction[1]) || !(o->step >= 0) || !isfinite(o->step) ||
      !(o->threshold >= 0 && o->threshold < 1))
    return NULL;
  rod_tracer *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->o = *o;
  if (t->o.step == 0)
    t->o.step = 2.0;
  t->width = width;
  t->height = height;
  /* twice the perimeter: room for a rod curled around the whole image */
  double cap = 4.0 * (width + height) / t->o.step + 8;
  t->capacity = cap > 1e7 ? 10000000 : (int)cap;
  t->xy = malloc(2 * (size_t)t->capacity * sizeof *t->xy);
  t->widths = malloc((size_t)t->capacity * sizeof *t->widths);
  t->contrasts = malloc((size_t)t->capacity * sizeof *t->contrasts);
  t->scratch = malloc((size_t)t->capacity * sizeof *t->scratch);
  if (!t->xy || !t->widths || !t->contrasts || !t->scratch) {
    rod_tracer_free(t);
    return NULL;
  }
  double d = hypot(o->direction[0], o->direction[1]);
  if (d > 0) {
    t->start[0] = o->direction[0] / d;
    t->start[1] = o->direction[1] / d;
    t->have_start = true;
  }
  return t;
}

void rod_tracer_free(rod_tracer *t) {
  if (!t)
    return;
  free(t->xy);
  free(t->widths);
  free(t->contrasts);
  free(t->scratch);
  free(t);
}

double rod_tracer_width(const rod_tracer *t) {
  return t->calibrated ? t->rod_width : 0;
}

double rod_tracer_contrast(const rod_tracer *t) {
  return t->calibrated ? t->rod_contrast : 0;
}

/* ---- one profile across the rod ----------------------------------------*/

enum { CS_OK, CS_NONE, CS_EDGE, CS_WIDE };

typedef struct {
  double centre;   /* px along the normal from the profile's middle */
  double width;    /* px between the crossings */
  double contrast; /* signal at the centre above the local background */
  double level;    /* the crossing level used */
} cross_section;

/* The settings of the current trace. */
typedef struct {
  double width;    /* px, the rod's (or the first guess) */
  double contrast; /* the rod's contrast */
  double half;     /* half-length of a profile, px */
  double search;   /* how far from the prediction the centre may be, px */
  double fixed;    /* a fixed level, or NAN */
} trace_setup;

static trace_setup setup_for(const rod_tracer *t, double width,
                             double contrast) {
  width = fmax(width, min_width);
  return (trace_setup){.width = width,
                       .contrast = contrast,
                       .half = 2 * width + 3,
                       .search = 0.5 * width + 2,
                       .fixed = trace_fixed_level(t)};
}

/* Where the signal crosses `level` between sample j (at or above) and
 * its neighbour k (below), as an offset along the profile. */
static double crossing(const double *s, int j, int k, double level, int mid) {
  double f = (s[j] - level) / (s[j] - s[k]);
  return (j - mid + f * (k - j)) * profile_spacing;
}

static int profile_at(rod_tracer *t, const trace_setup *ts, const double q[2],
                      const double n[2], cross_section *cs) {
  const int mid = (int)(ts->half / profile_spacing);
  const int m =
      2 * mid + 1 < TRACE_PROFILE_MAX ? 2 * mid + 1 : TRACE_PROFILE_MAX - 1;
  double *s = t->profile;
  for (int j = 0; j < m; j++) {
    double o = (j - mid) * profile_spacing;
    s[j] = trace_signal(t, q[0] + o * n[0], q[1] + o * n[1]);
  }
  const double base = isfinite(ts->fixed) ? 0 : trace_median(s, m, t->sorted);
  if (!isfinite(base))
    return CS_EDGE;
  const double level =
      isfinite(ts->fixed) ? ts->fixed : base + 0.5 * ts->contrast;
  /* the strongest sample near the prediction (a 1-2-1 average against
   * the noise) must reach the level */
  const int reach = (int)(ts->search / profile_spacing);
  int best = -1;
  double best_v = -INFINITY;
  for (int j = mid - reach; j <= mid + reach; j++) {
    if (j < 1 || j >= m - 1)
      continue;
    double v = 0.25 * s[j - 1] + 0.5 * s[j] + 0.25 * s[j + 1];
    if (v > best_v) {
      best_v = v;
      best = j;
    }
  }
  if (best < 0 || !(s[best] >= level)) {
    if (best < 0 || isnan(best_v))
      return CS_EDGE;
    return CS_NONE;
  }
  int lo = best, hi = best;
  while (lo > 0 && s[lo - 1] >= level)
    lo--;
  while (hi < m - 1 && s[hi + 1] >= level)
    hi++;
  if (lo == 0 || hi == m - 1)
    return CS_WIDE;
  if (isnan(s[lo - 1]) || isnan(s[hi + 1]))
    return CS_EDGE;
  double left = crossing(s, lo, lo - 1, level, mid);
  double right = crossing(s, hi, hi + 1, level, mid);
  cs->centre = 0.5 * (left + right);
  cs->width = right - left;
  cs->level = level;
  int c = mid + (int)lrint(cs->centre / profile_spacing);
  cs->contrast = s[c < 0 ? 0 : c >= m ? m - 1 : c] - base;
  if (cs->width > wide_factor * ts->width + 2)
    return CS_WIDE;
  return CS_OK;
}

/* ---- the tip -----------------------------------------------------------*/

/* The tip beyond the last centre p, along u: where the signal averaged
 * over the middle half of the rod's width falls below level. *edge when
 * the image's border comes first. */
static void find_tip(rod_tracer *t, const trace_setup *ts, const double p[2],
                     const double u[2], double level, double tip[2],
                     bool *edge) {
  const double n[2] = {-u[1], u[0]}, da = 0.25;
  const double reach = t->o.step + 2 * ts->width + 2;
  const double lateral = 0.25 * ts->width;
  double prev = NAN, prev_a = 0;
  *edge = false;
  for (double a = 0; a <= reach; a += da) {
    double sum = 0;
    for (int k = -1; k <= 1; k++) {
      double v = trace_signal(t, p[0] + a * u[0] + k * lateral * n[0],
                              p[1] + a * u[1] + k * lateral * n[1]);
      if (isnan(v)) {
        *edge = true;
        tip[0] = p[0] + prev_a * u[0];
        tip[1] = p[1] + prev_a * u[1];
        return;
      }
      sum += v;
    }
    double v = sum / 3;
    if (v < level) {
      double f = isfinite(prev) && prev > v ? (prev - level) / (prev - v) : 0;
      double at = prev_a + f * (a - prev_a);
      tip[0] = p[0] + at * u[0];
      tip[1] = p[1] + at * u[1];
      return;
    }
    prev = v;
    prev_a = a;
  }
  tip[0] = p[0] + reach * u[0];
  tip[1] = p[1] + reach * u[1];
}

/* ---- the trace ---------------------------------------------------------*/

static bool inside(const rod_tracer *t, const double q[2]) {
  return q[0] >= 0 && q[1] >= 0 && q[0] <= t->width - 1 &&
         q[1] <= t->height - 1;
}

static void push(rod_tracer *t, rod_trace *out, const double p[2]) {
  t->xy[2 * out->n] = p[0];
  t->xy[2 * out->n + 1] = p[1];
  if (out->n > 0)
    out->length +=
        hypot(p[0] - t->xy[2 * out->n - 2], p[1] - t->xy[2 * out->n - 1]);
  out->n++;
}

/* Step from the clamp along direction u0 with settings ts. */
static void trace(rod_tracer *t, const trace_setup *ts, const double u0[2],
                  rod_trace *out) {
  out->n = 0;
  out->length = 0;
  out->status = 0;
  out->xy = t->xy;
  double p[2] = {t->o.origin[0], t->o.origin[1]}, u[2] = {u0[0], u0[1]};
  double turn = 0, level = isfinite(ts->fixed)
                               ? ts->fixed
                               : NAN; /* the last profile's level */
  int centres = 0, coasting = 0;
  push(t, out, p);
  const double h = t->o.step;
  for (;;) {
    if (out->n >= t->capacity - 1) {
      out->status |= ROD_TRACE_TOO_LONG;
      break;
    }
    double c = cos(turn), sn = sin(turn);
    double up[2] = {c * u[0] - sn * u[1], sn * u[0] + c * u[1]};
    double q[2] = {p[0] + h * up[0], p[1] + h * up[1]};
    double n[2] = {-up[1], up[0]};
    cross_section cs;
    int r = inside(t, q) ? profile_at(t, ts, q, n, &cs) : CS_EDGE;
    if (r == CS_EDGE) {
      out->status |= ROD_TRACE_EDGE;
      break;
    }
    if (r == CS_NONE) {
      if (centres == 0)
        break;
      double tip[2];
      bool edge;
      find_tip(t, ts, p, up, isfinite(level) ? level : ts->contrast / 2, tip,
               &edge);
      if (edge)
        out->status |= ROD_TRACE_EDGE;
      push(t, out, tip);
      break;
    }
    double next[2] = {q[0], q[1]};
    if (r == CS_WIDE) {
      if (++coasting > COAST_STEPS) {
        out->status |= ROD_TRACE_EDGE; /* lost in a blob */
        break;
      }
    } else {
      coasting = 0;
      next[0] += cs.centre * n[0];
      next[1] += cs.centre * n[1];
      level = cs.level;
      t->widths[centres] = cs.width;
      t->contrasts[centres] = cs.contrast;
      centres++;
    }
    double d[2] = {next[0] - p[0], next[1] - p[1]}, len = hypot(d[0], d[1]);
    if (len > 0) {
      d[0] /= len;
      d[1] /= len;
      double measured =
          atan2(u[0] * d[1] - u[1] * d[0], u[0] * d[0] + u[1] * d[1]);
      turn = 0.5 * turn + 0.5 * measured;
      turn = turn > max_turn ? max_turn : turn < -max_turn ? -max_turn : turn;
      u[0] = d[0];
      u[1] = d[1];
    }
    p[0] = next[0];
    p[1] = next[1];
    push(t, out, p);
  }
  t->centres = centres;
  if (centres == 0)
    out->status |= ROD_TRACE_NO_ROD;
}

/* The trace's medians of width and contrast. */
static void measure(rod_tracer *t, int centres, rod_trace *out) {
  out->width = trace_median(t->widths, centres, t->scratch);
  out->contrast = trace_median(t->contrasts, centres, t->scratch);
}

/* The direction from the clamp to the trace a few rod widths out: the
 * start of the next frame's trace. */
static void keep_start(rod_tracer *t, const rod_trace *out) {
  const double want = fmax(3 * t->rod_width, 6.0);
  for (int k = 1; k < out->n; k++) {
    double dx = out->xy[2 * k] - out->xy[0],
           dy = out->xy[2 * k + 1] - out->xy[1];
    double d = hypot(dx, dy);
    if (d >= want || k == out->n - 1) {
      if (d > 0) {
        t->start[0] = dx / d;
        t->start[1] = dy / d;
      }
      return;
    }
  }
}

/* The first frame: find the start and a first width and contrast from
 * the clamp's arc, trace with them, then again with the trace's own
 * medians. */
static void calibrate(rod_tracer *t, rod_trace *out) {
  double dir[2], width, contrast;
  bool found = t->have_start
                   ? trace_find_start(t, true, M_PI / 6, dir, &width, &contrast)
                   : trace_find_start(t, false, M_PI, dir, &width, &contrast);
  if (!found) {
    *out = (rod_trace){.xy = t->xy, .status = ROD_TRACE_NO_ROD};
    push(t, out, t->o.origin);
    return;
  }
  if (!t->have_start) {
    t->start[0] = dir[0];
    t->start[1] = dir[1];
  }
  trace_setup ts = setup_for(t, width, contrast);
  trace(t, &ts, t->start, out);
  if (t->centres < 1)
    return;
  measure(t, t->centres, out);
  if (!(out->width > 0) || !(out->contrast > 0))
    return;
  t->rod_width = out->width;
  t->rod_contrast = out->contrast;
  t->calibrated = true;
  t->have_start = true;
  ts = setup_for(t, t->rod_width, t->rod_contrast);
  trace(t, &ts, t->start, out);
}

int rod_tracer_run(rod_tracer *t, const rod_image *img,
                   const rod_image *background, rod_trace *out) {
  if (img->width != t->width || img->height != t->height ||
      (background &&
       (background->width != t->width || background->height != t->height)))
    return ROD_EINVAL;
  t->img = img;
  t->bg = background;
  t->centres = 0;
  if (!t->calibrated) {
    calibrate(t, out);
  } else {
    trace_setup ts = setup_for(t, t->rod_width, t->rod_contrast);
    trace(t, &ts, t->start, out);
  }
  out->width = out->contrast = 0;
  if (t->centres > 0)
    measure(t, t->centres, out);
  if (t->calibrated && out->status == 0) {
    keep_start(t, out);
    /* follow slow changes of exposure */
    t->rod_contrast += contrast_follow * (out->contrast - t->rod_contrast);
  }
  t->img = t->bg = NULL;
  return ROD_OK;
}
