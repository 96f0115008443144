/* Which scheme a time step with contact takes (docs/contact.md, "Time
 * steps of the Kirchhoff / Cosserat rod").
 *
 * - A step with no node pressed at its start: first the free one, its
 *   shooting to solver.tolerance and the gaps from its last sweep, as on a
 *   rod without bodies; it stands when every node then lies farther than
 *   the contact tolerance from every body (cantilever_table.ini, Kirchhoff,
 *   the table 10 m below: 6.64 integrations a step as without it, against
 *   9.32 when every step shot to 1e-12 and swept once more for the gaps).
 *   Otherwise the contact Newton solves the step anew from the prediction.
 * - An impact (a node pressed that was not at the step's start) by the
 *   step's own scheme (BDF-alpha in flight, BDF2 where a node was
 *   pressed): the history before the impact is smooth. Taken again by
 *   backward Euler, as before, it damped the modes the impact excites
 *   within the step: cantilever_table.ini without drag, the first impact's
 *   step lost 2.1e-3 J beyond the contacts' work at dt = 1 ms, 1.3e-3 J at
 *   0.25 ms; by BDF-alpha 1.2e-4 and 6.2e-5 J. With restitution the step
 *   is taken again by its scheme, the struck nodes under the velocity law.
 * - The step after it by backward Euler: the node's velocity jumped, and
 *   BDF-alpha's history (the last step's rate, d1 = alpha / (1 + alpha),
 *   -0.92 at the default alpha) would carry the jump into the steps after
 *   it (a rebound that fed energy into the rod: cantilever_table.ini on 49
 *   nodes, 0.0105 J to 0.0259 J by 0.18 s); backward Euler restarts the
 *   multistep formula from the state after the jump (its two levels then
 *   both lie after it) and damps the modes of omega dt >> 1 the impact
 *   left, which BDF-alpha keeps (at the default alpha 0.85 of their energy
 *   a step). The two-stage SDIRK of order 2 there (L-stable, from the
 *   values alone) kept them: cantilever_table.ini with restitution 1 at
 *   dt = 2 ms then failed to converge at t = 0.208 s.
 * - A release (a node pressed at the step's start is not at its end; the
 *   velocity stays continuous) by BDF2 as persistent contact: by backward
 *   Euler, with a restart after it, cantilever_table.ini without drag lost
 *   2 to 10 % more energy in 0.3 s (6.80e-3 against 6.16e-3 J at dt =
 *   0.25 ms).
 * - A step by BDF2 whose forces do not settle in KR_SECOND_ORDER_UPDATES
 *   updates by backward Euler, and the next KR_EULER_HOLD steps too.
 * - Persistent contact (the same nodes pressed at the step's start and
 *   end) by BDF2 (BDF-alpha with alpha = 0): second order and L-stable.
 *   With the default alpha = -0.48, nearly the trapezoidal rule, the
 *   forces of a node held on the table alternated from step to step (the
 *   tip of the rod propped on a table, sliding: 0.01074 to 0.01107 N at
 *   dt = 0.25 ms, against 0.0109 N), as the trapezoidal rule's multipliers
 *   do on a position constraint.
 * - A step where a force pushes and the mechanical energy grows by more
 *   than the forces can do within the contact tolerance (2 tol F a node),
 *   on a rod that nothing else works on, again by backward Euler.
 * - An impact with restitution (the velocity law, kirchhoff_contact.c)
 *   whose step still raised the energy: the restitution of the step halved,
 *   up to three times, then none (Signorini's law on the gap).
 * - The last check (kr_contact_verify) on every step the contact Newton
 *   solved: its sweep solves the step, its forces and gaps meet the law,
 *   its energy has not grown (the guard's bound); a step by BDF2 or
 *   BDF-alpha that fails it again by backward Euler, and one that still
 *   fails is refused, never accepted (cantilever_table.ini without drag at
 *   dt = 62.5 us accepted a step 8.4e-3 J above its start, docs/contact.md
 *   "Fine steps"). */
#include "kirchhoff/kirchhoff_schemes.h"

/* Force updates a step by BDF2 or BDF-alpha may take before it is taken by
 * backward Euler instead. The forces' Newton converges more slowly there:
 * its compliance comes from simple shooting's Jacobian, whose conditioning
 * grows as exp(k L / sqrt 2) with the step's wavenumber k (k^4 = rhoA c0^2
 * / EI, c0 = 1.5 / dt against backward Euler's 1 / dt): rod_on_table.ini on
 * 60 nodes struck sideways at its tip, dt = 1 ms, 26 nodes pressed,
 * converged at a rate of 0.9 an update (15000 to 27000 integrations a step
 * until solver.max_iterations, against 650 by backward Euler). Steps that
 * converge take 1 to 5 updates. */
enum { KR_SECOND_ORDER_UPDATES = 8 };

/* Steps then taken by backward Euler before BDF2 is tried again (as auto's
 * shooting strategy holds modified shooting, kirchhoff_solve.c). */
enum { KR_EULER_HOLD = 50 };

/* Halvings of the restitution in a step that raised the energy before it
 * takes none. */
enum { KR_RESTITUTION_HALVINGS = 3 };

static bool is_backward_euler(const rod_bdf_coeffs *c, double dt) {
  const rod_bdf_coeffs be = rod_bdf_backward_euler(dt);
  return c->c0 == be.c0 && c->c1 == be.c1 && c->c2 == be.c2 && c->d1 == be.d1;
}

int kr_contact_time_step(rod_kirchhoff *k, double t, rod_bdf_coeffs *c,
                         bool *modified, double *x, rod_step_stats *st) {
  const double dt = k->sc.time.dt;
  const rod_bdf_coeffs be = rod_bdf_backward_euler(dt);
  kr_contact_scale_restitution(k, 1.0);
  kr_contact_refusal_clear(k);
  if (kr_contact_restart(k))
    *c = be;
  else if (kr_contact_pressed(k) && k->steps > 0)
    *c = rod_bdf_alpha(0.0, dt);
  /* nothing pressed at the step's start: the free step first, at
   * solver.tolerance; the contact Newton (its shooting to 1e-12, the gaps
   * decide the forces to rounding) only when a node comes within the
   * contact tolerance of a body */
  if (!kr_contact_pressed(k)) {
    bool clear;
    int s = kr_contact_free_step(k, t, c, modified, x, st, &clear);
    if (s == ROD_OK && clear && !kr_contact_passed_through(k))
      return ROD_OK;
    k->quadratures_done = false;
    if (s == ROD_OK && clear)
      return ROD_ENOCONV;
  }
  const bool euler = is_backward_euler(c, dt);
  const int cap = euler ? 0 : KR_SECOND_ORDER_UPDATES;
  int s = kr_contact_step(k, t, c, cap, modified, x, st);
  /* an impact on a body with restitution: again, the struck nodes under
   * the velocity law (flagged from this attempt's forces) */
  if (s == ROD_OK && kr_contact_struck_rebounding(k))
    s = kr_contact_step(k, t, c, cap, modified, x, st);
  if (!euler && (s != ROD_OK || !kr_contact_verify(k))) {
    if (s != ROD_OK) { /* the forces did not settle in time: the next
                          steps by backward Euler */
      st->fallback = 1;
      kr_contact_hold_euler(k, KR_EULER_HOLD);
    }
    *c = be;
    s = kr_contact_step(k, t, c, 0, modified, x, st);
  }
  double scale = 1.0;
  for (int h = 0; s == ROD_OK && h <= KR_RESTITUTION_HALVINGS &&
                  kr_contact_rebounds(k) && kr_contact_energy_grew(k);
       h++) {
    scale = h < KR_RESTITUTION_HALVINGS ? 0.5 * scale : 0.0;
    kr_contact_scale_restitution(k, scale);
    s = kr_contact_step(k, t, c, 0, modified, x, st);
  }
  kr_contact_impulse_time(k, 1.0 / c->c0);
  /* a thin body passed in one step, or between two nodes: refused, never
   * passed through */
  if (s == ROD_OK && kr_contact_passed_through(k))
    return ROD_ENOCONV;
  /* never a step that is not a solution (kr_contact_verify) */
  if (s == ROD_OK && !kr_contact_verify(k))
    return ROD_ENOCONV;
  if (s != ROD_OK)
    kr_contact_refusal_clear(k);
  return s;
}
