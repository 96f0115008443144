/* Internal state of the Kirchhoff/Cosserat backend (Till & Rucker 2017): grid,
 * the current step's ODE data, history, the shooting problem and the accepted
 * solution. Only the kirchhoff_*.c files see this. */
#ifndef ROD_KIRCHHOFF_INTERNAL_H
#define ROD_KIRCHHOFF_INTERNAL_H

#include <stdbool.h>

#include "bvp/mshoot.h"
#include "bvp/shooting.h"
#include "contact/contact.h"
#include "core/drive.h"
#include "core/model.h"
#include "integrators/bdf.h"
#include "integrators/dirk.h"
#include "integrators/history.h"
#include "integrators/linpred.h"
#include "integrators/spatial.h"
#include "io/inputs.h"
#include "rod/scenario.h"
#include "rod_rhs.h"
#include "sim/backend.h"

/* Per-node record: the 16 states and the quadratures (position, energy). */
enum { KR_NODE = ROD_NY + ROD_NQ };

/* History quantities per point: q (3), u (3), v (3), w (3); KR_HW values
 * in all. */
enum { KR_HQ = 0, KR_HU = 3, KR_HV = 6, KR_HOM = 9, KR_HW = 12 };

/* Point loads along the rod: the impulse and every [load.NAME]. */
enum { KR_MAX_POINTS = ROD_MAX_LOADS + 1 };

/* Contact boundaries a moving grid follows at once (kirchhoff_regrid.c). */
enum { KR_KINKS = 8 };

/* Past solutions kept for the predictor. */
enum { KR_PAST = 5 };

/* Solved stages kept for the Runge-Kutta schemes' predictor: the
 * quadratic through the newest three. Measured on esdirk4 (weight release,
 * 30 nodes, 0.7 ms; impulse, 40 nodes, time.tolerance = 1e-5), the stage's
 * first scaled residual (geometric mean) and the solver's iterations per
 * step, by the number of stages the polynomial passes through:
 * 2: 0.138, 18.5 and 0.52, 23.5; 3: 0.116, 18.3 and 0.35, 22.7;
 * 4: 0.239, 19.6 and 0.69, 23.5; 6: 0.98, 24.7. The modes a step does not
 * follow change from stage to stage by as much as the stages lie apart,
 * and a higher degree amplifies them. */
enum { KR_STAGE_PAST = 3 };

/* Evaluation points per interval: the stages of RK4 (Euler uses the
 * first). */
enum { KR_STAGES = ROD_MAX_STAGES };

typedef struct {
  double kinetic, elastic, gravity; /* J */
} kr_energy;

/* Contact with the scenario's bodies (kirchhoff_contact.c). */
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
  /* Point loads inside the rod (the impulse, [load.NAME] at an arclength):
   * each on its own grid node, where n and m jump (Till & Rucker 2017,
   * III.B); loads at the tip are tip loads. */
  int npoints;
  int point_node[KR_MAX_POINTS]; /* grid node of each, ascending */
  int *node_point;               /* nodes: its point load's index, -1 */
  int *next_point;               /* nodes: the next point load's node after
                                    the node, `nodes` if none */
  int impulse_point;             /* the impulse's index; -1 none, -2 tip */
  int load_point[ROD_MAX_LOADS]; /* each [load.NAME]'s index, -2 tip */
  double impulse_dir[3];
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
  bool ustar_planar;  /* u*_1 = u*_3 = 0 everywhere */
  bool general;       /* precurved, rotary inertia or normal drag: the sweeps'
                         general variant (a plain rod's skips those terms) */
  bool history_planar; /* every hp in the x-z plane */
  rod_drive drive;     /* loads and clamp motion set between steps */
  rod_inputs *inputs;  /* the scenario's data files */
  double base_p[3];    /* m, world: the clamp's position p(0) */
  double base_h[4], base_q[3], base_w[3];
  double tip_force[3], tip_moment[3]; /* N, N m: n(L), m(L) */
  /* N, N m: n and m jump by -F, -M at point load i */
  double point_force[KR_MAX_POINTS][3], point_moment[KR_MAX_POINTS][3];
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
  kr_contact *contact;             /* NULL: the scenario has no bodies */
  double *contact_jump; /* N, nodes x 3, world: the contact force at each
                           node, where n jumps by -F; NULL without bodies */

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
  double *dirk_err;              /* points x KR_HW: the step's error estimate */
  double step_tolerance;         /* m: steps with a larger error are rejected */
  double velocity_error_scale;   /* s: m of position per m/s of velocity
                                    error (time.tolerance) */
  double stage_t[KR_STAGE_PAST]; /* s, newest first */
  double stage_x[KR_STAGE_PAST][6]; /* their unknowns */
  double *stage_y[KR_STAGE_PAST];   /* nodes x ROD_NY: their states */
  int n_stage;                      /* how many are valid */
} rod_kirchhoff;

/* kirchhoff_sweep.c: the shooting problem */
void kr_bvp_init(rod_kirchhoff *k);

/* kirchhoff_step.c: per-step ODE data */
/* The coarse interval of the tangents along the last sweep for the step's
 * coefficients (kirchhoff_sweep.c); at most KR_TANGENT_STRIDE_MAX grid
 * intervals. */
enum { KR_TANGENT_STRIDE_MAX = 8 };
void kr_set_tangent_stride(rod_kirchhoff *k);
/* u* at every evaluation point from the model (once, at creation). */
void kr_set_precurvature(rod_kirchhoff *k);
void kr_set_coefficients(rod_kirchhoff *k, const rod_bdf_coeffs *c,
                         bool dynamic);
/* A Runge-Kutta stage: y_t = c0 y + H with H already in hp. */
void kr_set_stage(rod_kirchhoff *k, double c0);
void kr_set_loads(rod_kirchhoff *k, double t, bool static_state);
bool kr_planar_symmetric(const rod_kirchhoff *k);

/* kirchhoff_backend.c: a step's problem */
/* BDF coefficients of the next step's first attempt: backward Euler for
 * the first step after the release (time.startup = euler), else
 * BDF-alpha. */
rod_bdf_coeffs kr_step_coefficients(const rod_kirchhoff *k);
/* Set up the step to time t with coefficients c (history terms, loads,
 * planar fast path) and predict its unknowns into x (after
 * kr_prepare_prediction). */
void kr_pose_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                  double *x);

/* Unknowns of the straight rigid rod carrying the current loads. */
void kr_rigid_guess(const rod_kirchhoff *k, double *x);
/* The planar fast path when the step allows it (solver.planar = auto). */
void kr_set_planar(rod_kirchhoff *k);
rod_lm_options kr_shooting_options(const rod_kirchhoff *k);
void kr_add_stats(rod_step_stats *st, const rod_shooting_stats *s);

/* kirchhoff_static.c: the static state as the end of a loading path, and
 * its stability */
int kr_solve_static(rod_kirchhoff *k, rod_step_stats *st);

/* kirchhoff_backend.c: the strategy's chain of methods for the problem
 * posed at time t (BDF coefficients c, or a Runge-Kutta stage with c->c0
 * when stage is true; then hp holds its history terms): simple or modified
 * shooting first (*modified), the other after a failure. Without the BDF2
 * retry. */
int kr_solve_chain(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                   bool stage, bool *modified, double *x, rod_step_stats *st);
/* After a step solved (modified: by modified shooting), the strategy's
 * choice for the next ones. */
void kr_update_strategy(rod_kirchhoff *k, bool modified,
                        const rod_step_stats *st);

/* kirchhoff_dirk.c: a step of a Runge-Kutta scheme */
int kr_dirk_alloc(rod_kirchhoff *k);
void kr_dirk_free(rod_kirchhoff *k);
void kr_dirk_rest(rod_kirchhoff *k); /* after the static solve */
int kr_dirk_step(rod_kirchhoff *k, double t, rod_step_stats *st);
void kr_dirk_predict(const rod_kirchhoff *k, double t, double *x);
void kr_dirk_predict_states(rod_kirchhoff *k, double t, int stride);

/* kirchhoff_predict.c: predictors of the step's unknowns and states */
rod_linpred *kr_alloc_predictor(const rod_kirchhoff *k);
void kr_reset_prediction(rod_kirchhoff *k);
void kr_prepare_prediction(rod_kirchhoff *k); /* before a step */
void kr_predict(const rod_kirchhoff *k, double *x);
void kr_predict_states(rod_kirchhoff *k, int stride); /* into yref */
/* With hold, the step's prediction (unknowns and node states) is the last
 * accepted state itself, not an extrapolation: a retry where the
 * extrapolation crosses an impact's jump of the velocity. Without, the
 * predictors' as before. */
void kr_predict_hold(rod_kirchhoff *k, bool hold);
void kr_accept(rod_kirchhoff *k, const double *x);
void kr_record_step(rod_kirchhoff *k, const double *x, bool first);

/* kirchhoff_tip.c: the attached tip body */
void kr_tip_body_init(rod_kirchhoff *k);
/* Its history terms for the current coefficients (zero in statics). */
void kr_tip_body_terms(rod_kirchhoff *k);
/* The force F (N) and moment M (N m, about the rod's end), world frame,
 * that the body exerts on the rod's end at the tip states y (h, q, w of
 * the 16): its weight less its mass times the acceleration of its centre,
 * and the moment of both less the rate of its angular momentum. dF, dM
 * (may be NULL): their derivatives by the 16 states, dF[3 j + i] = dF_i /
 * dy_j. */
void kr_tip_body_loads(const rod_kirchhoff *k, const double *y, double F[3],
                       double M[3], double *dF, double *dM);
/* Accept the converged tip states y into the history (after a dynamic
 * step); kr_tip_body_rest: the body at rest (after the static state). */
void kr_tip_body_accept(rod_kirchhoff *k, const double *y);
void kr_tip_body_rest(rod_kirchhoff *k);
/* The same for the stages of a Runge-Kutta scheme (kirchhoff_dirk.c):
 * storage, the start at rest (with the rate known or not), each stage's
 * history terms before its solve and its values (the last sweep's) after,
 * the accepted step. */
int kr_tip_body_dirk_alloc(rod_kirchhoff *k);
void kr_tip_body_dirk_rest(rod_kirchhoff *k, bool rate_known);
void kr_tip_body_stage_terms(rod_kirchhoff *k, const rod_dirk_table *T, int i,
                             double h);
void kr_tip_body_stage_done(rod_kirchhoff *k, int i, double c0);
void kr_tip_body_dirk_accept(rod_kirchhoff *k, const rod_dirk_table *T);
/* Its kinetic and gravitational energy (J) at the tip states y, p the
 * rod's end (m, world). */
void kr_tip_body_energy(const rod_kirchhoff *k, const double *y,
                        const double p[3], double *kinetic, double *gravity);

/* kirchhoff_contact.c: contact as a distributed force (docs/contact.md) */
int kr_contact_create(rod_kirchhoff *k); /* k->contact NULL without bodies */
void kr_contact_free(kr_contact *c);
/* The contact forces lie in the x-z plane. */
bool kr_contact_planar(const rod_kirchhoff *k);
/* The static state with contact from x and the current contact forces
 * (loads set, the static coefficients): x receives the solution, the last
 * sweep is at it. */
int kr_contact_static(rod_kirchhoff *k, double *x, rod_step_stats *st);
/* A time step to t (BDF coefficients c) with contact: Newton on the
 * forces at the step's end, each iterate a kr_solve_chain, at most max_it
 * updates (0: solver.max_iterations); x receives the unknowns, the last
 * sweep is at them. */
int kr_contact_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                    int max_it, bool *modified, double *x, rod_step_stats *st);
/* A time step to t (coefficients c) solved without contact forces, the
 * shooting at solver.tolerance as on a rod without bodies: *clear when
 * every node but the clamp's then lies farther than the contact tolerance
 * from every body (the step is the free one; else kr_contact_step solves
 * it). For steps in which no node is pressed at the start. */
int kr_contact_free_step(rod_kirchhoff *k, double t, const rod_bdf_coeffs *c,
                         bool *modified, double *x, rod_step_stats *st,
                         bool *clear);
/* Some force pushes (the current forces). */
bool kr_contact_pressed(const rod_kirchhoff *k);
/* An impact: the current forces push a node the last accepted step did
 * not. */
bool kr_contact_struck(const rod_kirchhoff *k);
/* A step where a force pushes, at its start or end, on a rod that nothing
 * else works on (no motor, loads, impulse or tip force), whose last sweep
 * holds more mechanical energy than the accepted state by more than the
 * forces can do within the contact tolerance (2 tol F a node). */
bool kr_contact_energy_grew(const rod_kirchhoff *k);
/* The last solve of a contact step may be accepted: its sweep solves the
 * step to solver.tolerance, its forces and gaps meet the contact law to
 * the contact tolerance (kr_contact_step's own test), and its energy has
 * not grown (kr_contact_energy_grew). Else false, and why in
 * kr_contact_refusal. */
bool kr_contact_verify(rod_kirchhoff *k);
/* Steps by backward Euler after an impact step (the multistep formula's
 * restart). */
enum { KR_CONTACT_RESTART = 1 };
/* The last KR_CONTACT_RESTART accepted steps hold an impact, or the
 * next steps are held to backward Euler (kr_contact_hold_euler). */
bool kr_contact_restart(const rod_kirchhoff *k);
/* The next accepted steps by backward Euler alone. */
void kr_contact_hold_euler(rod_kirchhoff *k, int steps);
/* The restitution of the step's impacts: the bodies' times scale. */
void kr_contact_scale_restitution(rod_kirchhoff *k, double scale);
/* Some node under the velocity law of an impact is pushed. */
bool kr_contact_rebounds(const rod_kirchhoff *k);
/* Some node struck a body with restitution (e > 0 in this step) and is
 * not under the velocity law: the step is to be taken again with it. */
bool kr_contact_struck_rebounding(const rod_kirchhoff *k);
/* The forces at the step's end gave the rod the impulse F T (T in s):
 * 1 / c0 of the step's scheme, the velocity's response to F (dt by
 * backward Euler, about dt / 2 by BDF-alpha at alpha = -0.48). Their
 * work over the accepted step is the impulse times the node's mean
 * velocity (kr_contact_accept). */
void kr_contact_impulse_time(rod_kirchhoff *k, double T);

/* kirchhoff_contact_step.c: a time step to t with contact, the scheme
 * chosen by the contacts' state (c receives the coefficients taken). */
int kr_contact_time_step(rod_kirchhoff *k, double t, rod_bdf_coeffs *c,
                         bool *modified, double *x, rod_step_stats *st);
/* After a step is accepted: with work, the forces' work over it into the
 * dissipated energy; the positions kept (also of the static state). */
void kr_contact_accept(rod_kirchhoff *k, bool work);
/* The body node i is pressed against at the last sweep, NULL if none. */
const rod_obstacle *kr_contact_pressing(const rod_kirchhoff *k, int i);
/* The pressed nodes push along their bodies' normals at the last sweep's
 * positions (a pressed node keeps the direction it was first pressed
 * along; the statics' moved grid carries it elsewhere on a curved body). */
void kr_contact_follow_normals(rod_kirchhoff *k);
/* Contact forces set to zero; saved with the last sweep's positions and
 * restored (a failed load step); the largest move of a node (m) of the
 * last sweep since the save. */
void kr_contact_reset(rod_kirchhoff *k);
void kr_contact_save(rod_kirchhoff *k);
void kr_contact_restore(rod_kirchhoff *k);
double kr_contact_moved(const rod_kirchhoff *k);
/* The body the rod passed through in a move from the positions from (m,
 * nodes x 3) to the last sweep's, and the body its centreline passes
 * through between two nodes; NULL when none, *node the node (the
 * interval's first). */
const rod_obstacle *kr_contact_swept(const rod_kirchhoff *k, const double *from,
                                     int *node, bool *interval);
const rod_obstacle *kr_contact_straddled(const rod_kirchhoff *k, int *node,
                                         double *at);
/* kirchhoff_touchdown.c: a node moved to the point at (0 to 1) of the
 * interval from node j, where the centreline passes through a body: the
 * nearer of its two nodes that is neither fixed nor pressed; false when
 * neither may move. */
bool kr_contact_node_into(rod_kirchhoff *k, int j, double at);
/* The centreline of the last sweep passes through a body between two
 * nodes: true, and a one-line note naming it and a node count. */
bool kr_contact_straddle_note(const rod_kirchhoff *k, char *note, size_t n);
/* The last step passed a node through a body, or left a body between two
 * nodes: true, and why in kr_contact_refusal. */
bool kr_contact_passed_through(rod_kirchhoff *k);
/* The centreline of the last sweep passes through a body between two
 * nodes (kr_contact_straddle_note): true, and why in kr_contact_refusal. */
bool kr_contact_straddle_refused(rod_kirchhoff *k);
/* The saved positions (kr_contact_save) of node i set to the point at (0
 * to 1) of the chord from node j to j + 1 (node i moved there). */
void kr_contact_saved_between(rod_kirchhoff *k, int i, int j, double at);
/* The way to the static state crosses body o (kr_contact_swept: node's
 * path, or the interval from node when interval) however small the load
 * step: why, and the space.nodes that resolves it, in kr_contact_refusal. */
void kr_contact_refuse_crossing(rod_kirchhoff *k, const rod_obstacle *o,
                                int node, bool interval);
const char *kr_contact_refusal(const rod_kirchhoff *k);
void kr_contact_refusal_clear(rod_kirchhoff *k);
/* The positions of kr_contact_save, and of the accepted step. */
const double *kr_contact_saved_positions(const rod_kirchhoff *k);
const double *kr_contact_accepted_positions(const rod_kirchhoff *k);
/* The contact fields of a sample. */
void kr_contact_sample(rod_kirchhoff *k, rod_sample *out);

/* kirchhoff_touchdown.c: after the static contact solve (x its unknowns,
 * the last sweep at them), a grid node at each boundary between a free
 * span and a stretch lying on a plane, the contact solved again until the
 * boundaries stay (docs/contact.md); the grid's other nodes as built. */
int kr_contact_touchdown(rod_kirchhoff *k, double *x, rod_step_stats *st);

/* kirchhoff_touchdown.c: the boundaries of the last sweep's stretches
 * lying on planes (where a free span leaves one): each boundary's node
 * (its stretch's first or last pressed node, ascending) and the zero of
 * the free span's moment across the plane; with point (not NULL) also
 * each node pressed alone on a sphere or capsule and the place where the rod is
 * tangent to it (point[b] true for those). Returns how many, at most
 * max. */
int kr_contact_boundaries(const rod_kirchhoff *k, int *node, double *zero,
                          bool *point, int max);

/* kirchhoff_touchdown.c: the intervals and everything the grid's
 * arclengths set, after they changed. */
void kr_grid_changed(rod_kirchhoff *k);

/* kirchhoff_regrid.c: the grid in time (docs/contact.md, "The grid in
 * time"). Workspaces (at creation), the output grid (after the static
 * state), and before each step: when a boundary of a stretch lying on a
 * plane, or a point contact's tangency on a curved body, has left its
 * node, the node moves to it, the grid is uniform again
 * on each side, and the history, the past solutions and the contacts'
 * records are carried onto it; the samples are interpolated onto the
 * output grid. */
int kr_regrid_alloc(rod_kirchhoff *k);
void kr_regrid_free(rod_kirchhoff *k);
void kr_regrid_static_done(rod_kirchhoff *k);
void kr_regrid(rod_kirchhoff *k);
/* The move itself: the nodes node[0 .. nk - 1] (ascending, not the clamp,
 * the tip or a point load's) to the arclengths z, uniform between them;
 * false, nothing changed, when a stretch would not be whole. */
bool kr_regrid_to(rod_kirchhoff *k, const int *node, const double *z, int nk);
/* The accepted solution on the output grid into the out_* arrays, and
 * the contact forces split onto it into out (only after a move; the grid
 * is the output grid otherwise). */
void kr_regrid_sample(rod_kirchhoff *k);
void kr_regrid_sample_contact(rod_kirchhoff *k, rod_sample *out);
/* kirchhoff_contact.c: the contacts' records after the grid moved: the
 * forces scaled node by node (scale, NULL: kept), the accepted and saved
 * positions the solution's (moved) ones. */
void kr_contact_regridded(rod_kirchhoff *k, const double *scale);

/* kirchhoff_backend.c: the history between the nodes for the grid
 * (space.history; auto by the longest interval's k h) */
rod_history_kind kr_choose_history(const rod_kirchhoff *k);

/* kirchhoff_post.c: energies and history records of a converged step */
void kr_quadratures(rod_kirchhoff *k);
void kr_postprocess(rod_kirchhoff *k);
/* The energies of the last sweep, its quadratures integrated (J). */
void kr_energies(const rod_kirchhoff *k, kr_energy *e);
void kr_push_history(rod_kirchhoff *k);
void kr_rest_history(rod_kirchhoff *k);

#endif
