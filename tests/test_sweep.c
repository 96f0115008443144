/* rodsim sweep (docs/scale.md): its case files are what `rodsim run`
 * writes, bit for bit; a sweep killed at any moment leaves an index that
 * opens and continues to every case complete once; beside each case file
 * the XDMF that `rodsim run` writes; MPI ranks give what
 * one thread gives; a failing case is recorded and the sweep goes on; a
 * second sweep on a directory is refused; bad input is one line, exit 2. */
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "h5util.h"
#include "rod/sweep.h"

static char dir[256];

/* A 0.3 m rod on 40 nodes at 2 ms: each case a few ms per 0.01 s. */
static const char *rod_ini = "[rod]\nlength = 0.3\n[time]\ndt = 2e-3\n"
                             "duration = 0.01\n[space]\nnodes = 40\n"
                             "[tip]\nmass = 0.005\n";

/* Each test works in its own folder: the commands' relative paths are
 * there. */
static void setup(void) {
  rod_test_dir(dir, sizeof dir, "rodsim_sweep");
  rod_test_write(dir, "rod.ini", rod_ini);
  ck_assert_int_eq(chdir(dir), 0);
}
static void teardown(void) {
  ck_assert_int_eq(chdir("/"), 0);
  rod_test_rmdir(dir);
}

/* `rodsim ARGS` in dir; stdout and stderr in r. */
static rod_cli_result rodsim(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static rod_cli_result rodsim(const char *fmt, ...) {
  char args[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  return rod_test_cli(dir, args);
}

/* Start `rodsim ARGS...` (argv[0] is set here), its output appended to
 * dir/log; its pid. */
static pid_t start(char **argv, const char *log) {
  argv[0] = getenv("RODSIM");
  ck_assert_ptr_nonnull(argv[0]);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(out, 1);
    dup2(out, 2);
    execv(argv[0], argv);
    _exit(98);
  }
  return pid;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* Exit 2, one line "rodsim: ..." holding needle. */
static void expect_bad(const char *args, const char *needle) {
  rod_cli_result r = rodsim("%s", args);
  ck_assert_msg(r.status == 2, "'%s': exit %d (%s)", args, r.status, r.err);
  ck_assert_msg(lines(r.err) == 1, "'%s': %d lines: %s", args, lines(r.err),
                r.err);
  ck_assert_msg(strncmp(r.err, "rodsim: ", 8) == 0 && strstr(r.err, needle),
                "'%s': no '%s' in: %s", args, needle, r.err);
}

/* The statuses of an index (cases of them); the index must open and read
 * whole. */
static int index_statuses(const char *sub, signed char *status, int max) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s/index.h5", dir, sub);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "%s does not open", path);
  hid_t d = H5Dopen2(f, "/status", H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, NULL);
  ck_assert_int_le((int)n, max);
  ck_assert_int_ge(
      H5Dread(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, status), 0);
  const char *sets[] = {
      "/message",           "/wall_time", "/summary/tip_final",
      "/summary/frequency", "/text",      "/values"};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    hid_t x = H5Dopen2(f, sets[k], H5P_DEFAULT);
    ck_assert_msg(x >= 0, "%s: %s missing", path, sets[k]);
    hid_t t = H5Dget_type(x);
    hid_t s2 = H5Dget_space(x);
    size_t bytes = H5Tget_size(t) * (size_t)H5Sget_simple_extent_npoints(s2);
    void *buf = malloc(bytes);
    ck_assert_msg(H5Dread(x, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                  "%s: %s unreadable", path, sets[k]);
    free(buf);
    H5Sclose(s2);
    H5Tclose(t);
    H5Dclose(x);
  }
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  for (hsize_t i = 0; i < n; i++)
    ck_assert_int_lt(status[i], ROD_CASE_STATUSES);
  return (int)n;
}

/* Dataset name of fa and of fb equal, byte for byte. */
static bool same_dataset(hid_t fa, hid_t fb, const char *name) {
  hid_t da = H5Dopen2(fa, name, H5P_DEFAULT);
  hid_t db = H5Lexists(fb, name, H5P_DEFAULT) > 0
                 ? H5Dopen2(fb, name, H5P_DEFAULT)
                 : -1;
  bool same = da >= 0 && db >= 0;
  if (same) {
    hid_t t = H5Dget_type(da);
    hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
    hssize_t n = H5Sget_simple_extent_npoints(sa);
    size_t bytes = H5Tget_size(t) * (size_t)n;
    char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    same = n == H5Sget_simple_extent_npoints(sb) &&
           H5Dread(da, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0 &&
           H5Dread(db, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, y) >= 0 &&
           memcmp(x, y, bytes) == 0;
    free(x);
    free(y);
    H5Sclose(sa);
    H5Sclose(sb);
    H5Tclose(t);
  }
  if (da >= 0)
    H5Dclose(da);
  if (db >= 0)
    H5Dclose(db);
  return same;
}

/* Every dataset of file b equal to file a's, bit for bit, but the wall
 * time (as scripts/h5-same compares them); ops_data: {b, count}. */
typedef struct {
  hid_t other;
  int count;
  char differs[200];
} compare_state;

static herr_t compare_dataset(hid_t obj, const char *name,
                              const H5O_info_t *info, void *data) {
  compare_state *cs = data;
  if (info->type != H5O_TYPE_DATASET || strcmp(name, "solver/wall_time") == 0)
    return 0;
  cs->count++;
  if (same_dataset(obj, cs->other, name))
    return 0;
  snprintf(cs->differs, sizeof cs->differs, "/%s differs or is in one only",
           name);
  return 1;
}

static void same_files(const char *a, const char *b) {
  char pa[600], pb[600];
  snprintf(pa, sizeof pa, "%s/%s", dir, a);
  snprintf(pb, sizeof pb, "%s/%s", dir, b);
  hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(fa >= 0 && fb >= 0, "%s or %s does not open", a, b);
  compare_state ab = {fb, 0, ""}, ba = {fa, 0, ""};
  H5Ovisit2(fa, H5_INDEX_NAME, H5_ITER_INC, compare_dataset, &ab,
            H5O_INFO_BASIC);
  ck_assert_msg(!ab.differs[0], "%s vs %s: %s", a, b, ab.differs);
  H5Ovisit2(fb, H5_INDEX_NAME, H5_ITER_INC, compare_dataset, &ba,
            H5O_INFO_BASIC);
  ck_assert_msg(!ba.differs[0] && ab.count == ba.count && ab.count > 15,
                "%s vs %s: %s (%d and %d datasets)", a, b, ba.differs, ab.count,
                ba.count);
  H5Fclose(fa);
  H5Fclose(fb);
}

/* Text of dir/name with every "h5" (the HDF5 file's name) as "FILE". */
static void xdmf_text(const char *name, const char *h5, char *text,
                      size_t size) {
  char path[600], raw[65536];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  rod_test_slurp(path, raw, sizeof raw);
  ck_assert_msg(raw[0] && strlen(raw) + 1 < sizeof raw, "%s: empty or long",
                path);
  size_t n = 0;
  const size_t len = strlen(h5);
  for (const char *p = raw; *p && n + 5 < size;) {
    if (strncmp(p, h5, len) == 0) {
      memcpy(text + n, "FILE", 4);
      n += 4;
      p += len;
    } else {
      text[n++] = *p++;
    }
  }
  text[n] = '\0';
}

/* The XDMF beside case file b is the one `rodsim run` wrote beside a,
 * but for the name of the file it points into. */
static void same_xdmf(const char *a, const char *b) {
  char xa[600], xb[600];
  snprintf(xa, sizeof xa, "%.*s.xdmf", (int)(strlen(a) - 3), a);
  snprintf(xb, sizeof xb, "%.*s.xdmf", (int)(strlen(b) - 3), b);
  static char ta[65536], tb[65536];
  xdmf_text(xa, strrchr(a, '/') ? strrchr(a, '/') + 1 : a, ta, sizeof ta);
  xdmf_text(xb, strrchr(b, '/') ? strrchr(b, '/') + 1 : b, tb, sizeof tb);
  ck_assert_msg(strstr(ta, "FILE:/rod/position"), "%s names no FILE", xa);
  ck_assert_msg(strcmp(ta, tb) == 0, "%s and %s differ", xa, xb);
}

START_TEST(six_cases_equal_six_runs) {
  rod_cli_result r =
      rodsim("sweep rod.ini -o out --vary rod.length=0.2:0.3:3 --vary "
             "tip.mass=0.002,0.005 --set time.duration=0.05 --threads 2");
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "6 cases: 6 complete"), "%s", r.out);
  const char *lengths[] = {"0.2", "0.25", "0.3"},
             *masses[] = {"0.002", "0.005"};
  for (int c = 0; c < 6; c++) {
    r = rodsim("run rod.ini --quiet --set time.duration=0.05 --set "
               "rod.length=%s --set tip.mass=%s -o run-%d.h5",
               lengths[c / 2], masses[c % 2], c);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    char a[64], b[64];
    snprintf(a, sizeof a, "run-%d.h5", c);
    snprintf(b, sizeof b, "out/case-%05d.h5", c);
    same_files(a, b);
    same_xdmf(a, b);
  }
  signed char status[8];
  ck_assert_int_eq(index_statuses("out", status, 8), 6);
  for (int c = 0; c < 6; c++)
    ck_assert_int_eq(status[c], ROD_CASE_COMPLETE);
  /* again: nothing to run */
  r = rodsim("sweep rod.ini -o out --vary rod.length=0.2:0.3:3 --vary "
             "tip.mass=0.002,0.005 --set time.duration=0.05");
  ck_assert_msg(r.status == 0 && strstr(r.out, "(0 run now"), "%d: %s%s",
                r.status, r.out, r.err);
}
END_TEST

/* The cases of dir/out's index with status `status` (0 before it is
 * there). */
static int count_status(int status) {
  char path[600];
  snprintf(path, sizeof path, "%s/out/index.h5", dir);
  if (access(path, F_OK) != 0)
    return 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "%s does not open", path);
  hid_t d = H5Dopen2(f, "/status", H5P_DEFAULT);
  signed char s[64] = {0};
  hid_t sp = H5Dget_space(d);
  int n = 0;
  if (H5Sget_simple_extent_npoints(sp) <= 64 &&
      H5Dread(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0)
    for (int c = 0; c < 64; c++)
      n += s[c] == status;
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  return n;
}

/* Start rodsim with argv in dir and kill it with SIGKILL: `after` s after
 * it started (early: while it starts and makes the index), or `after` s
 * after it recorded one more case complete (whatever the machine's load,
 * the sweep moves on between kills). */
static void run_and_kill(char **argv, double after, bool early) {
  const int before = count_status(ROD_CASE_COMPLETE);
  pid_t pid = start(argv, "kill.txt");
  struct timespec poll = {0, 1000000};
  int st;
  for (int i = 0; !early && i < 20000; i++) {
    if (waitpid(pid, &st, WNOHANG) == pid)
      return; /* it finished */
    if (count_status(ROD_CASE_COMPLETE) > before)
      break;
    nanosleep(&poll, NULL);
  }
  struct timespec ts = {(time_t)after, (long)(1e9 * (after - (time_t)after))};
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
}

/* A case file's identity: recorded complete, it must never be written
 * again. */
typedef struct {
  bool complete;
  ino_t inode;
  struct timespec mtime;
} case_file;

START_TEST(killed_at_random_moments_continues) {
  enum { CASES = 12, KILLS = 10 };
  char *argv[] = {NULL,
                  "sweep",
                  "rod.ini",
                  "-o",
                  "out",
                  "--vary",
                  "rod.length=0.2:0.3:12",
                  "--set",
                  "time.duration=0.5",
                  "--threads",
                  "2",
                  NULL};
  case_file seen[CASES] = {0};
  unsigned seed = 30;
  for (int k = 0; k < KILLS; k++) {
    const bool early = k % 4 == 0;
    const double after = (early ? 0.1 : 0.03) * rand_r(&seed) / RAND_MAX;
    run_and_kill(argv, after, early);
    char path[600];
    snprintf(path, sizeof path, "%s/out/index.h5", dir);
    if (access(path, F_OK) != 0)
      continue; /* killed before the index was made */
    signed char status[CASES];
    ck_assert_int_eq(index_statuses("out", status, CASES), CASES);
    for (int c = 0; c < CASES; c++) {
      if (status[c] != ROD_CASE_COMPLETE)
        continue;
      snprintf(path, sizeof path, "%s/out/case-%05d.h5", dir, c);
      struct stat st;
      ck_assert_int_eq(stat(path, &st), 0);
      if (seen[c].complete) {
        ck_assert_msg(st.st_ino == seen[c].inode &&
                          st.st_mtim.tv_sec == seen[c].mtime.tv_sec &&
                          st.st_mtim.tv_nsec == seen[c].mtime.tv_nsec,
                      "case %d was run again after it was complete", c);
      } else {
        seen[c] = (case_file){true, st.st_ino, st.st_mtim};
      }
    }
  }
  rod_cli_result r = rodsim("sweep rod.ini -o out --vary "
                            "rod.length=0.2:0.3:12 --set time.duration=0.5 "
                            "--threads 2");
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  signed char status[CASES];
  ck_assert_int_eq(index_statuses("out", status, CASES), CASES);
  for (int c = 0; c < CASES; c++) {
    ck_assert_msg(status[c] == ROD_CASE_COMPLETE, "case %d: status %d", c,
                  status[c]);
    char path[600];
    snprintf(path, sizeof path, "%s/out/case-%05d.h5", dir, c);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    char *text = rod_test_attr(f, "status");
    ck_assert_str_eq(text, "complete");
    H5free_memory(text);
    H5Fclose(f);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    if (seen[c].complete)
      ck_assert_msg(st.st_ino == seen[c].inode &&
                        st.st_mtim.tv_nsec == seen[c].mtime.tv_nsec,
                    "case %d was run again after it was complete", c);
    snprintf(path, sizeof path, "%s/out/case-%05d.h5.part", dir, c);
    ck_assert_msg(access(path, F_OK) != 0, "%s left", path);
  }
}
END_TEST

/* Every dataset of two indexes equal but the wall times. */
static void same_index(const char *a, const char *b) {
  const char *sets[] = {"/keys",
                        "/text",
                        "/values",
                        "/file",
                        "/status",
                        "/message",
                        "/warning",
                        "/summary/time",
                        "/summary/tip_final",
                        "/summary/tip_min",
                        "/summary/tip_max",
                        "/summary/frequency",
                        "/summary/energy_drift",
                        "/summary/error_estimate"};
  char pa[600], pb[600];
  snprintf(pa, sizeof pa, "%s/%s/index.h5", dir, a);
  snprintf(pb, sizeof pb, "%s/%s/index.h5", dir, b);
  hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(fa >= 0 && fb >= 0);
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    ck_assert_msg(same_dataset(fa, fb, sets[k]), "%s differs", sets[k]);
  }
  H5Fclose(fa);
  H5Fclose(fb);
}

START_TEST(mpi_ranks_equal_one_thread) {
  if (!ROD_HAVE_MPI || system("command -v mpirun >/dev/null") != 0)
    return; /* built without MPI */
  const char *sweep = "sweep rod.ini --vary rod.length=0.2:0.3:4 --vary "
                      "tip.mass=0.002,0.005 --set time.duration=0.05";
  rod_cli_result r = rodsim("%s -o one --threads 1", sweep);
  ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
  const char *exe = getenv("RODSIM");
  /* under AddressSanitizer: OpenMPI's own allocations are left at exit */
  char asan[600] = "";
  if (getenv("ASAN_OPTIONS"))
    snprintf(asan, sizeof asan, "ASAN_OPTIONS='%s:detect_leaks=0' ",
             getenv("ASAN_OPTIONS"));
  char cmd[2600];
  snprintf(cmd, sizeof cmd,
           "%smpirun --allow-run-as-root --oversubscribe -n 3 '%s' "
           "%s -o ranks >mpi.txt 2>&1",
           asan, exe, sweep);
  int w = system(cmd);
  char out[4096], path[600];
  snprintf(path, sizeof path, "%s/mpi.txt", dir);
  rod_test_slurp(path, out, sizeof out);
  ck_assert_msg(WIFEXITED(w) && WEXITSTATUS(w) == 0, "mpirun: %s", out);
  ck_assert_msg(strstr(out, "8 cases: 8 complete") && strstr(out, "3 ranks"),
                "%s", out);
  same_index("one", "ranks");
  for (int c = 0; c < 8; c++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "one/case-%05d.h5", c);
    snprintf(b, sizeof b, "ranks/case-%05d.h5", c);
    same_files(a, b);
  }
}
END_TEST

START_TEST(failing_case_recorded_and_sweep_goes_on) {
  /* a 100 kN strike the solver cannot follow (test_cli), between two
   * that it can */
  rod_cli_result r = rodsim(
      "sweep rod.ini -o out --vary impulse.peak=0.1,1e5,0.2 --set tip.mass=0 "
      "--set impulse.start=0.004 --set impulse.position=0.15 --threads 1");
  ck_assert_msg(r.status == 1, "exit %d: %s", r.status, r.err);
  ck_assert_msg(strstr(r.out, "3 cases: 2 complete, 1 failed"), "%s", r.out);
  ck_assert_msg(lines(r.err) == 1 &&
                    strstr(r.err, "case 1 (impulse.peak=1e5) "
                                  "failed: ") &&
                    strstr(r.err, "did not converge"),
                "%s", r.err);
  signed char status[3];
  index_statuses("out", status, 3);
  ck_assert_int_eq(status[0], ROD_CASE_COMPLETE);
  ck_assert_int_eq(status[1], ROD_CASE_FAILED);
  ck_assert_int_eq(status[2], ROD_CASE_COMPLETE);
  char path[600];
  snprintf(path, sizeof path, "%s/out/index.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/message", H5P_DEFAULT);
  hid_t t = H5Dget_type(d);
  char msg[3][ROD_SWEEP_TEXT];
  H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, msg);
  ck_assert_msg(strstr(msg[1], "did not converge") && !msg[0][0] && !msg[2][0],
                "%s", msg[1]);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
  /* run again: the failed case stays, unless retried */
  r = rodsim("sweep rod.ini -o out --vary impulse.peak=0.1,1e5,0.2 --set "
             "tip.mass=0 --set impulse.start=0.004 --set "
             "impulse.position=0.15");
  ck_assert_msg(r.status == 1 && strstr(r.out, "(0 run now"), "%s", r.out);
  r = rodsim("sweep rod.ini -o out --vary impulse.peak=0.1,1e5,0.2 --set "
             "tip.mass=0 --set impulse.start=0.004 --set "
             "impulse.position=0.15 --retry-failed");
  ck_assert_msg(r.status == 1 && strstr(r.out, "(1 run now"), "%s", r.out);
}
END_TEST

START_TEST(second_sweep_refused) {
  char *argv[] = {NULL,
                  "sweep",
                  "rod.ini",
                  "-o",
                  "out",
                  "--vary",
                  "rod.length=0.2:0.3:40",
                  "--set",
                  "time.duration=100",
                  "--threads",
                  "1",
                  NULL};
  pid_t pid = start(argv, "first.txt");
  char path[600];
  snprintf(path, sizeof path, "%s/out/index.h5", dir);
  struct timespec poll = {0, 5000000};
  int st;
  /* however long the first takes to make its index (it holds the lock
   * from before), as long as it runs: 40 cases of 100 s cannot end first */
  while (access(path, F_OK) != 0) {
    ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0,
                  "the first sweep ended before its index was made");
    nanosleep(&poll, NULL);
  }
  expect_bad("sweep rod.ini -o out --vary rod.length=0.2:0.3:40 --set "
             "time.duration=100",
             "another sweep is running in this directory");
  /* another definition is refused too, also once the first is gone */
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  expect_bad("sweep rod.ini -o out --vary rod.length=0.2:0.3:41",
             "holds a different sweep");
  expect_bad("sweep rod.ini -o out --vary rod.length=0.2:0.3:40",
             "its scenario differs");
}
END_TEST

START_TEST(bad_input_one_line) {
  rod_test_write(dir, "nokey.csv", "t,x\n0,1\n");
  rod_test_write(dir, "unknown.csv", "rod.lenght\n0.3\n");
  rod_test_write(dir, "afile", "");
  expect_bad("sweep rod.ini -o out --vary rod.lenght=0.2,0.3", "unknown key");
  expect_bad("sweep rod.ini -o out --vary rod.length=", "empty range");
  expect_bad("sweep rod.ini -o out --vary rod.length=0.2:0.2:3", "empty range");
  expect_bad("sweep rod.ini -o out --vary rod.length=0.2:0.3:0", "COUNT");
  expect_bad("sweep rod.ini -o out --cases nokey.csv", "names no scenario key");
  expect_bad("sweep rod.ini -o out --cases unknown.csv", "unknown key");
  expect_bad("sweep rod.ini -o afile --vary rod.length=0.2,0.3",
             "is a file, not a directory");
  expect_bad("sweep rod.ini --vary rod.length=0.2,0.3", "missing -o DIR");
  expect_bad("sweep rod.ini -o out --vary rod.length=0.1:0.2", "--samples");
  expect_bad("sweep rod.ini -o out --vary rod.length=0.1,0.2 --shard 2/2",
             "--shard");
}
END_TEST

/* The cases of a CSV, a [sweep] section and a Latin hypercube. */
START_TEST(csv_section_and_samples) {
  rod_test_write(dir, "cases.csv",
                 "# two rods\nrod.length,base.direction\n0.25,1 0 0\n"
                 "0.3,\"0.8 0 0.6\"\n");
  rod_cli_result r = rodsim("sweep rod.ini -o csv --cases cases.csv --vary "
                            "tip.mass=0.001,0.002");
  ck_assert_msg(r.status == 0 && strstr(r.out, "4 cases: 4 complete"),
                "exit %d: %s%s", r.status, r.out, r.err);
  char ini[512];
  snprintf(ini, sizeof ini,
           "%s[sweep]\nrod.length = 0.2:0.3:5:log\nrod.drag = "
           "0:1e-3\nsamples = 4\nseed = 7\n",
           rod_ini);
  rod_test_write(dir, "swept.ini", ini);
  r = rodsim("sweep swept.ini -o lhs");
  ck_assert_msg(r.status == 0 && strstr(r.out, "20 cases: 20 complete"),
                "exit %d: %s%s", r.status, r.out, r.err);
  char path[600];
  snprintf(path, sizeof path, "%s/lhs/index.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "/values", H5P_DEFAULT);
  double v[20][2];
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Fclose(f);
  /* lengths 0.2 * 1.5^(i/4), each with the same 4 drags, one per stratum */
  for (int i = 0; i < 5; i++) {
    ROD_ASSERT_NEAR(v[4 * i][0], 0.2 * pow(1.5, i / 4.0), 1e-14);
    int strata = 0;
    for (int j = 0; j < 4; j++) {
      ck_assert(v[4 * i + j][1] == v[j][1]);
      strata |= 1 << (int)(v[4 * i + j][1] / 2.5e-4);
    }
    ck_assert_int_eq(strata, 15);
  }
}
END_TEST

static Suite *sweep_suite(void) {
  Suite *s = suite_create("sweep");
  struct {
    const char *name;
    const TTest *test;
  } tests[] = {{"equal_runs", six_cases_equal_six_runs},
               {"kills", killed_at_random_moments_continues},
               {"mpi", mpi_ranks_equal_one_thread},
               {"failing", failing_case_recorded_and_sweep_goes_on},
               {"refused", second_sweep_refused},
               {"bad_input", bad_input_one_line},
               {"definition", csv_section_and_samples}};
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    TCase *tc = tcase_create(tests[i].name);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tests[i].test);
    suite_add_tcase(s, tc);
  }
  return s;
}

ROD_TEST_MAIN(sweep_suite)
