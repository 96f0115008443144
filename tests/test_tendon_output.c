/* The tendons seen from outside (docs/tendons.md, docs/hdf5.md): their
 * tensions and lengths through the simulation's API (rod_sim_set_tendon,
 * rod_sim_get_tendon) against the closed form of a straight tendon, and
 * the datasets /tendon/NAME/tension and /tendon/NAME/length of a run's
 * file with their units and the note of when a tendon was slack. */
#include <hdf5.h>
#include <string.h>

#include "h5util.h"
#include "kirchhoff/kirchhoff_rod.h"
#include "rod/sim.h"
#include "scenarioutil.h"

/* A weightless rod along +z, one straight tendon t0 at r = (6, -11) mm
 * with 12 N (test_tendon.c's), on [start, end] (end < 0: the tip). */
static void tendon_rod(rod_scenario *sc, rod_model_kind model, double start,
                       double end) {
  rod_test_tendon_rod(sc, model);
  rod_tendon_def *t = &sc->tendons.item[0];
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "t0");
  t->offset[0] = 0.006;
  t->offset[1] = -0.011;
  t->tension = 12.0;
  t->start = start;
  t->end.tip = end < 0;
  t->end.s = end;
  sc->tendons.count = 1;
}

/* The tendon's length in the static state, through rod_sim_get_tendon,
 * against the closed form: along the arc of check_arc (test_tendon.c)
 * the tendon's tangent is d3 and |p_s| = |v + u x r| = 1 - T |r|^2 / EI
 * (Cosserat: also - T / EA), constant, so l = (end - start) (1 - T
 * |r|^2 / EI [- T / EA]); the sweep's quadrature of a constant is exact
 * to rounding: 1e-12 of it. */
static void check_length(rod_model_kind model, double start, double end,
                         double tension_set) {
  rod_scenario sc;
  tendon_rod(&sc, model, start, end);
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  double T = sc.tendons.item[0].tension;
  if (tension_set >= 0) {
    ck_assert_int_eq(rod_sim_set_tendon(sim, "t0", tension_set), ROD_OK);
    T = tension_set;
  }
  ck_assert_int_eq(rod_sim_static(sim), ROD_OK);
  double tension = -1, length = -1;
  ck_assert_int_eq(rod_sim_get_tendon(sim, "t0", &tension, &length), ROD_OK);
  rod_model m;
  rod_model_init(&m, &sc);
  const double r2 = 0.006 * 0.006 + 0.011 * 0.011;
  const double b = end < 0 ? sc.rod.length : end;
  double pb = 1.0 - T * r2 / m.K[0];
  if (model == ROD_MODEL_COSSERAT)
    pb -= T / m.Kse[2];
  const double want = (b - start) * pb;
  ck_assert_msg(tension == T, "tension %.17g, set %.17g", tension, T);
  ck_assert_msg(fabs(length - want) < 1e-12 * want,
                "length %.17g, closed form %.17g", length, want);
  rod_sim_free(sim);
}

START_TEST(tendon_length_matches_closed_form) {
  check_length(ROD_MODEL_KIRCHHOFF, 0, -1, -1);
  check_length(ROD_MODEL_COSSERAT, 0, -1, -1);
  check_length(ROD_MODEL_KIRCHHOFF, 0.123, 0.3771, -1);
  check_length(ROD_MODEL_COSSERAT, 0.123, 0.3771, -1);
}
END_TEST

/* rod_sim_set_tendon before the static solve replaces the scenario's
 * tension there (the arc and length of 30 N); a name the scenario lacks,
 * a negative or non-finite tension are refused with ROD_EINVAL. */
START_TEST(set_tendon_replaces_the_tension) {
  check_length(ROD_MODEL_KIRCHHOFF, 0, -1, 30.0);
  check_length(ROD_MODEL_COSSERAT, 0, -1, 0.0);
  rod_scenario sc;
  tendon_rod(&sc, ROD_MODEL_KIRCHHOFF, 0, -1);
  rod_sim *sim = NULL;
  rod_error err;
  ck_assert_int_eq(rod_sim_create(&sc, &sim, &err), ROD_OK);
  double T;
  ck_assert_int_eq(rod_sim_set_tendon(sim, "t1", 1.0), ROD_EINVAL);
  ck_assert(strstr(rod_sim_error(sim), "tendon.t1") != NULL);
  ck_assert_int_eq(rod_sim_set_tendon(sim, "t0", -1.0), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_tendon(sim, "t0", NAN), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_tendon(sim, NULL, 1.0), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_get_tendon(sim, "t1", &T, NULL), ROD_EINVAL);
  ck_assert_int_eq(rod_sim_set_tendon(NULL, "t0", 1.0), ROD_EINVAL);
  rod_sim_free(sim);
}
END_TEST

/* ---- the file ------------------------------------------------------------ */

static double *read_doubles(hid_t f, const char *path, hsize_t *n) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "%s missing", path);
  hid_t sp = H5Dget_space(d);
  ck_assert_int_eq(H5Sget_simple_extent_ndims(sp), 1);
  H5Sget_simple_extent_dims(sp, n, NULL);
  double *v = malloc(*n * sizeof(double));
  ck_assert_int_ge(
      H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
  H5Sclose(sp);
  H5Dclose(d);
  return v;
}

/* A text attribute of the object at path. */
static char *object_attr(hid_t f, const char *path, const char *name) {
  hid_t o = H5Oopen(f, path, H5P_DEFAULT);
  ck_assert_msg(o >= 0, "%s missing", path);
  char *text = rod_test_attr(o, name);
  H5Oclose(o);
  return text;
}

/* A run with a tendon pulled by its tension file (0 N at t = 0, 2 N at 5
 * ms, 0 N from 9.5 ms on) writes /tendon/a/tension (N) and
 * /tendon/a/length (m) per sample: the tensions the table's at each
 * sample's time (1e-12 N), the lengths finite and within 1e-3 L of L, and
 * the tension's attribute slack names the samples at 0 N (t = 0 and from
 * 10 ms to the end: 12 of the 21); with output.interval the samples
 * between steps carry them too. */
START_TEST(tendon_datasets_in_the_file) {
  char dir[256], args[1200], path[512];
  rod_test_dir(dir, sizeof dir, "tendon_out");
  rod_test_write(dir, "T.csv", "t,T\n0,0\n0.005,2\n0.0095,0\n");
  rod_test_write(dir, "run.ini",
                 "[rod]\nlength = 0.3\n[time]\ndt = 1e-3\nduration = 0.02\n"
                 "[tendon.a]\noffset = 0.005 0\ntension_file = T.csv\n");
  snprintf(args, sizeof args, "run '%s/run.ini' -o '%s/run.h5' --quiet", dir,
           dir);
  rod_cli_result r = rod_test_cli(dir, args);
  ck_assert_msg(r.status == 0, "rodsim run: %s", r.err);
  snprintf(path, sizeof path, "%s/run.h5", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  hsize_t nt, nT, nl;
  double *t = read_doubles(f, "/time", &nt);
  double *T = read_doubles(f, "/tendon/a/tension", &nT);
  double *l = read_doubles(f, "/tendon/a/length", &nl);
  ck_assert(nt == 21 && nT == nt && nl == nt);
  int slack = 0;
  for (hsize_t i = 0; i < nt; i++) {
    const double want = t[i] <= 0.005    ? 400 * t[i]
                        : t[i] <= 0.0095 ? 2 - 2 * (t[i] - 0.005) / 0.0045
                                         : 0.0;
    ck_assert_msg(fabs(T[i] - want) < 1e-12, "tension %.17g at t = %g", T[i],
                  t[i]);
    ck_assert_msg(isfinite(l[i]) && fabs(l[i] - 0.3) < 1e-3 * 0.3,
                  "length %.17g at t = %g", l[i], t[i]);
    slack += !(T[i] > 0);
  }
  ck_assert_int_eq(slack, 12);
  const char *units[2][2] = {{"/tendon/a/tension", "N"},
                             {"/tendon/a/length", "m"}};
  for (int i = 0; i < 2; i++) {
    char *u = object_attr(f, units[i][0], "units");
    char *d = object_attr(f, units[i][0], "description");
    ck_assert_str_eq(u, units[i][1]);
    ck_assert(strlen(d) > 20);
    H5free_memory(u);
    H5free_memory(d);
  }
  /* the tendons' work: J, 0 at t = 0, finite; no friction, no friction
   * work */
  hsize_t nw;
  double *W = read_doubles(f, "/energy/tendon_work", &nw);
  ck_assert(nw == nt && W[0] == 0);
  for (hsize_t i = 0; i < nw; i++)
    ck_assert(isfinite(W[i]));
  free(W);
  char *wu = object_attr(f, "/energy/tendon_work", "units");
  ck_assert_str_eq(wu, "J");
  H5free_memory(wu);
  ck_assert_int_eq(H5Lexists(f, "/energy/tendon_friction_work", H5P_DEFAULT),
                   0);
  char *note = object_attr(f, "/tendon/a/tension", "slack");
  ck_assert_msg(strstr(note, "in 12 samples, from t = 0 s to t = 0.02 s"),
                "slack note: %s", note);
  H5free_memory(note);
  free(t);
  free(T);
  free(l);
  H5Fclose(f);
  /* output between steps (output.interval): 9 samples, the tensions
   * interpolated as the energies, never below 0 N */
  snprintf(args, sizeof args,
           "run '%s/run.ini' -o '%s/run.h5' --quiet --set "
           "output.interval=0.0025",
           dir, dir);
  r = rod_test_cli(dir, args);
  ck_assert_msg(r.status == 0, "rodsim run: %s", r.err);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  T = read_doubles(f, "/tendon/a/tension", &nT);
  l = read_doubles(f, "/tendon/a/length", &nl);
  ck_assert(nT == 9 && nl == 9);
  for (hsize_t i = 0; i < nT; i++)
    ck_assert(T[i] >= 0 && T[i] <= 2 && isfinite(l[i]));
  free(T);
  free(l);
  H5Fclose(f);
  /* with friction the friction loads' work too (<= 0 up to rounding: the
   * tendon slides under tension); a run without tendons writes neither */
  const char *friction = "--set tendon.a.friction=4";
  for (int k = 0; k < 2; k++) {
    rod_test_write(dir, "bare.ini",
                   "[rod]\nlength = 0.3\n[time]\ndt = 1e-3\nduration = "
                   "0.02\n");
    snprintf(args, sizeof args, "run '%s/%s.ini' -o '%s/run.h5' --quiet %s",
             dir, k ? "bare" : "run", dir, k ? "" : friction);
    r = rod_test_cli(dir, args);
    ck_assert_msg(r.status == 0, "rodsim run: %s", r.err);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert(f >= 0);
    ck_assert_int_eq(H5Lexists(f, "/energy/tendon_work", H5P_DEFAULT), !k);
    ck_assert_int_eq(H5Lexists(f, "/energy/tendon_friction_work", H5P_DEFAULT),
                     !k);
    if (!k) {
      double *Wf = read_doubles(f, "/energy/tendon_friction_work", &nw);
      ck_assert(nw == nt && Wf[0] == 0);
      for (hsize_t i = 0; i < nw; i++)
        ck_assert_msg(isfinite(Wf[i]) && Wf[i] <= 1e-12, "%g", Wf[i]);
      free(Wf);
    }
    H5Fclose(f);
  }
  /* a sweep's energy drift is the balance's residual: the energies' change
   * after the first step less the works' (docs/scale.md), to rounding */
  snprintf(args, sizeof args,
           "sweep '%s/run.ini' -o '%s/sw' --vary tendon.a.friction=0,4 "
           "--threads 1 --quiet",
           dir, dir);
  r = rod_test_cli(dir, args);
  ck_assert_msg(r.status == 0, "rodsim sweep: %s", r.err);
  snprintf(path, sizeof path, "%s/sw/index.h5", dir);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  double *drift = read_doubles(f, "/summary/energy_drift", &nw);
  ck_assert(nw == 2);
  H5Fclose(f);
  const char *sums[5] = {"/energy/kinetic", "/energy/elastic",
                         "/energy/gravity", "/energy/tendon_work",
                         "/energy/tendon_friction_work"};
  for (int c = 0; c < 2; c++) {
    snprintf(path, sizeof path, "%s/sw/case-%05d.h5", dir, c);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert(f >= 0);
    double want = 0, size = 0;
    for (int k = 0; k < (c ? 5 : 4); k++) {
      double *e = read_doubles(f, sums[k], &nw);
      want += (k < 3 ? 1 : -1) * (e[nw - 1] - e[1]);
      size += fabs(e[nw - 1]) + fabs(e[1]);
      free(e);
    }
    ck_assert_msg(fabs(drift[c] - want) <= 1e-12 * size,
                  "case %d: drift %.17g, the balance %.17g", c, drift[c], want);
    H5Fclose(f);
  }
  free(drift);
  rod_test_rmdir(dir);
}
END_TEST

static Suite *tendon_output_suite(void) {
  Suite *s = suite_create("tendon_output");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, tendon_length_matches_closed_form);
  tcase_add_test(tc, set_tendon_replaces_the_tension);
  tcase_add_test(tc, tendon_datasets_in_the_file);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(tendon_output_suite)
