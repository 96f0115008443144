/* What every rodsim command shares (cli.h): its messages on stderr, the
 * options common to run, static and bench, the scenario loaded with
 * --set, the warnings of a run whose time step or grid cannot follow the
 * rod (the first mode, k h, the statics' error), and the CSV tables of
 * bench and compare. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/escape.h"
#include "core/model.h"
#include "io/outfile.h"

void cli_catch_signals(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* past a file size limit, writes fail (EFBIG) instead of killing us */
  signal(SIGXFSZ, SIG_IGN);
}

/* Where cli_fail writes: stderr, or what cli_messages_to chose. */
static FILE *messages;

FILE *cli_messages_to(FILE *to) {
  FILE *before = messages ? messages : stderr;
  messages = to;
  return before;
}

/* One line on stderr (or where cli_messages_to sends it): "rodsim: " and
 * text, its bytes that are not printable UTF-8 (from arguments and files)
 * escaped. */
static void say(const char *text) {
  char shown[4 * 8192];
  rod_text_escape(text, shown, sizeof shown);
  fprintf(messages ? messages : stderr, "rodsim: %s\n", shown);
}

void cli_fail(const char *fmt, ...) {
  char text[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  say(text);
}

void cli_print_error(const rod_error *err) {
  char buf[1024];
  rod_error_format(err, buf, sizeof buf);
  say(buf);
}

double cli_realtime_ratio(const rod_sim_result *res) {
  return res->wall_time > 0 ? res->time / res->wall_time : INFINITY;
}

int cli_option(int argc, char **argv, int *i, const char *name,
               const char **value) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
    return 0;
  if (a[n] == '=') {
    *value = a + n + 1;
    return 1;
  }
  if (*i + 1 >= argc) {
    cli_fail("%s: missing value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int cli_parse_numbers(const char *text, double *out, int max) {
  int n = 0;
  const char *p = text;
  for (;;) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) || n >= max)
      return -1;
    out[n++] = v;
    if (!*end)
      return n;
    if (*end != ',')
      return -1;
    p = end + 1;
  }
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
  if (strcmp(a, "--force") == 0) {
    c->force = true;
    return 1;
  }
  if (a[0] != '-' && !c->scenario) {
    c->scenario = a;
    return 1;
  }
  return 0;
}

void cli_warn_scenario(const rod_scenario *sc, int what) {
  rod_warning w[16];
  const int n = rod_scenario_warnings(sc, what, w, 16);
  for (int i = 0; i < n && i < 16; i++)
    cli_fail("%s: %s: warning: %s", sc->source, w[i].key, w[i].message);
}

int cli_nodes(const rod_scenario *sc) {
  rod_model m;
  rod_model_init(&m, sc);
  return rod_model_nodes(&m, sc);
}

int cli_load(const cli_common *c, rod_scenario *sc) {
  rod_error err = {{0}, {0}, {0}, 0};
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

int cli_table_args(int argc, char **argv, const char *command, const char *help,
                   const char *option, const char **value, rod_scenario *sc,
                   const char **csv_path, bool *force, bool *quiet) {
  cli_common c = {0};
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    }
    if (strcmp(argv[i], option) == 0) {
      if (i + 1 >= argc) {
        cli_fail("%s: %s: missing LIST", command, option);
        return CLI_BAD_INPUT;
      }
      *value = argv[++i];
      continue;
    }
    int r = cli_common_arg(&c, argc, argv, &i);
    if (r < 0)
      return CLI_BAD_INPUT;
    if (r == 0) {
      cli_fail("%s: unknown option '%s'", command, argv[i]);
      return CLI_BAD_INPUT;
    }
  }
  *csv_path = c.output;
  *force = c.force;
  *quiet = c.quiet;
  c.output = NULL;
  return cli_load(&c, sc);
}

/* The output rules of a table: an earlier table of this command is known
 * by its header's first line (into mark, of size 256). */
static rod_out_rules table_rules(const char *header, char *mark,
                                 const rod_scenario *sc, bool force) {
  snprintf(mark, 256, "%s", header);
  mark[strcspn(mark, "\n")] = '\0';
  rod_out_rules rules = {
      .kind = ROD_OUT_TEXT, .mark = mark, .key = "-o", .force = force};
  rod_out_add_scenario_inputs(&rules, sc);
  return rules;
}

int cli_table_check(const char *path, const char *header,
                    const rod_scenario *sc, bool force) {
  if (!path)
    return CLI_OK;
  char mark[256];
  rod_out_rules rules = table_rules(header, mark, sc, force);
  rod_error err = {{0}, {0}, {0}, 0};
  if (rod_outfile_check(path, &rules, &err) != ROD_OK) {
    cli_print_error(&err);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}

int cli_table_open(cli_table *t, const char *path, const char *header,
                   const rod_scenario *sc, bool force) {
  t->path = path;
  t->file = NULL;
  t->out = NULL;
  if (path) {
    char mark[256];
    rod_out_rules rules = table_rules(header, mark, sc, force);
    rod_error err = {{0}, {0}, {0}, 0};
    if (rod_outfile_open(path, &rules, &t->out, &err) != ROD_OK) {
      cli_print_error(&err);
      return CLI_BAD_INPUT;
    }
    if (!(t->file = rod_outfile_stream(t->out))) {
      rod_outfile_close(t->out, true);
      cli_fail("%s: cannot write", path);
      return CLI_BAD_INPUT;
    }
  }
  cli_table_row(t, header);
  return CLI_OK;
}

void cli_table_row(cli_table *t, const char *row) {
  fputs(row, stdout);
  fflush(stdout);
  if (t->file)
    fputs(row, t->file);
}

int cli_table_close(cli_table *t) {
  if (!t->file)
    return CLI_OK;
  rod_error err = {{0}, {0}, {0}, 0};
  int rc = CLI_OK;
  if (fclose(t->file) != 0) {
    cli_fail("%s: write error", t->path);
    rc = CLI_FAILED;
  } else if (rod_outfile_commit(t->out, &err) != ROD_OK) {
    cli_print_error(&err);
    rc = CLI_FAILED;
  }
  rod_outfile_close(t->out, rc != CLI_OK);
  return rc;
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
