/* Linear prediction of the next time step of a vector time series.
 *
 * Near a trajectory the time-discrete rod is a linear recurrence: every
 * state component is a combination of the same modes lambda_j^i (one
 * lambda per mode and time-stepping scheme). A recurrence of order p,
 *   d(i+1) = sum_{k=1..p} a_k d(i+1-k),  d(i) = z(i) - z(i-1),
 * with coefficients shared by all components reproduces p such modes
 * exactly, including the weakly damped ones with omega dt near 1 that any
 * polynomial extrapolation misses. The coefficients are fitted by least
 * squares over the last `window` steps and all (weighted) components; the
 * differences make constants (the equilibrium) exact. Polynomial
 * extrapolation of degree p - 1 is the special case a_k = binomial
 * weights, so the fit never does worse on the data it has seen.
 *
 * Cost: pushing a state takes order + window inner products over the
 * weighted components, a prediction `order` multiply-adds per component. */
#ifndef ROD_LINPRED_H
#define ROD_LINPRED_H

#include <stdbool.h>

typedef struct rod_linpred rod_linpred;

/* A predictor for vectors of n components with recurrence order `order` and
 * fit window `window` (steps). weight (n values, >= 0; NULL: all 1) weighs
 * each component's squared error in the fit; components of weight 0 are
 * predicted but do not enter the fit. NULL on bad sizes or no memory. */
rod_linpred *rod_linpred_alloc(int n, int order, int window,
                               const double *weight);
void rod_linpred_free(rod_linpred *lp);

/* Forget the series (after a jump the old steps describe another motion). */
void rod_linpred_reset(rod_linpred *lp);

/* Append the next accepted vector z (n values). */
void rod_linpred_push(rod_linpred *lp, const double *z);

/* Steps pushed since the last reset. */
int rod_linpred_count(const rod_linpred *lp);

/* True once order + window + 1 vectors are known. */
bool rod_linpred_ready(const rod_linpred *lp);

/* Fit the recurrence to the last window steps (after a push, before
 * predicting). False when not ready or the fit is singular. */
bool rod_linpred_fit(rod_linpred *lp);

/* The fitted coefficients a_1..a_order. */
const double *rod_linpred_coefficients(const rod_linpred *lp);

/* Predicted components [first, first + count) of the next vector into out.
 * Needs a successful fit. */
void rod_linpred_predict(const rod_linpred *lp, int first, int count,
                         double *out);

#endif
