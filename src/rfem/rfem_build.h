/* The chain of the scenario (rfem_build.c): its links, bodies, springs,
 * dampers and rest angles, the elements along s, the load points and the
 * state's arrays, sized once. Called by the backend's adapter only. */
#ifndef ROD_RFEM_BUILD_H
#define ROD_RFEM_BUILD_H

#include "rfem/rfem_state.h"

/* The chain of the scenario; ROD_ENOMEM or ROD_OK. */
int rfem_build(rod_rfem *r);

#endif
