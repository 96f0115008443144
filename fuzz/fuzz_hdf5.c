/* libFuzzer target: the HDF5 readers, the shape file (rod_shape_read,
 * `rodsim calibrate --shape`) and a run's positions (rod_run_positions_read,
 * `rodsim compare`), on the same bytes. What the shape reader accepts has
 * increasing finite times and valid flags of 0 or 1. */
#include <math.h>

#include "fuzz_util.h"
#include "io/runfile.h"
#include "rod/shape.h"

/* libhdf5 1.10.8 leaks the metadata-cache entries it loaded (H5C_protect)
 * when it gives up on a corrupt object: H5Fopen in H5G_mkroot on a
 * corrupt root group, H5Dopen2 in H5O_obj_type on a corrupt object
 * header (2 x 56 B, 1 x 384 B). Its leaks, not rodsim's: a handle rodsim
 * left open would stay reachable from libhdf5's tables, not leak. Matching
 * them by name needs the full stack of each allocation. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:H5C_protect\n"; }
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
