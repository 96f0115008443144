/* Pieces shared by the libFuzzer targets (scripts/fuzz runs them). */
#ifndef ROD_FUZZ_UTIL_H
#define ROD_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input as a NUL-terminated string (freed by the caller). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s)
    abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* The input written to this process's scratch file (in TMPDIR, or /tmp;
 * removed at exit), for readers that take a path. Returns the path. */
static char fuzz_path[512];
static inline void fuzz_remove(void) { unlink(fuzz_path); }
static inline const char *fuzz_file(const uint8_t *data, size_t size,
                                    const char *suffix) {
  if (!fuzz_path[0]) {
    const char *dir = getenv("TMPDIR");
    snprintf(fuzz_path, sizeof fuzz_path, "%s/rodsim-fuzz-%ld%s",
             dir && dir[0] ? dir : "/tmp", (long)getpid(), suffix);
    atexit(fuzz_remove);
  }
  FILE *f = fopen(fuzz_path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  return fuzz_path;
}

/* A property the reader promises that does not hold: a finding. */
#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__,   \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#endif
