/* rodsim track: the rod tip in a directory of PNG frames, as a tip CSV
 * (docs/commands.md, docs/files.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rod/track.h"

static const char *help =
    "usage: rodsim track FRAMES_DIR --fps F --scale METRES_PER_PIXEL "
    "--origin PX,PY\n"
    "                    [--t0 T] [--threshold FRACTION] [-o TIP.csv]\n\n"
    "Finds the rod tip in every *.png frame of FRAMES_DIR, taken in byte-wise\n"
    "file-name order (frame i at t = T + i / F, T default 0), and writes the\n"
    "tip CSV t,x,z in metres (default: standard output).\n\n"
    "The rod is dark on a bright background. A pixel is dark when its\n"
    "luminance is below FRACTION of full scale (default: Otsu's threshold of\n"
    "each frame). The tip is the rightmost dark pixel, the topmost of several\n"
    "in that column; with (px, py) its column and row (rows grow downward):\n"
    "  x = (px - PX) * METRES_PER_PIXEL,  z = (PY - py) * METRES_PER_PIXEL\n"
    "Frames may be 8 or 16 bit, gray, RGB or palette, with or without alpha\n"
    "(alpha is ignored), and must all have the same size.\n";

/* Match "--name VALUE" or "--name=VALUE" at argv[*i]: 1 and *value set if
 * it is this option, 0 if not, -1 (printed) if the value is missing. */
static int option_value(int argc, char **argv, int *i, const char *name,
                        const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
    return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (*i + 1 >= argc) {
    cli_fail("%s: missing value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

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

static bool parse_origin(const char *text, rod_camera *cam) {
  char *end;
  cam->origin_px = strtod(text, &end);
  if (end != text && *end == ',') {
    const char *second = end + 1;
    cam->origin_py = strtod(second, &end);
    if (end != second && !*end && isfinite(cam->origin_px) &&
        isfinite(cam->origin_py))
      return true;
  }
  cli_fail("--origin: expected PX,PY, two numbers (got '%s')", text);
  return false;
}

typedef struct {
  const char *dir, *output;
  bool has_fps, has_scale, has_origin;
  rod_track_options o;
} track_args;

/* Parse one argument (and its value); false on a usage error (printed). */
static bool parse_arg(track_args *a, int argc, char **argv, int *i) {
  const char *v;
  int r;
  if ((r = option_value(argc, argv, i, "--fps", &v)) != 0) {
    a->has_fps = r > 0 && parse_number("--fps", v, &a->o.fps);
    return a->has_fps;
  }
  if ((r = option_value(argc, argv, i, "--scale", &v)) != 0) {
    a->has_scale = r > 0 && parse_number("--scale", v, &a->o.camera.scale);
    return a->has_scale;
  }
  if ((r = option_value(argc, argv, i, "--origin", &v)) != 0) {
    a->has_origin = r > 0 && parse_origin(v, &a->o.camera);
    return a->has_origin;
  }
  if ((r = option_value(argc, argv, i, "--t0", &v)) != 0)
    return r > 0 && parse_number("--t0", v, &a->o.t0);
  if ((r = option_value(argc, argv, i, "--threshold", &v)) != 0) {
    if (r < 0 || !parse_number("--threshold", v, &a->o.threshold))
      return false;
    /* 0 selects Otsu in the library, but on the command line that is the
     * default, so an explicit 0 is a mistake */
    if (a->o.threshold > 0 && a->o.threshold < 1)
      return true;
    cli_fail("--threshold: must be between 0 and 1 (got %s)", v);
    return false;
  }
  if ((r = option_value(argc, argv, i, "-o", &v)) != 0 ||
      (r = option_value(argc, argv, i, "--output", &v)) != 0) {
    a->output = r > 0 ? v : NULL;
    return r > 0;
  }
  if (argv[*i][0] != '-' && !a->dir) {
    a->dir = argv[*i];
    return true;
  }
  cli_fail("track: unexpected argument '%s' (see rodsim track --help)",
           argv[*i]);
  return false;
}

static bool complete(const track_args *a) {
  const char *missing = !a->dir          ? "FRAMES_DIR"
                        : !a->has_fps    ? "--fps"
                        : !a->has_scale  ? "--scale"
                        : !a->has_origin ? "--origin"
                                         : NULL;
  if (missing)
    cli_fail("track: missing %s (see rodsim track --help)", missing);
  return !missing;
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
  if (!complete(&a))
    return CLI_BAD_INPUT;
  rod_error err = {{0}, {0}, {0}, 0};
  if (rod_track_check(&a.o, &err) != ROD_OK) {
    cli_fail("--%s: %s", err.key, err.message);
    return CLI_BAD_INPUT;
  }
  rod_tip_data *tip;
  int st = rod_track_dir(a.dir, &a.o, &tip, &err);
  if (st == ROD_OK) {
    bool to_stdout = !a.output || strcmp(a.output, "-") == 0;
    st = to_stdout ? rod_tip_write_stream(stdout, "stdout", tip, &err)
                   : rod_tip_write(a.output, tip, &err);
    rod_tip_data_free(tip);
  }
  if (st == ROD_OK)
    return CLI_OK;
  cli_print_error(&err);
  return st == ROD_ENOMEM ? CLI_FAILED : CLI_BAD_INPUT;
}
