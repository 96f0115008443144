/* rodsim keys: every scenario key with its default, unit, range and
 * meaning, read from the loader's own tables (rod_scenario_key_info). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rod/scenario.h"

static const char keys_help[] =
    "usage: rodsim keys [SECTION|SECTION.KEY]... [--markdown]\n\n"
    "Lists the scenario keys: default, unit, allowed values and meaning.\n"
    "With arguments, only the keys of those sections (or those keys).\n"
    "--markdown prints the reference as Markdown tables, one per section.\n";

/* Does the key match one of the filters (a section, or section.key)? */
static bool wanted(const rod_key_info *k, char **filters, int nfilters) {
  if (nfilters == 0)
    return true;
  char full[160];
  snprintf(full, sizeof full, "%s.%s", k->section, k->name);
  for (int i = 0; i < nfilters; i++) {
    const char *f = filters[i];
    size_t n = strlen(f);
    /* "load" matches "load.NAME" */
    if (strcmp(f, k->section) == 0 || strcmp(f, full) == 0 ||
        (strncmp(f, k->section, n) == 0 && k->section[n] == '.'))
      return true;
  }
  return false;
}

/* Markdown cells must not hold a bare '|'. */
static void cell(const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '|')
      fputs("\\|", stdout);
    else
      putchar(*p);
  }
}

int cmd_keys(int argc, char **argv) {
  bool markdown = false;
  char *filters[64];
  int nfilters = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(keys_help, stdout);
      return CLI_OK;
    }
    if (strcmp(argv[i], "--markdown") == 0) {
      markdown = true;
    } else if (argv[i][0] == '-') {
      cli_fail("keys: unknown option '%s'", argv[i]);
      return CLI_BAD_INPUT;
    } else if (nfilters < 64) {
      filters[nfilters++] = argv[i];
    }
  }
  const char *current = "";
  int shown = 0;
  for (int i = 0; i < rod_scenario_key_count(); i++) {
    rod_key_info k;
    rod_scenario_key_info(i, &k);
    if (!wanted(&k, filters, nfilters))
      continue;
    if (strcmp(current, k.section) != 0) {
      const char *doc = rod_scenario_section_doc(k.section);
      if (markdown)
        printf("%s### [%s]\n\n%s%s\n| key | default | unit | values | "
               "meaning |\n|---|---|---|---|---|\n",
               shown ? "\n" : "", k.section, doc, doc[0] ? "\n" : "");
      else
        printf("%s[%s]%s%s\n", shown ? "\n" : "", k.section, doc[0] ? "  " : "",
               doc);
      current = k.section;
    }
    if (markdown) {
      printf("| `%s` | ", k.name);
      cell(k.default_text[0] ? k.default_text : "(absent)");
      printf(" | %s | ", k.unit);
      cell(k.range);
      printf(" | ");
      cell(k.doc);
      printf(" |\n");
    } else {
      printf("  %-20s %-16s %-10s %s\n      %s\n", k.name,
             k.default_text[0] ? k.default_text : "(absent)", k.unit, k.range,
             k.doc);
    }
    shown++;
  }
  if (shown == 0) {
    cli_fail("keys: no key matches '%s' (see rodsim keys)", filters[0]);
    return CLI_BAD_INPUT;
  }
  return CLI_OK;
}
