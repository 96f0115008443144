/* Test helpers of the suites on the user's files (files, files_out,
 * files_writers): a scratch folder, rodsim started in it with its wall
 * time, a refusal's checks (exit 2, one line, within a second past
 * start-up), the small scenario they run, the folder's listing. */
#ifndef ROD_TEST_FILESUTIL_H
#define ROD_TEST_FILESUTIL_H

#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static char dir[256];

static inline void make_dir(void) {
  rod_test_dir(dir, sizeof dir, "rodsim_files");
}
static inline void remove_dir(void) { rod_test_rmdir(dir); }

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Slower runs under the sanitizers and valgrind (tests/meson.build). */
static inline double slowdown(void) {
  const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
  return m && atof(m) > 1 ? atof(m) : 1.0;
}

/* `rodsim ARGS` in dir, killed after 20 s (a reader that blocks); *wall
 * its wall time (s). */
static inline rod_cli_result run_in_dir(const char *args, double *wall) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd '%s' && timeout -s KILL %.0f '%s' %s", dir,
           20 * slowdown(), getenv("RODSIM"), args);
  char out[600], err[600];
  snprintf(out, sizeof out, "%s/stdout.txt", dir);
  snprintf(err, sizeof err, "%s/stderr.txt", dir);
  char full[6000];
  snprintf(full, sizeof full, "%s >'%s' 2>'%s'", cmd, out, err);
  rod_cli_result r;
  const double t0 = now();
  int w = system(full);
  *wall = now() - t0;
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  rod_test_slurp(out, r.out, sizeof r.out);
  rod_test_slurp(err, r.err, sizeof r.err);
  return r;
}

static inline int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* The wall time (s) of starting rodsim now: on a loaded machine it alone
 * may take most of a second. */
static inline double startup(void) {
  double wall;
  run_in_dir("--version", &wall);
  return wall;
}

/* Exit 2 within a second past rodsim's start-up (scaled for the slow
 * setups), one line holding each needle. */
static inline void expect_refused(const char *args, const char *needle1,
                                  const char *needle2) {
  double wall;
  rod_cli_result r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 2, "'%s': exit %d after %.1f s, expected 2: %s",
                args, r.status, wall, r.err);
  if (wall > 1.0 * slowdown()) { /* the machine may be loaded: compare */
    const double base = startup();
    ck_assert_msg(wall < 1.0 * slowdown() + 2 * base,
                  "'%s': took %.2f s (starting rodsim: %.2f s)", args, wall,
                  base);
  }
  ck_assert_msg(count_lines(r.err) == 1, "'%s': %s", args, r.err);
  ck_assert_msg(strstr(r.err, needle1), "'%s': no '%s' in %s", args, needle1,
                r.err);
  if (needle2)
    ck_assert_msg(strstr(r.err, needle2), "'%s': no '%s' in %s", args, needle2,
                  r.err);
}

static const char *good = "[rod]\nlength = 0.3\n[time]\ndt = 2e-3\n"
                          "duration = 0.01\n[space]\nnodes = 40\n";

/* The scenario good with extra lines after it, as dir/NAME. */
static inline void write_scenario(const char *name, const char *extra) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s", good, extra);
  rod_test_write(dir, name, text);
}

static inline void in_dir(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* The text of dir/name ("" when missing). */
static inline void slurp(const char *name, char *buf, size_t size) {
  char path[600];
  in_dir(path, sizeof path, name);
  rod_test_slurp(path, buf, size);
}

/* Nothing but what keep lists in dir besides the test's own stdout.txt
 * and stderr.txt and the runs' XDMF descriptions: no .part or .lock left
 * behind. */
static inline void expect_only(const char *const *keep, int n) {
  char cmd[600], list[4096];
  snprintf(cmd, sizeof cmd,
           "ls -A '%s' | grep -v -e '^stdout.txt$' -e '^stderr.txt$' -e "
           "'[.]xdmf$'",
           dir);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t got = fread(list, 1, sizeof list - 1, p);
  list[got] = '\0';
  pclose(p);
  char want[4096] = "";
  for (int i = 0; i < n; i++) {
    strcat(want, keep[i]);
    strcat(want, "\n");
  }
  ck_assert_str_eq(list, want);
}

#endif
