/* Synthetic frames of a rod (rod/render.h). */
#include "rod/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/random.h"

struct rod_renderer {
  rod_render_style s;
  float *cover;   /* (width x height) rod coverage, 0..1 */
  float *blurred; /* (width x height) scratch of the blur */
  double *kernel; /* Gaussian taps, 2 radius + 1 */
  int radius;
  double *xy; /* the centreline in pixels */
  int n, capacity;
};

rod_render_style rod_render_default(void) {
  return (rod_render_style){
      .width = 640,
      .height = 480,
      .camera = rod_camera_model_from((rod_camera){1e-3, 64, 240}),
      .rod_width = 3,
      .background = 0.85,
      .rod = 0.15,
      .seed = 1};
}

static bool style_ok(const rod_render_style *s) {
  return s->width >= 1 && s->height >= 1 && s->width <= 16384 &&
         s->height <= 16384 && s->rod_width > 0 && isfinite(s->rod_width) &&
         s->background >= 0 && s->background <= 1 && s->rod >= 0 &&
         s->rod <= 1 && s->blur >= 0 && s->blur <= 100 && s->noise >= 0 &&
         isfinite(s->noise) && fabs(s->gradient) < 2;
}

rod_renderer *rod_renderer_alloc(const rod_render_style *s) {
  if (!style_ok(s))
    return NULL;
  rod_renderer *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  r->s = *s;
  size_t npix = (size_t)s->width * (size_t)s->height;
  r->radius = s->blur > 0 ? (int)ceil(3.5 * s->blur) : 0;
  r->cover = malloc(npix * sizeof *r->cover);
  r->blurred = malloc(npix * sizeof *r->blurred);
  r->kernel = malloc((2 * (size_t)r->radius + 1) * sizeof *r->kernel);
  if (!r->cover || !r->blurred || !r->kernel) {
    rod_renderer_free(r);
    return NULL;
  }
  double sum = 0;
  for (int k = -r->radius; k <= r->radius; k++)
    sum += r->kernel[k + r->radius] =
        s->blur > 0 ? exp(-0.5 * k * k / (s->blur * s->blur)) : 1;
  for (int k = 0; k <= 2 * r->radius; k++)
    r->kernel[k] /= sum;
  return r;
}

void rod_renderer_free(rod_renderer *r) {
  if (!r)
    return;
  free(r->cover);
  free(r->blurred);
  free(r->kernel);
  free(r->xy);
  free(r);
}

int rod_render_centreline(const rod_renderer *r, const double **xy) {
  *xy = r->xy;
  return r->n;
}

/* ---- the centreline in the image ---------------------------------------*/

static int append(rod_renderer *r, double u, double v) {
  if (r->n == r->capacity) {
    int cap = r->capacity ? 2 * r->capacity : 1024;
    double *xy = realloc(r->xy, 2 * (size_t)cap * sizeof *xy);
    if (!xy)
      return ROD_ENOMEM;
    r->xy = xy;
    r->capacity = cap;
  }
  r->xy[2 * r->n] = u;
  r->xy[2 * r->n + 1] = v;
  r->n++;
  return ROD_OK;
}

/* The world points' image, each world segment cut into pieces short
 * enough (under half a pixel) that a distorting lens bends it smoothly. */
static int project(rod_renderer *r, const double *p, int n) {
  r->n = 0;
  const rod_camera_model *cam = &r->s.camera;
  double u0, v0;
  rod_camera_model_to_pixel(cam, p[0], p[2], &u0, &v0);
  if (!isfinite(u0) || !isfinite(v0) || append(r, u0, v0) != ROD_OK)
    return ROD_EINVAL;
  for (int i = 1; i < n; i++) {
    const double *a = p + 3 * (i - 1), *b = p + 3 * i;
    double u1, v1;
    rod_camera_model_to_pixel(cam, b[0], b[2], &u1, &v1);
    if (!isfinite(u1) || !isfinite(v1) || fabs(u1) > 1e6 || fabs(v1) > 1e6)
      return ROD_EINVAL;
    int pieces = (int)ceil(2 * hypot(u1 - u0, v1 - v0));
    pieces = pieces < 1 ? 1 : pieces > 100000 ? 100000 : pieces;
    for (int k = 1; k <= pieces; k++) {
      double f = (double)k / pieces, u, v;
      if (k == pieces) {
        u = u1;
        v = v1;
      } else {
        rod_camera_model_to_pixel(cam, a[0] + f * (b[0] - a[0]),
                                  a[2] + f * (b[2] - a[2]), &u, &v);
      }
      if (append(r, u, v) != ROD_OK)
        return ROD_ENOMEM;
    }
    u0 = u1;
    v0 = v1;
  }
  return ROD_OK;
}

/* ---- coverage ----------------------------------------------------------*/

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* The rod's coverage of pixel (x, y) from segment a-b: the area inside the
 * stroke's edge at the pixel's distance from the segment, taking the edge
 * as straight across the pixel; round joints with the neighbouring
 * segments, none beyond the rod's own ends (first, last). */
static double segment_cover(double x, double y, const double a[2],
                            const double b[2], double half, bool first,
                            bool last) {
  double ex = b[0] - a[0], ey = b[1] - a[1], len = hypot(ex, ey);
  if (len == 0)
    return 0;
  ex /= len;
  ey /= len;
  double along = (x - a[0]) * ex + (y - a[1]) * ey;
  double d;
  if (along < 0 && !first)
    d = hypot(x - a[0], y - a[1]);
  else if (along > len && !last)
    d = hypot(x - b[0], y - b[1]);
  else
    d = fabs((x - a[0]) * -ey + (y - a[1]) * ex);
  return clamp01(half - d + 0.5);
}

/* The flat end at point e of a rod leaving it along u (unit, pointing
 * into the rod): the fraction of pixel (x, y) on the rod's side of the
 * end's plane, straight-edge approximation. */
static double end_cover(double x, double y, const double e[2],
                        const double u[2]) {
  return clamp01(0.5 + (x - e[0]) * u[0] + (y - e[1]) * u[1]);
}

static int clamp_index(double v, int size) {
  return v < 0 ? 0 : v > size - 1 ? size - 1 : (int)v;
}

/* The unit direction from point i to point j of the centreline. */
static void direction(const rod_renderer *r, int i, int j, double u[2]) {
  double dx = r->xy[2 * j] - r->xy[2 * i],
         dy = r->xy[2 * j + 1] - r->xy[2 * i + 1];
  double d = hypot(dx, dy);
  u[0] = d > 0 ? dx / d : 0;
  u[1] = d > 0 ? dy / d : 0;
}

/* Coverage of the union of the segments; segments within reach of an end
 * (in arclength) are cut by that end's plane, so that no round joint
 * sticks out beyond a flat end. */
static void stroke(rod_renderer *r) {
  const int w = r->s.width, h = r->s.height, n = r->n;
  const double half = 0.5 * r->s.rod_width, reach = half + 1.5;
  memset(r->cover, 0, (size_t)w * (size_t)h * sizeof *r->cover);
  double length = 0;
  for (int i = 1; i < n; i++)
    length += hypot(r->xy[2 * i] - r->xy[2 * i - 2],
                    r->xy[2 * i + 1] - r->xy[2 * i - 1]);
  double u_start[2], u_tip[2];
  direction(r, 0, 1, u_start);
  direction(r, n - 1, n - 2, u_tip);
  const double *start = r->xy, *tip = r->xy + 2 * (n - 1);
  double s = 0;
  for (int i = 1; i < n; i++) {
    const double *a = r->xy + 2 * (i - 1), *b = r->xy + 2 * i;
    const double ds = hypot(b[0] - a[0], b[1] - a[1]);
    const bool near_start = s <= reach + 1,
               near_tip = length - (s + ds) <= reach + 1;
    s += ds;
    int c0 = clamp_index(floor(fmin(a[0], b[0]) - reach), w);
    int c1 = clamp_index(ceil(fmax(a[0], b[0]) + reach), w);
    int r0 = clamp_index(floor(fmin(a[1], b[1]) - reach), h);
    int r1 = clamp_index(ceil(fmax(a[1], b[1]) + reach), h);
    for (int y = r0; y <= r1; y++) {
      float *row = r->cover + (size_t)y * (size_t)w;
      for (int x = c0; x <= c1; x++) {
        double c = segment_cover(x, y, a, b, half, i == 1, i == n - 1);
        if (c > 0 && near_start)
          c *= end_cover(x, y, start, u_start);
        if (c > 0 && near_tip)
          c *= end_cover(x, y, tip, u_tip);
        if (c > row[x])
          row[x] = (float)c;
      }
    }
  }
}

/* ---- lighting, blur, noise ---------------------------------------------*/

/* The separable Gaussian, the image's edge pixels repeated beyond it:
 * along each row (the edges apart, no index clamping), then down the
 * columns as weighted sums of whole rows, which stream through memory. */
static void blur_rows(const rod_renderer *r, const float *in, float *out) {
  const int w = r->s.width, h = r->s.height, R = r->radius;
  const double *g = r->kernel + R; /* g[-R..R] */
  for (int y = 0; y < h; y++) {
    const float *src = in + (size_t)y * (size_t)w;
    float *dst = out + (size_t)y * (size_t)w;
    for (int x = 0; x < w; x++) {
      double sum = 0;
      if (x >= R && x < w - R) {
        for (int k = -R; k <= R; k++)
          sum += g[k] * src[x + k];
      } else {
        for (int k = -R; k <= R; k++) {
          int j = x + k < 0 ? 0 : x + k >= w ? w - 1 : x + k;
          sum += g[k] * src[j];
        }
      }
      dst[x] = (float)sum;
    }
  }
}

static void blur_columns(const rod_renderer *r, const float *in, float *out) {
  const int w = r->s.width, h = r->s.height, R = r->radius;
  const double *g = r->kernel + R;
  for (int y = 0; y < h; y++) {
    float *dst = out + (size_t)y * (size_t)w;
    for (int x = 0; x < w; x++)
      dst[x] = 0;
    for (int k = -R; k <= R; k++) {
      int j = y + k < 0 ? 0 : y + k >= h ? h - 1 : y + k;
      const float *src = in + (size_t)j * (size_t)w, gk = (float)g[k];
      for (int x = 0; x < w; x++)
        dst[x] += gk * src[x];
    }
  }
}

/* xorshift64* (Vigna 2016): the noise of a frame is most of the cost of
 * drawing it, so a fast stream, seeded per frame by the counter-based
 * generator so that a frame's noise does not depend on the others. */
static double next_uniform(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return (double)((*x * 0x2545f4914f6cdd1du) >> 11) * 0x1.0p-53;
}

/* Gaussian noise of standard deviation sigma on every pixel: Marsaglia's
 * polar method, two deviates per accepted pair, no trigonometry. */
static void add_noise(rod_image *img, double sigma, uint64_t seed,
                      uint64_t frame) {
  uint64_t x = (uint64_t)(rod_random_uniform(seed, frame) * 0x1.0p63) | 1u;
  const size_t npix = (size_t)img->width * (size_t)img->height;
  for (size_t p = 0; p < npix; p += 2) {
    double u, v, q;
    do {
      u = 2 * next_uniform(&x) - 1;
      v = 2 * next_uniform(&x) - 1;
      q = u * u + v * v;
    } while (q >= 1 || q == 0);
    double f = sigma * sqrt(-2 * log(q) / q);
    img->lum[p] += (float)(u * f);
    if (p + 1 < npix)
      img->lum[p + 1] += (float)(v * f);
  }
}

int rod_render_frame(rod_renderer *r, const double *points, int n,
                     uint64_t frame, rod_image *img) {
  const rod_render_style *s = &r->s;
  if (!img || img->width != s->width || img->height != s->height || n < 2)
    return ROD_EINVAL;
  for (int i = 0; i < 3 * n; i++)
    if (!isfinite(points[i]))
      return ROD_EINVAL;
  int st = project(r, points, n);
  if (st != ROD_OK)
    return st;
  stroke(r);
  const int w = s->width, h = s->height;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double bg =
          s->background *
          (1 + s->gradient * ((w > 1 ? (double)x / (w - 1) : 0.5) - 0.5));
      size_t p = (size_t)y * (size_t)w + (size_t)x;
      img->lum[p] = (float)(bg + (s->rod - bg) * r->cover[p]);
    }
  if (r->radius > 0) {
    blur_rows(r, img->lum, r->blurred);
    blur_columns(r, r->blurred, img->lum);
  }
  if (s->noise > 0)
    add_noise(img, s->noise, s->seed, frame);
  return ROD_OK;
}

/* ---- the tilted camera -------------------------------------------------*/

int rod_camera_model_tilted(const rod_camera *ortho, int width, int height,
                            double distance, double tilt_x, double tilt_y,
                            rod_camera_model *out) {
  if (!(ortho->scale > 0) || !(distance > 0) || !isfinite(distance) ||
      !isfinite(tilt_x) || !isfinite(tilt_y) || fabs(tilt_x) >= M_PI / 2 ||
      fabs(tilt_y) >= M_PI / 2)
    return ROD_EINVAL;
  const double cx = 0.5 * (width - 1), cy = 0.5 * (height - 1);
  const double f = distance / ortho->scale;
  /* the plane point at the principal point */
  double xc, zc;
  rod_camera_to_world(ortho, cx, cy, &xc, &zc);
  /* camera axes: X right, Y down, Z along the view; R = Rx(tilt_x)
   * Ry(tilt_y) turns the plane about the point it looks at */
  const double ca = cos(tilt_x), sa = sin(tilt_x), cb = cos(tilt_y),
               sb = sin(tilt_y);
  const double R[9] = {cb, 0, sb, sa * sb, ca, -sa * cb, -ca * sb, sa, ca * cb};
  /* a plane point (x, z) is at R (x - xc, -(z - zc), 0) + (0, 0, D) in
   * camera coordinates: columns r1, -r2 and D e3 - xc r1 + zc r2 */
  double M[9];
  for (int i = 0; i < 3; i++) {
    double r1 = R[3 * i], r2 = R[3 * i + 1];
    double t = (i == 2 ? distance : 0) - xc * r1 + zc * r2;
    double col[3] = {r1, -r2, t};
    for (int j = 0; j < 3; j++)
      M[3 * i + j] = col[j];
  }
  /* K M: u = f X + cx Z, v = f Y + cy Z */
  double H[9];
  for (int j = 0; j < 3; j++) {
    H[j] = f * M[j] + cx * M[6 + j];
    H[3 + j] = f * M[3 + j] + cy * M[6 + j];
    H[6 + j] = M[6 + j];
  }
  double plane[9];
  if (rod_homography_invert(H, plane) != ROD_OK)
    return ROD_EINVAL;
  *out = rod_camera_model_from(*ortho);
  return rod_camera_model_set_plane(out, plane);
}
