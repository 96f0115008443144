/* The cases CSV of a sweep (rod_sweep_def_csv): a header of SECTION.KEY
 * names, then one row of values per case. Values are texts (a vector is
 * "0 0 -9.81"); one holding a comma is written in double quotes, a quote
 * inside them doubled. Blank lines and lines starting with '#' are
 * skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/datafile.h"
#include "sweep_internal.h"

/* The cells of one line into cells (at most max), trimmed; their count,
 * or -1 for an unterminated quote, -2 for too many cells (then none is
 * kept). */
static int split_cells(const char *line, char **cells, int max);

static int split_line(const char *line, char **cells, int max) {
  int n = split_cells(line, cells, max);
  if (n < 0)
    for (int k = 0; k < max && cells[k]; k++)
      free(cells[k]);
  return n;
}

static int split_cells(const char *line, char **cells, int max) {
  memset(cells, 0, (size_t)max * sizeof *cells);
  int n = 0;
  const char *p = line;
  for (;;) {
    if (n == max)
      return -2;
    while (*p == ' ' || *p == '\t')
      p++;
    char cell[ROD_SWEEP_TEXT];
    size_t len = 0;
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p || *p == '\n')
          return -1;
        if (*p == '"' && p[1] == '"')
          p++;
        else if (*p == '"') {
          p++;
          break;
        }
        if (len + 1 < sizeof cell)
          cell[len++] = *p;
      }
      while (*p && *p != ',')
        p++;
    } else {
      while (*p && *p != ',') {
        if (len + 1 < sizeof cell)
          cell[len++] = *p;
        p++;
      }
    }
    cells[n] = sweep_trimmed(cell, len);
    if (!cells[n])
      return -2;
    n++;
    if (*p != ',')
      return n;
    p++;
  }
}

enum { CSV_MAX_KEYS = 64 };

int rod_sweep_def_csv(rod_sweep_def *d, const char *path, rod_error *err) {
  if (d->csv_nkeys > 0)
    return rod_error_set(err, ROD_EINVAL, path, "", "one cases CSV per sweep");
  FILE *f;
  int st = rod_datafile_fopen(path, false, ROD_DATA_MAX_TABLE, &f, err);
  if (st != ROD_OK)
    return ROD_EINVAL;
  snprintf(d->csv_path, sizeof d->csv_path, "%s", path);
  const size_t size = ROD_DATA_MAX_LINE + 2;
  char *line = malloc(size);
  if (!line) {
    fclose(f);
    return rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
  }
  int lineno = 0, got;
  size_t room = 0;
  while (st == ROD_OK && (got = rod_datafile_line(f, line, size)) != 0) {
    lineno++;
    if (got < 0) {
      st = rod_error_set(err, ROD_EINVAL, path, "",
                         "line %d: longer than %zu bytes", lineno,
                         ROD_DATA_MAX_LINE);
      break;
    }
    const char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
      continue;
    char *cells[CSV_MAX_KEYS];
    int n = split_line(line, cells, CSV_MAX_KEYS);
    if (n < 0) {
      st = rod_error_set(err, ROD_EINVAL, path, "", "line %d: %s", lineno,
                         n == -1 ? "a quote is not closed"
                                 : "more than 64 columns");
      break;
    }
    if (d->csv_nkeys == 0) { /* the header */
      d->csv_keys = malloc((size_t)n * sizeof(char *));
      if (!d->csv_keys)
        st = rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
      for (int k = 0; k < n; k++) {
        if (st == ROD_OK && !strchr(cells[k], '.'))
          st = rod_error_set(err, ROD_EINVAL, path, "",
                             "line %d: the header's '%s' names no scenario "
                             "key (expected SECTION.KEY)",
                             lineno, cells[k]);
        if (d->csv_keys)
          d->csv_keys[k] = cells[k];
        else
          free(cells[k]);
      }
      if (d->csv_keys)
        d->csv_nkeys = n;
      for (int a = 0; st == ROD_OK && a < n; a++)
        for (int b = 0; st == ROD_OK && b < a; b++)
          if (strcmp(d->csv_keys[a], d->csv_keys[b]) == 0)
            st = rod_error_set(err, ROD_EINVAL, path, d->csv_keys[a],
                               "line %d: named twice in the header", lineno);
      continue;
    }
    if (n != d->csv_nkeys) {
      st = rod_error_set(err, ROD_EINVAL, path, "",
                         "line %d: %d values for %d keys in the header", lineno,
                         n, d->csv_nkeys);
      for (int k = 0; k < n; k++)
        free(cells[k]);
      break;
    }
    if ((size_t)(d->csv_rows + 1) * (size_t)n > room) {
      room = room ? 2 * room : 64 * (size_t)n;
      char **grown = realloc(d->csv_texts, room * sizeof(char *));
      if (!grown) {
        for (int k = 0; k < n; k++)
          free(cells[k]);
        st = rod_error_set(err, ROD_ENOMEM, path, "", "out of memory");
        break;
      }
      d->csv_texts = grown;
    }
    for (int k = 0; k < n; k++) {
      if (!cells[k][0] && st == ROD_OK)
        st = rod_error_set(err, ROD_EINVAL, path, d->csv_keys[k],
                           "line %d: empty value", lineno);
      d->csv_texts[(size_t)d->csv_rows * (size_t)n + (size_t)k] = cells[k];
    }
    d->csv_rows++;
  }
  fclose(f);
  free(line);
  if (st == ROD_OK && d->csv_nkeys == 0)
    st = rod_error_set(err, ROD_EINVAL, path, "",
                       "no header naming the keys (SECTION.KEY,...)");
  else if (st == ROD_OK && d->csv_rows == 0)
    st = rod_error_set(err, ROD_EINVAL, path, "", "no cases below the header");
  for (int k = 0; st == ROD_OK && k < d->csv_nkeys; k++)
    for (int a = 0; a < d->naxes; a++)
      if (strcmp(d->axes[a].key, d->csv_keys[k]) == 0)
        st = rod_error_set(err, ROD_EINVAL, path, d->csv_keys[k],
                           "varied twice (a CSV column and a --vary)");
  return st;
}
