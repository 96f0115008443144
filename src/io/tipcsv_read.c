/* Tip CSV reader (docs/files.md). Every error names the file and
 * the physical line number (comments and blank lines counted), because the
 * user fixes the file in an editor. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rod/tipcsv.h"

/* Column names in the order of the slots: t, then x, y, z (xyz[k - 1]). */
static const char *const column_names[4] = {"t", "x", "y", "z"};

typedef struct {
  const char *name;
  rod_error *err;
  long line;    /* 1-based physical line */
  int ncols;    /* 0 until the header is read */
  int slot[4];  /* slot of each file column, index into column_names */
  int capacity; /* samples allocated in d */
  rod_tip_data *d;
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

static int parse_header(csv_reader *r, char *s) {
  bool seen[4] = {false, false, false, false};
  int n = count_fields(s);
  for (int j = 0; j < n; j++) {
    char *name = next_field(&s);
    int k = 0;
    while (k < 4 && strcmp(name, column_names[k]) != 0)
      k++;
    if (k == 4)
      return fail(r, "unknown column '%.40s' (expected t, x, y or z)", name);
    if (seen[k])
      return fail(r, "column '%s' appears twice", name);
    seen[k] = true;
    r->slot[j] = k;
  }
  if (!seen[0])
    return fail(r, "the header has no 't' column");
  for (int k = 1; k < 4; k++)
    r->d->has[k - 1] = seen[k];
  r->ncols = n;
  return ROD_OK;
}

static int grow(csv_reader *r) {
  int cap = r->capacity * 2;
  double *t = realloc(r->d->t, (size_t)cap * sizeof *t);
  if (t)
    r->d->t = t;
  double *xyz = realloc(r->d->xyz, 3 * (size_t)cap * sizeof *xyz);
  if (xyz)
    r->d->xyz = xyz;
  if (!t || !xyz)
    return rod_error_set(r->err, ROD_ENOMEM, r->name, NULL, "out of memory");
  r->capacity = cap;
  return ROD_OK;
}

static int parse_row(csv_reader *r, char *s) {
  int n = count_fields(s);
  if (n != r->ncols)
    return fail(r, "expected %d numbers (got %d)", r->ncols, n);
  rod_tip_data *d = r->d;
  if (d->n == r->capacity && grow(r) != ROD_OK)
    return ROD_ENOMEM;
  int i = d->n;
  double *xyz = d->xyz + 3 * i;
  xyz[0] = xyz[1] = xyz[2] = NAN;
  for (int j = 0; j < n; j++) {
    char *text = next_field(&s), *end;
    const char *col = column_names[r->slot[j]];
    double v = strtod(text, &end);
    if (end == text || *end)
      return fail(r, "column %s: '%.40s' is not a number", col, text);
    if (!isfinite(v))
      return fail(r, "column %s: not finite (got %.40s)", col, text);
    if (r->slot[j] == 0)
      d->t[i] = v;
    else
      xyz[r->slot[j] - 1] = v;
  }
  if (i > 0 && !(d->t[i] > d->t[i - 1])) {
    return fail(r, "t = %.15g is not after the previous sample's t = %.15g",
                d->t[i], d->t[i - 1]);
  }
  d->n++;
  return ROD_OK;
}

static int read_lines(csv_reader *r, FILE *f) {
  char *buf = NULL;
  size_t size = 0;
  int st = ROD_OK;
  while (st == ROD_OK && getline(&buf, &size, f) >= 0) {
    r->line++;
    char *s = buf;
    if (r->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
      s += 3; /* a UTF-8 byte-order mark, as spreadsheets write */
    s = trim(s);
    if (!*s || *s == '#')
      continue;
    st = r->ncols ? parse_row(r, s) : parse_header(r, s);
  }
  free(buf);
  if (st == ROD_OK && ferror(f))
    st = rod_error_set(r->err, ROD_EIO, r->name, NULL, "read error");
  if (st == ROD_OK && !r->ncols)
    st = rod_error_set(r->err, ROD_EINVAL, r->name, NULL,
                       "no header line (expected t and any of x, y, z)");
  if (st == ROD_OK && r->d->n == 0)
    st = rod_error_set(r->err, ROD_EINVAL, r->name, NULL,
                       "no samples after the header");
  return st;
}

int rod_tip_read_stream(FILE *f, const char *name, rod_tip_data **out,
                        rod_error *err) {
  *out = NULL;
  csv_reader r = {.name = name, .err = err, .capacity = 64};
  r.d = rod_tip_data_alloc(r.capacity);
  if (!r.d)
    return rod_error_set(err, ROD_ENOMEM, name, NULL, "out of memory");
  r.d->n = 0;
  int st = read_lines(&r, f);
  if (st != ROD_OK) {
    rod_tip_data_free(r.d);
    return st;
  }
  *out = r.d;
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
