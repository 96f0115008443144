/* The library's version and build revision (include/rod/version.h). */
#include "rod/version.h"

#include "config.h"

_Static_assert(sizeof ROD_VERSION == sizeof ROD_VERSION_STRING,
               "version.h and config.h give one version");

const char *rod_version(void) { return ROD_VERSION; }
const char *rod_revision(void) { return ROD_REVISION; }
