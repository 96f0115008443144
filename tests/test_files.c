/* The user's input files are safe with rodsim: every input is a regular
 * file read within bounds (a FIFO or /dev/zero is refused at once), and
 * the bytes of an input that a message echoes are shown escaped
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
#include "filesutil.h"
#include "io/datafile.h"
#include "rod/scenario.h"

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
  return s;
}

ROD_TEST_MAIN(files_suite)
