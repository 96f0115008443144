/* A run's tip at arbitrary times: the trajectory objective, the features
 * and the synthetic data all read simulations this way. */
#include "calibrate_internal.h"
#include "signal/signal.h"

void calib_resample(const rod_recorder *rec, int c, const double *t, int n,
                    double *slopes, double *out, size_t stride) {
  const double *tip = rec->tip + c;
  if (rec->count >= 2)
    rod_signal_slopes(rec->t, rec->count, tip, 3, slopes + c);
  int hint = 0;
  for (int i = 0; i < n; i++)
    out[(size_t)i * stride] =
        rec->count >= 2 ? rod_signal_hermite(rec->t, rec->count, tip,
                                             slopes + c, 3, t[i], &hint)
                        : tip[0];
}
