/* The HDF5 file of docs/hdf5.md: layout, sample times
 * (section 2.3), a run killed with SIGKILL leaves a file that opens and
 * holds the samples flushed before the kill, and the file written through
 * the writer thread equals the one written on the caller's thread. */
#include <ctype.h>
#include <hdf5.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "h5util.h"
#include "integrators/workspace.h"
#include "io/bulk.h"
#include "io/deflate_chunk.h"
#include "io/logger_writer.h"
#include "io/runfile.h"
#include "rod/logger.h"
#include "rod/sim.h"

static char dir[256];

static void make_dir(void) { rod_test_dir(dir, sizeof dir, "rodsim_log"); }
static void remove_dir(void) { rod_test_rmdir(dir); }
static void write_scenario(const char *name, const char *text) {
  rod_test_write(dir, name, text);
}

/* Shape of a dataset; returns its rank. */
static int shape(hid_t f, const char *path, hsize_t *dims) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "%s missing", path);
  hid_t sp = H5Dget_space(d);
  int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
  H5Sclose(sp);
  H5Dclose(d);
  return rank;
}

static double *read_all(hid_t f, const char *path, size_t n) {
  double *v = malloc(n * sizeof(double));
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(
      H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Dclose(d);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(isfinite(v[i]), "%s[%zu] not finite", path, i);
  return v;
}

/* The first n values of a dataset of doubles, every one finite. */
static double *read_first(hid_t f, const char *path, hsize_t n) {
  double *v = malloc(n * sizeof(double));
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  hid_t fs = H5Dget_space(d);
  hsize_t start = 0;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &n, NULL);
  hid_t ms = H5Screate_simple(1, &n, NULL);
  ck_assert_int_ge(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, v), 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
  for (hsize_t i = 0; i < n; i++)
    ck_assert_msg(isfinite(v[i]), "%s[%llu] not finite", path,
                  (unsigned long long)i);
  return v;
}

/* Every dataset of docs/hdf5.md with T samples of N points (at least T
 * along T when killed: a kill during a flush may extend some further). */
static void check_layout_of(hid_t f, hsize_t T, hsize_t N, bool killed) {
  static const char *per_sample[] = {
      "/time",           "/energy/kinetic",      "/energy/elastic",
      "/energy/gravity", "/solver/iterations",   "/solver/residual",
      "/solver/method",  "/solver/integrations", "/solver/wall_time"};
  hsize_t d[3];
  for (size_t i = 0; i < sizeof per_sample / sizeof *per_sample; i++) {
    ck_assert_int_eq(shape(f, per_sample[i], d), 1);
    ck_assert_msg(killed ? d[0] >= T : d[0] == T,
                  "%s has %llu samples, expected %llu", per_sample[i],
                  (unsigned long long)d[0], (unsigned long long)T);
  }
  ck_assert_int_eq(shape(f, "/tip/position", d), 2);
  ck_assert((killed ? d[0] >= T : d[0] == T) && d[1] == 3);
  ck_assert_int_eq(shape(f, "/rod/s", d), 1);
  ck_assert(d[0] == N);
  static const char *rod[] = {"/rod/position", "/rod/velocity", "/rod/force",
                              "/rod/moment"};
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(shape(f, rod[i], d), 3);
    ck_assert_msg((killed ? d[0] >= T : d[0] == T) && d[1] == N && d[2] == 3,
                  "%s shape", rod[i]);
  }
  ck_assert_int_eq(shape(f, "/rod/orientation", d), 3);
  ck_assert((killed ? d[0] >= T : d[0] == T) && d[1] == N && d[2] == 4);
}
static void check_layout(hid_t f, hsize_t T, hsize_t N) {
  check_layout_of(f, T, N, false);
}

START_TEST(layout_and_sample_times) {
  make_dir();
  write_scenario("s.ini", "[rod]\nlength = 0.3\n[tip]\nmass = 0.01\n"
                          "[time]\ndt = 2e-3\nduration = 0.02\n"
                          "[space]\nnodes = 25\n[output]\nevery = 3\n"
                          "file = out.h5\n");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd %s && %s run s.ini --quiet >/dev/null", dir,
           getenv("RODSIM"));
  ck_assert_int_eq(system(cmd), 0);
  char path[512];
  snprintf(path, sizeof path, "%s/out.h5", dir);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  /* steps 1..10, every 3rd and the last: t = 0, 3, 6, 9, 10 dt */
  check_layout(f, 5, 25);
  double *t = read_all(f, "/time", 5);
  const int steps[5] = {0, 3, 6, 9, 10};
  for (int i = 0; i < 5; i++)
    ROD_ASSERT_NEAR(t[i], steps[i] * 2e-3, 1e-15);
  double *s = read_all(f, "/rod/s", 25);
  for (int j = 1; j < 25; j++)
    ck_assert(s[j] > s[j - 1]);
  ROD_ASSERT_NEAR(s[24], 0.3, 1e-15);
  double *q = read_all(f, "/rod/orientation", 5 * 25 * 4);
  for (int i = 0; i < 5 * 25; i++) {
    double n = 0;
    for (int k = 0; k < 4; k++)
      n += q[4 * i + k] * q[4 * i + k];
    ROD_ASSERT_NEAR(sqrt(n), 1.0, 1e-12);
  }
  double *p = read_all(f, "/rod/position", 5 * 25 * 3);
  double *tip = read_all(f, "/tip/position", 5 * 3);
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 3; k++)
      ck_assert(tip[3 * i + k] == p[(i * 25 + 24) * 3 + k]);
  char *status = rod_test_attr(f, "status"),
       *backend = rod_test_attr(f, "backend");
  char *version = rod_test_attr(f, "rodsim_version");
  char *scenario = rod_test_attr(f, "scenario");
  ck_assert_str_eq(status, "complete");
  ck_assert_str_eq(backend, "kirchhoff");
  ck_assert(strlen(version) > 0);
  ck_assert_ptr_nonnull(strstr(scenario, "[output]\nfile = out.h5\nevery = 3"));
  H5free_memory(status);
  H5free_memory(backend);
  H5free_memory(version);
  H5free_memory(scenario);
  free(t);
  free(s);
  free(q);
  free(p);
  free(tip);
  H5Fclose(f);
  remove_dir();
}
END_TEST

START_TEST(killed_run_leaves_readable_file) {
  make_dir();
  /* far more work than 2.5 s (a minute at 40x real time): killed after
   * 2.5 s it must hold the samples of the flushes before (at least every
   * second); 2.5 s times CK_TIMEOUT_MULTIPLIER under a setup that runs
   * the code that many times slower (asan: 4, valgrind: 40); every step
   * written (auto writes every 63rd: 32 samples in 10 s under asan at a
   * load of 8) */
  write_scenario("long.ini", "[rod]\nlength = 0.4\n[tip]\nmass = 0.02\n"
                             "[time]\ndt = 2e-3\nduration = 2000\n"
                             "[output]\nfile = long.h5\nevery = 1\n");
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (chdir(dir) != 0)
      _exit(3);
    execl(getenv("RODSIM"), "rodsim", "run", "long.ini", "--quiet",
          (char *)NULL);
    _exit(3);
  }
  const char *slower = getenv("CK_TIMEOUT_MULTIPLIER");
  const double seconds = 2.5 * (slower && atof(slower) > 1 ? atof(slower) : 1);
  struct timespec wait = {(time_t)seconds,
                          (long)(1e9 * (seconds - (time_t)seconds))};
  nanosleep(&wait, NULL);
  ck_assert_int_eq(kill(pid, SIGKILL), 0);
  int wst;
  waitpid(pid, &wst, 0);
  ck_assert(WIFSIGNALED(wst));
  char path[512];
  snprintf(path, sizeof path, "%s/long.h5", dir);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "the killed run's file does not open");
  hsize_t d[3];
  long long whole = 0; /* the samples the file counts whole */
  hid_t c = H5Dopen2(f, "/samples", H5P_DEFAULT);
  H5Dread(c, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &whole);
  H5Dclose(c);
  hsize_t T = (hsize_t)whole;
  ck_assert_msg(T >= 100, "only %llu samples after %g s", (unsigned long long)T,
                seconds);
  shape(f, "/rod/s", d);
  check_layout_of(f, T, d[0], true);
  double *t = read_first(f, "/time", T);
  for (hsize_t i = 1; i < T; i++)
    ck_assert(t[i] > t[i - 1]);
  char *status = rod_test_attr(f, "status");
  ck_assert_str_eq(status, "running");
  H5free_memory(status);
  free(t);
  H5Fclose(f);
  remove_dir();
}
END_TEST

/* The contact datasets appear exactly when the samples carry contact, with
 * shapes (T, N, 3), (T, N), (T) and (T), and hold what was appended; a run
 * without contact has no /contact group. */
static void write_samples(const char *path, bool contact) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_logger *lg;
  rod_error err;
  const bool earlier = access(path, F_OK) == 0;
  ck_assert_int_eq(rod_logger_open(&lg, path, &sc, "rfem", &err), ROD_OK);
  /* under PATH.part until the datasets and first samples are flushed
   * (chunk 0 whole, output.flush_interval after the first sample, or the
   * close): a file under path always holds them, an earlier one stays
   * till then */
  char part[600];
  snprintf(part, sizeof part, "%s.part", path);
  ck_assert_str_eq(rod_logger_file_now(lg), part);
  ck_assert(access(part, F_OK) == 0 && (access(path, F_OK) == 0) == earlier);
  enum { N = 3 };
  double s[N] = {0, 0.1, 0.2}, pos[3 * N] = {0}, quat[4 * N] = {0};
  double vel[3 * N] = {0}, force[3 * N];
  signed char active[N];
  for (int i = 0; i < N; i++)
    quat[4 * i] = 1.0;
  rod_step_stats st = {0};
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 3 * N; i++)
      force[i] = 10.0 * k + i;
    for (int i = 0; i < N; i++)
      active[i] = (signed char)((i + k) % 2);
    rod_sample smp = {.points = N,
                      .s = s,
                      .position = pos,
                      .orientation = quat,
                      .velocity = vel};
    if (contact) {
      smp.contact_force = force;
      smp.contact_active = active;
      smp.contact_gap_min = -1e-9 * k;
      smp.dissipated_contact = 0.5 * k;
    }
    ck_assert_int_eq(rod_logger_append(lg, 0.1 * k, &smp, &st, 0.0), ROD_OK);
    /* under one of the names: path once its first samples are flushed */
    ck_assert((access(path, F_OK) == 0) != (access(part, F_OK) == 0) ||
              earlier);
  }
  ck_assert_int_eq(rod_logger_close(lg, "complete"), ROD_OK);
  ck_assert(access(path, F_OK) == 0 && access(part, F_OK) != 0);
}

START_TEST(contact_datasets_only_with_contact) {
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/c.h5", dir);
  write_samples(path, true);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  hsize_t d[3];
  ck_assert_int_eq(shape(f, "/contact/force", d), 3);
  ck_assert(d[0] == 2 && d[1] == 3 && d[2] == 3);
  ck_assert_int_eq(shape(f, "/contact/active", d), 2);
  ck_assert(d[0] == 2 && d[1] == 3);
  ck_assert_int_eq(shape(f, "/contact/gap_min", d), 1);
  ck_assert(d[0] == 2);
  ck_assert_int_eq(shape(f, "/energy/dissipated_contact", d), 1);
  ck_assert(d[0] == 2);
  double *force = read_all(f, "/contact/force", 18);
  ck_assert(force[9 + 4] == 14.0);
  double *gap = read_all(f, "/contact/gap_min", 2);
  ck_assert(gap[1] == -1e-9);
  double *diss = read_all(f, "/energy/dissipated_contact", 2);
  ck_assert(diss[1] == 0.5);
  signed char active[6];
  hid_t ds = H5Dopen2(f, "/contact/active", H5P_DEFAULT);
  H5Dread(ds, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, active);
  H5Dclose(ds);
  ck_assert(active[0] == 0 && active[1] == 1 && active[3] == 1);
  free(force);
  free(gap);
  free(diss);
  H5Fclose(f);
  write_samples(path, false);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  ck_assert_int_eq(H5Lexists(f, "/contact", H5P_DEFAULT), 0);
  ck_assert_int_eq(H5Lexists(f, "/energy/dissipated_contact", H5P_DEFAULT), 0);
  H5Fclose(f);
  remove_dir();
}
END_TEST

/* A file as a run killed during a flush may leave it: /time and
 * /rod/position extended to 3 samples, the third never written (zeros),
 * /samples = 2. The run reader takes the 2 whole
 * samples; without the count it refuses the zeros (time not increasing);
 * a count beyond the extent is refused. */
static void write_torn(const char *path, long long whole) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (whole > 0) {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t c = H5Dcreate2(f, "/samples", H5T_STD_I64LE, sp, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(c, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &whole);
    H5Dclose(c);
    H5Sclose(sp);
  }
  const double t[3] = {0, 1e-3, 0};
  double p[3][2][3] = {{{0, 0, 0}, {1, 0, 0}}, {{0, 0, 0}, {1, 0, 1e-3}}};
  hsize_t dt = 3, dp[3] = {3, 2, 3};
  hid_t g = H5Gcreate2(f, "/rod", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(g);
  hid_t sp = H5Screate_simple(1, &dt, NULL);
  hid_t d = H5Dcreate2(f, "/time", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t);
  H5Dclose(d);
  H5Sclose(sp);
  sp = H5Screate_simple(3, dp, NULL);
  d = H5Dcreate2(f, "/rod/position", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                 H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, p);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
}

START_TEST(run_reader_takes_whole_samples) {
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/torn.h5", dir);
  rod_run_positions *r = NULL;
  rod_error err;
  write_torn(path, 2);
  ck_assert_int_eq(rod_run_positions_read(path, &r, &err), ROD_OK);
  ck_assert_int_eq(r->samples, 2);
  ck_assert_int_eq(r->points, 2);
  ck_assert(r->t[1] == 1e-3 && r->position[3 * 2 + 3 + 2] == 1e-3);
  rod_run_positions_free(r);
  write_torn(path, 0); /* no count: the zeros are not a sample */
  ck_assert_int_eq(rod_run_positions_read(path, &r, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "time");
  write_torn(path, 4);
  ck_assert_int_eq(rod_run_positions_read(path, &r, &err), ROD_EINVAL);
  ck_assert_msg(strstr(err.message, "holds 3 samples, the file says 4"), "%s",
                err.message);
  remove_dir();
}
END_TEST

/* Every sample to several loggers, each flushed as its own sink says. */
enum { TEE = 3 };
typedef struct {
  rod_sim_sink to[TEE];
} tee_sink;

static int tee_sample(void *user, double t, const rod_sample *s,
                      const rod_step_stats *st, double wall) {
  tee_sink *tee = user;
  for (int i = 0; i < TEE; i++) {
    int e = tee->to[i].sample(tee->to[i].user, t, s, st, wall);
    if (e != ROD_OK)
      return e;
  }
  return ROD_OK;
}

static int tee_tick(void *user) {
  tee_sink *tee = user;
  for (int i = 0; i < TEE; i++) {
    int e = tee->to[i].tick(tee->to[i].user);
    if (e != ROD_OK)
      return e;
  }
  return ROD_OK;
}

/* The bytes of dataset name (its native type), *n of them. */
static unsigned char *dataset_bytes(hid_t f, const char *name, size_t *n) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "%s missing", name);
  hid_t sp = H5Dget_space(d), ft = H5Dget_type(d);
  hid_t mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
  *n = (size_t)H5Sget_simple_extent_npoints(sp) * H5Tget_size(mt);
  unsigned char *v = malloc(*n + 1);
  ck_assert_int_ge(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Tclose(mt);
  H5Tclose(ft);
  H5Sclose(sp);
  H5Dclose(d);
  return v;
}

/* One run written by three loggers: on the caller's thread (a ring of one
 * block) with the default flush interval; on the caller's thread flushed
 * every 3 ms; through the writer thread (a ring of two blocks) flushed
 * every 3 ms, so that chunks are written in part, moved when they fill,
 * and the count lowered and raised many times. Every dataset of the three
 * is the same, bit for bit; compressed or not. */
START_TEST(writer_thread_writes_the_same_file) {
  make_dir();
  write_scenario("w.ini", "[rod]\nlength = 0.4\n[tip]\nmass = 0.02\n"
                          "[time]\ndt = 1e-3\nduration = 1\n"
                          "[space]\nnodes = 25\n[output]\nevery = 1\n");
  static const char *const names[] = {
      "/samples",           "/time",
      "/tip/position",      "/rod/s",
      "/rod/position",      "/rod/orientation",
      "/rod/velocity",      "/rod/force",
      "/rod/moment",        "/energy/kinetic",
      "/energy/elastic",    "/energy/gravity",
      "/solver/iterations", "/solver/residual",
      "/solver/method",     "/solver/integrations",
      "/solver/wall_time"};
  const int blocks[TEE] = {1, 1, 2};
  const double interval[TEE] = {1.0, 3e-3, 3e-3};
  for (int compression = 1; compression >= 0; compression--) {
    char ini[600], path[TEE][600];
    snprintf(ini, sizeof ini, "%s/w.ini", dir);
    rod_scenario *sc = rod_scenario_new();
    rod_error err;
    ck_assert_int_eq(rod_scenario_load(sc, ini, &err), ROD_OK);
    sc->output.compression = compression;
    rod_sim *sim;
    ck_assert_int_eq(rod_sim_create(sc, &sim, &err), ROD_OK);
    rod_logger *lg[TEE];
    tee_sink tee;
    for (int i = 0; i < TEE; i++) {
      snprintf(path[i], sizeof path[i], "%s/w%d.h5", dir, i);
      ck_assert_int_eq(rod_logger_open(&lg[i], path[i], sc, "kirchhoff", &err),
                       ROD_OK);
      ck_assert_int_eq(rod_logger_set_writer(lg[i], blocks[i], interval[i]),
                       ROD_OK);
      tee.to[i] = rod_logger_sink(lg[i]);
    }
    rod_sim_sink sink = {.sample = tee_sample, .tick = tee_tick, .user = &tee};
    rod_sim_set_sink(sim, &sink);
    ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
    ck_assert_int_eq(rod_sim_advance_to(sim, 1.0), ROD_OK);
    ck_assert_int_eq(rod_sim_flush(sim), ROD_OK);
    for (int i = 0; i < TEE; i++)
      ck_assert_int_eq(rod_logger_close(lg[i], "complete"), ROD_OK);
    rod_sim_free(sim);
    rod_scenario_free(sc);
    hid_t f[TEE];
    for (int i = 0; i < TEE; i++)
      ck_assert_int_ge(f[i] = H5Fopen(path[i], H5F_ACC_RDONLY, H5P_DEFAULT), 0);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
      size_t n0, n;
      unsigned char *want = dataset_bytes(f[0], names[k], &n0);
      if (k == 0) /* t = 0 and 1000 steps */
        ck_assert(n0 == 8 && *(int64_t *)want == 1001);
      for (int i = 1; i < TEE; i++) {
        unsigned char *got = dataset_bytes(f[i], names[k], &n);
        ck_assert_msg(n == n0 && memcmp(got, want, n) == 0,
                      "%s of logger %d differs (compression %d)", names[k], i,
                      compression);
        free(got);
      }
      free(want);
    }
    for (int i = 0; i < TEE; i++)
      H5Fclose(f[i]);
  }
  remove_dir();
}
END_TEST

/* The writer's thread moves the file into place after its first flush.
 * When the temporary file is no longer the one the logger made (removed,
 * another put under its name), the move fails there: the run is stopped
 * at its next call (ROD_EIO), the close says so, and neither the other
 * file nor a file under the output's name is touched or made. */
START_TEST(failed_move_into_place_stops_the_run) {
  make_dir();
  write_scenario("m.ini", "[rod]\nlength = 0.4\n[tip]\nmass = 0.02\n"
                          "[time]\ndt = 1e-3\nduration = 1\n"
                          "[space]\nnodes = 25\n");
  char ini[600], path[600], part[620];
  snprintf(ini, sizeof ini, "%s/m.ini", dir);
  snprintf(path, sizeof path, "%s/m.h5", dir);
  snprintf(part, sizeof part, "%s.part", path);
  rod_scenario *sc = rod_scenario_new();
  rod_error err;
  ck_assert_int_eq(rod_scenario_load(sc, ini, &err), ROD_OK);
  rod_sim *sim;
  ck_assert_int_eq(rod_sim_create(sc, &sim, &err), ROD_OK);
  rod_logger *lg;
  ck_assert_int_eq(rod_logger_open(&lg, path, sc, "kirchhoff", &err), ROD_OK);
  ck_assert_int_eq(rod_logger_set_writer(lg, 2, 1.0), ROD_OK);
  rod_sim_sink sink = rod_logger_sink(lg);
  rod_sim_set_sink(sim, &sink);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);     /* the first sample */
  ck_assert_int_eq(rod_logger_written(lg, NULL), 1); /* the file made */
  ck_assert_str_eq(rod_logger_file_now(lg), part);
  ck_assert_int_eq(unlink(part), 0);
  rod_test_write(dir, "m.h5.part", "someone else's\n");
  /* the flush, and the move that fails on the writer's thread: told
   * here already when that thread was quick */
  const int told = rod_logger_flush_if_older(lg, 0.0);
  ck_assert(told == ROD_OK || told == ROD_EIO);
  ck_assert_int_eq(rod_logger_written(lg, NULL), 1); /* the writer is done */
  ck_assert_str_eq(rod_logger_file_now(lg), part);
  ck_assert_int_eq(rod_logger_flush_if_older(lg, 0.0), ROD_EIO);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.01), ROD_EIO);
  ck_assert_int_eq(rod_logger_close(lg, "complete"), ROD_EIO);
  rod_sim_free(sim);
  rod_scenario_free(sc);
  ck_assert_int_ne(access(path, F_OK), 0);
  FILE *f = fopen(part, "r");
  char text[64] = "";
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(text, sizeof text, f));
  fclose(f);
  ck_assert_str_eq(text, "someone else's\n");
  remove_dir();
}
END_TEST

/* A ring that fills its huge pages (rod_writer_config.fill): blocks added
 * while the mapping's whole huge pages (2 MiB) have room for one more,
 * up to ROD_WRITER_MAX_BLOCKS; exactly the blocks asked for without. */
static int ring_blocks(size_t values, bool fill) {
  rod_column col = {.ds = -1,
                    .rank = 2,
                    .dims = {0, values, 0},
                    .esize = sizeof(double),
                    .width = values,
                    .parts = 1,
                    .keep_bits = 52};
  rod_writer_config cfg = {.block = 32,
                           .level = 1,
                           .blocks = 3,
                           .flush_interval = 1.0,
                           .fill = fill};
  rod_writer *w;
  ck_assert_int_eq(rod_writer_start(&w, &cfg, &col, 1), ROD_OK);
  const int blocks = rod_writer_blocks(w);
  rod_writer_stop(w);
  return blocks;
}

START_TEST(writer_ring_fills_its_huge_pages) {
  hbool_t threadsafe = false;
  H5is_library_threadsafe(&threadsafe);
  if (!threadsafe)
    return; /* a ring of one block */
  const size_t huge = 2u << 20;
  /* one part of a chunk gathered, the deflater's two and igzip's tables */
  const size_t rest =
      rod_bulk_room(32 * 1000 * 8) + rod_deflater_room(1, 32 * 1000 * 8);
  /* blocks of 256 kB: 3 and the rest in one huge page, room for more */
  const size_t block = rod_bulk_room(32 * 1000 * 8);
  int want = (int)((huge - rest) / block);
  want = want > ROD_WRITER_MAX_BLOCKS ? ROD_WRITER_MAX_BLOCKS : want;
  ck_assert_int_ge(want, 4);
  if (!rod_huge_pages())
    want = 3; /* no huge pages: no room paid for beyond the blocks */
  ck_assert_int_eq(ring_blocks(1000, true), want);
  ck_assert_int_eq(ring_blocks(1000, false), 3);
  /* blocks of 1 MB: 3 take two huge pages, with room for a fourth */
  const size_t big = rod_bulk_room(32 * 4000 * 8);
  const size_t rest_big =
      rod_bulk_room(32 * 4000 * 8) + rod_deflater_room(1, 32 * 4000 * 8);
  want = (int)((rod_bulk_size(3 * big + rest_big) - rest_big) / big);
  ck_assert_int_eq(ring_blocks(4000, true), rod_huge_pages() ? want : 3);
  ck_assert_int_ge(want, 3);
}
END_TEST

/* The writer's buffers in one mapping (io/bulk.h): on a huge page's
 * boundary (2 MiB), handed out on cache lines in order, none past its
 * end, advised as huge pages (VmFlags "hg" in /proc/self/smaps) wherever
 * the kernel has transparent huge pages, writable throughout. */
static bool advised_huge(const void *base) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f)
    return false;
  char line[512];
  bool in = false, hg = false;
  while (fgets(line, sizeof line, f)) {
    unsigned long from, to; /* a mapping's line: FROM-TO PERMS ... */
    if (!isupper((unsigned char)line[0]) &&
        sscanf(line, "%lx-%lx ", &from, &to) == 2)
      in = (uintptr_t)base >= from && (uintptr_t)base < to;
    if (in && strncmp(line, "VmFlags:", 8) == 0)
      hg = strstr(line, " hg") != NULL;
  }
  fclose(f);
  return hg;
}

START_TEST(bulk_buffers_on_huge_pages) {
  const size_t huge = 2u << 20;
  rod_bulk b;
  ck_assert_int_eq(rod_bulk_init(&b, huge + 1), ROD_OK);
  ck_assert((uintptr_t)b.base % huge == 0);
  ck_assert_uint_eq(b.size, 2 * huge);
  unsigned char *a = rod_bulk_take(&b, 100), *c = rod_bulk_take(&b, 1);
  ck_assert_ptr_eq(a, b.base);
  ck_assert_ptr_eq(c, b.base + 128);
  unsigned char *rest = rod_bulk_take(&b, 2 * huge - 192);
  ck_assert_ptr_eq(rest, b.base + 192);
  ck_assert_ptr_null(rod_bulk_take(&b, 1));
  rod_bulk_populate(&b, 4096);
  memset(b.base, 7, b.size);
  ck_assert_int_eq(b.base[b.size - 1], 7);
  FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char mode[128] = "";
  if (thp) {
    if (!fgets(mode, sizeof mode, thp))
      mode[0] = '\0';
    fclose(thp);
  }
  if (mode[0] && !strstr(mode, "[never]"))
    ck_assert_msg(advised_huge(b.base), "not advised as huge pages (%s)", mode);
  rod_bulk_free(&b);
  ck_assert_ptr_null(b.base);
  ck_assert_int_eq(rod_bulk_init(&b, 0), ROD_OK);
  ck_assert_ptr_null(rod_bulk_take(&b, 1));
  rod_bulk_free(&b);
}
END_TEST

static Suite *logger_suite(void) {
  Suite *s = suite_create("logger");
  TCase *tc = tcase_create("hdf5");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, layout_and_sample_times);
  tcase_add_test(tc, killed_run_leaves_readable_file);
  tcase_add_test(tc, contact_datasets_only_with_contact);
  tcase_add_test(tc, run_reader_takes_whole_samples);
  tcase_add_test(tc, writer_thread_writes_the_same_file);
  tcase_add_test(tc, failed_move_into_place_stops_the_run);
  tcase_add_test(tc, bulk_buffers_on_huge_pages);
  tcase_add_test(tc, writer_ring_fills_its_huge_pages);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(logger_suite)
