/* FFmpeg's log into a per-thread buffer (av_log.h). */
#include "track/av_log.h"

#include <libavutil/log.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

static _Thread_local char last_line[160];

static void keep_line(void *avcl, int level, const char *fmt, va_list vl) {
  if (level > AV_LOG_ERROR)
    return;
  char line[sizeof last_line];
  int print_prefix = 0;
  av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
  size_t n = strlen(line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = '\0';
  if (n > 0)
    memcpy(last_line, line, n + 1);
}

static void install(void) { av_log_set_callback(keep_line); }

void rod_av_log_capture(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install);
}

const char *rod_av_last_log(void) { return last_line; }

void rod_av_clear_log(void) { last_line[0] = '\0'; }
