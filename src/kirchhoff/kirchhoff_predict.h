/* Predictors of the Kirchhoff backend's step (kirchhoff_predict.c): the
 * unknowns and the node states (modified shooting's reference) of the next
 * step from the accepted steps, or of the next Runge-Kutta stage from the
 * solved stages; and the accepted solutions they extrapolate. Below the
 * solve room, which starts every solve from them. */
#ifndef ROD_KIRCHHOFF_PREDICT_H
#define ROD_KIRCHHOFF_PREDICT_H

#include "kirchhoff/kirchhoff_state.h"

/* The workspaces of the time steps' predictions (the linear predictor,
 * modified shooting's reference yref, the past solutions sol_prev),
 * allocated at the first call: a time step's set-up. ROD_ENOMEM when they
 * cannot be (the next call tries again). */
int kr_predictors_ready(rod_kirchhoff *k);
void kr_reset_prediction(rod_kirchhoff *k);
void kr_prepare_prediction(rod_kirchhoff *k); /* before a step */
void kr_predict(const rod_kirchhoff *k, double *x);
void kr_predict_states(rod_kirchhoff *k, int stride); /* into yref */
/* With hold, the step's prediction (unknowns and node states) is the last
 * accepted state itself, not an extrapolation: a retry where the
 * extrapolation crosses an impact's jump of the velocity. Without, the
 * predictors' as before. */
void kr_predict_hold(rod_kirchhoff *k, bool hold);
/* The unknowns x and the last sweep become the accepted solution. */
void kr_accept(rod_kirchhoff *k, const double *x);
void kr_record_step(rod_kirchhoff *k, const double *x, bool first);
/* A Runge-Kutta stage at time t: its unknowns into x, and the node states
 * at every stride-th node into yref, by the quadratic through the newest
 * solved stages (stage_t, stage_x, stage_y). */
void kr_predict_stage(const rod_kirchhoff *k, double t, double *x);
void kr_predict_stage_states(rod_kirchhoff *k, double t, int stride);

#endif
