/* The Kirchhoff/Cosserat backend's data (Till & Rucker 2017): the grid, the
 * current step's ODE data, history, the shooting problem, the predictors'
 * series and the accepted solution, one struct every room of the backend
 * reads. Types and constants only; each room's functions are declared in
 * its own header (docs/design.md, "The Kirchhoff backend's rooms"). */
#ifndef ROD_KIRCHHOFF_STATE_H
#define ROD_KIRCHHOFF_STATE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "bvp/mshoot.h"
#include "bvp/shooting.h"
#include "core/drive.h"
#include "core/model.h"
#include "integrators/bdf.h"
#include "integrators/dirk.h"
#include "integrators/history.h"
#include "integrators/linpred.h"
#include "integrators/spatial.h"
#include "io/inputs.h"
#include "kirchhoff/rod_rhs.h"
#include "rod/scenario.h"
#include "sim/backend.h"

/* Per-node record: the 16 states and the quadratures (position, energy). */
enum { KR_NODE = ROD_NY + ROD_NQ };

/* History quantities per point: q (3), u (3), v (3), w (3); KR_HW values
 * in all. */
enum { KR_HQ = 0, KR_HU = 3, KR_HV = 6, KR_HOM = 9, KR_HW = 12 };

/* The sweeps' friction workspace per tendon: l at the interval's start and
 * at the stage, the 4 stages' rates, for the states and 16 directions
 * (kirchhoff_friction_sweep.h). */
enum { KR_FRICTION_WORK = 6 * (1 + 16) };

/* Contact boundaries a moving grid follows at once (kirchhoff_regrid.c). */
enum { KR_KINKS = 8 };

/* Past solutions kept for the predictor. */
enum { KR_PAST = 5 };

/* Stages the Runge-Kutta schemes' predictor passes through: the
 * quadratic through three. Measured on esdirk4 (weight release,
 * 30 nodes, 0.7 ms; impulse, 40 nodes, time.tolerance = 1e-5), the stage's
 * first scaled residual (geometric mean) and the solver's iterations per
 * step, by the number of stages the polynomial passes through:
 * 2: 0.138, 18.5 and 0.52, 23.5; 3: 0.116, 18.3 and 0.35, 22.7;
 * 4: 0.239, 19.6 and 0.69, 23.5; 6: 0.98, 24.7. The modes a step does not
 * follow change from stage to stage by as much as the stages lie apart,
 * and a higher degree amplifies them. */
enum { KR_STAGE_USED = 3 };

/* Solved stages kept for it, newest first: the prediction picks
 * KR_STAGE_USED of them spaced apart (kirchhoff_predict.c). */
enum { KR_STAGE_PAST = 8 };

/* Evaluation points per interval: the stages of RK4 (Euler uses the
 * first). */
enum { KR_STAGES = ROD_MAX_STAGES };

typedef struct {
  double kinetic, elastic, gravity; /* J */
} kr_energy;

/* Contact with the scenario's bodies (kirchhoff_contact.h). */
typedef struct kr_contact kr_contact;

typedef struct rod_kirchhoff {
  rod_scenario sc;
  rod_model model;
  int nodes, intervals;
  double *s;          /* m, nodes */
  double *s_base;     /* m, nodes: the grid as built (the static state's
                         contact boundaries move nodes from it) */
  double *len;        /* m, intervals */
  double len_max;     /* m, the longest interval */
  int tangent_stride; /* grid intervals per coarse interval of the
                         tangents along the last sweep, 0: none */
  const rod_spatial_type *integ;
  rod_history_kind history_kind;

  double force_scale;  /* N: EI / L^2 */
  double moment_scale; /* N m: EI / L */

  /* The current step's boundary-value problem. */
  rod_bdf_coeffs coeffs;
  bool dynamic; /* false: statics (c0 = 0, no history) */
  rod_rhs_const rc;
  bool planar;        /* the step stays in the x-z plane: planar right-hand side
                         and tangents of the in-plane directions only */
  int stages;         /* evaluation points per interval (integ->stages) */
  rod_hist_point *hp; /* `stages` per interval: the history terms */
  rod_rhs_point *pt;  /* `stages` per interval: the terms that vary along s */
  double *route;      /* the tendons' routing at the points (pt[].route;
                         kirchhoff_tendon.c), NULL without tendons */
  double *tendon_z;   /* 6 per point: the tendons' share of the strains at
                         its last solve (pt[].tz), NULL without tendons */
  double tension[ROD_TENDONS_MAX]; /* N: the tendons' at the loads' time */
  double tendon_length[ROD_TENDONS_MAX]; /* m: at the last converged sweep */
  /* The tendons' works on the rod since t = 0 (J; rod_sample), and the
   * tensions (N), lengths (m) and friction loads' power (W) of the last
   * accepted step they were summed to (kirchhoff_tendon_work.c). */
  double tendon_work, friction_work;
  double work_tension[ROD_TENDONS_MAX], work_length[ROD_TENDONS_MAX];
  double friction_power;
  /* Displacement-controlled tendons (kirchhoff_tendon_solve.c): their
   * indices; the unknowns xi (N: the tension when >= 0; m: minus the
   * slack length when < 0); the length pulled in at the loads' time (m);
   * the routing's length on the unloaded rod (m, every tendon); the
   * constraint's Jacobian by xi kept from solve to solve (m/N, Broyden);
   * the last solves' times and unknowns (the prediction); the last
   * constraint residuals (m). */
  int ndisp;
  int disp[ROD_TENDONS_MAX];
  double disp_xi[ROD_TENDONS_MAX];
  double disp_dl[ROD_TENDONS_MAX];
  double tendon_rest[ROD_TENDONS_MAX];
  double disp_B[ROD_TENDONS_MAX * ROD_TENDONS_MAX];
  bool disp_have_B;
  int disp_n_past;
  double disp_past_t[2], disp_past_xi[2][ROD_TENDONS_MAX];
  double disp_residual[ROD_TENDONS_MAX];
  double disp_rmax[ROD_TENDONS_MAX];   /* m: the largest offset where it runs */
  double disp_Sx[6 * ROD_TENDONS_MAX]; /* 1/N: d x / d xi (6 x ndisp),
                                          Broyden's, for the warm starts */
  bool disp_warm; /* the shooting starts from the unknowns it is given (the
                     last solve's, at other tensions), not a prediction */
  /* The tendons' friction (kirchhoff_tendon_friction.c), NULL without:
   * at every evaluation point (points x tendons) the tendons' lengths from
   * the motor l_i (m) of the last sweep, their unstretched arclength s_i
   * (m), its history term (s_t = c0 s + slide_H, m/s: BDF-alpha's, or
   * the Runge-Kutta stage's) and the sliding rates the equations read
   * (rod_rhs_point.slide, m/s); l_i at the nodes of the last sweep (a
   * segment's start); the sweeps' workspace; s_i's BDF-alpha history, or
   * its stage storage under a Runge-Kutta scheme (time.scheme). */
  double *slide_l, *slide_s, *slide_H, *slide_rate, *slide_node, *slide_work;
  rod_history *slide_hist;
  rod_dirk_stages *slide_dirk;
  bool ustar_planar;   /* u*_1 = u*_3 = 0 everywhere */
  bool general;        /* precurved, rotary inertia or normal drag: the sweeps'
                          general variant (a plain rod's skips those terms) */
  bool history_planar; /* every hp in the x-z plane */
  rod_drive drive;     /* loads and clamp motion set between steps */
  rod_inputs *inputs;  /* the scenario's data files */
  double base_p[3];    /* m, world: the clamp's position p(0) */
  double base_h[4], base_q[3], base_w[3];
  /* The concentrated loads of the step (rod_loads.h, kirchhoff_loads.h):
   * tip loads, point loads on their grid nodes, the contact forces at the
   * nodes; the distributed ones are rc.loads. */
  rod_loads_nodes loads;
  /* The attached tip body (tip.release = false; kirchhoff_tip.c): mass
   * (kg), principal moments of inertia about its centre (kg m^2) and the
   * centre's offset from the rod's end (m), material frame; its weight
   * (N, world; scaled along a static loading path) and the BDF history
   * of the end's velocity q(L) and angular velocity w(L): q_t = c0 q +
   * body_qh, w_t = c0 w + body_wh; body_past holds q, w of the last two
   * steps and their rates of the last one. */
  bool tip_body;
  double body_mass, body_inertia[3], body_offset[3], body_weight[3];
  double body_qh[3], body_wh[3];
  double body_past[6][3];     /* q(i-1), q(i-2), q_t(i-1), w(i-1), ... */
  rod_dirk_stages *body_dirk; /* q(L), w(L) of a Runge-Kutta scheme's
                                 stages (time.scheme), else NULL */
  /* History and its terms for the current coefficients. Node history
   * (hermite, linear): records at both ends of every interval, midpoints
   * interpolated. Stage history: records at every stage point, whose terms
   * rod_history_point_terms writes into hp in place. */
  rod_history *hist;
  double *H_ends, *Hs_ends, *H_mid;
  rod_history *stage_hist;
  double *stage_val; /* stage records of the last sweep (same layout) */
  double *stage_ps;  /* stages x intervals x 3: p_s at every stage of the
                        last sweep; with stage_val, the integrands of the
                        quadratures (kr_quadratures) */

  /* Sweeps. */
  double *ybuf;       /* states and up to 16 tangent directions (16 each) */
  double *node_y;     /* nodes x KR_NODE, right limits, of the last sweep */
  double *point_left; /* npoints x ROD_NY: the states just proximal to
                         each point load's node */

  rod_bvp bvp;
  rod_shooting *shoot;
  rod_mshoot *mshoot;
  double state_scale[ROD_NY];    /* units of the 16 states for multiple
                                    shooting: 1, EI/L^2, EI/L, L/T, 1/T */
  bool modified_on;              /* modified shooting kept from the last step */
  int auto_modified;             /* steps auto keeps to modified shooting */
  double mshoot_c0;              /* c0 of modified shooting's stored Jacobian */
  double *yref;                  /* nodes x ROD_NY reference (predicted) */
  double *sol_prev[KR_PAST - 1]; /* the solutions before sol_y */
  int n_sol;          /* accepted dynamic solutions stored (max KR_PAST) */
  rod_linpred *lp;    /* linear prediction of the node states */
  double *lp_z;       /* nodes x ROD_NY: the accepted states, packed (the
                         predictor's series, the drift test's reference) */
  bool lp_fitted;     /* lp fitted after the last accepted step */
  bool have_linear;   /* x_linear predicts the current step */
  bool use_linear;    /* the solver starts from x_linear */
  double x_poly[6];   /* unknowns by polynomial extrapolation */
  double x_linear[6]; /* unknowns by the linear recurrence */
  double err_poly, err_linear; /* running errors of both (scaled units;
                                  negative: none yet) */
  bool predict_hold;           /* the prediction is the last accepted state
                                  (kr_predict_hold) */

  /* Accepted solution. */
  double x[6];               /* scaled unknowns n(0) L^2/EI, m(0) L/EI */
  double x_prev[KR_PAST][6]; /* the last accepted unknowns, newest first */
  int n_prev;                /* how many of x_prev are valid */
  double *rec_val, *rec_der; /* 2 intervals x KR_HW */
  double *sol_y;             /* nodes x KR_NODE, the accepted solution */
  kr_energy energy;
  /* Output arrays of rod_sample. */
  double *out_pos, *out_quat, *out_vel, *out_n, *out_m;
  double time; /* s */
  int steps;   /* dynamic steps taken */
  /* the last sweep's quadratures are integrated (a contact-free step's
   * gaps, kr_contact_free_step): kr_postprocess takes them */
  bool quadratures_done;
  bool have_jacobian_c0;
  double jacobian_c0;              /* c0 the stored Jacobian belongs to */
  rod_static_report static_report; /* how the static state was found */
  /* the static solve's loads reached on its loading path (0 to 1; -1
   * before a path starts: the direct solve, the contact problem at the
   * full loads), read from other threads (rod_sim_static_progress) */
  _Atomic double static_progress;
  kr_contact *contact; /* NULL: the scenario has no bodies */

  /* The grid in time (kirchhoff_regrid.c): the output grid (the static
   * state's, /rod/s), the nodes at the planes' contact boundaries of the
   * current grid (the interpolation never crosses them), the moves so far
   * and workspaces. */
  double *s_out;
  int nkinks;
  int kink[KR_KINKS];
  int regrids;
  double *rg_s;     /* nodes: the grid before a move */
  double *rg_buf;   /* the largest array carried */
  double *rg_node;  /* nodes x 16: sample quantities on the current grid */
  double *rg_scale; /* nodes: the contact forces' scale */
  double *out_cforce;
  signed char *out_cactive;

  /* Runge-Kutta schemes in time (time.scheme != bdf-alpha;
   * kirchhoff_dirk.c): the table, the one for a start without a known
   * rate, the stage storage at every evaluation point, and the solved
   * stages the next stages are predicted from. */
  const rod_dirk_table *scheme, *start_scheme;
  rod_dirk_stages *dirk;
  double *dirk_err;      /* points x KR_HW: the step's error estimate */
  double step_tolerance; /* m: steps with a larger error are rejected */
  double step_shooting_tolerance;   /* under time.tolerance, the shooting's of
                                       the time steps (the static state takes
                                       the tighter of it and solver.tolerance);
                                       0: solver.tolerance throughout */
  double velocity_error_scale;      /* s: m of position per m/s of velocity
                                       error (time.tolerance) */
  double stage_t[KR_STAGE_PAST];    /* s, newest first */
  double stage_x[KR_STAGE_PAST][6]; /* their unknowns */
  double *stage_y[KR_STAGE_PAST];   /* nodes x ROD_NY: their states */
  int n_stage;                      /* how many are valid */
} rod_kirchhoff;

#endif
