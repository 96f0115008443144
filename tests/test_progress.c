/* What long work tells while it runs (docs/commands.md, Progress): a run
 * estimated to take more than 10 minutes says so once, with the estimate
 * and the setting that makes its cost, also when stderr is a pipe; in a
 * pipe a plain line now and then and no carriage return; on a terminal
 * the line rewritten in place by run, bench and compare alike; a sweep
 * counts its cases the same way. */
#include <pty.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char dir[256];

static void make_dir(void) { rod_test_dir(dir, sizeof dir, "rodsim_progress"); }
static void remove_dir(void) { rod_test_rmdir(dir); }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void nap(void) { nanosleep(&(struct timespec){0, 20000000}, NULL); }

/* The weight release at a 12-hour cost (weight_release.ini's 1 s on 49
 * nodes takes about 0.1 s): 6e7 steps of 400 nodes. */
#define LONG_SETTINGS                                                          \
  "--set time.dt=1e-5 --set time.duration=600 --set space.nodes=400"

/* Start "rodsim ARGS" in dir with stderr into err.txt (a pipe's
 * behaviour: not a terminal) and stdout into out.txt, a plain progress
 * line every `interval` s. Returns the pid. */
static pid_t start(const char *args, const char *interval) {
  const char *exe = getenv("RODSIM"), *data = getenv("RODSIM_DATA");
  ck_assert_msg(exe && data, "RODSIM or RODSIM_DATA not set");
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && RODSIM_PROGRESS_INTERVAL=%s exec '%s' %s "
           ">out.txt 2>err.txt",
           dir, interval, exe, args);
  for (char *p; (p = strstr(cmd, "DATA/"));) { /* DATA/ -> the data folder */
    char rest[2048];
    snprintf(rest, sizeof rest, "%s/%s", data, p + 5);
    snprintf(p, sizeof cmd - (size_t)(p - cmd), "%s", rest);
  }
  char path[512]; /* a previous command's stderr gone */
  snprintf(path, sizeof path, "%s/err.txt", dir);
  remove(path);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static const char *err_text(void) {
  static char text[65536];
  char path[512];
  snprintf(path, sizeof path, "%s/err.txt", dir);
  rod_test_slurp(path, text, sizeof text);
  return text;
}

static int occurrences(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* Wait until stderr holds `count` of needle, at most 60 s (a loaded
 * machine). */
static void wait_for(const char *needle, int count) {
  const double until = now() + 60;
  while (occurrences(err_text(), needle) < count && now() < until)
    nap();
  ck_assert_msg(occurrences(err_text(), needle) >= count,
                "no %d x '%s' within 60 s: %.2000s", count, needle, err_text());
}

static void stop(pid_t pid) {
  kill(pid, SIGKILL);
  int w;
  ck_assert_int_eq(waitpid(pid, &w, 0), pid);
}

/* The warning's estimate in seconds ("about 20 h: ..."). */
static double estimate(const char *text) {
  const char *p = strstr(text, " will take about ");
  ck_assert_ptr_nonnull(p);
  double v;
  char unit[8];
  ck_assert_int_eq(sscanf(p, " will take about %lf %7s", &v, unit), 2);
  return v * (strncmp(unit, "days", 4) == 0  ? 86400
              : strncmp(unit, "h", 1) == 0   ? 3600
              : strncmp(unit, "min", 3) == 0 ? 60
                                             : 1);
}

/* The 12-hour run in a pipe: the cost warning from its first seconds,
 * once, naming the step, the duration and the nodes; plain progress lines
 * (here every 0.3 s); no carriage return anywhere. */
START_TEST(long_run_says_so_in_a_pipe) {
  make_dir();
  pid_t pid = start(
      "run DATA/scenarios/weight_release.ini " LONG_SETTINGS " -o o.h5", "0.3");
  wait_for("warning: this run will take about", 1);
  wait_for("about", 4); /* the warning and three progress lines */
  stop(pid);
  const char *err = err_text();
  ck_assert_int_eq(occurrences(err, "will take about"), 1);
  /* over 10 minutes (the threshold; the machine sets how far over) */
  ck_assert_msg(estimate(err) > 600, "%s", err);
  ck_assert_msg(strstr(err, "time.dt = 1e-05 s over time.duration = 600 s") &&
                    strstr(err, "on 400 nodes"),
                "%s", err);
  ck_assert_msg(strstr(err, "weight_release.ini: t = "), "%s", err);
  ck_assert_ptr_null(strchr(err, '\r'));
  ck_assert_ptr_null(strchr(err, '\033'));
}
END_TEST

/* bench and compare say it too, naming which of their runs it is. */
START_TEST(long_bench_and_compare_say_so) {
  make_dir();
  pid_t pid = start("bench DATA/scenarios/weight_release.ini " LONG_SETTINGS
                    " --dt 1e-5",
                    "1000");
  wait_for("will take about", 1);
  stop(pid);
  ck_assert_msg(strstr(err_text(), "(bench, dt = 1e-05 s) will take about"),
                "%s", err_text());
  ck_assert_ptr_null(strchr(err_text(), '\r'));
  /* compare records every output.every-th step of its runs: 6e5 samples
   * here, not 6e7 (of 72 bytes each) */
  pid = start("compare DATA/scenarios/weight_release.ini " LONG_SETTINGS
              " --set output.every=100 --segments 4",
              "1000");
  wait_for("will take about", 1);
  stop(pid);
  ck_assert_msg(strstr(err_text(), "(compare, the Kirchhoff rod) will take"),
                "%s", err_text());
  ck_assert_ptr_null(strchr(err_text(), '\r'));
}
END_TEST

/* A sweep whose cases add up to more than 10 minutes, in a pipe: the
 * warning once, from its first cases, naming the count and a case's
 * cost; plain lines with the cases run of those to run and the time
 * left; no carriage return. 2000 cases of the weight release over 100 s
 * on one thread: a case takes over a second on any machine (the solver
 * alone runs about 100 times faster than real time), so the sweep takes
 * over half an hour; every 100th step written. */
START_TEST(long_sweep_says_so_in_a_pipe) {
  make_dir();
  pid_t pid =
      start("sweep DATA/scenarios/weight_release.ini -o sweep "
            "--threads 1 --set time.duration=100 --set output.every=100 "
            "--vary rod.length=0.29:0.31:2000",
            "0.3");
  wait_for("will take about", 1);
  wait_for(" left", 2);
  stop(pid);
  const char *err = err_text();
  ck_assert_int_eq(occurrences(err, "will take about"), 1);
  ck_assert_msg(strstr(err, "warning: the 2000 cases will take about"),
                "%.2000s", err);
  ck_assert_msg(estimate(err) > 600, "%.2000s", err);
  ck_assert_msg(strstr(err, " a case so far, over the first "), "%.2000s", err);
  ck_assert_msg(strstr(err, "/ 2000 cases, about "), "%.2000s", err);
  ck_assert_ptr_null(strchr(err, '\r'));
  ck_assert_ptr_null(strchr(err, '\033'));
}
END_TEST

/* On a terminal: the line rewritten in place ("\r" ... erase to the end of
 * the line) by bench and compare, as by run. */
START_TEST(terminal_line_on_bench_and_compare) {
  const char *exe = getenv("RODSIM"), *data = getenv("RODSIM_DATA");
  ck_assert_msg(exe && data, "RODSIM or RODSIM_DATA not set");
  char ini[512];
  snprintf(ini, sizeof ini, "%s/scenarios/weight_release.ini", data);
  const char *cmds[2] = {"bench", "compare"};
  const char *labels[2] = {"\rrodsim: bench, dt = 0.0005 s: t = ",
                           "\rrodsim: compare, the Kirchhoff rod: t = "};
  for (int k = 0; k < 2; k++) {
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, NULL);
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      /* long enough for a few reports (one each 0.2 s of wall time, the
       * first only starts the estimate): 12 s of the weight release at
       * 0.5 ms take about 1 s (3 s took 0.2 to 0.3 s on an idle machine,
       * too short for a second report) */
      if (k == 0)
        execl(exe, exe, "bench", ini, "--dt", "5e-4", "--set",
              "time.duration=12", (char *)NULL);
      else
        execl(exe, exe, "compare", ini, "--segments", "4", "--set",
              "time.duration=12", "--set", "time.dt=5e-4", (char *)NULL);
      _exit(127);
    }
    static char text[1 << 16];
    size_t n = 0;
    ssize_t r;
    while (n + 1 < sizeof text &&
           (r = read(fd, text + n, sizeof text - 1 - n)) > 0)
      n += (size_t)r;
    text[n] = '\0';
    close(fd);
    int w;
    ck_assert_int_eq(waitpid(pid, &w, 0), pid);
    ck_assert_msg(WIFEXITED(w) && WEXITSTATUS(w) == 0, "%s: %s", cmds[k], text);
    ck_assert_msg(strstr(text, labels[k]) && strstr(text, "ETA"), "%s: %s",
                  cmds[k], text);
    ck_assert_msg(strstr(text, "\r\033[K"), "%s: line not erased: %s", cmds[k],
                  text);
  }
}
END_TEST

static Suite *progress_suite(void) {
  Suite *s = suite_create("progress");
  TCase *tc = tcase_create("progress");
  tcase_set_timeout(tc, 150);
  tcase_add_checked_fixture(tc, NULL, remove_dir);
  tcase_add_test(tc, long_run_says_so_in_a_pipe);
  tcase_add_test(tc, long_bench_and_compare_say_so);
  tcase_add_test(tc, long_sweep_says_so_in_a_pipe);
  tcase_add_test(tc, terminal_line_on_bench_and_compare);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(progress_suite)
