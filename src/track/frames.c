/* Synthetic rod frames (frames.h). */
#include "track/frames.h"

#include <math.h>
#include <stddef.h>

rod_frame_style rod_frame_style_default(void) {
  return (rod_frame_style){.camera = {1e-3, 0, 0},
                           .line_width = 3,
                           .background = 0.9,
                           .rod = 0.1,
                           .noise = 0,
                           .seed = 1,
                           .antialias = true};
}

/* Distance from (px, py) to the segment a-b, pixels. */
static double segment_distance(double px, double py, const double a[2],
                               const double b[2]) {
  double ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
  double s = len2 > 0 ? ((px - a[0]) * ex + (py - a[1]) * ey) / len2 : 0;
  s = s < 0 ? 0 : s > 1 ? 1 : s;
  double dx = px - a[0] - s * ex, dy = py - a[1] - s * ey;
  return sqrt(dx * dx + dy * dy);
}

static int clamp_index(double v, int size) {
  return v < 0 ? 0 : v > size - 1 ? size - 1 : (int)v;
}

/* lum = min(lum, distance to the segment) over the pixels near it: the
 * image holds the distance field of the polyline while it is drawn. */
static void stroke_segment(rod_image *img, const double a[2], const double b[2],
                           double reach) {
  int c0 = clamp_index(floor(fmin(a[0], b[0]) - reach), img->width);
  int c1 = clamp_index(ceil(fmax(a[0], b[0]) + reach), img->width);
  int r0 = clamp_index(floor(fmin(a[1], b[1]) - reach), img->height);
  int r1 = clamp_index(ceil(fmax(a[1], b[1]) + reach), img->height);
  for (int r = r0; r <= r1; r++) {
    float *row = img->lum + (size_t)r * (size_t)img->width;
    for (int c = c0; c <= c1; c++) {
      float d = (float)segment_distance(c, r, a, b);
      if (d < row[c])
        row[c] = d;
    }
  }
}

/* splitmix64 (Steele, Lea & Flood 2014): small, seedable with any value,
 * and the same on every platform, unlike rand(). */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Standard normal deviates by Box-Muller, both of each pair used: the
 * noise is most of the cost of drawing a frame. */
typedef struct {
  uint64_t state;
  double spare;
  bool has_spare;
} gaussian_source;

static double next_gaussian(gaussian_source *g) {
  if (g->has_spare) {
    g->has_spare = false;
    return g->spare;
  }
  /* u1 in (0, 1] keeps the logarithm finite */
  double u1 = ((next_random(&g->state) >> 11) + 1) * 0x1.0p-53;
  double u2 = (next_random(&g->state) >> 11) * 0x1.0p-53;
  double r = sqrt(-2.0 * log(u1)), a = 2.0 * M_PI * u2;
  g->spare = r * sin(a);
  g->has_spare = true;
  return r * cos(a);
}

/* Rod coverage of a pixel whose centre is at distance d from the
 * centreline. Anti-aliased: the area of the pixel inside the stroke's
 * edge, taking the edge as straight across the pixel. */
static double coverage(double d, const rod_frame_style *s) {
  double inside = 0.5 * s->line_width - d;
  if (!s->antialias)
    return inside > 0 ? 1.0 : 0.0;
  return inside < -0.5 ? 0.0 : inside > 0.5 ? 1.0 : inside + 0.5;
}

static bool style_ok(const rod_frame_style *s) {
  return s->camera.scale > 0 && isfinite(s->camera.scale) &&
         s->line_width > 0 && s->background >= 0 && s->background <= 1 &&
         s->rod >= 0 && s->rod <= 1 && s->noise >= 0 && isfinite(s->noise);
}

int rod_frame_draw(rod_image *img, const rod_frame_style *s,
                   const double *points, int n) {
  if (!img || img->width <= 0 || img->height <= 0 || !style_ok(s) || n < 1)
    return ROD_EINVAL;
  for (int i = 0; i < 3 * n; i++)
    if (!isfinite(points[i]))
      return ROD_EINVAL;
  size_t npix = (size_t)img->width * (size_t)img->height;
  for (size_t p = 0; p < npix; p++)
    img->lum[p] = INFINITY;
  double reach = 0.5 * s->line_width + 1.0, a[2], b[2];
  rod_camera_to_pixel(&s->camera, points[0], points[2], &a[0], &a[1]);
  if (n == 1)
    stroke_segment(img, a, a, reach);
  for (int i = 1; i < n; i++, a[0] = b[0], a[1] = b[1]) {
    rod_camera_to_pixel(&s->camera, points[3 * i], points[3 * i + 2], &b[0],
                        &b[1]);
    stroke_segment(img, a, b, reach);
  }
  gaussian_source noise = {.state = s->seed};
  for (size_t p = 0; p < npix; p++) {
    double v =
        s->background + (s->rod - s->background) * coverage(img->lum[p], s);
    if (s->noise > 0)
      v += s->noise * next_gaussian(&noise);
    img->lum[p] = (float)v;
  }
  return ROD_OK;
}
