/* The pieces of rod_track (track.h): one frame by either method, and the
 * centreline's pass over all frames once they are traced. */
#ifndef ROD_TRACK_INTERNAL_H
#define ROD_TRACK_INTERNAL_H

#include "rod/track.h"

typedef struct {
  const rod_track_options *o;
  rod_track_result *res;
  rod_camera_model camera; /* o's, with scale 1 while the rod's length is
                              to set it */
  int points;              /* K */
  rod_tracer *tracer;      /* centreline */
  double *world, *arc;     /* (tracer capacity x 2, capacity) scratch */
  int scratch_size;        /* points the scratch holds */
  unsigned char *traced;   /* (frames) the trace itself ended well */
  long room;               /* frames it holds */
  /* rightmost: the samples, grown as frames come; edge: the tip pixel
   * lies on the image's right, top or bottom border */
  double *t, *xz;
  unsigned char *edge;
  long samples, capacity;
} track_run;

/* The frame in img (at time t), rightmost rule: a sample of run->t, xz;
 * errors name file and key (frame_source_where). */
int track_rightmost_frame(track_run *run, rod_image *img, double t,
                          const char *file, const char *key, rod_error *err);

/* Frame i (at time t) of img, centreline: a frame of res->shape. */
int track_centreline_frame(track_run *run, const rod_image *img,
                           const rod_image *background, double t,
                           rod_error *err);

/* After the last frame: the scale from the rod's length, the reference
 * length and its flag, the valid flags, the counts and the tip data. */
int track_centreline_finish(track_run *run, const char *input, rod_error *err);

void track_run_release(track_run *run);

#endif
