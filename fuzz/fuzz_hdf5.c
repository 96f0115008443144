/* libFuzzer target: the HDF5 readers, the shape file (rod_shape_read,
 * `rodsim calibrate --shape`) and a run's positions (rod_run_positions_read,
 * `rodsim compare`), on the same bytes. What the shape reader accepts has
 * increasing finite times and valid flags of 0 or 1. */
#include <math.h>

#include "fuzz_util.h"
#include "io/runfile.h"
#include "rod/shape.h"

/* libhdf5 1.10.8 leaks two 56-byte blocks when H5Fopen fails in
 * H5G_mkroot on a corrupt root group: its leak, not rodsim's (the stack
 * ends in H5Fopen called from rod_h5_open). Matching it by name needs the
 * full stack of each allocation. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:H5G_mkroot\n"; }
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size, ".h5");
  rod_error err = {{0}, {0}, {0}, 0};
  rod_shape_data *d = NULL;
  if (rod_shape_read(path, &d, &err) == ROD_OK) {
    FUZZ_CHECK(d && d->frames >= 1 && d->points >= 2);
    for (int i = 0; i < d->frames; i++) {
      FUZZ_CHECK(isfinite(d->t[i]) && (i == 0 || d->t[i] > d->t[i - 1]));
      FUZZ_CHECK(d->valid[i] <= 1);
    }
    rod_shape_free(d);
  }
  rod_run_positions *r = NULL;
  if (rod_run_positions_read(path, &r, &err) == ROD_OK)
    rod_run_positions_free(r);
  return 0;
}
