/* The library cannot be misused into wrong data (include/rod/sim.h): every
 * call checks its handle and arguments (NULL, times that are not finite
 * or need more steps than an int counts, loads beyond ROD_SIM_MAX_INPUT),
 * the static state is solved once before the first step, a step whose
 * state is not finite is a failed step that writes nothing, a file is
 * marked complete only when its run reached the end or its caller closed
 * it, and memory that runs out where the time steps' workspaces are
 * allocated (the first step, a static state by segments) is a failed call
 * saying so. */
#include <hdf5.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "h5util.h"
#include "rod/sim.h"

static char dir[256];

static void make_dir(void) { rod_test_dir(dir, sizeof dir, "rodsim_misuse"); }
static void remove_dir(void) { rod_test_rmdir(dir); }

/* 0.3 m rod, 5 steps of 2 ms to time.duration = 0.01 s; extra appended. */
static rod_sim *make_sim(const char *extra) {
  char ini[1024];
  snprintf(ini, sizeof ini,
           "[rod]\nlength = 0.3\n[time]\ndt = 2e-3\nduration = 0.01\n"
           "[space]\nnodes = 40\n%s",
           extra);
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create_string(ini, "misuse.ini", &sim, &err),
                   ROD_OK);
  return sim;
}

static const char *path_of(const char *name) {
  static char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

/* The status attribute of a file (freed by the caller). */
static char *status_of(const char *name) {
  hid_t f = H5Fopen(path_of(name), H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "%s does not open", name);
  char *s = rod_test_attr(f, "status");
  H5Fclose(f);
  return s;
}

/* /time of a file: its length, every value finite and increasing; and
 * every position finite. */
static int check_times(const char *name) {
  hid_t f = H5Fopen(path_of(name), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ds = H5Dopen2(f, "/time", H5P_DEFAULT);
  hid_t sp = H5Dget_space(ds);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, NULL);
  double *t = malloc((n + 1) * sizeof *t);
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t);
  for (hsize_t i = 0; i < n; i++)
    ck_assert_msg(isfinite(t[i]) && (i == 0 || t[i] > t[i - 1]),
                  "%s: t[%d] = %g", name, (int)i, t[i]);
  free(t);
  H5Sclose(sp);
  H5Dclose(ds);
  ds = H5Dopen2(f, "/rod/position", H5P_DEFAULT);
  sp = H5Dget_space(ds);
  hsize_t d[3];
  H5Sget_simple_extent_dims(sp, d, NULL);
  size_t count = (size_t)(d[0] * d[1] * d[2]);
  double *p = malloc((count + 1) * sizeof *p);
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, p);
  for (size_t i = 0; i < count; i++)
    ck_assert_msg(isfinite(p[i]), "%s: position %zu is %g", name, i, p[i]);
  free(p);
  H5Sclose(sp);
  H5Dclose(ds);
  H5Fclose(f);
  return (int)n;
}

/* Every call with a NULL simulation (or NULL arrays): ROD_EINVAL or its
 * like, no crash. */
START_TEST(null_handles) {
  double v[12] = {0}, q[4] = {1, 0, 0, 0};
  rod_error err;
  rod_sim_result res;
  ck_assert_int_eq(rod_sim_create(NULL, NULL, &err), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_create_file(NULL, NULL, &err), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_create_string(NULL, NULL, NULL, &err), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_static(NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_step(NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_advance_to(NULL, 1.0), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_flush(NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_open_output(NULL, "x.h5"), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_close_output(NULL, NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_tip_load(NULL, v, v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_load(NULL, "a", v, v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_base(NULL, v, q, NULL, NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_get_positions(NULL, v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_get_energies(NULL, v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_get_stat(NULL, "time", v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_points(NULL), 0);
  ck_assert(isnan(rod_sim_time(NULL)));
  ck_assert_ptr_nonnull(strstr(rod_sim_error(NULL), "NULL"));
  ck_assert_ptr_null(rod_sim_scenario(NULL));
  ck_assert_str_eq(rod_sim_backend(NULL), "");
  rod_sim_get_result(NULL, &res);
  ck_assert_int_eq(res.status, ROD_EINVAL);
  rod_sim_set_sink(NULL, NULL);
  rod_sim_free(NULL);
  rod_sim *sim = make_sim("");
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_get_positions(sim, NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_load(sim, NULL, v, v), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_base(sim, NULL, q, NULL, NULL), ROD_EINVAL);
  rod_sim_free(sim);
}
END_TEST

/* advance_to a time that is not finite or needs more steps than an int
 * counts: refused, no step taken. Before, 1e12 s and NaN returned
 * success without a step (the step count overflowed). */
START_TEST(times_checked) {
  rod_sim *sim = make_sim("");
  const double bad[] = {1e12, NAN, INFINITY, -INFINITY, 4.3e6};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(rod_sim_advance_to(sim, bad[i]) == ROD_EINVAL, "t = %g",
                  bad[i]);
    ck_assert_double_eq(rod_sim_time(sim), 0.0);
  }
  ck_assert_int_eq(rod_sim_advance_to(sim, 4e-3), ROD_OK);
  ROD_ASSERT_NEAR(rod_sim_time(sim), 4e-3, 1e-15);
  rod_sim_free(sim);
}
END_TEST

/* Loads and the clamp's pose: not finite or beyond ROD_SIM_MAX_INPUT is
 * refused, the drive unchanged. Before, a tip force of 1e300 N gave a
 * "converged" step with a NaN state. */
START_TEST(loads_checked) {
  rod_sim *sim = make_sim("[load.a]\nposition = 0.15\n");
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  const double bad[] = {1e300, 1.1 * ROD_SIM_MAX_INPUT, NAN, -INFINITY};
  const double q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const double f[3] = {0, 0, bad[i]};
    ck_assert_int_eq(rod_sim_set_tip_load(sim, f, NULL), ROD_EINVAL);
    ck_assert_int_eq(rod_sim_set_tip_load(sim, NULL, f), ROD_EINVAL);
    ck_assert_int_eq(rod_sim_set_load(sim, "a", f, NULL), ROD_EINVAL);
    ck_assert_int_eq(rod_sim_set_base(sim, zero, q, f, NULL), ROD_EINVAL);
    ck_assert_int_eq(rod_sim_set_base(sim, f, q, NULL, NULL), ROD_EINVAL);
  }
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "at most 1e+150"));
  ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
  double p[3 * 40];
  ck_assert_int_eq(rod_sim_get_positions(sim, p), ROD_OK);
  for (int i = 0; i < 3 * 40; i++)
    ck_assert(isfinite(p[i]));
  rod_sim_free(sim);
}
END_TEST

/* A load of 1e160 N from t = 1 ms (the scenario's, within no bound but
 * finite): the first step converges to a state that is not finite. It is
 * a failed step: ROD_ENOCONV naming it, the static state kept (time,
 * positions), nothing of it in the file, whose status says why. Before,
 * the NaN state was written (as the CLI's run did). */
START_TEST(step_to_a_state_not_finite_fails) {
  rod_sim *sim = make_sim("[load.a]\nforce = 0 0 1e160\nstart = 0.001\n");
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("nan.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  double p0[3 * 40], p1[3 * 40];
  ck_assert_int_eq(rod_sim_get_positions(sim, p0), ROD_OK);
  ck_assert_int_eq(rod_sim_step(sim), ROD_ENOCONV);
  ck_assert_msg(strstr(rod_sim_error(sim), "not finite"), "%s",
                rod_sim_error(sim));
  ck_assert_double_eq(rod_sim_time(sim), 0.0);
  ck_assert_int_eq(rod_sim_get_positions(sim, p1), ROD_OK);
  ck_assert_int_eq(memcmp(p0, p1, sizeof p0), 0);
  ck_assert_int_eq(rod_sim_step(sim), ROD_ENOCONV); /* no more steps */
  rod_sim_free(sim);
  ck_assert_int_eq(check_times("nan.h5"), 1);
  char *status = status_of("nan.h5");
  ck_assert_msg(strstr(status, "not finite"), "%s", status);
  H5free_memory(status);
}
END_TEST

/* The static state once, before the first step: after steps it is
 * refused (before, it restarted the clock and the file's times went
 * backwards, still marked complete). */
START_TEST(static_after_steps_refused) {
  rod_sim *sim = make_sim("");
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("again.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_EINVAL); /* its sample is out */
  ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(rod_sim_error(sim), "once"));
  ROD_ASSERT_NEAR(rod_sim_time(sim), 2e-3, 1e-15);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.01), ROD_OK);
  rod_sim_free(sim);
  ck_assert_int_eq(check_times("again.h5"), 6);
  char *status = status_of("again.h5");
  ck_assert_str_eq(status, "complete");
  H5free_memory(status);
  /* without a sink, solving it again at t = 0 is harmless */
  sim = make_sim("");
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  rod_sim_free(sim);
}
END_TEST

/* A file is "complete" when its run reached time.duration or its caller
 * closed it; freed or replaced by a second output before the end, it
 * says interrupted and when. Before, each said complete. */
START_TEST(complete_only_at_the_end) {
  rod_sim *sim = make_sim("");
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("freed.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 4e-3), ROD_OK);
  rod_sim_free(sim);
  char *s = status_of("freed.h5");
  ck_assert_msg(strstr(s, "interrupted at t = 0.004 s, before the end") &&
                    strstr(s, "0.01 s"),
                "%s", s);
  H5free_memory(s);
  sim = make_sim("");
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("first.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 2e-3), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("second.h5")), ROD_OK);
  s = status_of("first.h5");
  ck_assert_ptr_nonnull(strstr(s, "interrupted at t = 0.002 s"));
  H5free_memory(s);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.01), ROD_OK);
  rod_sim_free(sim); /* at the end: complete */
  s = status_of("second.h5");
  ck_assert_str_eq(s, "complete");
  H5free_memory(s);
  /* closed by its caller: complete, or what the caller says */
  sim = make_sim("");
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("closed.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 2e-3), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, path_of("why.h5")), ROD_OK);
  ck_assert_int_eq(rod_sim_step(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, "interrupted (KeyboardInterrupt)"),
                   ROD_OK);
  rod_sim_free(sim);
  s = status_of("closed.h5");
  ck_assert_str_eq(s, "complete");
  H5free_memory(s);
  s = status_of("why.h5");
  ck_assert_str_eq(s, "interrupted (KeyboardInterrupt)");
  H5free_memory(s);
}
END_TEST

/* ---- out of memory ----------------------------------------------------- */

/* Runs call(sim) in a child whose address space may grow by 256 kB at
 * most (RLIMIT_AS) once sim is created from ini and prepared by
 * prepare (NULL: nothing): the workspaces the call allocates (modified
 * shooting's, over 500 kB an array on 40 nodes) cannot be. The child
 * exits with 0 when the call returned ROD_ENOMEM and its error says "out
 * of memory", and the simulation, its limit lifted, was freed. A static
 * solve before the limit allocates what the BLAS keeps for its calls
 * (OpenBLAS's buffers, allocated at its first call with one thread: under
 * the limit it waits for memory forever). Not under the sanitizers or
 * valgrind (CK_TIMEOUT_MULTIPLIER), whose allocators reserve their own
 * address space. */
static void out_of_memory(const char *ini, int (*prepare)(rod_sim *),
                          int (*call)(rod_sim *)) {
  const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
  if (m && atof(m) > 1)
    return;
  const pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    rod_sim *sim = NULL;
    rod_error err;
    if (rod_sim_create_string("[rod]\nlength = 0.3\n", "warm.ini", &sim,
                              &err) != ROD_OK ||
        rod_sim_static(sim) != ROD_OK)
      _exit(10);
    rod_sim_free(sim);
    if (rod_sim_create_string(ini, "memory.ini", &sim, &err) != ROD_OK ||
        (prepare && prepare(sim) != ROD_OK))
      _exit(10);
    struct rlimit lim, tight;
    const size_t used = rod_test_address_space();
    if (used == 0 || getrlimit(RLIMIT_AS, &lim) != 0)
      _exit(11);
    tight = lim;
    tight.rlim_cur = (rlim_t)(used + 256 * 1024);
    if (setrlimit(RLIMIT_AS, &tight) != 0)
      _exit(12);
    const int status = call(sim);
    const bool said = strstr(rod_sim_error(sim), "out of memory") != NULL;
    const bool again = call(sim) != ROD_OK; /* a failed simulation stays so */
    setrlimit(RLIMIT_AS, &lim);
    if (status != ROD_ENOMEM)
      _exit(13);
    if (!said || !again) {
      fprintf(stderr, "%s\n", rod_sim_error(sim));
      _exit(14);
    }
    rod_sim_free(sim);
    _exit(0);
  }
  int ws = 0;
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
                "child: %s %d (10 create, 11-12 limit, 13 status, 14 message)",
                WIFEXITED(ws) ? "exit" : "signal",
                WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
}

/* A static solve alone never allocates the time steps' workspaces: the
 * first step does, before its solve; when memory runs out there the step
 * fails with ROD_ENOMEM and says so (the static state kept). */
START_TEST(out_of_memory_at_the_first_step) {
  out_of_memory("[rod]\nlength = 0.3\n[time]\ndt = 2e-3\nduration = 0.01\n"
                "[space]\nnodes = 40\n",
                rod_sim_static, rod_sim_step);
}
END_TEST

/* A soft rod (w L^3 / EI = 1000, its static solutions growing by exp(21)
 * along it) solves its static state by segments, whose modified shooting
 * allocates its workspace then: without the memory, ROD_ENOMEM saying
 * so. */
START_TEST(out_of_memory_in_the_static_segments) {
  out_of_memory("[rod]\nlength = 1\ndiameter = 0.01\n"
                "youngs_modulus = 2.0372e9\ndensity = 1.2975e6\n"
                "[base]\ndirection = 1 0 0\n"
                "[environment]\ngravity = 0 0 -9.81\n[space]\nnodes = 40\n",
                NULL, rod_sim_static);
}
END_TEST

static Suite *misuse_suite(void) {
  Suite *s = suite_create("misuse");
  TCase *tc = tcase_create("api");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_add_test(tc, null_handles);
  tcase_add_test(tc, times_checked);
  tcase_add_test(tc, loads_checked);
  tcase_add_test(tc, step_to_a_state_not_finite_fails);
  tcase_add_test(tc, static_after_steps_refused);
  tcase_add_test(tc, complete_only_at_the_end);
  tcase_add_test(tc, out_of_memory_at_the_first_step);
  tcase_add_test(tc, out_of_memory_in_the_static_segments);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(misuse_suite)
