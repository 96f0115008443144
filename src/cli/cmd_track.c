/* rodsim track: the rod in a directory of PNG frames or a video file, as a
 * tip CSV and a shape file (docs/tracking.md, docs/files.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "io/writers.h"
#include "rod/track.h"

static const char *help =
    "usage: rodsim track FRAMES_DIR|VIDEO --origin PX,PY [--fps F] [--t0 T]\n"
    "         [--scale METRES_PER_PIXEL | --scale-points PX1,PY1,PX2,PY2,M |\n"
    "          --rod-length M] [--plane-point PX,PY,X,Z]... [--lens "
    "FX,FY,CX,CY,K1,K2[,P1,P2[,K3]]]\n"
    "         [--method rightmost|centreline] [--direction DX,DY]\n"
    "         [--polarity dark|bright] [--threshold FRACTION]\n"
    "         [--background FRAME|median|IMAGE.png] [--points K]\n"
    "         [--length-tolerance FRACTION] [-o TIP.csv] [--shape SHAPE.h5]\n"
    "         [--force] [--quiet]\n\n"
    "Measures the rod in every frame: the *.png files of FRAMES_DIR in\n"
    "byte-wise name order, or a video file FFmpeg reads (mp4, avi, mkv,\n"
    "mov, or an image sequence such as img%04d.png). Frame i is at\n"
    "t = T + i / F (T default 0); a video's frames at T plus their own\n"
    "time stamps unless --fps is given. Writes the tip CSV (default:\n"
    "standard output).\n\n"
    "Methods:\n"
    "  rightmost   (default for FRAMES_DIR) the tip is the rightmost dark\n"
    "              pixel, the topmost of that column; dark is below FRACTION\n"
    "              of full scale (default: Otsu's threshold of each frame).\n"
    "              Columns t,x,z; a frame whose tip pixel lies on the\n"
    "              image's border is flagged (valid = 0, the column\n"
    "              added), counted on standard error.\n"
    "  centreline  (default for a video) the rod traced from the clamp at\n"
    "              (PX, PY) in any direction (--direction: its direction at\n"
    "              the clamp, image axes, x right and y down; default: found\n"
    "              in the first frame), centres to subpixel precision,\n"
    "              resampled to K points (default 50) at equal arclength;\n"
    "              the tip is its end. A frame where nothing is at the\n"
    "              clamp, the rod runs into the image's border or its\n"
    "              length differs from the rod's (--rod-length, else the\n"
    "              first frames') by more than FRACTION (default 0.02) is\n"
    "              flagged: valid = 0 in the columns t,x,z,valid, counted on\n"
    "              standard error. --shape writes every frame's K points\n"
    "              (and makes centreline the default for FRAMES_DIR too).\n"
    "              --background subtracts a frame of the input, a PNG of\n"
    "              the empty scene, or the median of frames spread over\n"
    "              the input.\n\n"
    "Camera: x = (px - PX) * METRES_PER_PIXEL, z = (PY - py) * ... (image\n"
    "right +x, up +z), the scale given, or from two points M metres apart,\n"
    "or from the rod's length in the first frames. Four or more\n"
    "--plane-point pixel/world pairs give a homography (perspective view of\n"
    "the plane) instead; --lens removes OpenCV-model lens distortion first.\n\n"
    "-o and --shape replace only files rodsim wrote (or, with --force, any\n"
    "regular file), never the input (docs/files.md).\n\n"
    "Exit status: 0 written; 1 every frame is flagged (written); 2 bad\n"
    "input.\n";

/* One finite number filling text; prints the error otherwise. */
static bool parse_number(const char *option, const char *text, double *v) {
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  if (end == text || *end || errno == ERANGE || !isfinite(*v)) {
    cli_fail("%s: expected a number (got '%s')", option, text);
    return false;
  }
  return true;
}

/* Exactly `count` numbers (or one of the counts in counts[], 0-ended). */
static bool parse_tuple(const char *option, const char *text, double *out,
                        const int *counts, const char *form) {
  double v[16];
  int n = cli_parse_numbers(text, v, 16);
  for (const int *c = counts; n > 0 && *c; c++)
    if (n == *c) {
      memcpy(out, v, (size_t)n * sizeof *v);
      return true;
    }
  cli_fail("%s: expected %s (got '%s')", option, form, text);
  return false;
}

enum { MAX_PLANE_POINTS = 64 };

typedef struct {
  const char *input, *output, *shape;
  bool has_fps, has_scale, has_origin, quiet, force;
  double scale_points[5];
  bool has_scale_points;
  int nplane;
  double plane_from[2 * MAX_PLANE_POINTS], plane_to[2 * MAX_PLANE_POINTS];
  rod_track_options o;
} track_args;

static bool parse_origin(const char *text, rod_camera *cam) {
  static const int two[] = {2, 0};
  double v[2];
  if (!parse_tuple("--origin", text, v, two, "PX,PY, two numbers"))
    return false;
  cam->origin_px = v[0];
  cam->origin_py = v[1];
  return true;
}

static bool parse_lens(const char *text, rod_track_options *o) {
  static const int counts[] = {6, 8, 9, 0};
  double v[9] = {0};
  if (!parse_tuple("--lens", text, v, counts,
                   "FX,FY,CX,CY then K1,K2 or K1,K2,P1,P2 or K1,K2,P1,P2,K3"))
    return false;
  o->has_lens = true;
  o->lens = (rod_lens){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  return true;
}

static bool parse_choice(const char *option, const char *text, const char *a,
                         const char *b, int *which) {
  if (strcmp(text, a) == 0 || strcmp(text, b) == 0) {
    *which = strcmp(text, b) == 0;
    return true;
  }
  cli_fail("%s: expected %s or %s (got '%s')", option, a, b, text);
  return false;
}

static bool parse_background(const char *text, rod_track_options *o) {
  char *end;
  errno = 0;
  long k = strtol(text, &end, 10);
  if (strcmp(text, "median") == 0) {
    o->background = ROD_BACKGROUND_MEDIAN;
  } else if (end != text && !*end && !errno) {
    if (k < 0) {
      cli_fail("--background: frame index must be >= 0 (got %s)", text);
      return false;
    }
    o->background = ROD_BACKGROUND_FRAME;
    o->background_frame = k;
  } else {
    o->background = ROD_BACKGROUND_IMAGE;
    o->background_path = text;
  }
  return true;
}

/* The options of the centreline and the camera; 0 if argv[*i] is none of
 * them. */
static int parse_more(track_args *a, int argc, char **argv, int *i) {
  const char *v;
  int r, which;
  static const int four[] = {4, 0}, five[] = {5, 0}, two[] = {2, 0};
  if ((r = cli_option(argc, argv, i, "--scale-points", &v)) != 0)
    return r > 0 && (a->has_scale_points =
                         parse_tuple("--scale-points", v, a->scale_points, five,
                                     "PX1,PY1,PX2,PY2,METRES"))
               ? 1
               : -1;
  if ((r = cli_option(argc, argv, i, "--rod-length", &v)) != 0)
    return r > 0 && parse_number("--rod-length", v, &a->o.rod_length) ? 1 : -1;
  if ((r = cli_option(argc, argv, i, "--plane-point", &v)) != 0) {
    double p[4];
    if (r < 0 || !parse_tuple("--plane-point", v, p, four, "PX,PY,X,Z"))
      return -1;
    if (a->nplane == MAX_PLANE_POINTS) {
      cli_fail("--plane-point: at most %d points", MAX_PLANE_POINTS);
      return -1;
    }
    memcpy(a->plane_from + 2 * a->nplane, p, 2 * sizeof *p);
    memcpy(a->plane_to + 2 * a->nplane, p + 2, 2 * sizeof *p);
    a->nplane++;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--lens", &v)) != 0)
    return r > 0 && parse_lens(v, &a->o) ? 1 : -1;
  if ((r = cli_option(argc, argv, i, "--method", &v)) != 0) {
    if (r < 0 ||
        !parse_choice("--method", v, "rightmost", "centreline", &which))
      return -1;
    a->o.method = which ? ROD_TRACK_CENTRELINE : ROD_TRACK_RIGHTMOST;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--direction", &v)) != 0)
    return r > 0 && parse_tuple("--direction", v, a->o.direction, two,
                                "DX,DY, two numbers")
               ? 1
               : -1;
  if ((r = cli_option(argc, argv, i, "--polarity", &v)) != 0) {
    if (r < 0 || !parse_choice("--polarity", v, "dark", "bright", &which))
      return -1;
    a->o.polarity = which ? ROD_POLARITY_BRIGHT : ROD_POLARITY_DARK;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--background", &v)) != 0)
    return r > 0 && parse_background(v, &a->o) ? 1 : -1;
  if ((r = cli_option(argc, argv, i, "--points", &v)) != 0) {
    double k;
    if (r < 0 || !parse_number("--points", v, &k))
      return -1;
    if (k != floor(k) || k < 2 || k > 100000) {
      cli_fail("--points: expected a whole number from 2 to 100000 (got %s)",
               v);
      return -1;
    }
    a->o.points = (int)k;
    return 1;
  }
  if ((r = cli_option(argc, argv, i, "--length-tolerance", &v)) != 0)
    return r > 0 &&
                   parse_number("--length-tolerance", v, &a->o.length_tolerance)
               ? 1
               : -1;
  if ((r = cli_option(argc, argv, i, "--shape", &v)) != 0) {
    a->shape = r > 0 ? v : NULL;
    return r;
  }
  if (strcmp(argv[*i], "--quiet") == 0 || strcmp(argv[*i], "-q") == 0)
    return a->quiet = true;
  if (strcmp(argv[*i], "--force") == 0)
    return a->force = true;
  return 0;
}

/* Parse one argument (and its value); false on a usage error (printed). */
static bool parse_arg(track_args *a, int argc, char **argv, int *i) {
  const char *v;
  int r;
  if ((r = cli_option(argc, argv, i, "--fps", &v)) != 0) {
    a->has_fps = r > 0 && parse_number("--fps", v, &a->o.fps);
    return a->has_fps;
  }
  if ((r = cli_option(argc, argv, i, "--scale", &v)) != 0) {
    a->has_scale = r > 0 && parse_number("--scale", v, &a->o.camera.scale);
    return a->has_scale;
  }
  if ((r = cli_option(argc, argv, i, "--origin", &v)) != 0) {
    a->has_origin = r > 0 && parse_origin(v, &a->o.camera);
    return a->has_origin;
  }
  if ((r = cli_option(argc, argv, i, "--t0", &v)) != 0)
    return r > 0 && parse_number("--t0", v, &a->o.t0);
  if ((r = cli_option(argc, argv, i, "--threshold", &v)) != 0) {
    if (r < 0 || !parse_number("--threshold", v, &a->o.threshold))
      return false;
    /* 0 selects Otsu in the library, but on the command line that is the
     * default, so an explicit 0 is a mistake */
    if (a->o.threshold > 0 && a->o.threshold < 1)
      return true;
    cli_fail("--threshold: must be between 0 and 1 (got %s)", v);
    return false;
  }
  if ((r = cli_option(argc, argv, i, "-o", &v)) != 0 ||
      (r = cli_option(argc, argv, i, "--output", &v)) != 0) {
    a->output = r > 0 ? v : NULL;
    return r > 0;
  }
  if ((r = parse_more(a, argc, argv, i)) != 0)
    return r > 0;
  if (argv[*i][0] != '-' && !a->input) {
    a->input = argv[*i];
    return true;
  }
  cli_fail("track: unexpected argument '%s' (see rodsim track --help)",
           argv[*i]);
  return false;
}

static bool is_directory(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool complete(track_args *a) {
  bool dir = a->input && is_directory(a->input);
  bool other_scale =
      a->nplane > 0 || a->has_scale_points || a->o.rod_length > 0;
  const char *missing = !a->input                       ? "FRAMES_DIR"
                        : dir && !a->has_fps            ? "--fps"
                        : !a->has_scale && !other_scale ? "--scale"
                        : !a->has_origin                ? "--origin"
                                                        : NULL;
  if (missing) {
    cli_fail("track: missing %s (see rodsim track --help)", missing);
    return false;
  }
  a->o.timestamps = !a->has_fps;
  if (a->nplane > 0 && a->nplane < 4) {
    cli_fail("--plane-point: a homography needs 4 or more points (got %d)",
             a->nplane);
    return false;
  }
  if ((a->has_scale || a->has_scale_points) && a->nplane > 0) {
    cli_fail("--scale: the plane's points give the scale; give one or the "
             "other");
    return false;
  }
  if (a->shape && a->o.method == ROD_TRACK_RIGHTMOST) {
    cli_fail("--shape: only the centreline method measures the shape");
    return false;
  }
  if (a->shape) /* the shape is the centreline's (auto: rightmost for PNGs) */
    a->o.method = ROD_TRACK_CENTRELINE;
  return true;
}

/* The camera's scale or plane from the point options. */
static bool camera_from_points(track_args *a) {
  rod_error err = {{0}, {0}, {0}, 0};
  if (a->nplane >= 4) {
    double from[2 * MAX_PLANE_POINTS];
    memcpy(from, a->plane_from, 2 * (size_t)a->nplane * sizeof *from);
    for (int k = 0; a->o.has_lens && k < a->nplane; k++)
      if (rod_lens_undistort(&a->o.lens, a->plane_from[2 * k],
                             a->plane_from[2 * k + 1], &from[2 * k],
                             &from[2 * k + 1]) != ROD_OK) {
        cli_fail("--plane-point: the lens does not undistort point %d", k + 1);
        return false;
      }
    if (rod_homography_fit(a->nplane, from, a->plane_to, a->o.plane,
                           "--plane-point", &err) != ROD_OK) {
      cli_print_error(&err);
      return false;
    }
    a->o.has_plane = true;
  }
  if (a->has_scale_points) {
    const double *p = a->scale_points;
    double u[4] = {p[0], p[1], p[2], p[3]};
    for (int k = 0; a->o.has_lens && k < 2; k++)
      if (rod_lens_undistort(&a->o.lens, p[2 * k], p[2 * k + 1], &u[2 * k],
                             &u[2 * k + 1]) != ROD_OK) {
        cli_fail("--scale-points: the lens does not undistort point %d", k + 1);
        return false;
      }
    double px = hypot(u[2] - u[0], u[3] - u[1]);
    if (!(px > 0) || !(p[4] > 0)) {
      cli_fail("--scale-points: needs two distinct points and a distance > 0");
      return false;
    }
    a->o.camera.scale = p[4] / px;
  }
  return true;
}

/* ---- progress and summary ----------------------------------------------*/

typedef struct {
  struct timespec start, last;
} progress_state;

static double seconds_since(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (double)(b.tv_sec - a->tv_sec) +
         1e-9 * (double)(b.tv_nsec - a->tv_nsec);
}

/* A bar of the frames done, their rate and the time left, redrawn at
 * most five times a second (and at the last frame); a count and a rate
 * when the video does not say how many frames it holds. */
static void progress(long done, long expected, void *user) {
  progress_state *p = user;
  if (seconds_since(&p->last) < 0.2 && done != expected)
    return;
  clock_gettime(CLOCK_MONOTONIC, &p->last);
  double rate = done / fmax(seconds_since(&p->start), 1e-9);
  if (expected > 0 && done <= expected) {
    enum { BAR = 30 };
    char bar[BAR + 1];
    int full = (int)(BAR * done / expected);
    for (int k = 0; k < BAR; k++)
      bar[k] = k < full ? '#' : '-';
    bar[BAR] = '\0';
    fprintf(stderr,
            "\r  [%s] %3.0f%%  frame %ld/%ld, %.0f frames/s, %.0f s left ", bar,
            100.0 * done / expected, done, expected, rate,
            (expected - done) / fmax(rate, 1e-9));
  } else
    fprintf(stderr, "\r  frame %ld, %.0f frames/s   ", done, rate);
}

static void summary(const track_args *a, const rod_track_result *r,
                    bool quiet) {
  if (!quiet) {
    fprintf(stderr, "track: %s: %ld frames", a->input, r->frames);
    if (r->is_video)
      fprintf(stderr, " (%dx%d %s, times from %s)", r->video.width,
              r->video.height, r->video.codec,
              a->o.timestamps ? "the video" : "--fps");
    fprintf(stderr, " in %.2f s, %.0f frames/s decoded and tracked\n",
            r->seconds, r->frames / fmax(r->seconds, 1e-9));
    if (r->frames > 0) {
      fprintf(stderr,
              "  decoding %.3g s (%.0f frames/s), tracking %.3g s (%.0f "
              "frames/s)",
              r->decode_seconds, r->frames / fmax(r->decode_seconds, 1e-9),
              r->trace_seconds, r->frames / fmax(r->trace_seconds, 1e-9));
      if (r->cpu_seconds > 0)
        fprintf(stderr,
                "; %.3g CPU s on all threads, %.0f frames per CPU second",
                r->cpu_seconds, r->frames / r->cpu_seconds);
      fputc('\n', stderr);
    }
    if (r->method == ROD_TRACK_CENTRELINE) {
      fprintf(stderr, "  rod %.2f px wide", r->rod_width);
      if (r->reference_length > 0)
        fprintf(stderr, ", length %.6g m", r->reference_length);
      if (r->scale > 0 && !(a->o.camera.scale > 0))
        fprintf(stderr, ", scale %.6g m/px from the rod's length", r->scale);
      fputc('\n', stderr);
    }
  }
  if (r->flagged == 0)
    return;
  static const char *const why[ROD_TRACK_REASONS] = {
      "nothing at the clamp", "the rod runs into the image's border",
      "traced length off", "outside the camera's plane"};
  fprintf(stderr, "track: %s: %ld of %ld frames flagged (valid = 0):", a->input,
          r->flagged, r->frames);
  for (int k = 0, first = 1; k < ROD_TRACK_REASONS; k++)
    if (r->flag_counts[k] > 0) {
      fprintf(stderr, "%s %ld %s", first ? "" : ",", r->flag_counts[k], why[k]);
      if (k == 2)
        fprintf(stderr, " by more than %.3g %%",
                100 *
                    (a->o.length_tolerance > 0 ? a->o.length_tolerance : 0.02));
      first = 0;
    }
  fputc('\n', stderr);
}

/* A line saying how pixels became metres, for the shape file. */
static void describe_camera(const track_args *a, const rod_track_result *r,
                            char *buf, size_t size) {
  const rod_track_options *o = &a->o;
  int n;
  if (o->has_plane)
    n = snprintf(buf, size,
                 "plane homography from %d points, H = [%.9g %.9g %.9g; %.9g "
                 "%.9g %.9g; %.9g %.9g %.9g] (pixels to x, z in m)",
                 a->nplane, o->plane[0], o->plane[1], o->plane[2], o->plane[3],
                 o->plane[4], o->plane[5], o->plane[6], o->plane[7],
                 o->plane[8]);
  else
    n = snprintf(buf, size, "orthographic, %.9g m/px, origin (%.6g, %.6g) px",
                 r->scale, o->camera.origin_px, o->camera.origin_py);
  if (o->has_lens && n >= 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n,
             "; lens fx %.9g fy %.9g cx %.9g cy %.9g k1 %.9g k2 %.9g p1 "
             "%.9g p2 %.9g k3 %.9g",
             o->lens.fx, o->lens.fy, o->lens.cx, o->lens.cy, o->lens.k1,
             o->lens.k2, o->lens.p1, o->lens.p2, o->lens.k3);
}

/* The rules of -o (text) or --shape (HDF5): files rodsim wrote, or any
 * with --force; never the input. */
static rod_out_rules output_rules(const track_args *a, bool shape) {
  rod_out_rules rules = {.kind = shape ? ROD_OUT_HDF5 : ROD_OUT_TEXT,
                         .key = shape ? "--shape" : "-o",
                         .force = a->force};
  rod_out_add_input(&rules, a->input);
  if (a->o.background == ROD_BACKGROUND_IMAGE)
    rod_out_add_input(&rules, a->o.background_path);
  return rules;
}

/* Refuse the outputs before tracking (the writes check again). */
static int check_outputs(const track_args *a, rod_error *err) {
  int st = ROD_OK;
  if (a->shape) {
    rod_out_rules rules = output_rules(a, true);
    st = rod_outfile_check(a->shape, &rules, err);
  }
  if (st == ROD_OK && a->output && strcmp(a->output, "-") != 0) {
    rod_out_rules rules = output_rules(a, false);
    st = rod_outfile_check(a->output, &rules, err);
  }
  return st;
}

static int write_outputs(const track_args *a, const rod_track_result *r,
                         rod_error *err) {
  if (a->shape) {
    char camera[600];
    describe_camera(a, r, camera, sizeof camera);
    rod_out_rules rules = output_rules(a, true);
    int st =
        rod_shape_write_with(a->shape, r->shape, a->input, camera, &rules, err);
    if (st != ROD_OK)
      return st;
  }
  bool to_stdout = !a->output || strcmp(a->output, "-") == 0;
  rod_out_rules rules = output_rules(a, false);
  return to_stdout ? rod_tip_write_stream(stdout, "stdout", r->tip, err)
                   : rod_tip_write_with(a->output, r->tip, &rules, err);
}

/* The library names the option a problem is with ("fps"); on the command
 * line it is "--fps". Frame keys ("frame 12") stay. */
static void option_key(rod_error *err) {
  static const char *const options[] = {"fps", "background", "rod-length",
                                        "plane"};
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
    if (strcmp(err->key, options[k]) == 0) {
      char key[sizeof err->key];
      snprintf(key, sizeof key, "--%s", options[k]);
      memcpy(err->key, key, sizeof key);
      return;
    }
}

int cmd_track(int argc, char **argv) {
  track_args a = {.o = rod_track_default()};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return CLI_OK;
    }
    if (!parse_arg(&a, argc, argv, &i))
      return CLI_BAD_INPUT;
  }
  if (!complete(&a) || !camera_from_points(&a))
    return CLI_BAD_INPUT;
  rod_error err = {{0}, {0}, {0}, 0};
  if (rod_track_check(&a.o, &err) != ROD_OK) {
    cli_fail("--%s: %s", err.key, err.message);
    return CLI_BAD_INPUT;
  }
  if (check_outputs(&a, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  progress_state ps;
  clock_gettime(CLOCK_MONOTONIC, &ps.start);
  ps.last = ps.start;
  bool show = !a.quiet && isatty(STDERR_FILENO);
  if (show) {
    a.o.progress = progress;
    a.o.progress_user = &ps;
  }
  rod_track_result r;
  int st = rod_track(a.input, &a.o, &r, &err);
  if (show)
    fputs("\r\033[K", stderr);
  if (st == ROD_OK) {
    /* a PNG directory by the rightmost rule prints nothing, as always,
     * unless frames are flagged */
    summary(&a, &r,
            a.quiet || (!r.is_video && r.method == ROD_TRACK_RIGHTMOST));
    st = write_outputs(&a, &r, &err);
  }
  if (st != ROD_OK) {
    option_key(&err);
    cli_print_error(&err);
    return st == ROD_ENOMEM ? CLI_FAILED : CLI_BAD_INPUT;
  }
  bool none = r.frames > 0 && r.flagged == r.frames;
  rod_track_result_free(&r);
  if (none) {
    cli_fail("%s: every frame is flagged: no valid measurement", a.input);
    return CLI_FAILED;
  }
  return CLI_OK;
}
