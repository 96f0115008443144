/* The RFEM chain striking bodies, under both contact steps (RK45/RK4 and
 * the nonsmooth generalized-alpha scheme): impacts on a table (no
 * penetration beyond the contact tolerance, forces that only push, no
 * energy gained with restitution 0 and no friction, Coulomb's cone with
 * friction), the rod released onto a sphere, a box and a capsule, and a
 * tip on a table that sticks when mu > tan(angle) and slides when
 * mu < tan(angle) (the block on an incline). */
#include <string.h>

#include "core/v3.h"
#include "rfem_contactutil.h"

/* ---- impacts
 * ----------------------------------------------------------------- */

/* cantilever_table.ini without air drag: the rod strikes the table and
 * bounces. At every step: no point deeper than the contact tolerance,
 * every contact force pushes (along the table's normal), the mechanical
 * energy never grows (restitution 0, no friction) and the energy the
 * contacts took only grows, within what the rod lost. With friction: every
 * force in Coulomb's cone. */
static void impacts(double friction) {
  rod_scenario sc;
  rod_test_load(&sc, "cantilever_table.ini");
  sc.rod.drag = 0;
  sc.rfem.segments = 10;
  sc.plane.friction = friction;
  rod_step_stats st;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  const double E0 = s.kinetic + s.elastic + s.gravity;
  double E = E0, D = 0, pushed = 0;
  for (int k = 1; k <= 150; k++) {
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    ck_assert_msg(s.contact_gap_min >= -r->contact->tol, "step %d: %g m deep",
                  k, -s.contact_gap_min);
    for (int i = 0; i < s.points; i++) {
      const double *f = s.contact_force + 3 * i;
      ck_assert(f[2] >= 0);
      ck_assert(hypot(f[0], f[1]) <= friction * f[2] * (1 + 1e-12));
      pushed = fmax(pushed, f[2]);
    }
    const double En = s.kinetic + s.elastic + s.gravity;
    if (friction == 0) {
      /* RK4's own energy error over a step is below 1e-9 E here */
      ck_assert_msg(En <= E + 1e-9 * E0, "step %d: energy grew by %g J", k,
                    En - E);
      /* the contacts only take energy (RK4 damps the chain's highest
       * modes too, so the loss is larger) */
      ck_assert(s.dissipated_contact >= D && E0 - En >= s.dissipated_contact);
    }
    E = En;
    D = s.dissipated_contact;
  }
  ck_assert_msg(pushed > 0 && s.dissipated_contact > 1e-3 * E0,
                "no impact: force %g, dissipated %g", pushed,
                s.dissipated_contact);
  rod_backend_rfem.destroy(r);
}

START_TEST(impacts_frictionless) { impacts(0.0); }
END_TEST

START_TEST(impacts_with_friction) { impacts(0.3); }
END_TEST

/* ---- generalized-alpha: the nonsmooth scheme ------------------------------
 */

/* The chain of sc without any body (generalized-alpha). */
static rod_rfem *without_bodies(const rod_scenario *sc0) {
  rod_scenario sc = *sc0;
  sc.plane.enabled = false;
  sc.obstacles.count = 0;
  rod_sample s;
  return at_static(&sc, &s);
}

/* Largest growth of the mechanical energy over a step (J) of sc's chain
 * under generalized-alpha without any body: the scheme's own, from the
 * release over steps steps. */
static double ga_own_growth(const rod_scenario *sc, int steps) {
  rod_step_stats st;
  rod_sample s;
  rod_rfem *r = without_bodies(sc);
  ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
  double E = energy(&s), grow = -INFINITY;
  for (int k = 1; k <= steps; k++) {
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc->time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    grow = fmax(grow, energy(&s) - E);
    E = energy(&s);
  }
  rod_backend_rfem.destroy(r);
  return grow;
}

/* The growth of the mechanical energy (J) of generalized-alpha's step to
 * t1 without any body from r's state (its angles, rates, true and
 * algorithmic accelerations): twin, the same chain without bodies, set to
 * that state and stepped. */
static double ga_own_step(rod_rfem *twin, const rod_rfem *r, double t1) {
  const size_t n = (size_t)r->nlinks * sizeof(double);
  rod_step_stats st;
  rod_sample s;
  twin->t = r->t;
  twin->at_static = false;
  memcpy(twin->q, r->q, n);
  memcpy(twin->v, r->v, n);
  memcpy(twin->qdd, r->qdd, n);
  memcpy(twin->Q, r->Q, n);
  rod_genalpha_init(twin->ga, rod_genalpha_time(r->ga), rod_genalpha_q(r->ga),
                    rod_genalpha_v(r->ga), rod_genalpha_qdd(r->ga),
                    rod_genalpha_a(r->ga));
  ck_assert_int_eq(rod_backend_rfem.sample(twin, &s), ROD_OK);
  const double E = energy(&s);
  ck_assert_int_eq(rod_backend_rfem.step(twin, t1, &st), ROD_OK);
  ck_assert_int_eq(rod_backend_rfem.sample(twin, &s), ROD_OK);
  return energy(&s) - E;
}

/* cantilever_table.ini without air drag under generalized-alpha with
 * spectral radius rho: at every step no point deeper than the contact
 * tolerance, every force pushing (and in its cone), the contacts' energy
 * (the impulses' loss of kinetic energy and the work of the persistent
 * forces) never falling. Without friction the energy law: the mechanical
 * energy never grows over a step with contact (an impact, or a force at
 * its start or end) by more than the forces F at its start and end may do
 * while their points stay within the contact tolerance, 2 tol F (the
 * guard retakes such steps with the radius 0.5, then 0: at the default
 * 0.9 it must have fired); a step without contact grows by no more than
 * generalized-alpha's own step without the table from the same state
 * (the modes the impacts excited: up to 1.2e-4 J at 0.9, where from the
 * release without impacts 1.75e-6 J). */
static void impacts_ga(double friction, double rho) {
  rod_scenario sc;
  rod_test_load(&sc, "cantilever_table.ini");
  sc.rod.drag = 0;
  sc.rfem.segments = 10;
  sc.rfem.spectral_radius = rho;
  sc.plane.friction = friction;
  integrator = ROD_RFEM_GENALPHA;
  const int steps = 150;
  rod_step_stats st;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  rod_rfem *twin = friction == 0 ? without_bodies(&sc) : NULL;
  /* a fresh factorisation of the iteration matrix at every correction in
   * both, so that the twin's Newton iterations are r's own (a kept one
   * depends on the steps before: its results within the tolerance) */
  r->ga_keep = false;
  if (twin)
    twin->ga_keep = false;
  const double E0 = energy(&s);
  double E = E0, D = 0, pushed = 0, grow_contact = -INFINITY;
  double grow_free = -INFINITY, above_own = -INFINITY, dmin = INFINITY;
  double fsum_prev = 0;
  bool was_active = false;
  int ncontact = 0, nfree = 0;
  const double tol = r->contact->tol;
  for (int k = 1; k <= steps; k++) {
    const long impacts0 = r->contact->impacts;
    /* the scheme's own step from this state (a step without contact at
     * its start: maybe one) */
    const double own =
        twin && !was_active ? ga_own_step(twin, r, k * sc.time.dt) : 0;
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    ck_assert_msg(s.contact_gap_min >= -r->contact->tol, "step %d: %g m deep",
                  k, -s.contact_gap_min);
    bool active = false;
    double fsum = 0;
    for (int i = 0; i < s.points; i++) {
      const double *f = s.contact_force + 3 * i;
      ck_assert(f[2] >= 0);
      ck_assert(hypot(f[0], f[1]) <= friction * f[2] * (1 + 1e-12));
      pushed = fmax(pushed, f[2]);
      fsum += v3_norm(f);
      active = active || s.contact_active[i];
    }
    /* a persistent force's work: its point moves within the contact
     * tolerance of the body, up to 2 tol out over a step */
    ck_assert_msg(s.dissipated_contact - D >= -2 * tol * fsum - 1e-15 * E0,
                  "step %d: the contacts gave %g J (forces %g N)", k,
                  D - s.dissipated_contact, fsum);
    const double En = energy(&s);
    if (active || was_active || r->contact->impacts > impacts0) {
      grow_contact = fmax(grow_contact, En - E);
      ncontact++;
      if (friction == 0)
        ck_assert_msg(En - E <= 2 * tol * (fsum + fsum_prev) + 1e-15 * E0,
                      "genalpha rho %g: contact step %d gained %g J (forces "
                      "%g, %g N)",
                      rho, k, En - E, fsum_prev, fsum);
    } else {
      grow_free = fmax(grow_free, En - E);
      nfree++;
      if (twin) {
        above_own = fmax(above_own, (En - E) - own);
        ck_assert_msg(En - E <= own + 1e-12 * E0,
                      "genalpha rho %g: free step %d gained %g J, the scheme "
                      "without the table %g J",
                      rho, k, En - E, own);
      }
    }
    dmin = fmin(dmin, s.dissipated_contact - D);
    was_active = active;
    fsum_prev = fsum;
    E = En;
    D = s.dissipated_contact;
  }
  const long half = r->contact->retaken_half, zero = r->contact->retaken_zero;
  rod_backend_rfem.destroy(r);
  if (twin)
    rod_backend_rfem.destroy(twin);
  const double own = ga_own_growth(&sc, steps);
  fprintf(stderr,
          "genalpha rho %g, friction %g: %d contact steps, energy growth "
          "%.3g J (retaken %ld with 0.5, %ld with 0); %d free steps, growth "
          "%.3g J (above the scheme's own step %.3g J; without the table "
          "from the release %.3g J); contacts took %.4g J (least step %.3g "
          "J), E %.5g -> %.5g J\n",
          rho, friction, ncontact, grow_contact, half, zero, nfree, grow_free,
          above_own, own, s.dissipated_contact, dmin, E0, E);
  ck_assert_msg(pushed > 0 && s.dissipated_contact > 1e-3 * E0,
                "no impact: force %g, dissipated %g", pushed,
                s.dissipated_contact);
  if (friction == 0 && rho > 0.5) /* the law needed the guard */
    ck_assert_msg(half + zero > 0, "the guard never fired at rho %g", rho);
}

START_TEST(impacts_frictionless_genalpha) {
  impacts_ga(0.0, 0.5);
  impacts_ga(0.0, 0.9);
}
END_TEST

START_TEST(impacts_with_friction_genalpha) { impacts_ga(0.3, 0.9); }
END_TEST

/* cantilever_table.ini on its 20 elements without air drag under
 * generalized-alpha through the first contact (to 0.08 s): every step
 * taken (a free step toward the located impact at 0.0654 s diverged in
 * its Newton iteration, and the run stopped at 0.066 s with a non-finite
 * value; such a step is now taken in substeps), no point deeper than the
 * contact tolerance, and the mechanical energy never growing over a step
 * with contact by more than 2 tol F. */
START_TEST(twenty_elements_genalpha) {
  rod_scenario sc;
  rod_test_load(&sc, "cantilever_table.ini");
  sc.rod.drag = 0;
  integrator = ROD_RFEM_GENALPHA;
  rod_step_stats st;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  const double tol = r->contact->tol, E0 = energy(&s);
  double E = E0, fsum_prev = 0;
  bool was_active = false;
  for (int k = 1; k <= 40; k++) {
    const long impacts0 = r->contact->impacts;
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    ck_assert_msg(s.contact_gap_min >= -tol, "step %d: %g m deep", k,
                  -s.contact_gap_min);
    bool active = false;
    double fsum = 0;
    for (int i = 0; i < s.points; i++) {
      fsum += v3_norm(s.contact_force + 3 * i);
      active = active || s.contact_active[i];
    }
    const double En = energy(&s);
    if (active || was_active || r->contact->impacts > impacts0)
      ck_assert_msg(En - E <= 2 * tol * (fsum + fsum_prev) + 1e-15 * E0,
                    "contact step %d gained %g J", k, En - E);
    was_active = active;
    fsum_prev = fsum;
    E = En;
  }
  ck_assert(r->contact->impacts > 0);
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- curved bodies
 * ----------------------------------------------------------- */

/* cantilever_table.ini's rod released onto a sphere, a box turned about
 * the vertical and a capsule across it instead of the table: at every
 * step no point deeper than the contact tolerance, and the rod struck the
 * body (a force pushed, energy was taken, the mechanical energy never
 * grew). */
static void onto_body(const char *const *set, int nset) {
  rod_scenario sc;
  rod_test_load(&sc, "cantilever_table.ini");
  sc.plane.enabled = false;
  sc.rod.drag = 0;
  sc.rfem.segments = 10;
  rod_error err;
  for (int i = 0; i < nset; i++)
    ck_assert_msg(rod_scenario_set(&sc, set[i], &err) == ROD_OK, "%s: %s",
                  set[i], err.message);
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  ck_assert(s.contact_gap_min > 0);
  double E = s.kinetic + s.elastic + s.gravity, pushed = 0;
  const double E0 = E;
  rod_step_stats st;
  for (int k = 1; k <= 60; k++) {
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
    ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
    ck_assert_msg(s.contact_gap_min >= -r->contact->tol, "%s: step %d: %g m",
                  set[0], k, -s.contact_gap_min);
    for (int i = 0; i < s.points; i++)
      pushed = fmax(pushed, v3_norm(s.contact_force + 3 * i));
    const double En = s.kinetic + s.elastic + s.gravity;
    if (integrator != ROD_RFEM_GENALPHA)
      ck_assert_msg(En <= E + 1e-9 * E0, "%s: step %d: energy grew by %g J",
                    set[0], k, En - E);
    E = En;
  }
  ck_assert_msg(pushed > 0 && s.dissipated_contact > 0, "%s: no impact",
                set[0]);
  ck_assert(E < E0);
  rod_backend_rfem.destroy(r);
}

static void onto_sphere_box_capsule_with(void) {
  const char *sphere[] = {"obstacle.b.shape=sphere",
                          "obstacle.b.center=0.3 0 -0.08",
                          "obstacle.b.radius=0.03"};
  onto_body(sphere, 3);
  const char *box[] = {"obstacle.b.shape=box", "obstacle.b.center=0.3 0 -0.07",
                       "obstacle.b.half_extents=0.02 0.05 0.02",
                       "obstacle.b.rotation=0 0 0.5"};
  onto_body(box, 4);
  const char *capsule[] = {
      "obstacle.b.shape=capsule", "obstacle.b.center=0.25 0 -0.06",
      "obstacle.b.axis=0 1 0.2", "obstacle.b.half_length=0.05",
      "obstacle.b.radius=0.01"};
  onto_body(capsule, 5);
}

START_TEST(onto_sphere_box_capsule) { onto_sphere_box_capsule_with(); }
END_TEST

/* The same under generalized-alpha: no point deeper than the tolerance, an
 * impact, energy lost (its steps' own energy error: impacts_ga). */
START_TEST(onto_sphere_box_capsule_genalpha) {
  integrator = ROD_RFEM_GENALPHA;
  onto_sphere_box_capsule_with();
}
END_TEST

/* ---- friction: the block on an incline
 * --------------------------------------- */

/* The cantilever's tip propped on a table 5 mm below the clamp (only the
 * tip touches; normal force N) and pulled sideways by a string with Py,
 * cut at t = 0: the rod's lateral spring then pulls the tip back with Py,
 * a tangential demand against the normal force N as on an incline of
 * tan(angle) = Py / N. The frictionless statics give N; Coulomb's law
 * holds the tip (it sticks) when mu N > Py and lets it slide back when
 * mu N < Py. Returns how far the tip moved in y over 20 steps (m). */
static double tip_slides(double mu_over_ratio) {
  rod_scenario sc;
  rod_test_incline(&sc);
  sc.rfem.planar = false;
  sc.rfem.segments = 10;
  const double Py = ROD_TEST_INCLINE_PY;
  rod_sample s;
  rod_rfem *r = at_static(&sc, &s);
  const int tip = s.points - 1;
  const double N = rod_test_incline_normal(&s);
  const double y0 = s.position[3 * tip + 1];
  rod_backend_rfem.destroy(r);
  /* the same rod with friction mu = mu_over_ratio Py / N */
  sc.plane.friction = mu_over_ratio * Py / N;
  r = at_static(&sc, &s);
  rod_step_stats st;
  for (int k = 1; k <= 20; k++)
    ck_assert_int_eq(rod_backend_rfem.step(r, k * sc.time.dt, &st), ROD_OK);
  ck_assert_int_eq(rod_backend_rfem.sample(r, &s), ROD_OK);
  const double moved = fabs(s.position[3 * tip + 1] - y0);
  fprintf(stderr, "mu = %.3f Py / N (N = %.5g N): the tip moved %.3g m in y\n",
          mu_over_ratio, N, moved);
  rod_backend_rfem.destroy(r);
  return moved;
}

START_TEST(incline_stick_below_slip_above_genalpha) {
  integrator = ROD_RFEM_GENALPHA;
  ck_assert_double_le(tip_slides(1.2), 4.08e-9 * 10);
  ck_assert_double_ge(tip_slides(0.8), 1e-5);
}
END_TEST

START_TEST(incline_stick_below_slip_above) {
  /* sticking: the tip keeps its place to the contact tolerance */
  ck_assert_double_le(tip_slides(1.2), 4.08e-9 * 10);
  /* sliding: it moves back by a visible amount */
  ck_assert_double_ge(tip_slides(0.8), 1e-5);
}
END_TEST

static Suite *rfem_contact_impacts_suite(void) {
  Suite *s = suite_create("rfem_contact_impacts");
  TCase *m = tcase_create("contact");
  tcase_set_timeout(m, 120);
  tcase_add_test(m, impacts_frictionless);
  tcase_add_test(m, impacts_with_friction);
  tcase_add_test(m, incline_stick_below_slip_above);
  tcase_add_test(m, onto_sphere_box_capsule);
  tcase_add_test(m, impacts_frictionless_genalpha);
  tcase_add_test(m, impacts_with_friction_genalpha);
  tcase_add_test(m, twenty_elements_genalpha);
  tcase_add_test(m, incline_stick_below_slip_above_genalpha);
  tcase_add_test(m, onto_sphere_box_capsule_genalpha);
  suite_add_tcase(s, m);
  return s;
}

ROD_TEST_MAIN(rfem_contact_impacts_suite)
