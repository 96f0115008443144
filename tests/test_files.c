/* The user's files are safe with rodsim: every input is a regular file
 * read within bounds (a FIFO or /dev/zero is refused at once), and the
 * bytes of an input that a message echoes are shown escaped
 * (docs/files.md, docs/commands.md). */
#include <fcntl.h>
#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core/escape.h"
#include "io/datafile.h"
#include "io/outfile.h"
#include "rod/image.h"
#include "rod/scenario.h"
#include "rod/sim.h"
#include "testutil.h"

static char dir[256];

static void make_dir(void) { rod_test_dir(dir, sizeof dir, "rodsim_files"); }
static void remove_dir(void) { rod_test_rmdir(dir); }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Slower runs under the sanitizers and valgrind (tests/meson.build). */
static double slowdown(void) {
  const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
  return m && atof(m) > 1 ? atof(m) : 1.0;
}

/* `rodsim ARGS` in dir, killed after 20 s (a reader that blocks); *wall
 * its wall time (s). */
static rod_cli_result run_in_dir(const char *args, double *wall) {
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

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* The wall time (s) of starting rodsim now: on a loaded machine it alone
 * may take most of a second. */
static double startup(void) {
  double wall;
  run_in_dir("--version", &wall);
  return wall;
}

/* Exit 2 within a second past rodsim's start-up (scaled for the slow
 * setups), one line holding each needle. */
static void expect_refused(const char *args, const char *needle1,
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
static void write_scenario(const char *name, const char *extra) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s", good, extra);
  rod_test_write(dir, name, text);
}

/* A file of `bytes` bytes that takes no room on disk (a hole). */
static void write_sparse(const char *name, off_t bytes) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, bytes), 0);
  close(fd);
}

/* Every data file a command reads, given a FIFO (no writer) or
 * /dev/zero: refused at once, exit 2, naming the file. Before, the FIFO
 * blocked the command forever and /dev/zero grew its memory without
 * bound (the scenario itself: spun forever). */
START_TEST(fifo_and_device_inputs_refused_at_once) {
  char fifo[512];
  snprintf(fifo, sizeof fifo, "%s/pipe", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  const char *sources[] = {"pipe", "/dev/zero"};
  const char *kind[] = {"FIFO", "character device"};
  for (int i = 0; i < 2; i++) {
    const char *src = sources[i];
    char args[600], extra[600];
    snprintf(args, sizeof args, "run %s -o out.h5", src);
    expect_refused(args, src, kind[i]);
    const char *keys[][2] = {{"rod", "precurvature_file"},
                             {"base", "motion_file"},
                             {"load.a", "force_file"},
                             {"load.a", "moment_file"}};
    for (int k = 0; k < 4; k++) {
      snprintf(extra, sizeof extra, "[%s]\n%s = %s\n", keys[k][0], keys[k][1],
               src);
      write_scenario("rod.ini", extra);
      snprintf(args, sizeof args, "%s.%s", keys[k][0], keys[k][1]);
      expect_refused("run rod.ini -o out.h5", args, kind[i]);
    }
    write_scenario("rod.ini", "");
    snprintf(args, sizeof args, "calibrate rod.ini --data %s -o fit.ini", src);
    expect_refused(args, src, kind[i]);
    snprintf(args, sizeof args,
             "static rod.ini -o out.h5 --set "
             "rod.precurvature_file=%s",
             src);
    expect_refused(args, "rod.precurvature_file", kind[i]);
  }
  write_scenario("rod.ini", "");
  expect_refused("run . -o out.h5", "directory", NULL);
  char path[600];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  ck_assert_int_ne(access(path, F_OK), 0); /* nothing written */
}
END_TEST

/* Sizes and line lengths beyond what rodsim reads: one line saying so
 * (files with holes: no disk space taken), before anything is read. */
START_TEST(oversized_inputs_refused) {
  write_sparse("huge.ini", (off_t)(ROD_DATA_MAX_SCENARIO + 1));
  expect_refused("run huge.ini -o out.h5", "huge.ini", "larger than 16 MiB");
  write_sparse("huge.csv", (off_t)(ROD_DATA_MAX_TABLE + 1));
  write_scenario("rod.ini", "[rod]\nprecurvature_file = huge.csv\n");
  expect_refused("run rod.ini -o out.h5", "huge.csv", "larger than 256 MiB");
  expect_refused("calibrate rod.ini --data huge.csv", "huge.csv",
                 "larger than 256 MiB");
  /* a line past 64 KiB: the table's and the scenario's */
  size_t n = ROD_DATA_MAX_LINE + 10;
  char *text = malloc(n + 64);
  ck_assert_ptr_nonnull(text);
  strcpy(text, "t,x,z\n0,0,0\n");
  size_t used = strlen(text);
  memset(text + used, '1', n);
  strcpy(text + used + n, "\n");
  rod_test_write(dir, "long.csv", text);
  expect_refused("calibrate rod.ini --data long.csv", "long.csv",
                 "line 3: longer than 65536 bytes");
  memcpy(text, "[rod]\nlength = 0.3\n; ", 21);
  rod_test_write(dir, "long.ini", text);
  expect_refused("run long.ini -o out.h5", "long.ini",
                 "line 3: longer than 65536 bytes");
  free(text);
  /* a NUL byte: not text */
  char path[600];
  snprintf(path, sizeof path, "%s/nul.csv", dir);
  FILE *f = fopen(path, "wb");
  fwrite("t,x,z\n0,0\0,0\n", 1, 13, f);
  fclose(f);
  expect_refused("calibrate rod.ini --data nul.csv", "nul.csv",
                 "line 2: holds a NUL byte");
}
END_TEST

/* The reader's bounds on its own: a file of exactly the size limit is read
 * whole, one byte more is refused; a line of exactly ROD_DATA_MAX_LINE
 * bytes (its newline included) is read, one more is refused. */
START_TEST(reader_bounds_are_exact) {
  char path[600];
  snprintf(path, sizeof path, "%s/a.txt", dir);
  char *line = malloc(ROD_DATA_MAX_LINE + 2);
  memset(line, 'a', ROD_DATA_MAX_LINE - 1);
  strcpy(line + ROD_DATA_MAX_LINE - 1, "\n");
  rod_test_write(dir, "a.txt", line);
  char *text;
  size_t len;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(
      rod_datafile_read(path, false, ROD_DATA_MAX_LINE, &text, &len, &err),
      ROD_OK);
  ck_assert_uint_eq(len, ROD_DATA_MAX_LINE);
  free(text);
  ck_assert_int_eq(
      rod_datafile_read(path, false, ROD_DATA_MAX_LINE - 1, &text, &len, &err),
      ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "larger than"));
  memset(line, 'a', ROD_DATA_MAX_LINE);
  strcpy(line + ROD_DATA_MAX_LINE, "\n");
  rod_test_write(dir, "a.txt", line);
  ck_assert_int_eq(
      rod_datafile_read(path, false, 2 * ROD_DATA_MAX_LINE, &text, &len, &err),
      ROD_EINVAL);
  ck_assert_str_eq(err.key, "line 1");
  /* the stream reader of rod_table_read_stream: the same bound */
  FILE *f = fopen(path, "r");
  char *buf = malloc(ROD_DATA_MAX_LINE + 2);
  ck_assert_int_eq(rod_datafile_line(f, buf, ROD_DATA_MAX_LINE + 2), -1);
  ck_assert_int_eq(rod_datafile_line(f, buf, ROD_DATA_MAX_LINE + 2), 0);
  fclose(f);
  free(buf);
  free(line);
}
END_TEST

/* Control bytes, C1 controls, direction overrides and malformed UTF-8 are
 * shown as \xNN; printable UTF-8 (accents, symbols) stays; escaping twice
 * changes nothing. */
START_TEST(escape_keeps_printable_utf8) {
  char out[256];
  rod_text_escape("a\x1b[31mb\tc\x7f", out, sizeof out);
  ck_assert_str_eq(out, "a\\x1b[31mb\\x09c\\x7f");
  rod_text_escape("donn\xc3\xa9"
                  "es \xe2\x86\x92 \xce\xbc",
                  out, sizeof out);
  ck_assert_str_eq(out, "donn\xc3\xa9"
                        "es \xe2\x86\x92 \xce\xbc");
  rod_text_escape("x\xc2\x9b"
                  "1m\xe2\x80\xaey\xff\xc3",
                  out, sizeof out);
  ck_assert_str_eq(out, "x\\xc2\\x9b1m\\xe2\\x80\\xaey\\xff\\xc3");
  rod_text_escape("\xc0\xaf\xed\xa0\x80", out, sizeof out); /* overlong, D800 */
  ck_assert_str_eq(out, "\\xc0\\xaf\\xed\\xa0\\x80");
  char twice[256];
  rod_text_escape(out, twice, sizeof twice);
  ck_assert_str_eq(twice, out);
  /* truncated at a whole escape */
  rod_text_escape("ab\x1b", out, 6);
  ck_assert_str_eq(out, "ab");
}
END_TEST

/* A scenario's bytes echoed in a message (a value, a key, a file name) come
 * out escaped, from the library and from the command line: no terminal
 * escape reaches stderr. Before, the raw bytes were printed. */
START_TEST(messages_escape_input_bytes) {
  rod_scenario *sc = rod_scenario_new();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_ne(rod_scenario_load_string(
                       sc, "[rod]\nlength = 0.3\x1b]0;owned\x07\n", "x", &err),
                   ROD_OK);
  ck_assert_ptr_null(strchr(err.message, '\x1b'));
  ck_assert_ptr_nonnull(strstr(err.message, "0.3\\x1b]0;owned\\x07"));
  rod_scenario_free(sc);
  write_scenario("esc.ini", "[rod]\ndensity = 7\x1b[2J\xc2\x9b"
                            "5m\n"
                            "[k\x1b[31mx]\n");
  double wall;
  rod_cli_result r = run_in_dir("run esc.ini -o out.h5", &wall);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(!strchr(r.err, '\x1b') && !strstr(r.err, "\xc2\x9b"), "%s",
                r.err);
  ck_assert_ptr_nonnull(strstr(r.err, "7\\x1b[2J\\xc2\\x9b5m"));
  /* a file name from the command line, and one from the scenario */
  r = run_in_dir("run \"$(printf 'a\\033[1mb.ini')\"", &wall);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "a\\x1b[1mb.ini"));
  write_scenario("esc.ini", "[rod]\nprecurvature_file = \xe2\x80\xae"
                            "vsc.exe\n");
  r = run_in_dir("run esc.ini -o out.h5", &wall);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "\\xe2\\x80\\xaevsc.exe"));
  /* printable UTF-8 stays as it is */
  write_scenario("esc.ini", "[rod]\nprecurvature_file = donn\xc3\xa9"
                            "es.csv\n");
  r = run_in_dir("run esc.ini -o out.h5", &wall);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "donn\xc3\xa9"
                                      "es.csv"));
}
END_TEST

/* ---- outputs (io/outfile.h) -------------------------------------------- */

static void in_dir(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* The file system of dir keeps user extended attributes. */
static bool xattrs_kept(void) {
  char path[600];
  in_dir(path, sizeof path, "probe");
  rod_test_write(dir, "probe", "");
  bool kept = setxattr(path, "user.probe", "1", 1, 0) == 0;
  unlink(path);
  return kept;
}

static rod_out_rules text_rules(void) {
  rod_out_rules r = {.kind = ROD_OUT_TEXT, .mark = "# rodsim", .key = "-o"};
  return r;
}

/* The text of dir/name ("" when missing). */
static void slurp(const char *name, char *buf, size_t size) {
  char path[600];
  in_dir(path, sizeof path, name);
  rod_test_slurp(path, buf, size);
}

/* Write text through an outfile opened on dir/name with rules r. */
static int write_through(const char *name, const rod_out_rules *r,
                         const char *text, rod_error *err) {
  char path[600];
  in_dir(path, sizeof path, name);
  rod_outfile *o;
  int st = rod_outfile_open(path, r, &o, err);
  if (st != ROD_OK)
    return st;
  FILE *f = rod_outfile_stream(o);
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  st = rod_outfile_commit(o, err);
  rod_outfile_close(o, st != ROD_OK);
  return st;
}

/* Nothing but what keep lists in dir besides the test's own stdout.txt
 * and stderr.txt and the runs' XDMF descriptions: no .part or .lock left
 * behind. */
static void expect_only(const char *const *keep, int n) {
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

/* An output replaces only a file rodsim wrote (its mark), an empty one, or
 * any regular file with force; never an input. */
START_TEST(outputs_replace_only_rodsim_files) {
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("a.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  ck_assert_int_eq(write_through("a.txt", &r, "# rodsim 2\n", &err), ROD_OK);
  char text[256];
  slurp("a.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim 2\n");
  rod_test_write(dir, "notes.txt", "my notes\n");
  ck_assert_int_eq(write_through("notes.txt", &r, "# rodsim\n", &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "not a file rodsim wrote"));
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  rod_test_write(dir, "empty.txt", "");
  ck_assert_int_eq(write_through("empty.txt", &r, "# rodsim\n", &err), ROD_OK);
  /* an input, also under another name (a hard link) and with force */
  char in[600], other[600];
  in_dir(in, sizeof in, "in.ini");
  in_dir(other, sizeof other, "same.ini");
  rod_test_write(dir, "in.ini", "# rodsim looks like ours\n");
  ck_assert_int_eq(link(in, other), 0);
  r.force = true;
  rod_out_add_input(&r, in);
  ck_assert_int_eq(write_through("same.ini", &r, "x\n", &err), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "which this command reads"));
  ck_assert_int_eq(write_through("notes.txt", &r, "# rodsim\n", &err), ROD_OK);
  slurp("in.ini", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim looks like ours\n");
  const char *keep[] = {"a.txt", "empty.txt", "in.ini", "notes.txt",
                        "same.ini"};
  expect_only(keep, 5);
}
END_TEST

/* Without a mark, a text file is rodsim's by the extended attribute
 * user.rodsim that every file it makes carries. */
START_TEST(text_outputs_recognised_by_xattr) {
  if (!xattrs_kept())
    return; /* this file system keeps none: --force needed, as documented */
  rod_out_rules r = {.kind = ROD_OUT_TEXT, .key = "-o"};
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,1\n", &err), ROD_OK);
  char path[600], value[16];
  in_dir(path, sizeof path, "t.csv");
  ck_assert_int_gt(getxattr(path, "user.rodsim", value, sizeof value), 0);
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,2\n", &err), ROD_OK);
  ck_assert_int_eq(removexattr(path, "user.rodsim"), 0); /* as by a copy */
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,3\n", &err), ROD_EINVAL);
  char text[64];
  slurp("t.csv", text, sizeof text);
  ck_assert_str_eq(text, "t,x\n0,2\n");
}
END_TEST

/* An HDF5 file is rodsim's by its root attribute rodsim_version. */
START_TEST(hdf5_outputs_recognised_by_attribute) {
  char path[600];
  in_dir(path, sizeof path, "x.h5");
  rod_out_rules r = {.kind = ROD_OUT_HDF5, .key = "output.file"};
  rod_error err = {{0}, {0}, {0}, 0};
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  rod_outfile *o;
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, "rodsim_version", H5T_NATIVE_INT, space, H5P_DEFAULT,
                       H5P_DEFAULT);
  int one = 1;
  H5Awrite(a, H5T_NATIVE_INT, &one);
  H5Aclose(a);
  H5Sclose(space);
  H5Fclose(f);
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_OK);
  rod_outfile_close(o, true);
  /* text is not HDF5 */
  rod_test_write(dir, "x.ini", "[rod]\n");
  in_dir(path, sizeof path, "x.ini");
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  const char *keep[] = {"x.h5", "x.ini"};
  expect_only(keep, 2);
}
END_TEST

/* Of two writers of one path the second is refused, naming the first's
 * pid; after the first lets go, the path can be written again. */
START_TEST(writer_lock_names_the_holder) {
  char path[600], pid[64];
  in_dir(path, sizeof path, "out.txt");
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *first, *second;
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_OK);
  ck_assert_int_eq(rod_outfile_open(path, &r, &second, &err), ROD_EIO);
  snprintf(pid, sizeof pid, "rodsim, pid %ld on ", (long)getpid());
  ck_assert_msg(strstr(err.message, "another process is writing") &&
                    strstr(err.message, pid),
                "%s", err.message);
  rod_outfile_close(first, true);
  ck_assert_int_eq(rod_outfile_open(path, &r, &second, &err), ROD_OK);
  rod_outfile_close(second, true);
  expect_only(NULL, 0);
  /* a lock file that is not rodsim's is left as it is */
  rod_test_write(dir, "out.txt.lock", "someone's\n");
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_EINVAL);
  char text[64];
  slurp("out.txt.lock", text, sizeof text);
  ck_assert_str_eq(text, "someone's\n");
  /* a killed writer's lock file is taken over, and removed after */
  rod_test_write(dir, "out.txt.lock", "rodsim writer lock: pid 1 on x\n");
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_OK);
  rod_outfile_close(first, true);
  expect_only(NULL, 0);
}
END_TEST

/* A killed writer's PATH.part (rodsim's: its mark here; or empty, killed
 * as it made it) is removed and the name used again; anything else there
 * stays, and a fresh name is used. Before, each killed run of a sweep's
 * case left its .part behind. */
START_TEST(killed_writers_part_taken_over) {
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_test_write(dir, "out.txt.part", "# rodsim, killed\n");
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  const char *keep[] = {"out.txt"};
  expect_only(keep, 1);
  rod_test_write(dir, "out.txt.part", ""); /* killed as it made it */
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  expect_only(keep, 1);
  rod_test_write(dir, "out.txt.part", "my notes\n");
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 2\n", &err), ROD_OK);
  char text[64];
  slurp("out.txt.part", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  slurp("out.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim 2\n");
  const char *both[] = {"out.txt", "out.txt.part"};
  expect_only(both, 2);
}
END_TEST

/* A symbolic link planted at PATH.part (or PATH.lock) is never followed:
 * its target stays as it was, the output is written under a fresh name
 * and moved into place, and the link stays. */
START_TEST(planted_part_link_not_followed) {
  char victim[600], link_path[600];
  in_dir(victim, sizeof victim, "victim.txt");
  in_dir(link_path, sizeof link_path, "out.txt.part");
  rod_test_write(dir, "victim.txt", "precious\n");
  ck_assert_int_eq(symlink(victim, link_path), 0);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim\n", &err), ROD_OK);
  char text[64];
  slurp("victim.txt", text, sizeof text);
  ck_assert_str_eq(text, "precious\n");
  slurp("out.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim\n");
  const char *keep[] = {"out.txt", "out.txt.part", "victim.txt"};
  expect_only(keep, 3);
  /* the lock's name: refused, nothing written */
  in_dir(link_path, sizeof link_path, "new.txt.lock");
  ck_assert_int_eq(symlink(victim, link_path), 0);
  ck_assert_int_eq(write_through("new.txt", &r, "# rodsim\n", &err),
                   ROD_EINVAL);
  slurp("victim.txt", text, sizeof text);
  ck_assert_str_eq(text, "precious\n");
}
END_TEST

/* Outputs that are not regular files: a FIFO (refused at once, where it
 * blocked), a dangling link (refused), a link to a file (written through,
 * the link kept), /dev/null (written in place, never removed). */
START_TEST(special_outputs) {
  char path[600];
  in_dir(path, sizeof path, "pipe");
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *o;
  const double t0 = now();
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  ck_assert(now() - t0 < 1.0 * slowdown());
  ck_assert_ptr_nonnull(strstr(err.message, "FIFO"));
  char target[600];
  in_dir(target, sizeof target, "nowhere/x.txt");
  in_dir(path, sizeof path, "dangling");
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "link to nothing"));
  in_dir(target, sizeof target, "real.txt");
  rod_test_write(dir, "real.txt", "");
  in_dir(path, sizeof path, "link.txt");
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(write_through("link.txt", &r, "# rodsim via\n", &err),
                   ROD_OK);
  struct stat st;
  ck_assert_int_eq(lstat(path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  char text[64];
  slurp("real.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim via\n");
  ck_assert_int_eq(rod_outfile_open("/dev/null", &r, &o, &err), ROD_OK);
  ck_assert_str_eq(rod_outfile_path_now(o), "/dev/null");
  rod_outfile_discard_now(o);
  rod_outfile_close(o, true);
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  const char *keep[] = {"dangling", "link.txt", "pipe", "real.txt"};
  expect_only(keep, 4);
}
END_TEST

/* Only the file this process created is removed: not when its name was
 * taken by another file meanwhile. HDF5 is handed the open file itself. */
START_TEST(discard_removes_only_our_file) {
  char path[600], part[700];
  in_dir(path, sizeof path, "out.txt");
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *o;
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_OK);
  snprintf(part, sizeof part, "%s.part", path);
  ck_assert_str_eq(rod_outfile_path_now(o), part);
  ck_assert_int_eq(strncmp(rod_outfile_name(o), "/proc/self/fd/", 14), 0);
  int fd = open(rod_outfile_name(o), O_RDWR);
  ck_assert(rod_outfile_is(o, fd));
  close(fd);
  ck_assert_int_eq(unlink(part), 0);
  rod_test_write(dir, "out.txt.part", "someone else's\n");
  ck_assert_int_eq(rod_outfile_commit(o, &err), ROD_EIO);
  ck_assert_ptr_nonnull(strstr(err.message, "no longer the file"));
  rod_outfile_close(o, true);
  char text[64];
  slurp("out.txt.part", text, sizeof text);
  ck_assert_str_eq(text, "someone else's\n");
  const char *keep[] = {"out.txt.part"};
  expect_only(keep, 1);
}
END_TEST

/* Frames of a dark rod along +x on a bright background, as dir/frames. */
static void write_frames(void) {
  char path[600];
  in_dir(path, sizeof path, "frames");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  rod_image *img = rod_image_alloc(80, 40);
  for (int f = 0; f < 3; f++) {
    for (int i = 0; i < 80 * 40; i++)
      img->lum[i] = 1.0f;
    for (int x = 10; x < 50 + 5 * f; x++)
      img->lum[20 * 80 + x] = img->lum[21 * 80 + x] = 0.0f;
    snprintf(path, sizeof path, "%s/frames/f%d.png", dir, f);
    ck_assert_int_eq(rod_image_write_png(img, path, ROD_PNG_GRAY, 8, NULL),
                     ROD_OK);
  }
  rod_image_free(img);
}

/* rodsim's commands replace only their own outputs: track's tip CSV (its
 * extended attribute user.rodsim), calibrate's fitted scenario, bench's
 * table; a
 * foreign file is refused (exit 2, one line, before any work) unless
 * --force, an input always. Before, each was replaced. */
START_TEST(commands_replace_only_their_outputs) {
  write_frames();
  const char *track = "track frames --fps 100 --scale 1e-3 --origin 10,20 -q";
  char args[600], text[512];
  snprintf(args, sizeof args, "%s -o tip.csv", track);
  double wall;
  rod_cli_result r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("tip.csv", text, sizeof text);
  ck_assert_msg(strncmp(text, "t,x,z\n", 6) == 0, "%s", text);
  r = run_in_dir(args, &wall); /* its own file: replaced (by its xattr) */
  ck_assert_msg(r.status == (xattrs_kept() ? 0 : 2), "%s", r.err);
  rod_test_write(dir, "notes.txt", "my notes\n");
  snprintf(args, sizeof args, "%s -o notes.txt", track);
  expect_refused(args, "notes.txt: -o: exists and is not a file rodsim wrote",
                 "--force");
  snprintf(args, sizeof args, "%s --shape frames/f0.png", track);
  expect_refused(args, "f0.png: --shape", "not a file rodsim wrote");
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  snprintf(args, sizeof args, "%s -o notes.txt --force", track);
  r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("notes.txt", text, sizeof text);
  ck_assert_int_eq(strncmp(text, "t,x,z\n", 6), 0);
  /* the scenario and the data fitted: never, also with --force */
  write_scenario("rod.ini", "");
  expect_refused("calibrate rod.ini --data tip.csv -o rod.ini --force",
                 "rod.ini: -o: is rod.ini, which this command reads", NULL);
  expect_refused("calibrate rod.ini --data tip.csv -o tip.csv --force",
                 "tip.csv, which this command reads", NULL);
  expect_refused("bench rod.ini -o rod.ini --force", "which this command reads",
                 NULL);
  rod_test_write(dir, "mine.csv", "my table\n");
  expect_refused("bench rod.ini -o mine.csv", "not a file rodsim wrote", NULL);
  r = run_in_dir("bench rod.ini -o bench.csv", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("bench rod.ini -o bench.csv", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("rod.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  const char *keep[] = {"bench.csv", "frames",  "mine.csv",
                        "notes.txt", "rod.ini", "tip.csv"};
  expect_only(keep, 6);
}
END_TEST

/* The writer's lock of dir/name held by this process while args runs:
 * refused (exit 2, one line naming this process) within a second past
 * start-up, that is before the work (a track, a fit), and nothing
 * written under name. */
static void expect_lock_taken(const char *args, const char *name) {
  char path[600], pid[64];
  in_dir(path, sizeof path, name);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *held;
  ck_assert_int_eq(rod_outfile_open(path, &r, &held, &err), ROD_OK);
  snprintf(pid, sizeof pid, "(rodsim, pid %ld on ", (long)getpid());
  expect_refused(args, "another process is writing this file", pid);
  rod_outfile_close(held, true);
  ck_assert_msg(access(path, F_OK) != 0, "'%s' wrote %s", args, name);
}

/* Every writer takes the writer's lock of its output (io/outfile.h): run,
 * static, track's -o and --shape, calibrate -o, bench -o, compare -o,
 * export's XDMF description and its VTK files, and the library. Before,
 * export --vtk wrote its files with fopen (no lock: two exports into one
 * folder interleaved, a planted link followed, a foreign file replaced),
 * track and calibrate met a held lock only after their work, compare after
 * its reference run. */
START_TEST(every_writer_takes_the_lock) {
  write_scenario("rod.ini", "");
  write_frames();
  double wall;
  rod_cli_result r = run_in_dir(
      "track frames --fps 100 --scale 1e-3 --origin 10,20 -q -o tip.csv",
      &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("run rod.ini -o run.h5 -q", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  expect_lock_taken("run rod.ini -o a.h5", "a.h5");
  expect_lock_taken("static rod.ini -o b.h5", "b.h5");
  const char *track = "track frames --fps 100 --scale 1e-3 --origin 10,20";
  char args[600];
  snprintf(args, sizeof args, "%s -o c.csv", track);
  expect_lock_taken(args, "c.csv");
  snprintf(args, sizeof args, "%s --shape d.h5", track);
  expect_lock_taken(args, "d.h5");
  /* and written when free: the shape of a PNG folder is the centreline's
   * (the default method there, rightmost, has none: a segfault before) */
  snprintf(args, sizeof args, "%s --shape d.h5 -o c.csv -q", track);
  r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "'%s': exit %d: %s", args, r.status, r.err);
  expect_lock_taken("calibrate rod.ini --data tip.csv -o e.ini", "e.ini");
  expect_lock_taken("bench rod.ini -o f.csv", "f.csv");
  expect_lock_taken("compare rod.ini --segments 4 -o g.csv", "g.csv");
  expect_lock_taken("export run.h5 --xdmf -o h.xdmf", "h.xdmf");
  char vtk[600];
  in_dir(vtk, sizeof vtk, "vtk");
  ck_assert_int_eq(mkdir(vtk, 0700), 0);
  expect_lock_taken("export run.h5 --vtk -o vtk", "vtk/run.pvd");
  /* the copy's files replace only rodsim's (before: any, by fopen) */
  rod_test_write(dir, "vtk/run_000001.vtp", "my notes\n");
  expect_refused("export run.h5 --vtk -o vtk", "run_000001.vtp",
                 "not a file rodsim wrote");
  char text[64];
  slurp("vtk/run_000001.vtp", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  r = run_in_dir("export run.h5 --vtk -o vtk --force", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("export run.h5 --vtk -o vtk", &wall); /* its own files */
  ck_assert_msg(r.status == 0, "%s", r.err);
  /* the library: a Sim's output */
  char ini[600], out[600], pid[64];
  in_dir(ini, sizeof ini, "rod.ini");
  in_dir(out, sizeof out, "lib.h5");
  rod_sim *sim;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_sim_create_file(ini, &sim, &err), ROD_OK);
  rod_out_rules rules = text_rules();
  rod_outfile *held;
  ck_assert_int_eq(rod_outfile_open(out, &rules, &held, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_EIO);
  snprintf(pid, sizeof pid, "(rodsim, pid %ld on ", (long)getpid());
  ck_assert_msg(strstr(rod_sim_error(sim), pid), "%s", rod_sim_error(sim));
  rod_outfile_close(held, true);
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  rod_sim_free(sim);
  const char *keep[] = {"c.csv",   "d.h5",   "frames",  "lib.h5",
                        "rod.ini", "run.h5", "tip.csv", "vtk"};
  expect_only(keep, 8);
}
END_TEST

/* ---- writers of one file ------------------------------------------------ */

enum { AT_ONCE = 10 };

/* `rodsim static good.ini -o out` started by fork, waiting at the barrier
 * (until its write end closes), its stderr in dir/err.K.W; hold: a FIFO
 * the writer that takes the lock waits on (hold_lock.c). */
static pid_t start_writer(const int barrier[2], const char *out, int k, int w,
                          bool hdf5_locking, const char *hold) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid > 0)
    return pid;
  char c, err[600];
  close(barrier[1]);
  while (read(barrier[0], &c, 1) > 0)
    ;
  snprintf(err, sizeof err, "%s/err.%d.%d", dir, k, w);
  int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int null = open("/dev/null", O_WRONLY);
  if (fd < 0 || null < 0 || dup2(fd, 2) < 0 || dup2(null, 1) < 0 ||
      chdir(dir) != 0)
    _exit(99);
  if (hdf5_locking)
    unsetenv("HDF5_USE_FILE_LOCKING");
  else
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
  if (hold) {
    setenv("RODSIM_HOLD_FIFO", hold, 1);
    setenv("LD_PRELOAD", getenv("RODSIM_HOLD_LOCK_LIB"), 1);
  }
  const char *exe = getenv("RODSIM");
  execl(exe, exe, "static", "good.ini", "-o", out, (char *)NULL);
  _exit(98);
}

/* The file of a writer that exited 0: complete, one sample. */
static void expect_complete(const char *name) {
  char path[600];
  in_dir(path, sizeof path, name);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "%s does not open", name);
  hid_t a = H5Aopen(f, "status", H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  char *status = NULL;
  H5Aread(a, t, &status);
  ck_assert_msg(status && strcmp(status, "complete") == 0, "%s: %s", name,
                status ? status : "(none)");
  H5free_memory(status);
  H5Tclose(t);
  H5Aclose(a);
  hid_t ds = H5Dopen2(f, "/samples", H5P_DEFAULT);
  long long n = 0;
  H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n);
  H5Dclose(ds);
  H5Fclose(f);
  ck_assert_int_eq(n, 1);
}

/* The pair of writers of out: their exits in code, stderr in err. */
typedef struct {
  char out[32], fifo[600];
  pid_t pid[2];
  int code[2], exited;
  char err[2][1024];
} writer_pair;

/* Check a pair's outcome: each exits 0 or is refused (exit 2, one line)
 * naming the other's pid, which exits 0; the file is complete. held:
 * exactly one refusal. Returns the refusals. */
static int check_pair(writer_pair *p, bool held) {
  int refusals = 0;
  for (int w = 0; w < 2; w++) {
    ck_assert_msg(p->code[w] == 0 || p->code[w] == 2, "%s: writer exit %d: %s",
                  p->out, p->code[w], p->err[w]);
    if (p->code[w] != 2)
      continue;
    refusals++;
    char holder[64];
    snprintf(holder, sizeof holder, "(rodsim, pid %ld on ",
             (long)p->pid[1 - w]);
    ck_assert_msg(p->code[1 - w] == 0 && count_lines(p->err[w]) == 1 &&
                      strstr(p->err[w], "another process is writing") &&
                      strstr(p->err[w], holder),
                  "%s refused: %s (the other: exit %d)", p->out, p->err[w],
                  p->code[1 - w]);
  }
  ck_assert_msg(!held || refusals == 1, "%s: exits %d and %d (%s%s)", p->out,
                p->code[0], p->code[1], p->err[0], p->err[1]);
  expect_complete(p->out);
  return refusals;
}

/* count pairs of writers of one file each, the two of a pair started at
 * the same moment (AT_ONCE pairs together on their own files). held: the
 * first to take the lock holds it until the other has exited
 * (hold_lock.c): exactly one writes a complete file, the other exits 2
 * with one line naming the first's pid. Not held: any interleaving of the
 * two; a complete file, and each either exits 0 or is refused naming the
 * other. */
static void writer_pairs(int count, bool hdf5_locking, bool held) {
  write_scenario("good.ini", "");
  const double t0 = now();
  int refusals = 0;
  for (int round = 0; round < count / AT_ONCE; round++) {
    int barrier[2];
    ck_assert_int_eq(pipe(barrier), 0);
    writer_pair pairs[AT_ONCE];
    memset(pairs, 0, sizeof pairs);
    for (int k = 0; k < AT_ONCE; k++) {
      writer_pair *p = &pairs[k];
      snprintf(p->out, sizeof p->out, "p%d.h5", k);
      snprintf(p->fifo, sizeof p->fifo, "%s/hold%d", dir, k);
      if (held)
        ck_assert_int_eq(mkfifo(p->fifo, 0600), 0);
      for (int w = 0; w < 2; w++)
        p->pid[w] = start_writer(barrier, p->out, k, w, hdf5_locking,
                                 held ? p->fifo : NULL);
    }
    close(barrier[0]);
    close(barrier[1]); /* go */
    for (int left = 2 * AT_ONCE; left > 0; left--) {
      int ws;
      pid_t pid = waitpid(-1, &ws, 0);
      ck_assert_int_gt(pid, 0);
      for (int k = 0; k < AT_ONCE; k++)
        for (int w = 0; w < 2; w++) {
          writer_pair *p = &pairs[k];
          if (p->pid[w] != pid)
            continue;
          p->code[w] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
          if (p->exited++ == 0 && held) { /* let the holder go on */
            int f = open(p->fifo, O_WRONLY);
            ck_assert_int_ge(f, 0);
            close(f);
          }
        }
    }
    for (int k = 0; k < AT_ONCE; k++) {
      for (int w = 0; w < 2; w++) {
        char name[32], path[600];
        snprintf(name, sizeof name, "err.%d.%d", k, w);
        slurp(name, pairs[k].err[w], sizeof pairs[k].err[w]);
        in_dir(path, sizeof path, name);
        unlink(path);
      }
      if (held)
        unlink(pairs[k].fifo);
      refusals += check_pair(&pairs[k], held);
    }
  }
  const char *keep[AT_ONCE + 1] = {"good.ini"};
  char names[AT_ONCE][32];
  for (int k = 0; k < AT_ONCE; k++) {
    snprintf(names[k], sizeof names[k], "p%d.h5", k);
    keep[k + 1] = names[k];
  }
  expect_only(keep, AT_ONCE + 1);
  fprintf(stderr,
          "%d writer pairs, HDF5's lock %s, %s: %d complete files, %d "
          "refusals, %.1f s\n",
          count, hdf5_locking ? "on" : "off",
          held ? "the first holding its lock" : "any interleaving", count,
          refusals, now() - t0);
  if (held)
    ck_assert_int_eq(refusals, count);
}

/* 50 pairs of writers started together on one file each: always one
 * complete file and one refusal naming the holder, with HDF5's own file
 * lock and without it (HDF5_USE_FILE_LOCKING=FALSE, as on network file
 * systems). Before, both could fail leaving no file, or both exit 0 with
 * one run's results replaced; without HDF5's lock the second was never
 * refused. */
/* 50 pairs, 10 under the sanitizers and valgrind (each rodsim takes
 * seconds there; what they check is each process's memory). */
static int pairs(void) { return slowdown() > 1 ? 10 : 50; }

START_TEST(writer_pairs_with_hdf5_lock) { writer_pairs(pairs(), true, true); }
END_TEST
START_TEST(writer_pairs_without_hdf5_lock) {
  writer_pairs(pairs(), false, true);
}
END_TEST

/* The same pairs with nothing held: whatever the interleaving of the
 * two writers' checks and creates, a complete file, and a refusal only
 * while the other holds the lock. */
START_TEST(writer_pairs_any_interleaving) {
  if (slowdown() >= 10) /* valgrind: the held pairs cover the code */
    return;
  writer_pairs(10, false, false);
  writer_pairs(10, true, false);
}
END_TEST

/* `rodsim run weight_release.ini` with a static solve that searches for
 * many seconds (a rod far too soft for its weight), -o out, interrupted
 * by SIGINT after a second: exit 130. */
static rod_cli_result interrupt_static(const char *out) {
  const char *data = getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data";
  char args[1024];
  snprintf(args, sizeof args,
           "run '%s/scenarios/weight_release.ini' -o %s --set "
           "rod.bending_stiffness=1e-12",
           data, out);
  char cmd[4096], o[600], e[600];
  snprintf(o, sizeof o, "%s/stdout.txt", dir);
  snprintf(e, sizeof e, "%s/stderr.txt", dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && exec timeout --foreground --preserve-status -s INT -k "
           "60 %g '%s' %s >'%s' 2>'%s'",
           dir, slowdown(), getenv("RODSIM"), args, o, e);
  rod_cli_result r;
  int w = system(cmd);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  rod_test_slurp(e, r.err, sizeof r.err);
  ck_assert_msg(r.status == 130, "exit %d: %s", r.status, r.err);
  return r;
}

/* A signal during the static solve removes only the file this run made:
 * an earlier file under the output's name stays as it was, and an output
 * that is not a regular file (here a link to /dev/null; as root, -o
 * /dev/null itself was deleted) is never removed. Before, the handler
 * unlinked the output's path when it was not a regular file. */
START_TEST(static_interrupt_removes_only_its_own_file) {
  char link_path[600], text[64];
  in_dir(link_path, sizeof link_path, "null");
  ck_assert_int_eq(symlink("/dev/null", link_path), 0);
  interrupt_static("null");
  struct stat st;
  ck_assert_int_eq(lstat(link_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  /* an earlier run's file: kept, byte for byte */
  write_scenario("good.ini", "");
  double wall;
  rod_cli_result r = run_in_dir("static good.ini -o out.h5", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  char path[600], before[1300];
  in_dir(path, sizeof path, "out.h5");
  snprintf(before, sizeof before, "cp '%s' '%s.before'", path, path);
  ck_assert_int_eq(system(before), 0);
  interrupt_static("out.h5");
  snprintf(before, sizeof before, "cmp -s '%s' '%s.before'", path, path);
  ck_assert_int_eq(system(before), 0);
  snprintf(text, sizeof text, "out.h5.before");
  const char *keep[] = {"good.ini", "null", "out.h5", text};
  expect_only(keep, 4);
}
END_TEST

/* `rodsim run x.ini -o x.ini` leaves the scenario intact (exit 2, one
 * line); before, it turned into an HDF5 file. */
START_TEST(run_onto_its_scenario_refused) {
  write_scenario("x.ini", "");
  expect_refused("run x.ini -o x.ini",
                 "x.ini: output.file: is x.ini, which "
                 "this command reads",
                 NULL);
  expect_refused("run x.ini -o x.ini --force", "which this command reads",
                 NULL);
  char text[512];
  slurp("x.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  rod_test_write(dir, "notes.txt", "my notes\n");
  expect_refused("static x.ini -o notes.txt", "not a file rodsim wrote",
                 "--force");
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  /* a scenario naming itself, or a file of the user, as its output */
  write_scenario("y.ini", "[output]\nfile = y.ini\n");
  expect_refused("run y.ini", "which this command reads", NULL);
  write_scenario("z.ini", "[output]\nfile = x.ini\n");
  expect_refused("run z.ini",
                 "x.ini: output.file: exists and is not a file "
                 "rodsim wrote",
                 NULL);
  slurp("x.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  const char *keep[] = {"notes.txt", "x.ini", "y.ini", "z.ini"};
  expect_only(keep, 4);
}
END_TEST

static Suite *files_suite(void) {
  Suite *s = suite_create("files");
  TCase *tc = tcase_create("inputs");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_add_test(tc, fifo_and_device_inputs_refused_at_once);
  tcase_add_test(tc, oversized_inputs_refused);
  tcase_add_test(tc, reader_bounds_are_exact);
  tcase_add_test(tc, escape_keeps_printable_utf8);
  tcase_add_test(tc, messages_escape_input_bytes);
  suite_add_tcase(s, tc);
  tc = tcase_create("outputs");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_add_test(tc, outputs_replace_only_rodsim_files);
  tcase_add_test(tc, hdf5_outputs_recognised_by_attribute);
  tcase_add_test(tc, text_outputs_recognised_by_xattr);
  tcase_add_test(tc, writer_lock_names_the_holder);
  tcase_add_test(tc, planted_part_link_not_followed);
  tcase_add_test(tc, killed_writers_part_taken_over);
  tcase_add_test(tc, special_outputs);
  tcase_add_test(tc, discard_removes_only_our_file);
  tcase_add_test(tc, commands_replace_only_their_outputs);
  tcase_add_test(tc, every_writer_takes_the_lock);
  tcase_add_test(tc, static_interrupt_removes_only_its_own_file);
  tcase_add_test(tc, run_onto_its_scenario_refused);
  suite_add_tcase(s, tc);
  tc = tcase_create("writers");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_set_timeout(tc, 240); /* 100 rodsim processes a test */
  tcase_add_test(tc, writer_pairs_with_hdf5_lock);
  tcase_add_test(tc, writer_pairs_without_hdf5_lock);
  tcase_add_test(tc, writer_pairs_any_interleaving);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(files_suite)
