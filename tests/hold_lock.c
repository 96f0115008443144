/* Preloaded (LD_PRELOAD) into the rodsim writers that a test starts in
 * pairs (test_files.c): a writer that has taken rodsim's writer lock and
 * written its record into the lock file (a file named *.lock) then waits,
 * holding the lock, until the FIFO RODSIM_HOLD_FIFO is opened and closed
 * by the test, which does so once the other writer of the pair has
 * exited. So the other meets the lock held whatever the machine's load
 * does to their start-up. */
#undef _FILE_OFFSET_BITS /* pwrite and pwrite64 apart */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t at);

/* After the first write into a *.lock file (the output's lock; later ones,
 * of the files beside it, go on): wait on the FIFO. */
static void hold(int fd) {
  static int held;
  const char *fifo = getenv("RODSIM_HOLD_FIFO");
  char link[64], name[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = fifo ? readlink(link, name, sizeof name - 1) : -1;
  if (n < 5)
    return;
  name[n] = '\0';
  if (strcmp(name + n - 5, ".lock") != 0 || held++)
    return;
  int wait = open(fifo, O_RDONLY); /* until the test opens it */
  char c;
  while (wait >= 0 && read(wait, &c, 1) > 0)
    ; /* and closes it */
  if (wait >= 0)
    close(wait);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) {
  static ssize_t (*next)(int, const void *, size_t, off_t);
  if (!next)
    *(void **)&next = dlsym(RTLD_NEXT, "pwrite64");
  ssize_t r = next(fd, buf, n, at);
  if (r > 0)
    hold(fd);
  return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at) {
  return pwrite64(fd, buf, n, at);
}
