/* The backend of a scenario (sim/backend.h): solver.backend's ops table. */
#include "sim/backend.h"

const rod_backend_ops *rod_backend_for(const rod_scenario *sc) {
  switch (sc->solver.backend) {
  case ROD_BACKEND_KIRCHHOFF:
    return &rod_backend_kirchhoff;
  case ROD_BACKEND_RFEM:
    return &rod_backend_rfem;
  }
  return NULL;
}
