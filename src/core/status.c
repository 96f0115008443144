/* The status codes' messages (rod/status.h: one X-macro list for the enum
 * and this table) and rod_error: set with its file, key and message (the
 * user's text escaped, core/escape.h) and formatted as the one line a
 * command prints. */
#include "rod/status.h"

#include "core/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *rod_strerror(int status) {
  switch (status) {
#define ROD_STATUS_CASE(name, value, text)                                     \
  case value:                                                                  \
    return text;
    ROD_STATUS_LIST(ROD_STATUS_CASE)
#undef ROD_STATUS_CASE
  default:
    return "unknown status";
  }
}

int rod_error_set(rod_error *err, int status, const char *file, const char *key,
                  const char *fmt, ...) {
  if (!err)
    return status;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  snprintf(err->key, sizeof err->key, "%s", key ? key : "");
  err->line = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  /* file names, keys and values come from the user's files: shown
   * escaped (a terminal's control sequences, malformed UTF-8) */
  rod_text_escape_in_place(err->file, sizeof err->file);
  rod_text_escape_in_place(err->key, sizeof err->key);
  rod_text_escape_in_place(err->message, sizeof err->message);
  return status;
}

void rod_error_format(const rod_error *err, char *buf, unsigned long size) {
  if (!buf || size == 0)
    return;
  buf[0] = '\0';
  if (!err)
    return;
  size_t used = 0;
  const char *parts[3] = {err->file, err->key, err->message};
  for (int i = 0; i < 3; i++) {
    if (!parts[i][0])
      continue;
    int n =
        snprintf(buf + used, size - used, "%s%s", used ? ": " : "", parts[i]);
    if (n < 0 || (size_t)n >= size - used)
      return;
    used += (size_t)n;
  }
  if (err->line > 0 && used < size)
    snprintf(buf + used, size - used, " (line %d)", err->line);
}
