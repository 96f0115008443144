/* The scenario's key tables (scenario_keys.h): every key with its default,
 * range, unit and meaning. Adding a key here makes it parsed, checked,
 * defaulted, written out and documented (`rodsim keys`). */
#include "scenario_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const model_names[] = {"kirchhoff", "cosserat", NULL};
static const char *const backend_names[] = {"kirchhoff", "rfem", NULL};
static const char *const space_names[] = {"euler", "rk4", NULL};
static const char *const history_names[] = {"auto", "hermite", "linear",
                                            "stage", NULL};
static const char *const startup_names[] = {"euler", "paper", NULL};
static const char *const scheme_names[] = {"bdf-alpha", "esdirk3", "esdirk4",
                                           "sdirk4",    "esdirk5", NULL};
static const char *const strategy_names[] = {"auto", "paper", "simple",
                                             "modified", NULL};
static const char *const planar_names[] = {"auto", "off", NULL};
static const char *const layout_names[] = {"centered", "uniform", NULL};
static const char *const control_names[] = {"pd", "computed_torque", NULL};
static const char *const rfem_int_names[] = {"genalpha", "rk45", "rk4", NULL};
static const char *const joint_names[] = {"voigt", "maxwell", NULL};
static const char *const shape_names[] = {"sphere", "capsule", "box", NULL};
static const char *const drag_names[] = {"paper", "normal", NULL};
static const char *const rotary_names[] = {"off", "on", NULL};

#define OFF(member) offsetof(rod_scenario, member)
#define D(sec, key, member, def, rule, lo, hi, unit, doc)                      \
  {                                                                            \
    sec, key, KEY_DOUBLE, OFF(member), 0, def, rule, lo, hi, NULL, 0, unit,    \
        doc                                                                    \
  }
#define V(sec, key, member, def, rule, unit, doc)                              \
  { sec, key, KEY_VEC3, OFF(member), 0, def, rule, 0, 0, NULL, 0, unit, doc }
#define I(sec, key, member, def, lo, hi, doc)                                  \
  {                                                                            \
    sec, key, KEY_INT, OFF(member), 0, def, RANGE_AT_LEAST, lo, hi, NULL, 0,   \
        "", doc                                                                \
  }
#define E(sec, key, member, def, names, doc)                                   \
  {                                                                            \
    sec, key, KEY_ENUM, OFF(member), 0, def, RANGE_ANY, 0, 0, names, 0, "",    \
        doc                                                                    \
  }
#define B(sec, key, member, def, doc)                                          \
  { sec, key, KEY_BOOL, OFF(member), 0, def, RANGE_ANY, 0, 0, NULL, 0, "", doc }
#define F(sec, key, member, doc)                                               \
  {                                                                            \
    sec, key, KEY_FILE, OFF(member), ROD_PATH_MAX, "", RANGE_ANY, 0, 0, NULL,  \
        0, "", doc                                                             \
  }

const key_def rod_keys[] = {
    E("rod", "model", rod.model, "kirchhoff", model_names,
      "kirchhoff: inextensible and unshearable; cosserat: with shear and "
      "extension"),
    D("rod", "length", rod.length, "0.408", RANGE_POSITIVE, 0, 0, "m",
      "length of the rod, clamp to tip"),
    D("rod", "diameter", rod.diameter, "1.42e-3", RANGE_POSITIVE, 0, 0, "m",
      "outer diameter of the circular cross-section"),
    D("rod", "inner_diameter", rod.inner_diameter, "0", RANGE_NONNEG, 0, 0, "m",
      "inner diameter of a tube (< diameter); 0: a solid section. A, I, J "
      "and the cross-section's inertia follow"),
    D("rod", "density", rod.density, "7800", RANGE_POSITIVE, 0, 0, "kg/m^3",
      "mass density"),
    D("rod", "youngs_modulus", rod.youngs_modulus, "200e9", RANGE_POSITIVE, 0,
      0, "Pa",
      "E: extension stiffness EA (cosserat), bending EI unless "
      "rod.bending_stiffness is given"),
    D("rod", "shear_modulus", rod.shear_modulus, "80e9", RANGE_POSITIVE, 0, 0,
      "Pa", "G: torsion stiffness GJ; shear stiffness GA (cosserat)"),
    {"rod", "bending_stiffness", KEY_DOUBLE, OFF(rod.bending_stiffness), 0,
     NULL, RANGE_POSITIVE, 0, 0, NULL, OFF(rod.has_bending_stiffness), "N m^2",
     "EI for both bending axes, replacing E I when given"},
    D("rod", "bending_damping", rod.bending_damping, "0", RANGE_NONNEG, 0, 0,
      "N m^2 s",
      "Kelvin-Voigt damping B of bending; torsion, shear and extension use "
      "the same retardation time B/EI (shear and extension: unless "
      "rod.shear_retardation is given)"),
    {"rod", "shear_retardation", KEY_DOUBLE, OFF(rod.shear_retardation), 0,
     NULL, RANGE_NONNEG, 0, 0, NULL, OFF(rod.has_shear_retardation), "s",
     "Kelvin-Voigt retardation time of shear and extension (cosserat), B_se "
     "= tau_se K_se; absent: bending_damping / EI; 0: undamped"},
    D("rod", "drag", rod.drag, "0", RANGE_NONNEG, 0, 0, "kg/m^2",
      "square-law air drag C: paper: f = -R C (q .* |q|), q the velocity "
      "in the material frame; normal: C_n of -C_n |q_perp| q_perp"),
    E("rod", "drag_model", rod.drag_model, "paper", drag_names,
      "paper: per material component (Till & Rucker 2017); normal: "
      "isotropic in the cross-section, f = -R (C_n |q_perp| q_perp + C_t "
      "|q_3| q_3), q_perp = (q_1, q_2, 0)"),
    D("rod", "drag_tangential", rod.drag_tangential, "0", RANGE_NONNEG, 0, 0,
      "kg/m^2", "C_t of drag_model = normal: drag along the tangent"),
    {"rod", "shear_coefficient", KEY_DOUBLE, OFF(rod.shear_coefficient), 0,
     NULL, RANGE_POSITIVE, 0, 0, NULL, OFF(rod.has_shear_coefficient), "",
     "kappa of the shear stiffness kappa G A (cosserat); absent: Cowper's "
     "value for the circular section, 6 (1 + nu) / (7 + 6 nu) when solid, "
     "nu = E / (2 G) - 1; 1 gives G A"},
    E("rod", "rotary_inertia", rod.rotary_inertia, "off", rotary_names,
      "off: the cross-section's rotary inertia neglected (as the paper); "
      "on: d/dt(R rho J w) in the moment balance (torsional and "
      "shear-rotation dynamics)"),
    V("rod", "precurvature", rod.precurvature, "0 0 0", RANGE_ANY, "1/m",
      "u*: curvature and twist of the unloaded rod, material frame, "
      "constant along s"),
    F("rod", "precurvature_file", rod.precurvature_file,
      "CSV of s,u1,u2,u3 (m, 1/m) covering [0, length], interpolated "
      "linearly: u*(s) instead of rod.precurvature"),
    V("environment", "gravity", environment.gravity, "0 0 -9.81", RANGE_ANY,
      "m/s^2", "acceleration of gravity, world frame"),
    V("base", "position", base.position, "0 0 0", RANGE_ANY, "m",
      "the clamp (s = 0), world frame"),
    V("base", "direction", base.direction, "1 0 0", RANGE_NONZERO, "",
      "rod tangent at the clamp (normalised); the material frame is the "
      "shortest-arc rotation taking e3 to it"),
    F("base", "motion_file", base.motion_file,
      "CSV of t,x,y,z,rx,ry,rz (s, m, rad): the clamp's displacement from "
      "base.position and its rotation vector, world frame, interpolated by "
      "natural cubic splines; held before the first and after the last "
      "time; not with [motor] or contact bodies"),
    D("tip", "mass", tip.mass, "0", RANGE_NONNEG, 0, 0, "kg",
      "mass hung from the tip in the static state, released at t = 0 (or "
      "attached: tip.release)"),
    V("tip", "preload", tip.preload, "0 0 0", RANGE_ANY, "N",
      "tip force in the static state only, released at t = 0 (decides the "
      "side a column buckles to)"),
    V("tip", "force", tip.force, "0 0 0", RANGE_ANY, "N",
      "constant tip force, static state and t > 0, world frame"),
    V("tip", "moment", tip.moment, "0 0 0", RANGE_ANY, "N m",
      "constant tip moment, static state and t > 0, world frame"),
    B("tip", "release", tip.release, "true",
      "true: tip.mass is released at t = 0; false: a rigid body of "
      "tip.mass, tip.inertia and tip.offset stays attached to the tip"),
    V("tip", "inertia", tip.inertia, "0 0 0", RANGE_NONNEG, "kg m^2",
      "principal moments of inertia of the attached body about its "
      "centre, material frame (tip.release = false)"),
    V("tip", "offset", tip.offset, "0 0 0", RANGE_ANY, "m",
      "centre of the attached body from the rod's end, material frame "
      "(tip.release = false)"),
    D("impulse", "peak", impulse.peak, "5", RANGE_ANY, 0, 0, "N",
      "peak of the hat-shaped point force: linear rise over duration/2, "
      "linear fall over duration/2"),
    D("impulse", "duration", impulse.duration, "0.016", RANGE_POSITIVE, 0, 0,
      "s", "duration of the hat"),
    D("impulse", "start", impulse.start, "0", RANGE_ANY, 0, 0, "s",
      "time the hat begins"),
    D("impulse", "position", impulse.position, "0.0458", RANGE_NONNEG, 0, 0,
      "m", "arclength from the clamp of the material point struck"),
    V("impulse", "direction", impulse.direction, "0 0 1", RANGE_NONZERO, "",
      "direction of the force, world frame (normalised)"),
    V("motor", "axis", motor.axis, "0 1 0", RANGE_NONZERO, "",
      "axis of the base rotation through the clamp, world frame"),
    D("motor", "angle", motor.angle, "0.785398", RANGE_ANY, 0, 0, "rad",
      "final angle of the reference"),
    D("motor", "start", motor.start, "0", RANGE_ANY, 0, 0, "s",
      "time the reference starts to turn"),
    D("motor", "ramp", motor.ramp, "0.5", RANGE_POSITIVE, 0, 0, "s",
      "duration of the cosine ramp of the reference from 0 to angle"),
    D("motor", "kp", motor.kp, "0", RANGE_NONNEG, 0, 0, "N m/rad",
      "0: the clamp follows the reference exactly; > 0: a PD-driven joint "
      "(rfem)"),
    D("motor", "kd", motor.kd, "0", RANGE_NONNEG, 0, 0, "N m s/rad",
      "derivative gain of the PD-driven joint"),
    D("motor", "inertia", motor.inertia, "0", RANGE_NONNEG, 0, 0, "kg m^2",
      "rotor inertia of the PD-driven joint"),
    E("motor", "control", motor.control, "pd", control_names,
      "the driven joint's law (kp > 0): pd, kp (ref - q) + kd (ref_rate - "
      "dq); computed_torque, the same plus the chain's inverse dynamics of "
      "the reference's acceleration (rfem; docs/physics.md)"),
    V("plane", "point", plane.point, "0 0 0", RANGE_ANY, "m",
      "a point of the rigid plane (a table), world frame"),
    V("plane", "normal", plane.normal, "0 0 1", RANGE_NONZERO, "",
      "normal of the plane pointing to the side the rod is on (normalised)"),
    D("plane", "friction", plane.friction, "0", RANGE_NONNEG, 0, 0, "",
      "Coulomb friction coefficient mu"),
    D("plane", "restitution", plane.restitution, "0", RANGE_CLOSED, 0, 1, "",
      "normal restitution coefficient"),
    D("time", "dt", time.dt, "2e-3", RANGE_POSITIVE, 0, 0, "s",
      "the time step of the simulation"),
    D("time", "duration", time.duration, "2.0", RANGE_NONNEG, 0, 0, "s",
      "simulated time after t = 0"),
    D("time", "alpha", time.alpha, "-0.48", RANGE_CLOSED, -0.5, 0.0, "",
      "BDF-alpha parameter: -0.5 is the trapezoidal rule (no numerical "
      "damping), 0 is BDF2"),
    E("time", "startup", time.startup, "euler", startup_names,
      "first step: euler (backward Euler, second order overall) or paper "
      "(y(-1) = y(-2) = y0, first order after a release)"),
    E("time", "scheme", time.scheme, "bdf-alpha", scheme_names,
      "time discretisation (kirchhoff backend): bdf-alpha (order 2, the "
      "paper's), or a stiffly accurate, L-stable diagonally implicit "
      "Runge-Kutta pair with an error estimate: esdirk3 (order 3, 3 solves "
      "per step), esdirk4 (order 4, 5 solves), sdirk4 (order 4, 5 solves), "
      "esdirk5 (order 5, 6 solves)"),
    {"time", "tolerance", KEY_DOUBLE, OFF(time.tolerance), 0, NULL,
     RANGE_POSITIVE, 0, 0, NULL, OFF(time.has_tolerance), "m",
     "step-size control: local error allowed per step, as the displacement "
     "of the rod along its length that the estimated errors of curvature "
     "and strain make, and velocity errors / omega_1 (the first clamped "
     "mode; esdirk5: / the omega of their own mode, its steps kept to "
     "time.dt 2^(-k/8)); time.dt is then the first and the largest step, "
     "the shooting's tolerance in a step becomes 0.2 tolerance / L, and "
     "space.nodes = auto sizes the grid from the tolerance; the largest "
     "tip error over a run is about 10 to 20 times it (esdirk5: 1.6 to 16 "
     "times, docs/numerics.md)"},
    B("time", "error_estimate", time.error_estimate, "true",
      "a run estimates its largest tip error from a companion solution on "
      "the same grid at twice time.dt (under time.tolerance: two of the "
      "run's steps as one), 0.3 to 0.9 times the run's cost again: "
      "/error_estimate, the summary line, a warning above 1% of the tip's "
      "motion (docs/numerics.md)"),
    {"space", "nodes", KEY_INT_AUTO, OFF(space.nodes), 0, "auto",
     RANGE_AT_LEAST, 2, 10000000, NULL, 0, "",
     "grid points along s (kirchhoff backend); auto: from the step's length "
     "scale (k h <= 0.2, k^4 = rhoA c0^2 / EI), or under time.tolerance "
     "from the shortest mode the tolerance asks for, and the static "
     "curvature (kappa h <= 0.25), at least 20 (docs/numerics.md)"},
    E("space", "integrator", space.integrator, "rk4", space_names,
      "integrator in arclength: euler (order 1) or rk4 (order 4)"),
    E("space", "history", space.history, "auto", history_names,
      "history of the BDF formula at RK4's inner stages: stage (a record "
      "per stage), hermite (cubic interpolation), linear (the paper's); "
      "auto picks the stable one"),
    B("space", "follow_contact", space.follow_contact, "true",
      "true: in a run a grid node follows each boundary where the rod "
      "leaves a plane it lies on and each point where it touches a sphere "
      "or capsule alone, the samples interpolated onto the static state's grid "
      "(docs/contact.md); false: the static state's grid throughout"),
    E("solver", "backend", solver.backend, "kirchhoff", backend_names,
      "kirchhoff (the continuous rod) or rfem (rigid elements and joints)"),
    D("solver", "tolerance", solver.tolerance, "1e-8", RANGE_POSITIVE, 0, 0, "",
      "stop when the infinity norm of the scaled residual ((n(L) - F) L^2 / "
      "EI, (m(L) - M) L / EI) is below it"),
    I("solver", "max_iterations", solver.max_iterations, "500", 1, 1000000000,
      "nonlinear iterations per attempt"),
    E("solver", "strategy", solver.strategy, "auto", strategy_names,
      "paper: simple shooting, modified shooting after max_iterations, then "
      "BDF2; simple; modified; auto: modified where simple shooting is "
      "ill-conditioned"),
    E("solver", "planar", solver.planar, "auto", planar_names,
      "auto: the planar fast path whenever a step stays exactly in the x-z "
      "plane (same results); off: always the 3D equations"),
    I("rfem", "segments", rfem.segments, "10", 1, 100000,
      "number of spring-damper elements (joints)"),
    E("rfem", "layout", rfem.layout, "centered", layout_names,
      "centered: joints at the centres of n primary segments; uniform: "
      "joints at s = (j - 1) L/n"),
    B("rfem", "planar", rfem.planar, "false",
      "true: one bending joint per element, in the plane of base.direction "
      "and gravity"),
    E("rfem", "integrator", rfem.integrator, "genalpha", rfem_int_names,
      "time integrator of the chain: generalized-alpha, adaptive RK45 or "
      "RK4"),
    D("rfem", "spectral_radius", rfem.spectral_radius, "0.9", RANGE_CLOSED, 0,
      1, "", "generalized-alpha rho_infinity (high-frequency damping)"),
    D("rfem", "rtol", rfem.rtol, "1e-8", RANGE_POSITIVE, 0, 0, "",
      "relative tolerance of rk45"),
    E("rfem", "joint", rfem.joint, "voigt", joint_names,
      "voigt (spring and damper in parallel) or maxwell (in series)"),
    D("rfem", "maxwell_time", rfem.maxwell_time, "0", RANGE_NONNEG, 0, 0, "s",
      "relaxation time c/k of the maxwell element"),
    {"output", "file", KEY_STRING, OFF(output.file), ROD_PATH_MAX, "rodsim.h5",
     RANGE_ANY, 0, 0, NULL, 0, "", "HDF5 file written by run and static"},
    {"output", "every", KEY_INT_AUTO, OFF(output.every), 0, "auto",
     RANGE_AT_LEAST, 1, 1000000000, NULL, 0, "",
     "write every k-th step (and t = 0 and the last step); auto: every step "
     "while the file stays within 100 MB before compression, else the "
     "smallest k that keeps it there"},
    I("output", "compression", output.compression, "1", 0, 9,
      "deflate level of the HDF5 datasets (with byte shuffling); 0: off"),
    I("output", "significant_bits", output.significant_bits, "52", 0, 52,
      "mantissa bits kept of positions, orientations, velocities, forces "
      "and moments (52: all, lossless); fewer drop the solver's noise, which "
      "does not compress; 0: those that resolve a thousandth of "
      "solver.tolerance (37 for 1e-8)"),
    D("output", "max_size", output.max_size, "0", RANGE_NONNEG, 0, 0, "B",
      "refuse a run whose file would exceed this size before compression "
      "(bytes); 0: no limit"),
    D("output", "flush_interval", output.flush_interval, "1", RANGE_POSITIVE, 0,
      0, "s",
      "wall time between flushes of the file: a run killed keeps every "
      "sample older than this; each flush costs a few milliseconds"),
    {"output", "interval", KEY_DOUBLE, OFF(output.interval), 0, NULL,
     RANGE_POSITIVE, 0, 0, NULL, OFF(output.has_interval), "s",
     "write at t = 0, interval, 2 interval, ... and the end, interpolated "
     "to the method's order between steps (instead of output.every)"},
    B("output", "xdmf", output.xdmf, "true",
      "run, static, sweep and a simulation's own output (the C API's "
      "rod_sim_open_output, Python's Sim(output=...)) write OUT.xdmf beside "
      "OUT.h5 when they close it: an XDMF description for ParaView and "
      "VisIt that points into the file (docs/hdf5.md)"),
};
const size_t rod_nkeys = sizeof rod_keys / sizeof rod_keys[0];

/* ---- named sections ---------------------------------------------------- */

#define LOFF(member) offsetof(rod_load_def, member)
static const key_def load_keys[] = {
    {"load", "position", KEY_ARCLENGTH, LOFF(position), 0, "tip",
     RANGE_POSITIVE, 0, 0, NULL, 0, "m",
     "where the load acts: tip, or the arclength of a material point from "
     "the clamp (<= length; a grid node is placed exactly there)"},
    {"load", "force", KEY_VEC3, LOFF(force), 0, "0 0 0", RANGE_ANY, 0, 0, NULL,
     0, "N", "constant force after the ramp, world frame"},
    {"load", "moment", KEY_VEC3, LOFF(moment), 0, "0 0 0", RANGE_ANY, 0, 0,
     NULL, 0, "N m", "constant moment after the ramp, world frame"},
    {"load", "start", KEY_DOUBLE, LOFF(start), 0, "0", RANGE_ANY, 0, 0, NULL, 0,
     "s",
     "force and moment are zero before start; the times of force_file and "
     "moment_file count from start"},
    {"load", "ramp", KEY_DOUBLE, LOFF(ramp), 0, "0", RANGE_NONNEG, 0, 0, NULL,
     0, "s",
     "linear rise from start to the full force and moment; 0: a step "
     "(not with force_file or moment_file)"},
    {"load", "force_file", KEY_FILE, LOFF(force_file), ROD_PATH_MAX, "",
     RANGE_ANY, 0, 0, NULL, 0, "",
     "CSV of t,Fx,Fy,Fz (s, N, world frame), times from start, "
     "interpolated linearly, zero outside; replaces force"},
    {"load", "moment_file", KEY_FILE, LOFF(moment_file), ROD_PATH_MAX, "",
     RANGE_ANY, 0, 0, NULL, 0, "",
     "CSV of t,Mx,My,Mz (s, N m, world frame), as force_file; replaces "
     "moment"},
};

#define OOFF(member) offsetof(rod_obstacle_def, member)
static const key_def obstacle_keys[] = {
    {"obstacle", "shape", KEY_ENUM, OOFF(shape), 0, "sphere", RANGE_ANY, 0, 0,
     shape_names, 0, "", "sphere, capsule or box"},
    {"obstacle", "center", KEY_VEC3, OOFF(center), 0, "0 0 0", RANGE_ANY, 0, 0,
     NULL, 0, "m", "centre, world frame"},
    {"obstacle", "radius", KEY_DOUBLE, OOFF(radius), 0, "0.01", RANGE_POSITIVE,
     0, 0, NULL, 0, "m", "radius of the sphere or capsule"},
    {"obstacle", "axis", KEY_VEC3, OOFF(axis), 0, "0 0 1", RANGE_NONZERO, 0, 0,
     NULL, 0, "", "capsule axis, world frame (normalised)"},
    {"obstacle", "half_length", KEY_DOUBLE, OOFF(half_length), 0, "0.05",
     RANGE_NONNEG, 0, 0, NULL, 0, "m",
     "capsule: half the length of its axis segment"},
    {"obstacle", "half_extents", KEY_VEC3, OOFF(half_extents), 0,
     "0.05 0.05 0.05", RANGE_POSITIVE, 0, 0, NULL, 0, "m",
     "box: half its sides along its own axes"},
    {"obstacle", "rotation", KEY_VEC3, OOFF(rotation), 0, "0 0 0", RANGE_ANY, 0,
     0, NULL, 0, "rad",
     "box: rotation vector (axis times angle) from the world axes to the "
     "box's"},
    {"obstacle", "friction", KEY_DOUBLE, OOFF(friction), 0, "0", RANGE_NONNEG,
     0, 0, NULL, 0, "", "Coulomb friction coefficient mu"},
    {"obstacle", "restitution", KEY_DOUBLE, OOFF(restitution), 0, "0",
     RANGE_CLOSED, 0, 1, NULL, 0, "", "normal restitution coefficient"},
};

#define TOFF(member) offsetof(rod_tendon_def, member)
static const key_def tendon_keys[] = {
    {"tendon", "offset", KEY_VEC2, TOFF(offset), 0, "0 0", RANGE_ANY, 0, 0,
     NULL, 0, "m",
     "x y: where the tendon runs in the cross-section, material frame "
     "(straight, parallel to the backbone)"},
    {"tendon", "helix", KEY_VEC3, TOFF(helix), 0, "0 0 0", RANGE_ANY, 0, 0,
     NULL, 0, "",
     "radius (m) turns phase (rad): a helical routing r(s) = radius (cos a, "
     "sin a), a = 2 pi turns s / length + phase; radius 0: none (offset "
     "applies)"},
    {"tendon", "tension", KEY_DOUBLE, TOFF(tension), 0, "0", RANGE_NONNEG, 0, 0,
     NULL, 0, "N", "the tendon's tension (constant)"},
    {"tendon", "start", KEY_DOUBLE, TOFF(start), 0, "0", RANGE_NONNEG, 0, 0,
     NULL, 0, "m",
     "arclength where the tendon enters the rod (from a sheath that takes "
     "its pull before; a grid node is placed there)"},
    {"tendon", "end", KEY_ARCLENGTH, TOFF(end), 0, "tip", RANGE_POSITIVE, 0, 0,
     NULL, 0, "m",
     "where the tendon is anchored: tip, or the arclength from the clamp "
     "(> start, <= length; a grid node is placed there)"},
    {"tendon", "routing_file", KEY_FILE, TOFF(routing_file), ROD_PATH_MAX, "",
     RANGE_ANY, 0, 0, NULL, 0, "",
     "CSV of s,x,y (m): the routing r(s) in the cross-section, material "
     "frame, a natural cubic spline through the rows (covering [start, "
     "end]); replaces offset and helix"},
    {"tendon", "tension_file", KEY_FILE, TOFF(tension_file), ROD_PATH_MAX, "",
     RANGE_ANY, 0, 0, NULL, 0, "",
     "CSV of t,T (s, N, T >= 0): the tension in time, interpolated "
     "linearly, held at its ends; replaces tension"},
    {"tendon", "displacement_file", KEY_FILE, TOFF(displacement_file),
     ROD_PATH_MAX, "", RANGE_ANY, 0, 0, NULL, 0, "",
     "CSV of t,dl (s, m): displacement control, the length the motor pulls "
     "in, interpolated linearly, held at its ends; the tension follows "
     "from the tendon's length (replaces tension)"},
    {"tendon", "compliance", KEY_DOUBLE, TOFF(compliance), 0, "0", RANGE_NONNEG,
     0, 0, NULL, 0, "1/N",
     "displacement control: the stretch of tendon and transmission per "
     "unit of its commanded length and tension"},
    {"tendon", "base_to_motor", KEY_DOUBLE, TOFF(base_to_motor), 0, "0",
     RANGE_NONNEG, 0, 0, NULL, 0, "m",
     "displacement control: the tendon's length between the rod's base and "
     "its motor"},
    {"tendon", "friction", KEY_DOUBLE, TOFF(friction), 0, "0", RANGE_NONNEG, 0,
     0, NULL, 0, "s/m",
     "friction against the guides (Till, Aloi & Rucker 2019): a force beta "
     "tau |u_xy| s_t per length along the tendon opposing its sliding rate "
     "s_t, and its moment (the chain: beta tau theta s_t at each disk, "
     "theta the tendon's turn there); in time steps; not with contact on "
     "the kirchhoff backend"},
};

const section_family rod_families[] = {
    {"load", "load.NAME",
     "a point force and moment on the rod, constant with a ramp or "
     "tabulated in time",
     OFF(loads.item), OFF(loads.count), sizeof(rod_load_def),
     offsetof(rod_load_def, name), ROD_MAX_LOADS, load_keys,
     sizeof load_keys / sizeof load_keys[0]},
    {"obstacle", "obstacle.NAME",
     "a rigid sphere, capsule or box the rod cannot pass through",
     OFF(obstacles.item), OFF(obstacles.count), sizeof(rod_obstacle_def),
     offsetof(rod_obstacle_def, name), ROD_MAX_OBSTACLES, obstacle_keys,
     sizeof obstacle_keys / sizeof obstacle_keys[0]},
    {"tendon", "tendon.NAME",
     "a tendon routed through the rod from start to end, where it is "
     "anchored, pulled with a tension (docs/tendons.md)",
     OFF(tendons.item), OFF(tendons.count), sizeof(rod_tendon_def),
     offsetof(rod_tendon_def, name), ROD_MAX_TENDONS, tendon_keys,
     sizeof tendon_keys / sizeof tendon_keys[0]},
};
const size_t rod_nfamilies = sizeof rod_families / sizeof rod_families[0];

/* ---- sections ---------------------------------------------------------- */

bool *rod_optional_flag(rod_scenario *sc, const char *section) {
  if (strcmp(section, "impulse") == 0)
    return &sc->impulse.enabled;
  if (strcmp(section, "motor") == 0)
    return &sc->motor.enabled;
  if (strcmp(section, "plane") == 0)
    return &sc->plane.enabled;
  return NULL;
}

const char *rod_section_doc(const char *section) {
  static const struct {
    const char *name, *doc;
  } docs[] = {
      {"rod", "the rod's material, cross-section and model"},
      {"environment", "gravity acting on the rod"},
      {"base", "the clamp"},
      {"tip", "loads at the tip"},
      {"impulse", "optional: a hat-shaped point force (absent means off)"},
      {"motor", "optional: a rotation of the clamp (absent means off)"},
      {"plane", "optional: a rigid plane the rod rests on or strikes"},
      {"time", "time stepping"},
      {"space", "the grid along s (kirchhoff backend)"},
      {"solver", "backend and nonlinear solver"},
      {"rfem", "the rigid-finite-element backend"},
      {"output", "the HDF5 file"},
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    if (strcmp(docs[i].name, section) == 0)
      return docs[i].doc;
  for (size_t i = 0; i < rod_nfamilies; i++)
    if (strcmp(rod_families[i].prefix, section) == 0)
      return rod_families[i].doc;
  return "";
}

bool rod_known_section(const char *section) {
  for (size_t i = 0; i < rod_nkeys; i++)
    if (strcmp(rod_keys[i].section, section) == 0)
      return true;
  return false;
}

const key_def *rod_find_key(const char *section, const char *name) {
  for (size_t i = 0; i < rod_nkeys; i++)
    if (strcmp(rod_keys[i].section, section) == 0 &&
        strcmp(rod_keys[i].name, name) == 0)
      return &rod_keys[i];
  return NULL;
}

const section_family *rod_find_family(const char *section, const char **name) {
  for (size_t i = 0; i < rod_nfamilies; i++) {
    size_t n = strlen(rod_families[i].prefix);
    if (strncmp(section, rod_families[i].prefix, n) == 0 && section[n] == '.') {
      *name = section + n + 1;
      return &rod_families[i];
    }
  }
  return NULL;
}

int rod_family_count(const rod_scenario *sc, const section_family *f) {
  return *(const int *)((const char *)sc + f->count_offset);
}

const char *rod_family_item(const rod_scenario *sc, const section_family *f,
                            int i) {
  return (const char *)sc + f->array_offset + (size_t)i * f->item_size;
}

const key_def *rod_family_key(const section_family *f, const char *name) {
  for (size_t i = 0; i < f->nkeys; i++)
    if (strcmp(f->keys[i].name, name) == 0)
      return &f->keys[i];
  return NULL;
}

/* ---- suggestions ------------------------------------------------------- */

/* Levenshtein distance of a and b (short strings). */
static int edit_distance(const char *a, const char *b) {
  enum { MAXLEN = 64 };
  size_t la = strlen(a), lb = strlen(b);
  if (la >= MAXLEN || lb >= MAXLEN)
    return MAXLEN;
  int row[MAXLEN + 1];
  for (size_t j = 0; j <= lb; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* A candidate is close when at most a third of it (at least 1, at most 3
 * letters) must change. */
static bool close_enough(int distance, const char *candidate) {
  int allowed = (int)strlen(candidate) / 3;
  if (allowed < 1)
    allowed = 1;
  if (allowed > 3)
    allowed = 3;
  return distance <= allowed;
}

const char *rod_nearest_key(const char *section, const char *name, char *buf,
                            size_t size) {
  char given[160], cand[160];
  snprintf(given, sizeof given, "%s.%s", section, name);
  int best = 1 << 30;
  const char *fam_name = NULL;
  const section_family *f = rod_find_family(section, &fam_name);
  if (f) {
    for (size_t i = 0; i < f->nkeys; i++) {
      int d = edit_distance(name, f->keys[i].name);
      if (d < best && close_enough(d, f->keys[i].name)) {
        best = d;
        snprintf(buf, size, "%s.%s", section, f->keys[i].name);
      }
    }
    return best < (1 << 30) ? buf : NULL;
  }
  for (size_t i = 0; i < rod_nkeys; i++) {
    snprintf(cand, sizeof cand, "%s.%s", rod_keys[i].section, rod_keys[i].name);
    int d = edit_distance(given, cand);
    if (d < best && close_enough(d, cand)) {
      best = d;
      snprintf(buf, size, "%s", cand);
    }
  }
  return best < (1 << 30) ? buf : NULL;
}

const char *rod_nearest_section(const char *section, char *buf, size_t size) {
  int best = 1 << 30;
  for (size_t i = 0; i < rod_nkeys; i++) {
    const char *cand = rod_keys[i].section;
    int d = edit_distance(section, cand);
    if (d < best && close_enough(d, cand)) {
      best = d;
      snprintf(buf, size, "%s", cand);
    }
  }
  for (size_t i = 0; i < rod_nfamilies; i++) {
    char cand[64];
    snprintf(cand, sizeof cand, "%s.NAME", rod_families[i].prefix);
    const char *dot = strchr(section, '.');
    size_t n = dot ? (size_t)(dot - section) : strlen(section);
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(n < 63 ? n : 63), section);
    int d = edit_distance(head, rod_families[i].prefix);
    if (d < best && close_enough(d, rod_families[i].prefix)) {
      best = d;
      if (dot)
        snprintf(buf, size, "%s%s", rod_families[i].prefix, dot);
      else
        snprintf(buf, size, "%s", cand);
    }
  }
  return best < (1 << 30) ? buf : NULL;
}

void rod_format_double(double v, char *buf, size_t size) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}
