/* Bounded, non-blocking reading of the user's input files (datafile.h). */
#define _GNU_SOURCE /* fopencookie */
#include "io/datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the message. */
static const char *file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

/* "16 MiB" for a limit of whole MiB, else bytes. */
static void size_text(size_t bytes, char *buf, size_t size) {
  if (bytes % ((size_t)1 << 20) == 0)
    snprintf(buf, size, "%zu MiB", bytes >> 20);
  else
    snprintf(buf, size, "%zu bytes", bytes);
}

static int too_large(const char *path, size_t max, rod_error *err) {
  char limit[32];
  size_text(max, limit, sizeof limit);
  return rod_error_set(err, ROD_EINVAL, path, NULL,
                       "larger than %s, the most rodsim reads of such a file",
                       limit);
}

/* A regular file of at most max bytes (0: any), by st. */
static int check_stat(const char *path, const struct stat *st, size_t max,
                      rod_error *err) {
  if (!S_ISREG(st->st_mode))
    return rod_error_set(err, ROD_EINVAL, path, NULL,
                         "is %s, not a regular file", file_kind(st->st_mode));
  if (max > 0 && (unsigned long long)st->st_size > max)
    return too_large(path, max, err);
  return ROD_OK;
}

int rod_datafile_open(const char *path, bool allow_stdin, size_t max, int *fd,
                      rod_error *err) {
  *fd = -1;
  if (allow_stdin && strcmp(path, "-") == 0) {
    int f = fcntl(0, F_DUPFD_CLOEXEC, 3);
    if (f < 0)
      return rod_error_set(err, ROD_EIO, "-", NULL,
                           "cannot read standard input (%s)", strerror(errno));
    *fd = f;
    return ROD_OK;
  }
  /* stat first: opening a device may act (a tape rewinds, a watchdog
   * starts); then the open file itself, which a rename may have swapped */
  struct stat st;
  if (stat(path, &st) != 0)
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot open (%s)",
                         strerror(errno));
  int c = check_stat(path, &st, max, err);
  if (c != ROD_OK)
    return c;
  /* O_NONBLOCK stays: no effect on a regular file's reads, and a special
   * file that claims to be one (in /proc) fails instead of waiting */
  int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (f < 0)
    return rod_error_set(err, ROD_EIO, path, NULL, "cannot open (%s)",
                         strerror(errno));
  if (fstat(f, &st) != 0 || (c = check_stat(path, &st, max, err)) != ROD_OK) {
    close(f);
    return c != ROD_OK ? c
                       : rod_error_set(err, ROD_EIO, path, NULL,
                                       "cannot open (%s)", strerror(errno));
  }
  *fd = f;
  return ROD_OK;
}

/* Read fd to its end into a new buffer, at most max bytes. */
static int read_all(int fd, const char *path, size_t max, char **text,
                    size_t *len, rod_error *err) {
  if (max == 0 || max > SIZE_MAX / 4)
    max = SIZE_MAX / 4;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf)
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  for (;;) {
    if (n + 1 >= cap) { /* room for the NUL and at least one byte */
      /* n <= max here, so cap < max + 2 */
      size_t grown = cap > max / 2 ? max + 2 : 2 * cap;
      char *b = realloc(buf, grown);
      if (!b) {
        free(buf);
        return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
      }
      buf = b;
      cap = grown;
    }
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      return rod_error_set(err, ROD_EIO, path, NULL, "read error (%s)",
                           strerror(e));
    }
    if (r == 0)
      break;
    n += (size_t)r;
    if (n > max) {
      free(buf);
      return too_large(path, max, err);
    }
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return ROD_OK;
}

/* Every line within ROD_DATA_MAX_LINE and no NUL byte. */
static int check_lines(const char *text, size_t len, const char *path,
                       rod_error *err) {
  long line = 1;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    const bool end = i == len || text[i] == '\n';
    if (i < len && text[i] == '\0') {
      char key[32];
      snprintf(key, sizeof key, "line %ld", line);
      return rod_error_set(err, ROD_EINVAL, path, key,
                           "holds a NUL byte: not a text file");
    }
    if (!end)
      continue;
    if (i + (i < len) - start > ROD_DATA_MAX_LINE) {
      char key[32];
      snprintf(key, sizeof key, "line %ld", line);
      return rod_error_set(err, ROD_EINVAL, path, key,
                           "longer than %zu bytes, the most rodsim reads in "
                           "one line",
                           ROD_DATA_MAX_LINE);
    }
    line++;
    start = i + 1;
  }
  return ROD_OK;
}

int rod_datafile_read(const char *path, bool allow_stdin, size_t max,
                      char **text, size_t *len, rod_error *err) {
  *text = NULL;
  *len = 0;
  int fd;
  int st = rod_datafile_open(path, allow_stdin, max, &fd, err);
  if (st != ROD_OK)
    return st;
  char *buf = NULL;
  size_t n = 0;
  st = read_all(fd, path, max, &buf, &n, err);
  close(fd);
  if (st == ROD_OK)
    st = check_lines(buf, n, path, err);
  if (st != ROD_OK) {
    free(buf);
    return st;
  }
  *text = buf;
  *len = n;
  return ROD_OK;
}

/* The stream of rod_datafile_fopen: a buffer it owns. */
typedef struct {
  char *text;
  size_t len, pos;
} text_stream;

static ssize_t ts_read(void *cookie, char *buf, size_t size) {
  text_stream *s = cookie;
  size_t n = s->len - s->pos < size ? s->len - s->pos : size;
  memcpy(buf, s->text + s->pos, n);
  s->pos += n;
  return (ssize_t)n;
}

static int ts_close(void *cookie) {
  text_stream *s = cookie;
  free(s->text);
  free(s);
  return 0;
}

int rod_datafile_fopen(const char *path, bool allow_stdin, size_t max,
                       FILE **out, rod_error *err) {
  *out = NULL;
  text_stream *s = calloc(1, sizeof *s);
  if (!s)
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  int st = rod_datafile_read(path, allow_stdin, max, &s->text, &s->len, err);
  if (st != ROD_OK) {
    free(s);
    return st;
  }
  cookie_io_functions_t io = {.read = ts_read, .close = ts_close};
  *out = fopencookie(s, "r", io);
  if (!*out) {
    ts_close(s);
    return rod_error_set(err, ROD_ENOMEM, path, NULL, "out of memory");
  }
  return ROD_OK;
}

int rod_datafile_line(FILE *f, char *buf, size_t size) {
  if (!fgets(buf, (int)size, f))
    return 0;
  size_t n = strlen(buf);
  if (n <= ROD_DATA_MAX_LINE)
    return 1;
  int c; /* the rest of the line */
  while ((c = getc(f)) != EOF && c != '\n')
    ;
  return -1;
}
