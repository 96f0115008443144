/* Luminance frames into a video file through libavcodec and libavformat
 * (rod/video.h), in the video module (video_module.h). */
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rod/video.h"
#include "track/av_log.h"
#include "track/video_codec.h"

struct rod_video_writer {
  char *path;
  AVFormatContext *fmt;
  AVCodecContext *enc;
  AVStream *stream;
  AVFrame *frame;
  AVPacket *pkt;
  bool header_written, limited; /* limited: luma 16..235 */
  int64_t last_pts;
};

const char *video_default_codec(void) {
  return avcodec_find_encoder_by_name("libx264") ? "libx264" : "mpeg4";
}

static int fail(const rod_video_writer *w, int status, rod_error *err,
                const char *what, int averr) {
  char reason[AV_ERROR_MAX_STRING_SIZE] = "";
  if (averr < 0)
    av_strerror(averr, reason, sizeof reason);
  const char *log = rod_av_last_log();
  return rod_error_set(err, status, w->path, NULL, "%s%s%s%s%s%s", what,
                       reason[0] || log[0] ? " (" : "", reason,
                       reason[0] && log[0] ? ": " : "", log,
                       reason[0] || log[0] ? ")" : "");
}

/* The first of the formats we can fill that the encoder takes. */
static enum AVPixelFormat pick_format(const AVCodec *c) {
  static const enum AVPixelFormat ours[] = {
      AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_GRAY8};
  if (!c->pix_fmts)
    return AV_PIX_FMT_YUV420P;
  for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
    for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE; p++)
      if (*p == ours[k])
        return ours[k];
  return AV_PIX_FMT_NONE;
}

static int timescale_of(const rod_video_writer_options *o) {
  if (o->timescale > 0)
    return o->timescale;
  return o->fps == floor(o->fps) && o->fps <= 1e6 ? (int)o->fps : 1000000;
}

static int setup_encoder(rod_video_writer *w, const rod_video_writer_options *o,
                         rod_error *err) {
  const char *name = o->codec[0] ? o->codec : video_default_codec();
  const AVCodec *codec = avcodec_find_encoder_by_name(name);
  if (!codec || codec->type != AVMEDIA_TYPE_VIDEO)
    return rod_error_set(err, ROD_EINVAL, w->path, NULL,
                         "no video encoder '%s' in this FFmpeg", name);
  enum AVPixelFormat pix = pick_format(codec);
  if (pix == AV_PIX_FMT_NONE)
    return rod_error_set(err, ROD_EINVAL, w->path, NULL,
                         "the %s encoder takes no 8-bit YUV or gray frames",
                         name);
  if (!(w->enc = avcodec_alloc_context3(codec)))
    return rod_error_set(err, ROD_ENOMEM, w->path, NULL, "out of memory");
  AVCodecContext *e = w->enc;
  e->width = o->width;
  e->height = o->height;
  e->pix_fmt = pix;
  e->time_base = (AVRational){1, timescale_of(o)};
  e->framerate = av_d2q(o->fps, 1000000);
  e->color_range =
      pix == AV_PIX_FMT_YUV420P ? AVCOL_RANGE_MPEG : AVCOL_RANGE_JPEG;
  e->colorspace = AVCOL_SPC_BT709;
  e->color_primaries = AVCOL_PRI_BT709;
  e->color_trc = AVCOL_TRC_BT709;
  e->thread_count = 0;
  w->limited = pix == AV_PIX_FMT_YUV420P;
  if (w->fmt->oformat->flags & AVFMT_GLOBALHEADER)
    e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (strcmp(codec->name, "libx264") == 0) {
    av_opt_set(e->priv_data, "preset", "veryfast", 0);
    av_opt_set_double(e->priv_data, "crf", o->crf < 0 ? 18 : o->crf, 0);
  } else if (strcmp(codec->name, "mpeg4") == 0) {
    e->flags |= AV_CODEC_FLAG_QSCALE; /* constant quality, qscale 2 */
    e->global_quality = 2 * FF_QP2LAMBDA;
  }
  int ret = avcodec_open2(e, codec, NULL);
  if (ret < 0)
    return fail(w, ROD_EINVAL, err, "cannot start the encoder", ret);
  return ROD_OK;
}

static int setup_output(rod_video_writer *w, rod_error *err) {
  if (!(w->stream = avformat_new_stream(w->fmt, NULL)))
    return rod_error_set(err, ROD_ENOMEM, w->path, NULL, "out of memory");
  w->stream->time_base = w->enc->time_base;
  w->stream->avg_frame_rate = w->enc->framerate;
  int ret = avcodec_parameters_from_context(w->stream->codecpar, w->enc);
  if (ret < 0)
    return fail(w, ROD_EINVAL, err, "cannot set up the stream", ret);
  if (!(w->fmt->oformat->flags & AVFMT_NOFILE) &&
      (ret = avio_open(&w->fmt->pb, w->path, AVIO_FLAG_WRITE)) < 0)
    return rod_error_set(err, ROD_EIO, w->path, NULL, "cannot create (%s)",
                         av_err2str(ret));
  if ((ret = avformat_write_header(w->fmt, NULL)) < 0)
    return fail(w, ROD_EIO, err, "cannot write the header", ret);
  w->header_written = true;
  if (!(w->frame = av_frame_alloc()) || !(w->pkt = av_packet_alloc()))
    return rod_error_set(err, ROD_ENOMEM, w->path, NULL, "out of memory");
  w->frame->format = w->enc->pix_fmt;
  w->frame->width = w->enc->width;
  w->frame->height = w->enc->height;
  w->frame->color_range = w->enc->color_range;
  if ((ret = av_frame_get_buffer(w->frame, 0)) < 0)
    return rod_error_set(err, ROD_ENOMEM, w->path, NULL, "out of memory");
  return ROD_OK;
}

static void free_writer(rod_video_writer *w) {
  av_frame_free(&w->frame);
  av_packet_free(&w->pkt);
  avcodec_free_context(&w->enc);
  if (w->fmt && !(w->fmt->oformat->flags & AVFMT_NOFILE))
    avio_closep(&w->fmt->pb);
  avformat_free_context(w->fmt);
  free(w->path);
  free(w);
}

int video_writer_open(const char *path, const rod_video_writer_options *o,
                      rod_video_writer **out, rod_error *err) {
  *out = NULL;
  rod_av_log_capture();
  rod_av_clear_log();
  rod_video_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = strdup(path))) {
    free(w);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  w->last_pts = INT64_MIN;
  int st = ROD_OK;
  if (o->width <= 0 || o->height <= 0 || o->width > 16384 ||
      o->height > 16384 || !(o->fps > 0) || !isfinite(o->fps))
    st = rod_error_set(err, ROD_EINVAL, path, NULL,
                       "bad video size or rate (%dx%d, %g fps)", o->width,
                       o->height, o->fps);
  else if (avformat_alloc_output_context2(&w->fmt, NULL, NULL, path) < 0 ||
           !w->fmt)
    st = rod_error_set(err, ROD_EINVAL, path, NULL,
                       "no video container for this file name (use .mp4, "
                       ".mkv, .avi or .mov)");
  if (st == ROD_OK)
    st = setup_encoder(w, o, err);
  if (st == ROD_OK)
    st = setup_output(w, err);
  if (st != ROD_OK) {
    free_writer(w);
    return st;
  }
  *out = w;
  return ROD_OK;
}

/* Packets the encoder has ready, into the file. */
static int drain(rod_video_writer *w, rod_error *err) {
  for (;;) {
    int ret = avcodec_receive_packet(w->enc, w->pkt);
    if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
      return ROD_OK;
    if (ret < 0)
      return fail(w, ROD_EIO, err, "encoding failed", ret);
    av_packet_rescale_ts(w->pkt, w->enc->time_base, w->stream->time_base);
    w->pkt->stream_index = w->stream->index;
    ret = av_interleaved_write_frame(w->fmt, w->pkt);
    if (ret < 0)
      return fail(w, ROD_EIO, err, "cannot write", ret);
  }
}

static uint8_t level(float v, bool limited) {
  v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
  return (uint8_t)lrintf(limited ? 16.0f + 219.0f * v : 255.0f * v);
}

int video_writer_add(rod_video_writer *w, const rod_image *img, double t,
                     rod_error *err) {
  rod_av_clear_log();
  if (img->width != w->enc->width || img->height != w->enc->height)
    return rod_error_set(err, ROD_EINVAL, w->path, NULL,
                         "frame of %dx%d pixels, the video is %dx%d",
                         img->width, img->height, w->enc->width,
                         w->enc->height);
  double ticks = t / av_q2d(w->enc->time_base);
  if (!isfinite(ticks) || fabs(ticks) > 9e15 || llround(ticks) <= w->last_pts)
    return rod_error_set(err, ROD_EINVAL, w->path, NULL,
                         "frame time %.9g s is not a tick after the last", t);
  int ret = av_frame_make_writable(w->frame);
  if (ret < 0)
    return fail(w, ROD_ENOMEM, err, "out of memory", ret);
  AVFrame *f = w->frame;
  for (int r = 0; r < img->height; r++) {
    const float *in = img->lum + (size_t)r * (size_t)img->width;
    uint8_t *y = f->data[0] + (ptrdiff_t)r * f->linesize[0];
    for (int c = 0; c < img->width; c++)
      y[c] = level(in[c], w->limited);
  }
  for (int p = 1; p <= 2 && f->data[p]; p++)
    for (int r = 0; r < (img->height + 1) / 2; r++)
      memset(f->data[p] + (ptrdiff_t)r * f->linesize[p], 128,
             (size_t)(img->width + 1) / 2);
  f->pts = w->last_pts = llround(ticks);
  ret = avcodec_send_frame(w->enc, f);
  if (ret < 0)
    return fail(w, ROD_EIO, err, "encoding failed", ret);
  return drain(w, err);
}

int video_writer_close(rod_video_writer *w, rod_error *err) {
  if (!w)
    return ROD_OK;
  rod_av_clear_log();
  int st = ROD_OK;
  if (w->header_written) {
    int ret = avcodec_send_frame(w->enc, NULL);
    st =
        ret < 0 ? fail(w, ROD_EIO, err, "encoding failed", ret) : drain(w, err);
    ret = av_write_trailer(w->fmt);
    if (st == ROD_OK && ret < 0)
      st = fail(w, ROD_EIO, err, "cannot finish the file", ret);
  }
  if (w->fmt && !(w->fmt->oformat->flags & AVFMT_NOFILE) && w->fmt->pb) {
    int ret = avio_closep(&w->fmt->pb);
    if (st == ROD_OK && ret < 0)
      st = rod_error_set(err, ROD_EIO, w->path, NULL, "write error (%s)",
                         av_err2str(ret));
  }
  free_writer(w);
  return st;
}
