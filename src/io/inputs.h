/* The data files a scenario names (docs/files.md): the precurvature
 * u*(s), the loads in time of [load.NAME] and the clamp's motion, read
 * and checked once by a backend when it is made. */
#ifndef ROD_IO_INPUTS_H
#define ROD_IO_INPUTS_H

#include "io/table.h"
#include "rod/scenario.h"

typedef struct {
  /* s, u1, u2, u3 (m, 1/m) covering [0, L]; a missing column is 0 */
  rod_table *precurvature;
  /* t, Fx, Fy, Fz (s, N) and t, Mx, My, Mz (s, N m) of load i; NULL for
   * none; a missing column is 0 */
  rod_table *force[ROD_MAX_LOADS], *moment[ROD_MAX_LOADS];
  /* t, x, y, z, rx, ry, rz (s, m, rad) of the clamp, and the second
   * derivatives of the natural cubic spline through each column (rows x 6,
   * 1/s^2 times the column's unit) */
  rod_table *base;
  double *base_m;
} rod_inputs;

/* Read every file of sc into a new rod_inputs (free with
 * rod_inputs_free). ROD_EIO or ROD_EINVAL with err = {scenario, the key,
 * "FILE: line N: what is wrong"} for a file that cannot be read or
 * breaks its rules (times or arclengths that do not increase, a
 * precurvature that does not cover [0, L], ...). */
int rod_inputs_load(const rod_scenario *sc, rod_inputs **out, rod_error *err);
void rod_inputs_free(rod_inputs *in);

#endif
