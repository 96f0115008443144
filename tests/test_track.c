/* Rod-tip tracking (docs/files.md): synthetic frames with a known
 * tip in every PNG format, the rightmost-then-topmost rule, frame timing,
 * PNG decoding, errors that name the frame, and `rodsim track` itself. */
#include <ftw.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rod/track.h"
#include "testutil.h"
#include "track/frames.h"

/* ---- temporary directories ---------------------------------------------*/

static char *make_temp_dir(void) {
  char *dir = strdup("/tmp/rodsim-track-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  return dir;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static void remove_temp_dir(char *dir) {
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(dir);
}

static const char *join(const char *dir, const char *name) {
  static char path[2][512];
  static int which;
  which ^= 1; /* two live results, for calls like rename(join(), join()) */
  snprintf(path[which], sizeof path[which], "%s/%s", dir, name);
  return path[which];
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* ---- synthetic frames with a known tip ---------------------------------*/

enum { WIDTH = 160, HEIGHT = 120, FRAMES = 6, POINTS = 30 };

/* 2 pixels wide: the round cap's rightmost dark column lies within 1 px of
 * the drawing's extreme, and the topmost dark pixel of that column within
 * sqrt(w - 1) = 1 px of the centreline, so "within a pixel" is the bound
 * the tip rule itself allows (a 3 px rod gives up to 1.4 px in z). */
static const double LINE_WIDTH = 2.0;
static const rod_camera CAMERA = {1e-3, 10.4, 60.6};

/* A cantilever of length L along +x with tip deflection d: z = d u^2 (3 -
 * u) / 2 at x = L u, a static beam's shape; its tip is the rightmost point
 * and the drawing extends line_width / 2 beyond it (frames.h). */
static void rod_shape(int frame, double points[3 * POINTS], double tip[2]) {
  double L = 0.12 - 0.004 * frame, d = 0.04 * sin(1.3 * frame);
  for (int i = 0; i < POINTS; i++) {
    double u = (double)i / (POINTS - 1);
    points[3 * i] = L * u;
    points[3 * i + 1] = 0;
    points[3 * i + 2] = d * u * u * (3 - u) / 2;
  }
  tip[0] = L + 0.5 * LINE_WIDTH * CAMERA.scale;
  tip[1] = d;
}

/* Write FRAMES frames frame000.png ... into dir; tips[i] the known tip. */
static void write_frames(const char *dir, rod_png_color color, int depth,
                         double noise, double tips[FRAMES][2]) {
  rod_image *img = rod_image_alloc(WIDTH, HEIGHT);
  rod_frame_style s = rod_frame_style_default();
  s.camera = CAMERA;
  s.line_width = LINE_WIDTH;
  s.noise = noise;
  for (int f = 0; f < FRAMES; f++) {
    double points[3 * POINTS];
    rod_shape(f, points, tips[f]);
    s.seed = 100 + (uint64_t)f;
    ck_assert_int_eq(rod_frame_draw(img, &s, points, POINTS), ROD_OK);
    char name[32];
    snprintf(name, sizeof name, "frame%03d.png", f);
    rod_error err;
    ck_assert_int_eq(
        rod_image_write_png(img, join(dir, name), color, depth, &err), ROD_OK);
  }
  rod_image_free(img);
}

static rod_track_options options(double threshold) {
  rod_track_options o = rod_track_default();
  o.fps = 1000;
  o.camera = CAMERA;
  o.threshold = threshold;
  return o;
}

/* d holds FRAMES samples of x and z, each tip within a pixel of tips. */
static void check_tips(const rod_tip_data *d, double tips[FRAMES][2]) {
  ck_assert_int_eq(d->n, FRAMES);
  ck_assert(d->has[0] && !d->has[1] && d->has[2]);
  for (int f = 0; f < FRAMES; f++) {
    ROD_ASSERT_NEAR(d->xyz[3 * f], tips[f][0], CAMERA.scale);
    ROD_ASSERT_NEAR(d->xyz[3 * f + 2], tips[f][1], CAMERA.scale);
  }
}

static const struct {
  rod_png_color color;
  int depth;
} formats[] = {
    {ROD_PNG_GRAY, 8},  {ROD_PNG_GRAY, 16}, {ROD_PNG_GRAY_ALPHA, 8},
    {ROD_PNG_RGB, 8},   {ROD_PNG_RGB, 16},  {ROD_PNG_RGBA, 8},
    {ROD_PNG_RGBA, 16},
};
enum { NFORMATS = sizeof formats / sizeof formats[0] };

/* Each format with and without noise, with Otsu and a given threshold.
 * Noise 0.03 of full scale against a contrast of 0.8 is 13 sigma from the
 * threshold: no background pixel turns dark, the edge pixels move. */
START_TEST(tip_within_a_pixel) {
  const double noises[2] = {0, 0.03}, thresholds[2] = {0, 0.5};
  for (int a = 0; a < 2; a++) {
    char *dir = make_temp_dir();
    double tips[FRAMES][2];
    write_frames(dir, formats[_i].color, formats[_i].depth, noises[a], tips);
    for (int b = 0; b < 2; b++) {
      rod_track_options o = options(thresholds[b]);
      rod_tip_data *d;
      rod_error err;
      ck_assert_int_eq(rod_track_dir(dir, &o, &d, &err), ROD_OK);
      check_tips(d, tips);
      rod_tip_data_free(d);
    }
    remove_temp_dir(dir);
  }
}
END_TEST

START_TEST(frame_i_is_at_t0_plus_i_over_fps) {
  char *dir = make_temp_dir();
  double tips[FRAMES][2];
  write_frames(dir, ROD_PNG_GRAY, 8, 0, tips);
  rod_track_options o = options(0);
  o.fps = 2500;
  o.t0 = -0.0021;
  rod_tip_data *d;
  ck_assert_int_eq(rod_track_dir(dir, &o, &d, NULL), ROD_OK);
  for (int i = 0; i < FRAMES; i++)
    ROD_ASSERT_NEAR(d->t[i], -0.0021 + i / 2500.0, 1e-15);
  rod_tip_data_free(d);
  remove_temp_dir(dir);
}
END_TEST

/* ---- the rule and the threshold ----------------------------------------*/

START_TEST(rightmost_then_topmost) {
  rod_image *img = rod_image_alloc(8, 6);
  for (int p = 0; p < 48; p++)
    img->lum[p] = 1.0f;
  img->lum[0 * 8 + 3] = 0.0f; /* top row, but further left */
  img->lum[4 * 8 + 5] = 0.0f; /* column 5, lower */
  img->lum[2 * 8 + 5] = 0.3f; /* column 5, higher: the tip */
  img->lum[3 * 8 + 5] = 0.0f;
  int px, py;
  ck_assert_int_eq(rod_track_tip_pixel(img, 0.5, &px, &py), ROD_OK);
  ck_assert_int_eq(px, 5);
  ck_assert_int_eq(py, 2);
  /* dark means below the threshold: 0.3 is not dark at 0.3 */
  ck_assert_int_eq(rod_track_tip_pixel(img, 0.3, &px, &py), ROD_OK);
  ck_assert_int_eq(py, 3);
  img->lum[5 * 8 + 7] = 0.0f; /* bottom-right corner wins on column */
  ck_assert_int_eq(rod_track_tip_pixel(img, 0.5, &px, &py), ROD_OK);
  ck_assert_int_eq(px, 7);
  ck_assert_int_eq(py, 5);
  /* world coordinates: x = (px - PX) s, z = (PY - py) s */
  rod_camera cam = {0.002, 1.0, 4.0};
  double x, z;
  rod_camera_to_world(&cam, px, py, &x, &z);
  ROD_ASSERT_NEAR(x, 0.012, 1e-15);
  ROD_ASSERT_NEAR(z, -0.002, 1e-15);
  rod_image_free(img);
}
END_TEST

START_TEST(otsu_splits_two_levels_in_the_middle) {
  rod_image *img = rod_image_alloc(10, 10);
  for (int p = 0; p < 100; p++)
    img->lum[p] = p < 10 ? 0.2f : 0.8f;
  /* levels in bins 51 and 204; every split between them has the same
   * between-class variance, and the middle of that plateau is bin 127 */
  ROD_ASSERT_NEAR(rod_track_otsu(img), 128.0 / 256, 1e-12);
  for (int p = 0; p < 100; p++)
    img->lum[p] = 0.7f;
  ck_assert(rod_track_otsu(img) == 0.0); /* one level: nothing dark */
  int px, py;
  ck_assert_int_eq(rod_track_tip_pixel(img, 0.0, &px, &py), ROD_EINVAL);
  rod_image_free(img);
}
END_TEST

/* Between the rod's and the background's levels, for every format and
 * noise level of tip_within_a_pixel's frames. */
START_TEST(otsu_falls_between_rod_and_background) {
  rod_image *img = rod_image_alloc(WIDTH, HEIGHT);
  rod_frame_style s = rod_frame_style_default();
  s.camera = CAMERA;
  s.line_width = LINE_WIDTH;
  s.noise = 0.03;
  double points[3 * POINTS], tip[2];
  rod_shape(2, points, tip);
  ck_assert_int_eq(rod_frame_draw(img, &s, points, POINTS), ROD_OK);
  double thr = rod_track_otsu(img);
  ck_assert_msg(thr > 0.3 && thr < 0.7, "Otsu threshold %g", thr);
  rod_image_free(img);
}
END_TEST

/* ---- PNG decoding ------------------------------------------------------*/

/* A PNG written by libpng directly, for formats the frame writer does not
 * make: palette, 1-bit gray, transparency, interlacing, pure colours. */
static void write_raw_png(const char *path, int w, int h, int color_type,
                          int depth, int interlace, const unsigned char *data,
                          const png_color *palette, int npalette) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png)))
    ck_abort_msg("libpng could not write %s", path);
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, color_type,
               interlace, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (palette)
    png_set_PLTE(png, info, palette, npalette);
  png_write_info(png, info);
  size_t rowbytes = png_get_rowbytes(png, info);
  png_bytep rows[16];
  ck_assert_int_le(h, 16);
  for (int r = 0; r < h; r++)
    rows[r] = (png_bytep)data + (size_t)r * rowbytes;
  png_write_image(png, rows);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  fclose(f);
}

static rod_image *read_back(const char *path) {
  rod_image *img = rod_image_alloc(0, 0);
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_image_read_png(img, path, &err);
  ck_assert_msg(st == ROD_OK, "%s: %s", path, err.message);
  return img;
}

START_TEST(colour_is_rec709_luma) {
  char *dir = make_temp_dir();
  const unsigned char rgb[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
  write_raw_png(join(dir, "rgb.png"), 4, 1, PNG_COLOR_TYPE_RGB, 8,
                PNG_INTERLACE_NONE, rgb, NULL, 0);
  rod_image *img = read_back(join(dir, "rgb.png"));
  ROD_ASSERT_NEAR(img->lum[0], 0.2126, 1e-6);
  ROD_ASSERT_NEAR(img->lum[1], 0.7152, 1e-6);
  ROD_ASSERT_NEAR(img->lum[2], 0.0722, 1e-6);
  ROD_ASSERT_NEAR(img->lum[3], 1.0, 1e-6);
  rod_image_free(img);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(palette_low_bit_and_interlaced_frames) {
  char *dir = make_temp_dir();
  /* palette: index 1 is mid gray, index 0 pure green */
  const png_color palette[2] = {{0, 255, 0}, {128, 128, 128}};
  const unsigned char indices[] = {1, 0};
  write_raw_png(join(dir, "pal.png"), 2, 1, PNG_COLOR_TYPE_PALETTE, 8,
                PNG_INTERLACE_NONE, indices, palette, 2);
  rod_image *img = read_back(join(dir, "pal.png"));
  ROD_ASSERT_NEAR(img->lum[0], 128.0 / 255, 1e-6);
  ROD_ASSERT_NEAR(img->lum[1], 0.7152, 1e-6);
  rod_image_free(img);
  /* 1-bit gray: pixels 1 0 1 1 0 0 0 0 packed in one byte */
  const unsigned char bits[] = {0xB0};
  write_raw_png(join(dir, "bit.png"), 8, 1, PNG_COLOR_TYPE_GRAY, 1,
                PNG_INTERLACE_NONE, bits, NULL, 0);
  img = read_back(join(dir, "bit.png"));
  const float expect[8] = {1, 0, 1, 1, 0, 0, 0, 0};
  for (int c = 0; c < 8; c++)
    ROD_ASSERT_NEAR(img->lum[c], expect[c], 1e-6);
  rod_image_free(img);
  /* Adam7-interlaced 16-bit gray: every pixel a distinct level */
  unsigned char wide[8 * 8 * 2];
  for (int p = 0; p < 64; p++) {
    wide[2 * p] = (unsigned char)(p * 4);
    wide[2 * p + 1] = (unsigned char)p;
  }
  write_raw_png(join(dir, "adam7.png"), 8, 8, PNG_COLOR_TYPE_GRAY, 16,
                PNG_INTERLACE_ADAM7, wide, NULL, 0);
  img = read_back(join(dir, "adam7.png"));
  for (int p = 0; p < 64; p++)
    ROD_ASSERT_NEAR(img->lum[p], (p * 4 * 256 + p) / 65535.0, 1e-7);
  rod_image_free(img);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(sixteen_bit_keeps_its_precision) {
  char *dir = make_temp_dir();
  rod_image *img = rod_image_alloc(64, 4);
  for (int p = 0; p < 256; p++)
    img->lum[p] = (float)p / 255.0f + 1e-4f * (float)(p % 7);
  rod_error err;
  ck_assert_int_eq(
      rod_image_write_png(img, join(dir, "w.png"), ROD_PNG_RGBA, 16, &err),
      ROD_OK);
  rod_image *back = read_back(join(dir, "w.png"));
  ck_assert_int_eq(back->width, 64);
  ck_assert_int_eq(back->height, 4);
  /* half a 16-bit level plus float rounding; 8 bits would be off by 6e-4 */
  for (int p = 0; p < 256; p++)
    ROD_ASSERT_NEAR(back->lum[p], fmin(img->lum[p], 1.0), 0.5 / 65535 + 1e-7);
  rod_image_free(back);
  rod_image_free(img);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(frames_reuse_one_buffer) {
  char *dir = make_temp_dir();
  double tips[FRAMES][2];
  write_frames(dir, ROD_PNG_RGB, 8, 0, tips);
  rod_image *img = rod_image_alloc(0, 0);
  ck_assert_int_eq(rod_image_read_png(img, join(dir, "frame000.png"), NULL),
                   ROD_OK);
  const float *lum = img->lum;
  ck_assert_int_eq(rod_image_read_png(img, join(dir, "frame001.png"), NULL),
                   ROD_OK);
  ck_assert_ptr_eq(img->lum, lum);
  rod_image_free(img);
  remove_temp_dir(dir);
}
END_TEST

/* ---- errors name the frame ---------------------------------------------*/

/* rod_track_dir on dir must fail with status, err->file ending in file and
 * err->message containing what. */
static void expect_track_error(const char *dir, int status, const char *file,
                               const char *what) {
  rod_track_options o = options(0.5);
  rod_tip_data *d = (rod_tip_data *)1;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_track_dir(dir, &o, &d, &err), status);
  ck_assert_ptr_null(d);
  size_t nf = strlen(err.file), n = strlen(file);
  ck_assert_msg(nf >= n && strcmp(err.file + nf - n, file) == 0,
                "error names '%s', expected '%s'", err.file, file);
  ck_assert_msg(strstr(err.message, what), "message '%s' lacks '%s'",
                err.message, what);
}

START_TEST(unreadable_or_corrupt_frames) {
  char *dir = make_temp_dir();
  double tips[FRAMES][2];
  write_frames(dir, ROD_PNG_GRAY, 8, 0, tips);
  /* a dangling link cannot be opened, even by root */
  remove(join(dir, "frame002.png"));
  ck_assert_int_eq(symlink("/nonexistent", join(dir, "frame002.png")), 0);
  expect_track_error(dir, ROD_EIO, "/frame002.png", "cannot open");
  remove(join(dir, "frame002.png"));
  write_text(join(dir, "frame002.png"), "not an image\n");
  expect_track_error(dir, ROD_EINVAL, "/frame002.png", "not a PNG file");
  /* a truncated PNG: a valid signature, then the data stops */
  FILE *f = fopen(join(dir, "frame001.png"), "r+");
  ck_assert_int_eq(ftruncate(fileno(f), 100), 0);
  fclose(f);
  expect_track_error(dir, ROD_EINVAL, "/frame001.png", "corrupt PNG");
  remove_temp_dir(dir);
}
END_TEST

START_TEST(frames_of_different_sizes) {
  char *dir = make_temp_dir();
  double tips[FRAMES][2];
  write_frames(dir, ROD_PNG_GRAY, 8, 0, tips);
  rod_image *small = rod_image_alloc(WIDTH - 10, HEIGHT);
  for (int p = 0; p < (WIDTH - 10) * HEIGHT; p++)
    small->lum[p] = p % 7 ? 1.0f : 0.0f;
  ck_assert_int_eq(rod_image_write_png(small, join(dir, "frame003.png"),
                                       ROD_PNG_GRAY, 8, NULL),
                   ROD_OK);
  expect_track_error(dir, ROD_EINVAL, "/frame003.png",
                     "150x120 pixels, expected 160x120");
  rod_image_free(small);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(empty_or_missing_directory) {
  char *dir = make_temp_dir();
  expect_track_error(dir, ROD_EINVAL, dir, "no *.png files");
  /* neither a dot file, nor another suffix, nor a directory is a frame */
  write_text(join(dir, ".hidden.png"), "x");
  write_text(join(dir, "notes.txt"), "x");
  ck_assert_int_eq(mkdir(join(dir, "sub.png"), 0700), 0);
  expect_track_error(dir, ROD_EINVAL, dir, "no *.png files");
  expect_track_error("/nonexistent/frames", ROD_EIO, "/nonexistent/frames",
                     "cannot open directory");
  remove_temp_dir(dir);
}
END_TEST

START_TEST(frame_without_a_dark_pixel) {
  char *dir = make_temp_dir();
  rod_image *img = rod_image_alloc(20, 10);
  for (int p = 0; p < 200; p++)
    img->lum[p] = 0.9f;
  ck_assert_int_eq(
      rod_image_write_png(img, join(dir, "blank.png"), ROD_PNG_GRAY, 8, NULL),
      ROD_OK);
  expect_track_error(dir, ROD_EINVAL, "/blank.png", "no dark pixel");
  rod_image_free(img);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(frames_in_byte_order) {
  char *dir = make_temp_dir();
  const char *names[] = {"a9.png", "a10.png", "B.png", "x.PNG", "a1.png"};
  for (int i = 0; i < 5; i++)
    write_text(join(dir, names[i]), "x");
  write_text(join(dir, ".a0.png"), "x");
  char **paths;
  int n;
  ck_assert_int_eq(rod_frame_list(dir, &paths, &n, NULL), ROD_OK);
  ck_assert_int_eq(n, 5);
  /* strcmp order: upper case before lower, "a10" before "a9" */
  const char *order[] = {"B.png", "a1.png", "a10.png", "a9.png", "x.PNG"};
  for (int i = 0; i < 5; i++)
    ck_assert_str_eq(paths[i], join(dir, order[i]));
  rod_frame_list_free(paths, n);
  remove_temp_dir(dir);
}
END_TEST

START_TEST(options_are_checked) {
  rod_track_options o = options(0);
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_track_check(&o, &err), ROD_OK);
  o.fps = 0;
  ck_assert_int_eq(rod_track_check(&o, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "fps");
  o = options(1.0);
  ck_assert_int_eq(rod_track_check(&o, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "threshold");
  o = options(0);
  o.camera.scale = -1e-3;
  ck_assert_int_eq(rod_track_check(&o, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "scale");
}
END_TEST

/* ---- rodsim track ------------------------------------------------------*/

/* Run `rodsim track ARGS` with stdout and stderr captured in dir. */
static rod_cli_result run_track(const char *dir, const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "track %s", args);
  return rod_test_cli(dir, cmd);
}

/* Exit 2 and exactly one line "rodsim: ..." containing what. */
static void expect_bad_input(const char *dir, const char *args,
                             const char *what) {
  rod_cli_result r = run_track(dir, args);
  ck_assert_msg(r.status == 2, "'%s': exit %d, expected 2", args, r.status);
  const char *nl = strchr(r.err, '\n');
  ck_assert_msg(strncmp(r.err, "rodsim: ", 8) == 0 && nl && !nl[1],
                "'%s': stderr is not one 'rodsim: ' line: '%s'", args, r.err);
  ck_assert_msg(strstr(r.err, what), "'%s': '%s' lacks '%s'", args, r.err,
                what);
  ck_assert_str_eq(r.out, "");
}

START_TEST(cli_writes_the_tip_csv) {
  char *work = make_temp_dir(), *frames = strdup(join(work, "frames"));
  ck_assert_int_eq(mkdir(frames, 0700), 0);
  double tips[FRAMES][2];
  write_frames(frames, ROD_PNG_RGB, 16, 0.03, tips);
  char args[1024], csv[512];
  snprintf(csv, sizeof csv, "%s", join(work, "tip.csv"));
  snprintf(args, sizeof args,
           "'%s' --fps 500 --scale 1e-3 --origin 10.4,60.6 --t0 0.01 -o '%s'",
           frames, csv);
  rod_cli_result r = run_track(work, args);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_str_eq(r.err, "");
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_tip_read(csv, &d, &err), ROD_OK);
  check_tips(d, tips);
  for (int f = 0; f < FRAMES; f++)
    ROD_ASSERT_NEAR(d->t[f], 0.01 + f / 500.0, 1e-15);
  rod_tip_data_free(d);
  /* the same on standard output, header first, with --opt=value forms */
  snprintf(args, sizeof args,
           "'%s' --fps=500 --scale=1e-3 --origin=10.4,60.6 --t0=0.01 "
           "--threshold 0.5",
           frames);
  r = run_track(work, args);
  ck_assert_int_eq(r.status, 0);
  ck_assert_msg(strncmp(r.out, "t,x,z\n0.01,", 11) == 0, "%s", r.out);
  remove_temp_dir(work);
  free(frames);
}
END_TEST

/* The rightmost rule cannot see a tip outside the image: frames whose tip
 * pixel lies on the right edge are flagged (valid = 0, the column added),
 * counted on standard error even with --quiet; when every frame is, exit
 * 1. The frames of cli_writes_the_tip_csv keep t,x,z. */
START_TEST(cli_flags_a_tip_beyond_the_right_edge) {
  char *work = make_temp_dir(), *frames = strdup(join(work, "frames"));
  ck_assert_int_eq(mkdir(frames, 0700), 0);
  rod_image *img = rod_image_alloc(WIDTH, HEIGHT);
  rod_frame_style s = rod_frame_style_default();
  s.line_width = LINE_WIDTH;
  /* the clamp 50 px from the right edge: rods of 120 - 4 f px */
  s.camera = (rod_camera){CAMERA.scale, WIDTH - 50.5, CAMERA.origin_py};
  for (int f = 0; f < FRAMES; f++) {
    double points[3 * POINTS], tip[2];
    rod_shape(f, points, tip);
    if (f >= 2) /* from frame 2 on, short enough to stay in view */
      for (int i = 0; i < POINTS; i++)
        points[3 * i] *= 0.3;
    ck_assert_int_eq(rod_frame_draw(img, &s, points, POINTS), ROD_OK);
    char name[32];
    snprintf(name, sizeof name, "frame%03d.png", f);
    ck_assert_int_eq(
        rod_image_write_png(img, join(frames, name), ROD_PNG_GRAY, 8, NULL),
        ROD_OK);
  }
  rod_image_free(img);
  char args[1024];
  snprintf(args, sizeof args,
           "'%s' --fps 500 --scale 1e-3 --origin %g,%g --quiet", frames,
           s.camera.origin_px, s.camera.origin_py);
  rod_cli_result r = run_track(work, args);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strncmp(r.out, "t,x,z,valid\n", 12) == 0, "%s", r.out);
  const char *row = r.out;
  for (int f = 0; f < FRAMES; f++) {
    row = strchr(row, '\n') + 1;
    const char *end = strchr(row, '\n');
    ck_assert_int_eq(end[-1], f < 2 ? '0' : '1');
  }
  ck_assert_msg(strstr(r.err, "2 of 6 frames flagged") &&
                    strstr(r.err, "2 the rod runs into the image's border"),
                "%s", r.err);
  /* only the two long frames: every frame flagged, exit 1 */
  for (int f = 2; f < FRAMES; f++) {
    char name[32];
    snprintf(name, sizeof name, "frame%03d.png", f);
    ck_assert_int_eq(remove(join(frames, name)), 0);
  }
  r = run_track(work, args);
  ck_assert_msg(r.status == 1, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.err, "every frame is flagged"), "%s", r.err);
  remove_temp_dir(work);
  free(frames);
}
END_TEST

START_TEST(cli_bad_input_exits_2_naming_the_problem) {
  char *work = make_temp_dir(), *frames = strdup(join(work, "frames"));
  ck_assert_int_eq(mkdir(frames, 0700), 0);
  char args[1024];
  const char *base = "--fps 100 --scale 1e-3 --origin 0,60";
  snprintf(args, sizeof args, "'%s' %s", frames, base);
  expect_bad_input(work, args, "frames: no *.png files");
  snprintf(args, sizeof args, "'%s/none' %s", frames, base);
  expect_bad_input(work, args, "frames/none: cannot open directory");

  double tips[FRAMES][2];
  write_frames(frames, ROD_PNG_GRAY, 8, 0, tips);
  write_text(join(frames, "frame004.png"), "garbage");
  snprintf(args, sizeof args, "'%s' %s -o '%s/tip.csv'", frames, base, work);
  expect_bad_input(work, args, "frames/frame004.png: not a PNG file");
  ck_assert_int_ne(access(join(work, "tip.csv"), F_OK), 0); /* no output */
  remove(join(frames, "frame004.png"));

  const struct {
    const char *options, *what;
  } cases[] = {
      {"--fps 0 --scale 1e-3 --origin 0,60", "--fps: must be > 0 (got 0)"},
      {"--fps -5 --scale 1e-3 --origin 0,60", "--fps: must be > 0"},
      {"--fps 100 --scale 0 --origin 0,60", "--scale: must be > 0"},
      {"--fps abc --scale 1e-3 --origin 0,60", "--fps: expected a number"},
      {"--fps 100 --scale 1e-3 --origin '0;60'", "--origin: expected PX,PY"},
      {"--fps 100 --scale 1e-3 --origin 5", "--origin: expected PX,PY"},
      {"--fps 100 --scale 1e-3 --origin 0,60 --threshold 1.5",
       "--threshold: must be between 0 and 1"},
      {"--fps 100 --scale 1e-3 --origin 0,60 --threshold 0",
       "--threshold: must be between 0 and 1"},
      {"--scale 1e-3 --origin 0,60", "missing --fps"},
      {"--fps 100 --origin 0,60", "missing --scale"},
      {"--fps 100 --scale 1e-3", "missing --origin"},
      {"--fps 100 --scale 1e-3 --origin 0,60 --bogus", "'--bogus'"},
      {"--fps 100 --scale 1e-3 --origin 0,60 --t0", "--t0: missing value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(args, sizeof args, "'%s' %s", frames, cases[i].options);
    expect_bad_input(work, args, cases[i].what);
  }
  expect_bad_input(work, base, "missing FRAMES_DIR");
  rod_cli_result r = run_track(work, "--help");
  ck_assert_int_eq(r.status, 0);
  ck_assert(strstr(r.out, "usage: rodsim track FRAMES_DIR"));
  remove_temp_dir(work);
  free(frames);
}
END_TEST

static Suite *track_suite(void) {
  Suite *s = suite_create("track");
  TCase *synth = tcase_create("synthetic frames");
  tcase_set_timeout(synth, 20);
  tcase_add_loop_test(synth, tip_within_a_pixel, 0, NFORMATS);
  tcase_add_test(synth, frame_i_is_at_t0_plus_i_over_fps);
  suite_add_tcase(s, synth);
  TCase *rule = tcase_create("rule and threshold");
  tcase_set_timeout(rule, 10);
  tcase_add_test(rule, rightmost_then_topmost);
  tcase_add_test(rule, otsu_splits_two_levels_in_the_middle);
  tcase_add_test(rule, otsu_falls_between_rod_and_background);
  suite_add_tcase(s, rule);
  TCase *png = tcase_create("png");
  tcase_set_timeout(png, 10);
  tcase_add_test(png, colour_is_rec709_luma);
  tcase_add_test(png, palette_low_bit_and_interlaced_frames);
  tcase_add_test(png, sixteen_bit_keeps_its_precision);
  tcase_add_test(png, frames_reuse_one_buffer);
  suite_add_tcase(s, png);
  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 10);
  tcase_add_test(errors, unreadable_or_corrupt_frames);
  tcase_add_test(errors, frames_of_different_sizes);
  tcase_add_test(errors, empty_or_missing_directory);
  tcase_add_test(errors, frame_without_a_dark_pixel);
  tcase_add_test(errors, frames_in_byte_order);
  tcase_add_test(errors, options_are_checked);
  suite_add_tcase(s, errors);
  TCase *cli = tcase_create("cli");
  tcase_set_timeout(cli, 30);
  tcase_add_test(cli, cli_writes_the_tip_csv);
  tcase_add_test(cli, cli_flags_a_tip_beyond_the_right_edge);
  tcase_add_test(cli, cli_bad_input_exits_2_naming_the_problem);
  suite_add_tcase(s, cli);
  return s;
}

ROD_TEST_MAIN(track_suite)
