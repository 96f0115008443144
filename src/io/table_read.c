/* Numeric CSV tables with a header (io/table.h): the tip CSV's reader and
 * the scenario's data files. Every error names the file and the physical
 * line number (comments and blank lines counted), because the user fixes
 * the file in an editor. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/datafile.h"
#include "io/table.h"

typedef struct {
  const char *name;
  const char *const *names; /* the caller's columns, the key first */
  int ncols;                /* of names */
  rod_error *err;
  long line;  /* 1-based physical line */
  int fields; /* columns of the file, 0 until the header is read */
  int slot[ROD_TABLE_MAX_COLS]; /* caller's column of each file column */
  int capacity;                 /* rows allocated in t */
  rod_table *t;
} csv_reader;

/* ROD_EINVAL with err = {file, "line N", message}. */
static int fail(csv_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(csv_reader *r, const char *fmt, ...) {
  char key[32], msg[256];
  snprintf(key, sizeof key, "line %ld", r->line);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rod_error_set(r->err, ROD_EINVAL, r->name, key, "%s", msg);
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  char *e = s + strlen(s);
  while (e > s &&
         (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
    *--e = '\0';
  return s;
}

static int count_fields(const char *s) {
  int n = 1;
  for (; *s; s++)
    n += *s == ',';
  return n;
}

/* Split s at the next comma: returns the field, advances *s past it. */
static char *next_field(char **s) {
  char *field = *s, *comma = strchr(field, ',');
  if (comma) {
    *comma = '\0';
    *s = comma + 1;
  } else {
    *s = field + strlen(field);
  }
  return trim(field);
}

/* names[from..] as "a, b or c" (or "a, b, c" with last = ", "). */
static void name_list(const csv_reader *r, int from, const char *last,
                      char *buf, size_t size) {
  buf[0] = '\0';
  for (int k = from; k < r->ncols; k++) {
    size_t used = strlen(buf);
    const char *sep = k == from ? "" : k + 1 == r->ncols ? last : ", ";
    snprintf(buf + used, size - used, "%s%s", sep, r->names[k]);
  }
}

static int parse_header(csv_reader *r, char *s) {
  bool seen[ROD_TABLE_MAX_COLS] = {false};
  int n = count_fields(s);
  if (n > r->ncols)
    n = r->ncols + 1; /* the extra one is unknown or a repeat: named below */
  for (int j = 0; j < n; j++) {
    char *name = next_field(&s);
    int k = 0;
    while (k < r->ncols && strcmp(name, r->names[k]) != 0)
      k++;
    if (k == r->ncols) {
      char list[160];
      name_list(r, 0, " or ", list, sizeof list);
      return fail(r, "unknown column '%.40s' (expected %s)", name, list);
    }
    if (seen[k])
      return fail(r, "column '%s' appears twice", name);
    seen[k] = true;
    r->slot[j] = k;
  }
  if (!seen[0])
    return fail(r, "the header has no '%s' column", r->names[0]);
  for (int k = 0; k < r->ncols; k++)
    r->t->has[k] = seen[k];
  r->fields = n;
  return ROD_OK;
}

static int grow(csv_reader *r) {
  int cap = r->capacity * 2;
  double *d = realloc(r->t->data, (size_t)cap * (size_t)r->ncols * sizeof *d);
  if (!d)
    return rod_error_set(r->err, ROD_ENOMEM, r->name, NULL, "out of memory");
  r->t->data = d;
  r->capacity = cap;
  return ROD_OK;
}

static int parse_row(csv_reader *r, char *s) {
  int n = count_fields(s);
  if (n != r->fields)
    return fail(r, "expected %d numbers (got %d)", r->fields, n);
  rod_table *t = r->t;
  if (t->rows == r->capacity && grow(r) != ROD_OK)
    return ROD_ENOMEM;
  int i = t->rows;
  double *row = t->data + (size_t)i * (size_t)r->ncols;
  for (int k = 0; k < r->ncols; k++)
    row[k] = NAN;
  for (int j = 0; j < n; j++) {
    char *text = next_field(&s), *end;
    const char *col = r->names[r->slot[j]];
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end)
      return fail(r, "column %s: '%.40s' is not a number", col, text);
    if (!isfinite(v))
      return fail(r, "column %s: not finite (got %.40s)", col, text);
    row[r->slot[j]] = v;
  }
  if (i > 0) {
    const double prev = t->data[(size_t)(i - 1) * (size_t)r->ncols];
    if (!(row[0] > prev))
      return fail(r, "%s = %.15g is not after the previous sample's %s = %.15g",
                  r->names[0], row[0], r->names[0], prev);
  }
  t->rows++;
  return ROD_OK;
}

static int read_lines(csv_reader *r, FILE *f) {
  const size_t size = ROD_DATA_MAX_LINE + 2;
  char *buf = malloc(size);
  if (!buf)
    return rod_error_set(r->err, ROD_ENOMEM, r->name, NULL, "out of memory");
  int st = ROD_OK, got;
  while (st == ROD_OK && (got = rod_datafile_line(f, buf, size)) != 0) {
    r->line++;
    if (got < 0) {
      st = fail(r, "longer than %zu bytes, the most rodsim reads in one line",
                ROD_DATA_MAX_LINE);
      break;
    }
    char *s = buf;
    if (r->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
      s += 3; /* a UTF-8 byte-order mark, as spreadsheets write */
    s = trim(s);
    if (!*s || *s == '#')
      continue;
    st = r->fields ? parse_row(r, s) : parse_header(r, s);
  }
  free(buf);
  if (st == ROD_OK && ferror(f))
    st = rod_error_set(r->err, ROD_EIO, r->name, NULL, "read error");
  if (st == ROD_OK && !r->fields) {
    char list[160];
    name_list(r, 1, ", ", list, sizeof list);
    st = rod_error_set(r->err, ROD_EINVAL, r->name, NULL,
                       "no header line (expected %s and any of %s)",
                       r->names[0], list);
  }
  if (st == ROD_OK && r->t->rows == 0)
    st = rod_error_set(r->err, ROD_EINVAL, r->name, NULL,
                       "no samples after the header");
  return st;
}

void rod_table_free(rod_table *t) {
  if (!t)
    return;
  free(t->data);
  free(t);
}

int rod_table_read_stream(FILE *f, const char *name, const char *const *names,
                          int ncols, rod_table **out, rod_error *err) {
  *out = NULL;
  if (ncols < 1 || ncols > ROD_TABLE_MAX_COLS)
    return rod_error_set(err, ROD_EINVAL, name, NULL, "bad column list");
  csv_reader r = {
      .name = name, .names = names, .ncols = ncols, .err = err, .capacity = 64};
  r.t = calloc(1, sizeof *r.t);
  if (r.t)
    r.t->data = malloc((size_t)r.capacity * (size_t)ncols * sizeof(double));
  if (!r.t || !r.t->data) {
    rod_table_free(r.t);
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  }
  r.t->cols = ncols;
  int st = read_lines(&r, f);
  if (st != ROD_OK) {
    rod_table_free(r.t);
    return st;
  }
  *out = r.t;
  return ROD_OK;
}

int rod_table_read(const char *path, const char *const *names, int ncols,
                   rod_table **out, rod_error *err) {
  *out = NULL;
  FILE *f;
  int opened = rod_datafile_fopen(path, false, ROD_DATA_MAX_TABLE, &f, err);
  if (opened != ROD_OK)
    return opened;
  int st = rod_table_read_stream(f, path, names, ncols, out, err);
  fclose(f);
  return st;
}
