/* The chain's base (rfem_base.c), the RFEM backend's lowest room: the
 * clamp's pose and velocities from base.motion_file or from the drive set
 * between steps, and the joints' rates through a jump of the clamp's
 * velocity. Reads the state (rfem_state.h) only. */
#ifndef ROD_RFEM_BASE_H
#define ROD_RFEM_BASE_H

#include "rfem/rfem_state.h"

/* The chain's base at the clamp of time t (at_rest: its pose
 * only, for the static state): the clamp set between steps (drive.base),
 * else base.motion_file's; nothing for a fixed clamp. */
void rfem_place_base(rod_rfem *r, double t, bool at_rest);
/* The joints' rates after the table's clamp velocity jumps at t (from
 * rest: at the release from the static state; else at the table's first
 * and last time, where it is held): the free joints' generalized momentum
 * kept through the impulse at the clamp. Nothing without a table. */
void rfem_base_jump(rod_rfem *r, double t, bool from_rest);
/* Before a step to t1 with the clamp set between steps: its motion from
 * the clamp at r->t (the last step's end, or where the clamp was when the
 * drive took it over) to the drive's pose and velocities at t1. */
void rfem_drive_step(rod_rfem *r, double t1);
/* The drive takes the clamp over: the clamp at r->t is the start. */
void rfem_drive_set(rod_rfem *r);
/* A static state under the drive: its pose, at rest. */
void rfem_drive_static(rod_rfem *r);

#endif
