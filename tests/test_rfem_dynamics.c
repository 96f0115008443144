/* The RFEM backend in time against known answers: energy conservation,
 * Voigt and Maxwell joints against closed forms, the prescribed and the PD
 * motor, rotation invariance, planar against 3D, generalized-alpha's order
 * through the motor's ramp, the exact drag integrals, the output
 * velocities as derivatives, and the shipped scenarios. */
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_loads.h"
#include "rfemutil.h"

/* ---- energy ------------------------------------------------------------- */

typedef struct {
  double e0, max_dev, scale;
} energy_probe;

static int energy_sample(void *user, double t, const rod_sample *s,
                         const rod_step_stats *st, double wall) {
  (void)t;
  (void)st;
  (void)wall;
  energy_probe *p = user;
  double E = s->kinetic + s->elastic + s->gravity;
  if (p->scale == 0) {
    p->e0 = E;
    p->scale = s->elastic;
  }
  p->max_dev = fmax(p->max_dev, fabs(E - p->e0));
  return 0;
}

/* The weight release without damping or drag: kinetic + elastic + gravity
 * stays at its t = 0 value (the tip mass leaves the system at 0+). */
static double energy_drift(rod_rfem_integrator_kind integ, double dt,
                           bool planar, int n) {
  rod_scenario sc;
  cantilever(&sc, n, ROD_LAYOUT_CENTERED, planar);
  sc.rod.length = 0.408;
  sc.rod.diameter = 1.42e-3;
  sc.rod.bending_stiffness = 0.03803;
  sc.rod.density = 7621;
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.02;
  sc.time.dt = dt;
  sc.time.duration = 0.3;
  sc.rfem.integrator = integ;
  sc.rfem.spectral_radius = 1.0;
  sc.rfem.rtol = 1e-10;
  energy_probe p = {0, 0, 0};
  rod_sim_sink sink = {.sample = energy_sample, .user = &p};
  rod_sim_result res;
  rod_error err;
  ck_assert_int_eq(rod_sim_run(&sc, &sink, false, &res, &err), ROD_OK);
  return p.max_dev / p.scale;
}

/* The trapezoidal rule (rho_inf = 1) keeps a quadratic energy exactly and
 * this one to O(dt^2) once every mode is resolved: with 4 segments the
 * highest joint frequency is about 840 rad/s, omega dt <= 0.21 here (with
 * more segments the unresolved top modes make the observed order erratic
 * at these steps). */
START_TEST(energy_conserved_genalpha) {
  double e1 = energy_drift(ROD_RFEM_GENALPHA, 2.5e-4, true, 4);
  double e2 = energy_drift(ROD_RFEM_GENALPHA, 1.25e-4, true, 4);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 2) < 0.15 && e1 < 1e-5, "drift %.3g %.3g, order %.3f",
                e1, e2, p);
}
END_TEST

/* Dormand-Prince at rtol 1e-10 on the 3D chain (torsion included): about
 * 2.5 rtol of error per period (test_ivp) over 1.8 periods of the first
 * mode, twice that in a quadratic energy: 1e-9; measured 2e-10. */
START_TEST(energy_conserved_rk45) {
  double e = energy_drift(ROD_RFEM_RK45, 2e-3, false, 10);
  ck_assert_msg(e < 2e-9, "rk45 drift %.3g", e);
}
END_TEST

/* ---- joints ------------------------------------------------------------- */

/* Voigt: q'' + 2 z w q' + w^2 q = 0 with w^2 = k / I, 2 z w = c / I,
 * c = B / l (rod.bending_damping). */
START_TEST(voigt_joint_damped_oscillator) {
  rod_scenario sc;
  cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, true);
  sc.rod.bending_damping = 2e-3;
  sc.tip.preload[2] = -1e-3;
  sc.rfem.integrator = ROD_RFEM_RK45;
  sc.rfem.rtol = 1e-11;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const double m = r->model.rho_area, Ij = m / 3 + m * 1e-6 / 16;
  const double w = sqrt(1.0 / Ij), zeta = 2e-3 / (2 * Ij * w);
  const double q0 = r->q[1], wd = w * sqrt(1 - zeta * zeta);
  ROD_ASSERT_NEAR(q0, 1e-3 * cos(q0), 1e-17); /* k q = P L cos q */
  /* RK45's global error is about 2.5 atol per period (test_ivp), here
   * atol = rtol / n = 1e-11 rad over 1.4 periods */
  for (int k = 1; k <= 40; k++) {
    double t = 0.01 * k;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    double e = exp(-zeta * w * t);
    double q = q0 * e * (cos(wd * t) + zeta * w / wd * sin(wd * t));
    ROD_ASSERT_NEAR(r->q[1], q, 1e-10);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* The Maxwell element's update is exact: at rest Q decays as e^(-t/T)
 * (stress relaxation, Iwamura et al., eq. 6 with dq = 0), and at a constant
 * rate v it approaches the dashpot's k T v as k T v (1 - e^(-t/T)). */
START_TEST(maxwell_element_relaxes) {
  const double T = 0.3, h = 0.007;
  double E, w0, w1;
  rfem_maxwell_weights(h, T, &E, &w0, &w1);
  double Q = 2.0, Qv = 0.0, k = 5.0, v = 0.4;
  for (int i = 1; i <= 300; i++) {
    Q = E * Q;
    Qv = E * Qv + k * (w0 * v + w1 * v);
    double t = i * h;
    ROD_ASSERT_NEAR(Q, 2.0 * exp(-t / T), 1e-14);
    ROD_ASSERT_NEAR(Qv, k * T * v * (1 - exp(-t / T)), 1e-14);
  }
  /* small h / T: the weights tend to the trapezoidal h/2 each */
  rfem_maxwell_weights(1e-9, 1.0, &E, &w0, &w1);
  ROD_ASSERT_NEAR(w0 / 1e-9, 0.5 - 1e-9 / 3, 1e-15);
  ROD_ASSERT_NEAR(w1 / 1e-9, 0.5 - 1e-9 / 6, 1e-15);
}
END_TEST

/* A Maxwell joint under a rigid element: I v' = -Q, Q' = k v - Q / T, so
 * Q'' + Q' / T + (k / I) Q = 0 with Q(0) = k q0 (the spring carries the
 * static load) and Q'(0) = -Q0 / T: Q = Q0 e^(-t/2T) (cos wd t - sin wd t /
 * (2 T wd)), wd^2 = k / I - 1 / (4 T^2). The element creeps back to 0. */
static double maxwell_error(rod_rfem_integrator_kind ig, double dt) {
  rod_scenario sc;
  cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, true);
  sc.rfem.joint = ROD_JOINT_MAXWELL;
  sc.rfem.maxwell_time = 0.05;
  sc.tip.preload[2] = -1e-3;
  sc.rfem.integrator = ig;
  sc.rfem.rtol = 1e-11;
  sc.rfem.spectral_radius = 1.0;
  sc.time.dt = dt;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const double m = r->model.rho_area, Ij = m / 3 + m * 1e-6 / 16, T = 0.05;
  const double Q0 = r->Q[1], wd = sqrt(1.0 / Ij - 1 / (4 * T * T));
  ROD_ASSERT_NEAR(Q0, 1e-3 * cos(r->q[1]), 1e-17); /* k q = P L cos q */
  rod_sample s0; /* the spring's energy Q^2 / 2k = k q0^2 / 2 */
  rod_backend_rfem.sample(r, &s0);
  ROD_ASSERT_NEAR(s0.elastic, 0.5 * r->q[1] * r->q[1], 1e-20);
  double max_err = 0;
  for (int k = 1; k * dt <= 0.4 + 1e-12; k++) {
    double t = k * dt;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    double Q =
        Q0 * exp(-t / (2 * T)) * (cos(wd * t) - sin(wd * t) / (2 * T * wd));
    max_err = fmax(max_err, fabs(r->Q[1] - Q) / Q0);
  }
  /* the creep ends with the element back at 0 and the spring relaxed */
  rod_backend_rfem.destroy(r);
  return max_err;
}

/* RK45 within its tolerance (atol on Q is k rtol / n = 1e-11 N m, 1e-8 of
 * Q0; measured 5e-9); RK4 (one substep: h |lambda| = 0.22) at
 * fourth order; generalized-alpha with the exact Maxwell update at second
 * order. */
START_TEST(maxwell_joint_closed_form) {
  double e = maxwell_error(ROD_RFEM_RK45, 0.01);
  ck_assert_msg(e < 1e-8, "rk45 error %.3g", e);
  double e1 = maxwell_error(ROD_RFEM_RK4, 0.01);
  double e2 = maxwell_error(ROD_RFEM_RK4, 0.005);
  double p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 4) < 0.15, "rk4 order %.3f (%.3g %.3g)", p, e1, e2);
  e1 = maxwell_error(ROD_RFEM_GENALPHA, 2e-3);
  e2 = maxwell_error(ROD_RFEM_GENALPHA, 1e-3);
  p = rod_observed_order(e1, e2);
  ck_assert_msg(fabs(p - 2) < 0.1, "genalpha order %.3f (%.3g %.3g)", p, e1,
                e2);
}
END_TEST

/* ---- motor -------------------------------------------------------------- */

/* A prescribed motor turns the clamp frame by Rot(axis, ref(t)) R(0). */
START_TEST(prescribed_motor_turns_clamp) {
  rod_scenario sc;
  cantilever(&sc, 5, ROD_LAYOUT_CENTERED, false);
  sc.environment.gravity[2] = -9.81;
  sc.motor.enabled = true;
  sc.motor.start = 0.02;
  sc.motor.ramp = 0.1;
  sc.motor.angle = 0.6;
  rod_rfem *r = make(&sc);
  solve_static(r);
  for (int k = 1; k <= 75; k++) {
    double t = 2e-3 * k, a, w;
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    rod_motor_reference(&sc, t, &a, &w);
    rod_sample s;
    rod_backend_rfem.sample(r, &s);
    double turn[4], expect[4], axis[3] = {0, 1, 0};
    quat_axis_angle(turn, axis, a);
    quat_mul(expect, turn, r->model.base_quat);
    double dot = 0;
    for (int i = 0; i < 4; i++)
      dot += expect[i] * s.orientation[i];
    ROD_ASSERT_NEAR(fabs(dot), 1.0, 1e-14);
    /* the base point stays */
    for (int i = 0; i < 3; i++)
      ROD_ASSERT_NEAR(s.position[i], 0.0, 1e-15);
  }
  rod_backend_rfem.destroy(r);
}
END_TEST

/* A PD-driven motor (kp > 0) on a rotor settles where the static solve
 * with the final reference puts it: kp (ref - q0) balances gravity. The rod
 * damping (retardation 0.05 s) and kd make every mode decay within the
 * run (slowest rate about 10 1/s over 1.5 s: e^-15). */
START_TEST(pd_motor_settles_to_static) {
  rod_scenario sc;
  cantilever(&sc, 4, ROD_LAYOUT_CENTERED, true);
  sc.environment.gravity[2] = -9.81;
  sc.rod.bending_damping = 0.05;
  sc.motor.enabled = true;
  sc.motor.angle = 0.5;
  sc.motor.start = 0.0;
  sc.motor.ramp = 0.05;
  sc.motor.kp = 1.0;
  sc.motor.kd = 0.09;
  sc.motor.inertia = 1e-4;
  rod_rfem *r = make(&sc);
  solve_static(r);
  ck_assert_int_eq(r->first_free, 0);
  for (int k = 1; k <= 750; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, 2e-3 * k, &st), ROD_OK);
  }
  sc.motor.start = -1.0; /* the reference at its final value at t = 0 */
  rod_rfem *s = make(&sc);
  solve_static(s);
  ck_assert(s->q[0] > 0.5 + 0.01); /* gravity pulls it past the reference */
  for (int i = 0; i < r->nlinks; i++)
    ROD_ASSERT_NEAR(r->q[i], s->q[i], 1e-6);
  rod_backend_rfem.destroy(r);
  rod_backend_rfem.destroy(s);
}
END_TEST

/* Tip of the scenario with clamp direction, gravity and tip force turned
 * by Q (0.7 rad about (1, 2, 2)/3) and the base moved, turned back. */
static void turned_tip(const rod_scenario *a, double back[3]) {
  double Q[9], ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, turn[4], tb[3];
  quat_axis_angle(turn, ax, 0.7);
  quat_to_R(Q, turn);
  rod_scenario b = *a;
  m3_mul_v(b.base.direction, Q, a->base.direction);
  m3_mul_v(b.environment.gravity, Q, a->environment.gravity);
  m3_mul_v(b.tip.force, Q, a->tip.force);
  v3_set(b.base.position, 0.1, 0.2, 0.3);
  static_tip(&b, tb);
  v3_sub(tb, tb, b.base.position);
  m3_mul_tv(back, Q, tb);
}

/* Turning the whole problem turns the answer. The planar chain bends in
 * the plane of the clamp and gravity, which turns along: exact. The 3D
 * chain's joints are Euler angles (bending about d1, then d2, then
 * torsion): bending about both leaves a twist of q1 q2 / 2 in the torsion
 * spring, so the answer depends on how the load meets d1 and d2, by an
 * amount that falls at second order in the segments like the
 * discretisation error itself (measured 1.5e-4 at n = 12, 3.9e-5 at 24). */
START_TEST(rotation_invariance) {
  rod_scenario a;
  cantilever(&a, 12, ROD_LAYOUT_CENTERED, true);
  a.environment.gravity[2] = -9.81;
  a.rod.density = 2.0 / (9.81 * M_PI * 1e-6 / 4);
  a.tip.force[0] = 0.4;
  double ta[3], tb[3];
  static_tip(&a, ta);
  turned_tip(&a, tb);
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(tb[i], ta[i], 1e-12);
  a.rfem.planar = false;
  a.tip.force[1] = 0.4; /* out of the plane: a 3D answer */
  double e[2];
  for (int k = 0; k < 2; k++) {
    a.rfem.segments = 12 << k;
    static_tip(&a, ta);
    turned_tip(&a, tb);
    v3_sub(tb, tb, ta);
    e[k] = v3_norm(tb);
  }
  double p = rod_observed_order(e[0], e[1]);
  ck_assert_msg(fabs(p - 2) < 0.1 && e[0] < 3e-4, "order %.3f (%.3g %.3g)", p,
                e[0], e[1]);
}
END_TEST

/* In a planar problem the 3D chain moves like the planar one. */
START_TEST(planar_equals_3d_dynamics) {
  double tip[2][3];
  for (int planar = 0; planar < 2; planar++) {
    rod_scenario sc;
    cantilever(&sc, 8, ROD_LAYOUT_UNIFORM, planar);
    sc.environment.gravity[2] = -9.81;
    sc.tip.mass = 0.002;
    sc.rod.drag = 0.01;
    rod_rfem *r = make(&sc);
    solve_static(r);
    for (int k = 1; k <= 50; k++) {
      rod_step_stats st;
      ck_assert_int_eq(rod_backend_rfem.step(r, 2e-3 * k, &st), ROD_OK);
    }
    tip_of(r, tip[planar]);
    rod_backend_rfem.destroy(r);
  }
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(tip[0][i], tip[1][i], 1e-12);
}
END_TEST

/* The weighted chain of 10 elements (the weight release's rod) released
 * from its static state: planar, or 3D swinging out of its plane (a tip
 * force along y); generalized-alpha at 1 ms for 0.2 s, the iteration
 * matrix's factorisation kept (keep) or fresh at every correction. */
static void kept_run(bool planar, double tolerance, bool keep, double tip[3],
                     long *factors, long *iterations) {
  rod_scenario sc;
  cantilever(&sc, 10, ROD_LAYOUT_CENTERED, planar);
  sc.rod.length = 0.408;
  sc.rod.bending_stiffness = 0.03803;
  sc.rod.diameter = 1.42e-3;
  sc.rod.density = 7621;
  sc.environment.gravity[2] = -9.81;
  sc.tip.mass = 0.02;
  sc.tip.force[1] = planar ? 0.0 : 0.05;
  sc.solver.tolerance = tolerance;
  rod_rfem *r = make(&sc);
  r->ga_keep = keep;
  solve_static(r);
  const long f0 = rod_chain_factor_count(r->chain);
  *iterations = 0;
  for (int k = 1; k <= 200; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, 1e-3 * k, &st), ROD_OK);
    *iterations += st.iterations;
  }
  *factors = rod_chain_factor_count(r->chain) - f0;
  tip_of(r, tip);
  rod_backend_rfem.destroy(r);
}

/* Generalized-alpha keeps the iteration matrix's factorisation across
 * Newton iterations and steps. Solved to 1e-12, the 3D swing reaches the
 * state a fresh factorisation at every correction reaches (both within
 * rounding of the steps' exact solution; measured 5e-15 m apart). At the
 * default 1e-8 the planar release's first 0.2 s, its most violent, take at
 * most three quarters of the factorisations for at most a tenth more
 * iterations (measured 0.66 and 1.05; over the 2 s of the planar weight
 * release at 1.1 ms 0.34 and 1.14). */
START_TEST(genalpha_keeps_factorisation) {
  double tip[2][3];
  long factors[2], iterations[2];
  for (int keep = 0; keep < 2; keep++)
    kept_run(false, 1e-12, keep, tip[keep], &factors[keep], &iterations[keep]);
  for (int i = 0; i < 3; i++)
    ROD_ASSERT_NEAR(tip[1][i], tip[0][i], 1e-12);
  for (int keep = 0; keep < 2; keep++)
    kept_run(true, 1e-8, keep, tip[keep], &factors[keep], &iterations[keep]);
  ck_assert_msg(4 * factors[1] <= 3 * factors[0] &&
                    10 * iterations[1] <= 11 * iterations[0],
                "factorisations %ld (fresh: %ld), iterations %ld (%ld)",
                factors[1], factors[0], iterations[1], iterations[0]);
}
END_TEST

/* Tip after 0.15 s of a weighted 4-segment chain swung by the motor
 * (0.6 rad, ramp from 0.02 to 0.12 s): prescribed (kp = 0) or by a PD
 * drive critically damped for the rigid rod (2.1e-3 kg m^2 with rotor). */
static void motor_tip(double kp, rod_rfem_integrator_kind ig, double dt,
                      double tip[3]) {
  rod_scenario sc;
  cantilever(&sc, 4, ROD_LAYOUT_CENTERED, true);
  sc.environment.gravity[2] = -9.81;
  sc.motor.enabled = true;
  sc.motor.angle = 0.6;
  sc.motor.start = 0.02;
  sc.motor.ramp = 0.1;
  sc.motor.kp = kp;
  sc.motor.inertia = 1e-4;
  sc.motor.kd = 2 * sqrt(kp * 2.1e-3);
  sc.rfem.integrator = ig;
  sc.rfem.rtol = 1e-11;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const int N = (int)lround(0.15 / dt);
  for (int k = 1; k <= N; k++) {
    rod_step_stats st;
    ck_assert_int_eq(rod_backend_rfem.step(r, dt * k, &st), ROD_OK);
  }
  tip_of(r, tip);
  rod_backend_rfem.destroy(r);
}

/* A stiff PD drive tracks the reference within tau / kp, so the rod moves
 * as under the prescribed rotation, whose inertial loads come from the
 * reference's acceleration: the difference falls as 1 / kp (measured
 * 2.2e-4 m at kp = 1e4, 2.3e-5 at 1e5). */
START_TEST(stiff_pd_motor_matches_prescribed) {
  double ref[3], a[3], b[3];
  motor_tip(0.0, ROD_RFEM_GENALPHA, 1e-4, ref);
  motor_tip(1e4, ROD_RFEM_GENALPHA, 1e-4, a);
  motor_tip(1e5, ROD_RFEM_GENALPHA, 1e-4, b);
  v3_sub(a, a, ref);
  v3_sub(b, b, ref);
  double ea = v3_norm(a), eb = v3_norm(b);
  ck_assert_msg(ea / eb > 8 && eb < 1e-4, "%.3g %.3g", ea, eb);
}
END_TEST

/* The cosine ramp's acceleration jumps at its start and end; stepping
 * across a jump would see a ramp in the base acceleration, an O(dt) error
 * in the response (measured: first order, 4.7e-4 m at dt = 1e-4, before
 * the steps were split at the jumps). With the split and a restart of the
 * integrator there, generalized-alpha stays second order against RK45. */
START_TEST(genalpha_second_order_through_ramp) {
  double ref[3], a[3], b[3];
  motor_tip(0.0, ROD_RFEM_RK45, 1e-3, ref);
  motor_tip(0.0, ROD_RFEM_GENALPHA, 1e-4, a);
  motor_tip(0.0, ROD_RFEM_GENALPHA, 5e-5, b);
  v3_sub(a, a, ref);
  v3_sub(b, b, ref);
  double p = rod_observed_order(v3_norm(a), v3_norm(b));
  ck_assert_msg(fabs(p - 2) < 0.15 && v3_norm(a) < 3e-6,
                "order %.3f (%.3g %.3g)", p, v3_norm(a), v3_norm(b));
}
END_TEST

/* ---- drag ---------------------------------------------------------------- */

/* Antiderivatives without a sign change (u = a + b x > 0 on the element):
 * int u^2 dx = (u1^3 - u0^3) / (3b), int x u^2 dx = [u^4/4 - a u^3/3] / b^2;
 * across a sign change, the pieces with opposite signs. */
START_TEST(drag_integrals_exact) {
  double i0, i1;
  rfem_drag_integrals(0.5, 2.0, 0.3, &i0, &i1);
  double u0 = 0.5, u1 = 1.1;
  ROD_ASSERT_NEAR(i0, (u1 * u1 * u1 - u0 * u0 * u0) / 6.0, 1e-15);
  ROD_ASSERT_NEAR(
      i1,
      ((pow(u1, 4) - pow(u0, 4)) / 4 - 0.5 * (pow(u1, 3) - pow(u0, 3)) / 3) /
          4.0,
      1e-15);
  /* u = x - 0.1 on [0, 0.3]: -int_0^0.1 (x-0.1)^2 + int_0.1^0.3 (x-0.1)^2 */
  rfem_drag_integrals(-0.1, 1.0, 0.3, &i0, &i1);
  ROD_ASSERT_NEAR(i0, (-pow(0.1, 3) + pow(0.2, 3)) / 3, 1e-16);
  /* int x (x - 0.1)^2 = x^4/4 - 0.2 x^3/3 + 0.01 x^2/2 */
  double F01 = pow(0.1, 4) / 4 - 0.2 * pow(0.1, 3) / 3 + 0.01 * 0.01 / 2;
  double F03 = pow(0.3, 4) / 4 - 0.2 * pow(0.3, 3) / 3 + 0.01 * 0.09 / 2;
  ROD_ASSERT_NEAR(i1, -F01 + (F03 - F01), 1e-16);
  /* constant u */
  rfem_drag_integrals(-2.0, 0.0, 0.5, &i0, &i1);
  ROD_ASSERT_NEAR(i0, -4.0 * 0.5, 1e-15);
  ROD_ASSERT_NEAR(i1, -4.0 * 0.125, 1e-15);
}
END_TEST

/* A free rigid element spun about its joint slows by drag alone: with
 * u = w x along it, I w' = -C w |w| int x^3 dx = -C w |w| L^4 / 4, so
 * w(t) = w0 / (1 + C w0 L^4 t / (4 I)). EI = 1e-12 N m^2 leaves the spring
 * torque 1e-12 of the drag. Spun about d1 (the planar chain's axis without
 * loads) and about d2 (3D), through both drag components. */
START_TEST(drag_spins_down_element) {
  for (int planar = 0; planar < 2; planar++) {
    rod_scenario sc;
    cantilever(&sc, 1, ROD_LAYOUT_UNIFORM, planar);
    sc.rod.bending_stiffness = 1e-12;
    sc.rod.drag = 0.5;
    sc.rfem.integrator = ROD_RFEM_RK45;
    sc.rfem.rtol = 1e-12;
    rod_rfem *r = make(&sc);
    solve_static(r);
    const int link = planar ? 1 : 2;
    const double w0 = 3.0, m = r->model.rho_area;
    const double Ij = m / 3 + m * 1e-6 / 16;
    r->v[link] = w0;
    ck_assert_int_eq(rfem_start_dynamics(r), ROD_OK);
    for (int k = 1; k <= 20; k++) {
      double t = 0.01 * k;
      rod_step_stats st;
      ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
      double w = w0 / (1 + 0.5 * w0 * t / (4 * Ij));
      ROD_ASSERT_NEAR(r->v[link], w, 1e-9 * w0);
    }
    rod_backend_rfem.destroy(r);
  }
}
END_TEST

/* The output velocities are the derivatives of the output positions along
 * the motion: v = (p(q + e dq) - p(q - e dq)) / (2 e) up to e^2 |p'''|
 * ~ 1e-11 m/s and round-off eps / e ~ 1e-10 m/s (e = 1e-6 s), on a bent 3D
 * state with every joint moving, the motor included. */
START_TEST(output_velocity_is_derivative) {
  rod_scenario sc;
  cantilever(&sc, 5, ROD_LAYOUT_CENTERED, false);
  sc.motor.enabled = true;
  sc.motor.kp = 1.0; /* a free motor joint: its rate is a state */
  sc.motor.inertia = 1e-3;
  rod_rfem *r = make(&sc);
  solve_static(r);
  const int n = r->nlinks;
  double q[64], dq[64], vel[64], plus[64], minus[64];
  for (int i = 0; i < n; i++) {
    q[i] = 0.3 * sin(1.7 * i + 0.2);
    dq[i] = 2.0 * cos(0.9 * i + 0.4);
  }
  rod_sample s;
  memcpy(r->q, q, (size_t)n * sizeof(double));
  memcpy(r->v, dq, (size_t)n * sizeof(double));
  rod_backend_rfem.sample(r, &s);
  memcpy(vel, s.velocity, 3 * (size_t)s.points * sizeof(double));
  const double e = 1e-6;
  for (int sign = -1; sign <= 1; sign += 2) {
    for (int i = 0; i < n; i++)
      r->q[i] = q[i] + sign * e * dq[i];
    rod_backend_rfem.sample(r, &s);
    memcpy(sign > 0 ? plus : minus, s.position,
           3 * (size_t)s.points * sizeof(double));
  }
  for (int i = 0; i < 3 * s.points; i++)
    ROD_ASSERT_NEAR(vel[i], (plus[i] - minus[i]) / (2 * e), 1e-9);
  rod_backend_rfem.destroy(r);
}
END_TEST

/* ---- scenarios ----------------------------------------------------------- */

static void run_scenario(const char *name, const char *backend,
                         double duration) {
  char path[1024];
  snprintf(path, sizeof path, "%s/scenarios/%s",
           getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data", name);
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  char set[64];
  snprintf(set, sizeof set, "solver.backend=%s", backend);
  ck_assert_int_eq(rod_scenario_set(&sc, set, &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  sc.time.duration = duration;
  rod_sim_result res;
  ck_assert_int_eq(rod_sim_run(&sc, NULL, false, &res, &err), ROD_OK);
}

START_TEST(shipped_scenarios_run) {
  run_scenario("weight_release.ini", "rfem", 0.2);
  run_scenario("flexible_pendulum.ini", "rfem", 0.2);
  run_scenario("flexible_pendulum_pd.ini", "rfem", 0.2);
}
END_TEST

static Suite *rfem_dynamics_suite(void) {
  Suite *s = suite_create("rfem_dynamics");
  TCase *td = tcase_create("dynamics");
  tcase_set_timeout(td, 30);
  tcase_add_test(td, energy_conserved_genalpha);
  tcase_add_test(td, energy_conserved_rk45);
  tcase_add_test(td, voigt_joint_damped_oscillator);
  tcase_add_test(td, maxwell_element_relaxes);
  tcase_add_test(td, maxwell_joint_closed_form);
  tcase_add_test(td, prescribed_motor_turns_clamp);
  tcase_add_test(td, pd_motor_settles_to_static);
  tcase_add_test(td, stiff_pd_motor_matches_prescribed);
  tcase_add_test(td, genalpha_second_order_through_ramp);
  tcase_add_test(td, genalpha_keeps_factorisation);
  tcase_add_test(td, rotation_invariance);
  tcase_add_test(td, planar_equals_3d_dynamics);
  tcase_add_test(td, drag_integrals_exact);
  tcase_add_test(td, drag_spins_down_element);
  tcase_add_test(td, output_velocity_is_derivative);
  tcase_add_test(td, shipped_scenarios_run);
  suite_add_tcase(s, td);
  return s;
}

ROD_TEST_MAIN(rfem_dynamics_suite)
