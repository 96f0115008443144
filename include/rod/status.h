/* Status codes shared by every rodsim module.
 *
 * One X-macro list generates the enum and the message table (status.c), so a
 * new code cannot be added without its message. Functions that can fail
 * return a rod_status; results go out through pointers. */
#ifndef ROD_STATUS_H
#define ROD_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#define ROD_STATUS_LIST(X)                                                     \
  X(ROD_OK, 0, "success")                                                      \
  X(ROD_EINVAL, -1, "invalid argument")                                        \
  X(ROD_ENOMEM, -2, "out of memory")                                           \
  X(ROD_ENOCONV, -3, "no convergence")                                         \
  X(ROD_ESING, -4, "singular matrix")                                          \
  X(ROD_EIO, -5, "input/output error")                                         \
  X(ROD_ENONFINITE, -6, "non-finite value")                                    \
  X(ROD_EUNSUPPORTED, -7, "not supported by this backend")                     \
  X(ROD_EFORMAT, -8, "malformed input")                                        \
  X(ROD_EINTR, -9, "interrupted")

typedef enum {
#define ROD_STATUS_ENUM(name, value, text) name = value,
  ROD_STATUS_LIST(ROD_STATUS_ENUM)
#undef ROD_STATUS_ENUM
} rod_status;

/* Human-readable text of a status code; never NULL. */
const char *rod_strerror(int status);

/* Error detail filled by functions that take input from users: the file (or
 * "--set"), the key (section.key) and a message without a trailing newline.
 * The CLI prints it as "rodsim: FILE: KEY: MESSAGE". */
typedef struct {
  char file[256];
  char key[96];
  char message[384];
  int line; /* line of the file the problem is on; 0: none */
} rod_error;

/* Fill err (may be NULL) with a printf-style message; returns status. */
int rod_error_set(rod_error *err, int status, const char *file, const char *key,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Format err as "FILE: KEY: MESSAGE" (parts that are empty are left out),
 * followed by " (line N)" when err->line is set. */
void rod_error_format(const rod_error *err, char *buf, unsigned long size);

#ifdef __cplusplus
}
#endif

#endif
