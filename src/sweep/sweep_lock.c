/* Locks of a sweep's directory: flock(2) on small files in it, released
 * by the kernel when their holder ends however it ends (SIGKILL too), so
 * a killed sweep never leaves its directory locked. They guard the
 * writers of a sweep against each other, whatever HDF5's own file locking
 * is set to (HDF5_USE_FILE_LOCKING). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "sweep_internal.h"

int sweep_lock(const char *dir, const char *name, bool exclusive, bool wait) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  int op = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB);
  int r;
  while ((r = flock(fd, op)) != 0 && errno == EINTR)
    ;
  if (r != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

void sweep_unlock(int fd) {
  if (fd >= 0)
    close(fd); /* releases the flock */
}
