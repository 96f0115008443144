/* The driven base joint's laws (motor.control, docs/physics.md): computed
 * torque against the PD joint on the flexible pendulum
 * (data/scenarios/flexible_pendulum_pd.ini), and on a pendulum stiff
 * enough to be one rigid link, where computed torque is exact. The
 * tracking error is e = ref - q_0, the driven joint's angle against the
 * motor's reference. */
#include <math.h>
#include <string.h>

#include "core/loads.h"
#include "rfemutil.h"
#include "scenarioutil.h"

/* The largest |e| over the run of sc and |e| averaged over its last 0.5 s
 * (rad); the torque the loads put on the driven joint at the end's angles,
 * at rest (N m, end_load_torque). */
static double end_load_torque;
static void tracking(const rod_scenario *sc, double *e_max, double *e_end) {
  rod_rfem *r = make(sc);
  solve_static(r);
  *e_max = 0;
  const int steps = (int)lround(sc->time.duration / sc->time.dt);
  double e = 0, sum = 0;
  int count = 0;
  for (int k = 1; k <= steps; k++) {
    rod_step_stats st;
    const double t = k * sc->time.dt;
    ck_assert_int_eq(rod_backend_rfem.step(r, t, &st), ROD_OK);
    double a, w;
    rod_motor_reference(sc, t, &a, &w);
    e = a - r->q[0];
    *e_max = fmax(*e_max, fabs(e));
    if (t > sc->time.duration - 0.5 + 1e-9) {
      sum += e;
      count++;
    }
  }
  *e_end = fabs(sum / count);
  memset(r->v, 0, (size_t)r->nlinks * sizeof(double));
  memset(r->qdd, 0, (size_t)r->nlinks * sizeof(double));
  rod_chain_update(r->chain, r->q, NULL);
  memset(r->fext, 0, 6 * (size_t)r->nlinks * sizeof(double));
  rod_chain_rnea(r->chain, r->qdd, r->fext, r->tau);
  end_load_torque = r->tau[0];
  rod_backend_rfem.destroy(r);
}

/* The flexible pendulum under PD (kp 2 N m/rad, kd 0.07 N m s/rad) and
 * under computed torque with the same gains, 3 s (the reference turns by
 * pi/4 over 0.2 s from 1 s). Over the last 0.5 s (three periods of the
 * rod's first mode, decaying by drag) the PD joint lags on average by the
 * static torque the loads put on it over its stiffness, tau_0 / kp
 * (tau_0 by the RNEA at the end's angles, at rest), within 2 %; computed
 * torque carries that torque in its model term and lags by less than 1 %
 * of it. Over the run computed torque's largest error is below a quarter
 * of the PD's: its feedback only meets the passive joints' pull on the
 * driven one, which its model leaves out. */
START_TEST(computed_torque_tracks_better_than_pd) {
  rod_scenario sc;
  rod_test_load(&sc, "flexible_pendulum_pd.ini");
  double pd_max, pd_end, ct_max, ct_end;
  tracking(&sc, &pd_max, &pd_end);
  const double lag = fabs(end_load_torque) / sc.motor.kp;
  sc.motor.control = ROD_MOTOR_COMPUTED_TORQUE;
  tracking(&sc, &ct_max, &ct_end);
  ck_assert_msg(fabs(pd_end - lag) < 0.02 * lag,
                "PD lags %.6g, tau_g / kp %.6g", pd_end, lag);
  ck_assert_msg(ct_end < 1e-2 * lag, "computed torque lags %.3g", ct_end);
  ck_assert_msg(ct_max < 0.25 * pd_max,
                "largest errors %.4g (computed torque), "
                "%.4g (PD)",
                ct_max, pd_max);
}
END_TEST

/* The pendulum 1e6 times stiffer (one rigid link in effect: its joints
 * turn by about 1e-8 rad under the swing; the solver's tolerance scaled
 * down with E I), 1.5 s: computed torque's error obeys J e'' + kd e' + kp
 * e = 0 from e = 0, so it stays 0 but for generalized-alpha's truncation
 * of the reference, second order in the step (observed order 2 +- 0.2
 * from 2 to 1 to 0.5 ms) and below 1e-4 of the PD's at 0.5 ms, whose
 * error is the gains' own. */
START_TEST(computed_torque_is_exact_on_a_rigid_link) {
  rod_scenario sc;
  rod_test_load(&sc, "flexible_pendulum_pd.ini");
  sc.rod.bending_stiffness *= 1e6;
  sc.solver.tolerance *= 1e-6; /* the residual's scale L / EI */
  sc.time.duration = 1.5;
  double pd_max, pd_end, err[3], end;
  tracking(&sc, &pd_max, &pd_end);
  sc.motor.control = ROD_MOTOR_COMPUTED_TORQUE;
  for (int k = 0; k < 3; k++) {
    sc.time.dt = 2e-3 / (1 << k);
    tracking(&sc, &err[k], &end);
  }
  const double p1 = rod_observed_order(err[0], err[1]);
  const double p2 = rod_observed_order(err[1], err[2]);
  ck_assert_msg(fabs(p1 - 2) < 0.2 && fabs(p2 - 2) < 0.2,
                "orders %.3f %.3f (errors %.3g %.3g %.3g, PD %.3g)", p1, p2,
                err[0], err[1], err[2], pd_max);
  ck_assert_msg(err[2] < 1e-4 * pd_max, "error %.3g, PD's %.3g", err[2],
                pd_max);
}
END_TEST

/* computed_torque drives a joint: with kp = 0 (the clamp follows the
 * reference exactly) it is refused, naming motor.control. */
START_TEST(computed_torque_needs_a_driven_joint) {
  rod_scenario sc;
  rod_test_load(&sc, "flexible_pendulum.ini");
  sc.motor.control = ROD_MOTOR_COMPUTED_TORQUE;
  rod_error err;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "motor.control");
}
END_TEST

static Suite *rfem_control_suite(void) {
  Suite *s = suite_create("rfem_control");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, computed_torque_tracks_better_than_pd);
  tcase_add_test(tc, computed_torque_is_exact_on_a_rigid_link);
  tcase_add_test(tc, computed_torque_needs_a_driven_joint);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(rfem_control_suite)
