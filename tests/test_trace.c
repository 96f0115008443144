/* The centreline tracer (rod/trace.h), the synthetic frames it is measured
 * on (rod/render.h) and the cameras (rod/camera.h): known shapes drawn with
 * noise and blur in every orientation, traced to a fraction of a pixel;
 * failures flagged; lens and homography against their exact inverses. */
#include <string.h>

#include "rod/render.h"
#include "rod/trace.h"
#include "testutil.h"

enum { W = 320, H = 240, NP = 120 };

/* Distance (px) from (x, y) to the polyline xy of n points. */
static double polyline_distance(const double *xy, int n, double x, double y) {
  double best = INFINITY;
  for (int i = 1; i < n; i++) {
    const double *a = xy + 2 * (i - 1), *b = xy + 2 * i;
    double ex = b[0] - a[0], ey = b[1] - a[1], l2 = ex * ex + ey * ey;
    double s = l2 > 0 ? ((x - a[0]) * ex + (y - a[1]) * ey) / l2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    best = fmin(best, hypot(x - a[0] - s * ex, y - a[1] - s * ey));
  }
  return best;
}

/* A rod of length L (m) leaving the origin at angle `angle` (rad, world
 * x-z plane) whose curvature falls linearly from k0 (1/m) at the clamp to
 * 0 at the tip, like a loaded cantilever's: n points, x y z rows. */
static void curved_rod(double L, double angle, double k0, double *p) {
  double th = angle, x = 0, z = 0, ds = L / (NP - 1);
  for (int i = 0; i < NP; i++) {
    p[3 * i] = x;
    p[3 * i + 1] = 0;
    p[3 * i + 2] = z;
    double k = k0 * (1 - (i + 0.5) / (NP - 1));
    th += k * ds;
    x += ds * cos(th);
    z += ds * sin(th);
  }
}

typedef struct {
  double rms, worst, tip; /* px: centres' distance to the truth, the tip's */
  int status;
  double length; /* px */
} trace_error;

/* Draw p with s, trace with o (a fresh tracer), compare with the drawn
 * centreline. */
static trace_error trace_drawn(const rod_render_style *s,
                               const rod_trace_options *o, const double *p,
                               int frames) {
  rod_renderer *r = rod_renderer_alloc(s);
  rod_image *img = rod_image_alloc(s->width, s->height);
  rod_tracer *t = rod_tracer_alloc(o, s->width, s->height);
  ck_assert(r && img && t);
  trace_error e = {0, 0, 0, 0, 0};
  double ss = 0;
  int count = 0;
  for (int f = 0; f < frames; f++) {
    ck_assert_int_eq(rod_render_frame(r, p, NP, (uint64_t)f, img), ROD_OK);
    const double *truth;
    int m = rod_render_centreline(r, &truth);
    rod_trace tr;
    ck_assert_int_eq(rod_tracer_run(t, img, NULL, &tr), ROD_OK);
    e.status |= tr.status;
    e.length = tr.length;
    for (int k = 0; k < tr.n; k++) {
      double d = polyline_distance(truth, m, tr.xy[2 * k], tr.xy[2 * k + 1]);
      ss += d * d;
      e.worst = fmax(e.worst, d);
      count++;
    }
    const double *tip = tr.xy + 2 * (tr.n - 1), *end = truth + 2 * (m - 1);
    e.tip = fmax(e.tip, hypot(tip[0] - end[0], tip[1] - end[1]));
  }
  e.rms = sqrt(ss / count);
  rod_tracer_free(t);
  rod_image_free(img);
  rod_renderer_free(r);
  return e;
}

static rod_render_style noisy_style(double ox, double oy) {
  rod_render_style s = rod_render_default();
  s.width = W;
  s.height = H;
  s.camera = rod_camera_model_from((rod_camera){1e-3, ox, oy});
  s.noise = 0.03;
  s.blur = 0.7;
  return s;
}

/* ---- tracing -----------------------------------------------------------*/

/* Right, left, hanging and curled past vertical; 3 % noise, blur 0.7 px,
 * a 3 px rod of contrast 0.7. The centres' scatter from the noise alone is
 * about noise / (contrast x edge slope) / sqrt 2 ~ 0.04 px, and the
 * crossings' linear interpolation across a blurred edge adds a few
 * hundredths: 0.15 px rms and 0.5 px at worst hold with margin, the tip
 * (one crossing along the axis) within 0.5 px. */
START_TEST(traces_any_orientation) {
  const struct {
    double angle, k0, ox, oy;
  } cases[] = {
      {0, 4, 20, 200},         /* right, bending up */
      {M_PI, -4, 300, 200},    /* left */
      {-M_PI / 2, 6, 160, 10}, /* hanging, swinging aside */
      {0, 22, 40, 200},        /* curled past vertical (3.3 rad of turn) */
      {0.7, -9, 30, 220},      /* diagonal */
  };
  const double *c = &cases[_i].angle;
  double p[3 * NP];
  curved_rod(0.2, c[0], c[1], p);
  rod_render_style s = noisy_style(c[2], c[3]);
  rod_trace_options o = {.origin = {c[2], c[3]}};
  trace_error e = trace_drawn(&s, &o, p, 4);
  ck_assert_int_eq(e.status, 0);
  ck_assert_msg(e.rms < 0.15 && e.worst < 0.5 && e.tip < 0.5,
                "case %d: rms %.3f worst %.3f tip %.3f px", _i, e.rms, e.worst,
                e.tip);
  ROD_ASSERT_NEAR(e.length, 200, 1.0); /* 0.2 m at 1 mm/px */
}
END_TEST

/* A thin (2 px), a bright, a fixed-threshold and an unevenly lit rod, and
 * a given start direction. */
START_TEST(traces_thin_bright_and_unevenly_lit_rods) {
  double p[3 * NP];
  curved_rod(0.2, 0.1, 5, p);
  rod_trace_options o = {.origin = {20, 180}};
  for (int v = 0; v < 5; v++) {
    rod_render_style s = noisy_style(20, 180);
    rod_trace_options ov = o;
    if (v == 0)
      s.rod_width = 2;
    if (v == 1) {
      s.background = 0.2;
      s.rod = 0.8;
      ov.polarity = ROD_POLARITY_BRIGHT;
    }
    if (v == 2)
      ov.threshold = 0.5;
    if (v == 3)
      s.gradient = 0.8; /* 0.51 to 1.19 of 0.85 across the image */
    if (v == 4) {
      ov.direction[0] = 1;
      ov.direction[1] = -0.1; /* image y grows downward */
    }
    trace_error e = trace_drawn(&s, &ov, p, 3);
    ck_assert_int_eq(e.status, 0);
    ck_assert_msg(e.rms < 0.15 && e.tip < 0.5, "variant %d: rms %.3f tip %.3f",
                  v, e.rms, e.tip);
  }
}
END_TEST

/* A rod that runs out of the image, no rod at all, and a rod hidden in the
 * middle: flagged, or cut short. */
START_TEST(failures_are_reported) {
  double p[3 * NP];
  rod_render_style s = noisy_style(200, 120);
  rod_trace_options o = {.origin = {200, 120}};
  curved_rod(0.2, 0, 0, p); /* 200 px from column 200 of 320 */
  trace_error e = trace_drawn(&s, &o, p, 1);
  ck_assert(e.status & ROD_TRACE_EDGE);
  /* nothing at the clamp */
  rod_image *img = rod_image_alloc(W, H);
  for (int k = 0; k < W * H; k++)
    img->lum[k] = 0.85f;
  rod_tracer *t = rod_tracer_alloc(&o, W, H);
  rod_trace tr;
  ck_assert_int_eq(rod_tracer_run(t, img, NULL, &tr), ROD_OK);
  ck_assert(tr.status & ROD_TRACE_NO_ROD);
  ck_assert_int_eq(tr.n, 1);
  /* a frame of another size */
  rod_image *small = rod_image_alloc(W / 2, H);
  ck_assert_int_eq(rod_tracer_run(t, small, NULL, &tr), ROD_EINVAL);
  rod_image_free(small);
  rod_tracer_free(t);
  /* occluded from 80 to 90 px along a straight rod: the trace ends at the
   * gap, so its length tells (the tracking flags it) */
  curved_rod(0.15, 0, 0, p);
  s = noisy_style(20, 120);
  rod_renderer *r = rod_renderer_alloc(&s);
  ck_assert_int_eq(rod_render_frame(r, p, NP, 0, img), ROD_OK);
  for (int y = 100; y < 140; y++)
    for (int x = 100; x < 110; x++)
      img->lum[y * W + x] = 0.85f;
  o.origin[0] = 20;
  t = rod_tracer_alloc(&o, W, H);
  ck_assert_int_eq(rod_tracer_run(t, img, NULL, &tr), ROD_OK);
  ROD_ASSERT_NEAR(tr.length, 80, 1.0);
  rod_tracer_free(t);
  rod_renderer_free(r);
  rod_image_free(img);
  /* options out of range */
  rod_trace_options bad = {.origin = {NAN, 0}};
  ck_assert_ptr_null(rod_tracer_alloc(&bad, W, H));
  bad = (rod_trace_options){.threshold = 1};
  ck_assert_ptr_null(rod_tracer_alloc(&bad, W, H));
}
END_TEST

/* Background subtraction: an image with a dark band across the rod's
 * path (something in the scene behind it) traces only with the empty
 * scene subtracted. */
START_TEST(background_is_subtracted) {
  double p[3 * NP];
  curved_rod(0.2, 0, 3, p);
  rod_render_style s = noisy_style(20, 180);
  s.noise = 0.01;
  rod_renderer *r = rod_renderer_alloc(&s);
  rod_image *img = rod_image_alloc(W, H), *bg = rod_image_alloc(W, H);
  ck_assert_int_eq(rod_render_frame(r, p, NP, 0, img), ROD_OK);
  for (int k = 0; k < W * H; k++) {
    int x = k % W;
    float band = x >= 100 && x < 140 ? -0.6f : 0.0f;
    bg->lum[k] = 0.85f + band;
    img->lum[k] += band;
  }
  rod_trace_options o = {.origin = {20, 180}};
  rod_tracer *t = rod_tracer_alloc(&o, W, H);
  rod_trace tr;
  ck_assert_int_eq(rod_tracer_run(t, img, bg, &tr), ROD_OK);
  ck_assert_int_eq(tr.status, 0);
  const double *truth;
  int m = rod_render_centreline(r, &truth);
  for (int k = 0; k < tr.n; k++)
    ck_assert_double_lt(
        polyline_distance(truth, m, tr.xy[2 * k], tr.xy[2 * k + 1]), 0.3);
  ROD_ASSERT_NEAR(tr.length, 200, 1.0);
  rod_tracer_free(t);
  rod_image_free(img);
  rod_image_free(bg);
  rod_renderer_free(r);
}
END_TEST

/* ---- rendering ---------------------------------------------------------*/

/* A horizontal rod 3 px wide and 100 px long covers 300 px^2, flat ends
 * included; the blur keeps the total; the end column is half covered. */
START_TEST(render_covers_the_rod_area) {
  rod_render_style s = noisy_style(50.3, 120.4);
  s.noise = 0;
  s.blur = 0;
  s.background = 1;
  s.rod = 0;
  double p[3 * NP];
  curved_rod(0.1, 0, 0, p);
  for (int b = 0; b < 2; b++) {
    s.blur = b ? 1.2 : 0;
    rod_renderer *r = rod_renderer_alloc(&s);
    rod_image *img = rod_image_alloc(W, H);
    ck_assert_int_eq(rod_render_frame(r, p, NP, 0, img), ROD_OK);
    double area = 0;
    for (int k = 0; k < W * H; k++)
      area += 1 - img->lum[k];
    ROD_ASSERT_NEAR(area, 300, 0.5);
    if (!b) /* the tip at column 150.3: pixel 150 is 0.8 covered */
      ROD_ASSERT_NEAR(1 - img->lum[120 * W + 150], 0.8, 1e-6);
    rod_renderer_free(r);
    rod_image_free(img);
  }
  s.rod_width = 0;
  ck_assert_ptr_null(rod_renderer_alloc(&s));
}
END_TEST

/* ---- cameras -----------------------------------------------------------*/

START_TEST(lens_undistorts_what_it_distorts) {
  const rod_lens l = {800, 790, 330, 236, -0.21, 0.06, 1.2e-3, -7e-4, 0.01};
  for (int y = 0; y <= 480; y += 40)
    for (int x = 0; x <= 640; x += 40) {
      double ud, vd, u, v;
      rod_lens_distort(&l, x, y, &ud, &vd);
      ck_assert_int_eq(rod_lens_undistort(&l, ud, vd, &u, &v), ROD_OK);
      ROD_ASSERT_NEAR(u, x, 1e-8);
      ROD_ASSERT_NEAR(v, y, 1e-8);
    }
  /* OpenCV's model at one point by hand: x = 0.1, y = -0.05 normalised */
  double ud, vd;
  rod_lens_distort(&l, 330 + 80, 236 - 39.5, &ud, &vd);
  double x = 0.1, y = -0.05, r2 = x * x + y * y;
  double rad = 1 - 0.21 * r2 + 0.06 * r2 * r2 + 0.01 * r2 * r2 * r2;
  ROD_ASSERT_NEAR(
      ud, 330 + 800 * (x * rad + 2 * 1.2e-3 * x * y - 7e-4 * (r2 + 2 * x * x)),
      1e-9);
  ROD_ASSERT_NEAR(
      vd, 236 + 790 * (y * rad + 1.2e-3 * (r2 + 2 * y * y) + 2 * -7e-4 * x * y),
      1e-9);
}
END_TEST

START_TEST(homography_from_four_or_more_points) {
  const double H0[9] = {1.1e-3, 2e-5, -0.07, -3e-5, -0.98e-3,
                        0.23,   4e-5, -2e-5, 1};
  double from[2 * 8], to[2 * 8];
  const double px[8][2] = {{10, 12},   {600, 30},  {620, 460}, {30, 470},
                           {300, 200}, {100, 400}, {500, 90},  {320, 240}};
  for (int k = 0; k < 8; k++) {
    from[2 * k] = px[k][0];
    from[2 * k + 1] = px[k][1];
    ck_assert(rod_homography_apply(H0, px[k][0], px[k][1], &to[2 * k],
                                   &to[2 * k + 1]));
  }
  for (int n = 4; n <= 8; n += 4) {
    double H[9];
    rod_error err;
    ck_assert_int_eq(rod_homography_fit(n, from, to, H, "points", &err),
                     ROD_OK);
    for (int k = 0; k < 9; k++)
      ROD_ASSERT_NEAR(H[k], H0[k], 1e-9 * (fabs(H0[k]) + 1e-3));
  }
  double Hi[9], back[2];
  ck_assert_int_eq(rod_homography_invert(H0, Hi), ROD_OK);
  ck_assert(rod_homography_apply(Hi, to[0], to[1], &back[0], &back[1]));
  ROD_ASSERT_NEAR(back[0], 10, 1e-9);
  ROD_ASSERT_NEAR(back[1], 12, 1e-9);
  /* three on a line, too few, and not finite */
  double line[8] = {0, 0, 1, 1, 2, 2, 5, 0}, H[9];
  rod_error err;
  ck_assert_int_eq(rod_homography_fit(4, line, to, H, "points", &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.key, "points");
  ck_assert_int_eq(rod_homography_fit(3, from, to, H, "points", &err),
                   ROD_EINVAL);
  from[3] = NAN;
  ck_assert_int_eq(rod_homography_fit(4, from, to, H, "points", &err),
                   ROD_EINVAL);
}
END_TEST

/* No tilt is the orthographic camera; a tilted one maps plane to pixel and
 * back, and four of its points give its plane homography. */
START_TEST(tilted_camera) {
  const rod_camera ortho = {8e-4, 64.5, 222.5};
  rod_camera_model m;
  ck_assert_int_eq(rod_camera_model_tilted(&ortho, 640, 480, 1.0, 0, 0, &m),
                   ROD_OK);
  double u, v, x, z;
  rod_camera_model_to_pixel(&m, 0.3, -0.1, &u, &v);
  ROD_ASSERT_NEAR(u, 64.5 + 0.3 / 8e-4, 1e-8);
  ROD_ASSERT_NEAR(v, 222.5 + 0.1 / 8e-4, 1e-8);
  ck_assert_int_eq(rod_camera_model_tilted(&ortho, 640, 480, 1.0,
                                           2 * M_PI / 180, 5 * M_PI / 180, &m),
                   ROD_OK);
  /* the world origin, 255 px left of the view's centre, moves by the
   * perspective: 0.2 m x sin 5 deg nearer a camera 1 m away scales its
   * offset by ~1.7 %, ~4 px */
  rod_camera_model_to_pixel(&m, 0, 0, &u, &v);
  ck_assert_double_gt(fabs(u - 64.5), 2);
  ck_assert_int_eq(rod_camera_model_to_world(&m, u, v, &x, &z), ROD_OK);
  ROD_ASSERT_NEAR(x, 0, 1e-12);
  ROD_ASSERT_NEAR(z, 0, 1e-12);
  rod_camera_model_to_pixel(&m, 0.3, -0.1, &u, &v);
  ck_assert_int_eq(rod_camera_model_to_world(&m, u, v, &x, &z), ROD_OK);
  ROD_ASSERT_NEAR(x, 0.3, 1e-12);
  ROD_ASSERT_NEAR(z, -0.1, 1e-12);
  double from[8], to[8] = {0, 0, 0.4, 0, 0.4, -0.2, 0, -0.2}, H[9];
  for (int k = 0; k < 4; k++)
    rod_camera_model_to_pixel(&m, to[2 * k], to[2 * k + 1], &from[2 * k],
                              &from[2 * k + 1]);
  ck_assert_int_eq(rod_homography_fit(4, from, to, H, "p", NULL), ROD_OK);
  for (int k = 0; k < 9; k++)
    ROD_ASSERT_NEAR(H[k], m.plane[k], 1e-9 * (fabs(m.plane[k]) + 1e-6));
}
END_TEST

static Suite *trace_suite(void) {
  Suite *s = suite_create("trace");
  TCase *tc = tcase_create("tracing");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, traces_any_orientation, 0, 5);
  tcase_add_test(tc, traces_thin_bright_and_unevenly_lit_rods);
  tcase_add_test(tc, failures_are_reported);
  tcase_add_test(tc, background_is_subtracted);
  suite_add_tcase(s, tc);
  TCase *rc = tcase_create("rendering");
  tcase_add_test(rc, render_covers_the_rod_area);
  suite_add_tcase(s, rc);
  TCase *cc = tcase_create("cameras");
  tcase_add_test(cc, lens_undistorts_what_it_distorts);
  tcase_add_test(cc, homography_from_four_or_more_points);
  tcase_add_test(cc, tilted_camera);
  suite_add_tcase(s, cc);
  return s;
}

ROD_TEST_MAIN(trace_suite)
