/* Tip trajectory CSV (docs/files.md): the input of `calibrate` and
 * the output of `track`.
 *
 * A header line names the columns: `t` (s, time since release) and any of
 * `x`, `y`, `z` (m, world frame of the scenario), in any order, and
 * optionally `valid` (1, or 0 for a sample the tracker flagged: the rod
 * left the image, was occluded or traced to the wrong length; calibration
 * skips those); one row of numbers per sample, times strictly increasing.
 * Lines whose first non-blank character is `#` are comments; blank lines
 * are skipped. */
#ifndef ROD_TIPCSV_H
#define ROD_TIPCSV_H

#include <stdbool.h>
#include <stdio.h>

#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int n;                /* samples */
  double *t;            /* (n) s, time since release, strictly increasing */
  double *xyz;          /* (n x 3) m, world frame, row-major: sample i is
                           xyz[3 i + 0..2]; a coordinate the file lacks is NaN */
  bool has[3];          /* which of x, y, z are present */
  bool has_valid;       /* the valid column is present (written) */
  unsigned char *valid; /* (n) 1 valid, 0 flagged; all 1 without the
                           column */
} rod_tip_data;

/* n samples, t zero, every coordinate NaN and absent, every sample valid.
 * NULL if out of memory. */
rod_tip_data *rod_tip_data_alloc(int n);
void rod_tip_data_free(rod_tip_data *d);

/* Read path into a new rod_tip_data (free it with rod_tip_data_free).
 * ROD_EIO if the file cannot be read; ROD_EINVAL for a malformed header or
 * row, a non-finite value, times that do not increase, or no samples, with
 * err = {path, "line N", what is wrong}. */
int rod_tip_read(const char *path, rod_tip_data **out, rod_error *err);

/* The same from an open stream; name is used in err. */
int rod_tip_read_stream(FILE *f, const char *name, rod_tip_data **out,
                        rod_error *err);

/* The samples of d not flagged invalid, in a new container (NULL if out
 * of memory); *skipped (may be NULL) counts the flagged ones. */
rod_tip_data *rod_tip_data_valid(const rod_tip_data *d, int *skipped);

/* Write the header (t, then the present coordinates in x, y, z order,
 * then valid when has_valid) and one row per sample, each number in the
 * shortest form that reads back to the same double. ROD_EINVAL (nothing
 * written) if times do not increase or a written value is not finite, so the
 * file always reads back; ROD_EIO on a write error. */
int rod_tip_write(const char *path, const rod_tip_data *d, rod_error *err);
int rod_tip_write_stream(FILE *f, const char *name, const rod_tip_data *d,
                         rod_error *err);

#ifdef __cplusplus
}
#endif

#endif
