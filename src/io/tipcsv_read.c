/* Tip CSV reader (docs/files.md): a table of t and any of x, y, z read by
 * the shared CSV reader (io/table.h). */
#include <errno.h>
#include <string.h>

#include "io/table.h"
#include "rod/tipcsv.h"

static const char *const tip_columns[4] = {"t", "x", "y", "z"};

int rod_tip_read_stream(FILE *f, const char *name, rod_tip_data **out,
                        rod_error *err) {
  *out = NULL;
  rod_table *t;
  int st = rod_table_read_stream(f, name, tip_columns, 4, &t, err);
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
  rod_table_free(t);
  *out = d;
  return ROD_OK;
}

int rod_tip_read(const char *path, rod_tip_data **out, rod_error *err) {
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (!f)
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot open (%s)",
                         strerror(errno));
  int st = rod_tip_read_stream(f, path, out, err);
  fclose(f);
  return st;
}
