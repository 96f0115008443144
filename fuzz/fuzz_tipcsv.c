/* libFuzzer target: the tip CSV reader (rod_tip_read_stream, the input of
 * `rodsim calibrate`). What it accepts holds increasing finite times and
 * valid flags of 0 or 1, and reads back unchanged from what
 * rod_tip_write_stream makes of it. */
#include <math.h>

#include "fuzz_util.h"
#include "rod/tipcsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0; /* fmemopen refuses an empty buffer */
  FILE *f = fmemopen((void *)data, size, "r");
  if (!f)
    abort();
  rod_tip_data *d = NULL;
  rod_error err = {{0}, {0}, {0}, 0};
  int st = rod_tip_read_stream(f, "fuzz.csv", &d, &err);
  fclose(f);
  if (st != ROD_OK) {
    FUZZ_CHECK(d == NULL);
    return 0;
  }
  FUZZ_CHECK(d && d->n >= 1);
  for (int i = 0; i < d->n; i++) {
    FUZZ_CHECK(isfinite(d->t[i]) && (i == 0 || d->t[i] > d->t[i - 1]));
    FUZZ_CHECK(d->valid[i] == 0 || d->valid[i] == 1);
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *w = open_memstream(&buf, &len);
  if (!w)
    abort();
  st = rod_tip_write_stream(w, "fuzz.csv", d, &err);
  fclose(w);
  if (st == ROD_OK) {
    FILE *r = fmemopen(buf, len, "r");
    rod_tip_data *e = NULL;
    FUZZ_CHECK(r && rod_tip_read_stream(r, "back.csv", &e, &err) == ROD_OK);
    fclose(r);
    FUZZ_CHECK(e->n == d->n);
    for (int i = 0; i < d->n; i++) {
      FUZZ_CHECK(e->t[i] == d->t[i] && e->valid[i] == d->valid[i]);
      for (int k = 0; k < 3; k++)
        FUZZ_CHECK(e->has[k] == d->has[k] &&
                   (!d->has[k] || e->xyz[3 * i + k] == d->xyz[3 * i + k]));
    }
    rod_tip_data_free(e);
  }
  free(buf);
  rod_tip_data_free(d);
  return 0;
}
