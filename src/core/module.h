/* Modules librod opens at run time (the video module, src/track/
 * video_module.h; the MPI module, src/sweep/mpi_module.h): shared
 * objects built with librod that carry what only some runs need, so that
 * a program that needs none of it loads none of their libraries. Each
 * exports one table that begins with a rod_module_head; librod and its
 * modules are built together, and the head tells a module of another
 * build. */
#ifndef ROD_CORE_MODULE_H
#define ROD_CORE_MODULE_H

#include <stddef.h>

typedef struct {
  int version;                 /* the module's interface version */
  unsigned size;               /* sizeof its table */
  const char *library_version; /* ROD_VERSION of the build */
} rod_module_head;

/* Open the module `file` and return its table `symbol`, checked against
 * version and size (NULL otherwise, why saying why in why_size bytes).
 * Looked for, from a program that carries librod's objects, where the
 * modules are installed relative to its folder (BINDIR/../LIBDIR/rodsim);
 * beside the file that holds librod (the library, or that program), in
 * its folder rodsim/ (an install: LIBDIR/rodsim/FILE) or in the folder
 * itself (the build tree, a Python package that carries librod); then in
 * the folder it was configured to be installed in. The first that exists
 * decides. Never closed. */
const void *rod_module_open(const char *file, const char *symbol, int version,
                            unsigned size, char *why, size_t why_size);

#endif
