/* Text attributes of HDF5 objects (variable-length UTF-8 strings, as run
 * files, shape files and sweep indexes carry them). */
#ifndef ROD_IO_H5ATTR_H
#define ROD_IO_H5ATTR_H

#include <hdf5.h>
#include <stdbool.h>

/* Write the attribute name of obj (replacing one there): ROD_OK or
 * ROD_EIO. */
int rod_h5_put_text(hid_t obj, const char *name, const char *value);

/* The attribute name of obj as a new string (free() it); NULL when it is
 * missing or not a variable-length string. */
char *rod_h5_get_text(hid_t obj, const char *name);

/* A one-dimensional attribute name of obj of the n strings values:
 * ROD_OK or ROD_EIO. */
int rod_h5_put_texts(hid_t obj, const char *name, const char *const *values,
                     int n);

/* A scalar numeric attribute name of obj: float64, or int32 when is_int:
 * ROD_OK or ROD_EIO. */
int rod_h5_put_number(hid_t obj, const char *name, double value, bool is_int);

#endif
