/* One value of a scenario key from its text (scenario_value.h): numbers
 * (finite, the whole text), vectors, integers, "auto", booleans, choices,
 * text and file names, the arclength "tip", each checked against its key's
 * range rule (also for scenarios filled in code, rod_scenario_validate),
 * with the messages that name the key and the value given. */
#include "scenario_value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parse one finite double filling the whole of [s, end); ROD_EFORMAT for a
 * malformed number, ROD_ENONFINITE for nan/inf. */
static int parse_double(const char *s, const char **end, double *out) {
  while (isspace((unsigned char)*s))
    s++;
  if (!*s)
    return ROD_EFORMAT;
  char *e;
  errno = 0;
  double v = strtod(s, &e);
  if (e == s)
    return ROD_EFORMAT;
  if (!isfinite(v))
    return ROD_ENONFINITE;
  if (errno == ERANGE && fabs(v) > 1.0)
    return ROD_ENONFINITE;
  *end = e;
  *out = v;
  return ROD_OK;
}

static bool only_space(const char *s) {
  while (isspace((unsigned char)*s))
    s++;
  return *s == '\0';
}

int rod_key_check_range(const key_def *k, const char *label, const double *v,
                        int n, const char *file, const char *value,
                        rod_error *err) {
  if (k->range == RANGE_NONZERO && n == 3) {
    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "must not be the zero vector (got %s)", value);
    return ROD_OK;
  }
  for (int i = 0; i < n; i++) {
    switch (k->range) {
    case RANGE_POSITIVE:
      if (!(v[i] > 0))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be > 0 (got %s)", value);
      break;
    case RANGE_NONNEG:
      if (!(v[i] >= 0))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be >= 0 (got %s)", value);
      break;
    case RANGE_CLOSED: {
      char lo[32], hi[32];
      rod_format_double(k->lo, lo, sizeof lo);
      rod_format_double(k->hi, hi, sizeof hi);
      if (!(v[i] >= k->lo && v[i] <= k->hi))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be in [%s, %s] (got %s)", lo, hi, value);
      break;
    }
    case RANGE_AT_LEAST:
      if (!(v[i] >= k->lo))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be >= %.0f (got %s)", k->lo, value);
      if (!(v[i] <= k->hi))
        return rod_error_set(err, ROD_EINVAL, file, label,
                             "must be <= %.0f (got %s)", k->hi, value);
      break;
    default:
      break;
    }
  }
  return ROD_OK;
}

static int number_error(int status, const char *label, const char *file,
                        const char *value, const char *what, rod_error *err) {
  if (status == ROD_ENONFINITE)
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be a finite number (got %s)", value);
  return rod_error_set(err, ROD_EINVAL, file, label, "%s (got %s)", what,
                       value);
}

static bool parse_bool(const char *s, bool *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = true;
      return true;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = false;
      return true;
    }
  }
  return false;
}

/* Copy value without surrounding blanks and without a trailing "# comment"
 * (inih strips "; comment" itself). */
static void clean_value(const char *value, char *out, size_t size) {
  while (isspace((unsigned char)*value))
    value++;
  snprintf(out, size, "%s", value);
  for (char *p = out; *p; p++) {
    if (*p == '#' && (p == out || isspace((unsigned char)p[-1]))) {
      *p = '\0';
      break;
    }
  }
  size_t n = strlen(out);
  while (n > 0 && isspace((unsigned char)out[n - 1]))
    out[--n] = '\0';
}

int rod_key_parse_value(char *base, const key_def *k, const char *raw,
                        const char *file, const char *label, rod_error *err) {
  char value[ROD_PATH_MAX + 64];
  clean_value(raw, value, sizeof value);
  if (value[0] == '\0' && k->type != KEY_STRING && k->type != KEY_FILE)
    return rod_error_set(err, ROD_EINVAL, file, label, "missing value");
  switch (k->type) {
  case KEY_ARCLENGTH:
  case KEY_DOUBLE: {
    if (k->type == KEY_ARCLENGTH && strcmp(value, "tip") == 0) {
      ((rod_arclength *)base)->tip = true;
      ((rod_arclength *)base)->s = 0;
      return ROD_OK;
    }
    const char *end;
    double v;
    int st = parse_double(value, &end, &v);
    if (st == ROD_OK && !only_space(end))
      st = ROD_EFORMAT;
    if (st != ROD_OK)
      return number_error(st, label, file, value,
                          k->type == KEY_ARCLENGTH
                              ? "must be tip or a number of metres"
                              : "not a number",
                          err);
    if ((st = rod_key_check_range(k, label, &v, 1, file, value, err)) != ROD_OK)
      return st;
    if (k->type == KEY_ARCLENGTH) {
      ((rod_arclength *)base)->tip = false;
      ((rod_arclength *)base)->s = v;
    } else {
      *(double *)base = v;
    }
    return ROD_OK;
  }
  case KEY_VEC2:
  case KEY_VEC3: {
    const int nv = k->type == KEY_VEC2 ? 2 : 3;
    const char *what = nv == 2 ? "expected two numbers separated by spaces"
                               : "expected three numbers separated by spaces";
    const char *p = value;
    double v[3];
    for (int i = 0; i < nv; i++) {
      int st = parse_double(p, &p, &v[i]);
      if (st != ROD_OK)
        return number_error(st, label, file, value, what, err);
      if (i < nv - 1 && !isspace((unsigned char)*p))
        return number_error(ROD_EFORMAT, label, file, value, what, err);
    }
    if (!only_space(p))
      return number_error(ROD_EFORMAT, label, file, value, what, err);
    int st = rod_key_check_range(k, label, v, nv, file, value, err);
    if (st != ROD_OK)
      return st;
    memcpy(base, v, (size_t)nv * sizeof v[0]);
    return ROD_OK;
  }
  case KEY_INT_AUTO:
    if (strcmp(value, "auto") == 0) {
      *(int *)base = 0;
      return ROD_OK;
    }
    /* fall through */
  case KEY_INT: {
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || !only_space(end) || errno == ERANGE)
      return number_error(ROD_EFORMAT, label, file, value,
                          k->type == KEY_INT_AUTO ? "must be an integer or auto"
                                                  : "must be an integer",
                          err);
    double dv = (double)v;
    int st = rod_key_check_range(k, label, &dv, 1, file, value, err);
    if (st != ROD_OK)
      return st;
    *(int *)base = (int)v;
    return ROD_OK;
  }
  case KEY_BOOL: {
    bool b;
    if (!parse_bool(value, &b))
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "must be true or false (got %s)", value);
    *(bool *)base = b;
    return ROD_OK;
  }
  case KEY_ENUM: {
    for (int i = 0; k->choices[i]; i++) {
      if (strcmp(value, k->choices[i]) == 0) {
        *(int *)base = i;
        return ROD_OK;
      }
    }
    char list[256] = "";
    for (int i = 0; k->choices[i]; i++) {
      strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
      strncat(list, k->choices[i], sizeof list - strlen(list) - 1);
    }
    return rod_error_set(err, ROD_EINVAL, file, label,
                         "must be one of %s (got %s)", list, value);
  }
  case KEY_STRING:
  case KEY_FILE: /* an empty file name means none */
    if (value[0] == '\0' && k->type == KEY_STRING)
      return rod_error_set(err, ROD_EINVAL, file, label, "must not be empty");
    if (strlen(value) >= k->size)
      return rod_error_set(err, ROD_EINVAL, file, label,
                           "longer than %zu characters", k->size - 1);
    snprintf(base, k->size, "%s", value);
    return ROD_OK;
  }
  return ROD_EINVAL;
}
