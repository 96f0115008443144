/* A time step of the Kirchhoff backend by BDF-alpha (Till & Rucker 2017):
 * the grid follows the contacts (kirchhoff_regrid.c), the step's problem is
 * solved by the solve room's chain, or with contact by the contact scheme
 * (kirchhoff_contact_step.c), with the BDF2 retry of the paper, and the
 * converged step is accepted into the history, the tip body and the
 * predictors' series. */
#include "kirchhoff/kirchhoff_schemes.h"

/* The strategy of Till & Rucker 2017, Fig. 2: simple shooting; after
 * max_iterations without convergence, modified shooting; if that fails too, the
 * same step with BDF2 (alpha = 0); last, the first two again from the last
 * step's solution instead of the extrapolated one. Modified shooting that
 * placed interior nodes stays on for the next step. solver.strategy chooses the
 * first method (auto: modified shooting right away when simple shooting is
 * ill-conditioned). */
int kr_bdf_step(rod_kirchhoff *k, double t, rod_step_stats *st) {
  const rod_scenario *sc = &k->sc;
  const double dt = sc->time.dt;
  const bool first = k->steps == 0;
  rod_bdf_coeffs c = kr_step_coefficients(k);
  bool modified;
  double x[6];
  kr_regrid(k);
  kr_prepare_prediction(k);
  int status;
  if (k->contact) {
    status = kr_contact_time_step(k, t, &c, &modified, x, st);
  } else {
    status = kr_solve_chain(k, t, &c, false, &modified, x, st);
  }
  if (status != ROD_OK && !first && !k->contact && c.d1 != 0.0) {
    c = rod_bdf_alpha(0.0, dt);
    st->fallback = 1;
    st->method = ROD_METHOD_BDF2;
    status = kr_solve_once(k, t, &c, modified, x, st);
  }
  if (status != ROD_OK && !first && !k->contact && !k->predict_hold) {
    /* Last, the step again from the last step's solution instead of the
     * extrapolated one. A kink in a load's history (a tension ramp that
     * starts or ends) is extrapolated to a jump five times its own at
     * degree 4, and simple shooting's conditioning turns that into a start
     * it cannot converge from (a tendon's tension ramped 7 N -> 0 on the
     * motor-driven robot: starting residuals 8.5, 40, 4.5, 3.4, then 2242
     * and no convergence, with BDF2 too). */
    c = kr_step_coefficients(k);
    kr_predict_hold(k, true);
    st->fallback = 1;
    status = kr_solve_chain(k, t, &c, false, &modified, x, st);
    kr_predict_hold(k, false);
  }
  if (status != ROD_OK)
    return status;
  kr_update_strategy(k, modified, st);
  kr_postprocess(k);
  kr_tendon_work_step(k, t - k->time);
  kr_push_history(k);
  kr_tip_body_accept(k, k->node_y + (size_t)(k->nodes - 1) * KR_NODE);
  kr_record_step(k, x, first);
  if (k->contact)
    kr_contact_accept(k, true);
  k->time = t;
  k->steps++;
  return ROD_OK;
}
