/* The tendons' friction against their guides on the Kirchhoff/Cosserat
 * rod (rod_tendon_friction.h): the workspace of the sweeps that integrate
 * each tendon's length along the rod, the BDF-alpha history of its
 * unstretched arclength and the sweeps' constants.
 *
 * As in Till, Aloi & Rucker 2019's friction example, tendon i's arclength
 * at s is the unstretched length of tendon between its motor and s,
 *   s_i(s) = l_i(s) / (1 + c_i tau_i),  l_i(s) = b_i + int_0^s |p_i,s| ds'
 * (m), b_i base_to_motor, c_i the compliance (both 0 for a tendon under
 * tension control) and |p_i,s| = |pb_i| where the tendon runs (rod_tendon.h),
 * 0 elsewhere. The sweeps integrate l_i as one more state by their own rule
 * (Euler or RK4, kirchhoff_sweep.c) with its tangent, so the shooting's
 * residual and Jacobian hold the friction's dependence on the strains all
 * the way from the base. Its rate s_t = c0 s + H is the rod's other rates'
 * formula: under BDF-alpha H is a point history (integrators/history.h) of
 * s at every evaluation point, pushed with the step; under a Runge-Kutta
 * scheme (time.scheme, kirchhoff_dirk.c) s has its own stage storage
 * (integrators/dirk.h) at every evaluation point, as the rod's stage
 * records, whose stage terms give H. Statics has no
 * sliding rate and no friction (the static sweep records l for the
 * history's start at rest). */
#include <stdlib.h>
#include <string.h>

#include "kirchhoff/kirchhoff_rod.h"

static bool has_friction(const rod_scenario *sc) {
  for (int i = 0; i < sc->tendons.count; i++)
    if (sc->tendons.item[i].friction > 0)
      return true;
  return false;
}

int kr_friction_alloc(rod_kirchhoff *k) {
  k->slide_l = k->slide_s = k->slide_H = k->slide_rate = NULL;
  k->slide_node = k->slide_work = NULL;
  k->slide_hist = NULL;
  k->slide_dirk = NULL;
  if (!has_friction(&k->sc))
    return ROD_OK;
  const size_t n = (size_t)k->sc.tendons.count;
  const size_t P = (size_t)k->stages * (size_t)k->intervals * n;
  k->slide_l = calloc(P, sizeof(double));
  k->slide_s = calloc(P, sizeof(double));
  k->slide_H = calloc(P, sizeof(double));
  k->slide_rate = calloc(P, sizeof(double));
  k->slide_node = calloc((size_t)k->nodes * n, sizeof(double));
  k->slide_work = calloc(KR_FRICTION_WORK * n, sizeof(double));
  k->slide_hist =
      rod_history_alloc_points(k->stages * k->intervals, (int)n, (int)n);
  if (k->scheme)
    k->slide_dirk = rod_dirk_alloc(k->stages * k->intervals, (int)n);
  return k->slide_l && k->slide_s && k->slide_H && k->slide_rate &&
                 k->slide_node && k->slide_work && k->slide_hist &&
                 (k->slide_dirk || !k->scheme)
             ? ROD_OK
             : ROD_ENOMEM;
}

void kr_friction_free(rod_kirchhoff *k) {
  free(k->slide_l);
  free(k->slide_s);
  free(k->slide_H);
  free(k->slide_rate);
  free(k->slide_node);
  free(k->slide_work);
  rod_history_free(k->slide_hist);
  rod_dirk_free(k->slide_dirk);
}

void kr_friction_factors(const rod_kirchhoff *k, double *start, double *rate) {
  for (int i = 0; i < k->sc.tendons.count; i++) {
    const rod_tendon_def *t = &k->sc.tendons.item[i];
    start[i] = t->base_to_motor;
    rate[i] = k->rc.c0 / (1.0 + t->compliance * k->tension[i]);
  }
}

/* s_i = l_i / (1 + c_i tau_i) at every point, at the current tensions,
 * into k->slide_s. */
static void unstretched(rod_kirchhoff *k) {
  const int n = k->sc.tendons.count;
  const size_t P = (size_t)k->stages * (size_t)k->intervals;
  for (int i = 0; i < n; i++) {
    const double fac =
        1.0 / (1.0 + k->sc.tendons.item[i].compliance * k->tension[i]);
    for (size_t p = 0; p < P; p++)
      k->slide_s[p * (size_t)n + i] = k->slide_l[p * (size_t)n + i] * fac;
  }
}

void kr_friction_terms(rod_kirchhoff *k) {
  if (!k->slide_l)
    return;
  if (k->dynamic)
    rod_history_point_terms(k->slide_hist, &k->coeffs, k->slide_H);
  else
    memset(k->slide_H, 0,
           (size_t)k->stages * (size_t)k->intervals *
               (size_t)k->sc.tendons.count * sizeof(double));
}

void kr_friction_rest(rod_kirchhoff *k) {
  if (!k->slide_l)
    return;
  unstretched(k);
  rod_history_rest(k->slide_hist, k->slide_s, NULL);
}

void kr_friction_push(rod_kirchhoff *k) {
  if (!k->slide_l)
    return;
  unstretched(k);
  rod_history_push(k->slide_hist, &k->coeffs, k->slide_s, NULL, k->slide_H,
                   NULL);
}

/* ---- Runge-Kutta stages (time.scheme; kirchhoff_dirk.c) ---------------- */

void kr_friction_dirk_rest(rod_kirchhoff *k, bool rate_known) {
  if (!k->slide_dirk)
    return;
  /* s at the static state (kr_friction_rest), at rest: zero rate */
  memset(k->slide_H, 0,
         (size_t)k->stages * (size_t)k->intervals *
             (size_t)k->sc.tendons.count * sizeof(double));
  rod_dirk_start(k->slide_dirk, k->slide_s, rate_known ? k->slide_H : NULL);
}

void kr_friction_stage_terms(rod_kirchhoff *k, const rod_dirk_table *T, int i,
                             double h) {
  if (k->slide_dirk)
    rod_dirk_stage_terms(k->slide_dirk, T, i, h, k->slide_H);
}

void kr_friction_stage_done(rod_kirchhoff *k, int i, double c0) {
  if (!k->slide_dirk)
    return;
  unstretched(k); /* s of the stage's last sweep, at its tensions */
  rod_dirk_stage_done(k->slide_dirk, i, c0, k->slide_s, k->slide_H);
}

void kr_friction_dirk_accept(rod_kirchhoff *k, const rod_dirk_table *T) {
  if (!k->slide_dirk)
    return;
  unstretched(k); /* stiffly accurate: the last stage's s */
  rod_dirk_accept(k->slide_dirk, T, k->slide_s);
}
