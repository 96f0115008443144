/* The rodsim command line: exit statuses and the one-line messages of
 * docs/commands.md for every class of bad input, --help and
 * --version, and a solver failure that keeps the converged steps. */
#include <hdf5.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5util.h"

static char dir[256];

static void make_dir(void) { rod_test_dir(dir, sizeof dir, "rodsim_cli"); }
static void remove_dir(void) { rod_test_rmdir(dir); }
static void write_file(const char *name, const char *text) {
  rod_test_write(dir, name, text);
}

/* Run "rodsim ARGS" in dir; returns the exit status, stderr in err. */
static int rodsim(const char *args, char *err, size_t size) {
  const char *exe = getenv("RODSIM");
  ck_assert_msg(exe != NULL, "RODSIM not set");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && %s %s >stdout.txt 2>stderr.txt", dir, exe,
           args);
  int st = system(cmd);
  char path[512];
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(err, 1, size - 1, f) : 0;
  err[n] = '\0';
  if (f)
    fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Exit 2 with exactly one line containing each of the needles. */
static void expect_bad(const char *args, const char *needle1,
                       const char *needle2) {
  char err[4096];
  int st = rodsim(args, err, sizeof err);
  ck_assert_msg(st == 2, "'%s': exit %d, expected 2 (%s)", args, st, err);
  ck_assert_msg(count_lines(err) == 1, "'%s': %d lines: %s", args,
                count_lines(err), err);
  ck_assert_msg(strncmp(err, "rodsim: ", 8) == 0, "'%s': %s", args, err);
  ck_assert_msg(strstr(err, needle1), "'%s': no '%s' in: %s", args, needle1,
                err);
  if (needle2)
    ck_assert_msg(strstr(err, needle2), "'%s': no '%s' in: %s", args, needle2,
                  err);
}

static const char *good = "[rod]\nlength = 0.3\n[time]\ndt = 2e-3\n"
                          "duration = 0.01\n[space]\nnodes = 40\n";

START_TEST(bad_scenario_values) {
  make_dir();
  write_file("good.ini", good);
  expect_bad("run missing.ini", "missing.ini", "cannot open");
  write_file("sec.ini", "[rods]\nlength = 1\n");
  expect_bad("run sec.ini", "sec.ini", "[rods]: unknown section");
  write_file("key.ini", "[rod]\nlenght = 1\n");
  expect_bad("run key.ini", "rod.lenght", "unknown key");
  write_file("num.ini", "[rod]\nlength = 1m\n");
  expect_bad("run num.ini", "rod.length", "not a number (got 1m)");
  write_file("nan.ini", "[rod]\nlength = nan\n");
  expect_bad("run nan.ini", "rod.length", "finite");
  write_file("inf.ini", "[time]\ndt = inf\n");
  expect_bad("run inf.ini", "time.dt", "finite");
  write_file("neg.ini", "[rod]\nlength = -1\n");
  expect_bad("run neg.ini", "neg.ini: rod.length: must be > 0 (got -1)", NULL);
  write_file("dup.ini", "[rod]\nlength = 1\nlength = 2\n");
  expect_bad("run dup.ini", "rod.length", "twice");
  write_file("vec.ini", "[base]\ndirection = 1 0\n");
  expect_bad("run vec.ini", "base.direction", "three numbers");
  write_file("zero.ini", "[base]\ndirection = 0 0 0\n");
  expect_bad("run zero.ini", "base.direction", "zero vector");
  write_file("enum.ini", "[space]\nintegrator = rk5\n");
  expect_bad("run enum.ini", "space.integrator", "euler, rk4");
  write_file("imp.ini", "[rod]\nlength = 0.3\n[impulse]\nposition = 0.5\n");
  expect_bad("run imp.ini", "impulse.position", "within the rod");
  write_file("line.ini", "[rod]\nthis is not a key value line\n");
  expect_bad("run line.ini", "line.ini", "line 2");
}
END_TEST

START_TEST(bad_overrides) {
  make_dir();
  write_file("good.ini", good);
  expect_bad("run good.ini --set space.nodes=1", "space.nodes", ">= 2");
  expect_bad("run good.ini --set time.dt=0", "time.dt", "> 0 (got 0)");
  expect_bad("run good.ini --set time.alpha=0.1", "time.alpha", "[-0.5, 0]");
  expect_bad("run good.ini --set rod.density=-7800", "rod.density", "> 0");
  expect_bad("run good.ini --set rod.youngs_modulus=0", "rod.youngs_modulus",
             "> 0");
  expect_bad("run good.ini --set nodes=10", "--set", "SECTION.KEY=VALUE");
  expect_bad("run good.ini --set rod.colour=red", "rod.colour", "unknown key");
  expect_bad("run good.ini --set rod.lenght=1", "--set: rod.lenght",
             "did you mean rod.length?");
  expect_bad("keys frobnicate", "frobnicate", "no key matches");
  expect_bad("run good.ini --set 'impulse.direction=0 0 0'",
             "impulse.direction", "zero vector");
  expect_bad("run good.ini --frobnicate", "--frobnicate", "unknown option");
  expect_bad("frobnicate", "frobnicate", "unknown command");
  expect_bad("run", "SCENARIO", NULL);
}
END_TEST

/* Contact: bad bodies and what this build does not solve, one line each. */
START_TEST(bad_contact) {
  make_dir();
  write_file("good.ini", good);
  const char *rk4 = "run good.ini --set solver.backend=rfem "
                    "--set rfem.integrator=rk4 ";
  char args[512];
  snprintf(args, sizeof args, "%s--set 'plane.normal=0 0 0'", rk4);
  expect_bad(args, "plane.normal", "zero vector");
  snprintf(args, sizeof args,
           "%s--set obstacle.s.shape=sphere --set obstacle.s.radius=-1", rk4);
  expect_bad(args, "obstacle.s.radius", "> 0");
  snprintf(args, sizeof args,
           "%s--set obstacle.s.shape=sphere --set 'obstacle.s.center=0.01 0 "
           "0' --set obstacle.s.radius=0.02",
           rk4);
  expect_bad(args, "obstacle.s", "contains the clamp");
  expect_bad("run good.ini --set 'plane.point=0 0 -0.1' --set "
             "time.scheme=esdirk3",
             "time.scheme", "[plane]");
  char err[1024]; /* the rod's static state with contact is solved */
  ck_assert_int_eq(
      rodsim("static good.ini --set 'plane.point=0 0 -0.01'", err, sizeof err),
      0);
  /* and its impacts with restitution */
  ck_assert_int_eq(rodsim("run good.ini --set 'plane.point=0 0 -0.1' --set "
                          "plane.restitution=0.5 --set time.duration=0.01",
                          err, sizeof err),
                   0);
  expect_bad("run good.ini --set solver.backend=rfem --set "
             "'plane.point=0 0 -0.1' --set time.tolerance=1e-6",
             "time.tolerance", "generalized-alpha");
}
END_TEST

START_TEST(help_and_version) {
  make_dir();
  char err[1024];
  ck_assert_int_eq(rodsim("--help", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("--version", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("run --help", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("static --help", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("keys --markdown", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("keys rod.length tip", err, sizeof err), 0);
  ck_assert_int_eq(rodsim("bench --help", err, sizeof err), 0);
}
END_TEST

/* The effective scenario ends in the file; --set turns [impulse] on. */
START_TEST(set_and_output_override) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("run good.ini --quiet -o out.h5 --set impulse.peak=0.01 "
                  "--set 'environment.gravity=0 0 -1'",
                  err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  char path[512];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  char *text = rod_test_attr(f, "scenario");
  ck_assert_ptr_nonnull(strstr(text, "[impulse]\npeak = 0.01\n"));
  ck_assert_ptr_nonnull(strstr(text, "gravity = 0 0 -1\n"));
  ck_assert_ptr_nonnull(strstr(text, "file = out.h5\n"));
  H5free_memory(text);
  H5Fclose(f);
}
END_TEST

/* --set rod.diameter=1 on the 0.3 m rod (metres for millimetres): one line
 * for the diameter, one for a rod shorter than 10 diameters; the run goes
 * on. */
START_TEST(unit_slip_warns) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("static good.ini --quiet -o s.h5 --set rod.diameter=1", err,
                  sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_msg(count_lines(err) == 2, "%s", err);
  ck_assert_ptr_nonnull(strstr(err, "good.ini: rod.diameter: warning: 1 m is "
                                    "more than 0.1 m"));
  ck_assert_ptr_nonnull(strstr(err, "good.ini: rod.length: warning: 0.3 m is "
                                    "0.3 diameters"));
}
END_TEST

/* An impulse shorter than four steps: a one-line warning, and the run goes
 * on; a resolved one: no warning. */
START_TEST(under_resolved_impulse_warns) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("bench good.ini --set impulse.peak=0.01 --set "
                  "impulse.duration=4e-3 --dt 2e-3,1e-3",
                  err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_msg(count_lines(err) == 1, "%s", err);
  ck_assert_ptr_nonnull(strstr(err, "good.ini: impulse.duration: warning:"));
  ck_assert_ptr_nonnull(strstr(err, "dt = 0.002 s"));
}
END_TEST

/* A time step too coarse for the rod's first bending mode (the 0.3 m rod
 * at about 11.2 Hz: 4.5 steps a period at 20 ms): a warning naming time.dt,
 * the mode and a step that follows it; BDF-alpha's own error on the mode
 * at the step advised is within 5 % over two periods, and so no warning
 * there. */
START_TEST(coarse_time_step_warns) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("bench good.ini --dt 2e-2 --set time.duration=0.2", err,
                  sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_msg(count_lines(err) == 1, "%s", err);
  ck_assert_ptr_nonnull(strstr(err, "good.ini: time.dt: warning: a step of "
                                    "0.02 s cannot follow the rod's first "
                                    "bending mode (about 11.2 Hz"));
  const char *adv = strstr(err, "use time.dt = ");
  ck_assert_ptr_nonnull(adv);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "bench good.ini --dt %.6g --set time.duration=0.2",
           atof(adv + strlen("use time.dt = ")));
  st = rodsim(cmd, err, sizeof err);
  ck_assert_msg(st == 0 && count_lines(err) == 0, "exit %d: %s", st, err);
}
END_TEST

/* The chain: its generalized-alpha step too coarse for mode 1 is warned
 * about as BDF-alpha's (the robustness study: predicted 1.7, 0.44, 0.12
 * of the amplitude at 2.4, 8.7, 17 steps a period, measured 1.62, 0.41,
 * 0.12), and the advised step is not; a soft rod (w L^3 / EI = 300) on 10
 * elements, whose static tip the study found 2.4 % of L from the
 * continuous rod's, is warned about with the elements advised. */
START_TEST(chain_warnings) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("bench good.ini --dt 2e-2 --set time.duration=0.2 --set "
                  "solver.backend=rfem",
                  err, sizeof err);
  ck_assert_msg(st == 0 && count_lines(err) == 1, "exit %d: %s", st, err);
  ck_assert_ptr_nonnull(strstr(err, "good.ini: time.dt: warning: a step of "
                                    "0.02 s cannot follow the rod's first "
                                    "bending mode (about 11.2 Hz"));
  ck_assert_ptr_nonnull(strstr(err, "generalized-alpha with "
                                    "rfem.spectral_radius = 0.9 errs by"));
  const char *adv = strstr(err, "use time.dt = ");
  ck_assert_ptr_nonnull(adv);
  char cmd[300];
  snprintf(cmd, sizeof cmd,
           "bench good.ini --dt %.6g --set time.duration=0.2 --set "
           "solver.backend=rfem",
           atof(adv + strlen("use time.dt = ")));
  st = rodsim(cmd, err, sizeof err);
  ck_assert_msg(st == 0 && count_lines(err) == 0, "exit %d: %s", st, err);
  /* 0.3 m, d 3 mm, 1000 kg/m^3: E for w L^3 / EI = 300 */
  const char *soft = "bench good.ini --set time.duration=0.004 --set "
                     "solver.backend=rfem --set rod.diameter=3e-3 --set "
                     "rod.density=1000 --set rod.youngs_modulus=1569600";
  st = rodsim(soft, err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_ptr_nonnull(
      strstr(err, "good.ini: rfem.segments: warning: 10 elements may place "
                  "the static tip"));
  adv = strstr(err, "use about ");
  ck_assert_ptr_nonnull(adv);
  snprintf(cmd, sizeof cmd, "%s --set rfem.segments=%d", soft,
           atoi(adv + strlen("use about ")));
  st = rodsim(cmd, err, sizeof err);
  ck_assert_msg(st == 0 && !strstr(err, "rfem.segments"), "exit %d: %s", st,
                err);
}
END_TEST

/* Euler in arclength on a bent rod (w L^3 / EI = 10, a tip force P L^2 /
 * EI = 1 against the weight): first order, its static tip 1.2 % of L from
 * the converged one on auto's 118 nodes (the robustness study), which is
 * said with rk4 or the nodes advised; rk4 is not warned about. */
START_TEST(euler_statics_warns) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  const char *bent = "bench good.ini --set time.duration=0.002 --set "
                     "space.nodes=auto --set rod.diameter=3e-3 --set "
                     "rod.density=1000 --set rod.youngs_modulus=4.70880e7 "
                     "--set 'tip.force=0 0 0.0208'";
  char cmd[400];
  snprintf(cmd, sizeof cmd, "%s --set space.integrator=euler", bent);
  int st = rodsim(cmd, err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_ptr_nonnull(strstr(err, "good.ini: space.integrator: warning: "
                                    "euler is first order"));
  st = rodsim(bent, err, sizeof err);
  ck_assert_msg(st == 0 && !strstr(err, "space.integrator"), "exit %d: %s", st,
                err);
}
END_TEST

/* A grid too coarse for the time step (k h = 1.2 at 0.2 ms with 20 nodes):
 * a warning naming the key, the time step and the nodes advised; at 2 ms
 * (k h = 0.37) auto's history is cubic Hermite, whose error grows as dt
 * shrinks on this grid: a warning that says so. */
START_TEST(coarse_grid_warns) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  int st = rodsim("bench good.ini --set space.nodes=20 --dt 2e-3,2e-4 --set "
                  "time.duration=2e-3",
                  err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_msg(count_lines(err) == 2, "%s", err);
  ck_assert_ptr_nonnull(
      strstr(err, "good.ini: space.nodes: warning: 20 nodes"));
  ck_assert_ptr_nonnull(strstr(err, "dt = 0.0002 s (k h = 1.2"));
  ck_assert_ptr_nonnull(strstr(err, "use about 75 nodes"));
  ck_assert_ptr_nonnull(
      strstr(err, "good.ini: space.history: warning: at k h = 0.37 (20 nodes"));
  /* the static state has no time step: neither warning */
  st = rodsim("static good.ini -o s.h5 --set space.nodes=20 --set "
              "time.dt=2e-4",
              err, sizeof err);
  ck_assert_msg(st == 0 && !strstr(err, "warning"), "exit %d: %s", st, err);
  /* a Runge-Kutta scheme's auto history is its stage records: no history
   * warning at k h = 0.54 (esdirk4's c0 = 4 / dt) */
  st = rodsim("bench good.ini --set space.nodes=20 --set time.scheme=esdirk4 "
              "--set time.duration=2e-3",
              err, sizeof err);
  ck_assert_msg(st == 0 && count_lines(err) == 0, "exit %d: %s", st, err);
  /* auto resolves both */
  st = rodsim("bench good.ini --set space.nodes=auto --dt 2e-3,2e-4 --set "
              "time.duration=2e-3",
              err, sizeof err);
  ck_assert_msg(st == 0 && count_lines(err) == 0, "exit %d: %s", st, err);
}
END_TEST

/* A run whose discretisation creates energy (the impulse on 40 Euler nodes
 * with alpha = -0.48, k h = 0.31) completes with three warnings: the grid
 * before the run, the energy's growth and the run's error estimate after
 * it, naming the settings. */
START_TEST(energy_growth_warns) {
  make_dir();
  char err[4096], args[1024];
  snprintf(args, sizeof args,
           "run %s/scenarios/impulse.ini --quiet -o grow.h5 --set "
           "space.integrator=euler --set space.nodes=40 --set "
           "time.duration=0.1",
           getenv("RODSIM_DATA"));
  int st = rodsim(args, err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  ck_assert_msg(count_lines(err) == 3, "%s", err);
  ck_assert_ptr_nonnull(strstr(err, "impulse.ini: space.nodes: warning: 40 "
                                    "nodes"));
  ck_assert_ptr_nonnull(strstr(err, "impulse.ini: time.dt: warning: the "
                                    "tip's error is estimated at"));
  ck_assert_ptr_nonnull(strstr(err, "impulse.ini: warning: with nothing "
                                    "working on the rod its energy grew"));
  ck_assert_ptr_nonnull(strstr(err, "space.integrator = euler, 40 nodes"));
}
END_TEST

/* A solver that cannot converge: exit 1, the converged samples kept, the status
 * says why and when, and nothing non-finite is written. */
START_TEST(failure_keeps_converged_steps) {
  make_dir();
  write_file("good.ini", good);
  char err[4096];
  /* a 100 kN strike at t = 6 ms that three iterations cannot follow */
  int st = rodsim("run good.ini --quiet -o fail.h5 --set impulse.peak=1e5 "
                  "--set impulse.start=0.004 --set impulse.position=0.15 "
                  "--set solver.max_iterations=3",
                  err, sizeof err);
  ck_assert_msg(st == 1, "exit %d: %s", st, err);
  ck_assert_int_eq(count_lines(err), 1);
  ck_assert_ptr_nonnull(strstr(err, "did not converge"));
  char path[512];
  snprintf(path, sizeof path, "%s/fail.h5", dir);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  char *text = rod_test_attr(f, "status");
  ck_assert_msg(strstr(text, "t = 0.006"), "status: %s", text);
  H5free_memory(text);
  hid_t d = H5Dopen2(f, "/time", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t T;
  H5Sget_simple_extent_dims(sp, &T, NULL);
  ck_assert_int_eq((int)T, 3); /* t = 0, 0.002, 0.004 */
  double times[3];
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times);
  ROD_ASSERT_NEAR(times[2], 0.004, 1e-15);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
}
END_TEST

/* A static state with a body between two grid nodes, which no node sees:
 * rod_on_table.ini's wire as a Kirchhoff rod on 20 nodes (42 mm apart)
 * over a bar of radius 0.2 mm between nodes 1 and 2, its top 6.5 um above
 * the chord of the two nodes' lowest fibres (half the rod's sag over the
 * interval): the chord passes through the bar. `static` and `run` refuse
 * the grid as bad input: exit 2, one line naming the file, space.nodes,
 * obstacle.bar and the node count that resolves it, and no file (before:
 * exit 1 through the static failure, the state written). */
START_TEST(thin_body_between_nodes_refused) {
  make_dir();
  write_file("sag.ini", "[rod]\nlength = 0.8\ndiameter = 1.42e-3\n"
                        "bending_stiffness = 0.03803\ndensity = 7621\n"
                        "[environment]\ngravity = 0 0 -9.81\n"
                        "[base]\nposition = 0 0 0.00271\ndirection = 1 0 0\n"
                        "[plane]\npoint = 0 0 0\nnormal = 0 0 1\n"
                        "[time]\ndt = 0.03\nduration = 0.06\n"
                        "[solver]\nbackend = kirchhoff\n[space]\nnodes = 20\n"
                        "[obstacle.bar]\nshape = capsule\n"
                        "center = 0.063225129 0 1.609247301e-03\naxis = 0 1 0\n"
                        "radius = 2e-4\nhalf_length = 0.05\n");
  expect_bad("static sag.ini -o s.h5",
             "sag.ini: space.nodes: ", "obstacle.bar between nodes 1 and 2");
  expect_bad("static sag.ini -o s.h5", "set space.nodes = 4001 or more", NULL);
  expect_bad("run sag.ini -o r.h5", "sag.ini: space.nodes: ", "obstacle.bar");
  char path[512];
  snprintf(path, sizeof path, "%s/s.h5", dir);
  ck_assert_msg(access(path, F_OK) != 0, "s.h5 written");
  snprintf(path, sizeof path, "%s/r.h5", dir);
  ck_assert_msg(access(path, F_OK) != 0, "r.h5 written");
}
END_TEST

/* Read dir/NAME into buf. */
static void read_file(const char *name, char *buf, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, size - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* run and bench print one real-time ratio: simulated time / wall time of
 * the whole run, the wall time they print beside it. run prints both to 3
 * digits (each within 0.5% of its value), bench to 6. */
START_TEST(realtime_ratio_is_simulated_over_wall) {
  make_dir();
  write_file("good.ini", good);
  char err[4096], out[4096];
  int st = rodsim("run good.ini --quiet -o out.h5", err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  read_file("stdout.txt", out, sizeof out);
  double t, wall, ratio;
  const char *p = strstr(out, "steps to t = ");
  ck_assert_msg(p && sscanf(p,
                            "steps to t = %lf s in %lf s (real-time ratio "
                            "%lf)",
                            &t, &wall, &ratio) == 3,
                "run printed: %s", out);
  ROD_ASSERT_NEAR(t, 0.01, 1e-12);
  ck_assert_msg(fabs(ratio - t / wall) <= 1e-2 * ratio,
                "ratio %g, t / wall = %g / %g = %g", ratio, t, wall, t / wall);
  st = rodsim("bench good.ini", err, sizeof err);
  ck_assert_msg(st == 0, "exit %d: %s", st, err);
  read_file("stdout.txt", out, sizeof out);
  double dt;
  int steps;
  p = strchr(out, '\n');
  ck_assert_msg(
      p && sscanf(p + 1, "%lf,%d,%lf,%lf", &dt, &steps, &wall, &ratio) == 4,
      "bench printed: %s", out);
  ck_assert_msg(fabs(ratio - steps * dt / wall) <= 1e-5 * ratio,
                "ratio %g, %d x %g / %g", ratio, steps, dt, wall);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("exit statuses");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, NULL, remove_dir);
  tcase_add_test(tc, bad_scenario_values);
  tcase_add_test(tc, bad_overrides);
  tcase_add_test(tc, bad_contact);
  tcase_add_test(tc, help_and_version);
  tcase_add_test(tc, set_and_output_override);
  tcase_add_test(tc, failure_keeps_converged_steps);
  tcase_add_test(tc, under_resolved_impulse_warns);
  tcase_add_test(tc, unit_slip_warns);
  tcase_add_test(tc, energy_growth_warns);
  tcase_add_test(tc, coarse_grid_warns);
  tcase_add_test(tc, coarse_time_step_warns);
  tcase_add_test(tc, chain_warnings);
  tcase_add_test(tc, euler_statics_warns);
  tcase_add_test(tc, realtime_ratio_is_simulated_over_wall);
  tcase_add_test(tc, thin_body_between_nodes_refused);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(cli_suite)
