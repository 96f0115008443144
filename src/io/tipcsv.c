/* Tip CSV: the data container and the writer (the reader is in
 * tipcsv_read.c). */
#include "rod/tipcsv.h"

#include "io/writers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const coordinate_names[3] = {"x", "y", "z"};

rod_tip_data *rod_tip_data_alloc(int n) {
  if (n < 0)
    return NULL;
  rod_tip_data *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  /* at least one element, so a 0-sample container still owns buffers */
  size_t m = n > 0 ? (size_t)n : 1;
  d->t = calloc(m, sizeof *d->t);
  d->xyz = malloc(3 * m * sizeof *d->xyz);
  d->valid = malloc(m * sizeof *d->valid);
  if (!d->t || !d->xyz || !d->valid) {
    rod_tip_data_free(d);
    return NULL;
  }
  d->n = n;
  for (size_t i = 0; i < 3 * m; i++)
    d->xyz[i] = NAN;
  memset(d->valid, 1, m);
  return d;
}

rod_tip_data *rod_tip_data_valid(const rod_tip_data *d, int *skipped) {
  int n = 0;
  for (int i = 0; i < d->n; i++)
    n += d->valid[i] != 0;
  rod_tip_data *out = rod_tip_data_alloc(n);
  if (!out)
    return NULL;
  memcpy(out->has, d->has, sizeof d->has);
  for (int i = 0, k = 0; i < d->n; i++) {
    if (!d->valid[i])
      continue;
    out->t[k] = d->t[i];
    memcpy(out->xyz + 3 * k, d->xyz + 3 * i, 3 * sizeof *d->xyz);
    k++;
  }
  if (skipped)
    *skipped = d->n - n;
  return out;
}

void rod_tip_data_free(rod_tip_data *d) {
  if (!d)
    return;
  free(d->t);
  free(d->xyz);
  free(d->valid);
  free(d);
}

/* The shortest of %.15g, %.16g, %.17g that reads back to v: exact round
 * trips without printing 0.0030000000000000001 for 0.003. */
static void format_number(char *buf, size_t size, double v) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

/* What the reader would reject, checked before anything is written. */
static int check_writable(const rod_tip_data *d, const char *name,
                          rod_error *err) {
  for (int i = 0; i < d->n; i++) {
    if (!isfinite(d->t[i]))
      return rod_error_set(err, ROD_EINVAL, name, NULL,
                           "sample %d: t is not finite", i);
    if (i > 0 && !(d->t[i] > d->t[i - 1]))
      return rod_error_set(err, ROD_EINVAL, name, NULL,
                           "sample %d: t = %g is not after the previous "
                           "t = %g",
                           i, d->t[i], d->t[i - 1]);
    for (int k = 0; k < 3; k++)
      if (d->has[k] && !isfinite(d->xyz[3 * i + k]))
        return rod_error_set(err, ROD_EINVAL, name, NULL,
                             "sample %d: %s is not finite", i,
                             coordinate_names[k]);
  }
  return ROD_OK;
}

int rod_tip_write_stream(FILE *f, const char *name, const rod_tip_data *d,
                         rod_error *err) {
  if (!f || !d || d->n < 0)
    return rod_error_set(err, ROD_EINVAL, name, NULL, "no data to write");
  int st = check_writable(d, name, err);
  if (st != ROD_OK)
    return st;
  fputs("t", f);
  for (int k = 0; k < 3; k++)
    if (d->has[k])
      fprintf(f, ",%s", coordinate_names[k]);
  fputs(d->has_valid ? ",valid\n" : "\n", f);
  char num[32];
  for (int i = 0; i < d->n; i++) {
    format_number(num, sizeof num, d->t[i]);
    fputs(num, f);
    for (int k = 0; k < 3; k++) {
      if (!d->has[k])
        continue;
      format_number(num, sizeof num, d->xyz[3 * i + k]);
      fputc(',', f);
      fputs(num, f);
    }
    if (d->has_valid)
      fputs(d->valid[i] ? ",1" : ",0", f);
    fputc('\n', f);
  }
  if (fflush(f) != 0 || ferror(f))
    return rod_error_set(err, ROD_EIO, name, NULL, "write error (%s)",
                         strerror(errno));
  return ROD_OK;
}

int rod_tip_write_with(const char *path, const rod_tip_data *d,
                       const rod_out_rules *rules, rod_error *err) {
  if (!d)
    return rod_error_set(err, ROD_EINVAL, path, NULL, "no data to write");
  /* check before creating the file, so a rejected write leaves none */
  int st = check_writable(d, path, err);
  if (st != ROD_OK)
    return st;
  rod_outfile *o;
  if ((st = rod_outfile_open(path, rules, &o, err)) != ROD_OK)
    return st;
  FILE *f = rod_outfile_stream(o);
  if (!f) {
    rod_outfile_close(o, true);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  st = rod_tip_write_stream(f, path, d, err);
  if (fclose(f) != 0 && st == ROD_OK)
    st = rod_error_set(err, ROD_EIO, path, NULL, "write error (%s)",
                       strerror(errno));
  if (st == ROD_OK)
    st = rod_outfile_commit(o, err);
  rod_outfile_close(o, st != ROD_OK);
  return st;
}

int rod_tip_write(const char *path, const rod_tip_data *d, rod_error *err) {
  rod_out_rules rules = {.kind = ROD_OUT_TEXT};
  return rod_tip_write_with(path, d, &rules, err);
}
