/* HDF5 helpers of the tests that read rodsim's output files. */
#ifndef ROD_H5UTIL_H
#define ROD_H5UTIL_H

#include <hdf5.h>

#include "testutil.h"

/* A variable-length string attribute of the root; free with
 * H5free_memory. */
static inline char *rod_test_attr(hid_t f, const char *name) {
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  ck_assert_msg(a >= 0, "attribute %s missing", name);
  hid_t t = H5Aget_type(a);
  char *text = NULL;
  H5Aread(a, t, &text);
  H5Tclose(t);
  H5Aclose(a);
  return text;
}

#endif
