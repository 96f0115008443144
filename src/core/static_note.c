/* The static report's words (static_note.h). */
#include "core/static_note.h"

#include <math.h>
#include <stdio.h>

#include "core/v3.h"

void rod_static_imperfection_dir(const double d[3], int out_of_plane,
                                 double dir[3]) {
  double ey[3] = {0, 1, 0};
  if (out_of_plane) {
    v3_copy(dir, ey);
    return;
  }
  v3_cross(dir, ey, d); /* in the plane, across the tangent */
  if (v3_norm(dir) < 1e-6)
    v3_set(dir, 1, 0, 0);
  v3_normalize(dir);
}

void rod_static_note_side(rod_static_report *rep, int index,
                          const double tip[3], const double tip0[3],
                          const double d0[3]) {
  static const char axis[] = "xyz";
  double d[3];
  v3_sub(d, tip, tip0);
  v3_axpy(d, -v3_dot(d, d0), d0); /* across the unloaded tip's tangent */
  int a = 0;
  for (int i = 1; i < 3; i++)
    if (fabs(d[i]) > fabs(d[a]))
      a = i;
  snprintf(rep->note, sizeof rep->note,
           "the loads leave the rod's unloaded direction unstable (%d "
           "unstable direction%s) and do not choose a side: took the "
           "state in which the tip moved %s%.3g m along %c (set "
           "tip.preload to choose)",
           index, index == 1 ? "" : "s", d[a] < 0 ? "-" : "+", fabs(d[a]),
           axis[a]);
}

void rod_static_note_end(rod_static_report *rep, int index, const char *test,
                         int folds, double fold_lambda) {
  rep->index = index;
  rep->stable = index == 0;
  if (index > 0)
    snprintf(rep->note, sizeof rep->note,
             "the equilibrium found is unstable (%d unstable direction%s "
             "by the %s) and no stable one was found from it",
             index, index == 1 ? "" : "s", test);
  else if (folds > 0 && !rep->note[0])
    snprintf(rep->note, sizeof rep->note,
             "the loading path passes a fold at %.3g of the loads, where "
             "the rod would snap; took the stable state the path reaches",
             fold_lambda);
}

void rod_static_progress_note(_Atomic double *progress, double lambda) {
  const double was = atomic_load_explicit(progress, memory_order_relaxed);
  if (lambda < 0 || lambda > was)
    atomic_store_explicit(progress, fmin(lambda, 1.0), memory_order_relaxed);
}
