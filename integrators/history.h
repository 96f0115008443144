/* Time history of the rod along s for the BDF-alpha formula.
 *
 * For each grid interval the history keeps, at both of its ends (the start
 * is the right limit at node j, the end the left limit at node j+1, so a
 * point force that makes a quantity jump is represented exactly), the
 * values and s-derivatives of `width` quantities at the two previous time
 * levels and their time derivative at the last one. From these it forms the
 * history term of the current step,
 *   H = c1 y(i-1) + c2 y(i-2) + d1 y_t(i-1)   (so y_t(i) = c0 y(i) + H),
 * at the interval ends and at the interval midpoints that RK4's half steps
 * need: by cubic Hermite interpolation with the stored s-derivatives, or
 * linearly as in the paper (Till & Rucker 2017, II.C). */
#ifndef ROD_HISTORY_H
#define ROD_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "integrators/bdf.h"

typedef struct rod_history rod_history;

/* A history of the first `width` of every `stride` values of the records
 * (stride >= width): the arrays passed in and out below hold `stride`
 * values per record, of which the history keeps and forms `width` (the
 * others are left alone). */
rod_history *rod_history_alloc(int intervals, int width, int stride);
/* A history of `points` separate points (no interpolation between them):
 * only rod_history_point_terms applies. */
rod_history *rod_history_alloc_points(int points, int width, int stride);
void rod_history_free(rod_history *h);

/* The rod at rest in the state val/der (2 * intervals * stride values each,
 * end e = 2 j + {0: start, 1: end} of interval j): both previous levels
 * equal it and the time derivative is zero (the paper's start). */
void rod_history_rest(rod_history *h, const double *val, const double *der);

/* History terms for coefficients c: H and dH/ds at the interval ends and H
 * at the midpoints. len[j] is the length of interval j (m). */
void rod_history_terms(const rod_history *h, const rod_bdf_coeffs *c,
                       const double *len, bool hermite, double *H_ends,
                       double *Hs_ends, double *H_mid);

/* History terms at the stored points themselves, without interpolation
 * (a history kept at every evaluation point, e.g. every RK4 stage). */
void rod_history_point_terms(const rod_history *h, const rod_bdf_coeffs *c,
                             double *H);

/* Accept the solution val/der of a step solved with coefficients c and the
 * terms H_ends/Hs_ends of rod_history_terms: its time derivative is
 * c0 y + H; the levels shift by one. der and Hs_ends may be NULL when the
 * s-derivatives are not kept (then they stay zero); rod_history_rest takes
 * der = NULL likewise. */
void rod_history_push(rod_history *h, const rod_bdf_coeffs *c,
                      const double *val, const double *der,
                      const double *H_ends, const double *Hs_ends);

/* The stored levels, for carrying the history onto a moved grid (the
 * records' places change, their layout does not): arr receives val1, der1,
 * val2, der2, rate, rate_der (levels i-1 and i-2 and the rate at i-1, each
 * `count` records of `width` values, packed); returns count, *width the
 * width. */
size_t rod_history_levels(rod_history *h, double *arr[6], int *width);

#endif
