#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("rodsim: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_print_error(const rod_error *err) {
  char buf[1024];
  rod_error_format(err, buf, sizeof buf);
  fprintf(stderr, "rodsim: %s\n", buf);
}

bool cli_is_help(const char *arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_common_arg(cli_common *c, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
    if (*i + 1 >= argc) {
      cli_fail("%s: missing file name", a);
      return -1;
    }
    c->output = argv[++*i];
    return 1;
  }
  if (strncmp(a, "--set=", 6) == 0 || strcmp(a, "--set") == 0) {
    const char *v = a[5] == '=' ? a + 6 : NULL;
    if (!v) {
      if (*i + 1 >= argc) {
        cli_fail("--set: missing SECTION.KEY=VALUE");
        return -1;
      }
      v = argv[++*i];
    }
    if (c->nsets >= CLI_MAX_SETS) {
      cli_fail("--set: too many overrides");
      return -1;
    }
    c->sets[c->nsets++] = v;
    return 1;
  }
  if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
    c->quiet = true;
    return 1;
  }
  if (a[0] != '-' && !c->scenario) {
    c->scenario = a;
    return 1;
  }
  return 0;
}

int cli_load(const cli_common *c, rod_scenario *sc) {
  rod_error err = {{0}, {0}, {0}};
  if (!c->scenario) {
    cli_fail("missing SCENARIO.ini (see --help)");
    return CLI_BAD_INPUT;
  }
  rod_scenario_default(sc);
  if (rod_scenario_load(sc, c->scenario, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  for (int i = 0; i < c->nsets; i++) {
    if (rod_scenario_set(sc, c->sets[i], &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
  }
  if (c->output) {
    char a[1200];
    snprintf(a, sizeof a, "output.file=%s", c->output);
    if (rod_scenario_set(sc, a, &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
  }
  if (rod_scenario_validate(sc, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

int cli_parse_list(const char *text, double *out, int max) {
  int n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) || !(v > 0) || n >= max)
      return -1;
    out[n++] = v;
    p = end;
    while (*p == ' ')
      p++;
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n > 0 ? n : -1;
}
