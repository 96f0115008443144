/* Text attributes of HDF5 objects (h5attr.h). */
#include "io/h5attr.h"

#include <stdlib.h>
#include <string.h>

#include "rod/status.h"

int rod_h5_put_text(hid_t obj, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hid_t space = H5Screate(H5S_SCALAR);
  if (H5Aexists(obj, name) > 0)
    H5Adelete(obj, name);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = a < 0 ? -1 : H5Awrite(a, type, &value);
  if (a >= 0)
    H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  return e < 0 ? ROD_EIO : ROD_OK;
}

char *rod_h5_get_text(hid_t obj, const char *name) {
  if (H5Aexists(obj, name) <= 0)
    return NULL;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0)
    return NULL;
  hid_t t = H5Aget_type(a);
  char *text = NULL, *copy = NULL;
  if (H5Tis_variable_str(t) > 0 && H5Aread(a, t, &text) >= 0 && text) {
    copy = strdup(text);
    H5free_memory(text);
  }
  H5Tclose(t);
  H5Aclose(a);
  return copy;
}

/* A one-dimensional attribute of n strings. */
int rod_h5_put_texts(hid_t obj, const char *name, const char *const *values,
                     int n) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  hsize_t dims = (hsize_t)n;
  hid_t space = H5Screate_simple(1, &dims, NULL);
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = attr < 0 ? -1 : H5Awrite(attr, type, values);
  if (attr >= 0)
    H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return e < 0 ? ROD_EIO : ROD_OK;
}

/* A scalar numeric attribute: float64 (is_int false) or int32. */
int rod_h5_put_number(hid_t obj, const char *name, double value, bool is_int) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(obj, name, is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                          space, H5P_DEFAULT, H5P_DEFAULT);
  int32_t i = (int32_t)value;
  herr_t e = attr < 0 ? -1
             : is_int ? H5Awrite(attr, H5T_NATIVE_INT32, &i)
                      : H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
  if (attr >= 0)
    H5Aclose(attr);
  H5Sclose(space);
  return e < 0 ? ROD_EIO : ROD_OK;
}
