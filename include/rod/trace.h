/* The rod's centreline in one frame, traced from the clamp
 * (docs/tracking.md).
 *
 * The trace starts at the clamp pixel and steps along the rod: at each
 * step it predicts the next centre from the last one and the turn of the
 * last steps, takes the luminance profile across the rod there, and puts
 * the centre midway between the profile's two crossings of the half-
 * contrast level (subpixel, by linear interpolation between samples). A
 * profile without the rod ends the trace, and the tip is where the
 * rod's own axis crosses the half-contrast level, beyond the last centre.
 * It follows the rod in any orientation, and around curls past vertical,
 * as long as the rod bends over more than a few widths.
 *
 * The rod stands out from its surroundings by its contrast: the signal is
 * s = ref - I for a dark rod, I - ref for a bright one (I the luminance,
 * ref a background image or a constant). The level of each profile is
 * its own background (the median of the profile, which spans about four
 * rod widths) plus half the rod's contrast measured in the first frame;
 * so smooth changes of lighting across the image do not move the centre.
 * A fixed threshold replaces that level when given.
 *
 * The first frame also gives the rod's apparent width and, unless it is
 * given, the direction in which the rod leaves the clamp (the darkest
 * arc on circles around it). Later frames start from the direction the
 * previous frame found. */
#ifndef ROD_TRACE_H
#define ROD_TRACE_H

#include <stdbool.h>

#include "rod/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ROD_POLARITY_DARK = 0, ROD_POLARITY_BRIGHT } rod_polarity;

typedef struct {
  double origin[2];    /* px: the clamp's pixel, where the trace starts */
  double direction[2]; /* the rod's direction at the clamp, in image axes (x
                          right, y down); (0, 0): found in the first frame */
  rod_polarity polarity;
  double threshold; /* > 0: the rod is where I < threshold (dark; > for
                       bright), or with a background where |I - ref| >
                       threshold, as a fraction of full scale; 0: half the
                       measured contrast above the local background */
  double step;      /* px between centres; 0: 2 */
} rod_trace_options;

/* Why a trace stopped short of a trustworthy tip; 0 when it did not. */
enum {
  ROD_TRACE_NO_ROD = 1,  /* no rod at the clamp */
  ROD_TRACE_EDGE = 2,    /* the rod runs into the image's border */
  ROD_TRACE_TOO_LONG = 4 /* longer than twice the image's perimeter */
};

typedef struct {
  int n;           /* points: the clamp, the centres, the tip */
  double *xy;      /* (n x 2) px, owned by the tracer, valid until its next
                      trace */
  double length;   /* px along the points */
  double width;    /* px, median rod width across the profiles */
  double contrast; /* median rod contrast (fraction of full scale) */
  int status;      /* ROD_TRACE_* bits */
} rod_trace;

typedef struct rod_tracer rod_tracer;

/* A tracer for frames of width x height pixels. NULL if out of memory or
 * the options are out of range (origin not finite, step < 0, threshold
 * outside [0, 1), direction not finite). */
rod_tracer *rod_tracer_alloc(const rod_trace_options *o, int width, int height);
void rod_tracer_free(rod_tracer *t);

/* Trace img (the tracer's size), with background (NULL: none; else the
 * same size) subtracted. The first successful trace calibrates width,
 * contrast and direction; ROD_OK even for a failed trace (see
 * out->status); ROD_EINVAL for an image of another size. */
int rod_tracer_run(rod_tracer *t, const rod_image *img,
                   const rod_image *background, rod_trace *out);

/* The rod's apparent width (px) and contrast the tracer settled on; 0
 * before a successful first trace. */
double rod_tracer_width(const rod_tracer *t);
double rod_tracer_contrast(const rod_tracer *t);

#ifdef __cplusplus
}
#endif

#endif
