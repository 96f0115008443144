/* rodsim: dynamics of slender elastic rods. The whole public API.
 *
 * Kirchhoff and Cosserat rods by BDF-alpha in time and shooting in
 * arclength (Till & Rucker 2017), a rigid-finite-element chain for
 * comparison, calibration against tip trajectories and tip tracking in
 * video frames. Start with scenario.h (parameters), sim.h (the time loop
 * and its backends) and logger.h / recorder.h (where samples go). */
#ifndef ROD_ROD_H
#define ROD_ROD_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rod/status.h"

#include "rod/scenario.h"

#include "rod/logger.h"
#include "rod/recorder.h"
#include "rod/sim.h"

#include "rod/compare.h"

#include "rod/calibrate.h"
#include "rod/lm.h"

#include "rod/camera.h"
#include "rod/image.h"
#include "rod/tipcsv.h"
#include "rod/track.h"

#ifdef __cplusplus
}
#endif

#endif
