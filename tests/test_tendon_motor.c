/* Displacement-controlled tendons (docs/tendons.md): a motor pulls in a
 * length of tendon and the tension follows from the tendon's length
 * constraint, b + l(tau) = (l0 + b - dl) (1 + c tau), slack (tau = 0)
 * when the rod needs less. Checked against tension control, the constraint
 * itself at every step of a run, the slack rod against the rod without a
 * tendon, and bad input. */
#include <string.h>

#include "core/loads.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "rod/sim.h"
#include "scenarioutil.h"

/* The tendon tests' rod (0.5 m, radius 1 mm, steel, along +z) hanging
 * under gravity along -x, with the tendon t0 at r = (6, -11) mm (out of
 * the plane of the sag): by tension T (dl_csv NULL) or by a motor
 * pulling in the table dl_csv (written into dir) with compliance c and
 * base_to_motor b. */
static void motor_rod(rod_scenario *sc, rod_model_kind model, const char *dir,
                      const char *dl_csv, double T, double c, double b) {
  rod_test_tendon_rod(sc, model);
  sc->environment.gravity[0] = -9.81;
  sc->solver.tolerance = 1e-12;
  rod_tendon_def *t = &sc->tendons.item[0];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "t0");
  t->offset[0] = 0.006;
  t->offset[1] = -0.011;
  t->end.tip = true;
  sc->tendons.count = 1;
  if (!dl_csv) {
    t->tension = T;
    return;
  }
  rod_test_write(dir, "dl.csv", dl_csv);
  snprintf(t->displacement_file, sizeof t->displacement_file, "%s/dl.csv", dir);
  t->compliance = c;
  t->base_to_motor = b;
}

/* The static state: the tendon's tension and length, the tip. */
static void static_state(const rod_scenario *sc, double *T, double *l,
                         double tip[3]) {
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(sc, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_get_tendon(sim, "t0", T, l), ROD_OK);
  const int n = rod_sim_points(sim);
  double pos[3 * 1024];
  ck_assert(n <= 1024);
  ck_assert_int_eq(rod_sim_get_positions(sim, pos), ROD_OK);
  memcpy(tip, pos + 3 * (n - 1), 3 * sizeof(double));
  rod_sim_free(sim);
}

/* The motor pulls in 2 mm (compliance 1e-4 / N, 50 mm to the motor): the
 * solved tension tau meets the constraint, and a tension-controlled run
 * at tau gives the same length and tip. Both solves stop at the
 * solver's tolerance (1e-12 of the moment unit EI / L in the tip residual,
 * the tension's Newton step below 1e-12 EI / (|r| L)): a tension off by
 * that changes the length by |r|^2 L / EI per N, 2e-16 m here, and the
 * shooting's own residual moves it by |r| L times the tolerance of the
 * curvature, 1e-14 m: 1e-13 m is required of lengths and tips. */
static void check_against_tension(rod_model_kind model) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_motor");
  rod_scenario sc;
  const double c = 1e-4, b = 0.05, dl = 0.002;
  motor_rod(&sc, model, dir, "t,dl\n0,0.002\n", 0, c, b);
  double T, l, tip[3];
  static_state(&sc, &T, &l, tip);
  const double lstar = sc.rod.length + b - dl; /* straight: l0 = L */
  const double g = b + l - lstar * (1.0 + c * T);
  ck_assert_msg(T > 1.0, "tension %g N", T);
  ck_assert_msg(fabs(g) < 1e-13, "constraint off by %.3g m", g);
  rod_scenario st;
  motor_rod(&st, model, dir, NULL, T, 0, 0);
  double T2, l2, tip2[3];
  static_state(&st, &T2, &l2, tip2);
  double dtip = 0;
  for (int i = 0; i < 3; i++)
    dtip = fmax(dtip, fabs(tip[i] - tip2[i]));
  fprintf(stderr,
          "%s: motor 2 mm -> %.12g N; length %.3g m, tip %.3g m from "
          "tension control\n",
          model == ROD_MODEL_COSSERAT ? "cosserat" : "kirchhoff", T,
          fabs(l - l2), dtip);
  ck_assert(T2 == T);
  ck_assert_msg(fabs(l - l2) < 1e-13, "length %.17g, %.17g", l, l2);
  ck_assert_msg(dtip < 1e-13, "tip %.3g m apart", dtip);
  rod_test_rmdir(dir);
}

START_TEST(motor_tension_reproduces_tension_control) {
  check_against_tension(ROD_MODEL_KIRCHHOFF);
  check_against_tension(ROD_MODEL_COSSERAT);
}
END_TEST

/* A motor that lets out 10 mm more than the rod needs: the tendon is
 * slack (0 N), the rod hangs as without it (the same tip to 1e-12 L),
 * and the slack is what the constraint leaves, l* - b - l > 0. */
START_TEST(motor_letting_out_leaves_the_tendon_slack) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_motor");
  rod_scenario sc;
  const double c = 1e-4, b = 0.05;
  motor_rod(&sc, ROD_MODEL_COSSERAT, dir, "t,dl\n0,-0.01\n", 0, c, b);
  double T, l, tip[3];
  static_state(&sc, &T, &l, tip);
  rod_scenario free_rod;
  motor_rod(&free_rod, ROD_MODEL_COSSERAT, dir, NULL, 0, 0, 0);
  double T0, l0, tip0[3];
  static_state(&free_rod, &T0, &l0, tip0);
  ck_assert_msg(T == 0, "tension %g N", T);
  double dtip = 0;
  for (int i = 0; i < 3; i++)
    dtip = fmax(dtip, fabs(tip[i] - tip0[i]));
  ck_assert_msg(dtip < 1e-12 * sc.rod.length, "tip %.3g m apart", dtip);
  const double slack = sc.rod.length + b + 0.01 - b - l;
  ck_assert_msg(slack > 0.009, "slack %g m", slack);
  /* a run whose motor lets out at once: slack at every step */
  sc.time.dt = 0.01;
  void *self = rod_test_backend(&sc, 3);
  rod_kirchhoff *k = self;
  ck_assert(k->tension[0] == 0 && k->disp_xi[0] < 0);
  rod_backend_kirchhoff.destroy(self);
  rod_test_rmdir(dir);
}
END_TEST

/* A run whose motor pulls in 16 mm over 0.3 s and lets it out again (the
 * public dynamics example's robot on 40 Euler points): at every step the
 * tendon's length, from the converged sweep, meets the constraint with
 * the tension found. The iteration stops when the tension's Newton step
 * is below tol EI / (|r| L) (3.1e-8 N at tol = 1e-8); the constraint's
 * slope |dg/dtau| is about |r|^2 L / EI + c l* = 4.9e-3 m/N: 1.5e-10 m
 * left, twice that allowed for the slope's Broyden estimate. */
START_TEST(length_constraint_met_at_every_step) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_motor");
  rod_test_write(dir, "dl.csv",
                 "t,dl\n0,0\n0.05,0\n0.35,0.01619\n0.6,0.01619\n0.9,0\n");
  rod_scenario sc;
  rod_test_load(&sc, "tendon_dynamics.ini");
  rod_tendon_def *t = &sc.tendons.item[0];
  snprintf(t->displacement_file, sizeof t->displacement_file, "%s/dl.csv", dir);
  sc.space.nodes = 40;
  void *self = rod_test_backend(&sc, 0);
  rod_kirchhoff *k = self;
  rod_model m;
  rod_model_init(&m, &sc);
  const double r = t->offset[0], L = sc.rod.length;
  const double slope = r * r * L / m.K[1] + t->compliance * L;
  const double bound = 2.0 * slope * sc.solver.tolerance * m.K[1] / (r * L);
  double worst = 0, Tmax = 0;
  for (int i = 1; i <= 24; i++) {
    const double time = i * sc.time.dt;
    rod_test_step(self, time);
    const double dl = rod_tendon_displacement(k->inputs, 0, time);
    const double T = k->tension[0];
    const double g = t->base_to_motor + k->tendon_length[0] -
                     (L + t->base_to_motor - dl) * (1.0 + t->compliance * T);
    worst = fmax(worst, fabs(g));
    Tmax = fmax(Tmax, T);
  }
  fprintf(stderr,
          "motor run: constraint met to %.3g m at every step (bound %.3g m), "
          "tensions up to %.4g N\n",
          worst, bound, Tmax);
  ck_assert_msg(worst < bound, "constraint off by %.3g m (bound %.3g m)", worst,
                bound);
  ck_assert(Tmax > 5.0);
  rod_backend_kirchhoff.destroy(self);
  rod_test_rmdir(dir);
}
END_TEST

/* data/scenarios/tendon_dynamics.ini, the public dynamics example (Till,
 * Aloi & Rucker 2019), through the motor's first ramp (3.652 .. 3.967 s)
 * and the swing after it, against the published program. Both programs
 * integrate in s by Euler's rule on 200 points (their first-order errors
 * differ: the program's u-v form, rodsim's n-m form; 3.4e-3 L between the
 * program's own 200 and 400 points), so the comparison is of the
 * solutions converged in s: rodsim by RK4 on 200 points (within 1e-7 L of
 * its Euler grids extrapolated), the program's tip extrapolated to h = 0
 * from its runs on 200, 400 and 800 points (Richardson's second
 * extrapolation, within 1.3e-5 m of the first here), below at 3.65 ..
 * 4.5 s. The model is the program's (the same equations, BDF2 at 50 ms):
 * 1e-4 L is required, the target of the whole run. */
START_TEST(dynamics_example_matches_published_program) {
  static const double ref[][3] = {
      /* t (s), tip x, z (m) */
      {3.65, -0.1478157765, 0.6957323319}, {3.70, -0.1277658176, 0.6968188640},
      {3.75, -0.0939720267, 0.6970908605}, {3.80, -0.0482052569, 0.6955897110},
      {3.85, 0.0100567192, 0.6906929936},  {3.90, 0.0798415026, 0.6791431923},
      {3.95, 0.1570780492, 0.6573933896},  {4.00, 0.2261645291, 0.6349717865},
      {4.05, 0.2801108172, 0.6159986803},  {4.10, 0.3162914627, 0.6005927152},
      {4.15, 0.3321522138, 0.5925094932},  {4.20, 0.3269507772, 0.5948730340},
      {4.25, 0.3023618687, 0.6068658429},  {4.30, 0.2627906825, 0.6236480576},
      {4.35, 0.2154669976, 0.6392640911},  {4.40, 0.1693944973, 0.6499475235},
      {4.45, 0.1331623529, 0.6553344240},  {4.50, 0.1129430753, 0.6571587842}};
  rod_scenario sc;
  rod_test_load(&sc, "tendon_dynamics.ini");
  sc.space.integrator = ROD_SPACE_RK4;
  const double L = sc.rod.length;
  const double worst =
      rod_test_planar_tip_error(&sc, ref, (int)(sizeof ref / sizeof ref[0]));
  fprintf(stderr,
          "dynamics example: tip within %.3g L of the published program's "
          "(converged in s) over 3.65 .. 4.5 s\n",
          worst / L);
  ck_assert_msg(worst < 1e-4 * L, "tip %.3g L off", worst / L);
}
END_TEST

/* rod_sim_set_tendon on a displacement-controlled tendon: refused, its
 * tension follows from the motor. */
START_TEST(set_tendon_refuses_a_motor_tendon) {
  char dir[256];
  rod_test_dir(dir, sizeof dir, "tendon_motor");
  rod_scenario sc;
  motor_rod(&sc, ROD_MODEL_KIRCHHOFF, dir, "t,dl\n0,0.001\n", 0, 0, 0);
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_set_tendon(sim, "t0", 3.0), ROD_EINVAL);
  ck_assert(strstr(rod_sim_error(sim), "displacement") != NULL);
  rod_sim_free(sim);
  rod_test_rmdir(dir);
}
END_TEST

/* The motor-driven robot (data/scenarios/tendon_dynamics.ini) to t (s) at
 * 5 ms steps: the tip and the tendon's tension and length at every step;
 * rfem_segments 0: the rod (RK4 on 50 points), else the chain. */
static int motor_run(int rfem_segments, double t_end, double *tip, double *T,
                     double *l) {
  rod_scenario sc;
  rod_test_load(&sc, "tendon_dynamics.ini");
  sc.time.dt = 5e-3;
  sc.time.duration = t_end;
  if (rfem_segments) {
    sc.solver.backend = ROD_BACKEND_RFEM;
    sc.rfem.segments = rfem_segments;
  } else {
    sc.space.integrator = ROD_SPACE_RK4;
    sc.space.nodes = 50;
  }
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  const int n = rod_sim_points(sim);
  double *pos = malloc(3 * (size_t)n * sizeof(double));
  int steps = 0;
  while (rod_sim_time(sim) < t_end - 1e-9) {
    ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
    ck_assert_int_eq(rod_sim_get_positions(sim, pos), ROD_OK);
    memcpy(tip + 3 * steps, pos + 3 * (n - 1), 3 * sizeof(double));
    ck_assert_int_eq(rod_sim_get_tendon(sim, "t1", T + steps, l + steps),
                     ROD_OK);
    steps++;
  }
  free(pos);
  rod_sim_free(sim);
  return steps;
}

/* Displacement control on the RFEM chain: with the compliance c > 0 the
 * tension is explicit in the tendon's length L, tau = (b + L - l*) /
 * (c l*) while taut, and the chain's runs converge to the rod's. The
 * motor pulls 16.19 mm in over 3.652..3.967 s; to 4.5 s at 5 ms: the
 * largest tip distance from the rod's on 40 and 80 elements 6.1e-3 and
 * 1.1e-3 m (second order or better: at least 3 times smaller), the
 * tension at the end 7.679 and 7.768 N against the rod's 7.794 N (within
 * 1 % at 80), and the constraint b + L = l* (1 + c tau) met to rounding
 * at the end (l* = l0 + b - dl with l0 = L, the straight tendon's). */
START_TEST(chain_motor_converges_to_the_rod) {
  enum { STEPS = 900 };
  static double tip[3][3 * STEPS], T[3][STEPS], l[3][STEPS];
  const int segments[3] = {0, 40, 80};
  int n[3];
  for (int c = 0; c < 3; c++)
    n[c] = motor_run(segments[c], 4.5, tip[c], T[c], l[c]);
  ck_assert(n[0] == STEPS && n[1] == STEPS && n[2] == STEPS);
  double e[3] = {0, 0, 0};
  for (int c = 1; c < 3; c++)
    for (int i = 0; i < STEPS; i++) {
      double d[3];
      v3_sub(d, tip[c] + 3 * i, tip[0] + 3 * i);
      e[c] = fmax(e[c], v3_norm(d));
    }
  const double L = 0.7144, b = 0.0518, cc = 1e-4, dl = 0.01619;
  fprintf(stderr,
          "chain motor: tip off the rod's by %.3g m (40), %.3g m (80); "
          "tension at the end %.5g, %.5g N, rod %.5g N\n",
          e[1], e[2], T[1][STEPS - 1], T[2][STEPS - 1], T[0][STEPS - 1]);
  ck_assert_msg(e[2] < e[1] / 3 && e[2] < 0.01 * L, "tip off by %.3g, %.3g m",
                e[1], e[2]);
  ck_assert(fabs(T[2][STEPS - 1] - T[0][STEPS - 1]) < 0.01 * T[0][STEPS - 1]);
  for (int c = 1; c < 3; c++) {
    const double lstar = L + b - dl, tau = T[c][STEPS - 1];
    ck_assert(tau > 5.0);
    const double g = b + l[c][STEPS - 1] - lstar * (1 + cc * tau);
    ck_assert_msg(fabs(g) < 1e-12, "constraint off by %.3g m", g);
  }
}
END_TEST

static void check_refused(const char *dl, const char *section_text,
                          const char *key) {
  rod_test_refused("dl.csv", dl, section_text, key);
}

START_TEST(bad_motor_input_is_refused) {
  const char *ok = "t,dl\n0,0\n1,0.01\n";
  check_refused("t,dl\n0,0\n0,0.01\n",
                "[tendon.a]\noffset = 0.01 0\ndisplacement_file = dl.csv\n",
                "tendon.a.displacement_file");
  check_refused(ok,
                "[tendon.a]\noffset = 0.01 0\ntension = 2\n"
                "displacement_file = dl.csv\n",
                "tendon.a.displacement_file");
  check_refused(ok,
                "[tendon.a]\noffset = 0.01 0\ndisplacement_file = dl.csv\n"
                "compliance = -1\n",
                "tendon.a.compliance");
  check_refused(ok, "[tendon.a]\noffset = 0.01 0\ncompliance = 1e-4\n",
                "tendon.a.compliance");
  check_refused(ok,
                "[tendon.a]\noffset = 0.01 0\ntension = 1\n"
                "base_to_motor = 0.05\n",
                "tendon.a.base_to_motor");
  /* the chain's tension is the stretch's: a rigid tendon is refused */
  check_refused(ok,
                "[solver]\nbackend = rfem\n[tendon.a]\noffset = 0.01 0\n"
                "displacement_file = dl.csv\n",
                "tendon.a.displacement_file");
}
END_TEST

static Suite *tendon_motor_suite(void) {
  Suite *s = suite_create("tendon_motor");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, motor_tension_reproduces_tension_control);
  tcase_add_test(tc, chain_motor_converges_to_the_rod);
  tcase_add_test(tc, motor_letting_out_leaves_the_tendon_slack);
  tcase_add_test(tc, length_constraint_met_at_every_step);
  tcase_add_test(tc, set_tendon_refuses_a_motor_tendon);
  tcase_add_test(tc, dynamics_example_matches_published_program);
  tcase_add_test(tc, bad_motor_input_is_refused);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_motor_suite)
