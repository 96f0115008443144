/* Numeric CSV tables with a header (docs/files.md): the reader behind the
 * tip CSV and the scenario's data files (loads in time, precurvature, base
 * motion).
 *
 * The header names the columns, in any order; the caller lists the names
 * it knows, the first of which (the key: t or s) is required and strictly
 * increasing down the file, the others optional. Lines whose first
 * non-blank character is `#` are comments; blank lines are skipped; a
 * UTF-8 byte-order mark is ignored. Every error names the file and the
 * physical line. */
#ifndef ROD_IO_TABLE_H
#define ROD_IO_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/tables.h"
#include "rod/status.h"

/* Read a table with the columns names[0..ncols) (ncols <= ROD_TABLE_MAX_COLS)
 * into a new rod_table (free it with rod_table_free). ROD_EIO if the file
 * cannot be read; ROD_EINVAL for a malformed header or row, a non-finite
 * value, keys that do not increase, or no rows, with err = {path, "line N",
 * what is wrong}. */
int rod_table_read(const char *path, const char *const *names, int ncols,
                   rod_table **out, rod_error *err);
/* The same from an open stream; name is used in err. */
int rod_table_read_stream(FILE *f, const char *name, const char *const *names,
                          int ncols, rod_table **out, rod_error *err);
void rod_table_free(rod_table *t);

#endif
