/* Loads and boundary motion set between steps through the public API
 * (rod_sim_set_tip_load, rod_sim_set_load, rod_sim_set_base;
 * docs/embedding.md). Each one that is set replaces the scenario's value
 * of that load (its constant, ramp or table) from the next solve on. The
 * backends evaluate every load at every solve through core/loads.h, which
 * combines the scenario's time functions with this struct, so a load
 * changed between steps acts at the next step's time. */
#ifndef ROD_DRIVE_H
#define ROD_DRIVE_H

#include <stdbool.h>

#include "rod/scenario.h"

typedef struct {
  bool tip;             /* tip_force and tip_moment replace the tip's
                           constant loads (tip.force) */
  double tip_force[3];  /* N, world frame, dead load */
  double tip_moment[3]; /* N m, world frame, dead load */
  /* load[i]: load_force[i] and load_moment[i] replace the values of
   * [load.NAME] number i (rod_scenario.loads.item[i]); its position stays */
  bool load[ROD_MAX_LOADS];
  double load_force[ROD_MAX_LOADS][3];  /* N, world frame */
  double load_moment[ROD_MAX_LOADS][3]; /* N m, world frame */
  /* base: the clamp's pose and velocities below replace base.position,
   * base.direction and the motor's motion */
  bool base;
  double base_position[3];         /* m, world frame: p(0) */
  double base_orientation[4];      /* unit quaternion w x y z of R(0) */
  double base_velocity[3];         /* m/s, world frame */
  double base_angular_velocity[3]; /* rad/s, world frame */
  /* tendon[i]: tendon_tension[i] replaces the tension of [tendon.NAME]
   * number i (its constant or table) */
  bool tendon[ROD_MAX_TENDONS];
  double tendon_tension[ROD_MAX_TENDONS]; /* N, >= 0 */
} rod_drive;

/* Nothing set: every load as the scenario gives it. */
void rod_drive_clear(rod_drive *d);

#endif
