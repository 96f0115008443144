/* Tip trajectory CSV (docs/files.md): round trips, the header's
 * column subsets and orders, comments, and errors that name the line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rod/tipcsv.h"
#include "testutil.h"

/* Parse text as a CSV named "tip.csv"; returns the status. */
static int read_text(const char *text, rod_tip_data **d, rod_error *err) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  ck_assert_ptr_nonnull(f);
  int st = rod_tip_read_stream(f, "tip.csv", d, err);
  fclose(f);
  return st;
}

/* The formatted error of a text that must be rejected with ROD_EINVAL. */
static void expect_error(const char *text, const char *expected) {
  rod_tip_data *d = (rod_tip_data *)1;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(read_text(text, &d, &err), ROD_EINVAL);
  ck_assert_ptr_null(d);
  char msg[1024];
  rod_error_format(&err, msg, sizeof msg);
  ck_assert_msg(strstr(msg, expected), "error '%s' lacks '%s'", msg, expected);
}

static char *temp_path(void) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/rodsim-tipcsv-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  return path;
}

START_TEST(round_trip_is_exact) {
  /* values whose decimal forms need 17 digits, huge, tiny, negative */
  const double t[4] = {-0.001, 0.0, 1.0 / 3.0, 2.5e3};
  const double xyz[12] = {0.1,   -2.5e10, 1e-300, 1.0 / 7.0, 0,     -0.0,
                          3e-17, 42,      -1e-5,  0.7,       1e300, 5.5};
  rod_tip_data *d = rod_tip_data_alloc(4);
  memcpy(d->t, t, sizeof t);
  memcpy(d->xyz, xyz, sizeof xyz);
  d->has[0] = d->has[1] = d->has[2] = true;
  const char *path = temp_path();
  rod_error err;
  ck_assert_int_eq(rod_tip_write(path, d, &err), ROD_OK);
  rod_tip_data *back;
  ck_assert_int_eq(rod_tip_read(path, &back, &err), ROD_OK);
  ck_assert_int_eq(back->n, 4);
  for (int i = 0; i < 4; i++) {
    ck_assert(back->t[i] == t[i]);
    for (int k = 0; k < 3; k++)
      ck_assert(back->xyz[3 * i + k] == xyz[3 * i + k]);
  }
  ck_assert(back->has[0] && back->has[1] && back->has[2]);
  rod_tip_data_free(back);
  rod_tip_data_free(d);
  unlink(path);
}
END_TEST

START_TEST(writer_uses_shortest_exact_numbers) {
  rod_tip_data *d = rod_tip_data_alloc(2);
  d->t[0] = 0.003; /* %.17g would print 0.0030000000000000001 */
  d->t[1] = 0.1 + 0.2;
  d->xyz[2] = -1.5;
  d->xyz[5] = 0.5;
  d->has[2] = true;
  char buf[256] = {0};
  FILE *f = fmemopen(buf, sizeof buf, "w");
  ck_assert_int_eq(rod_tip_write_stream(f, "mem", d, NULL), ROD_OK);
  fclose(f);
  ck_assert_str_eq(buf, "t,z\n0.003,-1.5\n0.30000000000000004,0.5\n");
  rod_tip_data_free(d);
}
END_TEST

START_TEST(column_subsets_and_orders) {
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(read_text("z,t\n-0.5,0\n-0.25,0.001\n", &d, &err), ROD_OK);
  ck_assert_int_eq(d->n, 2);
  ck_assert(!d->has[0] && !d->has[1] && d->has[2]);
  ck_assert(d->t[1] == 0.001 && d->xyz[3 + 2] == -0.25);
  ck_assert(isnan(d->xyz[0]) && isnan(d->xyz[1]));
  rod_tip_data_free(d);

  ck_assert_int_eq(read_text("y, t ,x\n1,2,3\n", &d, &err), ROD_OK);
  ck_assert(d->has[0] && d->has[1] && !d->has[2]);
  ck_assert(d->t[0] == 2 && d->xyz[0] == 3 && d->xyz[1] == 1);
  rod_tip_data_free(d);

  ck_assert_int_eq(read_text("t\n0\n1\n", &d, &err), ROD_OK);
  ck_assert(d->n == 2 && !d->has[0] && !d->has[1] && !d->has[2]);
  rod_tip_data_free(d);
}
END_TEST

/* The tracker's valid column: read in any position, written after the
 * coordinates, and the flagged samples dropped by rod_tip_data_valid. */
START_TEST(valid_column) {
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(
      read_text("valid,t,z\n1,0,0.5\n0,0.1,9\n1,0.2,0.25\n", &d, &err), ROD_OK);
  ck_assert(d->has_valid && d->has[2] && !d->has[0]);
  ck_assert_int_eq(d->valid[0], 1);
  ck_assert_int_eq(d->valid[1], 0);
  int skipped;
  rod_tip_data *v = rod_tip_data_valid(d, &skipped);
  ck_assert_int_eq(skipped, 1);
  ck_assert_int_eq(v->n, 2);
  ck_assert(v->t[1] == 0.2 && v->xyz[5] == 0.25 && v->has[2]);
  rod_tip_data_free(v);
  char buf[256] = "";
  FILE *f = fmemopen(buf, sizeof buf, "w");
  ck_assert_int_eq(rod_tip_write_stream(f, "mem", d, &err), ROD_OK);
  fclose(f);
  ck_assert_str_eq(buf, "t,z,valid\n0,0.5,1\n0.1,9,0\n0.2,0.25,1\n");
  rod_tip_data_free(d);
  /* without the column every sample is valid */
  ck_assert_int_eq(read_text("t,x\n0,1\n1,2\n", &d, &err), ROD_OK);
  ck_assert(!d->has_valid && d->valid[0] == 1 && d->valid[1] == 1);
  rod_tip_data_free(d);
  expect_error("t,x,valid\n0,1,2\n",
               "tip.csv: valid: sample 1 (t = 0): expected 0 or 1 (got 2)");
}
END_TEST

START_TEST(comments_blank_lines_and_line_endings) {
  const char *text = "\xEF\xBB\xBF# recorded 2024-05-01\n"
                     "\n"
                     "  # indented comment\n"
                     "t,x,z\r\n"
                     "0,0.1,0.2\r\n"
                     "# between rows\n"
                     "   \n"
                     "0.5 , 0.3 ,0.4\r\n";
  rod_tip_data *d;
  rod_error err;
  ck_assert_int_eq(read_text(text, &d, &err), ROD_OK);
  ck_assert_int_eq(d->n, 2);
  ck_assert(d->t[1] == 0.5 && d->xyz[3] == 0.3 && d->xyz[5] == 0.4);
  rod_tip_data_free(d);
}
END_TEST

START_TEST(malformed_row_names_its_line) {
  /* the short row is physical line 7: comments and blanks count */
  expect_error("# tip of the rod\n"
               "t,x,z\n"
               "0,0,0\n"
               "\n"
               "# a comment\n"
               "0.001,1,2\n"
               "0.002,1\n",
               "tip.csv: line 7: expected 3 numbers (got 2)");
  expect_error("t,x\n0,1\n1,2,3\n", "tip.csv: line 3: expected 2 numbers");
  expect_error("t,x\n0,abc\n", "line 2: column x: 'abc' is not a number");
  expect_error("t,x\n0,1.5m\n", "line 2: column x: '1.5m' is not a number");
  expect_error("t,x\n0,\n", "line 2: column x: '' is not a number");
  expect_error("t,x\n0,1\nnan,2\n", "line 3: column t: not finite (got nan)");
  expect_error("t,x\n0,-inf\n", "line 2: column x: not finite (got -inf)");
  expect_error("t,x\n0,1e999\n", "line 2: column x: not finite");
}
END_TEST

START_TEST(times_must_increase) {
  expect_error("t,z\n0,1\n0.002,1\n0.002,1\n",
               "line 4: t = 0.002 is not after the previous sample's "
               "t = 0.002");
  expect_error("t,z\n0,1\n-1,1\n", "line 3: t = -1 is not after");
}
END_TEST

START_TEST(bad_headers) {
  expect_error(
      "t,x,w\n0,1,2\n",
      "tip.csv: line 1: unknown column 'w' (expected t, x, y, z or valid)");
  expect_error("# c\nT,x\n0,1\n", "line 2: unknown column 'T'");
  expect_error("t,x,x\n0,1,2\n", "line 1: column 'x' appears twice");
  expect_error("x,z\n0,1\n", "line 1: the header has no 't' column");
  expect_error("t,,x\n0,1,2\n", "line 1: unknown column ''");
  expect_error("", "tip.csv: no header line");
  expect_error("# only a comment\n\n", "tip.csv: no header line");
  expect_error("t,x\n# no rows\n", "tip.csv: no samples after the header");
}
END_TEST

START_TEST(missing_file_is_an_io_error) {
  rod_tip_data *d;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_tip_read("/nonexistent/tip.csv", &d, &err), ROD_EIO);
  ck_assert_ptr_null(d);
  ck_assert_str_eq(err.file, "/nonexistent/tip.csv");
}
END_TEST

START_TEST(writer_refuses_what_cannot_be_read_back) {
  rod_tip_data *d = rod_tip_data_alloc(2);
  d->t[0] = 1;
  d->t[1] = 1; /* not increasing */
  d->xyz[0] = d->xyz[3] = 0;
  d->has[0] = true;
  const char *path = temp_path();
  unlink(path);
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_tip_write(path, d, &err), ROD_EINVAL);
  ck_assert_msg(strstr(err.message, "sample 1"), "%s", err.message);
  ck_assert_int_ne(access(path, F_OK), 0); /* no file left behind */
  d->t[1] = 2;
  d->xyz[3] = NAN; /* x is present, so NaN cannot be written */
  ck_assert_int_eq(rod_tip_write(path, d, &err), ROD_EINVAL);
  ck_assert_msg(strstr(err.message, "x is not finite"), "%s", err.message);
  d->has[0] = false; /* absent coordinates may hold anything */
  ck_assert_int_eq(rod_tip_write(path, d, &err), ROD_OK);
  unlink(path);
  rod_tip_data_free(d);
}
END_TEST

static Suite *tipcsv_suite(void) {
  Suite *s = suite_create("tipcsv");
  TCase *io = tcase_create("round trip");
  tcase_set_timeout(io, 10);
  tcase_add_test(io, round_trip_is_exact);
  tcase_add_test(io, writer_uses_shortest_exact_numbers);
  tcase_add_test(io, column_subsets_and_orders);
  tcase_add_test(io, comments_blank_lines_and_line_endings);
  tcase_add_test(io, valid_column);
  suite_add_tcase(s, io);
  TCase *bad = tcase_create("errors");
  tcase_set_timeout(bad, 10);
  tcase_add_test(bad, malformed_row_names_its_line);
  tcase_add_test(bad, times_must_increase);
  tcase_add_test(bad, bad_headers);
  tcase_add_test(bad, missing_file_is_an_io_error);
  tcase_add_test(bad, writer_refuses_what_cannot_be_read_back);
  suite_add_tcase(s, bad);
  return s;
}

ROD_TEST_MAIN(tipcsv_suite)
