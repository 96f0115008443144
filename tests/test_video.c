/* Video files (rod/video.h): frames written and read back through FFmpeg
 * with their luminance and times, every pixel path (8-bit YUV, gray, RGB
 * through swscale), image sequences, and hostile files refused with the
 * file and frame named. */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "rod/video.h"
#include "testutil.h"
#include "video_narrow.h"
#include "video_no_pts.h"

enum { W = 48, H = 32, FRAMES = 12 };

/* A frame whose every pixel is a known level: a ramp that moves with the
 * frame index, over all 256 8-bit levels. */
static float level_at(int f, int p) {
  return (float)((p * 7 + f * 13) % 256) / 255.0f;
}

static void fill(rod_image *img, int f) {
  for (int p = 0; p < img->width * img->height; p++)
    img->lum[p] = level_at(f, p);
}

static void write_video(const char *path, const char *codec, int crf,
                        int timescale, const double *times) {
  rod_video_writer_options o = rod_video_writer_default();
  o.width = W;
  o.height = H;
  o.fps = 1000;
  o.crf = crf;
  o.timescale = timescale;
  snprintf(o.codec, sizeof o.codec, "%s", codec);
  rod_video_writer *w;
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_video_writer_open(path, &o, &w, &err);
  ck_assert_msg(st == ROD_OK, "%s: %s", path, err.message);
  rod_image *img = rod_image_alloc(W, H);
  for (int f = 0; f < FRAMES; f++) {
    fill(img, f);
    st = rod_video_writer_add(w, img, times ? times[f] : f / 1000.0, &err);
    ck_assert_msg(st == ROD_OK, "%s", err.message);
  }
  ck_assert_int_eq(rod_video_writer_close(w, &err), ROD_OK);
  rod_image_free(img);
}

/* Read every frame of path; max |lum - written| and the times. */
static double read_all(const char *path, double *times, rod_video_info *info) {
  rod_video *v;
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_video_open(path, &v, &err);
  ck_assert_msg(st == ROD_OK, "%s: %s", path, err.message);
  *info = *rod_video_get_info(v);
  rod_image *img = rod_image_alloc(0, 0);
  double worst = 0;
  int f = 0;
  for (;; f++) {
    bool end;
    double t;
    st = rod_video_read(v, img, &t, &end, &err);
    ck_assert_msg(st == ROD_OK, "%s: %s: %s", path, err.key, err.message);
    if (end)
      break;
    ck_assert_int_lt(f, FRAMES);
    times[f] = t;
    for (int p = 0; p < W * H; p++)
      worst = fmax(worst, fabs(img->lum[p] - level_at(f, p)));
  }
  ck_assert_int_eq(f, FRAMES);
  ck_assert_int_eq(rod_video_frame_count(v), FRAMES);
  ck_assert_int_eq(img->width, W);
  ck_assert_int_eq(img->height, H);
  rod_image_free(img);
  rod_video_close(v);
  return worst;
}

/* H.264 at qp 0 is lossless on the 8-bit limited-range luma: what comes
 * back is the written level rounded to one of 219 steps (half a step,
 * 1/438, at most) and the times are the frames' at 1000 fps. */
START_TEST(h264_mp4_round_trip) {
  char dir[64];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  char path[128];
  snprintf(path, sizeof path, "%s/a.mp4", dir);
  write_video(path, rod_video_default_codec(), 0, 0, NULL);
  double t[FRAMES];
  rod_video_info info;
  double worst = read_all(path, t, &info);
  if (strcmp(rod_video_default_codec(), "libx264") == 0) {
    ck_assert_double_le(worst, 0.5 / 219 + 1e-6);
    ck_assert_str_eq(info.codec, "h264");
  }
  ck_assert(info.timestamps);
  ROD_ASSERT_NEAR(info.fps, 1000, 1e-9);
  ck_assert_int_eq(info.frames, FRAMES);
  for (int f = 0; f < FRAMES; f++)
    ROD_ASSERT_NEAR(t[f], f / 1000.0, 1e-12);
  rod_test_rmdir(dir);
}
END_TEST

/* FFV1 in Matroska is lossless on the 8-bit luma. */
START_TEST(ffv1_mkv) {
  char dir[64];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  char path[128];
  snprintf(path, sizeof path, "%s/v.mkv", dir);
  double t[FRAMES];
  write_video(path, "ffv1", -1, 0, NULL);
  rod_video_info info;
  double worst = read_all(path, t, &info);
  ck_assert_double_le(worst, 0.5 / 219 + 1e-6);
  ck_assert_int_eq(info.frames, -1); /* Matroska declares no count */
  rod_test_rmdir(dir);
}
END_TEST

/* The other containers: AVI (FFV1; its times are frame counts at the
 * stream's rate) and QuickTime (the default codec, lossless): the levels
 * and the times of 1000 frames/s come back. */
START_TEST(avi_and_mov) {
  char dir[64];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  const struct {
    const char *name, *codec;
    int crf;
  } files[] = {{"v.avi", "ffv1", -1}, {"v.mov", NULL, 0}};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
    const char *codec =
        files[k].codec ? files[k].codec : rod_video_default_codec();
    write_video(path, codec, files[k].crf, 0, NULL);
    double t[FRAMES];
    rod_video_info info;
    double worst = read_all(path, t, &info);
    if (files[k].codec || strcmp(codec, "libx264") == 0)
      ck_assert_msg(worst <= 0.5 / 219 + 1e-6, "%s: %g", path, worst);
    ck_assert_msg(info.timestamps, "%s", path);
    for (int f = 0; f < FRAMES; f++)
      ck_assert_msg(fabs(t[f] - f / 1000.0) < 1e-12, "%s: frame %d at %.17g",
                    path, f, t[f]);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* Irregular frame times (a variable frame rate) come back exactly, on the
 * file's 20 us clock, relative to the first frame. */
START_TEST(variable_frame_rate) {
  char dir[64];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  char path[128];
  snprintf(path, sizeof path, "%s/v.mp4", dir);
  double written[FRAMES], t[FRAMES];
  for (int f = 0; f < FRAMES; f++)
    written[f] = 0.25 + (1000.0 * f + 300.0 * (f % 3) + 20.0 * f * f) * 1e-6;
  write_video(path, rod_video_default_codec(), 0, 50000, written);
  rod_video_info info;
  read_all(path, t, &info);
  for (int f = 0; f < FRAMES; f++)
    ROD_ASSERT_NEAR(t[f], written[f] - written[0], 1e-9);
  rod_test_rmdir(dir);
}
END_TEST

/* PNG frames through FFmpeg's image2 demuxer (a printf pattern): RGB goes
 * through swscale to Rec. 709 luma as the PNG reader gives; gray is read
 * directly at full range; the stream has no real timestamps. */
static void write_png_sequence(const char *dir, png_uint_32 format,
                               const unsigned char *pixels) {
  for (int f = 0; f < 3; f++) {
    char path[128];
    snprintf(path, sizeof path, "%s/img%03d.png", dir, f);
    png_image image = {.version = PNG_IMAGE_VERSION,
                       .width = 4,
                       .height = 1,
                       .format = format};
    ck_assert(png_image_write_to_file(&image, path, 0, pixels, 0, NULL));
  }
}

static void check_sequence(const char *dir, const double expect[4],
                           double tol) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "%s/img%%03d.png", dir);
  rod_video *v;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_video_open(pattern, &v, &err), ROD_OK);
  ck_assert(!rod_video_get_info(v)->timestamps);
  rod_image *img = rod_image_alloc(0, 0);
  int frames = 0;
  for (;;) {
    bool end;
    double t;
    ck_assert_int_eq(rod_video_read(v, img, &t, &end, &err), ROD_OK);
    if (end)
      break;
    frames++;
    ck_assert(isnan(t));
    for (int c = 0; c < 4; c++)
      ROD_ASSERT_NEAR(img->lum[c], expect[c], tol);
  }
  ck_assert_int_eq(frames, 3);
  rod_image_free(img);
  rod_video_close(v);
}

START_TEST(image_sequences) {
  char dir[64];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  const unsigned char rgb[4][3] = {
      {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
  write_png_sequence(dir, PNG_FORMAT_RGB, rgb[0]);
  const double luma[4] = {0.2126, 0.7152, 0.0722, 1.0};
  check_sequence(dir, luma, 4e-3); /* swscale's fixed point: 2^-12 */
  const unsigned char gray[4] = {0, 1, 128, 255};
  write_png_sequence(dir, PNG_FORMAT_GRAY, gray);
  const double level[4] = {0, 1 / 255.0, 128 / 255.0, 1.0};
  check_sequence(dir, level, 1e-6);
  rod_test_rmdir(dir);
}
END_TEST

/* ---- colour: the stream's matrix -------------------------------------*/

/* Flat patches of R'G'B' colours (each 16 px wide, so 4:2:0 chroma never
 * straddles two), coded as Y'CbCr by the luma weights (Kr, Kb) at the
 * given depth and range, tagged with space, and written losslessly (FFV1
 * in Matroska) by the test itself. */
enum { PATCH = 16, NPATCH = 6, CH = 8 };
static const double patch_rgb[NPATCH][3] = {{1, 0, 0},       {0, 1, 0},
                                            {0, 0, 1},       {0.8, 0.4, 0.1},
                                            {0.5, 0.5, 0.5}, {1, 1, 1}};

typedef struct {
  int depth;
  bool full;
  enum AVColorSpace space;
  double kr, kb; /* the weights the samples are made with */
} coding;

static void put_sample(AVFrame *f, int plane, int x, int y, int depth, long v) {
  /* full-range chroma spans 2^d - 1 steps about 2^(d-1): its top is
   * clipped by half a step */
  v = v < 0 ? 0 : v > (1L << depth) - 1 ? (1L << depth) - 1 : v;
  uint8_t *row = f->data[plane] + (ptrdiff_t)y * f->linesize[plane];
  if (depth == 8)
    row[x] = (uint8_t)v;
  else
    ((uint16_t *)row)[x] = (uint16_t)v;
}

static void fill_patches(AVFrame *f, const coding *cd) {
  const double one = (double)(1 << (cd->depth - 8));
  const double ylo = cd->full ? 0 : 16 * one,
               yrange = cd->full ? (1 << cd->depth) - 1 : 219 * one,
               crange = cd->full ? (1 << cd->depth) - 1 : 224 * one,
               mid = 128 * one;
  for (int k = 0; k < NPATCH; k++) {
    const double *c = patch_rgb[k];
    double y = cd->kr * c[0] + (1 - cd->kr - cd->kb) * c[1] + cd->kb * c[2];
    double pb = (c[2] - y) / (2 * (1 - cd->kb)),
           pr = (c[0] - y) / (2 * (1 - cd->kr));
    for (int r = 0; r < CH; r++)
      for (int x = k * PATCH; x < (k + 1) * PATCH; x++) {
        put_sample(f, 0, x, r, cd->depth, lround(ylo + yrange * y));
        if (r % 2 == 0 && x % 2 == 0) {
          put_sample(f, 1, x / 2, r / 2, cd->depth, lround(mid + crange * pb));
          put_sample(f, 2, x / 2, r / 2, cd->depth, lround(mid + crange * pr));
        }
      }
  }
}

static void drain_packets(AVCodecContext *e, AVFormatContext *fmt, AVStream *st,
                          AVPacket *pkt) {
  while (avcodec_receive_packet(e, pkt) == 0) {
    av_packet_rescale_ts(pkt, e->time_base, st->time_base);
    pkt->stream_index = st->index;
    ck_assert_int_eq(av_interleaved_write_frame(fmt, pkt), 0);
  }
}

static void write_patches(const char *path, const coding *cd) {
  const AVCodec *codec = avcodec_find_encoder_by_name("ffv1");
  ck_assert_ptr_nonnull(codec);
  AVFormatContext *fmt = NULL;
  ck_assert_int_ge(avformat_alloc_output_context2(&fmt, NULL, NULL, path), 0);
  AVCodecContext *e = avcodec_alloc_context3(codec);
  e->width = NPATCH * PATCH;
  e->height = CH;
  e->pix_fmt = cd->depth == 8 ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUV420P10LE;
  e->time_base = (AVRational){1, 1000};
  e->framerate = (AVRational){1000, 1};
  e->color_range = cd->full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
  e->colorspace = cd->space;
  if (fmt->oformat->flags & AVFMT_GLOBALHEADER)
    e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  ck_assert_int_eq(avcodec_open2(e, codec, NULL), 0);
  AVStream *st = avformat_new_stream(fmt, NULL);
  st->time_base = e->time_base;
  ck_assert_int_ge(avcodec_parameters_from_context(st->codecpar, e), 0);
  ck_assert_int_ge(avio_open(&fmt->pb, path, AVIO_FLAG_WRITE), 0);
  ck_assert_int_ge(avformat_write_header(fmt, NULL), 0);
  AVFrame *f = av_frame_alloc();
  f->format = e->pix_fmt;
  f->width = e->width;
  f->height = e->height;
  f->color_range = e->color_range;
  f->colorspace = e->colorspace;
  ck_assert_int_eq(av_frame_get_buffer(f, 0), 0);
  fill_patches(f, cd);
  AVPacket *pkt = av_packet_alloc();
  for (int k = 0; k < 3; k++) {
    f->pts = k;
    ck_assert_int_eq(avcodec_send_frame(e, f), 0);
    drain_packets(e, fmt, st, pkt);
  }
  avcodec_send_frame(e, NULL);
  drain_packets(e, fmt, st, pkt);
  ck_assert_int_eq(av_write_trailer(fmt), 0);
  av_packet_free(&pkt);
  av_frame_free(&f);
  avcodec_free_context(&e);
  avio_closep(&fmt->pb);
  avformat_free_context(fmt);
}

/* Every frame's pixels against the patches' Rec. 709 luma; the worst
 * difference. */
static double patch_error(const char *path) {
  rod_video *v;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_video_open(path, &v, &err), ROD_OK);
  rod_image *img = rod_image_alloc(0, 0);
  double worst = 0;
  int frames = 0;
  for (;; frames++) {
    bool end;
    double t;
    ck_assert_int_eq(rod_video_read(v, img, &t, &end, &err), ROD_OK);
    if (end)
      break;
    for (int r = 0; r < CH; r++)
      for (int x = 0; x < NPATCH * PATCH; x++) {
        const double *c = patch_rgb[x / PATCH];
        double want = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        worst = fmax(worst, fabs(img->lum[r * img->width + x] - want));
      }
  }
  ck_assert_int_eq(frames, 3);
  rod_image_free(img);
  rod_video_close(v);
  return worst;
}

/* A video's gray is the Rec. 709 luma of its colours (as for PNG frames)
 * whatever matrix made its Y'CbCr: BT.601 as tagged, BT.709, BT.601
 * assumed for an untagged standard-definition stream, BT.2020 at 10 bits,
 * BT.601 at full range. The error is the samples' rounding: half a step
 * of Y' plus the chroma's half steps times the weights that map them to
 * Rec. 709 luma (0.21 and 0.12 for BT.601). Read as the luma plane alone
 * the colours would be off by up to 0.13 (green: 0.587 for 0.715). */
START_TEST(luma_follows_the_stream_matrix) {
  char dir[64], path[128];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  snprintf(path, sizeof path, "%s/c.mkv", dir);
  const coding cases[] = {
      {8, false, AVCOL_SPC_SMPTE170M, 0.299, 0.114},
      {8, false, AVCOL_SPC_BT470BG, 0.299, 0.114},
      {8, false, AVCOL_SPC_BT709, 0.2126, 0.0722},
      {8, false, AVCOL_SPC_UNSPECIFIED, 0.299, 0.114},
      {10, false, AVCOL_SPC_BT2020_NCL, 0.2627, 0.0593},
      {8, true, AVCOL_SPC_SMPTE170M, 0.299, 0.114},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const coding *cd = &cases[k];
    write_patches(path, cd);
    const double one = (double)(1 << (cd->depth - 8));
    const double ystep =
                     cd->full ? 1.0 / ((1 << cd->depth) - 1) : 1 / (219 * one),
                 cstep =
                     cd->full ? 1.0 / ((1 << cd->depth) - 1) : 1 / (224 * one);
    const double kr = 0.2126, kb = 0.0722, kg = 1 - kr - kb,
                 Kg = 1 - cd->kr - cd->kb;
    const double wr = 2 * (1 - cd->kr) * fabs(kr - kg * cd->kr / Kg),
                 wb = 2 * (1 - cd->kb) * fabs(kb - kg * cd->kb / Kg);
    const double tol = 0.5 * ystep + 0.5 * cstep * (wr + wb) + 1e-6;
    double e = patch_error(path);
    ck_assert_msg(e <= tol, "case %zu (space %d, %d bit%s): %.5f > %.5f", k,
                  (int)cd->space, cd->depth, cd->full ? ", full" : "", e, tol);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* ---- hostile files -----------------------------------------------------*/

static int open_status(const char *path, rod_error *err) {
  rod_video *v = NULL;
  int st = rod_video_open(path, &v, err);
  if (st == ROD_OK)
    rod_video_close(v);
  return st;
}

/* Read path to the end: the status of the first failure. */
static int read_status(const char *path, rod_error *err, int *frames) {
  rod_video *v;
  *frames = 0;
  int st = rod_video_open(path, &v, err);
  if (st != ROD_OK)
    return st;
  rod_image *img = rod_image_alloc(0, 0);
  for (;;) {
    bool end;
    double t;
    st = rod_video_read(v, img, &t, &end, err);
    if (st != ROD_OK || end)
      break;
    ++*frames;
  }
  rod_image_free(img);
  rod_video_close(v);
  return st;
}

/* The whole file (free() it); its size in *n. */
static unsigned char *file_bytes(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  rewind(f);
  unsigned char *bytes = malloc((size_t)*n);
  ck_assert_int_eq(fread(bytes, 1, (size_t)*n, f), *n);
  fclose(f);
  return bytes;
}

START_TEST(missing_empty_and_foreign_files) {
  char dir[64], path[128];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  rod_error err = {{0}, {0}, {0}, 0};
  snprintf(path, sizeof path, "%s/none.mp4", dir);
  ck_assert_int_eq(open_status(path, &err), ROD_EIO);
  ck_assert_str_eq(err.file, path);
  rod_test_write(dir, "empty.mp4", "");
  snprintf(path, sizeof path, "%s/empty.mp4", dir);
  ck_assert_int_eq(open_status(path, &err), ROD_EINVAL);
  ck_assert_str_eq(err.file, path);
  rod_test_write(dir, "tip.csv", "t,x,z\n0,0.1,0.2\n");
  snprintf(path, sizeof path, "%s/tip.csv", dir);
  ck_assert_int_eq(open_status(path, &err), ROD_EINVAL);
  /* other protocols than local files are refused */
  ck_assert_int_ne(open_status("http://127.0.0.1:9/a.mp4", &err), ROD_OK);
  rod_test_rmdir(dir);
}
END_TEST

/* A video cut short: either the container cannot be opened, or the
 * frames stop before the count the container declares; never a short
 * read that passes for the whole video. */
START_TEST(truncated_video) {
  char dir[64], path[128], cut[128];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  snprintf(path, sizeof path, "%s/a.mkv", dir);
  write_video(path, "ffv1", -1, 0, NULL);
  long n;
  unsigned char *bytes = file_bytes(path, &n);
  snprintf(cut, sizeof cut, "%s/cut.mkv", dir);
  for (int k = 1; k < 8; k++) {
    FILE *out = fopen(cut, "wb");
    fwrite(bytes, 1, (size_t)(n * k / 8), out);
    fclose(out);
    rod_error err = {{0}, {0}, {0}, 0};
    int frames, st = read_status(cut, &err, &frames);
    ck_assert_msg(st != ROD_OK || frames == FRAMES,
                  "cut at %d/8: %d frames read without an error", k, frames);
    if (st != ROD_OK) {
      ck_assert_str_eq(err.file, cut);
      ck_assert(err.message[0]);
    }
  }
  free(bytes);
  rod_test_rmdir(dir);
}
END_TEST

/* Bytes overwritten inside an H.264 stream: no crash, and every failure
 * is one message naming the file (and the frame, once frames flow). */
START_TEST(corrupt_bytes_are_refused_or_survived) {
  char dir[64], path[128], bad[128];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  snprintf(path, sizeof path, "%s/a.mp4", dir);
  write_video(path, rod_video_default_codec(), 18, 0, NULL);
  long n;
  unsigned char *bytes = file_bytes(path, &n);
  snprintf(bad, sizeof bad, "%s/bad.mp4", dir);
  uint64_t state = 12345;
  int refused = 0;
  for (int trial = 0; trial < 24; trial++) {
    unsigned char *copy = malloc((size_t)n);
    memcpy(copy, bytes, (size_t)n);
    for (int k = 0; k < 16; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      copy[(state >> 33) % (uint64_t)n] = (unsigned char)(state >> 20);
    }
    FILE *out = fopen(bad, "wb");
    fwrite(copy, 1, (size_t)n, out);
    fclose(out);
    free(copy);
    rod_error err = {{0}, {0}, {0}, 0};
    int frames, st = read_status(bad, &err, &frames);
    if (st != ROD_OK) {
      refused++;
      ck_assert_str_eq(err.file, bad);
      ck_assert(err.message[0]);
      ck_assert(!strchr(err.message, '\n'));
    }
  }
  ck_assert_int_gt(refused, 0);
  free(bytes);
  rod_test_rmdir(dir);
}
END_TEST

/* Limited-range video coding values below black (0) and above white
 * (255) in its foot- and headroom: read as 0 and 1, luminance stays
 * within [0, 1] (found by fuzz/fuzz_video: a corrupted H.264 frame read
 * as -0.07). */
/* bytes (n of them) as the file NAME in a new test folder dir: its path. */
static void write_stored(char *dir, size_t dir_size, char *path,
                         size_t path_size, const char *name,
                         const unsigned char *bytes, size_t n) {
  rod_test_dir(dir, dir_size, "rodsim_video");
  snprintf(path, path_size, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

/* A narrow video converted by swscale (a 1 x 8 BGR24 frame among them):
 * every frame read or refused, and the reader closed, with nothing written
 * past the gray buffer (under ASan's checks of the heap at the close). */
START_TEST(narrow_frames_through_swscale) {
  char dir[256], path[300];
  write_stored(dir, sizeof dir, path, sizeof path, "narrow.avi", video_narrow,
               sizeof video_narrow);
  rod_error err;
  rod_video *v = NULL;
  if (rod_video_open(path, &v, &err) == ROD_OK) {
    rod_image *img = rod_image_alloc(0, 0);
    for (int i = 0; i < 16; i++) {
      double t;
      bool end = false;
      int st = rod_video_read(v, img, &t, &end, &err);
      if (st != ROD_OK || end)
        break;
      for (int p = 0; p < img->width * img->height; p++)
        ck_assert(img->lum[p] >= 0.0f && img->lum[p] <= 1.0f);
    }
    rod_image_free(img);
    rod_video_close(v);
  }
  rod_test_rmdir(dir);
}
END_TEST

/* A frame without a timestamp in a video whose frames have them is
 * refused, naming the frame, never returned with a time that is not one. */
START_TEST(frame_without_timestamp_is_refused) {
  char dir[256], path[300];
  write_stored(dir, sizeof dir, path, sizeof path, "no_pts.avi", video_no_pts,
               sizeof video_no_pts);
  rod_error err;
  rod_video *v = NULL;
  ck_assert_int_eq(rod_video_open(path, &v, &err), ROD_OK);
  ck_assert(rod_video_get_info(v)->timestamps);
  rod_image *img = rod_image_alloc(0, 0);
  bool refused = false;
  for (int i = 0; i < 16 && !refused; i++) {
    double t;
    bool end = false;
    int st = rod_video_read(v, img, &t, &end, &err);
    if (st != ROD_OK) {
      ck_assert_int_eq(st, ROD_EINVAL);
      ck_assert_str_eq(err.key, "frame 1");
      ck_assert_ptr_nonnull(strstr(err.message, "no timestamp"));
      refused = true;
    } else {
      ck_assert(!end);
      ck_assert(isfinite(t));
    }
  }
  ck_assert(refused);
  rod_image_free(img);
  rod_video_close(v);
  rod_test_rmdir(dir);
}
END_TEST

START_TEST(limited_range_beyond_black_and_white) {
  char dir[64], path[128], cmd[512];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  snprintf(path, sizeof path, "%s/range.mkv", dir);
  snprintf(cmd, sizeof cmd,
           "ffmpeg -v error -f lavfi -i \"nullsrc=s=16x16:r=100:d=0.03,"
           "format=yuv420p,geq=lum='if(lt(X\\,8)\\,0\\,255)':cb=128:"
           "cr=128\" -color_range tv -c:v ffv1 '%s'",
           path);
  ck_assert_int_eq(system(cmd), 0);
  rod_video *v;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_video_open(path, &v, &err), ROD_OK);
  rod_image *img = rod_image_alloc(0, 0);
  int frames = 0;
  for (;;) {
    bool end;
    double t;
    ck_assert_int_eq(rod_video_read(v, img, &t, &end, &err), ROD_OK);
    if (end)
      break;
    frames++;
    for (int p = 0; p < img->width * img->height; p++)
      ck_assert_msg(img->lum[p] == (p % 16 < 8 ? 0.0f : 1.0f), "pixel %d: %g",
                    p, img->lum[p]);
  }
  ck_assert_int_eq(frames, 3);
  rod_image_free(img);
  rod_video_close(v);
  rod_test_rmdir(dir);
}
END_TEST

START_TEST(writer_refuses_bad_options) {
  char dir[64], path[128];
  rod_test_dir(dir, sizeof dir, "rodsim_video");
  rod_video_writer_options o = rod_video_writer_default();
  rod_video_writer *w;
  rod_error err;
  snprintf(path, sizeof path, "%s/a.mp4", dir);
  o.fps = 0;
  ck_assert_int_eq(rod_video_writer_open(path, &o, &w, &err), ROD_EINVAL);
  o = rod_video_writer_default();
  snprintf(o.codec, sizeof o.codec, "no-such-codec");
  ck_assert_int_eq(rod_video_writer_open(path, &o, &w, &err), ROD_EINVAL);
  o = rod_video_writer_default();
  snprintf(path, sizeof path, "%s/a.unknownext", dir);
  ck_assert_int_eq(rod_video_writer_open(path, &o, &w, &err), ROD_EINVAL);
  snprintf(path, sizeof path, "%s/missing/a.mp4", dir);
  ck_assert_int_eq(rod_video_writer_open(path, &o, &w, &err), ROD_EIO);
  /* frames out of order */
  snprintf(path, sizeof path, "%s/b.mkv", dir);
  o.width = W;
  o.height = H;
  snprintf(o.codec, sizeof o.codec, "ffv1");
  ck_assert_int_eq(rod_video_writer_open(path, &o, &w, &err), ROD_OK);
  rod_image *img = rod_image_alloc(W, H);
  ck_assert_int_eq(rod_video_writer_add(w, img, 0.002, &err), ROD_OK);
  ck_assert_int_eq(rod_video_writer_add(w, img, 0.002, &err), ROD_EINVAL);
  rod_image *other = rod_image_alloc(W + 2, H);
  ck_assert_int_eq(rod_video_writer_add(w, other, 0.003, &err), ROD_EINVAL);
  ck_assert_int_eq(rod_video_writer_close(w, &err), ROD_OK);
  rod_image_free(img);
  rod_image_free(other);
  rod_test_rmdir(dir);
}
END_TEST

static Suite *video_suite(void) {
  Suite *s = suite_create("video");
  TCase *io = tcase_create("round trip");
  tcase_add_test(io, h264_mp4_round_trip);
  tcase_add_test(io, ffv1_mkv);
  tcase_add_test(io, avi_and_mov);
  tcase_add_test(io, variable_frame_rate);
  tcase_add_test(io, image_sequences);
  tcase_add_test(io, luma_follows_the_stream_matrix);
  suite_add_tcase(s, io);
  TCase *bad = tcase_create("hostile files");
  tcase_add_test(bad, missing_empty_and_foreign_files);
  tcase_add_test(bad, truncated_video);
  tcase_add_test(bad, corrupt_bytes_are_refused_or_survived);
  tcase_add_test(bad, writer_refuses_bad_options);
  tcase_add_test(bad, limited_range_beyond_black_and_white);
  tcase_add_test(bad, frame_without_timestamp_is_refused);
  tcase_add_test(bad, narrow_frames_through_swscale);
  suite_add_tcase(s, bad);
  return s;
}

ROD_TEST_MAIN(video_suite)
