/* The static report's words, shared by both backends (docs/numerics.md,
 * Statics): which way a rod went when the loads did not choose a side,
 * and why a state is unstable. */
#ifndef ROD_STATIC_NOTE_H
#define ROD_STATIC_NOTE_H

#include <stdatomic.h>
#include <stddef.h>

#include "rod/sim.h"

/* Tip force that breaks a symmetric bifurcation when no tip.preload
 * chooses a side, as a fraction of the largest load (N): small enough to
 * leave the state it selects unchanged once it is removed again. */
#define ROD_STATIC_IMPERFECTION 1e-3

/* Direction (unit, world) of that force across the tip tangent d: in the
 * x-z plane (y x d) unless out_of_plane, then along y. */
void rod_static_imperfection_dir(const double d[3], int out_of_plane,
                                 double dir[3]);

/* The static solve's progress for rod_sim_static_progress, kept by each
 * backend in *progress: the largest lambda of its loading path solved so
 * far (the path may pass a fold and come back), at most 1; -1 (off a
 * path) sets it. */
void rod_static_progress_note(_Atomic double *progress, double lambda);

/* rep->note for a state taken past a bifurcation the loads do not decide:
 * index unstable directions of the loads' own state, the tip moved from
 * tip0 (unloaded, tangent d0) to tip (m). */
void rod_static_note_side(rod_static_report *rep, int index,
                          const double tip[3], const double tip0[3],
                          const double d0[3]);

/* rep->stable, index and note from the index of the state taken: for an
 * unstable one that no stable one was found from, what test found it
 * unstable ("conjugate-point test"); for a stable one, the fold the path
 * passed at fold_lambda of the loads (folds > 0) unless a note is
 * there. */
void rod_static_note_end(rod_static_report *rep, int index, const char *test,
                         int folds, double fold_lambda);

#endif
