/* rodsim render: a synthetic video of a run, as a camera would record it
 * (docs/tracking.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io/runfile.h"
#include "rod/render.h"

static const char *help =
    "usage: rodsim render SCENARIO.ini RUN.h5 -o VIDEO [--set "
    "SECTION.KEY=VALUE]...\n"
    "         [--size WxH] [--scale M_PER_PX] [--origin PX,PY] [--fps F]\n"
    "         [--start T] [--end T] [--tilt DEG | --tilt DEG_X,DEG_Y]\n"
    "         [--distance M] [--lens FX,FY,CX,CY,K1,K2[,P1,P2[,K3]]]\n"
    "         [--rod-width PX] [--polarity dark|bright] [--noise SIGMA]\n"
    "         [--blur PX] [--gradient G] [--codec NAME] [--crf N] [--seed N]\n"
    "         [--quiet]\n\n"
    "Renders the rod of RUN.h5 (a `rodsim run` output of SCENARIO.ini) as a\n"
    "camera looking along +y at the x-z plane would record it, into VIDEO\n"
    "(the container from its extension: .mp4, .mkv, .avi, .mov).\n\n"
    "Frames at F per second (default: the run's sample rate) from T = start\n"
    "to end (default: the whole run), the rod's points interpolated\n"
    "linearly in time between samples. The image (default 640x480) frames\n"
    "the rod's whole motion unless --scale and --origin (the world origin's\n"
    "pixel) are given. The rod is --rod-width pixels wide (default: its\n"
    "diameter at that scale, at least 2), dark on a bright background\n"
    "(--polarity bright: the other way), with flat ends.\n\n"
    "Imperfections: --tilt turns the camera by DEG about the image's\n"
    "vertical axis (or DEG_X about the horizontal and DEG_Y about the\n"
    "vertical) around the view's centre, a pinhole --distance metres from\n"
    "the plane (default 1): a perspective view; --lens distorts as OpenCV's\n"
    "model with those coefficients; --gradient G lights the background\n"
    "unevenly (G relative, left to right); --blur a Gaussian of PX pixels;\n"
    "--noise Gaussian noise of SIGMA (fraction of full scale) per pixel,\n"
    "reproducible by --seed. Encoded by --codec (default libx264, else\n"
    "mpeg4) at --crf (libx264, default 18; 0 is lossless).\n\n"
    "Prints the `rodsim track` options that undo the camera on standard\n"
    "error.\n";

typedef struct {
  cli_common c;
  const char *run;
  int width, height;
  double scale, origin[2], fps, start, end, tilt[2], distance, rod_width;
  double noise, blur, gradient;
  bool has_scale, has_origin, has_lens, bright;
  rod_lens lens;
  rod_video_writer_options video;
  unsigned long long seed;
} render_args;

/* Comma-separated finite numbers, exactly min..max of them. */
static bool numbers(const char *name, const char *text, double *out, int min,
                    int max) {
  int n = cli_parse_numbers(text, out, max);
  if (n >= min)
    return true;
  if (min == max)
    cli_fail("%s: expected %d comma-separated number%s (got '%s')", name, min,
             min > 1 ? "s" : "", text);
  else
    cli_fail("%s: expected %d to %d comma-separated numbers (got '%s')", name,
             min, max, text);
  return false;
}

static bool parse_size(const char *text, int *w, int *h) {
  char *end;
  long a = strtol(text, &end, 10);
  if (*end == 'x') {
    char *end2;
    long b = strtol(end + 1, &end2, 10);
    if (!*end2 && a >= 16 && b >= 16 && a <= 8192 && b <= 8192 && a % 2 == 0 &&
        b % 2 == 0) {
      *w = (int)a;
      *h = (int)b;
      return true;
    }
  }
  cli_fail("--size: expected WxH, even numbers from 16 to 8192 (got '%s')",
           text);
  return false;
}

/* One option of ours at argv[*i]: 1 taken, 0 not ours, -1 bad. */
static int parse_option(render_args *a, int argc, char **argv, int *i) {
  const char *v;
  int r;
  double x[9];
  /* each number's range: > 0, >= 0, any, or |g| < 2 */
  enum { POSITIVE, NONNEGATIVE, ANY, GRADIENT };
  struct {
    const char *name;
    double *slot;
    int range;
  } scalars[] = {
      {"--scale", &a->scale, POSITIVE},
      {"--fps", &a->fps, POSITIVE},
      {"--start", &a->start, ANY},
      {"--end", &a->end, ANY},
      {"--distance", &a->distance, POSITIVE},
      {"--rod-width", &a->rod_width, POSITIVE},
      {"--noise", &a->noise, NONNEGATIVE},
      {"--blur", &a->blur, NONNEGATIVE},
      {"--gradient", &a->gradient, GRADIENT},
  };
  static const char *const ranges[] = {"must be > 0", "must be >= 0", "",
                                       "must be between -2 and 2"};
  for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; k++) {
    if ((r = cli_option(argc, argv, i, scalars[k].name, &v)) == 0)
      continue;
    if (r < 0 || !numbers(scalars[k].name, v, x, 1, 1))
      return -1;
    int range = scalars[k].range;
    if ((range == POSITIVE && !(x[0] > 0)) ||
        (range == NONNEGATIVE && !(x[0] >= 0)) ||
        (range == GRADIENT && !(fabs(x[0]) < 2))) {
      cli_fail("%s: %s (got %s)", scalars[k].name, ranges[range], v);
      return -1;
    }
    *scalars[k].slot = x[0];
    a->has_scale |= scalars[k].slot == &a->scale;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--size", &v)) != 0)
    return r > 0 && parse_size(v, &a->width, &a->height) ? 1 : -1;
  if ((r = cli_option(argc, argv, i, "--origin", &v)) != 0) {
    if (r < 0 || !numbers("--origin", v, a->origin, 2, 2))
      return -1;
    return a->has_origin = true;
  }
  if ((r = cli_option(argc, argv, i, "--tilt", &v)) != 0) {
    if (r < 0 || !numbers("--tilt", v, x, 1, 2))
      return -1;
    bool two = strchr(v, ',');
    a->tilt[0] = two ? x[0] * M_PI / 180 : 0;
    a->tilt[1] = (two ? x[1] : x[0]) * M_PI / 180;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--lens", &v)) != 0) {
    double l[9] = {0};
    if (r < 0 || !numbers("--lens", v, l, 6, 9))
      return -1;
    a->lens = (rod_lens){l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8]};
    return a->has_lens = true;
  }
  if ((r = cli_option(argc, argv, i, "--polarity", &v)) != 0) {
    if (r > 0 && (strcmp(v, "dark") == 0 || strcmp(v, "bright") == 0)) {
      a->bright = strcmp(v, "bright") == 0;
      return 1;
    }
    if (r > 0)
      cli_fail("--polarity: expected dark or bright (got '%s')", v);
    return -1;
  }
  if ((r = cli_option(argc, argv, i, "--codec", &v)) != 0) {
    if (r > 0)
      snprintf(a->video.codec, sizeof a->video.codec, "%s", v);
    return r;
  }
  if ((r = cli_option(argc, argv, i, "--crf", &v)) != 0) {
    if (r < 0 || !numbers("--crf", v, x, 1, 1))
      return -1;
    if (x[0] != floor(x[0]) || x[0] < 0 || x[0] > 51) {
      cli_fail("--crf: expected a whole number from 0 to 51 (got %s)", v);
      return -1;
    }
    a->video.crf = (int)x[0];
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--seed", &v)) != 0) {
    char *end;
    errno = 0;
    unsigned long long s = r > 0 ? strtoull(v, &end, 10) : 0;
    if (r > 0 && (end == v || *end || errno)) {
      cli_fail("--seed: expected a whole number (got '%s')", v);
      return -1;
    }
    a->seed = s;
    return r;
  }
  return 0;
}

static int parse(render_args *a, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    }
    int r = parse_option(a, argc, argv, &i);
    if (r == 0 && a->c.scenario && !a->run && argv[i][0] != '-') {
      a->run = argv[i];
      r = 1;
    }
    if (r == 0)
      r = cli_common_arg(&a->c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("render: unknown option '%s' (see rodsim render --help)",
               argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  const char *missing = !a->c.scenario ? "SCENARIO.ini"
                        : !a->run      ? "RUN.h5"
                        : !a->c.output ? "-o VIDEO"
                                       : NULL;
  if (missing) {
    cli_fail("render: missing %s (see rodsim render --help)", missing);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

/* The view that frames every position of the run with a 10 % margin. */
static void frame_motion(const rod_run_positions *run, render_args *a) {
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  const size_t n = (size_t)run->samples * (size_t)run->points;
  for (size_t k = 0; k < n; k++)
    for (int c = 0; c < 2; c++) {
      double v = run->position[3 * k + 2 * c]; /* x, then z */
      lo[c] = fmin(lo[c], v);
      hi[c] = fmax(hi[c], v);
    }
  if (!a->has_scale)
    a->scale = fmax(fmax((hi[0] - lo[0]) / (0.8 * a->width),
                         (hi[1] - lo[1]) / (0.8 * a->height)),
                    1e-9);
  if (!a->has_origin) {
    a->origin[0] = 0.5 * (a->width - 1) - 0.5 * (lo[0] + hi[0]) / a->scale;
    a->origin[1] = 0.5 * (a->height - 1) + 0.5 * (lo[1] + hi[1]) / a->scale;
  }
}

/* The median interval of the run's samples: its frame rate. */
static double sample_rate(const rod_run_positions *run) {
  if (run->samples < 2)
    return 1000;
  double *dt = malloc((size_t)(run->samples - 1) * sizeof *dt);
  if (!dt)
    return 1000;
  for (int i = 1; i < run->samples; i++)
    dt[i - 1] = run->t[i] - run->t[i - 1];
  /* insertion of a median without sorting all: nth by partial sort */
  int m = run->samples - 1;
  for (int i = 1; i < m; i++)
    for (int j = i; j > 0 && dt[j - 1] > dt[j]; j--) {
      double tmp = dt[j];
      dt[j] = dt[j - 1];
      dt[j - 1] = tmp;
    }
  double rate = 1.0 / dt[m / 2];
  free(dt);
  return rate;
}

/* What `rodsim track` needs to undo this camera. */
static void print_track_options(const render_args *a, const rod_render_style *s,
                                const rod_scenario *sc) {
  double u, v;
  rod_camera_model_to_pixel(&s->camera, sc->base.position[0],
                            sc->base.position[2], &u, &v);
  fprintf(stderr, "  track with: rodsim track %s --origin %.3f,%.3f",
          a->c.output, u, v);
  if (!s->camera.has_plane)
    fprintf(stderr, " --scale %.9g", a->scale);
  /* a tilted view: four plane points near the corners of the view, as a
   * user would mark them on a calibration target */
  const double corner[4][2] = {{0.1, 0.1}, {0.9, 0.1}, {0.9, 0.9}, {0.1, 0.9}};
  rod_camera ortho = {a->scale, a->origin[0], a->origin[1]};
  for (int k = 0; s->camera.has_plane && k < 4; k++) {
    double x, z, pu, pv;
    rod_camera_to_world(&ortho, corner[k][0] * (a->width - 1),
                        corner[k][1] * (a->height - 1), &x, &z);
    rod_camera_model_to_pixel(&s->camera, x, z, &pu, &pv);
    fprintf(stderr, " --plane-point %.4f,%.4f,%.9g,%.9g", pu, pv, x, z);
  }
  if (a->has_lens)
    fprintf(stderr, " --lens %.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g",
            a->lens.fx, a->lens.fy, a->lens.cx, a->lens.cy, a->lens.k1,
            a->lens.k2, a->lens.p1, a->lens.p2, a->lens.k3);
  fputc('\n', stderr);
}

static int style_of(render_args *a, const rod_scenario *sc,
                    rod_render_style *s) {
  *s = rod_render_default();
  s->width = a->width;
  s->height = a->height;
  rod_camera ortho = {a->scale, a->origin[0], a->origin[1]};
  if (a->tilt[0] != 0 || a->tilt[1] != 0) {
    if (rod_camera_model_tilted(&ortho, a->width, a->height, a->distance,
                                a->tilt[0], a->tilt[1], &s->camera) != ROD_OK) {
      cli_fail("--tilt: must be within +-90 degrees");
      return CLI_BAD_INPUT;
    }
  } else {
    s->camera = rod_camera_model_from(ortho);
  }
  s->camera.has_lens = a->has_lens;
  s->camera.lens = a->lens;
  s->rod_width =
      a->rod_width > 0 ? a->rod_width : fmax(sc->rod.diameter / a->scale, 2.0);
  if (a->bright) {
    s->background = 0.15;
    s->rod = 0.85;
  }
  s->noise = a->noise;
  s->blur = a->blur;
  s->gradient = a->gradient;
  s->seed = a->seed;
  return CLI_OK;
}

static void progress(long done, long total, void *user) {
  (void)user;
  if (done % 25 == 0 || done == total)
    fprintf(stderr, "\r  frame %ld/%ld (%.0f%%)   ", done, total,
            100.0 * done / total);
}

int cmd_render(int argc, char **argv) {
  render_args a = {.width = 640,
                   .height = 480,
                   .distance = 1.0,
                   .end = -INFINITY,
                   .seed = 1,
                   .video = rod_video_writer_default()};
  int rc = parse(&a, argc, argv);
  if (rc != CLI_OK)
    return rc < 0 ? CLI_OK : rc;
  const char *video = a.c.output;
  a.c.output = NULL; /* -o names the video, not output.file */
  rod_scenario sc;
  if ((rc = cli_load(&a.c, &sc)) != CLI_OK)
    return rc;
  a.c.output = video;
  rod_error err = {{0}, {0}, {0}, 0};
  rod_run_positions *run;
  if (rod_run_positions_read(a.run, &run, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  frame_motion(run, &a);
  rod_render_video_options o = {.video = a.video,
                                .start = a.start,
                                .end = isfinite(a.end) ? a.end : -INFINITY};
  o.video.fps = a.fps > 0 ? a.fps : sample_rate(run);
  if (o.end == -INFINITY)
    o.end = o.start - 1; /* the whole run */
  if ((rc = style_of(&a, &sc, &o.style)) != CLI_OK) {
    rod_run_positions_free(run);
    return rc;
  }
  if (!a.c.quiet && isatty(STDERR_FILENO))
    o.progress = progress;
  long frames;
  int st = rod_render_video(run->t, run->samples, run->position, run->points,
                            &o, video, &frames, &err);
  rod_run_positions_free(run);
  if (o.progress)
    fputs("\r\033[K", stderr);
  if (st != ROD_OK) {
    cli_print_error(&err);
    return st == ROD_ENOMEM ? CLI_FAILED : CLI_BAD_INPUT;
  }
  if (!a.c.quiet) {
    fprintf(stderr,
            "render: %s: %ld frames %dx%d at %g fps (%s), rod %.3g px wide, "
            "%.6g m/px\n",
            video, frames, a.width, a.height, o.video.fps,
            o.video.codec[0] ? o.video.codec : rod_video_default_codec(),
            o.style.rod_width, a.scale);
    print_track_options(&a, &o.style, &sc);
  }
  return CLI_OK;
}
