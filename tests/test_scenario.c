/* The scenario loader: the key reference (every key documented, every
 * default valid), named sections, the canonical text read back to the same
 * scenario, range checks of values set in code, and messages that name the
 * line and the nearest key; the warnings that name a likely unit slip. */
#include <string.h>

#include "rod/scenario.h"
#include "testutil.h"

static char dir[256];

static void load_text(rod_scenario *sc, const char *text, int expect,
                      rod_error *err) {
  rod_test_dir(dir, sizeof dir, "rodsim_scenario");
  rod_test_write(dir, "s.ini", text);
  char path[512];
  snprintf(path, sizeof path, "%s/s.ini", dir);
  rod_scenario_default(sc);
  int st = rod_scenario_load(sc, path, err);
  ck_assert_msg(st == expect, "status %d, expected %d: %s: %s: %s", st, expect,
                err->file, err->key, err->message);
  rod_test_rmdir(dir);
}

/* Every key has a meaning, a known type and a range text; every default
 * reads back through the loader (the defaults are a valid scenario). */
START_TEST(every_key_documented) {
  int n = rod_scenario_key_count();
  ck_assert_int_gt(n, 60);
  for (int i = 0; i < n; i++) {
    rod_key_info k;
    ck_assert_int_eq(rod_scenario_key_info(i, &k), ROD_OK);
    ck_assert_msg(strlen(k.doc) > 10, "%s.%s: no meaning", k.section, k.name);
    ck_assert_msg(k.unit != NULL && k.type[0], "%s.%s", k.section, k.name);
    ck_assert_msg(rod_scenario_section_doc(k.section)[0], "[%s] undocumented",
                  k.section);
  }
  rod_key_info k;
  ck_assert_int_eq(rod_scenario_key_info(n, &k), ROD_EINVAL);
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
}
END_TEST

/* [load.NAME] sections: made on first mention with their defaults, "tip"
 * or metres for the position, written out and read back. */
START_TEST(named_sections_round_trip) {
  rod_scenario sc, back;
  rod_error err;
  load_text(&sc,
            "[rod]\nlength = 0.5\n[load.grip]\nforce = 1 2 3\n"
            "[load.tendon]\nposition = 0.25\nmoment = 0 0.1 0\nramp = 0.2\n"
            "[obstacle.post]\nshape = capsule\nradius = 0.01\n",
            ROD_OK, &err);
  ck_assert_int_eq(sc.loads.count, 2);
  ck_assert_str_eq(sc.loads.item[0].name, "grip");
  ck_assert(sc.loads.item[0].position.tip);
  ck_assert(sc.loads.item[0].force[2] == 3);
  ck_assert(!sc.loads.item[1].position.tip);
  ck_assert(sc.loads.item[1].position.s == 0.25);
  ck_assert(sc.loads.item[1].ramp == 0.2);
  ck_assert_int_eq(sc.obstacles.count, 1);
  ck_assert_int_eq(sc.obstacles.item[0].shape, ROD_SHAPE_CAPSULE);
  ck_assert(sc.obstacles.item[0].half_length == 0.05); /* default */
  char text[16384];
  size_t len = rod_scenario_to_ini(&sc, text, sizeof text);
  ck_assert_uint_lt(len, sizeof text);
  ck_assert_ptr_nonnull(strstr(text, "[load.tendon]\nposition = 0.25\n"));
  ck_assert_ptr_null(strstr(text, "force_file")); /* absent file names */
  load_text(&back, text, ROD_OK, &err);
  char again[16384];
  rod_scenario_to_ini(&back, again, sizeof again);
  ck_assert_str_eq(text, again);
  /* --set reaches a named section's key and makes the section */
  ck_assert_int_eq(rod_scenario_set(&back, "load.cable.position=tip", &err),
                   ROD_OK);
  ck_assert_int_eq(back.loads.count, 3);
  ck_assert_int_eq(rod_scenario_set(&back, "load.cable.position=top", &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "tip or a number"));
}
END_TEST

/* Values set in code get the loader's checks (and its messages). */
START_TEST(validate_checks_fields) {
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  sc.rod.length = -1;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "rod.length");
  ck_assert_str_eq(err.message, "must be > 0 (got -1)");
  rod_scenario_default(&sc);
  sc.space.nodes = 1;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "space.nodes");
  rod_scenario_default(&sc);
  sc.time.dt = 0;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "time.dt");
  rod_scenario_default(&sc);
  sc.environment.gravity[1] = NAN;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "finite"));
  rod_scenario_default(&sc);
  sc.space.integrator = 7;
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, "space.integrator");
}
END_TEST

/* One line naming the key for values that contradict each other. */
static void expect_invalid(const char *set1, const char *set2, const char *key,
                           const char *what) {
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_set(&sc, set1, &err), ROD_OK);
  if (set2)
    ck_assert_int_eq(rod_scenario_set(&sc, set2, &err), ROD_OK);
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_EINVAL);
  ck_assert_str_eq(err.key, key);
  ck_assert_msg(strstr(err.message, what), "%s: '%s' lacks '%s'", key,
                err.message, what);
}

START_TEST(cross_key_checks) {
  expect_invalid("rod.inner_diameter=1.42e-3", NULL, "rod.inner_diameter",
                 "must be < rod.diameter = 0.00142 (got 0.00142)");
  expect_invalid("rod.precurvature=0 1 0", "rod.precurvature_file=u.csv",
                 "rod.precurvature", "not both");
  expect_invalid("rod.drag_tangential=0.1", NULL, "rod.drag_tangential",
                 "drag_model = normal only");
  expect_invalid("tip.inertia=1e-6 1e-6 1e-6", NULL, "tip.inertia",
                 "needs tip.release = false");
  expect_invalid("tip.offset=0 0 0.01", NULL, "tip.offset",
                 "needs tip.release = false");
  expect_invalid("load.a.force=1 0 0", "load.a.force_file=f.csv",
                 "load.a.force", "give force or force_file, not both");
  expect_invalid("load.a.ramp=0.1", "load.a.moment_file=m.csv", "load.a.ramp",
                 "not to moment_file");
  expect_invalid("load.a.position=0.5", NULL, "load.a.position",
                 "<= rod.length (got 0.5)");
  rod_scenario sc;
  rod_error err;
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.position=0", &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.message, "must be > 0 (got 0)");
}
END_TEST

/* Data files named in a scenario file are found beside it, wherever the
 * program runs; names given on the command line stay as given. */
START_TEST(file_names_relative_to_the_scenario) {
  rod_scenario sc;
  rod_error err;
  rod_test_dir(dir, sizeof dir, "rodsim_scenario");
  rod_test_write(
      dir, "s.ini",
      "[rod]\nprecurvature_file = u.csv\n"
      "[load.a]\nforce_file = /abs/f.csv\nmoment_file = sub/m.csv\n");
  char path[512], want[600];
  snprintf(path, sizeof path, "%s/s.ini", dir);
  rod_scenario_default(&sc);
  ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
  char *real = realpath(dir, NULL);
  snprintf(want, sizeof want, "%s/u.csv", real);
  ck_assert_str_eq(sc.rod.precurvature_file, want);
  snprintf(want, sizeof want, "%s/sub/m.csv", real);
  ck_assert_str_eq(sc.loads.item[0].moment_file, want);
  ck_assert_str_eq(sc.loads.item[0].force_file, "/abs/f.csv");
  free(real);
  rod_test_rmdir(dir);
  ck_assert_int_eq(rod_scenario_set(&sc, "rod.precurvature_file=v.csv", &err),
                   ROD_OK);
  ck_assert_str_eq(sc.rod.precurvature_file, "v.csv");
  /* text without a folder keeps them as given too, so a scenario read back
   * from its own text is the same */
  ck_assert_int_eq(rod_scenario_load_string(
                       &sc, "[rod]\nprecurvature_file = w.csv\n", "t", &err),
                   ROD_OK);
  ck_assert_str_eq(sc.rod.precurvature_file, "w.csv");
  /* an empty name removes the file */
  ck_assert_int_eq(rod_scenario_set(&sc, "rod.precurvature_file=", &err),
                   ROD_OK);
  ck_assert_str_eq(sc.rod.precurvature_file, "");
}
END_TEST

/* A misspelt key or section names the nearest known one, and the line. */
START_TEST(messages_suggest_and_locate) {
  rod_scenario sc;
  rod_error err;
  load_text(&sc, "[rod]\nlength = 0.3\n\nlenght = 0.2\n", ROD_EINVAL, &err);
  ck_assert_int_eq(err.line, 4);
  ck_assert_ptr_nonnull(strstr(err.message, "did you mean rod.length?"));
  load_text(&sc, "[tme]\ndt = 1e-3\n", ROD_EINVAL, &err);
  ck_assert_int_eq(err.line, 1);
  ck_assert_ptr_nonnull(strstr(err.message, "did you mean [time]?"));
  load_text(&sc, "[rod]\nzzzz = 1\n", ROD_EINVAL, &err);
  ck_assert_ptr_null(strstr(err.message, "did you mean"));
  rod_scenario_default(&sc);
  snprintf(sc.source, sizeof sc.source, "file.ini");
  ck_assert_int_eq(rod_scenario_set(&sc, "solver.tolerence=1e-9", &err),
                   ROD_EINVAL);
  ck_assert_str_eq(err.file, "--set"); /* the command line's fault */
  ck_assert_ptr_nonnull(strstr(err.message, "solver.tolerance"));
  ck_assert_int_eq(rod_scenario_set(&sc, "load.a.forse=1 0 0", &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "load.a.force"));
  char line[1024];
  err.line = 7;
  rod_error_format(&err, line, sizeof line);
  ck_assert_ptr_nonnull(strstr(line, "--set: load.a.forse: unknown key"));
  ck_assert_ptr_nonnull(strstr(line, "(line 7)"));
}
END_TEST

/* ---- warnings: likely unit slips -----------------------------------------*/

/* The unit warnings of the default scenario with `set` ("section.key=value"
 * items, NULL-terminated) applied; at most 8 into w. */
static int unit_warnings(const char *const *set, rod_warning *w) {
  rod_scenario sc;
  rod_scenario_default(&sc);
  rod_error err;
  for (int i = 0; set[i]; i++) {
    char section[32], key[64];
    const char *dot = strchr(set[i], '.'), *eq = strchr(set[i], '=');
    snprintf(section, sizeof section, "%.*s", (int)(dot - set[i]), set[i]);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    ck_assert_int_eq(rod_scenario_set_key(&sc, section, key, eq + 1, &err),
                     ROD_OK);
  }
  ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
  return rod_scenario_warnings(&sc, ROD_WARN_UNITS, w, 8);
}

/* exactly one warning, about key, holding needle */
static void one_slip(const char *const *set, const char *key,
                     const char *needle) {
  rod_warning w[8];
  const int n = unit_warnings(set, w);
  ck_assert_msg(n == 1, "%s: %d warnings (%s: %s)", set[0], n,
                n ? w[0].key : "", n ? w[0].message : "");
  ck_assert_str_eq(w[0].key, key);
  ck_assert_msg(strstr(w[0].message, needle), "%s", w[0].message);
  ck_assert_ptr_null(strchr(w[0].message, '\n'));
}

/* A modulus in GPa or MPa, a density in g/mm^3 or kg/mm^3: more than 100
 * times outside the engineering materials (polymer foams to tungsten,
 * silicone elastomers to diamond); real rods at both ends are not. */
START_TEST(material_unit_slips_warn) {
  one_slip((const char *const[]){"rod.youngs_modulus=200", NULL},
           "rod.youngs_modulus", "not 200 as in GPa");
  one_slip((const char *const[]){"rod.youngs_modulus=2e15", NULL},
           "rod.youngs_modulus", "above the stiffest");
  one_slip((const char *const[]){"rod.shear_modulus=80", NULL},
           "rod.shear_modulus", "below the softest");
  one_slip((const char *const[]){"rod.density=7.85e-3", NULL}, "rod.density",
           "below the lightest");
  one_slip((const char *const[]){"rod.density=7.85e-6", NULL}, "rod.density",
           "steel is 7850 kg/m^3");
  one_slip((const char *const[]){"rod.density=7.85e6", NULL}, "rod.density",
           "above the densest");
  /* silicone (3e4 Pa at 1070 kg/m^3), expanded foam, osmium-dense tungsten
   * carbide and diamond's modulus are materials, not slips */
  rod_warning w[8];
  const char *const real[][4] = {
      {"rod.youngs_modulus=3e4", "rod.shear_modulus=1e4", "rod.density=1070",
       NULL},
      {"rod.density=15", "rod.youngs_modulus=1.2e12", NULL},
      {"rod.density=22000", "rod.shear_modulus=5e11", NULL}};
  for (int k = 0; k < 3; k++)
    ck_assert_msg(unit_warnings(real[k], w) == 0, "%s: %s", real[k][0],
                  w[0].message);
  /* a given bending stiffness makes E unused on the Kirchhoff rod */
  ck_assert_int_eq(unit_warnings((const char *const[]){"rod.youngs_modulus=200",
                                                       "rod.bending_stiffness="
                                                       "0.03",
                                                       NULL},
                                 w),
                   0);
}
END_TEST

/* Lengths: a diameter above 0.1 m or a length above 100 m (millimetres
 * for metres), and a rod shorter than 10 diameters, where rod theory does
 * not hold. */
START_TEST(geometry_unit_slips_warn) {
  one_slip((const char *const[]){"rod.length=20", "rod.diameter=1.42", NULL},
           "rod.diameter", "rod.diameter = 0.00142");
  one_slip((const char *const[]){"rod.length=408", NULL}, "rod.length",
           "rod.length = 0.408");
  one_slip((const char *const[]){"rod.length=0.3", "rod.diameter=0.05", NULL},
           "rod.length", "shorter than the 10 diameters");
  /* --set rod.diameter=1 on a 0.3 m rod: too thick and too short */
  rod_warning w[8];
  ck_assert_int_eq(
      unit_warnings(
          (const char *const[]){"rod.length=0.3", "rod.diameter=1", NULL}, w),
      2);
  ck_assert_str_eq(w[0].key, "rod.diameter");
  ck_assert_str_eq(w[1].key, "rod.length");
  /* 10 diameters, 0.1 m thick, 100 m long: rods still */
  ck_assert_int_eq(
      unit_warnings(
          (const char *const[]){"rod.length=0.5", "rod.diameter=0.05", NULL},
          w),
      0);
  ck_assert_int_eq(
      unit_warnings(
          (const char *const[]){"rod.length=100", "rod.diameter=0.1", NULL}, w),
      0);
}
END_TEST

/* No shipped scenario draws any warning, of any kind. */
START_TEST(shipped_scenarios_do_not_warn) {
  const char *data = getenv("RODSIM_DATA");
  ck_assert_msg(data != NULL, "RODSIM_DATA not set");
  const char *names[] = {
      "cantilever_table",  "cosserat_cantilever",  "first_rod",
      "flexible_pendulum", "flexible_pendulum_pd", "impulse",
      "pendulum_post",     "rod_on_table",         "weight_release"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s.ini", data, names[k]);
    rod_scenario sc;
    rod_error err;
    rod_scenario_default(&sc);
    ck_assert_int_eq(rod_scenario_load(&sc, path, &err), ROD_OK);
    ck_assert_int_eq(rod_scenario_validate(&sc, &err), ROD_OK);
    rod_warning w[4];
    const int n = rod_scenario_warnings(&sc, ROD_WARN_ALL, w, 4);
    ck_assert_msg(n == 0, "%s: %s: %s", names[k], n ? w[0].key : "",
                  n ? w[0].message : "");
  }
}
END_TEST

static Suite *scenario_suite(void) {
  Suite *s = suite_create("scenario");
  TCase *tc = tcase_create("keys");
  tcase_add_test(tc, every_key_documented);
  tcase_add_test(tc, named_sections_round_trip);
  tcase_add_test(tc, validate_checks_fields);
  tcase_add_test(tc, messages_suggest_and_locate);
  tcase_add_test(tc, cross_key_checks);
  tcase_add_test(tc, file_names_relative_to_the_scenario);
  suite_add_tcase(s, tc);
  tc = tcase_create("warnings");
  tcase_add_test(tc, material_unit_slips_warn);
  tcase_add_test(tc, geometry_unit_slips_warn);
  tcase_add_test(tc, shipped_scenarios_do_not_warn);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(scenario_suite)
