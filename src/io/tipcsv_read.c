/* Tip CSV reader (docs/files.md): a table of t, any of x, y, z and the
 * tracker's valid flag, read by the shared CSV reader (io/table.h). */
#include <errno.h>
#include <string.h>

#include "io/datafile.h"
#include "io/table.h"
#include "rod/tipcsv.h"

enum { VALID = 4, COLUMNS = 5 };
static const char *const tip_columns[COLUMNS] = {"t", "x", "y", "z", "valid"};

/* The valid column holds 0 or 1 (or is absent: every sample valid). */
static int take_valid(const rod_table *t, rod_tip_data *d, const char *name,
                      rod_error *err) {
  d->has_valid = t->has[VALID];
  for (int i = 0; i < t->rows; i++) {
    double v = d->has_valid ? rod_table_at(t, i, VALID) : 1;
    if (v != 0 && v != 1)
      return rod_error_set(err, ROD_EINVAL, name, "valid",
                           "sample %d (t = %.15g): expected 0 or 1 (got %g)",
                           i + 1, d->t[i], v);
    d->valid[i] = v == 1;
  }
  return ROD_OK;
}

int rod_tip_read_stream(FILE *f, const char *name, rod_tip_data **out,
                        rod_error *err) {
  *out = NULL;
  rod_table *t;
  int st = rod_table_read_stream(f, name, tip_columns, COLUMNS, &t, err);
  if (st != ROD_OK)
    return st;
  rod_tip_data *d = rod_tip_data_alloc(t->rows);
  if (!d) {
    rod_table_free(t);
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  }
  for (int i = 0; i < t->rows; i++) {
    d->t[i] = rod_table_at(t, i, 0);
    for (int k = 0; k < 3; k++)
      d->xyz[3 * i + k] = rod_table_at(t, i, 1 + k);
  }
  for (int k = 0; k < 3; k++)
    d->has[k] = t->has[1 + k];
  st = take_valid(t, d, name, err);
  rod_table_free(t);
  if (st != ROD_OK) {
    rod_tip_data_free(d);
    return st;
  }
  *out = d;
  return ROD_OK;
}

int rod_tip_read(const char *path, rod_tip_data **out, rod_error *err) {
  *out = NULL;
  FILE *f;
  int opened = rod_datafile_fopen(path, false, ROD_DATA_MAX_TABLE, &f, err);
  if (opened != ROD_OK)
    return opened;
  int st = rod_tip_read_stream(f, path, out, err);
  fclose(f);
  return st;
}
