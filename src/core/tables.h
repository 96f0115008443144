/* A scenario's data as tables, as the loads and the backends read them: a
 * numeric table by rows, its first column the key (t in s or s in m), and
 * the tables of a scenario's data files (docs/files.md). Types only: the
 * CSV reader fills them (io/table.h, io/inputs.h). */
#ifndef ROD_CORE_TABLES_H
#define ROD_CORE_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "rod/scenario.h"

enum { ROD_TABLE_MAX_COLS = 8 };

/* A numeric table (io/table.h reads it from CSV). */
typedef struct {
  int rows;
  int cols;     /* the caller's columns, the key first */
  double *data; /* rows x cols, row-major; NaN in a column the file lacks */
  bool has[ROD_TABLE_MAX_COLS]; /* which columns the file has */
} rod_table;

/* Value of column c in row i. */
static inline double rod_table_at(const rod_table *t, int i, int c) {
  return t->data[(size_t)i * (size_t)t->cols + (size_t)c];
}

/* The tables of a scenario's data files, each NULL when its file is not given.
 */
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
  /* tendon i's routing s, x, y (m) covering its [start, end], with the
   * second derivatives of the natural cubic spline through x and y (rows x
   * 2, 1/m); its tension t, T (s, N >= 0); NULL for none */
  rod_table *tendon_route[ROD_MAX_TENDONS];
  double *tendon_route_m[ROD_MAX_TENDONS];
  rod_table *tendon_tension[ROD_MAX_TENDONS];
  /* tendon i's displacement t, dl (s, m), times increasing */
  rod_table *tendon_displacement[ROD_MAX_TENDONS];
} rod_inputs;

#endif
