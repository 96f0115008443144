/* Video frames to luminance through libavformat, libavcodec and libswscale
 * (rod/video.h), in the video module (video_module.h). */
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rod/video.h"
#include "track/av_log.h"
#include "track/video_codec.h"

struct rod_video {
  char *path;
  AVFormatContext *fmt;
  AVCodecContext *dec;
  AVPacket *pkt;
  AVFrame *frame;
  int stream;
  AVRational time_base;
  struct SwsContext *sws; /* RGB, palette and other non-YUV frames */
  uint16_t *gray;         /* swscale's output, height lines of gray_line */
  int gray_line;          /* B a line of it: whole 64-byte blocks */
  rod_video_info info;
  long decoded;
  int64_t first_pts;
  double last_t;
  double declared; /* s the container says the video lasts; 0: unknown */
  bool flushing;
};

/* The frame-indexed error of rod_video_read: {path, "frame N", message}. */
static int frame_error(const rod_video *v, int status, rod_error *err,
                       const char *what, int averr) {
  char reason[AV_ERROR_MAX_STRING_SIZE] = "";
  if (averr < 0)
    av_strerror(averr, reason, sizeof reason);
  char key[32];
  snprintf(key, sizeof key, "frame %ld", v->decoded);
  const char *log = rod_av_last_log();
  return rod_error_set(err, status, v->path, key, "%s%s%s%s%s%s", what,
                       reason[0] || log[0] ? " (" : "", reason,
                       reason[0] && log[0] ? ": " : "", log,
                       reason[0] || log[0] ? ")" : "");
}

static bool name_is(const char *name, const char *want) {
  return name && strcmp(name, want) == 0;
}

/* Demuxers whose timestamps FFmpeg makes up from a default rate: image
 * sequences and raw elementary streams. */
static bool has_real_timestamps(const AVInputFormat *f) {
  return !(f->flags & AVFMT_NOTIMESTAMPS) && !name_is(f->name, "image2") &&
         !strstr(f->name, "_pipe") && !name_is(f->name, "image2pipe");
}

static int open_decoder(rod_video *v, rod_error *err) {
  const AVCodec *codec = NULL;
  int s = av_find_best_stream(v->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (s == AVERROR_STREAM_NOT_FOUND)
    return rod_error_set(err, ROD_EINVAL, v->path, NULL, "no video stream");
  if (s < 0 || !codec)
    return rod_error_set(
        err, ROD_EINVAL, v->path, NULL,
        "no decoder for its video stream (codec %s)",
        s >= 0 ? avcodec_get_name(v->fmt->streams[s]->codecpar->codec_id)
               : "unknown");
  AVStream *st = v->fmt->streams[s];
  v->stream = s;
  v->time_base = st->time_base;
  if (!(v->dec = avcodec_alloc_context3(codec)))
    return rod_error_set(err, ROD_ENOMEM, v->path, NULL, "out of memory");
  int ret = avcodec_parameters_to_context(v->dec, st->codecpar);
  /* decoder threads: slices and frames, as many as there are cores */
  v->dec->thread_count = 0;
  if (ret >= 0)
    ret = avcodec_open2(v->dec, codec, NULL);
  if (ret < 0)
    return rod_error_set(err, ROD_EINVAL, v->path, NULL,
                         "cannot start the %s decoder (%s)", codec->name,
                         av_err2str(ret));
  rod_video_info *in = &v->info;
  in->width = st->codecpar->width;
  in->height = st->codecpar->height;
  /* the mean rate the container declares, else the base rate FFmpeg
   * reads from the first frames' times (Matroska declares none) */
  AVRational rate = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0
                        ? st->avg_frame_rate
                        : st->r_frame_rate;
  in->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
  in->frames = st->nb_frames > 0 ? (long)st->nb_frames : -1;
  in->timestamps = has_real_timestamps(v->fmt->iformat);
  /* a duration from the container's header (not a guess from the bit
   * rate) tells a truncated file from a whole one where no frame count is
   * declared (Matroska) */
  if (in->timestamps && v->fmt->duration > 0 &&
      v->fmt->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE)
    in->duration = (double)v->fmt->duration / AV_TIME_BASE;
  if (in->frames < 0 && v->fmt->nb_streams == 1)
    v->declared = in->duration;
  snprintf(in->format, sizeof in->format, "%s", v->fmt->iformat->name);
  snprintf(in->codec, sizeof in->codec, "%s", codec->name);
  const char *pix = av_get_pix_fmt_name(v->dec->pix_fmt);
  snprintf(in->pixel_format, sizeof in->pixel_format, "%s",
           pix ? pix : "unknown");
  return ROD_OK;
}

int video_open(const char *path, rod_video **out, rod_error *err) {
  *out = NULL;
  rod_av_log_capture();
  rod_video *v = calloc(1, sizeof *v);
  if (!v || !(v->path = strdup(path))) {
    free(v);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  v->first_pts = AV_NOPTS_VALUE;
  v->last_t = -INFINITY;
  /* local files only: a path must not reach the network or other
   * protocols through FFmpeg's URL syntax */
  AVDictionary *opts = NULL;
  av_dict_set(&opts, "protocol_whitelist", "file", 0);
  int ret = avformat_open_input(&v->fmt, path, NULL, &opts);
  av_dict_free(&opts);
  int st = ROD_OK;
  if (ret < 0)
    st = rod_error_set(err, ret == AVERROR(ENOENT) ? ROD_EIO : ROD_EINVAL, path,
                       NULL, "%s (%s)",
                       ret == AVERROR(ENOENT) || ret == AVERROR(EACCES)
                           ? "cannot open"
                           : "not a video file FFmpeg can read",
                       av_err2str(ret));
  else if ((ret = avformat_find_stream_info(v->fmt, NULL)) < 0)
    st = rod_error_set(err, ROD_EINVAL, path, NULL,
                       "cannot read the stream layout (%s)", av_err2str(ret));
  else
    st = open_decoder(v, err);
  if (st == ROD_OK &&
      (!(v->pkt = av_packet_alloc()) || !(v->frame = av_frame_alloc())))
    st = rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  if (st != ROD_OK) {
    video_close(v);
    return st;
  }
  *out = v;
  return ROD_OK;
}

const rod_video_info *video_get_info(const rod_video *v) { return &v->info; }

long video_frame_count(const rod_video *v) { return v->decoded; }

void video_close(rod_video *v) {
  if (!v)
    return;
  av_frame_free(&v->frame);
  av_packet_free(&v->pkt);
  avcodec_free_context(&v->dec);
  avformat_close_input(&v->fmt);
  sws_freeContext(v->sws);
  av_free(v->gray);
  free(v->path);
  free(v);
}

/* ---- luma --------------------------------------------------------------*/

/* The luma plane is readable as it is: YUV and gray formats (not RGB,
 * palette, Bayer, float, XYZ or hardware frames). */
static bool direct_luma(const AVPixFmtDescriptor *d) {
  const uint64_t other = AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL |
                         AV_PIX_FMT_FLAG_BAYER | AV_PIX_FMT_FLAG_FLOAT |
                         AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM;
  return d && !(d->flags & other) && d->nb_components >= 1 &&
         d->comp[0].depth >= 8 && d->comp[0].depth <= 16 &&
         strncmp(d->name, "xyz", 3) != 0;
}

/* Full range (0 .. 2^d - 1) or limited (16 .. 235 scaled to d bits): what
 * the frame says, else full for the JPEG formats and gray, limited for
 * video YUV. */
static bool full_range(const AVFrame *f, const AVPixFmtDescriptor *d) {
  if (f->color_range == AVCOL_RANGE_JPEG)
    return true;
  if (f->color_range == AVCOL_RANGE_MPEG)
    return false;
  return strncmp(d->name, "yuvj", 4) == 0 || d->nb_components <= 2;
}

/* The luma weights (Kr, Kb) of the matrix that made a frame's Y'CbCr
 * from R'G'B' (ITU-T H.273, Table 4). A stream that does not say is taken
 * as BT.601 below 1280x720 and BT.709 from there on, the convention of
 * players (standard- and high-definition video). false for matrices whose
 * Y' is not such a weighted sum (YCgCo, constant luminance, ICtCp): their
 * luma plane is taken as it is. */
static bool matrix_weights(const AVFrame *f, double *kr, double *kb) {
  switch (f->colorspace) {
  case AVCOL_SPC_BT709:
    *kr = 0.2126, *kb = 0.0722;
    return true;
  case AVCOL_SPC_BT470BG:
  case AVCOL_SPC_SMPTE170M:
    *kr = 0.299, *kb = 0.114;
    return true;
  case AVCOL_SPC_FCC:
    *kr = 0.30, *kb = 0.11;
    return true;
  case AVCOL_SPC_SMPTE240M:
    *kr = 0.212, *kb = 0.087;
    return true;
  case AVCOL_SPC_BT2020_NCL:
    *kr = 0.2627, *kb = 0.0593;
    return true;
  case AVCOL_SPC_UNSPECIFIED:
  case AVCOL_SPC_RESERVED:
    if (f->width >= 1280 || f->height >= 720)
      *kr = 0.2126, *kb = 0.0722;
    else
      *kr = 0.299, *kb = 0.114;
    return true;
  default:
    return false;
  }
}

/* Rec. 709 luma from a frame whose matrix has weights (Kr, Kb): with
 * R' = Y' + 2 (1 - Kr) Pr, B' = Y' + 2 (1 - Kb) Pb and G' from
 * Y' = Kr R' + Kg G' + Kb B', the Rec. 709 weights (kr, kg, kb) give
 * kr R' + kg G' + kb B' = Y' + cb Pb + cr Pr with
 * cr = 2 (1 - Kr) (kr - kg Kr / Kg), cb = 2 (1 - Kb) (kb - kg Kb / Kg);
 * both vanish for the Rec. 709 matrix itself. */
static void chroma_weights(double Kr, double Kb, double *cb, double *cr) {
  const double kr = 0.2126, kb = 0.0722, kg = 1 - kr - kb, Kg = 1 - Kr - Kb;
  *cr = 2 * (1 - Kr) * (kr - kg * Kr / Kg);
  *cb = 2 * (1 - Kb) * (kb - kg * Kb / Kg);
}

/* Sample (x, y) of component c (in its own plane's resolution). */
static unsigned component_at(const AVFrame *f, const AVComponentDescriptor *c,
                             bool big, int x, int y) {
  const uint8_t *p = f->data[c->plane] + (ptrdiff_t)y * f->linesize[c->plane] +
                     (ptrdiff_t)x * c->step + c->offset;
  unsigned v = c->depth > 8 ? (big ? (unsigned)p[0] << 8 | p[1]
                                   : (unsigned)p[1] << 8 | p[0])
                            : p[0];
  return (v >> c->shift) & ((1u << c->depth) - 1u);
}

/* Pb and Pr of a chroma sample: (C - mid) / range, range 224 steps of
 * 2^(d-8) (limited) or 2^d - 1 (full). */
typedef struct {
  double mid, scale; /* Pb = (Cb - mid) * scale */
  double cb, cr;     /* chroma_weights */
  int sw, sh;        /* log2 of the chroma subsampling */
} chroma_map;

static void luma_direct(const AVFrame *f, const AVPixFmtDescriptor *d,
                        float *lum) {
  const AVComponentDescriptor *c = &d->comp[0];
  const int depth = c->depth, w = f->width, h = f->height;
  const bool full = full_range(f, d), big = d->flags & AV_PIX_FMT_FLAG_BE;
  const double lo = full ? 0 : 16 << (depth - 8),
               hi = full ? (1 << depth) - 1 : 235 << (depth - 8);
  const float a = (float)(1.0 / (hi - lo)), b = (float)(-lo / (hi - lo));
  /* chroma enters unless the frame's matrix is Rec. 709's already */
  double Kr, Kb;
  bool mix = d->nb_components >= 3 && matrix_weights(f, &Kr, &Kb) &&
             !(Kr == 0.2126 && Kb == 0.0722) && d->comp[1].depth == depth &&
             d->comp[2].depth == depth;
  chroma_map cm = {0};
  float tcb[256], tcr[256];
  if (mix) {
    chroma_weights(Kr, Kb, &cm.cb, &cm.cr);
    cm.mid = (double)(1 << (depth - 1));
    cm.scale = full ? 1.0 / ((1 << depth) - 1) : 1.0 / (224 << (depth - 8));
    cm.sw = d->log2_chroma_w;
    cm.sh = d->log2_chroma_h;
    for (int k = 0; depth == 8 && k < 256; k++) {
      tcb[k] = (float)(cm.cb * (k - cm.mid) * cm.scale);
      tcr[k] = (float)(cm.cr * (k - cm.mid) * cm.scale);
    }
  }
  const AVComponentDescriptor *u = &d->comp[1], *v = &d->comp[2];
  const bool planar8 = depth == 8 && c->step == 1 && c->shift == 0 &&
                       (!mix || (u->step == 1 && v->step == 1 &&
                                 u->shift == 0 && v->shift == 0));
  for (int r = 0; r < h; r++) {
    const uint8_t *row =
        f->data[c->plane] + (ptrdiff_t)r * f->linesize[c->plane];
    float *out = lum + (size_t)r * (size_t)w;
    if (planar8 && !mix) {
      /* a * Y + b in line: the compiler vectorises it */
      for (int x = 0; x < w; x++)
        out[x] = a * (float)row[x] + b;
      continue;
    }
    if (planar8) {
      const int rc = r >> cm.sh;
      const uint8_t *pb =
          f->data[u->plane] + (ptrdiff_t)rc * f->linesize[u->plane] + u->offset;
      const uint8_t *pr =
          f->data[v->plane] + (ptrdiff_t)rc * f->linesize[v->plane] + v->offset;
      for (int x = 0; x < w; x++)
        out[x] =
            a * (float)row[x] + b + tcb[pb[x >> cm.sw]] + tcr[pr[x >> cm.sw]];
      continue;
    }
    for (int x = 0; x < w; x++) {
      out[x] = a * (float)component_at(f, c, big, x, r) + b;
      if (mix) {
        const int xc = x >> cm.sw, yc = r >> cm.sh;
        out[x] += (float)(cm.scale *
                          (cm.cb * (component_at(f, u, big, xc, yc) - cm.mid) +
                           cm.cr * (component_at(f, v, big, xc, yc) - cm.mid)));
      }
    }
  }
  /* values a limited-range stream codes below black (0-15 at 8 bits) or
   * above white (236-255), and chroma mixed in, can leave [0, 1]: they are
   * black and full scale (image.h) */
  for (size_t p = 0, n = (size_t)w * (size_t)h; p < n; p++)
    lum[p] = lum[p] < 0.0f ? 0.0f : lum[p] > 1.0f ? 1.0f : lum[p];
}

/* Everything else through swscale to 16-bit gray, full range, with the
 * Rec. 709 luma weights (as the PNG reader). */
static int luma_swscale(rod_video *v, const AVFrame *f, float *lum,
                        rod_error *err) {
  const int w = f->width, h = f->height;
  v->sws = sws_getCachedContext(v->sws, w, h, f->format, w, h,
                                AV_PIX_FMT_GRAY16, SWS_POINT, NULL, NULL, NULL);
  if (!v->sws)
    return frame_error(v, ROD_EINVAL, err,
                       "cannot convert this pixel format to gray", 0);
  const int *bt709 = sws_getCoefficients(SWS_CS_ITU709);
  sws_setColorspaceDetails(v->sws, bt709, 1, bt709, 1, 0, 1 << 16, 1 << 16);
  /* swscale's vector code writes a line in whole blocks, past its last
   * pixel: lines of whole 64-byte blocks, aligned, and a block to spare
   * after the last (a line of w pixels alone let a narrow frame's last
   * line run into the memory after it: a fuzzing find, an AVI of 8 x 8
   * pixels whose writes corrupted the demuxer's options) */
  if (!v->gray) {
    v->gray_line = (w * (int)sizeof *v->gray + 63) / 64 * 64;
    if (!(v->gray = av_malloc((size_t)v->gray_line * (size_t)h + 64)))
      return frame_error(v, ROD_ENOMEM, err, "out of memory", 0);
  }
  uint8_t *dst[4] = {(uint8_t *)v->gray, NULL, NULL, NULL};
  int stride[4] = {v->gray_line, 0, 0, 0};
  sws_scale(v->sws, (const uint8_t *const *)f->data, f->linesize, 0, h, dst,
            stride);
  const size_t line = (size_t)v->gray_line / sizeof *v->gray;
  for (size_t y = 0; y < (size_t)h; y++)
    for (size_t x = 0; x < (size_t)w; x++)
      lum[y * (size_t)w + x] = (float)v->gray[y * line + x] * (1.0f / 65535.0f);
  return ROD_OK;
}

/* Give an empty image the video's size; a sized one must have it. A
 * frame must have the size the video declares (rod_video_get_info, which
 * the camera and the tracker's pixel coordinates rely on): a corrupt file
 * whose frame decodes to another size is refused, not passed on. A video
 * that declares no size takes its first frame's. */
static int fit_image(rod_video *v, rod_image *img, const AVFrame *f,
                     rod_error *err) {
  if (f->width <= 0 || f->height <= 0 ||
      av_image_check_size((unsigned)f->width, (unsigned)f->height, 0, NULL) < 0)
    return frame_error(v, ROD_EINVAL, err, "invalid frame size", 0);
  if (v->info.width <= 0 || v->info.height <= 0) {
    v->info.width = f->width;
    v->info.height = f->height;
  } else if (f->width != v->info.width || f->height != v->info.height) {
    char what[96];
    snprintf(what, sizeof what, "%dx%d pixels, the video declares %dx%d",
             f->width, f->height, v->info.width, v->info.height);
    return frame_error(v, ROD_EINVAL, err, what, 0);
  }
  if (img->width == f->width && img->height == f->height)
    return ROD_OK;
  if (img->width > 0 || img->height > 0) {
    char what[96];
    snprintf(what, sizeof what, "%dx%d pixels, expected %dx%d", f->width,
             f->height, img->width, img->height);
    return frame_error(v, ROD_EINVAL, err, what, 0);
  }
  float *lum =
      realloc(img->lum, (size_t)f->width * (size_t)f->height * sizeof *lum);
  if (!lum)
    return frame_error(v, ROD_ENOMEM, err, "out of memory", 0);
  img->lum = lum;
  img->width = f->width;
  img->height = f->height;
  return ROD_OK;
}

/* The decoded frame into img and its time. */
static int take_frame(rod_video *v, rod_image *img, double *t, rod_error *err) {
  AVFrame *f = v->frame;
  if (f->flags & AV_FRAME_FLAG_CORRUPT || f->decode_error_flags)
    return frame_error(v, ROD_EINVAL, err,
                       "corrupt: the decoder could not decode it whole", 0);
  int st = fit_image(v, img, f, err);
  if (st != ROD_OK)
    return st;
  const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
  if (direct_luma(d))
    luma_direct(f, d, img->lum);
  else if ((st = luma_swscale(v, f, img->lum, err)) != ROD_OK)
    return st;
  *t = NAN;
  int64_t pts = f->best_effort_timestamp;
  if (v->info.timestamps && pts == AV_NOPTS_VALUE)
    return frame_error(v, ROD_EINVAL, err,
                       "has no timestamp, where the video's other frames "
                       "have them",
                       0);
  if (v->info.timestamps) {
    if (v->first_pts == AV_NOPTS_VALUE)
      v->first_pts = pts;
    *t = (double)(pts - v->first_pts) * av_q2d(v->time_base);
    if (!(*t > v->last_t)) {
      char what[128];
      snprintf(what, sizeof what,
               "timestamp %.9g s is not after the previous frame's (%.9g s)",
               *t, v->last_t);
      return frame_error(v, ROD_EINVAL, err, what, 0);
    }
    v->last_t = *t;
  }
  v->decoded++;
  return ROD_OK;
}

/* Feed the decoder one packet of our stream (or the end); 1 when the
 * input is exhausted and the decoder drained. */
static int feed(rod_video *v, rod_error *err) {
  if (v->flushing)
    return 1;
  for (;;) {
    int ret = av_read_frame(v->fmt, v->pkt);
    if (ret == AVERROR_EOF) {
      v->flushing = true;
      avcodec_send_packet(v->dec, NULL);
      return ROD_OK;
    }
    if (ret < 0)
      return frame_error(v, ROD_EINVAL, err, "cannot read the file", ret);
    if (v->pkt->stream_index != v->stream) {
      av_packet_unref(v->pkt);
      continue;
    }
    ret = avcodec_send_packet(v->dec, v->pkt);
    av_packet_unref(v->pkt);
    if (ret < 0 && ret != AVERROR(EAGAIN))
      return frame_error(v, ROD_EINVAL, err, "corrupt video data", ret);
    return ROD_OK;
  }
}

int video_read(rod_video *v, rod_image *img, double *t, bool *end,
               rod_error *err) {
  *end = false;
  rod_av_clear_log();
  for (;;) {
    int ret = avcodec_receive_frame(v->dec, v->frame);
    if (ret == 0) {
      int st = take_frame(v, img, t, err);
      av_frame_unref(v->frame);
      return st;
    }
    if (ret == AVERROR_EOF)
      break;
    if (ret != AVERROR(EAGAIN))
      return frame_error(v, ROD_EINVAL, err, "corrupt video data", ret);
    int st = feed(v, err);
    if (st == 1)
      break;
    if (st != ROD_OK)
      return st;
  }
  if (v->info.frames > 0 && v->decoded < v->info.frames) {
    char what[96];
    snprintf(what, sizeof what,
             "the file ends after %ld of the %ld frames it declares",
             v->decoded, v->info.frames);
    return frame_error(v, ROD_EINVAL, err, what, 0);
  }
  if (v->decoded == 0)
    return rod_error_set(err, ROD_EINVAL, v->path, NULL, "no frames");
  /* the frames cover the container's clock up to the last one's time plus
   * a mean interval; a whole file reaches its declared duration (which
   * counts from 0 on that clock) within that last interval */
  double interval = v->decoded > 1 ? v->last_t / (double)(v->decoded - 1) : 0;
  double last_end = v->last_t + (double)v->first_pts * av_q2d(v->time_base);
  if (v->declared > 0 && isfinite(v->last_t) &&
      v->first_pts != AV_NOPTS_VALUE &&
      last_end + interval < v->declared - 1.5 * interval - 1e-6) {
    char what[128];
    snprintf(what, sizeof what,
             "the file ends at %.6g s of the %.6g s it declares", last_end,
             v->declared);
    return frame_error(v, ROD_EINVAL, err, what, 0);
  }
  *end = true;
  return ROD_OK;
}
