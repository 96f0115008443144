/* rodsim: dynamics of slender elastic rods. The whole public API.
 *
 * Kirchhoff and Cosserat rods by BDF-alpha in time and shooting in
 * arclength (Till & Rucker 2017), a rigid-finite-element chain for
 * comparison, calibration against tip trajectories and shapes, and rod tracking
 * in video. Start with sim.h (the simulation object: create, solve, step, read
 * the state; docs/embedding.md) and scenario.h (its parameters). Every header
 * is C++-safe. */
#ifndef ROD_ROD_H
#define ROD_ROD_H

#include "rod/status.h"
#include "rod/version.h"

#include "rod/scenario.h"

#include "rod/sample.h"

#include "rod/logger.h"
#include "rod/recorder.h"
#include "rod/sim.h"

#include "rod/compare.h"
#include "rod/export.h"

#include "rod/calibrate.h"

#include "rod/parallel.h"
#include "rod/sweep.h"

#include "rod/camera.h"
#include "rod/image.h"
#include "rod/render.h"
#include "rod/shape.h"
#include "rod/tipcsv.h"
#include "rod/trace.h"
#include "rod/track.h"
#include "rod/video.h"

#endif
