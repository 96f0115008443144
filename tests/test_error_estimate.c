/* The run's own error estimate (time.error_estimate, src/sim/error_estimate.c)
 * against the true error: the weight release, the impulse and a heavy
 * release (M g L^2 / EI = 10) by BDF-alpha at several steps, each against
 * a reference on the same grid (esdirk4 at 0.5 ms, whose error is a tenth
 * of theirs or less), short runs on 40 nodes. The estimate of the largest
 * tip error is within a factor of 3 of the largest true error, at the end
 * and half-way; the warning's time.dt; what a run without an estimate
 * says; the samples, the getters and /error_estimate in the file. */
#include <hdf5.h>
#include <string.h>

#include "rod/sim.h"
#include "scenarioutil.h"
#include "testutil.h"

/* The tip at every sample and the estimate there. */
typedef struct {
  int count, capacity;
  double *t, *tip, *estimate;
  bool has;
} tip_record;

static int on_sample(void *user, double t, const rod_sample *s,
                     const rod_step_stats *st, double wall) {
  (void)st;
  (void)wall;
  tip_record *r = user;
  ck_assert_int_lt(r->count, r->capacity);
  const double *p = s->position + 3 * (s->points - 1);
  r->t[r->count] = t;
  memcpy(r->tip + 3 * r->count, p, 3 * sizeof(double));
  r->estimate[r->count] = s->error_estimate;
  r->has = s->has_error_estimate;
  r->count++;
  return 0;
}

static void record_run(const rod_scenario *sc, tip_record *r,
                       rod_sim_result *res) {
  r->capacity = rod_sim_sample_count(sc) + 2;
  r->count = 0;
  r->t = calloc(r->capacity, sizeof(double));
  r->tip = calloc(3 * r->capacity, sizeof(double));
  r->estimate = calloc(r->capacity, sizeof(double));
  rod_sim_sink sink = {.sample = on_sample, .user = r};
  rod_error err;
  int st = rod_sim_run(sc, &sink, false, res, &err);
  ck_assert_msg(st == ROD_OK, "%s: %s (%s)", err.key, err.message,
                res->message);
}

static void record_free(tip_record *r) {
  free(r->t);
  free(r->tip);
  free(r->estimate);
}

/* The largest distance of run's tip from ref's up to sample `upto` of
 * run, at the times both have (ref's step divides run's). */
static double true_error(const tip_record *run, const tip_record *ref,
                         int upto) {
  double e = 0;
  int j = 0;
  for (int i = 0; i <= upto; i++) {
    while (j < ref->count && ref->t[j] < run->t[i] - 1e-9)
      j++;
    ck_assert_int_lt(j, ref->count);
    ck_assert(fabs(ref->t[j] - run->t[i]) < 1e-9);
    double d = 0;
    for (int k = 0; k < 3; k++)
      d += pow(run->tip[3 * i + k] - ref->tip[3 * j + k], 2);
    e = fmax(e, sqrt(d));
  }
  return e;
}

/* The three cases on 40 nodes, short: the weight release (0.3 s), the
 * impulse (0.15 s: the strike and the swing that follows) and the heavy
 * release (the weight release's rod with M g L^2 / EI = 10, 0.3 s). */
static void load_case(rod_scenario *sc, int which) {
  rod_test_load(sc, which == 1 ? "impulse.ini" : "weight_release.ini");
  sc->space.nodes = 40;
  sc->time.duration = which == 1 ? 0.15 : 0.3;
  if (which == 2)
    sc->tip.mass = 10 * sc->rod.bending_stiffness /
                   (9.81 * sc->rod.length * sc->rod.length);
}

/* The run's estimate within a factor of 3 of its largest true error
 * against ref, at the end and half-way, ref erring much less than it (its
 * own estimate below a tenth of the run's error); what (the case and the
 * run) labels the lines. Returns the estimate at the end. */
static double check_within_3(const char *what, const tip_record *run,
                             const tip_record *ref) {
  ck_assert(run->has);
  const int last = run->count - 1, mid = last / 2;
  const double e_end = true_error(run, ref, last);
  const double e_mid = true_error(run, ref, mid);
  const double est_end = run->estimate[last], est_mid = run->estimate[mid];
  const double ref_est = ref->estimate[ref->count - 1];
  printf("%s: largest tip error %.3g mm, estimated %.3g mm (half-way %.3g, "
         "%.3g mm); reference's own estimate %.3g mm\n",
         what, e_end * 1e3, est_end * 1e3, e_mid * 1e3, est_mid * 1e3,
         ref_est * 1e3);
  fflush(stdout);
  ck_assert(ref_est < 0.1 * e_end);
  ck_assert_msg(est_end > e_end / 3 && est_end < 3 * e_end,
                "%s: estimate %.3g mm, error %.3g mm", what, est_end * 1e3,
                e_end * 1e3);
  ck_assert_msg(est_mid > e_mid / 3 && est_mid < 3 * e_mid,
                "%s, half-way: estimate %.3g mm, error %.3g mm", what,
                est_mid * 1e3, e_mid * 1e3);
  /* the estimate only grows, from 0 */
  for (int i = 1; i < run->count; i++)
    ck_assert(run->estimate[i] >= run->estimate[i - 1]);
  ck_assert_double_eq(run->estimate[0], 0);
  return est_end;
}

/* The reference of case `which`: esdirk4 at fixed steps dt (s), on
 * `nodes` nodes (0: the scenario's), sampled every `interval` s (0: every
 * step). */
static void reference_run(int which, double dt, int nodes, double interval,
                          tip_record *ref, rod_sim_result *res) {
  rod_scenario sc;
  load_case(&sc, which);
  sc.time.scheme = ROD_SCHEME_ESDIRK4;
  sc.time.dt = dt;
  if (nodes > 0)
    sc.space.nodes = nodes;
  if (interval > 0) {
    sc.output.has_interval = true;
    sc.output.interval = interval;
  }
  record_run(&sc, ref, res);
}

/* x is 1, 2 or 5 times a power of ten. */
static void assert_125(double x) {
  const double m = x / pow(10, floor(log10(x)));
  ck_assert(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);
}

START_TEST(estimate_within_a_factor_of_3) {
  const char *names[] = {"weight release", "impulse", "heavy release"};
  rod_scenario sc;
  tip_record ref;
  rod_sim_result res;
  reference_run(_i, 5e-4, 0, 0, &ref, &res);
  /* a scheme with an error estimate of its own makes one too */
  ck_assert(ref.has);
  const double dts[] = {4e-3, 2e-3, 1e-3};
  for (int k = _i == 1 ? 1 : 0; k < 3; k++) {
    load_case(&sc, _i);
    sc.time.dt = dts[k];
    tip_record run;
    record_run(&sc, &run, &res);
    char what[96];
    snprintf(what, sizeof what, "%s, bdf-alpha at %g ms", names[_i],
             dts[k] * 1e3);
    const double est_end = check_within_3(what, &run, &ref);
    ROD_ASSERT_NEAR(res.error_estimate, est_end, 0);
    ROD_ASSERT_NEAR(res.error_estimate_until, res.time, 1e-9);
    record_free(&run);
  }
  record_free(&ref);
}
END_TEST

/* The time.dt the warning names brings the estimate within the share of
 * the motion: the weight release at 4 ms on 40 nodes (0.3 s), and at the
 * step named. */
START_TEST(step_named_meets_it) {
  rod_scenario sc;
  load_case(&sc, 0);
  sc.time.dt = 4e-3;
  rod_sim_result res;
  tip_record run;
  record_run(&sc, &run, &res);
  record_free(&run);
  ck_assert(res.tip_motion > 0.05);
  const double share = res.error_estimate / res.tip_motion;
  ck_assert(share > 0.01);
  const double dt = res.error_estimate_dt;
  ck_assert(dt < 4e-3 && dt > 0);
  assert_125(dt);
  load_case(&sc, 0);
  sc.time.dt = 4e-3;
  rod_sim *sim;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, sc.time.duration), ROD_OK);
  ROD_ASSERT_NEAR(rod_sim_error_estimate(sim), res.error_estimate, 0);
  double v;
  ck_assert_int_eq(rod_sim_get_stat(sim, "error_estimate", &v), ROD_OK);
  ROD_ASSERT_NEAR(v, res.error_estimate, 0);
  ck_assert_int_eq(rod_sim_get_stat(sim, "tip_motion", &v), ROD_OK);
  ROD_ASSERT_NEAR(v, res.tip_motion, 0);
  rod_sim_free(sim);
  load_case(&sc, 0);
  sc.time.dt = dt;
  tip_record fine;
  rod_sim_result fres;
  record_run(&sc, &fine, &fres);
  record_free(&fine);
  printf("weight release at 4 ms: estimate %.3g mm, %.3g%% of the motion; "
         "at the step named, %g ms: %.3g mm, %.3g%%\n",
         res.error_estimate * 1e3, 100 * share, dt * 1e3,
         fres.error_estimate * 1e3,
         100 * fres.error_estimate / fres.tip_motion);
  ck_assert(fres.error_estimate <= 0.01 * fres.tip_motion);
}
END_TEST

/* Under time.tolerance (esdirk4 and esdirk5 on the grid auto takes from
 * the tolerance, samples every ms) the companion takes the run's steps in
 * pairs: its estimate within a factor of 3 of the true error at the end
 * and half-way, at two tolerances, against esdirk4 at fixed 0.125 ms on
 * 100 nodes; the tolerance the warning would name. */
START_TEST(estimate_under_tolerance) {
  const char *names[] = {"weight release", "impulse", "heavy release"};
  rod_scenario sc;
  tip_record ref;
  rod_sim_result res;
  reference_run(_i, 1.25e-4, 100, 1e-3, &ref, &res);
  const double tols[] = {1e-4, 3e-5, 1e-3, 3e-4};
  for (int k = 0; k < 4; k++) {
    load_case(&sc, _i);
    sc.space.nodes = 0; /* auto: from the tolerance */
    sc.time.scheme = k < 2 ? ROD_SCHEME_ESDIRK4 : ROD_SCHEME_ESDIRK5;
    sc.time.has_tolerance = true;
    sc.time.tolerance = tols[k];
    sc.output.has_interval = true;
    sc.output.interval = 1e-3;
    tip_record run;
    record_run(&sc, &run, &res);
    char what[96];
    snprintf(what, sizeof what, "%s, %s under time.tolerance = %g m",
             names[_i], k < 2 ? "esdirk4" : "esdirk5", tols[k]);
    const double est_end = check_within_3(what, &run, &ref);
    ROD_ASSERT_NEAR(res.error_estimate, est_end, 0);
    ROD_ASSERT_NEAR(res.error_estimate_until, res.time, 1e-9);
    /* no time.dt to name; the tolerance named, where one is, is smaller,
     * 1, 2 or 5 times a power of ten */
    ROD_ASSERT_NEAR(res.error_estimate_dt, sc.time.dt, 0);
    const double tol = res.error_estimate_tolerance;
    ck_assert(tol > 0 && tol <= tols[k]);
    if (tol < tols[k]) {
      ck_assert(est_end > 0.01 * res.tip_motion);
      assert_125(tol);
    }
    record_free(&run);
  }
  record_free(&ref);
}
END_TEST

/* No estimate: time.error_estimate off, with fixed steps or under
 * time.tolerance; and before the first step. */
START_TEST(runs_without_an_estimate) {
  rod_scenario sc;
  load_case(&sc, 0);
  sc.time.duration = 0.02;
  sc.time.error_estimate = false;
  tip_record run;
  rod_sim_result res;
  record_run(&sc, &run, &res);
  ck_assert(!run.has);
  ROD_ASSERT_NEAR(res.error_estimate, -1, 0);
  record_free(&run);
  load_case(&sc, 0);
  sc.time.duration = 0.02;
  sc.time.scheme = ROD_SCHEME_ESDIRK4;
  sc.time.has_tolerance = true;
  sc.time.tolerance = 1e-4;
  sc.time.error_estimate = false;
  sc.output.has_interval = true;
  sc.output.interval = 1e-3;
  record_run(&sc, &run, &res);
  ck_assert(!run.has);
  ROD_ASSERT_NEAR(res.error_estimate, -1, 0);
  record_free(&run);
  rod_sim *sim;
  rod_error err;
  load_case(&sc, 0);
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ROD_ASSERT_NEAR(rod_sim_error_estimate(sim), 0, 0);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ROD_ASSERT_NEAR(rod_sim_error_estimate(sim), 0, 0);
  rod_sim_free(sim);
}
END_TEST

/* A dataset of doubles of f (count into *n); free it. */
static double *read_doubles(hid_t f, const char *name, int *n) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "%s missing", name);
  hid_t sp = H5Dget_space(d);
  *n = (int)H5Sget_simple_extent_npoints(sp);
  double *v = calloc((size_t)*n, sizeof(double));
  ck_assert_int_ge(
      H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Sclose(sp);
  H5Dclose(d);
  return v;
}

/* The string attribute `name` of dataset ds of f; free it with
 * H5free_memory. */
static char *dataset_attr(hid_t f, const char *ds, const char *name) {
  hid_t a = H5Aopen_by_name(f, ds, name, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_msg(a >= 0, "%s: attribute %s missing", ds, name);
  hid_t t = H5Aget_type(a);
  char *text = NULL;
  ck_assert(H5Tis_variable_str(t) > 0);
  H5Aread(a, t, &text);
  H5Tclose(t);
  H5Aclose(a);
  return text;
}

/* /error_estimate in the file: per sample, in m, with its meaning; the
 * last sample's is the run's. */
START_TEST(dataset_in_the_file) {
  char dir[256], path[512];
  rod_test_dir(dir, sizeof dir, "rod_errest");
  snprintf(path, sizeof path, "%s/run.h5", dir);
  rod_scenario sc;
  load_case(&sc, 0);
  sc.time.duration = 0.05;
  sc.output.every = 3;
  rod_sim *sim;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, path), ROD_OK);
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, sc.time.duration), ROD_OK);
  const double est = rod_sim_error_estimate(sim);
  ck_assert(est > 0);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  rod_sim_free(sim);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  int n = 0;
  double *e = read_doubles(f, "/error_estimate", &n);
  int nt = 0;
  double *t = read_doubles(f, "/time", &nt);
  ck_assert_int_eq(n, nt);
  ck_assert_double_eq(e[0], 0);
  ck_assert_double_eq(e[n - 1], est);
  char *units = dataset_attr(f, "/error_estimate", "units");
  ck_assert_str_eq(units, "m");
  H5free_memory(units);
  char *meaning = dataset_attr(f, "/error_estimate", "description");
  ck_assert(strstr(meaning, "largest tip error"));
  H5free_memory(meaning);
  free(e);
  free(t);
  H5Fclose(f);
  rod_test_rmdir(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("error_estimate");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, estimate_within_a_factor_of_3, 0, 3);
  tcase_add_loop_test(tc, estimate_under_tolerance, 0, 3);
  tcase_add_test(tc, step_named_meets_it);
  tcase_add_test(tc, runs_without_an_estimate);
  tcase_add_test(tc, dataset_in_the_file);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(suite)
