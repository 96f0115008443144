/* Hostile input at scale: `rodsim run` on the weight release with one key
 * pushed to an extreme (nodes 1e5, duration 1e6 s, dt 1e-9 s, lengths
 * 1e-6 to 1e3 m, densities and moduli over 20 decades, and values no
 * double can carry through the model). Each case either runs (exit 0, or
 * 130 when this test interrupts a long run, its file saying so), stops
 * with a solver failure it names (exit 1, the steps before it kept), or is
 * refused before it starts (exit 2, one line naming the key and why);
 * it never crashes, never prints a NaN or an infinity, and never runs
 * longer than its time without the test's interrupt ending it. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "h5util.h"
#include "testutil.h"

static char dir[256];

static void setup(void) { rod_test_dir(dir, sizeof dir, "rodsim_scale"); }
static void teardown(void) { rod_test_rmdir(dir); }

/* A word of s that is a NaN or an infinity as printf writes them. */
static bool prints_non_finite(const char *s) {
  for (const char *p = s; *p; p++) {
    if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
      continue;
    const char *w = p + (*p == '-' || *p == '+');
    for (int k = 0; k < 2; k++) {
      const char *word = k ? "inf" : "nan";
      if (strncasecmp(w, word, 3) == 0 && !isalnum((unsigned char)w[3]))
        return true;
    }
  }
  return false;
}

/* `rodsim run weight_release.ini -o out.h5 --set A --set B ...` in dir for
 * set = "A B ...", sent SIGINT after `seconds` (and SIGKILL 60 s later: a
 * hang fails the test). */
static rod_cli_result run(const char *set, double seconds) {
  const char *data = getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data";
  char args[1024], copy[256];
  int n = snprintf(args, sizeof args,
                   "run '%s/scenarios/weight_release.ini' -o '%s/out.h5'", data,
                   dir);
  snprintf(copy, sizeof copy, "%s", set);
  for (char *a = strtok(copy, " "); a; a = strtok(NULL, " "))
    n += snprintf(args + n, sizeof args - (size_t)n, " --set '%s'", a);
  const char *rodsim = getenv("RODSIM");
  ck_assert_ptr_nonnull(rodsim);
  char cmd[4096], out[600], err[600];
  snprintf(out, sizeof out, "%s/stdout.txt", dir);
  snprintf(err, sizeof err, "%s/stderr.txt", dir);
  snprintf(cmd, sizeof cmd,
           "exec timeout --foreground --preserve-status -s INT -k 60 %g '%s' "
           "%s >'%s' "
           "2>'%s'",
           seconds, rodsim, args, out, err);
  /* --foreground: one SIGINT to rodsim, as one Ctrl-C; without it
   * timeout signals rodsim and then its whole process group, and the
   * second signal ends rodsim at once (as it should), silently */
  rod_cli_result r;
  int w = system(cmd);
  ck_assert_msg(WIFEXITED(w), "--set %s: killed by signal %d", set,
                WTERMSIG(w));
  r.status = WEXITSTATUS(w);
  rod_test_slurp(out, r.out, sizeof r.out);
  rod_test_slurp(err, r.err, sizeof r.err);
  ck_assert_msg(r.status <= 2 || r.status == 130, "--set %s: exit %d: %s", set,
                r.status, r.err);
  ck_assert_msg(!prints_non_finite(r.err) && !prints_non_finite(r.out),
                "--set %s: prints a non-finite number: %s%s", set, r.out,
                r.err);
  return r;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* The output file's status attribute holds `status`. */
static void expect_status(const char *set, const char *status) {
  char path[600];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "--set %s: no output file", set);
  char *s = rod_test_attr(f, "status");
  ck_assert_msg(strstr(s, status), "--set %s: status %s, expected %s", set, s,
                status);
  H5free_memory(s);
  H5Fclose(f);
}

/* Refused before the run: exit 2, one line naming key, no file. */
static void refused(const char *set, const char *key, const char *why) {
  rod_cli_result r = run(set, 20);
  ck_assert_msg(r.status == 2 && lines(r.err) == 1, "--set %s: exit %d: %s",
                set, r.status, r.err);
  ck_assert_msg(strstr(r.err, key) && strstr(r.err, why),
                "--set %s: expected %s and '%s': %s", set, key, why, r.err);
  char path[600];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  ck_assert_msg(access(path, F_OK) != 0, "--set %s: left a file", set);
}

/* Values no double carries through the model, and more steps than a run
 * counts (time.duration 1e300 s used to run no step and exit 0). */
START_TEST(refused_beyond_numbers) {
  refused("time.duration=1e300", "time.duration", "steps");
  refused("time.dt=1e-300", "time.duration", "steps");
  refused("rod.diameter=1e-200", "rod.diameter", "area");
  refused("rod.length=1e-300", "rod.length", "frequency");
  refused("rod.length=1e300", "rod.length", "frequency");
  refused("rod.density=1e-320", "rod.density", "mass per length");
  refused("rod.bending_stiffness=1e-300 rod.length=1e200", "rod.length",
          "frequency");
}
END_TEST

/* Runs that complete: a 1 um rod, densities and moduli at the ends of 20
 * decades (their warnings say the step cannot follow the first mode). */
START_TEST(runs_over_twenty_decades) {
  const char *sets[] = {"rod.length=1e-6", "rod.density=1e-10",
                        "rod.density=1e4", "rod.bending_stiffness=1e8"};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
    rod_cli_result r = run(sets[i], 30);
    ck_assert_msg(r.status == 0 || r.status == 1, "--set %s: exit %d: %s",
                  sets[i], r.status, r.err);
    if (r.status == 0)
      expect_status(sets[i], "complete");
  }
}
END_TEST

/* A run interrupted at 1 s (the limit a slow machine may need): while the
 * run is set up or during the static solve the process ends at once and
 * leaves no file, which would hold no sample; after it, the step in progress is
 * finished and the file says interrupted. */
static void interrupted(const char *set, const rod_cli_result *r) {
  ck_assert_msg(strstr(r->err, "interrupted"), "--set %s: %s", set, r->err);
  char path[600];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  if (strstr(r->err, "during the static solve") ||
      strstr(r->err, "before the run started"))
    ck_assert_msg(access(path, F_OK) != 0, "--set %s: file kept", set);
  else
    expect_status(set, "interrupted");
}

/* A step or a static state the solver cannot find: exit 1, a line saying
 * so and how many samples the file keeps, its status naming the failure. */
START_TEST(solver_failures_are_reported) {
  const char *sets[] = {"time.dt=1e-9", "rod.density=1e20"};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
    rod_cli_result r = run(sets[i], 30);
    ck_assert_msg(r.status == 1 || r.status == 130, "--set %s: exit %d: %s",
                  sets[i], r.status, r.err);
    if (r.status == 130) {
      interrupted(sets[i], &r);
      continue;
    }
    ck_assert_msg(strstr(r.err, "did not converge") &&
                      strstr(r.err, "samples kept"),
                  "--set %s: %s", sets[i], r.err);
    expect_status(sets[i], "did not converge");
  }
}
END_TEST

/* A rod a million times too soft to hold the weight, whose static solve
 * searched for 16 s and could not be interrupted: SIGINT after 1 s ends
 * it at once (exit 130, one line, no file). */
START_TEST(static_solve_interrupted) {
  const char *set = "rod.bending_stiffness=1e-12";
  rod_cli_result r = run(set, 1);
  ck_assert_msg(r.status == 130, "exit %d: %s", r.status, r.err);
  interrupted(set, &r);
}
END_TEST

/* A million seconds: a line on the file's size (output.every = auto
 * thins the samples, a given output.every warns above 1 GB), then the run,
 * interrupted here after 2 s (exit 130). */
START_TEST(a_million_seconds) {
  rod_cli_result r = run("time.duration=1e6", 2);
  ck_assert_msg(r.status == 130, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.err, "output.every") || strstr(r.err, "GB"), "%s",
                r.err);
  interrupted("time.duration=1e6", &r);
}
END_TEST

/* 1e5 nodes: the static state and the first steps of a 6 ms run,
 * interrupted after 10 s if it has not finished. */
START_TEST(a_hundred_thousand_nodes) {
  const char *set = "space.nodes=100000 time.duration=6e-3";
  rod_cli_result r = run(set, 10);
  ck_assert_msg(r.status == 0 || r.status == 130, "exit %d: %s", r.status,
                r.err);
  if (r.status == 0)
    expect_status(set, "complete");
  else
    interrupted(set, &r);
}
END_TEST

static Suite *scale_suite(void) {
  Suite *s = suite_create("scale");
  TCase *tc = tcase_create("hostile");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 200);
  tcase_add_test(tc, refused_beyond_numbers);
  tcase_add_test(tc, runs_over_twenty_decades);
  tcase_add_test(tc, solver_failures_are_reported);
  tcase_add_test(tc, static_solve_interrupted);
  tcase_add_test(tc, a_million_seconds);
  tcase_add_test(tc, a_hundred_thousand_nodes);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(scale_suite)
