/* RFEM against the Kirchhoff rod (rodsim compare): the dominant tip
 * frequency of each run and the tip trajectory error over common times
 * (docs/commands.md). */
#ifndef ROD_COMPARE_H
#define ROD_COMPARE_H

#include "rod/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double frequency; /* Hz, dominant frequency of the tip z after t = 0 */
  double rms_error; /* m, rms of |tip - reference tip| */
  double max_error; /* m, max of |tip - reference tip| */
  int common;       /* samples compared */
} rod_compare_result;

/* Dominant frequency (Hz) of the tip's z coordinate after t = 0: upward
 * zero crossings of z minus its mean refined by a least-squares sine fit
 * (src/signal/signal.h). ROD_EINVAL when the run holds fewer than two periods.
 */
int rod_compare_frequency(const rod_recorder *r, double *hz);

/* Tip distance between run and reference at the run's sample times within
 * the reference's span (the reference interpolated by cubic Hermite when
 * its times differ). */
int rod_compare_tips(const rod_recorder *run, const rod_recorder *ref,
                     rod_compare_result *out);

#ifdef __cplusplus
}
#endif

#endif
