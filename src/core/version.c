/* The library's version and build revision (include/rod/version.h). */
#include "rod/version.h"

#include <string.h>

#include "config.h"
#include "rod/calibrate.h"
#include "rod/sim.h"
#include "rod/sweep.h"
#include "rod/tipcsv.h"

_Static_assert(sizeof ROD_VERSION == sizeof ROD_VERSION_STRING,
               "version.h and config.h give one version");

const char *rod_version(void) { return ROD_VERSION; }
const char *rod_revision(void) { return ROD_REVISION; }

unsigned long rod_struct_size(const char *name) {
  const struct {
    const char *name;
    unsigned long size;
  } sizes[] = {{"rod_error", sizeof(rod_error)},
               {"rod_tip_data", sizeof(rod_tip_data)},
               {"rod_calib_options", sizeof(rod_calib_options)},
               {"rod_calib_result", sizeof(rod_calib_result)},
               {"rod_scenario", sizeof(rod_scenario)},
               {"rod_sim_result", sizeof(rod_sim_result)},
               {"rod_sweep_options", sizeof(rod_sweep_options)},
               {"rod_case_record", sizeof(rod_case_record)}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (strcmp(sizes[i].name, name) == 0)
      return sizes[i].size;
  return 0;
}
