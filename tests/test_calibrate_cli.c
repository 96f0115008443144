/* Calibration's input (docs/commands.md, docs/files.md): the keys and the
 * data a fit refuses, and `rodsim calibrate`'s output (the fitted
 * scenario, a shape file as data), exit statuses and Ctrl-C (the best point
 * so far written). */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "calibrateutil.h"
#include "config.h"

/* ---- keys and bad input -------------------------------------------------*/

START_TEST(keys_are_checked) {
  rod_calib_options o = rod_calib_default_options();
  rod_error err;
  ck_assert_int_eq(rod_calib_set_keys(&o, " rod.drag , density", "s.ini", &err),
                   ROD_OK);
  ck_assert_int_eq(o.nkeys, 2);
  ck_assert_str_eq(o.keys[0], "drag");
  ck_assert_str_eq(o.keys[1], "density");
  const char *bad[][3] = {
      {"stiffness", "rod.stiffness", "unknown [rod] key"},
      {"model", "rod.model", "not a number"},
      {"time.dt", "time.dt", "only [rod] keys"},
      {"drag,drag", "rod.drag", "twice"},
      {"drag,", "", "comma-separated"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ck_assert_int_eq(rod_calib_set_keys(&o, bad[k][0], "s.ini", &err),
                     ROD_EINVAL);
    ck_assert_str_eq(err.file, "s.ini");
    ck_assert_str_eq(err.key, bad[k][1]);
    ck_assert_msg(strstr(err.message, bad[k][2]), "%s: %s", bad[k][0],
                  err.message);
  }
}
END_TEST

START_TEST(unusable_input_is_rejected) {
  rod_scenario sc = test_rod(0.1), fitted;
  rod_calib_options o = rod_calib_default_options();
  rod_calib_result r;
  rod_error err;
  /* a key at 0 without a prior cannot start in log space */
  rod_tip_data *d = rod_tip_data_alloc(5);
  for (int i = 0; i < 5; i++) {
    d->t[i] = 1e-3 * i;
    d->xyz[3 * i] = 0.4;
  }
  d->has[0] = true;
  ck_assert_int_eq(rod_calib_set_keys(&o, "bending_damping", "t", &err),
                   ROD_OK);
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.key, "rod.bending_damping");
  /* 5 residuals for 3 parameters are enough; 3 are not */
  o = rod_calib_default_options();
  d->n = 3;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.file, "d.csv");
  ck_assert_ptr_nonnull(strstr(err.message, "too few"));
  /* no coordinate; features without z */
  d->has[0] = false;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "no x, y or z"));
  d->has[0] = true;
  o.objective = ROD_CALIB_FEATURES;
  ck_assert_int_eq(rod_calib_fit(&sc, d, "d.csv", &o, &fitted, &r, &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "z column"));
  rod_tip_data_free(d);
}
END_TEST

/* ---- rodsim calibrate ---------------------------------------------------*/

static char cli_dir[64];

static const char *in_dir(const char *name) {
  static char path[2][256];
  static int which;
  which ^= 1;
  snprintf(path[which], sizeof path[which], "%s/%s", cli_dir, name);
  return path[which];
}

static void write_text(const char *name, const char *text) {
  FILE *f = fopen(in_dir(name), "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static char *read_text(const char *name) {
  static char text[65536];
  FILE *f = fopen(in_dir(name), "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f)
    fclose(f);
  return text;
}

/* A 0.2 s weight release (rod.ini) and its tip at 1 kHz with 0.1 mm of
 * noise (tip.csv) in a fresh directory. */
static void cli_setup(void) {
  snprintf(cli_dir, sizeof cli_dir, "/tmp/rodsim-calibrate-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(cli_dir));
  rod_scenario sc = test_rod(0.2);
  char ini[8192];
  rod_scenario_to_ini(&sc, ini, sizeof ini);
  write_text("rod.ini", ini);
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&sc, 1000, 1e-4, 3, XZ, &d, &err),
                   ROD_OK);
  ck_assert_int_eq(rod_tip_write(in_dir("tip.csv"), d, &err), ROD_OK);
  rod_tip_data_free(d);
}

/* Every file the command-line tests write. */
static const char *const cli_files[] = {
    "rod.ini",    "tip.csv",  "fitted.ini",  "out.txt",
    "err.txt",    "few.csv",  "letters.csv", "no_t.csv",
    "no_xyz.csv", "shape.h5", "flagged.csv", "light.csv"};

static void cli_teardown(void) {
  rod_test_rmdir(in_dir("fitted_ensemble"));
  rod_test_rmdir(in_dir("one_ensemble"));
  rod_test_rmdir(in_dir("ranks_ensemble"));
  remove(in_dir("one.ini"));
  remove(in_dir("ranks.ini"));
  for (size_t i = 0; i < sizeof cli_files / sizeof cli_files[0]; i++)
    remove(in_dir(cli_files[i]));
  rmdir(cli_dir);
}

/* Run "rodsim calibrate ARGS" in the directory; the exit status, stderr in
 * err.txt and stdout in out.txt. */
static int calibrate(const char *args) {
  const char *exe = getenv("RODSIM");
  ck_assert_msg(exe != NULL, "RODSIM not set");
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd %s && %s calibrate %s >out.txt 2>err.txt",
           cli_dir, exe, args);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Exit `status` with exactly one line on stderr holding both needles. */
static void expect_failure(int status, const char *args, const char *needle1,
                           const char *needle2) {
  int st = calibrate(args);
  const char *err = read_text("err.txt");
  ck_assert_msg(st == status, "'%s': exit %d, expected %d: %s", args, st,
                status, err);
  const char *nl = strchr(err, '\n');
  ck_assert_msg(nl && !nl[1], "'%s': not one line: %s", args, err);
  ck_assert_msg(strncmp(err, "rodsim: ", 8) == 0, "'%s': %s", args, err);
  ck_assert_msg(strstr(err, needle1) && (!needle2 || strstr(err, needle2)),
                "'%s': no '%s' / '%s' in: %s", args, needle1,
                needle2 ? needle2 : "", err);
}

/* A shape file as --data: the shape objective by default, flagged frames
 * left out and counted; the trajectory objective on its tips; and the
 * tip CSV's valid column. */
START_TEST(cli_fits_a_shape_file) {
  rod_scenario sc = test_rod(0.2);
  rod_shape_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize_shape(&sc, 500, 8, 1e-4, 5, &d, &err),
                   ROD_OK);
  d->valid[4] = d->valid[40] = 0;
  d->xz[2 * 8 * 4 + 15] += 0.1;
  ck_assert_int_eq(rod_shape_write(in_dir("shape.h5"), d, "test", NULL, &err),
                   ROD_OK);
  rod_tip_data *tip = rod_shape_tip(d);
  ck_assert_int_eq(rod_tip_write(in_dir("flagged.csv"), tip, &err), ROD_OK);
  rod_tip_data_free(tip);
  rod_shape_free(d);
  const char *args[] = {
      "rod.ini --data shape.h5 --fit bending_stiffness "
      "--set rod.bending_stiffness=0.04",
      "rod.ini --data shape.h5 --fit bending_stiffness --objective trajectory",
      "rod.ini --data flagged.csv --fit bending_stiffness"};
  const char *objective[] = {"shape objective", "trajectory objective",
                             "trajectory objective"};
  const char *left_out[] = {"2 flagged frames", "2 flagged frames",
                            "2 flagged samples"};
  for (int k = 0; k < 3; k++) {
    int st = calibrate(args[k]);
    const char *summary = read_text("err.txt");
    ck_assert_msg(st == 0, "%s: exit %d: %s", args[k], st, summary);
    ck_assert_msg(strstr(summary, objective[k]) && strstr(summary, left_out[k]),
                  "%s: %s", args[k], summary);
    const char *fit = strstr(read_text("out.txt"), "\n[fit]\n");
    ck_assert_ptr_nonnull(fit);
    ck_assert(k > 0 || strstr(fit, "shape objective"));
  }
  expect_failure(2, "rod.ini --data tip.csv --objective shape",
                 "--objective: shape needs a shape file", NULL);
}
END_TEST

/* The fitted scenario: the input with the fitted [rod] values, readable by
 * every command (the loader skips [fit]), and the [fit] section of
 * docs/files.md with one standard error per key. */
START_TEST(cli_writes_the_fitted_scenario) {
  int st = calibrate("rod.ini --data tip.csv --fit bending_stiffness,drag "
                     "--set rod.bending_stiffness=0.042 -o fitted.ini");
  ck_assert_msg(st == 0, "exit %d: %s", st, read_text("err.txt"));
  const char *summary = read_text("err.txt");
  ck_assert_ptr_nonnull(strstr(summary, "bending_stiffness"));
  ck_assert_ptr_nonnull(strstr(summary, "simulations"));
  rod_scenario fitted, truth = test_rod(0.2);
  rod_error err;
  rod_scenario_default(&fitted);
  ck_assert_int_eq(rod_scenario_load(&fitted, in_dir("fitted.ini"), &err),
                   ROD_OK);
  ROD_ASSERT_NEAR(fitted.rod.bending_stiffness, truth.rod.bending_stiffness,
                  1e-3 * truth.rod.bending_stiffness);
  ck_assert_double_eq(fitted.rod.density, truth.rod.density);
  ck_assert_int_eq(fitted.space.nodes, 30);
  const char *text = read_text("fitted.ini");
  const char *fit = strstr(text, "\n[fit]\n");
  ck_assert_ptr_nonnull(fit);
  ck_assert_ptr_nonnull(strstr(fit, "\nkeys = bending_stiffness,drag\n"));
  double se[3], rms;
  int iterations, simulations, consumed = 0;
  const char *p = strstr(fit, "\nstd_error = ");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(
      sscanf(p, "\nstd_error = %lf %lf%n", &se[0], &se[1], &consumed), 2);
  ck_assert(p[consumed] == '\n'); /* exactly one per key */
  ck_assert(se[0] > 0 && se[0] < 1e-3 * truth.rod.bending_stiffness);
  /* where the fit started: the --set value, to the 10 digits written */
  double start[2];
  p = strstr(fit, "\nstart = ");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(
      sscanf(p, "\nstart = %lf %lf%n", &start[0], &start[1], &consumed), 2);
  ck_assert(p[consumed] == '\n');
  ck_assert_double_eq(start[0], 0.042);
  ck_assert(start[1] > 0);
  ck_assert_int_eq(
      sscanf(strstr(fit, "\nrms_residual = "), "\nrms_residual = %lf", &rms),
      1);
  ROD_ASSERT_NEAR(rms, 1e-4, 1e-5);
  ck_assert_int_eq(
      sscanf(strstr(fit, "\niterations = "), "\niterations = %d", &iterations),
      1);
  ck_assert_int_eq(sscanf(strstr(fit, "\nsimulations = "), "\nsimulations = %d",
                          &simulations),
                   1);
  ck_assert(iterations >= 1 && simulations >= 3 + iterations);
  /* without -o: the scenario on stdout; --quiet: nothing on stderr */
  ck_assert_int_eq(calibrate("rod.ini --data tip.csv --fit drag --quiet"), 0);
  ck_assert_str_eq(read_text("err.txt"), "");
  ck_assert_ptr_nonnull(strstr(read_text("out.txt"), "\nkeys = drag\n"));
}
END_TEST

START_TEST(cli_bad_input_exits_2) {
  write_text("letters.csv", "t,z\n0,0.1\n# comment\n0.001,abc\n");
  write_text("no_t.csv", "x,z\n0.4,0.1\n");
  write_text("no_xyz.csv", "t\n0\n0.001\n");
  write_text("few.csv", "t,z\n0,-0.1\n0.001,-0.1\n");
  expect_failure(2, "rod.ini --data tip.csv --fit stiffness", "rod.ini",
                 "rod.stiffness: unknown [rod] key");
  expect_failure(2, "rod.ini --data tip.csv --fit model", "rod.model",
                 "not a number");
  expect_failure(2, "rod.ini --data tip.csv --fit time.dt", "time.dt",
                 "only [rod] keys");
  expect_failure(2, "rod.ini --data missing.csv", "missing.csv", "cannot open");
  expect_failure(2, "rod.ini --data letters.csv", "letters.csv: line 4",
                 "not a number");
  expect_failure(2, "rod.ini --data no_t.csv", "no_t.csv", "'t'");
  expect_failure(2, "rod.ini --data no_xyz.csv", "no_xyz.csv", "no x, y or z");
  expect_failure(2, "rod.ini --data few.csv", "few.csv", "too few");
  expect_failure(2, "rod.ini --data tip.csv --objective best", "--objective",
                 "trajectory, features or shape");
  expect_failure(2, "rod.ini --data tip.csv --set rod.drag=-1", "rod.drag",
                 ">= 0");
  expect_failure(2, "rod.ini", "--data", NULL);
  expect_failure(2, "rod.ini --data tip.csv --fit bending_damping",
                 "rod.bending_damping", "positive start value");
}
END_TEST

/* Two data sets at once: the rod with its 20 g weight (tip.csv) and with
 * 10 g (light.csv, its --set in its --experiment group), each set's noise
 * and rms residual said and written, the first set's scenario fitted;
 * the same data as two --data on one scenario need the same tip mass, so
 * the group's --set is what makes the second fit right. Bad input: one
 * line, exit 2. */
START_TEST(cli_fits_several_data_sets) {
  rod_scenario sc = test_rod(0.2);
  sc.tip.mass = 0.01;
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(rod_calib_synthesize(&sc, 1000, 1e-4, 4, XZ, &d, &err),
                   ROD_OK);
  ck_assert_int_eq(rod_tip_write(in_dir("light.csv"), d, &err), ROD_OK);
  rod_tip_data_free(d);
  int st = calibrate("--experiment rod.ini --data tip.csv --experiment "
                     "rod.ini --data light.csv --set tip.mass=0.01 -o "
                     "fitted.ini");
  const char *err_text = read_text("err.txt");
  ck_assert_msg(st == 0, "exit %d: %s", st, err_text);
  ck_assert_ptr_nonnull(strstr(err_text, "3 keys to 2 data sets at once"));
  ck_assert_ptr_nonnull(strstr(err_text, "set 2: light.csv: 402 residuals"));
  const char *fit = strstr(read_text("fitted.ini"), "\n[fit]\n");
  ck_assert_ptr_nonnull(fit);
  ck_assert_ptr_nonnull(strstr(fit, "804 residuals of several data sets"));
  ck_assert_ptr_nonnull(strstr(fit, "\nnoise = "));
  ck_assert_ptr_nonnull(strstr(fit, "\ndata_2 = light.csv ; rod.ini\n"));
  rod_scenario fitted;
  rod_scenario_default(&fitted);
  ck_assert_int_eq(rod_scenario_load(&fitted, in_dir("fitted.ini"), &err),
                   ROD_OK);
  ck_assert_double_eq(fitted.tip.mass, 0.02); /* the first set's scenario */
  expect_failure(2, "--experiment rod.ini --data tip.csv --experiment rod.ini",
                 "--experiment rod.ini", "missing --data");
  expect_failure(2, "--experiment rod.ini --data tip.csv --data light.csv",
                 "--experiment rod.ini: a second --data (light.csv)", NULL);
  expect_failure(2, "rod.ini --experiment rod.ini --data tip.csv", "rod.ini",
                 "not both");
  expect_failure(2,
                 "--experiment rod.ini --data tip.csv --experiment rod.ini "
                 "--data light.csv --set tip.mass=-1",
                 "tip.mass", NULL);
  expect_failure(2, "rod.ini --data tip.csv --data missing.csv", "missing.csv",
                 "cannot open");
}
END_TEST

/* --ensemble: 6 draws from the fit's covariance run as a sweep in
 * fitted_ensemble (its index and case files), the band written into the
 * [fit] section; the same command again continues the sweep (no case run
 * again) and writes the same file. Bad input: exit 2, one line. */
START_TEST(cli_runs_an_ensemble) {
  const char *args = "rod.ini --data tip.csv -o fitted.ini --ensemble 6 "
                     "--seed 3 --threads 2";
  int st = calibrate(args);
  const char *err_text = read_text("err.txt");
  ck_assert_msg(st == 0, "exit %d: %s", st, err_text);
  ck_assert_msg(strstr(err_text, "ensemble: 6 draws (seed 3) in "
                                 "fitted_ensemble: 6 complete (6 run now), 0 "
                                 "left out"),
                "%s", err_text);
  static char first[65536];
  snprintf(first, sizeof first, "%s", read_text("fitted.ini"));
  const char *fit = strstr(first, "\n[fit]\n");
  ck_assert_ptr_nonnull(fit);
  ck_assert_ptr_nonnull(strstr(fit,
                               "\nensemble_1 = 6 draws, seed 3, 6 complete ; "
                               "fitted_ensemble\n"));
  ck_assert_ptr_nonnull(strstr(fit, "\nband_1_columns = t x_mean"));
  ck_assert_ptr_nonnull(strstr(fit, "\nband_1.00000 = 0 "));
  FILE *index = fopen(in_dir("fitted_ensemble/index.h5"), "rb");
  ck_assert_ptr_nonnull(index);
  fclose(index);
  st = calibrate(args);
  ck_assert_msg(st == 0, "again: exit %d: %s", st, read_text("err.txt"));
  ck_assert_ptr_nonnull(strstr(read_text("err.txt"), "6 complete (0 run now)"));
  ck_assert_str_eq(read_text("fitted.ini"), first);
  expect_failure(2, "rod.ini --data tip.csv --ensemble 1", "--ensemble",
                 "from 2");
  expect_failure(2, "rod.ini --data tip.csv --seed 3", "--seed",
                 "only with --ensemble");
}
END_TEST

/* The text of a fitted scenario without the lines that may differ with
 * the pool (the simulations run ahead, the ensemble's folder). */
static void stable_lines(const char *name, char *out, size_t size) {
  const char *text = read_text(name);
  size_t n = 0;
  out[0] = '\0';
  for (const char *p = text; *p && n + 1 < size;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
    if (strncmp(p, "simulations =", 13) != 0 &&
        strncmp(p, "ensemble_", 9) != 0 && n + len < size) {
      memcpy(out + n, p, len);
      n += len;
      out[n] = '\0';
    }
    p += len;
  }
}

/* Under mpirun the simulations of the fit and the ensemble's cases go to
 * every rank: the same values, errors and band as one thread. */
START_TEST(cli_mpi_ranks_equal_one_thread) {
  if (!ROD_HAVE_MPI || system("command -v mpirun >/dev/null") != 0)
    return; /* built without MPI */
  const char *args = "rod.ini --data tip.csv --ensemble 4 --fit "
                     "bending_stiffness,density";
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "%s -o one.ini --threads 1", args);
  int st = calibrate(cmd);
  ck_assert_msg(st == 0, "exit %d: %s", st, read_text("err.txt"));
  const char *exe = getenv("RODSIM");
  char asan[600] = "";
  if (getenv("ASAN_OPTIONS"))
    snprintf(asan, sizeof asan, "ASAN_OPTIONS='%s:detect_leaks=0' ",
             getenv("ASAN_OPTIONS"));
  snprintf(cmd, sizeof cmd,
           "cd %s && %smpirun --allow-run-as-root --oversubscribe -n 3 '%s' "
           "calibrate %s -o ranks.ini >out.txt 2>err.txt",
           cli_dir, asan, exe, args);
  int w = system(cmd);
  ck_assert_msg(WIFEXITED(w) && WEXITSTATUS(w) == 0, "mpirun: %s",
                read_text("err.txt"));
  ck_assert_msg(strstr(read_text("err.txt"), "on 3 ranks"), "%s",
                read_text("err.txt"));
  static char one[65536], ranks[65536];
  stable_lines("one.ini", one, sizeof one);
  stable_lines("ranks.ini", ranks, sizeof ranks);
  ck_assert_ptr_nonnull(strstr(one, "\nband_1.00000 = "));
  ck_assert_str_eq(one, ranks);
}
END_TEST

/* A simulation that cannot converge at the start: exit 1, one line with
 * the parameter values and the simulation's reason. */
START_TEST(cli_simulation_failure_exits_1) {
  expect_failure(1, "rod.ini --data tip.csv --set solver.max_iterations=1",
                 "simulation failed at bending_stiffness=", "did not converge");
}
END_TEST

/* Ctrl-C during a fit: rodsim stops within a time step and writes the best
 * point simulated so far, its [fit] section marked interrupted and not
 * converged, and exits 130. The fit (1000 steps a simulation, started
 * off the truth) takes seconds; the signal goes once its first point is
 * reported (a progress line each report: RODSIM_PROGRESS_INTERVAL = 0). */
START_TEST(cli_interrupt_writes_the_best_point) {
  const char *exe = getenv("RODSIM");
  ck_assert_msg(exe != NULL, "RODSIM not set");
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (chdir(cli_dir) != 0 || !freopen("out.txt", "w", stdout) ||
        !freopen("err.txt", "w", stderr))
      _exit(127);
    setenv("RODSIM_PROGRESS_INTERVAL", "0", 1);
    execl(exe, exe, "calibrate", "rod.ini", "--data", "tip.csv", "--threads",
          "1", "--set", "time.dt=2e-4", "--set", "rod.bending_stiffness=0.05",
          "-o", "fitted.ini", (char *)NULL);
    _exit(127);
  }
  /* the first point reported (at most 30 s on a loaded machine) */
  for (int k = 0; k < 3000 && !strstr(read_text("err.txt"), "simulations, rms");
       k++)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  ck_assert_ptr_nonnull(strstr(read_text("err.txt"), "simulations, rms"));
  kill(pid, SIGINT);
  int w;
  ck_assert_int_eq(waitpid(pid, &w, 0), pid);
  const char *err = read_text("err.txt");
  ck_assert_msg(WIFEXITED(w) && WEXITSTATUS(w) == 130, "status %d: %s", w, err);
  ck_assert_msg(strstr(err, "interrupted (SIGINT)") &&
                    strstr(err, "the best point so far is written, not "
                                "converged"),
                "%s", err);
  ck_assert_ptr_null(strchr(err, '\r')); /* a pipe: plain lines */
  const char *fit = strstr(read_text("fitted.ini"), "\n[fit]\n");
  ck_assert_ptr_nonnull(fit);
  ck_assert_ptr_nonnull(strstr(fit, "(interrupted, not converged)"));
  ck_assert_ptr_nonnull(strstr(fit, "\nstd_error = inf inf inf\n"));
  /* a scenario every command reads, its values positive */
  rod_scenario fitted;
  rod_error e;
  rod_scenario_default(&fitted);
  ck_assert_int_eq(rod_scenario_load(&fitted, in_dir("fitted.ini"), &e),
                   ROD_OK);
  ck_assert(fitted.rod.bending_stiffness > 0 && fitted.rod.density > 0 &&
            fitted.rod.drag > 0);
}
END_TEST

static Suite *calibrate_cli_suite(void) {
  Suite *s = suite_create("calibrate_cli");
  TCase *tc = tcase_create("input");
  tcase_add_test(tc, keys_are_checked);
  tcase_add_test(tc, unusable_input_is_rejected);
  suite_add_tcase(s, tc);
  tc = tcase_create("command line");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, cli_setup, cli_teardown);
  tcase_add_test(tc, cli_writes_the_fitted_scenario);
  tcase_add_test(tc, cli_fits_a_shape_file);
  tcase_add_test(tc, cli_bad_input_exits_2);
  tcase_add_test(tc, cli_fits_several_data_sets);
  tcase_add_test(tc, cli_runs_an_ensemble);
  tcase_add_test(tc, cli_mpi_ranks_equal_one_thread);
  tcase_add_test(tc, cli_simulation_failure_exits_1);
  tcase_add_test(tc, cli_interrupt_writes_the_best_point);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(calibrate_cli_suite)
