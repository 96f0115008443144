/* Scenario: every user-settable parameter of a run (docs/scenario.md).
 *
 * A scenario is a plain struct filled with the documented defaults by
 * rod_scenario_default(), then by an INI file and by "section.key=value"
 * overrides. One key table (scenario.c) drives parsing, range checks, the
 * defaults and the canonical INI text, so the four can never disagree.
 * Units are SI; angles in radians. */
#ifndef ROD_SCENARIO_H
#define ROD_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "rod/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ROD_MODEL_KIRCHHOFF = 0, ROD_MODEL_COSSERAT } rod_model_kind;
typedef enum { ROD_BACKEND_KIRCHHOFF = 0, ROD_BACKEND_RFEM } rod_backend_kind;
typedef enum { ROD_SPACE_EULER = 0, ROD_SPACE_RK4 } rod_space_kind;
/* History for the RK4 stages inside an interval (Till & Rucker 2017, II.C):
 * cubic Hermite or linear interpolation of node records, or a record per stage.
 */
typedef enum {
  ROD_HISTORY_AUTO = 0, /* stage when safe (see kirchhoff_backend.c) */
  ROD_HISTORY_HERMITE,
  ROD_HISTORY_LINEAR,
  ROD_HISTORY_STAGE
} rod_history_kind;
/* First time step after t = 0: backward Euler (second order overall) or the
 * paper's start y(i-1) = y(i-2) = y0, y_t = 0 (first order after a release). */
typedef enum { ROD_STARTUP_EULER = 0, ROD_STARTUP_PAPER } rod_startup_kind;

/* Time discretisation (time.scheme): BDF-alpha (Till & Rucker 2017) or a
 * stiffly accurate diagonally implicit Runge-Kutta pair (docs/numerics.md). */
typedef enum {
  ROD_SCHEME_BDF_ALPHA = 0,
  ROD_SCHEME_ESDIRK3, /* Kennedy & Carpenter 2003, ARK3(2)4L[2]SA */
  ROD_SCHEME_ESDIRK4, /* Kennedy & Carpenter 2003, ARK4(3)6L[2]SA */
  ROD_SCHEME_SDIRK4,  /* Hairer & Wanner 1996, SDIRK4 (5 stages) */
  ROD_SCHEME_ESDIRK5  /* Kennedy & Carpenter 2019, ESDIRK5(4)7L[2]SA2 */
} rod_scheme_kind;
/* Which shooting method a step tries first (Till & Rucker 2017, Fig. 2 is
 * `paper`). */
typedef enum {
  ROD_STRATEGY_AUTO = 0, /* modified first when simple is ill-conditioned */
  ROD_STRATEGY_PAPER,    /* simple; modified after max_iterations */
  ROD_STRATEGY_SIMPLE,   /* simple only (then BDF2) */
  ROD_STRATEGY_MODIFIED  /* modified only (then BDF2) */
} rod_strategy_kind;
/* The Kirchhoff backend's planar fast path (kr_planar_symmetric): used
 * whenever a step stays exactly in the x-z plane, or never. */
typedef enum { ROD_PLANAR_AUTO = 0, ROD_PLANAR_OFF } rod_planar_kind;
typedef enum { ROD_LAYOUT_CENTERED = 0, ROD_LAYOUT_UNIFORM } rod_layout_kind;
/* The driven joint's law (motor.control, kp > 0): PD, or computed torque
 * (the PD plus the chain's inverse dynamics of the reference). */
typedef enum {
  ROD_MOTOR_PD = 0,
  ROD_MOTOR_COMPUTED_TORQUE
} rod_motor_control_kind;
typedef enum {
  ROD_RFEM_GENALPHA = 0,
  ROD_RFEM_RK45,
  ROD_RFEM_RK4
} rod_rfem_integrator_kind;
typedef enum { ROD_JOINT_VOIGT = 0, ROD_JOINT_MAXWELL } rod_joint_kind;
/* Air drag: the paper's per-component law C q .* |q| (Till & Rucker 2017,
 * II), or isotropic in the cross-section, -C_n |q_perp| q_perp - C_t |q_3|
 * q_3 (docs/physics.md). */
typedef enum { ROD_DRAG_PAPER = 0, ROD_DRAG_NORMAL } rod_drag_kind;
/* The cross-section's rotary inertia d/dt(R rho J w) in the moment balance:
 * neglected as in the paper, or kept. */
typedef enum { ROD_ROTARY_OFF = 0, ROD_ROTARY_ON } rod_rotary_kind;

typedef enum {
  ROD_SHAPE_SPHERE = 0,
  ROD_SHAPE_CAPSULE,
  ROD_SHAPE_BOX
} rod_shape_kind;

/* Limits of the named sections ([load.NAME], [obstacle.NAME],
 * [tendon.NAME]). */
enum {
  ROD_MAX_LOADS = 32,
  ROD_MAX_OBSTACLES = 32,
  ROD_MAX_TENDONS = 8,
  ROD_NAME_MAX = 32
};
enum { ROD_PATH_MAX = 1024 };

/* A place on the rod: its tip, or an arclength from the clamp. */
typedef struct {
  bool tip;
  double s; /* m, when !tip */
} rod_arclength;

/* [load.NAME]: a point force and moment on the rod, constant with a ramp
 * or tabulated in time (world frame, dead loads). */
typedef struct {
  char name[ROD_NAME_MAX];
  rod_arclength position;
  double force[3];  /* N, world frame */
  double moment[3]; /* N m, world frame */
  double start;     /* s: zero before */
  double ramp;      /* s: linear rise from start to full over ramp; 0: step */
  char force_file[ROD_PATH_MAX];  /* CSV t,Fx,Fy,Fz (N); "" for none */
  char moment_file[ROD_PATH_MAX]; /* CSV t,Mx,My,Mz (N m); "" for none */
} rod_load_def;

/* [obstacle.NAME]: a rigid body the rod cannot pass through. */
typedef struct {
  char name[ROD_NAME_MAX];
  rod_shape_kind shape;
  double center[3];       /* m, world frame */
  double radius;          /* m: sphere, capsule */
  double axis[3];         /* unit, capsule axis (world frame) */
  double half_length;     /* m, capsule: half the length of its axis */
  double half_extents[3]; /* m, box: half its sides along its own axes */
  double rotation[3];     /* rad, box: rotation vector (axis times angle)
                             taking the world axes to the box's */
  double friction;        /* Coulomb coefficient mu */
  double restitution;     /* normal restitution coefficient, [0, 1] */
} rod_obstacle_def;

/* [tendon.NAME]: a tendon routed through the rod's cross-sections from
 * start to end, where it is anchored, pulled with a tension (Rucker &
 * Webster 2011). Its routing r(s) in the material frame is a straight
 * offset, a helix when helix's radius is not zero, or a table. */
typedef struct {
  char name[ROD_NAME_MAX];
  double offset[2];  /* m: (x, y) in the cross-section, material frame */
  double helix[3];   /* radius (m), turns over the rod, phase (rad); radius 0:
                        none (offset applies) */
  double tension;    /* N, >= 0 */
  double start;      /* m of arclength where it enters the rod, >= 0 */
  rod_arclength end; /* where it is anchored: tip, or m of arclength */
  char routing_file[ROD_PATH_MAX]; /* CSV s,x,y (m); "" for none */
  char tension_file[ROD_PATH_MAX]; /* CSV t,T (s, N); "" for none */
  /* displacement control: CSV t,dl (s, m pulled in by the motor); "" for
   * none (tension control); the tension follows from the length
   * constraint (docs/tendons.md) */
  char displacement_file[ROD_PATH_MAX];
  double compliance;    /* 1/N: the tendon's and transmission's stretch per
                           unit length and tension */
  double base_to_motor; /* m of tendon between the rod and its motor */
  double friction;      /* s/m: beta of the friction against the guides, a force
                           beta tau |u_xy| s_t per length (docs/tendons.md) */
} rod_tendon_def;

typedef struct {
  struct {
    rod_model_kind model;
    double length;            /* m */
    double diameter;          /* m, outer diameter of the circular section */
    double inner_diameter;    /* m, 0 for a solid section, < diameter */
    double density;           /* kg/m^3 */
    double youngs_modulus;    /* Pa */
    double shear_modulus;     /* Pa */
    double bending_stiffness; /* N m^2, used when has_bending_stiffness */
    bool has_bending_stiffness;
    double bending_damping;   /* N m^2 s, Kelvin-Voigt B for bending */
    double shear_retardation; /* s: B_se = tau_se K_se, used when
                                 has_shear_retardation; else B / EI */
    bool has_shear_retardation;
    double drag; /* kg/m^2, square-law drag coefficient (normal
                    drag C_n for drag_model = normal) */
    rod_drag_kind drag_model;
    double drag_tangential;   /* kg/m^2, C_t of drag_model = normal */
    double shear_coefficient; /* kappa of the shear stiffness kappa G A
                                 (cosserat), used when has_shear_coefficient;
                                 else Cowper's value for the section */
    bool has_shear_coefficient;
    rod_rotary_kind rotary_inertia;
    double precurvature[3]; /* 1/m, u* in the material frame, constant */
    char precurvature_file[ROD_PATH_MAX]; /* CSV s,u1,u2,u3; "" for none */
  } rod;
  struct {
    double gravity[3]; /* m/s^2, world frame */
  } environment;
  struct {
    double position[3];  /* m, the clamp (s = 0) */
    double direction[3]; /* unit tangent at the clamp */
    /* CSV t,x,y,z,rx,ry,rz: displacement (m) and rotation vector (rad) of
     * the clamp in time, world frame; "" for none */
    char motion_file[ROD_PATH_MAX];
  } base;
  struct {
    double mass;       /* kg, hung at the tip (the static state only unless
                          release is false) */
    double preload[3]; /* N, static state only */
    double force[3];   /* N, static state and t > 0 */
    double moment[3];  /* N m, static state and t > 0, world frame */
    bool release;      /* true: the tip mass is released at t = 0; false:
                          a rigid body attached to the tip */
    double inertia[3]; /* kg m^2, of the attached body about its centre,
                          material frame (principal axes) */
    double offset[3];  /* m, the attached body's centre from the rod's
                          end, material frame */
  } tip;
  struct {
    bool enabled;
    double peak;         /* N */
    double duration;     /* s */
    double start;        /* s */
    double position;     /* m, arclength from the base */
    double direction[3]; /* unit, world frame */
  } impulse;
  struct {
    bool enabled;
    double axis[3]; /* unit, world frame, through the base point */
    double angle;   /* rad, final reference angle */
    double start;   /* s */
    double ramp;    /* s, cosine ramp duration */
    double kp;      /* N m/rad; 0 = prescribed rotation */
    double kd;      /* N m s/rad */
    double inertia; /* kg m^2, rotor inertia of the PD-driven joint */
    rod_motor_control_kind control; /* the driven joint's law */
  } motor;
  struct {
    double dt;       /* s */
    double duration; /* s, simulated after t = 0 */
    double alpha;    /* BDF-alpha parameter in [-0.5, 0] */
    rod_startup_kind startup;
    rod_scheme_kind scheme;
    bool has_tolerance;  /* step-size control on */
    double tolerance;    /* m: local error per step, on positions */
    bool error_estimate; /* a run estimates its tip error (fixed steps) */
  } time;
  struct {
    int nodes;
    rod_space_kind integrator;
    rod_history_kind history;
    bool follow_contact; /* a node follows each contact boundary on a plane */
  } space;
  struct {
    rod_backend_kind backend;
    double tolerance; /* scaled residual, infinity norm */
    int max_iterations;
    rod_strategy_kind strategy;
    rod_planar_kind planar;
  } solver;
  struct {
    int segments;
    rod_layout_kind layout;
    bool planar;
    rod_rfem_integrator_kind integrator;
    double spectral_radius;
    double rtol;
    rod_joint_kind joint;
    double maxwell_time; /* s */
  } rfem;
  struct {
    bool enabled;
    double point[3];    /* m, a point of the plane */
    double normal[3];   /* unit, pointing to the free side */
    double friction;    /* Coulomb coefficient mu */
    double restitution; /* normal restitution coefficient, [0, 1] */
  } plane;
  struct {
    int count;
    rod_load_def item[ROD_MAX_LOADS];
  } loads;
  struct {
    int count;
    rod_obstacle_def item[ROD_MAX_OBSTACLES];
  } obstacles;
  struct {
    int count;
    rod_tendon_def item[ROD_MAX_TENDONS];
  } tendons;
  struct {
    char file[ROD_PATH_MAX];
    int every;
    int compression;      /* deflate level 0..9, 0: off */
    int significant_bits; /* of the rod's results; 0: from the tolerance */
    double max_size;      /* B, before compression; 0: no limit */
    bool has_interval;    /* samples at multiples of interval, not every */
    double interval;      /* s */
    bool xdmf; /* run and static write OUT.xdmf beside OUT.h5 (export.h) */
    /* s of wall time between flushes of the file */
    double flush_interval;
  } output;
  /* Where the scenario came from, for messages ("" for defaults only). */
  char source[ROD_PATH_MAX];
} rod_scenario;

/* The documented defaults (docs/scenario.md); no optional sections. */
void rod_scenario_default(rod_scenario *sc);

/* Read an INI file on top of the defaults. Unknown sections or keys, bad
 * numbers, NaN/Inf and out-of-range values fail with ROD_EINVAL and err names
 * the file, the key and the problem; an unreadable file gives ROD_EIO. */
int rod_scenario_load(rod_scenario *sc, const char *path, rod_error *err);

/* Read INI text (the format of a file) on top of sc; name labels messages
 * (NULL: "scenario"). The same checks and messages as rod_scenario_load;
 * data file names in the text stay as given (relative ones are opened from
 * the working directory), as with rod_scenario_set. */
int rod_scenario_load_string(rod_scenario *sc, const char *text,
                             const char *name, rod_error *err);

/* A scenario with the defaults on the heap, for callers that do not see
 * the struct's layout (other languages, a library built separately from
 * the caller: the struct grows with every key). NULL if out of memory.
 * Free with rod_scenario_free (NULL is a no-op). */
rod_scenario *rod_scenario_new(void);
void rod_scenario_free(rod_scenario *sc);

/* Apply one "section.key=value" override (the CLI's --set). Setting a key of
 * an optional section turns that section on. */
int rod_scenario_set(rod_scenario *sc, const char *assignment, rod_error *err);

/* Set one key from its section, name and text value, as the file would. */
int rod_scenario_set_key(rod_scenario *sc, const char *section,
                         const char *name, const char *value, rod_error *err);

/* Checks that span several keys (impulse inside the rod, maxwell_time > 0
 * for maxwell joints, ...). Call after the last override. */
int rod_scenario_validate(const rod_scenario *sc, rod_error *err);

/* ---- warnings -------------------------------------------------------------
 * What a valid scenario may still get wrong (docs/commands.md, Warnings):
 * a likely unit slip, a static state the grid or the chain resolves
 * poorly, a time step or grid too coarse for the motion. The library never
 * prints them: rodsim prints each as one line "rodsim: FILE: KEY: warning:
 * MESSAGE" on stderr. */
typedef struct {
  char key[64];      /* "section.key" it concerns */
  char message[512]; /* one line, without the file and key */
} rod_warning;

/* Kinds of warnings, or-ed together. */
enum {
  ROD_WARN_UNITS = 1,   /* values far outside what rods and their
                           materials are: a likely unit slip */
  ROD_WARN_STATICS = 2, /* the static state's error: the chain's elements,
                           Euler in arclength */
  ROD_WARN_TIME = 4,    /* time stepping: the step against the first
                           bending mode and an impulse, the grid against
                           the step's length scale, the history */
  ROD_WARN_ALL = 7
};

/* The warnings of the kinds in `what` about sc (validated), in the order
 * rodsim prints them: up to max written to out (NULL when max is 0);
 * returns how many there are. */
int rod_scenario_warnings(const rod_scenario *sc, int what, rod_warning *out,
                          int max);

/* The full effective scenario as canonical INI text (every key, optional
 * sections only when on). Returns the length that the text needs (excluding
 * the terminating NUL), like snprintf. */
size_t rod_scenario_to_ini(const rod_scenario *sc, char *buf, size_t size);

/* Text of one key's current value ("0.408", "0 0 -9.81", "rk4"). Returns
 * ROD_EINVAL for an unknown key. */
int rod_scenario_get_text(const rod_scenario *sc, const char *section,
                          const char *name, char *buf, size_t size);

/* Address of a numeric (double) key, or NULL if the key is unknown or not a
 * scalar double. Used by calibration to vary [rod] keys. */
double *rod_scenario_double_key(rod_scenario *sc, const char *section,
                                const char *name);

/* One documented key, for `rodsim keys` and the scenario reference. Keys
 * of named sections read "load.NAME" as their section. */
typedef struct {
  const char *section;
  const char *name;
  const char *type;         /* number, pair, vector, integer, boolean, choice,
                               text, arclength */
  const char *default_text; /* "" when absent by default */
  const char *unit;         /* SI unit, "" for none */
  const char *doc;          /* what it means */
  char range[160];          /* allowed values, as text */
} rod_key_info;

/* Number of documented keys; rod_scenario_key_info fills out for key i in
 * [0, count) (the order of the reference) and returns ROD_OK, or
 * ROD_EINVAL for another i. */
int rod_scenario_key_count(void);
int rod_scenario_key_info(int i, rod_key_info *out);

/* One line on what a section holds ("load.NAME" for named ones); "" for an
 * unknown section. */
const char *rod_scenario_section_doc(const char *section);

#ifdef __cplusplus
}
#endif

#endif
